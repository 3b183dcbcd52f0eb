"""How long an experiment config will take on this machine, from short timed pieces of it.

1. Wall time of training steps of every model × arm of the config (after two warm-up steps), and of
   one validation pass.
2. Wall time of one evaluation unit (one clip at one γ and one noise seed) per model and baseline,
   on the config's evaluation clips.

Then the predicted wall time of the whole grid. Run it on an otherwise idle machine:

    python benchmarks/bench_evaluation.py configs/samples-small.toml     # about 1-2 minutes
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import torch

from videodenoise.evaluation.baselines import BASELINES
from videodenoise.evaluation.config import noise_levels
from videodenoise.evaluation.experiment import load_experiment
from videodenoise.evaluation.sweep import evaluation_clips
from videodenoise.metrics import clip_metrics
from videodenoise.noise.kinds import make_noise
from videodenoise.training.trainer import Trainer

from _script import run_main


def time_training(config, entry, model: str, arm: str, steps: int):
    """(seconds per training step, seconds per validation pass, the model)."""
    train_config = config.train_config(entry, model, arm, config.seeds[0])
    with tempfile.TemporaryDirectory() as folder:
        trainer = Trainer(train_config, Path(folder) / "run", quiet=True)
        batches = iter(trainer.batches(0))
        for _ in range(2):  # warm-up (and the first decode of the training videos into the cache)
            trainer.train_step(next(batches))
        started = time.perf_counter()
        done = 0
        for clean in batches:
            trainer.train_step(clean)
            done += 1
            if done == steps:
                break
        per_step = (time.perf_counter() - started) / max(1, done)
        started = time.perf_counter()
        trainer.validate()
        return per_step, time.perf_counter() - started, trainer.model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("config", type=Path)
    parser.add_argument("--steps", type=int, default=6, help="timed training steps per model × arm")
    parser.add_argument("--output", type=Path, help="also write the numbers as JSON")
    args = parser.parse_args()

    config = load_experiment(args.config)
    entry = config.datasets[0]
    report: dict = {"config": str(args.config), "threads": torch.get_num_threads(), "training": {}, "evaluation": {}}
    total_training = 0.0
    models = {}
    for model in config.models:
        for arm in config.arms:
            step, validation, built = time_training(config, entry, model, arm, args.steps)
            models[model] = built
            train_config = config.train_config(entry, model, arm, config.seeds[0])
            steps = train_config.epochs * (train_config.data.samples_per_epoch // train_config.batch_size)
            if train_config.max_steps:
                steps = min(steps, train_config.max_steps)
            predicted = steps * step + train_config.epochs * validation
            total_training += predicted * len(config.seeds)
            report["training"][f"{model}-{arm}"] = {
                "seconds_per_step": step,
                "validation_seconds": validation,
                "steps": steps,
                "predicted_seconds": predicted,
            }
            print(
                f"{model:4s} {arm:16s} {step:.3f} s/step, validation {validation:.2f} s: "
                f"{steps} steps ≈ {predicted / 60:.1f} min per run",
                flush=True,
            )

    eval_config = config.eval_config(entry)
    clips = evaluation_clips(eval_config, 1)
    clean = clips[0]
    level = noise_levels(eval_config, train_config.sigma_train)[1]
    noisy = make_noise("gaussian", level.sigma)(clean, generator=torch.Generator().manual_seed(0))
    unit = 0.0
    for name in eval_config.baselines:
        started = time.perf_counter()
        clip_metrics(BASELINES[name].function(noisy.numpy(), level.sigma), clean)
        seconds = time.perf_counter() - started
        report["evaluation"][name] = seconds
        unit += seconds
    for model, built in models.items():
        started = time.perf_counter()
        with torch.no_grad():
            estimates = built.eval()(noisy[None], all_layers=True)
        clip_metrics(estimates[-1][0], clean)
        seconds = time.perf_counter() - started
        report["evaluation"][model] = seconds
        unit += seconds * len(config.arms) * len(config.seeds) * len(eval_config.sites)
    units = (
        len(clips) * len(eval_config.gammas if not eval_config.sigmas else eval_config.sigmas) * len(eval_config.seeds)
    )
    total_evaluation = unit * units * len(config.datasets)
    print(
        "evaluation unit (one clip, one γ, one seed): "
        + ", ".join(f"{k} {v:.3f} s" for k, v in report["evaluation"].items())
    )
    print(
        f"predicted: training {total_training / 60:.1f} min + evaluation {total_evaluation / 60:.1f} min "
        f"({units} units per dataset) = {(total_training + total_evaluation) / 60:.1f} min",
        flush=True,
    )
    report["predicted_minutes"] = {"training": total_training / 60, "evaluation": total_evaluation / 60}
    if args.output:
        args.output.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    run_main(main)
