"""Tiny replicas of the datasets' on-disk layouts, with the exact names, junk and defects of
docs/datasets.md, built inside the tests (no dataset can be downloaded here).

Every frame encodes where it comes from: frame k of a clip is a fixed spatial pattern plus a
brightness of `frame_level(clip_number, k)`, so tests can assert frame order and clip identity from
pixel values (with a tolerance for lossy JPEG and video codecs).
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
from scipy.io import savemat

UCSD_SIZE = {1: (158, 238), 2: (240, 360)}  # (H, W)
AVENUE_SIZE = (36, 64)  # real: 360x640; scaled down to keep the tests fast, same aspect
SHANGHAI_SIZE = (48, 86)  # real: 480x856, scaled down


def frame_level(clip: int, k: int) -> int:
    """Brightness of frame k of clip number `clip`: distinct and increasing in k."""
    return 20 + 12 * k + 3 * clip


def frame(clip: int, k: int, height: int, width: int, channels: int = 1) -> np.ndarray:
    """(H, W, C) uint8 frame: a smooth ramp pattern (so codecs keep it) offset by the frame level."""
    ramp = (np.add.outer(np.arange(height), np.arange(width)) % 16).astype(np.int32)
    image = np.clip(frame_level(clip, k) + ramp, 0, 255).astype(np.uint8)
    return np.repeat(image[:, :, None], channels, axis=2)


def write_frames(folder: Path, clip: int, n: int, size: tuple[int, int], ext: str, names, channels: int = 1) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for k in range(n):
        image = frame(clip, k, *size, channels)
        assert cv2.imwrite(str(folder / f"{names(k)}{ext}"), image if channels == 1 else image[:, :, ::-1])


def write_avi(path: Path, clip: int, n: int, size: tuple[int, int], fps: float = 25.0) -> None:
    """An MJPEG .avi written by OpenCV, colour, like the datasets' .avi files."""
    path.parent.mkdir(parents=True, exist_ok=True)
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), fps, (size[1], size[0]))
    for k in range(n):
        writer.write(frame(clip, k, *size, channels=3))
    writer.release()


def add_junk(folder: Path) -> None:
    (folder / ".DS_Store").write_bytes(b"\x00\x00\x00\x01Bud1")
    (folder / "._README.txt").write_bytes(b"\x00\x05\x16\x07resource fork")


