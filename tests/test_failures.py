"""Bad inputs and faults through the real CLI, one table row each.

Every row runs `videodenoise ARGS` in-process on tiny generated files and asserts: the exit code; that
stderr says what is wrong in one line per problem (no traceback); that every option and command a
message suggests really exists; that every file that existed before is byte-identical after (sha256);
and, unless the row expects outputs, that no file or folder was added (nothing half-written).

The rows are grouped by five failure classes:
1. raw Python errors escaping, 2. data lost or changed by a command that failed or had nothing to do,
3. wrong answers and wrong advice, 4. a batch stopping at the first error, 5. small gaps (signals,
full disk, silently accepted options). `test_the_table_covers_every_class` counts them.
"""

from __future__ import annotations

import dataclasses
import errno
import hashlib
import json
import math
import os
import re
import shutil
import signal
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import av
import numpy as np
import pytest
import torch
import typer

from videodenoise.io import writers as V
from videodenoise.io.writers import write_video
from videodenoise.models.registry import build_model, save_model

import replicas as R
from helpers import h264_video, png_movie, run_cli, size_change_stream

TINY_DUST = {"layers": 2, "patch_size": 4, "stride": 2}


# ------------------------------------------------------------------------------------------------
# tiny inputs


def moving_clip(t: int = 4, channels: int = 3, height: int = 24, width: int = 32) -> torch.Tensor:
    # in float64: float32's vectorised sin can differ by an ulp between CPUs (AVX2, AVX-512) and move a pixel
    # across a rounding step, and with it where a file cut at a byte offset ends (CI once decoded 7 frames of
    # the faststart file cut in half where this machine decodes 5)
    y, x = torch.meshgrid(
        torch.linspace(0, 1, height, dtype=torch.float64),
        torch.linspace(0, 1, width, dtype=torch.float64),
        indexing="ij",
    )
    frames = [
        torch.stack([0.5 + 0.3 * torch.sin(6 * x + 4 * y + c + 0.5 * k) for c in range(channels)]) for k in range(t)
    ]
    return ((torch.stack(frames) * 255).round() / 255).float()


def save_checkpoint(path: Path, nan: bool = False, **metadata) -> Path:
    model = build_model("dust", channels=1, **TINY_DUST)
    if nan:
        with torch.no_grad():
            next(model.parameters()).fill_(math.nan)
    save_model(model, path, {"mode": "erm", "sigma_train": repr(25 / 255), "step": "0", "dataset": "test", **metadata})
    return path


def hostile_checkpoint(path: Path) -> Path:
    """A small, well-formed weights file whose config claims ten million layers."""
    from safetensors.torch import save_file

    model = build_model("dust", channels=1, **TINY_DUST)
    config = {**dataclasses.asdict(model.config), "layers": 10_000_000}
    tensors = {key: value.contiguous() for key, value in model.state_dict().items()}
    save_file(tensors, str(path), metadata={"videodenoise_model": "dust", "config": json.dumps(config)})
    return path


