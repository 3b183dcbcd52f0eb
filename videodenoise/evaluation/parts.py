"""A dataset's evaluation in parts, one per checkpoint (the first with the baselines), each kept with
its fingerprint: an interrupted evaluation continues where it stopped, `jobs` parts run at once,
and an unchanged evaluation is read back instead of recomputed. A checkpoint is known by its label
and the hash of its bytes, not by its path or time, so a study folder copied or checked out
elsewhere (its runs committed, say) is read back, not evaluated again."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from videodenoise.evaluation.config import EvalConfig
from videodenoise.evaluation.reports import write_evaluation_outputs
from videodenoise.evaluation.results import EvaluationResult, json_safe, merge_results, read_results
from videodenoise.evaluation.sweep import evaluate
from videodenoise.evaluation.workers import in_workers
from videodenoise.io.atomic import write_text


def _evaluation_fingerprint(config: EvalConfig, checkpoints: list[Path], labels: list[str]) -> dict:
    return {
        "config": config.to_dict(),
        "checkpoints": [
            [label, hashlib.sha256(path.read_bytes()).hexdigest()] for label, path in zip(labels, checkpoints)
        ],
    }


def evaluate_dataset(
    eval_dir: Path,
    config: EvalConfig,
    checkpoints: list[Path],
    labels: list[str],
    quiet: bool = True,
    log=print,
    progress=None,
    jobs: int = 1,
) -> EvaluationResult:
    """Evaluate a dataset's runs, or read the result back when nothing changed since it was written.

    Each checkpoint is evaluated as its own part (the first with the baselines), kept in
    eval_dir/parts/ with its fingerprint, so an interrupted evaluation continues where it stopped
    and `jobs` parts run at once; the parts are merged into one result (see `merge_results`)."""
    fingerprint = _evaluation_fingerprint(config, checkpoints, labels)
    stamp = eval_dir / "fingerprint.json"
    if stamp.is_file() and (eval_dir / "results.json").is_file():
        if json.loads(stamp.read_text()) == json.loads(json.dumps(fingerprint)):
            log(f"evaluation of {eval_dir.name} is up to date; reading it back")
            return read_results(eval_dir)
    log(f"evaluating {len(checkpoints)} checkpoints and {len(config.baselines)} baselines on {eval_dir.name}")
    tasks = []  # (part file, its config, checkpoints, labels, fingerprint)
    for index, (checkpoint, label) in enumerate(zip(checkpoints, labels)):
        part_config = config if index == 0 else EvalConfig.from_dict({**config.to_dict(), "baselines": []})
        part = _evaluation_fingerprint(part_config, [checkpoint], [label])
        tasks.append((eval_dir / "parts" / f"{label}.json", part_config, [checkpoint], [label], part))
    if not checkpoints:
        tasks.append((eval_dir / "parts" / "baselines.json", config, [], [], _evaluation_fingerprint(config, [], [])))
    pending = [task for task in tasks if _read_part(task[0], task[4]) is None]
    if len(pending) < len(tasks):
        log(f"{len(tasks) - len(pending)} of {len(tasks)} parts already evaluated; evaluating the other {len(pending)}")
    if jobs == 1 or len(pending) < 2:
        for number, task in enumerate(pending):
            step = None if progress is None else _part_progress(progress, number, len(pending), task[3])
            _evaluate_part(*task, progress=step)
    else:
        names = [", ".join(task[3]) or "the baselines" for task in pending]
        for name, _ in zip(names, in_workers(_evaluate_part, pending, jobs, names)):
            log(f"evaluated {name}")
    result = merge_results([_read_part(task[0], task[4]) for task in tasks], config)
    # the experiment owns this folder: a changed grid or options re-evaluate it in place
    write_evaluation_outputs(result, eval_dir, overwrite=True)
    write_text(stamp, json.dumps(fingerprint, indent=1), overwrite=True)
    return result


def _evaluate_part(path: Path, config: EvalConfig, checkpoints, labels, fingerprint: dict, progress=None) -> None:
    result = evaluate(checkpoints, config, labels=labels, progress=progress)
    values = {"fingerprint": fingerprint, "result": json_safe(result.to_dict())}
    write_text(path, json.dumps(values, default=str, allow_nan=False), overwrite=True, create_parent=True)


def _read_part(path: Path, fingerprint: dict) -> EvaluationResult | None:
    """A part evaluated before with the same options and checkpoint files, else None."""
    if not path.is_file():
        return None
    try:
        values = json.loads(path.read_text())
    except (OSError, ValueError):
        return None  # written atomically, so only a foreign file gets here: evaluate again
    if values.get("fingerprint") != json.loads(json.dumps(fingerprint)):
        return None
    return EvaluationResult.from_dict(values["result"])


def _part_progress(progress, number: int, parts: int, labels: list[str]):
    """Progress of one part as a share of all the parts' steps."""

    def report(done: int, total: int, status: str) -> None:
        progress(number * total + done, parts * total, f"{', '.join(labels) or 'baselines'}: {status}")

    return report
