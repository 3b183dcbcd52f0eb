#!/usr/bin/env bash
# The aligned arms (no hand fusion) against hand fusion + model, trained as README.md says: the validation clips
# first, then the benchmark's held-out clips once. Nothing here chooses anything.
#   run.sh validation|held-out ARM[,ARM...] [OUT]
# ARM: observation (g_y from 1/2), observation-1 (g_y from 1), aligned (no mixed observation), both (hand fusion,
# then the mixed aligned attention: the only arm measured with fusion on); each is measured with the shipped
# default and the fused arm beside it. Folders are named by step and, after the first run, OUT.
# RUNS (default runs/ablation) names the run folders, RUNS-fused and RUNS-ARM: runs/ablation-long for the
# doubled budget, runs/ablation-xlong and runs/ablation-fresh for four times it (extended, and from the start).
set -euo pipefail
cd "$(dirname "$0")/../../.."
F=videodenoise/checkpoints/dust-video.safetensors
RUNS=${RUNS:-runs/ablation}
GREY=motorcycle-right-pan,cell-pan,clock-motion-pan,page-pan
COLOUR=china-pan,flower-pan,china-objects,flower-objects
step=${1:-validation}
arms=${2:-observation}
OUT=benchmarks/results/ablation-observation/${3:-}
A=(--checkpoint default=$F --checkpoint fused=$RUNS-fused/last.safetensors)
M=(--checkpoint fused=$RUNS-fused/last.safetensors)
suffix=""
for arm in ${arms//,/ }; do
  fusion=,fusion=off
  [ "$arm" != both ] || fusion=""
  A+=(--checkpoint $arm=$RUNS-$arm/last.safetensors$fusion)
  M+=(--checkpoint $arm=$RUNS-$arm/last.safetensors$fusion)
  [ "$arm" = observation ] || [ -n "${3:-}" ] || suffix="$suffix-$arm"
done
mkdir -p $OUT
Q=(--frames 5 --sigmas 10,25,50 --methods noisy,models --modes auto "${A[@]}")
if [ "$step" = validation ]; then
  .venv/bin/python benchmarks/bench_quality.py --clips $GREY "${Q[@]}" --out $OUT/validation$suffix \
    > $OUT/validation$suffix.log 2>&1
  .venv/bin/python benchmarks/bench_quality.py --clips $COLOUR "${Q[@]}" --out $OUT/validation-colour$suffix \
    > $OUT/validation-colour$suffix.log 2>&1
  .venv/bin/python benchmarks/attention_maps.py "${M[@]}" --out $OUT/attention$suffix > $OUT/attention$suffix.md 2>&1
elif [ "$step" = held-out ]; then
  .venv/bin/python benchmarks/bench_quality.py "${Q[@]}" --out $OUT/held-out$suffix > $OUT/held-out$suffix.log 2>&1
else
  echo "usage: run.sh validation|held-out ARM[,ARM...] [OUT]" >&2
  exit 2
fi
