#!/usr/bin/env bash
# The plan "Denoising only the frames kept, and every frame at the centre of its window" (../README.md):
#   stride/run.sh validation   the rule's run: eight validation clips cut to 15 frames, stride 3 against 1
#   stride/run.sh bikes        afterwards: the first 60 frames of bikes, the default, stride 3 and stride 1
#   stride/run.sh time OLD     afterwards: clean --no-fusion on those 60 frames, the code at OLD (a worktree of
#                              the commit before b2f2e80) and this one, in turns, two runs each; and the default
set -euo pipefail
cd "$(dirname "$0")/../../../.."
W=${W:-runs/ablation-fresh-observation/last.safetensors}
F=videodenoise/checkpoints/dust-video.safetensors
OUT=benchmarks/results/ablation-observation/stride
CLIPS=china-pan,flower-pan,china-objects,flower-objects,motorcycle-right-pan,cell-pan,clock-motion-pan,page-pan
case "${1:-}" in
validation)
  .venv/bin/python benchmarks/bench_quality.py --clips $CLIPS --frames 15 --sigmas 25 --methods noisy,models \
    --modes auto --checkpoint stride3=$W,fusion=off,window_stride=3 --checkpoint stride1=$W,fusion=off,window_stride=1 \
    --out $OUT/validation > $OUT/validation.log 2>&1 ;;
bikes)
  .venv/bin/python benchmarks/results/ablation-observation/long/bikes_frames.py default=$F \
    stride3=$W,fusion=off,window_stride=3 stride1=$W,fusion=off,window_stride=1 > $OUT/bikes-frames.log 2>&1 ;;
time)
  ROOT=$PWD OLD=$2
  V=/tmp/bikes60-noisy.mkv  # bench_quality's σ = 25 draw of the first 60 frames of bikes, FFV1 (bikes60.py)
  [ -f $V ] || .venv/bin/python $OUT/bikes60.py $V
  TIMEFORMAT=%R
  for run in 1 2; do
    for code in old new; do
      dir=$ROOT; [ $code = old ] && dir=$OLD
      for stride in 3 1; do
        [ $code = old ] && [ $stride = 1 ] && continue  # before b2f2e80 stride 1 ran the model on 5 frames a frame
        seconds=$( { time (cd $dir && $ROOT/.venv/bin/python -m videodenoise clean $V -o /tmp/stride-$code-$stride.mkv \
          --overwrite --format lossless --no-fusion --checkpoint $ROOT/$W --stride $stride --quiet) ; } 2>&1 )
        echo "$code code, stride $stride, run $run: $seconds s"
      done
    done
    seconds=$( { time .venv/bin/python -m videodenoise clean $V -o /tmp/stride-default.mkv --overwrite \
      --format lossless --quiet ; } 2>&1 )
    echo "the shipped default (fusion + model), run $run: $seconds s"
  done | tee $OUT/time.log ;;
*) echo "usage: run.sh validation|bikes|time OLD" >&2; exit 2 ;;
esac
