"""Dataset loaders on tiny replicas of every layout (tests/replicas.py), and the clip samplers."""

from __future__ import annotations

import shutil
import warnings
from pathlib import Path

import numpy as np
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


# -------------------------------------------------------------------------------------- photo-motion


def photo_stems(photos) -> list[str]:
    return [photo.partition(":")[2] for photo in photos]


def test_photo_motion_splits_hold_the_right_photos(tmp_path):
    from videodenoise.datasets.motion import BENCHMARK_PHOTOS, TRAINING_PHOTOS, VALIDATION_PHOTOS

    dataset = load_dataset("photo-motion")
    names = {split: [clip.name for clip in dataset.clips(split)] for split in dataset.splits}
    assert names["training"] == photo_stems(TRAINING_PHOTOS)
    assert names["benchmark"] == photo_stems(BENCHMARK_PHOTOS)
    assert names["validation"] == photo_stems(VALIDATION_PHOTOS)
    assert names["all"] == photo_stems(TRAINING_PHOTOS + BENCHMARK_PHOTOS + VALIDATION_PHOTOS)
    held_out = dataset.clips("held-out")
    assert names["held-out"] == ["astronaut", "coffee", "chelsea", "grace_hopper", "cell", "clock_motion", "page"]
    assert dataset.clips("test") == held_out
    # never seen by a model trained on the training photos, not even as the other view of a stereo pair
    assert not {clip.photo for clip in held_out} & set(TRAINING_PHOTOS)
    assert "skimage:motorcycle_right" not in {clip.photo for clip in held_out}
    with pytest.raises(DatasetError, match="its splits are: training, benchmark, validation, held-out, test, all"):
        dataset.clips("train")
    # a root (an experiment's shared data root) is ignored: nothing is read from it or written to it
    assert load_dataset("photo-motion", tmp_path).splits == dataset.splits
    assert list(tmp_path.iterdir()) == []


def test_the_colour_validation_photos_are_colour_and_in_no_other_set():
    import hashlib

    from videodenoise.datasets import motion

    others = motion.TRAINING_PHOTOS + motion.BENCHMARK_PHOTOS + motion.VALIDATION_PHOTOS
    assert not set(motion.COLOUR_VALIDATION_PHOTOS) & set(others)
    attribution = (Path(motion.__file__).parent / "photos" / "README.md").read_text()
    for name in motion.COLOUR_VALIDATION_PHOTOS:
        path = motion.photo_path(name)
        assert hashlib.sha256(path.read_bytes()).hexdigest() in attribution  # the files the licence note names
        photo = motion.load_photo(name)
        assert photo.shape == (3, 427, 640) and photo.dtype == torch.float32
        assert (photo[0] - photo[1]).abs().mean() > 0.05  # colour, not grey repeated
    with pytest.raises(DatasetError, match="videodenoise:<name>"):
        motion.photo_path("sklearn:china")


def test_the_late_validation_photos_are_pywavelets_own_and_in_no_other_set():
    import pywt.data

    from videodenoise.datasets import motion

    others = (
        motion.TRAINING_PHOTOS + motion.BENCHMARK_PHOTOS + motion.VALIDATION_PHOTOS + motion.COLOUR_VALIDATION_PHOTOS
    )
    assert not set(motion.LATE_VALIDATION_PHOTOS) & set(others)
    for name in motion.LATE_VALIDATION_PHOTOS:
        photo = motion.load_photo(name)
        stored = getattr(pywt.data, name.partition(":")[2])()  # the array PyWavelets ships, as it reads it
        assert photo.shape == (3, *stored.shape) and torch.equal(photo[0], photo[2])  # grey, in three channels
        assert torch.allclose(photo[0] * 255, torch.from_numpy(stored).float(), atol=1e-3)
        for other in others:  # not a photograph of another set under another name (pywt's "camera" is skimage's)
            seen = motion.load_photo(other)
            assert seen.shape != photo.shape or not torch.allclose(seen, photo, atol=0.02)
    with pytest.raises(DatasetError, match="pywt:<name>"):
        motion.photo_path("scipy:ascent")
    with pytest.raises(DatasetError, match="reinstall pywt"):
        motion.photo_path("pywt:lena")


