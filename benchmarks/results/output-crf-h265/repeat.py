"""Does `clean`'s HEVC writer give the same bits for the same frames on every run? The four clips of
`h264-repeatability/stress.py` (bikes' centre noisy and cleaned, 8 bits; a noisy pan at 10 bits; the pan at 321×241
in 4:4:4) written by `VideoWriter` in HEVC at its default CRF --runs times in this process; the distinct outputs are
counted (1: repeatable), with the file's size.

    R=benchmarks/results/output-crf-h265; .venv/bin/python $R/repeat.py > $R/repeat.log
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "h264-repeatability"))
from stress import clips  # noqa: E402

from videodenoise.devices import cpu_has_avx512  # noqa: E402
from videodenoise.io.crf import DEFAULT_CRF  # noqa: E402
from videodenoise.io.readers import VideoProperties  # noqa: E402
from videodenoise.io.writers import VideoWriter  # noqa: E402

from _machine import cpu_name  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=8)
    runs = parser.parse_args().runs
    print(f"# {cpu_name()} (AVX-512: {cpu_has_avx512()}); HEVC at CRF {DEFAULT_CRF['h265']}, {runs} runs each")
    for name, frames, bits, pix_fmt in clips():
        chroma = (1, 1) if pix_fmt.startswith("yuv444") else (2, 2)
        properties = VideoProperties(bit_depth=bits, chroma=chroma)
        digests, size = set(), 0
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "out.mp4"
            for _ in range(runs):
                with VideoWriter(path, fps=25, codec="h265", properties=properties, overwrite=True) as writer:
                    for image in frames:
                        writer.write(image)
                data = path.read_bytes()
                digests.add(hashlib.sha256(data).hexdigest())
                size = len(data)
        print(f"{name}: {len(digests)} distinct output(s) in {runs}, {size} bytes", flush=True)


if __name__ == "__main__":
    main()
