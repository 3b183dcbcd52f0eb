#!/usr/bin/env bash
# The observation-mixing arm against hand fusion + model, trained side by side (README.md has the training commands):
# the validation clips first, then the benchmark's held-out clips once. Nothing here chooses anything.
set -euo pipefail
cd "$(dirname "$0")/../../.."
F=videodenoise/checkpoints/dust-video.safetensors
GREY=motorcycle-right-pan,cell-pan,clock-motion-pan,page-pan
COLOUR=china-pan,flower-pan,china-objects,flower-objects
# the arm measured against fused: "observation" (the first, g_y from 1/2), "observation-1" (the second, g_y from 1)
step=${1:-validation}
arm=${2:-observation}
A=(--checkpoint default=$F --checkpoint fused=runs/ablation-fused/last.safetensors
   --checkpoint $arm=runs/ablation-$arm/last.safetensors,fusion=off)
OUT=benchmarks/results/ablation-observation
suffix=$([ $arm = observation ] && echo "" || echo "-$arm")
Q=(--frames 5 --sigmas 10,25,50 --methods noisy,models --modes auto "${A[@]}")
if [ "$step" = validation ]; then
  .venv/bin/python benchmarks/bench_quality.py --clips $GREY "${Q[@]}" --out $OUT/validation$suffix \
    > $OUT/validation$suffix.log 2>&1
  .venv/bin/python benchmarks/bench_quality.py --clips $COLOUR "${Q[@]}" --out $OUT/validation-colour$suffix \
    > $OUT/validation-colour$suffix.log 2>&1
  .venv/bin/python benchmarks/attention_maps.py --checkpoint fused=runs/ablation-fused/last.safetensors \
    --checkpoint $arm=runs/ablation-$arm/last.safetensors,fusion=off --out $OUT/attention$suffix \
    > $OUT/attention$suffix.md 2>&1
elif [ "$step" = held-out ]; then
  .venv/bin/python benchmarks/bench_quality.py "${Q[@]}" --out $OUT/held-out$suffix > $OUT/held-out$suffix.log 2>&1
else
  echo "usage: run.sh [validation|held-out] [observation|observation-1]" >&2
  exit 2
fi
