#!/usr/bin/env bash
# The fast preset handing white noise to issue 19's aligned model (README.md here), against the fast preset as it was:
# the steps of the plan, in order.   run.sh validation|speed|held-out|fresh
set -euo pipefail
cd "$(dirname "$0")/../../.."
OUT=benchmarks/results/white-noise-route
ALIGNED=${ALIGNED:-runs/ablation-depth-1/last.safetensors}  # depth-1, trained by ../aligned-depth/README.md's command
F=videodenoise/checkpoints/dust-video.safetensors
A=(--checkpoint default=$F,white_noise=off --checkpoint route=$F,white_noise=$ALIGNED)
VALIDATION=motorcycle-right-pan,cell-pan,clock-motion-pan,page-pan,china-pan,flower-pan,china-objects,flower-objects
SKIP=sigma-sweep,one-sigma,nlm-opencv,cbm3d,dctdnoiz,nlmeans,atadenoise,fftdnoiz,fftdnoiz-temporal,bm3d
Q=(--methods noisy,models --modes auto "${A[@]}")
R=(--skip $SKIP "${A[@]}")
py=.venv/bin/python
case "${1:-}" in
  validation)
    $py benchmarks/bench_quality.py --clips $VALIDATION --frames 5 --sigmas 2,5,10,25,50 "${Q[@]}" \
      --out $OUT/validation > $OUT/validation.log 2>&1
    $py benchmarks/bench_realnoise.py --clips $VALIDATION --frames 5 "${R[@]}" --out $OUT/realnoise-validation \
      > $OUT/realnoise-validation.log 2>&1 ;;
  speed)
    $py $OUT/speed.py --aligned $ALIGNED --repeats 3 > $OUT/speed.log 2>&1 ;;
  held-out)
    $py benchmarks/bench_quality.py --frames 5 --sigmas 0,2,5,10,15,25,50 "${Q[@]}" --out $OUT/held-out \
      > $OUT/held-out.log 2>&1
    $py benchmarks/bench_realnoise.py --frames 5 "${R[@]}" --out $OUT/realnoise > $OUT/realnoise.log 2>&1 ;;
  fresh)
    $py benchmarks/bench_quality.py --frames 15 --seed 2 --sigmas 10,25,50 "${Q[@]}" --out $OUT/fresh \
      > $OUT/fresh.log 2>&1
    $py benchmarks/bench_realnoise.py --frames 15 --seed 2 "${R[@]}" --out $OUT/realnoise-fresh \
      > $OUT/realnoise-fresh.log 2>&1 ;;
  *)
    echo "usage: run.sh validation|speed|held-out|fresh" >&2
    exit 2 ;;
esac