def truncate(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


# ----------------------------------------------------------------------------------------------


UCSD_TRAIN_FRAMES = {1: [7, 6, 5], 2: [6, 5]}
UCSD_TEST_FRAMES = {1: [6, 7, 8], 2: [5, 6]}


def make_ucsd(root: Path, ped: int = 1) -> Path:
    """UCSD_Anomaly_Dataset.v1p2/UCSDpedN/{Train,Test}/... with 3-digit 1-based TIFF names, a `_gt`
    mask folder, resource forks, .DS_Store, the .m label file, and (Ped1) a truncated TIFF in the
    third test clip, as Test017/142.tif is in the real v1p2."""
    base = root / "UCSD_Anomaly_Dataset.v1p2" / f"UCSDped{ped}"
    size = UCSD_SIZE[ped]
    for split, counts in (("Train", UCSD_TRAIN_FRAMES[ped]), ("Test", UCSD_TEST_FRAMES[ped])):
        for number, n in enumerate(counts, start=1):
            clip_dir = base / split / f"{split}{number:03d}"
            write_frames(clip_dir, number, n, size, ".tif", lambda k: f"{k + 1:03d}")
            (clip_dir / "._001.tif").write_bytes(b"\x00\x05\x16\x07junk")
            (base / split / f"._{split}{number:03d}").write_bytes(b"junk")
        add_junk(base / split)
    gt = base / "Test" / "Test002_gt"
    write_frames(gt, 99, UCSD_TEST_FRAMES[ped][1], size, ".bmp", lambda k: f"{k + 1:03d}")
    label_lines = ["TestVideoFile = {};"]
    label_lines.append("TestVideoFile{end+1}.gt_frame = [2:4];")
    label_lines.append(f"TestVideoFile{{end+1}}.gt_frame = [1:2, 4:{UCSD_TEST_FRAMES[ped][1]}];")
    if ped == 1:
        label_lines.append(f"TestVideoFile{{end+1}}.gt_frame = [5:{UCSD_TEST_FRAMES[ped][2]}];")
        truncate(base / "Test" / "Test003" / "004.tif")
    (base / "Test" / f"UCSDped{ped}.m").write_text("\n".join(label_lines) + "\n")
    return root


AVENUE_TRAIN_FRAMES = [9, 8]
AVENUE_TEST_FRAMES = [7, 8, 6]


def make_avenue(root: Path, fps: float = 25.0) -> Path:
    """`Avenue Dataset/` (with its space) holding training_videos/NN.avi, testing_videos/NN.avi and the
    ignored training_vol/; `ground_truth_demo/testing_label_mask/N_label.mat` (key volLabel)."""
    base = root / "Avenue Dataset"
    for split, counts in (("training_videos", AVENUE_TRAIN_FRAMES), ("testing_videos", AVENUE_TEST_FRAMES)):
        for number, n in enumerate(counts, start=1):
            write_avi(base / split / f"{number:02d}.avi", number, n, AVENUE_SIZE, fps)
        (base / split / f"._{1:02d}.avi").write_bytes(b"junk")
        add_junk(base / split)
    (base / "training_vol").mkdir()
    savemat(str(base / "training_vol" / "vol01.mat"), {"vol": np.zeros((4, 4, 2), np.uint8)})
    masks = root / "ground_truth_demo" / "testing_label_mask"
    masks.mkdir(parents=True)
    for number, n in enumerate(AVENUE_TEST_FRAMES, start=1):
        vol = np.empty((1, n), dtype=object)
        for k in range(n):
            vol[0, k] = np.zeros(AVENUE_SIZE, np.uint8)
        savemat(str(masks / f"{number}_label.mat"), {"volLabel": vol})
    return root


SHANGHAI_TRAIN = {"01_001": 8, "01_002": 7, "02_001": 9}
SHANGHAI_TEST = {"01_0014": 12, "01_0015": 6}


def make_shanghaitech(root: Path) -> Path:
    """shanghaitech/training/videos/SS_CCC.avi; testing/frames/SS_CCCC/NNN.jpg (0-based, 3 digits);
    testing/test_frame_mask/SS_CCCC.npy and test_pixel_mask/."""
    base = root / "shanghaitech"
    for number, (name, n) in enumerate(SHANGHAI_TRAIN.items(), start=1):
        write_avi(base / "training" / "videos" / f"{name}.avi", number, n, SHANGHAI_SIZE, 24.0)
    for number, (name, n) in enumerate(SHANGHAI_TEST.items(), start=1):
        write_frames(base / "testing" / "frames" / name, number, n, SHANGHAI_SIZE, ".jpg", lambda k: f"{k:03d}", 3)
        (base / "testing" / "test_frame_mask").mkdir(parents=True, exist_ok=True)
        np.save(base / "testing" / "test_frame_mask" / f"{name}.npy", np.zeros(n, np.int64))
    (base / "testing" / "test_pixel_mask").mkdir()
    add_junk(base / "testing" / "frames")
    return root


REPACKAGED_FRAMES = {"training": [12, 5], "testing": [11]}


def make_repackaged(root: Path, short_name: str, size: tuple[int, int] = (24, 32)) -> Path:
    """<root>/<short>/{training,testing}/frames/<clip>/<n>.jpg with 0-based names; the first clip's
    names are unpadded (0.jpg ... 11.jpg) so that text order differs from numeric order, the others
    4-digit padded."""
    for split, counts in REPACKAGED_FRAMES.items():
        for number, n in enumerate(counts, start=1):
            names = (lambda k: str(k)) if number == 1 else (lambda k: f"{k:04d}")
            write_frames(root / short_name / split / "frames" / f"{number:02d}", number, n, size, ".jpg", names)
        add_junk(root / short_name / split / "frames")
    return root