def test_the_estimators_validation_photos_are_training_photos_of_no_other_set_and_load():
    from videodenoise.datasets import motion

    chosen_on = (
        motion.BENCHMARK_PHOTOS
        + motion.VALIDATION_PHOTOS
        + motion.COLOUR_VALIDATION_PHOTOS
        + motion.LATE_VALIDATION_PHOTOS
    )
    assert set(motion.ESTIMATOR_VALIDATION_PHOTOS) <= set(motion.TRAINING_PHOTOS)  # never to select weights
    assert not set(motion.ESTIMATOR_VALIDATION_PHOTOS) & set(chosen_on)
    for name in motion.ESTIMATOR_VALIDATION_PHOTOS:
        photo = motion.load_photo(name)
        assert photo.shape[0] == 3 and min(photo.shape[1:]) >= 240  # a 240×320 pan fits


def test_dead_leaves_pictures_are_deterministic_and_scale_invariant():
    from videodenoise.datasets.dead_leaves import dead_leaves_image

    picture = dead_leaves_image(5, colour=True, size=128)
    assert picture.shape == (128, 128, 3) and picture.dtype == np.float32
    assert 0 <= picture.min() and picture.max() <= 1
    np.testing.assert_array_equal(picture, dead_leaves_image(5, colour=True, size=128))
    assert not np.array_equal(picture, dead_leaves_image(6, colour=True, size=128))
    grey = dead_leaves_image(5, colour=False, size=128)
    assert np.array_equal(grey[..., 0], grey[..., 2]) and not np.array_equal(picture[..., 0], picture[..., 2])
    # the power spectrum falls about as 1/f² (natural images': 1.6-3 in log-log), averaged over five pictures
    slopes = []
    for seed in range(5):
        luminance = dead_leaves_image(seed, colour=False, size=128)[..., 0]
        power = np.abs(np.fft.fftshift(np.fft.fft2(luminance - luminance.mean()))) ** 2
        y, x = np.indices(power.shape) - 64
        radius = np.hypot(y, x).astype(int)
        rings = np.bincount(radius.ravel(), power.ravel()) / np.bincount(radius.ravel())
        frequencies = np.arange(4, 48)
        slopes.append(np.polyfit(np.log(frequencies), np.log(rings[frequencies]), 1)[0])
    assert -3.0 < np.mean(slopes) < -1.6


def test_textured_dead_leaves_keep_the_discs_and_add_a_fine_grain():
    from videodenoise.datasets.dead_leaves import GRAIN_AMPLITUDE, dead_leaves_image

    plain = dead_leaves_image(5, colour=False, size=128)
    textured = dead_leaves_image(5, colour=False, size=128, textured=True)
    np.testing.assert_array_equal(textured, dead_leaves_image(5, colour=False, size=128, textured=True))
    np.testing.assert_array_equal(plain, dead_leaves_image(5, colour=False, size=128))  # the discs' stream untouched
    assert 0 <= textured.min() and textured.max() <= 1 and np.array_equal(textured[..., 0], textured[..., 2])
    grain = textured[..., 0] - plain[..., 0]
    assert 0.01 < grain.std() < GRAIN_AMPLITUDE  # amplitudes up to the largest, most discs under it
    # the grain is fine (correlated over about a pixel): neighbouring pixels' differences keep much of it, where a
    # grain a few pixels wide would nearly cancel in them
    assert np.diff(grain, axis=1).std() > 0.4 * grain.std()


def test_generated_photos_load_by_name_and_a_wrong_name_is_one_line():
    from videodenoise.datasets import motion

    others = (
        motion.TRAINING_PHOTOS
        + motion.BENCHMARK_PHOTOS
        + motion.VALIDATION_PHOTOS
        + motion.COLOUR_VALIDATION_PHOTOS
        + motion.LATE_VALIDATION_PHOTOS
        + motion.ESTIMATOR_VALIDATION_PHOTOS
    )
    generated, textured = set(motion.GENERATED_VALIDATION_PHOTOS), set(motion.TEXTURED_VALIDATION_PHOTOS)
    assert len(generated) == 6 and not generated & set(others)
    assert len(textured) == 6 and not textured & (generated | set(others))
    photo = motion.load_photo("generated:dead_leaves_grey_2")
    assert photo.shape == (3, 512, 512) and torch.equal(photo[0], photo[2])
    grained = motion.load_photo("generated:dead_leaves_grey_textured_2")
    assert grained.shape == (3, 512, 512) and not torch.equal(grained, photo)
    for name in ("generated:dead_leaves_x", "generated:plasma_1"):
        with pytest.raises(DatasetError, match="name generated:dead_leaves_<seed> or generated:dead_leaves_grey_"):
            motion.load_photo(name)


