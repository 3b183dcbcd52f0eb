"""Write bench_quality's σ = 25 draw of the first 60 frames of bikes (320×240) as a lossless FFV1 file: the input
that stride/run.sh times `clean` on.    python bikes60.py OUT.mkv"""

import sys

import torch

sys.path.insert(0, "benchmarks")
import bench_quality as quality  # noqa: E402
from videodenoise.io.writers import write_video  # noqa: E402

clip = quality.load_real_clip("bikes", 60, (240, 320))
noisy = quality.add_noise_uint8(clip.frames, 25.0, quality.noise_seed(clip.name, 25.0))
write_video(sys.argv[1], torch.from_numpy(noisy).float() / 255, codec="ffv1")
