#!/usr/bin/env bash
# What a model's attention is worth (README.md here), on the validation clips and the benchmark's held-out clips,
# Gaussian σ = 10, 25, 50 and camera noise at light CRF 28, medium CRF 23 and heavy CRF 18.
#   run.sh default   the shipped default (validation.log, held-out.log)
#   run.sh best      `--quality best` (its wide weights, calibration off), σ = 25 on the held-out clips (best/)
#   run.sh aligned   issue 19's aligned models without hand fusion, attending at the first layer only and at all
#                    five (depth-1/, observation/; runs/ is git-ignored: ../aligned-depth/ and
#                    ../ablation-observation/ say how each was trained)
set -euo pipefail
cd "$(dirname "$0")/../../.."
OUT=benchmarks/results/attention-worth
C=(--frames 5 --sigmas 10,25,50 --camera light:28,medium:23,heavy:18)
V=motorcycle-right-pan,cell-pan,clock-motion-pan,page-pan,china-pan,flower-pan,china-objects,flower-objects
H=bikes,carphone,astronaut-pan,coffee-pan,chelsea-pan,grace-hopper-pan
case "${1:-}" in
  default)
    .venv/bin/python benchmarks/attention_worth.py --clips $V "${C[@]}" --out $OUT/validation > $OUT/validation.log 2>&1
    .venv/bin/python benchmarks/attention_worth.py --clips $H "${C[@]}" --out $OUT/held-out > $OUT/held-out.log 2>&1 ;;
  best)
    mkdir -p $OUT/best
    .venv/bin/python benchmarks/attention_worth.py \
      --checkpoint videodenoise/checkpoints/dust-video-wide.safetensors,quality=best,calibrate=off --clips $H \
      --sigmas 25 --out $OUT/best/held-out > $OUT/best/held-out.log 2>&1 ;;
  aligned)
    for model in depth-1=runs/ablation-depth-1 observation=runs/ablation-fresh-observation; do
      name=${model%%=*} run=${model#*=}
      mkdir -p $OUT/$name
      for clips in validation=$V held-out=$H; do
        .venv/bin/python benchmarks/attention_worth.py --checkpoint $run/last.safetensors,fusion=off \
          --clips ${clips#*=} "${C[@]}" --out $OUT/$name/${clips%%=*} > $OUT/$name/${clips%%=*}.log 2>&1
      done
    done ;;
  *)
    echo "usage: run.sh default|best|aligned" >&2
    exit 2 ;;
esac
