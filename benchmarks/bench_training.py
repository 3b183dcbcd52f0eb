"""ERM vs deep supervision vs constrained training of DUST on the sample clips, side by side.

1. The time of one training step, constrained vs ERM, measured interleaved in the same process
   (the ratio is the cost of the multipliers and of backpropagating every layer's loss).
2. One short CPU run per mode with identical data, noise and initialisation: the validation
   per-layer loss after training (bikes clip), how many layers satisfy the descent constraint
   F_l ≤ (1 − α)·F_{l−1}, and the share of validation clips whose loss falls at every layer.

    python benchmarks/bench_training.py                 # about 10 minutes on a 2-core CPU
    python benchmarks/bench_training.py --epochs 2      # quicker
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

import torch

from videodenoise.devices import autocast
from videodenoise.training.config import (
    MODES,  # noqa: E402
    DataConfig,
    TrainConfig,
)
from videodenoise.training.trainer import Trainer

from _machine import cpu_name
from _script import run_main


def make_config(args, mode: str) -> TrainConfig:
    return TrainConfig(
        model="dust",
        mode=mode,
        data=DataConfig(
            dataset="samples",
            clip_length=5,
            crop=args.crop,
            val_crop=128,
            samples_per_epoch=args.samples_per_epoch,
            val_clips_per_video=args.val_clips,
        ),
        epochs=args.epochs,
        batch_size=args.batch_size,
        lr=args.lr,
        seed=args.seed,
        device=args.device,
    )


def final_layer_only_step(trainer: Trainer, clean: torch.Tensor) -> None:
    """The cheapest possible ERM step, for reference: no intermediate readouts at all (the trainer's
    ERM step reads out every layer so that it can log the per-layer training loss)."""
    trainer.adam.zero_grad(set_to_none=True)
    noisy, _, told, clean = trainer.inputs(clean, trainer.step, trainer.rank)  # the trainer's own noise and crop
    with autocast(trainer.device, trainer.dtype):
        loss = ((trainer.model(noisy, **told).float() - clean) ** 2).mean()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(trainer.model.parameters(), 1.0)
    trainer.adam.step()


def time_steps(args, workdir: Path) -> dict[str, float]:
    """Median seconds per training step for ERM and constrained, interleaved so that all see the
    same machine load."""
    trainers = {
        mode: Trainer(make_config(args, mode), workdir / f"timing-{mode}", quiet=True)
        for mode in ("erm", "constrained")
    }
    steps = {
        "erm": trainers["erm"].train_step,
        "constrained": trainers["constrained"].train_step,
        "erm-final-only": lambda clean: final_layer_only_step(trainers["erm"], clean),
    }
    clean = next(iter(trainers["erm"].batches(0))).to(trainers["erm"].device)
    times: dict[str, list[float]] = {name: [] for name in steps}
    for repeat in range(args.timing_steps + 2):
        for name, step in steps.items():
            started = time.perf_counter()
            step(clean)
            if clean.device.type == "cuda":
                torch.cuda.synchronize()
            if repeat >= 2:  # warm-up
                times[name].append(time.perf_counter() - started)
    return {name: statistics.median(values) for name, values in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--epochs", type=int, default=6)
    parser.add_argument("--samples-per-epoch", type=int, default=256)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--crop", type=int, default=48)
    parser.add_argument("--val-clips", type=int, default=8)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--device", default="auto")
    parser.add_argument("--timing-steps", type=int, default=20)
    parser.add_argument("--timing-only", action="store_true", help="Only time the training steps")
    parser.add_argument("--output", type=Path, help="Write the results as JSON here")
    args = parser.parse_args()

    print(f"machine: {cpu_name()}, {torch.get_num_threads()} threads, torch {torch.__version__}, device {args.device}")
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        step = time_steps(args, workdir)
        print(
            f"\none training step (batch {args.batch_size} × 5 frames × {args.crop}², DUST default, "
            f"median of {args.timing_steps}):"
        )
        print(f"  ERM (every layer read out, as trained)  {step['erm'] * 1e3:8.1f} ms")
        print(f"  ERM (final layer only)                  {step['erm-final-only'] * 1e3:8.1f} ms")
        print(f"  constrained                             {step['constrained'] * 1e3:8.1f} ms")
        print(
            f"  ratio constrained / ERM as trained: {step['constrained'] / step['erm']:.2f}; "
            f"constrained / ERM final-only: {step['constrained'] / step['erm-final-only']:.2f}"
        )

        if args.timing_only:
            return
        results = {}
        for mode in MODES:
            started = time.perf_counter()
            summary = Trainer(make_config(args, mode), workdir / mode, quiet=True).fit()
            results[mode] = {**summary["final"], "wall_seconds": time.perf_counter() - started}

    final = {mode: results[mode] for mode in MODES}
    layers = len(final["erm"]["val_loss_per_layer"])
    alpha = make_config(args, "constrained").descent.alpha
    print(
        f"\nvalidation per-layer MSE on bikes after {args.epochs} epochs × {args.samples_per_epoch} clips "
        f"({final['erm']['val_clips']} clips of 5 frames, σ = 25/255, grey):"
    )
    print(f"  {'layer':>5} " + "".join(f"{mode:>18}" for mode in MODES))
    for layer in range(layers):
        print(f"  {layer:>5} " + "".join(f"{final[mode]['val_loss_per_layer'][layer]:18.6f}" for mode in MODES))
    print(f"  {'RMSE':>5} " + "".join(f"{final[mode]['val_rmse']:18.5f}" for mode in MODES))
    print(
        f"\nlayers satisfying F_l ≤ (1 − {alpha})·F_(l−1) on validation: "
        + ", ".join(f"{mode} {final[mode]['val_layers_satisfying_descent']}/{layers - 1}" for mode in MODES)
    )
    print(
        "validation clips whose loss falls at every layer: "
        + ", ".join(f"{mode} {final[mode]['val_descent_fraction']:.0%}" for mode in MODES)
    )
    print("final multipliers λ_l (constrained): " + ", ".join(f"{v:.3f}" for v in final["constrained"]["multipliers"]))
    print("wall time per mode: " + ", ".join(f"{mode} {final[mode]['wall_seconds']:.0f} s" for mode in MODES))
    print(
        f"ratio of final-layer MSE constrained / ERM: "
        f"{final['constrained']['val_loss_per_layer'][-1] / final['erm']['val_loss_per_layer'][-1]:.3f}"
    )
    if args.output:
        args.output.write_text(
            json.dumps(
                {"step_seconds": step, "results": results, "args": vars(args) | {"output": str(args.output)}}, indent=2
            )
        )


if __name__ == "__main__":
    run_main(main)
