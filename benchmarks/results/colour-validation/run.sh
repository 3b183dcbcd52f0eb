#!/usr/bin/env bash
# How well does each validation set foretell the held-out clips? The shipped default, `balanced` and `best` on the
# grey-heavy validation clips and on the colour ones, Gaussian and camera noise; see README.md.
set -euo pipefail
cd "$(dirname "$0")/../../.."
F=videodenoise/checkpoints/dust-video.safetensors
B=videodenoise/checkpoints/dust-video-wide.safetensors
GREY=motorcycle-right-pan,cell-pan,clock-motion-pan,page-pan,motorcycle-right-objects,cell-objects,clock-motion-objects,page-objects
COLOUR=china-pan,flower-pan,china-objects,flower-objects
S=sigma-sweep,one-sigma,nlm-opencv,cbm3d,dctdnoiz,nlmeans,atadenoise,bm3d,fftdnoiz,fftdnoiz-temporal
A=(--checkpoint shipped=$F --checkpoint balanced=$F,quality=balanced --checkpoint best=$B,quality=best,calibrate=off)
OUT=benchmarks/results/colour-validation
for set in colour grey; do
  clips=$([ $set = colour ] && echo $COLOUR || echo $GREY)
  .venv/bin/python benchmarks/bench_quality.py --clips $clips --frames 12 --sigmas 10,25,50 --methods noisy,models \
    --modes auto "${A[@]}" --out $OUT/$set > $OUT/$set.log 2>&1
  .venv/bin/python benchmarks/bench_realnoise.py --clips $clips --frames 12 --levels medium --crfs 18,23,28 --skip $S \
    "${A[@]}" --out $OUT/$set-camera > $OUT/$set-camera.log 2>&1
done
