"""Publish a robustness study: copy its data and figures to docs/ and print its tables.

    videodenoise experiment configs/robustness.toml          # the runs, the evaluation, the report
    python benchmarks/robustness_tables.py                    # then this

    videodenoise experiment configs/robustness-2.toml --jobs 2
    python benchmarks/robustness_tables.py experiments/robustness-2 --docs docs/robustness/study-2

Both copy the experiment's own report (as experiment-report.md, its links to the per-run evaluation
pointing into the experiment folder, which is not committed) and its figures. The first study's
folder gets cells.csv (one row per model × arm × seed × γ, evaluation site "input", columns
model,arm,seed,gamma,rmse,descent_fraction first), cells-layers.csv (the intermediate layers
perturbed, site "layers"), comparisons.csv, binding.csv and baselines.csv, and this prints its primary
endpoint (constrained − ERM at γ = 1.5, 2, 3 with the protocol's decision rule), the secondary tables
and the binding summary as Markdown. A study with endpoints stated in advance (endpoints.csv, the
second study) gets every table of the experiment as it is (video-cells.csv has the columns
model,arm,seed,video,gamma,depth,rmse,descent_fraction first), and this prints its endpoints.
"""

from __future__ import annotations

import argparse
import csv
import os
import shutil
from collections import defaultdict
from pathlib import Path

import numpy as np

from _script import run_main

PRIMARY_GAMMAS = (1.5, 2.0, 3.0)


def read(path: Path) -> list[dict]:
    with open(path, newline="") as file:
        return list(csv.DictReader(file))


def write(path: Path, rows: list[dict], columns: list[str]) -> None:
    with open(path, "w", newline="") as file:
        writer = csv.DictWriter(file, fieldnames=columns, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)


def interval(c: dict) -> str:
    return f"{float(c['difference']):+.5f} [{float(c['ci_low']):+.5f}, {float(c['ci_high']):+.5f}]"


def copy_report_and_figures(out: Path, docs: Path) -> None:
    """The experiment's own report, its links to the per-run evaluation pointing into the experiment
    folder (not committed), and its figures."""
    report = (out / "report.md").read_text()
    report = report.replace("](eval/", f"]({Path(os.path.relpath(out / 'eval', docs)).as_posix()}/")
    (docs / "experiment-report.md").write_text(report)
    for figure in sorted(out.glob("*.png")):
        shutil.copyfile(figure, docs / figure.name)