def mp4_cut_in_half(path: Path, clip: torch.Tensor, index_first: bool = True) -> Path:
    """An H.264 MP4 cut to half its bytes: with its index at the front (+faststart), the header promises frames that
    are not there; with the index at the end, where a camera writes it when it stops, there is none."""
    whole = path.with_name("whole.mp4")
    with av.open(str(whole), "w", options={"movflags": "+faststart"} if index_first else {}) as container:
        stream = container.add_stream("libx264", rate=25)
        stream.width, stream.height, stream.pix_fmt = clip.shape[3], clip.shape[2], "yuv420p"
        stream.options = {"crf": "10", "g": "4"}
        for index, frame in enumerate(clip):
            image = (frame.permute(1, 2, 0).numpy() * 255).round().astype(np.uint8)
            video_frame = av.VideoFrame.from_ndarray(image, format="rgb24")
            video_frame.pts = index
            for packet in stream.encode(video_frame):
                container.mux(packet)
        for packet in stream.encode(None):
            container.mux(packet)
    data = whole.read_bytes()
    whole.unlink()
    path.write_bytes(data[: len(data) // 2])
    return path


def frame_folder(folder: Path, sizes: list[tuple[int, int]], grey: list[bool] | None = None) -> Path:
    import cv2

    folder.mkdir(parents=True)
    for index, (height, width) in enumerate(sizes):
        image = (np.random.default_rng(index).random((height, width, 3)) * 255).astype(np.uint8)
        if grey and grey[index]:
            image = image[:, :, 0]
        cv2.imwrite(str(folder / f"{index:03d}.png"), image)
    return folder


@pytest.fixture(scope="module")
def shared(tmp_path_factory):
    """What many rows read and none may change: a checkpoint, a dataset replica, a finished run."""
    from videodenoise.training.config import DataConfig, TrainConfig
    from videodenoise.training.trainer import Trainer

    base = tmp_path_factory.mktemp("shared")
    R.make_repackaged(base / "data", "ped2", size=(24, 32))
    checkpoint = save_checkpoint(base / "dust.safetensors")
    config = TrainConfig(
        model="dust",
        model_options=dict(TINY_DUST),
        mode="erm",
        epochs=1,
        batch_size=2,
        device="cpu",
        data=DataConfig(
            dataset="ucsd-ped2",
            root=str(base / "data"),
            clip_length=3,
            crop=16,
            val_crop=16,
            samples_per_epoch=2,
            val_clips_per_video=1,
        ),
    )
    Trainer(config, base / "finished", quiet=True).fit()
    return {"base": base, "data": base / "data", "checkpoint": checkpoint, "finished": base / "finished"}


# ------------------------------------------------------------------------------------------------
# the table


@dataclass
class Case:
    """One bad input or fault. `setup(tmp, shared, monkeypatch)` makes the files inside `tmp` (copying
    shared ones it will touch) and returns the CLI arguments."""

    name: str
    kind: int  # the failure class (1-5, see the module docstring)
    setup: Callable
    code: int = 1
    message: str = ""  # must appear in stderr
    lines: int = 1  # error lines expected on stderr (a batch reports each failed input, then a count)
    writes: list[str] = field(default_factory=list)  # outputs the row expects (relative to tmp); none else may appear
    absent: str = ""  # must not appear in stderr


def clean_args(*extra):
    return ["clean", *map(str, extra), "--quiet"]


def a_video(tmp, name="in.mp4", **kwargs):
    return write_video(tmp / name, moving_clip(**kwargs))


def copy_run(shared, tmp, name="run"):
    return Path(shutil.copytree(shared["finished"], tmp / name))


def evaluate_args(shared, *extra):
    return [
        "evaluate",
        "--dataset",
        "ucsd-ped2",
        "--root",
        str(shared["data"]),
        "--split",
        "test",
        "--gammas",
        "1",
        "--seeds",
        "0",
        "--baselines",
        "noisy",
        "--max-clips",
        "1",
        "--clip-length",
        "3",
        "--crop",
        "16",
        "--no-figures",
        "--quiet",
        *map(str, extra),
    ]


def train_args(shared, *extra):
    return [
        "train",
        "--dataset",
        "ucsd-ped2",
        "--root",
        str(shared["data"]),
        "--model",
        "dust",
        "--mode",
        "erm",
        "--model-option",
        "layers=2",
        "--model-option",
        "patch_size=4",
        "--model-option",
        "stride=2",
        "--clip-length",
        "3",
        "--crop",
        "16",
        "--val-crop",
        "16",
        "--samples-per-epoch",
        "2",
        "--batch-size",
        "2",
        "--epochs",
        "1",
        "--device",
        "cpu",
        "--quiet",
        *map(str, extra),
    ]


def interrupt_writes(monkeypatch, how: str, after: int = 1):
    """Make VideoWriter.write stop the process on its `after`-th frame: Ctrl-C, or a real SIGTERM."""
    original, calls = V.VideoWriter.write, []

    def write(self, frame, pts=None):
        calls.append(1)
        if len(calls) == after + 1:
            if how == "sigterm":
                assert signal.getsignal(signal.SIGTERM) not in (signal.SIG_DFL, None), "no SIGTERM cleanup installed"
                os.kill(os.getpid(), signal.SIGTERM)
                for _ in range(1000):  # the handler runs between bytecodes: give it a few
                    pass
            raise KeyboardInterrupt
        return original(self, frame, pts)

    monkeypatch.setattr(V.VideoWriter, "write", write)


def then(fault, *args, **kwargs):
    """Arguments made first (writing the inputs), then the fault injected: then(fault, ...)(args)."""

    def inject(cli_args):
        fault(*args, **kwargs)
        return cli_args

    return inject


def full_disk(monkeypatch, module, name="open"):
    def refuse(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(module, name, refuse, raising=False)


def fail_for(monkeypatch, bad_name: str, error: Exception):
    from videodenoise.denoise import pipeline

    original = pipeline.denoise_plan

    def flaky(plan, *args, **kwargs):
        if plan.input.name == bad_name:
            raise error
        return original(plan, *args, **kwargs)

    monkeypatch.setattr(pipeline, "denoise_plan", flaky)


def _resume_with_bad_state(tmp, s, mp):
    run = copy_run(s, tmp)
    (run / "last.pt").write_bytes(b"not a checkpoint")
    return ["train", "--resume", run, "--epochs", "5", "--quiet"]


def _evaluate_existing(tmp, s, mp, files=("report.md", "results.csv", "results.json")):
    out = tmp / "eval"
    out.mkdir()
    for name in files:
        (out / name).write_text(f"earlier {name}")
    return evaluate_args(s, s["checkpoint"], "--out", out)


def _demo_existing(tmp, s, mp):
    from videodenoise.datasets import samples

    clip = a_video(tmp, "bikes.mp4")
    mp.setattr(samples, "fetch_sample_clips", lambda *a, **k: {"bikes": clip})
    out = tmp / "demo"
    out.mkdir()
    (out / "bikes.denoised.mp4").write_bytes(b"an earlier demo")
    return ["demo", "--output-dir", out, "--checkpoint", s["checkpoint"], "--frames", "2", "--quiet"]


def _unexpected(tmp, s, mp, error):
    from videodenoise.io import outputs

    def broken(*args, **kwargs):
        raise error

    mp.setattr(outputs, "plan_outputs", broken)
    return clean_args(a_video(tmp), "--checkpoint", s["checkpoint"])


def _train_interrupted(tmp, s, mp):
    from videodenoise.training.trainer import Trainer

    def stop(self, clean):
        raise KeyboardInterrupt

    mp.setattr(Trainer, "train_step", stop)
    return train_args(s, "--run-dir", tmp / "run")


def _train_interrupted_after_checkpoint(tmp, s, mp):
    from videodenoise.training.trainer import Trainer

    original, calls = Trainer.train_step, []

    def stop_second(self, clean):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return original(self, clean)

    mp.setattr(Trainer, "train_step", stop_second)
    return train_args(s, "--run-dir", tmp / "run", "--epochs", "3")


def _samples_wheel_missing(tmp, s, mp):
    return ["data", "download", "samples", "--root", tmp / "cache", "--wheel", tmp / "nope.whl"]


def _shanghaitech_bad_archive(tmp, s, mp):
    (tmp / "shanghaitech.tar.gz").write_bytes(b"not the archive")
    return ["data", "download", "shanghaitech", "--root", tmp]


CASES = [
    # 1. raw Python errors escaping ---------------------------------------------------------------
    Case(
        "frame folder with frames of different sizes",
        1,
        lambda tmp, s, mp: clean_args(
            frame_folder(tmp / "frames", [(24, 32), (24, 32), (20, 30)]),
            "--checkpoint",
            s["checkpoint"],
            "--sigma",
            "20",
        ),
        message="every frame of a folder must have the same size",
    ),
    Case(
        "frame folder mixing grey and colour frames is denoised",
        1,
        lambda tmp, s, mp: clean_args(
            frame_folder(tmp / "frames", [(24, 32)] * 3, grey=[False, True, False]),
            "--checkpoint",
            s["checkpoint"],
            "--sigma",
            "20",
        ),
        code=0,
        lines=0,
        writes=["frames.denoised.mkv"],
    ),
    Case(
        "faststart mp4 cut in half, --sigma auto",
        1,
        lambda tmp, s, mp: clean_args(
            mp4_cut_in_half(tmp / "cut.mp4", moving_clip(t=24)), "--checkpoint", s["checkpoint"]
        ),
        code=0,
        lines=0,
        writes=["cut.denoised.mp4"],
        message="lists 24 frames (in its header, or as packets) but only",
    ),
    Case(
        "MPEG-TS recorded from between two keyframes, --sigma auto",
        1,
        lambda tmp, s, mp: clean_args(
            h264_video(tmp / "dvr.ts", moving_clip(t=24), dropped=3, options={"crf": "10", "g": "8", "bf": "2"}),
            "--checkpoint",
            s["checkpoint"],
        ),
        code=0,
        lines=0,
        writes=["dvr.denoised.mp4"],
        message="could be decoded (a file cut short, or frames its decoder drops",
    ),
    Case(
        "an image named as the output of a video of many frames",
        3,
        lambda tmp, s, mp: clean_args(a_video(tmp), "-o", tmp / "still.png", "--checkpoint", s["checkpoint"]),
        message="is an image, which holds one frame, and",
    ),
    Case(
        "a photo's output named as a JPEG",
        3,
        lambda tmp, s, mp: clean_args(
            frame_folder(tmp / "frames", [(24, 32)]) / "000.png", "-o", tmp / "out.jpg", "--checkpoint", s["checkpoint"]
        ),
        message=".png for one image",
    ),
    Case(
        "a camera's live stream address",
        3,
        lambda tmp, s, mp: clean_args("rtsp://192.168.1.10:554/stream1", "--checkpoint", s["checkpoint"]),
        message="'rtsp://192.168.1.10:554/stream1' is a network address; clean reads video files: record or download",
    ),
    Case(
        "mp4 recording stopped before its index was written",
        3,
        lambda tmp, s, mp: clean_args(
            mp4_cut_in_half(tmp / "cam.mp4", moving_clip(t=16), index_first=False), "--checkpoint", s["checkpoint"]
        ),
        message="is an MP4 or MOV recording without its index (the moov box its writer adds last): it was stopped",
    ),
    Case(
        "faststart mp4 cut inside its first frame, --sigma auto",
        1,
        lambda tmp, s, mp: clean_args(
            mp4_cut_in_half(tmp / "cut.mp4", moving_clip(t=16)), "--checkpoint", s["checkpoint"]
        ),
        message="can be decoded; the file is corrupt",
    ),
    Case(
        "train --workers -1",
        1,
        lambda tmp, s, mp: train_args(s, "--workers", "-1", "--run-dir", tmp / "run"),
        message="--workers must be 0",
    ),
    Case(
        "train --run-dir is an existing file",
        1,
        lambda tmp, s, mp: train_args(s, "--run-dir", (tmp / "afile").write_text("x") and tmp / "afile"),
        message="is a file, not a folder; choose another --run-dir",
    ),
    Case(
        "train --run-dir cannot be created",
        1,
        lambda tmp, s, mp: train_args(s, "--run-dir", (tmp / "afile").write_text("x") and tmp / "afile" / "run"),
        message="afile' is a file, not a folder",
    ),
    Case(
        "evaluate --out is an existing file",
        1,
        lambda tmp, s, mp: evaluate_args(s, s["checkpoint"], "--out", (tmp / "out").write_text("x") and tmp / "out"),
        message="is a file; choose another --out",
    ),
    Case(
        "evaluate --out cannot be created",
        1,
        lambda tmp, s, mp: evaluate_args(s, "--out", (tmp / "afile").write_text("x") and tmp / "afile" / "eval"),
        message="is a file, not a folder",
    ),
    Case(
        "data download --root is a file",
        1,
        lambda tmp, s, mp: [
            "data",
            "download",
            "ucsd-ped2",
            "--root",
            (tmp / "afile").write_text("x") and tmp / "afile",
        ],
        message="is a file, not a folder; choose another --root DIR",
    ),
    Case(
        "data download samples --root under a file",
        1,
        lambda tmp, s, mp: [
            "data",
            "download",
            "samples",
            "--root",
            (tmp / "afile").write_text("x") and tmp / "afile" / "cache",
        ],
        message="is a file, not a folder",
    ),
    Case(
        "an unexpected RuntimeError becomes one line",
        1,
        lambda tmp, s, mp: _unexpected(tmp, s, mp, RuntimeError("boom\nsecond line")),
        message="failed unexpectedly (RuntimeError: boom second line)",
    ),
    Case(
        "an unexpected StopIteration becomes one line",
        1,
        lambda tmp, s, mp: _unexpected(tmp, s, mp, StopIteration()),
        message="StopIteration",
    ),
    Case(
        "an unexpected FileNotFoundError names the file",
        1,
        lambda tmp, s, mp: _unexpected(tmp, s, mp, FileNotFoundError(errno.ENOENT, "No such file", "/gone/x")),
        message="'/gone/x'",
    ),
    Case(
        "train --config that is not TOML",
        1,
        lambda tmp, s, mp: ["train", "--config", (tmp / "c.toml").write_text("[[[") and tmp / "c.toml"],
        message="cannot be parsed",
    ),
    Case(
        "clean --checkpoint a folder without weights",
        1,
        lambda tmp, s, mp: clean_args(a_video(tmp), "--checkpoint", (tmp / "empty").mkdir() or tmp / "empty"),
        message="holds no best.safetensors or last.safetensors",
    ),
    Case(
        "experiment with a missing config", 1, lambda tmp, s, mp: ["experiment", tmp / "none.toml"], message="none.toml"
    ),
    # 2. data lost or changed ---------------------------------------------------------------------
    Case(
        "train --resume of a finished run changes nothing",
        2,
        lambda tmp, s, mp: ["train", "--resume", copy_run(s, tmp), "--quiet"],
        code=0,
        lines=0,
    ),
    Case(
        "a failed --resume leaves config.json as it was",
        2,
        _resume_with_bad_state,
        message="cannot be read as a training checkpoint",
    ),
    Case("evaluate --out over earlier results", 2, _evaluate_existing, message="already holds an evaluation"),
    Case(
        "evaluate --out over an earlier figure",
        2,
        lambda tmp, s, mp: _evaluate_existing(tmp, s, mp, files=("rmse_vs_gamma.png",)),
        message="already holds an evaluation (rmse_vs_gamma.png)",
    ),
    Case("demo over an earlier demo", 2, _demo_existing, message="already exists; pass --overwrite"),
    Case(
        "clean over an existing output",
        2,
        lambda tmp, s, mp: (
            (tmp / "in.denoised.mp4").write_bytes(b"keep") and clean_args(a_video(tmp), "--checkpoint", s["checkpoint"])
        ),
        message="already exists; pass --overwrite",
    ),
    Case(
        "clean --overwrite onto its own input",
        2,
        lambda tmp, s, mp: clean_args(
            a_video(tmp), "-o", tmp / "in.mp4", "--overwrite", "--checkpoint", s["checkpoint"]
        ),
        message="is the input",
    ),
    Case(
        "a new train into a finished run's folder",
        2,
        lambda tmp, s, mp: train_args(s, "--run-dir", copy_run(s, tmp)),
        message="already holds a run",
    ),
    Case(
        "clean side-by-side output exists",
        2,
        lambda tmp, s, mp: (
            (tmp / "in.side-by-side.mp4").write_bytes(b"keep")
            and clean_args(a_video(tmp), "--side-by-side", "--checkpoint", s["checkpoint"])
        ),
        message="already exists",
    ),
    Case(
        "an output of the batch is another of its inputs, with --overwrite",
        2,
        lambda tmp, s, mp: clean_args(
            a_video(tmp, "a.mp4"), a_video(tmp, "a.denoised.mp4"), "--overwrite", "--checkpoint", s["checkpoint"]
        ),
        message="is another input of this batch",
    ),
    Case(
        "a side-by-side output is another input of the batch",
        2,
        lambda tmp, s, mp: clean_args(
            a_video(tmp, "a.mp4"),
            a_video(tmp, "a.side-by-side.mp4"),
            "--side-by-side",
            "--overwrite",
            "--checkpoint",
            s["checkpoint"],
        ),
        message="is another input of this batch",
    ),
    # 3. wrong answers and wrong advice -----------------------------------------------------------
    Case(
        "clean with NaN weights",
        3,
        lambda tmp, s, mp: clean_args(
            a_video(tmp), "--checkpoint", save_checkpoint(tmp / "nan.safetensors", nan=True), "--sigma", "20"
        ),
        message="nan.safetensors' holds non-finite weights",
    ),
    Case(
        "evaluate with NaN weights",
        3,
        lambda tmp, s, mp: evaluate_args(s, save_checkpoint(tmp / "nan.safetensors", nan=True), "--out", tmp / "eval"),
        message="holds non-finite weights",
    ),
    Case(
        "clean with a corrupt sigma_train",
        3,
        lambda tmp, s, mp: clean_args(
            a_video(tmp), "--checkpoint", save_checkpoint(tmp / "bad.safetensors", sigma_train="loud")
        ),
        message="corrupt sigma_train",
    ),
    Case(
        "one corrupt packet mid-video, --sigma auto",
        3,
        lambda tmp, s, mp: clean_args(
            png_movie(tmp / "broken.mov", moving_clip(t=6), corrupt=[3]), "--checkpoint", s["checkpoint"]
        ),
        code=0,
        lines=0,
        writes=["broken.denoised.mkv"],
        absent="no frame",
    ),
    Case(
        "shanghaitech archive with the wrong checksum suggests --no-verify",
        3,
        _shanghaitech_bad_archive,
        message="--no-verify",
    ),
    Case(
        "data info folder on a missing root suggests no download",
        3,
        lambda tmp, s, mp: ["data", "info", "folder", "--root", tmp / "missing"],
        message="does not exist; check the path",
        absent="data download folder",
    ),
    Case("data download samples --wheel that is missing", 3, _samples_wheel_missing, message="does not exist"),
    Case(
        "train that fails at start leaves no run folder",
        3,
        lambda tmp, s, mp: [
            "train",
            "--dataset",
            "avenue",
            "--root",
            tmp / "nowhere",
            "--run-dir",
            tmp / "run",
            "--quiet",
        ],
        message="does not exist",
        absent="--resume",
    ),
    Case(
        "train --resume of a run killed before its first checkpoint",
        3,
        lambda tmp, s, mp: (
            (tmp / "run").mkdir()
            or (tmp / "run" / "config.json").write_text("{}")
            and ["train", "--resume", tmp / "run"]
        ),
        message="delete the folder and start the run again",
    ),
    Case(
        "a new train into a run killed before its first checkpoint",
        3,
        lambda tmp, s, mp: (
            (tmp / "run").mkdir()
            or (tmp / "run" / "config.json").write_text("{}")
            and train_args(s, "--run-dir", tmp / "run")
        ),
        message="delete that folder",
        absent="--resume",
    ),
    Case(
        "--resume of a path that does not exist",
        3,
        lambda tmp, s, mp: ["train", "--resume", tmp / "none"],
        message="is not a run folder",
    ),
    Case(
        "a picture size that changes mid-stream",
        3,
        lambda tmp, s, mp: clean_args(size_change_stream(tmp / "joined.h264"), "--checkpoint", s["checkpoint"]),
        message="changes its picture size mid-stream (64×48 → 48×32",
    ),
    Case(
        "a video stream that is not there",
        3,
        lambda tmp, s, mp: clean_args(a_video(tmp), "--stream", "3", "--checkpoint", s["checkpoint"]),
        message="has 1 video stream(s); --stream must be from 0 to 0",
    ),
    Case(
        "a checkpoint whose config claims ten million layers",
        3,
        lambda tmp, s, mp: clean_args(a_video(tmp), "--checkpoint", hostile_checkpoint(tmp / "huge.safetensors")),
        message="layers must be between 1 and 64",
    ),
    Case(
        "a learning rate that is not a number",
        3,
        lambda tmp, s, mp: train_args(s, "--lr", "nan", "--run-dir", tmp / "run"),
        message="--lr must be a finite number",
    ),
    Case(
        "a negative seed",
        3,
        lambda tmp, s, mp: train_args(s, "--seed", "-1", "--run-dir", tmp / "run"),
        message="seed",
        absent="unexpectedly",
    ),
    Case(
        "a config value of the wrong type",
        3,
        lambda tmp, s, mp: ["train", "--config", (tmp / "c.toml").write_text('epochs = "ten"\n') and tmp / "c.toml"],
        message="epochs",
        absent="unexpectedly",
    ),
    Case(
        "a JSON config that gives a key twice",
        3,
        lambda tmp, s, mp: [
            "train",
            "--config",
            (tmp / "c.json").write_text('{"lr": 0.1, "lr": 0.001}') and tmp / "c.json",
        ],
        message="gives the key 'lr' twice",
    ),
    # 4. a batch stopping at the first error ------------------------------------------------------
    Case(
        "clean a.mp4 bad_folder/ c.mp4 -o out/",
        4,
        lambda tmp, s, mp: (
            (tmp / "out").mkdir()
            or (tmp / "bad").mkdir()
            or clean_args(
                a_video(tmp, "a.mp4"),
                tmp / "bad",
                a_video(tmp, "c.mp4"),
                "-o",
                tmp / "out",
                "--checkpoint",
                s["checkpoint"],
                "--sigma",
                "20",
            )
        ),
        lines=2,
        message="1 of 3 inputs failed",
        writes=["out/a.denoised.mp4", "out/c.denoised.mp4"],
    ),
    Case(
        "clean with a missing input in the middle",
        4,
        lambda tmp, s, mp: clean_args(
            a_video(tmp, "a.mp4"),
            tmp / "missing.mp4",
            a_video(tmp, "c.mp4"),
            "--checkpoint",
            s["checkpoint"],
            "--sigma",
            "20",
        ),
        lines=2,
        message="missing.mp4' does not exist",
        writes=["a.denoised.mp4", "c.denoised.mp4"],
    ),
    Case(
        "clean --start after one input's end",
        4,
        lambda tmp, s, mp: clean_args(
            a_video(tmp, "short.mp4"),  # 4 frames at 25 fps: the last at 0.12 s
            a_video(tmp, "long.mp4", t=8),
            "--start",
            "0.2",
            "--checkpoint",
            s["checkpoint"],
            "--sigma",
            "20",
        ),
        lines=2,
        message="short.mp4' (at 0.12 s); choose an earlier start",
        writes=["long.denoised.mp4"],
    ),
    Case(
        "clean --duration holding no frame",
        5,
        lambda tmp, s, mp: clean_args(a_video(tmp), "--start", "0.01", "--duration", "0.02", "--sigma", "20"),
        message="has no frame from 0.01 s to 0.03 s (the next is at 0.040 s); lengthen --duration",
    ),
    Case(
        "clean --start not a time",
        5,
        lambda tmp, s, mp: clean_args(a_video(tmp), "--start", "1h30"),
        message="--start takes seconds (90, 1.5) or a clock time (1:30, 01:02:03.5); got '1h30'",
    ),
    Case(
        "clean where one input fails unexpectedly",
        4,
        lambda tmp, s, mp: (
            fail_for(mp, "a.mp4", RuntimeError("decoder exploded"))
            or clean_args(
                a_video(tmp, "a.mp4"), a_video(tmp, "c.mp4"), "--checkpoint", s["checkpoint"], "--sigma", "20"
            )
        ),
        lines=2,
        message="RuntimeError: decoder exploded",
        writes=["c.denoised.mp4"],
    ),
    Case(
        "clean where every input fails",
        4,
        lambda tmp, s, mp: clean_args(tmp / "x.mp4", tmp / "y.mp4", "--checkpoint", s["checkpoint"]),
        lines=3,
        message="2 of 2 inputs failed",
    ),
    # 5. small gaps -------------------------------------------------------------------------------
    Case(
        "a time of day in the file name",
        5,
        lambda tmp, s, mp: clean_args(a_video(tmp, "12:30:00.mp4"), "--checkpoint", s["checkpoint"], "--sigma", "5"),
        code=0,
        lines=0,
        writes=["12:30:00.denoised.mp4"],
    ),
    Case(
        "a window far longer than any video",
        5,
        lambda tmp, s, mp: clean_args(a_video(tmp), "--window", "100000", "--checkpoint", s["checkpoint"]),
        message="the temporal window must be from 1 to 64 frames, got 100000",
    ),
    Case(
        "SIGTERM while writing",
        5,
        lambda tmp, s, mp: then(interrupt_writes, mp, "sigterm")(
            clean_args(a_video(tmp), "--checkpoint", s["checkpoint"], "--sigma", "20")
        ),
        code=130,
        message="interrupted; nothing was written",
    ),
    Case(
        "Ctrl-C while writing",
        5,
        lambda tmp, s, mp: then(interrupt_writes, mp, "ctrl-c")(
            clean_args(a_video(tmp), "--checkpoint", s["checkpoint"], "--sigma", "20")
        ),
        code=130,
        message="interrupted; nothing was written",
    ),
    Case(
        "Ctrl-C in a batch after one output",
        5,
        lambda tmp, s, mp: then(interrupt_writes, mp, "ctrl-c", after=4)(
            clean_args(a_video(tmp, "a.mp4"), a_video(tmp, "c.mp4"), "--checkpoint", s["checkpoint"], "--sigma", "20")
        ),
        code=130,
        message="interrupted; kept the 1 finished output(s)",
        writes=["a.denoised.mp4"],
    ),
    Case(
        "Ctrl-C in training before the first checkpoint",
        5,
        _train_interrupted,
        code=130,
        message="before its first checkpoint, so nothing was kept",
    ),
    Case(
        "Ctrl-C in training after a checkpoint",
        5,
        _train_interrupted_after_checkpoint,
        code=130,
        message="keeps its last checkpoint; continue it with `videodenoise train --resume",
        writes=["run/config.json", "run/last.pt", "run/last.safetensors", "run/metrics.jsonl", "run/best.safetensors"],
    ),
    Case(
        "full disk while writing PNG frames",
        5,
        lambda tmp, s, mp: (
            full_disk(mp, V)
            or clean_args(a_video(tmp), "-o", tmp / "frames_out", "--checkpoint", s["checkpoint"], "--sigma", "20")
        ),
        message="no space left on device",
        absent="libpng",
    ),
    Case(
        "full disk while writing evaluation results",
        5,
        lambda tmp, s, mp: full_disk(mp, Path, "write_text") or evaluate_args(s, "--out", tmp / "eval"),
        message="no space left on device",
    ),
    Case(
        "--crf 99",
        5,
        lambda tmp, s, mp: clean_args(a_video(tmp), "--crf", "99", "--checkpoint", s["checkpoint"]),
        message="--crf must be from 0",
    ),
    Case(
        "--crf -1",
        5,
        lambda tmp, s, mp: clean_args(a_video(tmp), "--crf", "-1", "--checkpoint", s["checkpoint"]),
        message="--crf must be from 0",
    ),
    Case(
        "--fps 0",
        5,
        lambda tmp, s, mp: clean_args(
            frame_folder(tmp / "frames", [(24, 32)] * 2), "--fps", "0", "--checkpoint", s["checkpoint"]
        ),
        message="--fps must be a positive frame rate",
    ),
    Case(
        "-o afile/out.mp4 where afile is a file",
        5,
        lambda tmp, s, mp: (
            (tmp / "afile").write_text("x")
            and clean_args(a_video(tmp), "-o", tmp / "afile" / "out.mp4", "--checkpoint", s["checkpoint"])
        ),
        message="afile' is a file, not a folder",
    ),
    Case(
        "demo --frames 0",
        5,
        lambda tmp, s, mp: ["demo", "--output-dir", tmp / "demo", "--frames", "0"],
        message="--frames must be at least 1",
    ),
]


# ------------------------------------------------------------------------------------------------
# checks


def snapshot(root: Path) -> dict[str, str]:
    """sha256 of every file below `root` (folders as 'dir'), by relative path."""
    out = {}
    for path in sorted(root.rglob("*")):
        key = str(path.relative_to(root))
        out[key] = "dir" if path.is_dir() else hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def cli_command(words: list[str]):
    """The click command `videodenoise WORDS...` names, and the words left over (None: no such command)."""
    from videodenoise.cli.app import app

    command = typer.main.get_command(app)
    words = list(words)
    while words and hasattr(command, "commands") and words[0] in command.commands:
        command = command.commands[words.pop(0)]
    return command, words


def options_of(command) -> set[str]:
    names = {"--debug", "--help"}
    for parameter in command.params:
        names.update(o for o in parameter.opts + parameter.secondary_opts if o.startswith("--"))
    return names


def assert_hints_exist(stderr: str, args: list[str]) -> None:
    """Every `videodenoise ...` command quoted in a message exists with the options it names, and every
    other --option a message names belongs to the command that was run."""
    for quoted in re.findall(r"`videodenoise ([^`]*)`", stderr):
        command, rest = cli_command(quoted.split())
        assert not hasattr(command, "commands"), f"hint names no command: videodenoise {quoted}"
        for option in [w for w in rest if w.startswith("--")]:
            assert option in options_of(command), f"hint names an option that does not exist: {option} in {quoted!r}"
    ran, _ = cli_command([str(a) for a in args if not str(a).startswith("-")][:3])
    loose = re.sub(r"`[^`]*`", "", stderr)
    for option in re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", loose):
        assert option in options_of(ran), f"message names {option}, which `{ran.name}` does not have"


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_bad_input_or_fault(case: Case, shared, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    shared_before = snapshot(shared["base"])
    args = case.setup(tmp_path, shared, monkeypatch)
    before = snapshot(tmp_path)

    code, out, err = run_cli(args, capsys, monkeypatch)

    assert "Traceback" not in err and "Traceback" not in out
    if case.code is not None:
        assert code == case.code, err
    else:
        assert code in (0, 1), err
    problems = [line for line in err.splitlines() if line.strip() and not line.startswith("warning:")]
    if case.lines is not None:
        assert len(problems) == case.lines, err
    assert all(line.startswith(("error: ", "interrupted; ")) for line in problems), err
    assert case.message in err, err
    if case.absent:
        assert case.absent not in err, err
    assert_hints_exist(err, args)

    after = snapshot(tmp_path)
    for path, digest in before.items():
        assert after.get(path) == digest, f"{path} was changed or removed"
    added = set(after) - set(before)
    optional = {w.rstrip("?") for w in case.writes if w.endswith("?")}
    expected = {w for w in case.writes if not w.endswith("?")}
    for path in expected:
        assert path in added, f"expected output {path} missing"
    folders = {str(Path(p).parent) for p in expected | optional} - {"."}
    # a training run also logs to run/tensorboard/ where tensorboard is installed (it is optional)
    unexpected = {p for p in added if p not in expected | optional | folders and "tensorboard" not in Path(p).parts}
    assert not unexpected, f"left behind: {sorted(unexpected)}"
    assert snapshot(shared["base"]) == shared_before


def test_the_table_covers_every_class():
    counts = {kind: sum(case.kind == kind for case in CASES) for kind in range(1, 6)}
    examples = {1: 8, 2: 4, 3: 4, 4: 1, 5: 5}  # the cases each class was first reported with
    for kind, count in counts.items():
        assert count > examples[kind], f"class {kind}: {count} cases, first reported with {examples[kind]}"
    assert len({case.name for case in CASES}) == len(CASES)


def test_debug_shows_the_traceback(tmp_path, capsys, monkeypatch):
    from videodenoise.io import outputs

    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(outputs, "plan_outputs", broken)
    with pytest.raises(RuntimeError, match="boom"):
        run_cli(["--debug", "clean", str(tmp_path / "x.mp4")], capsys, monkeypatch)
    monkeypatch.setenv("VIDEODENOISE_DEBUG", "1")
    with pytest.raises(RuntimeError, match="boom"):
        run_cli(["clean", str(tmp_path / "x.mp4")], capsys, monkeypatch)
