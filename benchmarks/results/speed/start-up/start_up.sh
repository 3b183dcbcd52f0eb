#!/usr/bin/env bash
# `clean` (the shipped default, σ auto) on the first 60 frames of bikes at σ = 25 and on its first 10 frames, start-up
# included, in the code at OLD and in this tree, in turns, three runs each; then what each tree's `clean` imports:
#   bash benchmarks/results/speed/start-up/start_up.sh /tmp/old33 > benchmarks/results/speed/start-up/start-up.log
set -euo pipefail
cd "$(dirname "$0")/../../../.."
ROOT=$PWD OLD=$1
V=/tmp/bikes60-noisy.mkv V10=/tmp/bikes10-noisy.mkv
[ -f $V ] || .venv/bin/python benchmarks/results/ablation-observation/stride/bikes60.py $V
[ -f $V10 ] || .venv/bin/python -c "
from videodenoise.io.video import open_video; from videodenoise.io.writers import write_video
write_video('$V10', open_video('$V').read(0, 10), codec='ffv1')"
TIMEFORMAT=%R
for run in 1 2 3; do
  for video in $V $V10; do
    for code in old new; do
      dir=$ROOT; [ $code = old ] && dir=$OLD
      seconds=$( { time (cd $dir && PYTHONPATH=$dir $ROOT/.venv/bin/python -m videodenoise clean $video \
        -o /tmp/start-up-$code.mkv --overwrite --format lossless --quiet) ; } 2>&1 )
      echo "$code code, $(basename $video), run $run: $seconds s"
    done
  done
done
for code in old new; do
  dir=$ROOT; [ $code = old ] && dir=$OLD
  (cd $dir && PYTHONPATH=$dir $ROOT/.venv/bin/python -X importtime -m videodenoise clean $V10 -o /tmp/start-up-$code.mkv \
    --overwrite --format lossless --quiet 2>&1 >/dev/null | python3 -c "
import sys
mods = {l.split('|')[2].strip() for l in sys.stdin if l.startswith('import time:')}
print('$code code imports:', ', '.join(m for m in ('torch._dynamo', 'sympy', 'scipy.stats') if m in mods) or 'none of torch._dynamo, sympy, scipy.stats')")
done