def print_endpoints(out: Path, docs: Path) -> None:
    """A study with endpoints stated in advance: every table as it is, and the endpoints."""
    for table in sorted(out.glob("*.csv")):
        shutil.copyfile(table, docs / table.name)
    print(
        "| endpoint | model | A − B | γ | mean | 95 % CI over seeds | 95 % CI over videos "
        "| p (Holm) | p equivalence (Holm) | verdict |"
    )
    print("|---|---|---|---:|---:|---|---|---:|---:|---|")
    for e in read(out / "endpoints.csv"):
        if e["endpoint"] == "P3":
            continue
        print(
            f"| {e['endpoint']} | {e['model']} | {e['a']} − {e['b']} | {e['gamma']} | {float(e['mean']):+.2%} "
            f"| [{float(e['seeds_low']):+.2%}, {float(e['seeds_high']):+.2%}] "
            f"| [{float(e['videos_low']):+.2%}, {float(e['videos_high']):+.2%}] | {float(e['p_holm']):.4f} "
            f"| {'' if e['endpoint'] != 'P1' else format(float(e['p_equivalence_holm']), '.4f')} | {e['verdict']} |"
        )
    print(f"\nwrote {docs}: every table of {out}, experiment-report.md and the figures")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("experiment", type=Path, nargs="?", default=Path("experiments/robustness"))
    parser.add_argument("--docs", type=Path, default=Path("docs/robustness"))
    args = parser.parse_args()
    out, docs = args.experiment, args.docs
    if not (out / "report.md").is_file():
        raise SystemExit(f"error: {out} holds no experiment report; run `videodenoise experiment <config>` first")
    docs.mkdir(parents=True, exist_ok=True)
    copy_report_and_figures(out, docs)
    if (out / "endpoints.csv").exists():
        print_endpoints(out, docs)
        return

    cells = read(out / "cells.csv")
    columns = [
        "model",
        "arm",
        "seed",
        "gamma",
        "rmse",
        "descent_fraction",
        "psnr",
        "ssim",
        "dataset",
        "noise",
        "sigma_255",
    ]
    write(docs / "cells.csv", [c for c in cells if c["site"] == "input"], columns)
    write(docs / "cells-layers.csv", [c for c in cells if c["site"] == "layers"], columns)
    for name in ("comparisons.csv", "binding.csv", "baselines.csv"):
        shutil.copyfile(out / name, docs / name)

    comparisons = read(out / "comparisons.csv")
    models = sorted({c["model"] for c in comparisons})

    print("## Primary endpoint: constrained − ERM, paired over seeds, 95 % t interval\n")
    print("| model | γ | constrained RMSE | ERM RMSE | difference [95 % CI] | p | verdict |")
    print("|---|---:|---:|---:|---|---:|---|")
    decisions = {}
    for model in models:
        picked = [
            c
            for c in comparisons
            if c["a"] == "constrained"
            and c["b"] == "erm"
            and c["site"] == "input"
            and c["model"] == model
            and float(c["gamma"]) in PRIMARY_GAMMAS
        ]
        for c in sorted(picked, key=lambda c: float(c["gamma"])):
            print(
                f"| {model} | {float(c['gamma']):g} | {float(c['rmse_a']):.4f} | {float(c['rmse_b']):.4f} "
                f"| {interval(c)} "
                f"| {float(c['p']):.3f} | {c['verdict']} |"
            )
        highs, lows = [float(c["ci_high"]) for c in picked], [float(c["ci_low"]) for c in picked]
        by_gamma = "; ".join(
            f"γ = {float(c['gamma']):g}: {c['verdict']}" for c in sorted(picked, key=lambda c: float(c["gamma"]))
        )
        decisions[model] = (
            "H1 supported: constrained lower at every primary γ"
            if picked and max(highs) < 0
            else "H1 not supported: constrained worse at every primary γ"
            if picked and min(lows) > 0
            else f"H1 not supported ({by_gamma})"
        )
    print()
    for model, decision in decisions.items():
        print(f"- {model}: {decision}")

    for site in ("input", "layers"):
        print(f"\n## Every pair, site {site}: difference [95 % CI] by γ\n")
        gammas = sorted({float(c["gamma"]) for c in comparisons})
        print("| model | A − B | " + " | ".join(f"γ={g:g}" for g in gammas) + " |")
        print("|---|---|" + "---|" * len(gammas))
        table = defaultdict(dict)
        for c in comparisons:
            if c["site"] == site:
                table[(c["model"], c["a"], c["b"])][float(c["gamma"])] = c
        for (model, a, b), row in table.items():
            texts = []
            for g in gammas:
                c = row.get(g)
                mark = "" if c is None or c["verdict"] == "no detectable difference" else " *"
                texts.append(
                    ""
                    if c is None
                    else f"{float(c['difference']):+.4f} [{float(c['ci_low']):+.4f}, {float(c['ci_high']):+.4f}]{mark}"
                )
            print(f"| {model} | {a} − {b} | " + " | ".join(texts) + " |")
        print("\n(* the interval excludes 0)")

    print("\n## RMSE by arm, mean over seeds (site input)\n")
    gammas = sorted({float(c["gamma"]) for c in cells})
    print("| model | arm | " + " | ".join(f"γ={g:g}" for g in gammas) + " | descent share γ=1 | γ=3 |")
    print("|---|---|" + "---:|" * (len(gammas) + 2))
    for model in models:
        for arm in dict.fromkeys(c["arm"] for c in cells):
            rows = [c for c in cells if c["model"] == model and c["arm"] == arm and c["site"] == "input"]
            if not rows:
                continue
            mean = {g: np.mean([float(c["rmse"]) for c in rows if float(c["gamma"]) == g]) for g in gammas}
            share = {
                g: np.mean([float(c["descent_fraction"]) for c in rows if float(c["gamma"]) == g]) for g in (1.0, 3.0)
            }
            print(
                f"| {model} | {arm} | "
                + " | ".join(f"{mean[g]:.4f}" for g in gammas)
                + f" | {share[1.0]:.0%} | {share[3.0]:.0%} |"
            )
    baselines = read(out / "baselines.csv")
    for method in dict.fromkeys(b["method"] for b in baselines):
        values = {
            float(b["gamma"]): float(b["rmse"]) for b in baselines if b["method"] == method and b["site"] == "input"
        }
        print(f"|  | {method} | " + " | ".join(f"{values[g]:.4f}" for g in gammas) + " |  |  |")

    binding = read(out / "binding.csv")
    print("\n## Do the constraints bind? Share of steps with λ_l > 0 (min–max over seeds), largest λ_l\n")
    layers = sorted({int(b["layer"]) for b in binding})
    print("| model | arm | " + " | ".join(f"layer {l}" for l in layers) + " |")
    print("|---|---|" + "---|" * len(layers))
    for key in dict.fromkeys((b["model"], b["arm"]) for b in binding):
        texts = []
        for layer in layers:
            rows = [b for b in binding if (b["model"], b["arm"]) == key and int(b["layer"]) == layer]
            active = [float(b["active_fraction"]) for b in rows]
            texts.append(
                f"{min(active):.0%}–{max(active):.0%}, λ ≤ {max(float(b['max_multiplier']) for b in rows):.3g}"
            )
        print(f"| {key[0]} | {key[1]} | " + " | ".join(texts) + " |")
    print(
        f"\nwrote {docs}/cells.csv, cells-layers.csv, comparisons.csv, binding.csv, baselines.csv, "
        "experiment-report.md and the figures"
    )


if __name__ == "__main__":
    run_main(main)
