"""What σ auto reads on footage with no noise, only a codec, against what it reads on camera noise: the level (RMS of
the map, 0-255, the carried share's lift included) and the carried share, on the twelve validation clips, 5 frames,
as taken and darkened 4× and 8× in linear light (`bench_quality.underexposed`). Conditions: H.264 with no noise at
CRF 18, 23 and 28 (`codec_ceiling.codec_encoded`) and the camera model's three levels at the same CRFs
(`bench_realnoise.camera_draw`). Estimates only; nothing is denoised. (Exploration on validation clips.)
`--held-out`: the benchmark's six clips instead (`bench_quality.available_clip_names`), the check after the decision;
`--clips a,b,...`: those clips (the late validation clips, which set nothing here).

    R=benchmarks/results/overread-hint
    .venv/bin/python $R/probe.py > $R/probe.log
    .venv/bin/python $R/probe.py --held-out > $R/held-out.log
    .venv/bin/python $R/probe.py --clips aero-pan,ascent-pan,aero-objects,ascent-objects > $R/late.log
"""

import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from codec_ceiling import codec_encoded  # noqa: E402
from validation_sweep import VALIDATION_CLIPS  # noqa: E402

from videodenoise.noise.estimation import estimate_clip_noise  # noqa: E402

import bench_quality as quality  # noqa: E402
import bench_realnoise as realnoise  # noqa: E402

names = quality.available_clip_names() if "--held-out" in sys.argv[1:] else VALIDATION_CLIPS
if "--clips" in sys.argv[1:]:
    names = sys.argv[sys.argv.index("--clips") + 1].split(",")
print("exposure | clip | condition | level (0-255) | carried")
for exposure in (1.0, 0.25, 0.125):
    for clip in quality.build_clips(names, 5, quality.DEFAULT_SIZE):
        if exposure != 1.0:
            clip = quality.underexposed(clip, exposure)
        draws = [(f"no noise CRF {crf}", codec_encoded(clip.frames, "h264", crf)) for crf in (18, 23, 28)]
        draws += [
            (f"{level} CRF {crf}", realnoise.camera_draw(clip, level, "h264", crf))
            for level in realnoise.DEFAULT_LEVELS
            for crf in (18, 23, 28)
        ]
        for condition, noisy in draws:
            function = estimate_clip_noise(torch.from_numpy(noisy).float() / 255)
            print(
                f"{exposure:g} | {clip.name} | {condition} | {function.level * 255:.2f} | {function.carried:.2f}",
                flush=True,
            )
