#!/usr/bin/env bash
# The observation-mixing arm against hand fusion + model, trained side by side (README.md has the training commands):
# the validation clips first, then the benchmark's held-out clips once. Nothing here chooses anything.
set -euo pipefail
cd "$(dirname "$0")/../../.."
F=videodenoise/checkpoints/dust-video.safetensors
GREY=motorcycle-right-pan,cell-pan,clock-motion-pan,page-pan
COLOUR=china-pan,flower-pan,china-objects,flower-objects
A=(--checkpoint default=$F --checkpoint fused=runs/ablation-fused/last.safetensors
   --checkpoint observation=runs/ablation-observation/last.safetensors,fusion=off)
OUT=benchmarks/results/ablation-observation
Q=(--frames 5 --sigmas 10,25,50 --methods noisy,models --modes auto "${A[@]}")
step=${1:-validation}
if [ "$step" = validation ]; then
  .venv/bin/python benchmarks/bench_quality.py --clips $GREY "${Q[@]}" --out $OUT/validation > $OUT/validation.log 2>&1
  .venv/bin/python benchmarks/bench_quality.py --clips $COLOUR "${Q[@]}" --out $OUT/validation-colour \
    > $OUT/validation-colour.log 2>&1
  .venv/bin/python benchmarks/attention_maps.py --checkpoint fused=runs/ablation-fused/last.safetensors \
    --checkpoint observation=runs/ablation-observation/last.safetensors,fusion=off --out $OUT/attention \
    > $OUT/attention.md 2>&1
elif [ "$step" = held-out ]; then
  .venv/bin/python benchmarks/bench_quality.py "${Q[@]}" --out $OUT/held-out > $OUT/held-out.log 2>&1
else
  echo "usage: run.sh [validation|held-out]" >&2
  exit 2
fi
