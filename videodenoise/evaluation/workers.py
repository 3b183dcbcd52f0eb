"""Work spread over processes: `experiment --jobs N` trains and evaluates N runs at once."""

from __future__ import annotations

import os

from videodenoise.errors import ExperimentError


def in_workers(function, tasks: list[tuple], jobs: int, names: list[str]):
    """function(*task) for every task, `jobs` at a time in spawned processes that share the CPU's
    threads equally; yields the results in order. The first error stops the rest, as it would in
    one process; a worker that dies (killed, out of memory) is a one-line error saying how to go on."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    threads = max(1, (os.cpu_count() or 1) // jobs)
    with ProcessPoolExecutor(jobs, multiprocessing.get_context("spawn"), _limit_threads, (threads,)) as pool:
        futures = [pool.submit(function, *task) for task in tasks]
        for name, future in zip(names, futures):
            try:
                yield future.result()
            except BrokenProcessPool:
                raise ExperimentError(
                    f"the process working on {name} died (out of memory or killed); "
                    f"run the same command again to continue where it stopped"
                ) from None


def _limit_threads(threads: int) -> None:
    import torch

    torch.set_num_threads(threads)
