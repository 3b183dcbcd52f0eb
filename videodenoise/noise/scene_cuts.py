"""Scene cuts in σ auto's runs of frames: a pair of frames across a cut shows two unrelated pictures.

Its motion-aligned difference then holds scene, not noise, and the estimator's tests for pixels the flow cannot be
trusted on are relative to the difference's own spread, which the cut makes huge: most pixels pass, and σ = 2 (of 255)
reads 17-26 (benchmarks/results/scene-cuts). Within one scene, two pairs of consecutive frames read the same σ: the
frames' noise is alike, and a share a codec carries from frame to frame lowers both alike. So a pair is checked
against another pair one frame apart:

* A run of three frames a, b, c also measures the pair b, c. Where the two pairs one apart read more than `ratio`
  times apart, a cut lies within the run, and the run gives no differences at all (`crosses_cut`): its pair two apart
  (a, c) crosses the cut wherever it lies, and keeping one pair of the run would read the carried share off pools of
  different pictures.
* A pair that no run of three checked (the last run of a clip is two frames) is compared with the median of the
  checked pairs kept, or, where there is none, of the other pairs: more than `ratio` times that, it is left out
  (`without_cuts`). It cannot read lower than its scene's noise, so only a pair above the others is a cut.

`ratio` is larger than a carried share can part two pairs (it changes a pair's σ by at most √2, and both alike).
"""

from __future__ import annotations

import numpy as np

from videodenoise.noise.robust import robust_sigma

Samples = list  # per channel, (intensity, d / √(1 + v), clipped) of one pair: `estimation._difference_samples`


def pooled_sigma(samples: Samples) -> float:
    """The robust σ of a pair's difference samples, every channel and intensity together."""
    return robust_sigma(np.concatenate([values for _, values, _ in samples]))


def crosses_cut(first: Samples, second: Samples, ratio: float) -> bool:
    """Whether two pairs of frames one apart (a, b and b, c) read more than `ratio` times apart."""
    one, other = pooled_sigma(first), pooled_sigma(second)
    return max(one, other) > ratio * min(one, other)


def without_cuts(runs: list[tuple], ratio: float) -> list[tuple]:
    """The runs' (pair, apart, checked) without the unchecked pairs that read more than `ratio` times the others
    (see the module's notes); pair is (samples, grain samples)."""
    sigmas = [pooled_sigma(pair[0]) for pair, _, _ in runs]
    checked = [sigma for sigma, (_, _, was_checked) in zip(sigmas, runs) if was_checked]
    kept = []
    for index, (run, sigma) in enumerate(zip(runs, sigmas)):
        others = checked or sigmas[:index] + sigmas[index + 1 :]
        if run[2] or not others or sigma <= ratio * float(np.median(others)):
            kept.append(run)
    return kept
