"""The clips a run trains and validates on, from its `DataConfig`."""

from __future__ import annotations

from torch.utils.data import Dataset

from videodenoise.datasets.clips import RandomClips, SequentialClips
from videodenoise.datasets.motion import TRAINING_PHOTOS, MixedClips, MotionClips
from videodenoise.datasets.registry import load_dataset
from videodenoise.errors import ConfigError
from videodenoise.training.config import DataConfig


def training_sets(data: DataConfig, seed: int, colour: bool = False) -> tuple[Dataset, SequentialClips]:
    """(random training clips, fixed validation clips). Validation is the `val_split`, else the dataset's
    "val" split, else every tenth training video held out (at least one).

    colour: training clips come in colour whatever `data.channels` says (validation does not): a grey
    model trained on camera noise gets its opponent channels from `TrainingInputs`, after the noise."""
    channels = 3 if colour else data.channels
    dataset = load_dataset(data.dataset, data.root)
    train_sources = dataset.clips(data.train_split)
    if data.val_split is not None:
        val_sources = dataset.clips(data.val_split)
    elif "val" in dataset.splits:
        val_sources = dataset.clips("val")
    elif len(train_sources) >= 2:
        held_out = max(1, len(train_sources) // 10)
        train_sources, val_sources = train_sources[:-held_out], train_sources[-held_out:]
    else:
        raise ConfigError(
            f"dataset '{data.dataset}' has one training clip and no 'val' split; name a validation split with "
            "--val-split"
        )
    crop = data.noise_crop or data.crop  # TrainingInputs cuts the model's crop out after the noise
    train_set: Dataset = RandomClips(
        train_sources,
        data.clip_length,
        crop,
        channels,
        data.resize,
        samples_per_epoch=data.samples_per_epoch,
        seed=seed,
        cache_mb=data.cache_mb,
    )
    if data.motion_fraction > 0:
        motion = MotionClips(
            TRAINING_PHOTOS,
            data.clip_length,
            crop,
            channels,
            data.samples_per_epoch,
            seed=seed,
            moving_objects=data.moving_objects,
        )
        train_set = MixedClips(train_set, motion, data.motion_fraction, seed=seed)
    val_set = SequentialClips(
        val_sources,
        data.clip_length,
        data.val_crop,
        data.channels,
        data.resize,
        max_clips_per_video=data.val_clips_per_video,
        cache_mb=data.cache_mb,
    )
    return train_set, val_set
