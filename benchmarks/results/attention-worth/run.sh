#!/usr/bin/env bash
# What the shipped default's attention is worth (README.md here): the validation clips, then the benchmark's
# held-out clips, Gaussian σ = 10, 25, 50 and camera noise at light CRF 28, medium CRF 23 and heavy CRF 18.
set -euo pipefail
cd "$(dirname "$0")/../../.."
OUT=benchmarks/results/attention-worth
C=(--frames 5 --sigmas 10,25,50 --camera light:28,medium:23,heavy:18)
V=motorcycle-right-pan,cell-pan,clock-motion-pan,page-pan,china-pan,flower-pan,china-objects,flower-objects
H=bikes,carphone,astronaut-pan,coffee-pan,chelsea-pan,grace-hopper-pan
.venv/bin/python benchmarks/attention_worth.py --clips $V "${C[@]}" --out $OUT/validation > $OUT/validation.log 2>&1
.venv/bin/python benchmarks/attention_worth.py --clips $H "${C[@]}" --out $OUT/held-out > $OUT/held-out.log 2>&1
