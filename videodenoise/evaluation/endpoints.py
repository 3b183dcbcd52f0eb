"""A study's pre-stated endpoints, read from its per-video rows: seeds and videos both replicate.

Every run (model, arm, training seed) is scored on every test video at every γ and test-time depth
(`video_rows`): one RMSE per cell, averaged over that video's clips and noise draws. Two arms trained
with the same seed form a pair, and so do their scores on the same video, so a comparison of arms A
and B is a table of paired relative differences d[seed, video] = RMSE_A / RMSE_B − 1. It has two
sources of variation, and the study reports an interval for each: over seeds (the mean over videos
per seed, a t interval with seeds − 1 degrees of freedom: how much another training run would move
the answer on these videos) and over videos (the mean over seeds per video, videos − 1 degrees of
freedom: how much another video would). A conclusion must hold under both.

The endpoints (docs/robustness/PROTOCOL-2.md states them before any test evaluation):

- **P1** per model: treatment − control at the trained depth, d averaged over the stated γ. Verdict
  with an equivalence margin m: "equivalent" when both two one-sided tests against ±m reject
  (TOST), else "better"/"worse" when the two-sided test of 0 rejects with that sign, else
  "inconclusive". A test rejects when the larger of its over-seeds and over-videos p-values, Holm-
  adjusted over the family (every P1 and P2 test of 0 and every P1 equivalence test), is below
  the family's level.
- **P2** per model and γ: what extra test-time depth buys, gain = 1 − RMSE(extra depth) /
  RMSE(trained depth), compared between two tied arms (treatment − control, in gain units);
  tested against 0 in the same family.
- **P3** per model, arm and γ (descriptive): depth regret, RMSE(trained depth) / RMSE(best layer
  ≤ trained depth) − 1, the best layer picked per cell by an oracle that sees the clean video.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

import numpy as np
from scipy import stats

from videodenoise.errors import ExperimentError
from videodenoise.evaluation.results import EvaluationResult
from videodenoise.metrics import descent_fraction
from videodenoise.settings import check_fields

VIDEO_COLUMNS = ["model", "arm", "seed", "video", "gamma", "depth", "rmse", "descent_fraction"]


@dataclass(frozen=True)
class EndpointsConfig:
    """The `[endpoints]` table of an experiment config: which arms, levels and margins the verdicts use."""

    treatment: str = "constrained-detach"
    control: str = "erm"
    gammas: list[float] = field(default_factory=lambda: [1.5, 2.0, 3.0, 4.0])  # P1 averages d over these
    margin: float = 0.02  # P1's equivalence margin, relative RMSE
    depth_treatment: str = "constrained-detach-tied"
    depth_control: str = "erm-tied"
    depth_gammas: list[float] = field(default_factory=lambda: [2.0, 3.0])
    extra_depth: int = 8
    level: float = 0.05  # the family-wise error rate (Holm)
    noise: str = "gaussian"  # the noise kind the endpoints read (site: input)

    def __post_init__(self) -> None:
        check_fields(self, ExperimentError, "endpoints option")
        object.__setattr__(self, "gammas", [float(g) for g in self.gammas])
        object.__setattr__(self, "depth_gammas", [float(g) for g in self.depth_gammas])
        if not 0 < self.margin < 1 or not 0 < self.level < 1 or self.extra_depth < 1 or not self.gammas:
            raise ExperimentError(
                f"endpoints need γ levels, a margin and a level in (0, 1) and an extra depth ≥ 1, got "
                f"gammas={self.gammas}, margin={self.margin}, level={self.level}, extra_depth={self.extra_depth}"
            )

    def to_dict(self) -> dict:
        return asdict(self)


# ---------------------------------------------------------------------------------------------------
# rows: one per run × test video × γ × depth


def video_rows(results: dict[str, EvaluationResult], records, depths: Sequence[int] | None = None) -> list[dict]:
    """Per run, test video (clips grouped by the name before '@', after "test set/" when there are
    several), noise, site, γ and depth: the RMSE averaged over the video's clips and noise draws,
    and the share of those samples whose loss falls at every layer up to that depth. Depths: the
    trained one, and every depth of `depths` the run's evaluation reached (deeper ones for tied
    layers). Each row also carries the oracle's best layer (≤ the trained depth) and its RMSE."""
    by_label = {r.run_dir.name: r for r in records}
    rows = []
    for test_set, result in results.items():
        videos: dict[str, list[int]] = {}
        # several test sets may each have a video "01": name a video by its test set too
        prefix = f"{test_set.rsplit('/', 1)[-1]}/" if len(results) > 1 else ""
        for index, name in enumerate(result.clip_names):
            videos.setdefault(prefix + name.rsplit("@", 1)[0], []).append(index)
        for (method, noise, site), arrays in result.samples.items():
            record, info = by_label.get(method), result.checkpoint(method)
            if record is None or info is None or "layer_rmse" not in arrays:
                continue
            trained, run = info.layers, arrays["layer_rmse"].shape[-1] - 1
            wanted = sorted({trained, *(d for d in depths or () if d <= run)})
            for l, level in enumerate(result.levels):
                for video, clips in videos.items():
                    rmse = arrays["layer_rmse"][l, clips].mean(axis=(0, 1))  # (layers run + 1,)
                    mse = arrays["layer_mse"][l, clips]  # (clips, seeds, layers run + 1)
                    best = int(np.argmin(rmse[1 : trained + 1])) + 1
                    for depth in wanted:
                        rows.append(
                            {
                                "model": record.model,
                                "arm": record.arm,
                                "seed": record.seed,
                                "video": video,
                                "gamma": level.gamma,
                                "depth": depth,
                                "rmse": float(rmse[depth]),
                                "descent_fraction": descent_fraction(mse[..., : depth + 1]),
                                "trained_depth": trained,
                                "best_layer": best,
                                "best_layer_rmse": float(rmse[best]),
                                "test_set": test_set,
                                "noise": noise,
                                "site": site,
                                "sigma_255": round(level.sigma_255, 6),
                                "clips": len(clips),
                                "noise_seeds": arrays["layer_rmse"].shape[2],
                            }
                        )
    return rows


