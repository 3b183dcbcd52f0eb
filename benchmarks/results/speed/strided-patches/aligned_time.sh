#!/usr/bin/env bash
# `clean` with the aligned model (issue 19's fresh observation arm, each frame at its window's centre, no fusion) and
# with the shipped default, on the first 60 frames of bikes at σ = 25 (the file of ablation-observation/stride), in
# the code at OLD (a worktree of the session's start, d64abf6) and in this tree, in turns, two runs each:
#   bash benchmarks/results/speed/strided-patches/aligned_time.sh /tmp/old > benchmarks/results/speed/strided-patches/aligned-time.log
set -euo pipefail
cd "$(dirname "$0")/../../../.."
ROOT=$PWD OLD=$1
W=runs/ablation-fresh-observation/last.safetensors  # trained by the command in ablation-observation/README.md
V=/tmp/bikes60-noisy.mkv
[ -f $V ] || .venv/bin/python benchmarks/results/ablation-observation/stride/bikes60.py $V
TIMEFORMAT=%R
for run in 1 2; do
  for code in old new; do
    dir=$ROOT; [ $code = old ] && dir=$OLD
    seconds=$( { time (cd $dir && PYTHONPATH=$dir $ROOT/.venv/bin/python -m videodenoise clean $V -o /tmp/aligned-$code.mkv \
      --overwrite --format lossless --no-fusion --checkpoint $ROOT/$W --stride 1 --quiet) ; } 2>&1 )
    echo "$code code, the aligned model, run $run: $seconds s"
    seconds=$( { time (cd $dir && PYTHONPATH=$dir $ROOT/.venv/bin/python -m videodenoise clean $V -o /tmp/default-$code.mkv \
      --overwrite --format lossless --quiet) ; } 2>&1 )
    echo "$code code, the shipped default, run $run: $seconds s"
  done
done
