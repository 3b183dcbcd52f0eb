"""The same interlaced bikes clip as fields_or_frames.py, through the `clean` command as a user runs it.

The noisy interlaced frames are stored losslessly (FFV1) tagged top field first, then cleaned by
`videodenoise clean --format lossless` with σ estimated, without and with --fields; PSNR against the
noise-free interlaced frames, and the field order the output file carries.

    .venv/bin/python benchmarks/results/interlaced/through_clean.py      # through_clean.log
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import torch

from videodenoise import open_video, read_video
from videodenoise.datasets.samples import fetch_sample_clips
from videodenoise.io.readers import VideoProperties
from videodenoise.io.writers import VideoWriter


def main() -> None:
    progressive = (read_video(fetch_sample_clips()["bikes"], max_frames=40) * 255).round() / 255
    clean = progressive[0::2].clone()
    clean[:, :, 1::2] = progressive[1::2, :, 1::2]  # the bottom field half a frame later
    noise = 25 / 255 * torch.randn(clean.shape, generator=torch.Generator().manual_seed(0))
    noisy = ((clean + noise).clamp(0, 1) * 255).round() / 255
    command = Path(sys.executable).with_name("videodenoise")
    with tempfile.TemporaryDirectory() as folder:
        source, output = Path(folder) / "interlaced.mkv", Path(folder) / "out.mkv"
        with VideoWriter(source, fps=25, codec="ffv1", properties=VideoProperties(field_order=2)) as writer:
            for frame in noisy:
                writer.write(frame)
        print(f"noisy {float(-10 * torch.log10(((noisy - clean) ** 2).mean())):.2f} dB")
        for extra in ([], ["--fields"]):
            run = [str(command), "clean", str(source), "-o", str(output), "--format", "lossless", "--overwrite"]
            lines = subprocess.run(run + extra, check=True, capture_output=True, text=True)
            said = [line for line in (lines.stdout + lines.stderr).splitlines() if "σ ≈" in line or "warning" in line]
            psnr = float(-10 * torch.log10(((read_video(output) - clean) ** 2).mean()))
            order = open_video(output).properties().field_order
            print(f"clean {' '.join(extra) or '(frames)'}: {psnr:.2f} dB, field order {order}")
            for line in said:
                print("   ", line.strip()[:200])


if __name__ == "__main__":
    main()