def test_photo_motion_clips_read_as_8_bit_video_and_are_deterministic():
    from videodenoise.datasets import photo_motion

    reader = load_dataset("photo-motion").clips("held-out")[0].open()  # astronaut: a colour photo
    assert len(reader) == 20 and reader.info.fps == 25.0 and (reader.info.width, reader.info.height) == (128, 128)
    colour, grey = reader.read(channels=3), reader.read(channels=1)
    assert colour.shape == (20, 3, 128, 128) and grey.shape == (20, 1, 128, 128)
    for clip in (colour, grey):
        assert torch.equal(clip.mul(255).round().div(255), clip)  # on the 8-bit grid
    assert not torch.equal(colour[:, 0], colour[:, 1])
    assert torch.equal(reader.read(5, 3, channels=3), colour[5:8])
    photo_motion.motion_frames.cache_clear()  # generated afresh: the same frames
    assert torch.equal(load_dataset("photo-motion").clips("test")[0].open().read(channels=3), colour)


def test_photo_motion_camera_moves_between_frames():
    for source in load_dataset("photo-motion").clips("held-out"):
        clip = source.open().read(channels=1).flatten(1)
        assert all(not torch.equal(a, b) for a, b in zip(clip[:-1], clip[1:])), source.name
        correlation = torch.corrcoef(clip)
        consecutive = correlation.diagonal(1)
        # the least correlated is page (text moving by about a pixel a frame); most are above 0.9
        assert consecutive.min() > 0.4 and consecutive.mean() > correlation[0, -1], source.name


def test_photo_motion_crops_stay_inside_the_photographs(monkeypatch):
    """No frame shows a reflected border: every pixel bicubic interpolation reads lies inside the
    photograph. Except Minduka_Present_Blue_Pack (training only): it is 128×128, as small as a frame."""
    import torch.nn.functional as F

    from videodenoise.datasets import photo_motion

    margins = []
    grid_sample = F.grid_sample

    def measured(photo, grid, **options):
        height, width = photo.shape[-2:]
        x, y = ((grid[..., 0].double() + 1) * width - 1) / 2, ((grid[..., 1].double() + 1) * height - 1) / 2
        # bicubic interpolation at p reads pixels floor(p) - 1 to floor(p) + 2
        margins.append(min(x.min() - 1, y.min() - 1, width - 2 - x.max(), height - 2 - y.max()).item())
        return grid_sample(photo, grid, **options)

    monkeypatch.setattr(F, "grid_sample", measured)
    for source in load_dataset("photo-motion").clips("all"):
        photo_motion.motion_frames.__wrapped__(source.photo)  # bypasses the cache, so that it samples
        assert (margins[-1] >= 0) == (source.name != "Minduka_Present_Blue_Pack"), (source.name, margins[-1])


def test_photo_motion_works_with_the_clip_samplers_and_evaluation():
    from videodenoise.evaluation.config import EvalConfig
    from videodenoise.evaluation.sweep import evaluation_clips

    config = EvalConfig(
        dataset="photo-motion", split="held-out", clip_length=5, crop=128, clips_per_video=2, baselines=[]
    )
    clips = evaluation_clips(config, channels=1)
    assert len(clips) == 14 and [clips.source_of(k)[1] for k in range(2)] == [0, 15]
    assert all(clips[k].shape == (5, 1, 128, 128) for k in range(len(clips)))
    sources = load_dataset("photo-motion").clips("benchmark")
    cached = RandomClips(sources, clip_length=5, crop=64, channels=3, samples_per_epoch=4)
    direct = RandomClips(sources, clip_length=5, crop=64, channels=3, samples_per_epoch=4, cache_mb=0)
    assert cached.cached and not direct.cached
    for index in range(4):
        assert torch.equal(cached[index], direct[index]) and cached[index].shape == (5, 3, 64, 64)