# ---------------------------------------------------------------------------------------------------
# statistics over seeds and videos


@dataclass(frozen=True)
class TwoWayInterval:
    """A mean of d[seed, video] with its t interval over seeds and over videos, and p-values of the
    two-sided test of 0 and of the equivalence test (TOST) against ±margin (the larger of the two
    sources' p-values each: a test passes only if it passes for seeds and for videos)."""

    mean: float
    seeds: int
    videos: int
    seeds_low: float
    seeds_high: float
    videos_low: float
    videos_high: float
    p: float
    p_equivalence: float


def two_way_interval(table: np.ndarray, margin: float = math.inf, confidence: float = 0.95) -> TwoWayInterval:
    """The analysis of a (seeds, videos) table of paired differences, see TwoWayInterval."""
    table = np.asarray(table, dtype=np.float64)
    if table.ndim != 2 or min(table.shape) < 2 or not np.isfinite(table).all():
        raise ExperimentError(
            f"a two-way interval needs a complete table of at least 2 seeds × 2 videos, got shape {table.shape}"
        )
    per_seed, per_video = table.mean(axis=1), table.mean(axis=0)
    intervals, p_zero, p_equivalent = [], [], []
    for values in (per_seed, per_video):
        n, mean = values.size, float(values.mean())
        se = float(values.std(ddof=1)) / math.sqrt(n)
        half = float(stats.t.ppf(0.5 + confidence / 2, n - 1)) * se
        intervals.append((mean - half, mean + half))
        if se == 0:
            p_zero.append(0.0 if mean else 1.0)
            p_equivalent.append(0.0 if abs(mean) < margin else 1.0)
            continue
        p_zero.append(float(2 * stats.t.sf(abs(mean) / se, n - 1)))
        # H0: mean ≤ −m, and H0: mean ≥ +m; equivalence when both are rejected
        p_equivalent.append(
            max(float(stats.t.sf((mean + margin) / se, n - 1)), float(stats.t.cdf((mean - margin) / se, n - 1)))
        )
    (seeds_low, seeds_high), (videos_low, videos_high) = intervals
    return TwoWayInterval(
        float(table.mean()),
        table.shape[0],
        table.shape[1],
        seeds_low,
        seeds_high,
        videos_low,
        videos_high,
        max(p_zero),
        max(p_equivalent),
    )


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values (family-wise error control for any dependence)."""
    p = np.asarray(p_values, dtype=np.float64)
    order = np.argsort(p)
    adjusted = np.empty_like(p)
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (p.size - rank) * p[index]))
        adjusted[index] = running
    return adjusted.tolist()


# ---------------------------------------------------------------------------------------------------
# the endpoints


def endpoint_rows(rows: list[dict], config: EndpointsConfig, models: Sequence[str]) -> list[dict]:
    """P1 and P2 per model (with Holm over all of them) and P3 per model, arm and γ, as table rows."""
    rows = _input_rows(rows, config.noise)
    found = []
    for model in models:
        arms = {r["arm"] for r in rows if r["model"] == model}
        if {config.treatment, config.control} <= arms:
            found.append(("P1", model, None, _p1_table(rows, config, model)))
        if {config.depth_treatment, config.depth_control} <= arms:
            for gamma in config.depth_gammas:
                found.append(("P2", model, gamma, _p2_table(rows, config, model, gamma)))
    analysed = [
        (name, model, gamma, two_way_interval(table, config.margin if name == "P1" else math.inf))
        for name, model, gamma, table in found
    ]
    # one Holm family: every endpoint's test of 0, and P1's equivalence tests
    family = [a.p for *_, a in analysed] + [a.p_equivalence for name, *_, a in analysed if name == "P1"]
    adjusted = iter(holm(family)) if family else iter(())
    p_holm = [next(adjusted) for _ in analysed]
    p_equivalence_holm = [next(adjusted) if name == "P1" else math.nan for name, *_ in analysed]
    out = []
    for (name, model, gamma, analysis), p, p_eq in zip(analysed, p_holm, p_equivalence_holm):
        first, second = (
            (config.treatment, config.control) if name == "P1" else (config.depth_treatment, config.depth_control)
        )
        if name == "P1":
            verdict = _verdict(analysis.mean, p, p_eq, config.level)
        else:
            verdict = "no detectable difference" if p >= config.level else ("more" if analysis.mean > 0 else "less")
            verdict = f"{verdict} gain from depth {config.extra_depth}" if p < config.level else verdict
        out.append(
            {
                "endpoint": name,
                "model": model,
                "a": first,
                "b": second,
                "gamma": "" if gamma is None else gamma,
                **asdict(analysis),
                "p_holm": p,
                "p_equivalence_holm": p_eq,
                "verdict": verdict,
            }
        )
    return out + depth_regret_rows(rows)


def _p1_table(rows, config: EndpointsConfig, model: str) -> np.ndarray:
    by_gamma: dict[tuple[str, int, str], dict[float, float]] = {}
    for r in rows:
        if r["model"] == model and r["depth"] == r["trained_depth"] and r["gamma"] in config.gammas:
            by_gamma.setdefault((r["arm"], r["seed"], r["video"]), {})[r["gamma"]] = r["rmse"]
    # the same γ order for every cell, so that treatment and control divide level by level
    cells = {key: [levels[g] for g in sorted(levels)] for key, levels in by_gamma.items()}
    return _relative(cells, config.treatment, config.control, model, len(config.gammas))


def _p2_table(rows, config: EndpointsConfig, model: str, gamma: float) -> np.ndarray:
    gains: dict[tuple[str, int, str], list[float]] = {}
    by_depth: dict[tuple[str, int, str], dict[int, float]] = {}
    for r in rows:
        if r["model"] == model and r["gamma"] == gamma:
            by_depth.setdefault((r["arm"], r["seed"], r["video"]), {})[r["depth"]] = (r["rmse"], r["trained_depth"])
    for key, depths in by_depth.items():
        if config.extra_depth in depths:
            trained = next(iter(depths.values()))[1]
            gains[key] = [1 - depths[config.extra_depth][0] / depths[trained][0]]
    return _difference(gains, config.depth_treatment, config.depth_control, model)


def _keys(cells: dict, first: str, second: str, model: str, count: int) -> tuple[list[int], list[str]]:
    seeds = sorted({s for a, s, _ in cells if a == first} & {s for a, s, _ in cells if a == second})
    videos = sorted({v for a, _, v in cells if a == first} & {v for a, _, v in cells if a == second})
    incomplete = [
        (a, s, v) for a in (first, second) for s in seeds for v in videos if len(cells.get((a, s, v), ())) != count
    ]
    if incomplete or len(seeds) < 2 or len(videos) < 2:
        raise ExperimentError(
            f"{model}: {first} and {second} are not scored on the same seeds, videos and levels "
            f"(e.g. {incomplete[:2] or 'fewer than 2 seeds or videos'}); finish the runs and their evaluation first"
        )
    return seeds, videos


def _relative(cells, first: str, second: str, model: str, count: int) -> np.ndarray:
    """(seeds, videos) of the mean over levels of RMSE_first / RMSE_second − 1."""
    seeds, videos = _keys(cells, first, second, model, count)
    return np.array(
        [[np.mean(np.divide(cells[(first, s, v)], cells[(second, s, v)])) - 1 for v in videos] for s in seeds]
    )


def _difference(cells, first: str, second: str, model: str) -> np.ndarray:
    seeds, videos = _keys(cells, first, second, model, 1)
    return np.array([[cells[(first, s, v)][0] - cells[(second, s, v)][0] for v in videos] for s in seeds])


def _verdict(mean: float, p: float, p_equivalence: float, level: float) -> str:
    if p_equivalence < level:
        return "equivalent"
    if p < level:
        return "better" if mean < 0 else "worse"
    return "inconclusive"


def depth_regret_rows(rows: list[dict]) -> list[dict]:
    """P3 per model, arm and γ: RMSE at the trained depth over the oracle's best layer's, − 1."""
    out = []
    for model, arm, gamma in sorted({(r["model"], r["arm"], r["gamma"]) for r in rows}):
        cells: dict[tuple[int, str], float] = {}
        for r in rows:
            if (r["model"], r["arm"], r["gamma"]) == (model, arm, gamma) and r["depth"] == r["trained_depth"]:
                cells[(r["seed"], r["video"])] = r["rmse"] / r["best_layer_rmse"] - 1
        seeds, videos = sorted({s for s, _ in cells}), sorted({v for _, v in cells})
        if len(seeds) < 2 or len(videos) < 2 or len(cells) != len(seeds) * len(videos):
            continue
        analysis = two_way_interval(np.array([[cells[(s, v)] for v in videos] for s in seeds]))
        out.append({"endpoint": "P3", "model": model, "a": arm, "b": "best layer", "gamma": gamma, **asdict(analysis)})
    return out


def arm_differences(rows: list[dict], control: str, models: Sequence[str], noise: str = "gaussian") -> list[dict]:
    """Every other arm against the control, per model and γ, at each arm's trained depth: the paired
    relative RMSE difference with its intervals over seeds and over videos (the study's first figure).
    Arms whose runs do not cover the control's seeds and videos are left out."""
    rows = _input_rows(rows, noise)
    out = []
    for model in models:
        arms = sorted({r["arm"] for r in rows if r["model"] == model} - {control})
        for gamma in sorted({r["gamma"] for r in rows if r["model"] == model}):
            cells: dict[tuple[str, int, str], list[float]] = {}
            for r in rows:
                if r["model"] == model and r["gamma"] == gamma and r["depth"] == r["trained_depth"]:
                    cells.setdefault((r["arm"], r["seed"], r["video"]), []).append(r["rmse"])
            for arm in arms:
                try:
                    table = _relative(cells, arm, control, model, 1)
                except ExperimentError:
                    continue
                out.append(
                    {"model": model, "arm": arm, "b": control, "gamma": gamma, **asdict(two_way_interval(table))}
                )
    return out


def depth_curves(
    rows: list[dict], noise: str = "gaussian"
) -> dict[tuple[str, str, float], tuple[list[int], list[float]]]:
    """Mean RMSE over seeds and videos against depth, per (model, arm, γ) with more than one depth."""
    rows = _input_rows(rows, noise)
    values: dict[tuple[str, str, float], dict[int, list[float]]] = {}
    for r in rows:
        values.setdefault((r["model"], r["arm"], r["gamma"]), {}).setdefault(r["depth"], []).append(r["rmse"])
    return {
        key: (sorted(by_depth), [float(np.mean(by_depth[d])) for d in sorted(by_depth)])
        for key, by_depth in values.items()
        if len(by_depth) > 1
    }


def _input_rows(rows: list[dict], noise: str) -> list[dict]:
    """The rows of one noise kind at perturbation site input: one score per run, video, γ and depth."""
    return [r for r in rows if r.get("noise", noise) == noise and r.get("site", "input") == "input"]
