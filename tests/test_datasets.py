"""Dataset loaders on tiny replicas of every layout (tests/replicas.py), and the clip samplers."""

from __future__ import annotations

import shutil
import warnings

import pytest
import torch

from videodenoise.datasets.base import LabelMismatchWarning
from videodenoise.datasets.clips import RandomClips, SequentialClips
from videodenoise.datasets.registry import load_dataset
from videodenoise.errors import DatasetError
from videodenoise.io.readers import CorruptFrameWarning

import replicas as R


def levels(clip: torch.Tensor) -> list[float]:
    """Per-frame brightness on the 0-255 scale, minus the replica's ramp pattern mean (7.5)."""
    return [round(float(f.mean()) * 255 - 7.5, 1) for f in clip]


def assert_levels(clip: torch.Tensor, clip_number: int, first: int = 0, tol: float = 1.5) -> None:
    expected = [R.frame_level(clip_number, first + k) for k in range(clip.shape[0])]
    assert levels(clip) == pytest.approx(expected, abs=tol)


# ---------------------------------------------------------------------------------------------- UCSD


@pytest.fixture(scope="module")
def ucsd_root(tmp_path_factory):
    root = tmp_path_factory.mktemp("ucsd")
    R.make_ucsd(root, ped=1)
    R.make_ucsd(root, ped=2)
    return root


def test_ucsd_ped1_official_layout(ucsd_root):
    dataset = load_dataset("ucsd-ped1", ucsd_root)
    assert dataset.layout == "official"
    assert [c.name for c in dataset.clips("train")] == ["Train001", "Train002", "Train003"]
    assert [c.name for c in dataset.clips("test")] == ["Test001", "Test002", "Test003"]  # Test002_gt skipped
    for split, counts in (("train", R.UCSD_TRAIN_FRAMES[1]), ("test", R.UCSD_TEST_FRAMES[1])):
        for number, (clip, n) in enumerate(zip(dataset.clips(split), counts), start=1):
            reader = clip.open()
            assert len(reader) == n  # ._001.tif resource forks are not frames
            assert reader.info.fps == 10.0 and reader.info.channels == 1
            if (split, number) != ("test", 3):
                frames = reader.read(channels=1)
                assert frames.shape == (n, 1, 158, 238) and frames.dtype == torch.float32
                # TIFF is lossless: exact values, in 1-based name order
                expected = torch.tensor(R.frame(number, 0, 158, 238), dtype=torch.float32)[:, :, 0] / 255
                assert torch.equal(frames[0, 0], expected)
                assert_levels(frames, number, tol=0.01)


def test_ucsd_truncated_frame_is_replaced_by_its_neighbour_with_a_warning(ucsd_root):
    reader = load_dataset("ucsd-ped1", ucsd_root).clips("test")[2].open()
    with pytest.warns(CorruptFrameWarning, match="004.tif"):
        frames = reader.read()
    assert frames.shape[0] == R.UCSD_TEST_FRAMES[1][2]  # frame alignment kept
    assert torch.equal(frames[3], frames[2])  # 004.tif -> nearest readable frame 003.tif
    assert_levels(frames[4:], 3, first=4, tol=0.01)


def test_ucsd_ped2_and_other_roots(ucsd_root):
    ped2 = load_dataset("ucsd-ped2", ucsd_root)
    assert len(ped2.clips("train")) == 2 and len(ped2.clips("test")) == 2
    assert ped2.clips("train")[0].open().read().shape[-2:] == (240, 360)
    # the root may also be the extracted folder or the UCSDpedN folder itself
    for root in (ucsd_root / "UCSD_Anomaly_Dataset.v1p2", ucsd_root / "UCSD_Anomaly_Dataset.v1p2" / "UCSDped2"):
        assert [c.name for c in load_dataset("ucsd-ped2", root).clips("test")] == ["Test001", "Test002"]


