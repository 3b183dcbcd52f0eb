#!/usr/bin/env bash
# Issue 19's aligned model attending at its first layer only (README.md here), beside the shipped default and the
# fresh aligned arm that attends at all five (../ablation-observation/, "Fresh 4,096-step runs"): the validation
# clips first, then the benchmark's held-out clips once. Without hand fusion for both aligned models.
#   [EXTRA="LABEL=PATH,fusion=off ..."] [SUB=folder] run.sh validation|held-out
# (EXTRA: more checkpoints beside these; SUB: the results in that subfolder, e.g. the second seed's in seed5/)
set -euo pipefail
cd "$(dirname "$0")/../../.."
OUT=benchmarks/results/aligned-depth
GREY=motorcycle-right-pan,cell-pan,clock-motion-pan,page-pan
COLOUR=china-pan,flower-pan,china-objects,flower-objects
A=(--checkpoint default=videodenoise/checkpoints/dust-video.safetensors
  --checkpoint observation=runs/ablation-fresh-observation/last.safetensors,fusion=off
  --checkpoint depth-1=runs/ablation-depth-1/last.safetensors,fusion=off)
for extra in ${EXTRA:-}; do A+=(--checkpoint "$extra"); done  # more LABEL=PATH,fusion=off, space-separated
OUT=$OUT${SUB:+/$SUB}
mkdir -p $OUT
Q=(--frames 5 --sigmas 10,25,50 --methods noisy,models --modes auto "${A[@]}")
case "${1:-}" in
  validation)
    .venv/bin/python benchmarks/bench_quality.py --clips $GREY "${Q[@]}" --out $OUT/validation > $OUT/validation.log 2>&1
    .venv/bin/python benchmarks/bench_quality.py --clips $COLOUR "${Q[@]}" --out $OUT/validation-colour \
      > $OUT/validation-colour.log 2>&1 ;;
  held-out)
    .venv/bin/python benchmarks/bench_quality.py "${Q[@]}" --out $OUT/held-out > $OUT/held-out.log 2>&1 ;;
  *)
    echo "usage: run.sh validation|held-out" >&2
    exit 2 ;;
esac
