"""Does `experiment --jobs 2` (two runs at once, one thread each) beat one run at a time on all threads?

Trains the same small grid twice in one invocation, into two temporary folders: the study's own
runs (configs/robustness-2.toml, ERM and constrained-with-detach arms, DUST and UT, two seeds) cut to
--steps steps each, once with --jobs 1 (torch on every core) and once with --jobs N (each process an
equal share). Prints both wall times and their ratio; the runs are identical either way (a run's
seed fixes it; tests/test_evaluation.py checks the weights).

    python benchmarks/bench_jobs.py [--steps 48] [--jobs 2]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import torch

from videodenoise.evaluation.experiment import ExperimentConfig, load_experiment, run_experiment

from _machine import cpu_name
from _script import run_main

CONFIG = Path(__file__).resolve().parent.parent / "configs" / "robustness-2.toml"


def grid(steps: int) -> ExperimentConfig:
    shipped = load_experiment(CONFIG).to_dict()
    shipped["arms"] = {name: shipped["arms"][name] for name in ("erm", "constrained-detach")}
    shipped["seeds"] = [0, 1]
    shipped["training"] = {**shipped["training"], "max_steps": steps, "device": "cpu"}
    shipped["endpoints"] = None
    return ExperimentConfig(**shipped)


def timed(config: ExperimentConfig, jobs: int) -> float:
    with tempfile.TemporaryDirectory() as folder:
        started = time.perf_counter()
        run_experiment(config, folder, evaluate_runs=False, log=lambda message: None, jobs=jobs)
        return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=48, help="Training steps of each run.")
    parser.add_argument("--jobs", type=int, default=2, help="Runs at once in the parallel pass.")
    args = parser.parse_args()
    config = grid(args.steps)
    runs = len(config.models) * len(config.arms) * len(config.seeds)
    torch.set_num_threads(os.cpu_count() or 1)
    print(f"{cpu_name()}, {os.cpu_count()} cores, torch {torch.__version__}, CPU only")
    print(
        f"{runs} runs of {args.steps} steps each (configs/robustness-2.toml: DUST and UT, erm and constrained-detach)"
    )
    serial = timed(config, 1)
    print(f"--jobs 1 ({torch.get_num_threads()} threads): {serial:.1f} s")
    parallel = timed(config, args.jobs)
    print(f"--jobs {args.jobs} ({max(1, (os.cpu_count() or 1) // args.jobs)} thread(s) each): {parallel:.1f} s")
    print(f"speed-up of --jobs {args.jobs}: {serial / parallel:.2f}×")


if __name__ == "__main__":
    run_main(main)