def test_ucsd_labels_cross_check(ucsd_root, tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("error", LabelMismatchWarning)
        assert load_dataset("ucsd-ped2", ucsd_root).check_labels("test") == []
    # a label range past the clip's end is reported
    root = tmp_path / "ucsd"
    shutil.copytree(ucsd_root / "UCSD_Anomaly_Dataset.v1p2" / "UCSDped2", root / "UCSDped2")
    label = root / "UCSDped2" / "Test" / "UCSDped2.m"
    label.write_text(label.read_text().replace("[2:4]", "[2:40]"))
    with pytest.warns(LabelMismatchWarning, match="at least 40 frames, 5 found"):
        problems = load_dataset("ucsd-ped2", root).check_labels("test")
    assert len(problems) == 1 and "Test001" in problems[0]


# -------------------------------------------------------------------------------------------- Avenue


@pytest.fixture(scope="module")
def avenue_root(tmp_path_factory):
    return R.make_avenue(tmp_path_factory.mktemp("avenue"))


def test_avenue_official_layout(avenue_root):
    dataset = load_dataset("avenue", avenue_root)
    assert dataset.layout == "official"
    assert [c.name for c in dataset.clips("train")] == ["01", "02"]  # ._01.avi skipped
    assert [c.name for c in dataset.clips("test")] == ["01", "02", "03"]
    for number, (clip, n) in enumerate(zip(dataset.clips("test"), R.AVENUE_TEST_FRAMES), start=1):
        reader = clip.open()
        assert (len(reader), reader.info.fps, reader.info.height, reader.info.width) == (n, 25.0, *R.AVENUE_SIZE)
        frames = reader.read(channels=3)
        assert frames.shape == (n, 3, *R.AVENUE_SIZE)
        assert_levels(frames, number)  # MJPEG: within a small tolerance
    grey = dataset.clips("train")[1].open().read(channels=1)
    assert grey.shape == (R.AVENUE_TRAIN_FRAMES[1], 1, *R.AVENUE_SIZE)
    assert_levels(grey, 2)


def test_avenue_labels_cross_check(avenue_root, tmp_path):
    assert load_dataset("avenue", avenue_root).check_labels("test") == []
    root = tmp_path / "copy"
    shutil.copytree(avenue_root, root)
    (root / "Avenue Dataset" / "testing_videos" / "02.avi").unlink()
    R.write_avi(root / "Avenue Dataset" / "testing_videos" / "02.avi", 2, 3, R.AVENUE_SIZE)
    with pytest.warns(LabelMismatchWarning, match="2_label.mat implies 8 frames, 3 found"):
        assert len(load_dataset("avenue", root).check_labels("test")) == 1


def test_avenue_fps_is_read_from_the_file(tmp_path):
    R.write_avi(tmp_path / "Avenue Dataset" / "training_videos" / "01.avi", 1, 4, R.AVENUE_SIZE, fps=30.0)
    R.write_avi(tmp_path / "Avenue Dataset" / "testing_videos" / "01.avi", 1, 4, R.AVENUE_SIZE, fps=30.0)
    assert load_dataset("avenue", tmp_path).clips("test")[0].open().info.fps == 30.0


# -------------------------------------------------------------------------------------- ShanghaiTech


def test_shanghaitech_official_layout(tmp_path):
    R.make_shanghaitech(tmp_path)
    dataset = load_dataset("shanghaitech", tmp_path)
    assert dataset.layout == "official"
    assert [c.name for c in dataset.clips("train")] == list(R.SHANGHAI_TRAIN)
    assert [c.name for c in dataset.clips("test")] == list(R.SHANGHAI_TEST)
    video = dataset.clips("train")[2].open()
    assert (len(video), video.info.fps) == (R.SHANGHAI_TRAIN["02_001"], 24.0)
    assert_levels(video.read(channels=1), 3)
    frames = dataset.clips("test")[0].open().read(channels=3)  # 000.jpg ... 011.jpg, 0-based
    assert frames.shape == (12, 3, *R.SHANGHAI_SIZE)
    assert_levels(frames, 1)
    assert load_dataset("shanghaitech", tmp_path / "shanghaitech").check_labels("test") == []


# -------------------------------------------------------------------------------------- re-packaged


@pytest.mark.parametrize(
    "name,short", [("ucsd-ped1", "ped1"), ("ucsd-ped2", "ped2"), ("avenue", "avenue"), ("shanghaitech", "shanghaitech")]
)
def test_repackaged_layout(tmp_path, name, short):
    R.make_repackaged(tmp_path, short)
    for root in (tmp_path, tmp_path / short):
        dataset = load_dataset(name, root)
        assert dataset.layout == "repackaged"
        assert [c.name for c in dataset.clips("train")] == ["01", "02"]
        clip = dataset.clips("train")[0].open()
        assert len(clip) == 12
        # 0.jpg, 1.jpg, ..., 10.jpg, 11.jpg: numeric, not text, order
        assert_levels(clip.read(), 1)
        assert len(dataset.clips("test")[0].open()) == 11


def test_unknown_layout_says_what_was_expected(tmp_path):
    (tmp_path / "something").mkdir()
    with pytest.raises(
        DatasetError, match=r"matches no known ucsd-ped2 layout; expected one of: .*UCSDped2/\{Train,Test\}"
    ):
        load_dataset("ucsd-ped2", tmp_path)
    with pytest.raises(DatasetError, match="Avenue Dataset"):
        load_dataset("avenue", tmp_path)
    with pytest.raises(DatasetError, match="does not exist"):
        load_dataset("shanghaitech", tmp_path / "missing")
    with pytest.raises(DatasetError, match="unknown dataset 'ped3'; choose one of"):
        load_dataset("ped3", tmp_path)
    with pytest.raises(DatasetError, match="no split 'val'"):
        R.make_repackaged(tmp_path, "ped2")
        load_dataset("ucsd-ped2", tmp_path).clips("val")


def test_empty_split_is_an_error(tmp_path):
    (tmp_path / "ped2" / "training" / "frames").mkdir(parents=True)
    (tmp_path / "ped2" / "testing" / "frames").mkdir(parents=True)
    with pytest.raises(DatasetError, match="train split holds no clips"):
        load_dataset("ucsd-ped2", tmp_path)


def test_folder_dataset(tmp_path):
    R.write_avi(tmp_path / "cam1.avi", 1, 6, (24, 32))
    R.write_frames(tmp_path / "night" / "seq", 2, 4, (24, 32), ".png", lambda k: f"frame_{k}")
    (tmp_path / "notes.txt").write_text("not a video")
    dataset = load_dataset("folder", tmp_path)
    assert sorted(c.name for c in dataset.clips("all")) == ["cam1", "night/seq"]
    assert dataset.clips("train") == dataset.clips("all")
    (tmp_path / "empty").mkdir()
    with pytest.raises(DatasetError, match="holds no video files or frame folders"):
        load_dataset("folder", tmp_path / "empty")


# ------------------------------------------------------------------------------------ clip sampling


@pytest.fixture(scope="module")
def frames_root(tmp_path_factory):
    root = tmp_path_factory.mktemp("clips")
    for number, n in ((1, 10), (2, 3), (3, 8)):
        R.write_frames(root / f"{number:02d}", number, n, (20, 30), ".png", lambda k: f"{k:03d}")
    return root


def test_random_clips_shapes_determinism_and_consistent_geometry(frames_root):
    sources = load_dataset("folder", frames_root).clips("all")
    clips = RandomClips(sources, clip_length=4, crop=(12, 16), channels=1, samples_per_epoch=32, seed=7)
    assert len(clips) == 32
    assert clips.usable == [0, 2]  # the 3-frame video cannot hold a 4-frame clip
    batch = torch.stack([clips[i] for i in range(32)])
    assert batch.shape == (32, 4, 1, 12, 16)
    again = RandomClips(sources, clip_length=4, crop=(12, 16), channels=1, samples_per_epoch=32, seed=7)
    assert torch.equal(batch, torch.stack([again[i] for i in range(32)]))
    clips.set_epoch(1)
    assert not torch.equal(batch, torch.stack([clips[i] for i in range(32)]))
    for clip in batch:
        # every frame is the same pattern plus a brightness step: one crop and one flip for all frames
        differences = clip[1:] - clip[:-1]
        assert torch.allclose(differences, differences.mean(dim=(-1, -2), keepdim=True), atol=1e-6)
        # consecutive frames: the level rises by 12 per frame
        assert (differences.mean(dim=(1, 2, 3)) * 255).tolist() == pytest.approx([12.0] * 3, abs=1e-3)
    colour = RandomClips(sources, clip_length=2, crop=None, channels=3, resize=(10, 15), samples_per_epoch=2)
    assert colour[0].shape == (2, 3, 10, 15)


def test_sequential_clips_are_fixed_and_cover_every_video(frames_root):
    sources = load_dataset("folder", frames_root).clips("all")
    clips = SequentialClips(sources, clip_length=3, crop=(10, 10), channels=1)
    assert len(clips) == 3 + 1 + 2 and clips.n_frames == 18
    assert [clips.source_of(i)[1] for i in range(len(clips))] == [0, 3, 6, 0, 0, 3]
    assert_levels(clips[1], 1, first=3, tol=2.5)  # centre crop of the ramp pattern: mean shifts a little
    assert torch.equal(clips[4], SequentialClips(sources, clip_length=3, crop=(10, 10))[4])
    spaced = SequentialClips(sources, clip_length=2, stride=1, max_clips_per_video=3)
    assert [spaced.source_of(i)[1] for i in range(3)] == [0, 4, 8]
    with pytest.raises(DatasetError, match="larger than the frames"):
        SequentialClips(sources, clip_length=2, crop=64)[0]
    with pytest.raises(DatasetError, match="no video has 20 frames"):
        SequentialClips(sources, clip_length=20)


def test_clips_from_videos_seek_correctly(avenue_root):
    sources = load_dataset("avenue", avenue_root).clips("train")
    clips = SequentialClips(sources, clip_length=3, stride=2, channels=1)
    for index in range(len(clips)):
        source, start = clips.source_of(index)
        assert_levels(clips[index], int(source.name), first=start)


def test_frame_cache_gives_the_same_clips(avenue_root):
    sources = load_dataset("avenue", avenue_root).clips("train")
    cached = RandomClips(sources, clip_length=3, crop=16, channels=1, samples_per_epoch=8, seed=3)
    direct = RandomClips(sources, clip_length=3, crop=16, channels=1, samples_per_epoch=8, seed=3, cache_mb=0)
    assert cached.cached and not direct.cached
    for index in range(8):
        assert torch.equal(cached[index], direct[index])
    assert len(cached._cache) == 2  # each video decoded once
