#!/usr/bin/env bash
# The checks only a GPU machine can make, as one script: the CUDA tests, the whole suite with `auto` devices
# meaning the GPU, and the speed and bf16-vs-fp32 quality of the models, `clean` and training on the GPU.
# Each step has its own time limit, so one that hangs leaves the others their time.
#
#   bash benchmarks/gpu_checks.sh OUT [WHEELS] [CACHE]
#
# OUT: a folder for the logs (at most 8 files). WHEELS: a folder of wheels to install first (--no-deps,
# --no-index: for a machine that cannot reach a registry, e.g. av, cooper-optim and PyWavelets built for its
# Python). CACHE: a VIDEODENOISE_CACHE holding samples/ (bikes, carphone), for the same reason.
# Results of a run: benchmarks/results/gpu/.
set -u
out=${1:?usage: gpu_checks.sh OUT [WHEELS] [CACHE]}
mkdir -p "$out"
python=${PYTHON:-python3}
if [ -n "${2:-}" ]; then "$python" -m pip install --quiet --no-deps --no-index "$2"/*.whl 2>&1 | tail -2; fi
if [ -n "${3:-}" ]; then export VIDEODENOISE_CACHE=$3; fi
export PYTHONPATH=$PWD PYTHONUNBUFFERED=1
F=videodenoise/checkpoints/dust-video.safetensors  # the fast preset's weights
B=videodenoise/checkpoints/dust-video-wide.safetensors  # best's

step() {  # step SECONDS LOG COMMAND...: run COMMAND under a time limit, its output to the terminal and LOG
    local limit=$1 log=$2
    shift 2
    echo "== $* (limit ${limit}s)" | tee -a "$out/$log"
    local start=$SECONDS
    timeout "$limit" "$@" 2>&1 | tee -a "$out/$log"
    echo "== rc ${PIPESTATUS[0]} in $((SECONDS - start)) s" | tee -a "$out/$log"
}

{
    nvidia-smi -L
    "$python" -c "import torch, av, cooper; print('torch', torch.__version__, 'cuda', torch.version.cuda, \
torch.cuda.get_device_name(0)); print('av', av.__version__, 'cooper', cooper.__version__)"
    nproc
} 2>&1 | tee "$out/machine.log"

step 100 cuda-tests.log "$python" -m pytest -q -p no:cacheprovider tests/test_cuda.py
# one thread per worker: 16 workers of 16 threads each ran a third of the suite in 120 s
step 150 suite.log env OMP_NUM_THREADS=1 "$python" -m pytest -q -p no:cacheprovider -n 16 --timeout 90 -rfE --tb=short \
    --ignore tests/test_cuda.py tests
step 45 models.log "$python" benchmarks/bench_models.py --device cuda --frames 5 --repeats 5 --precisions fp32,bf16 \
    --token-sets temporal,aligned
step 240 quality.log "$python" benchmarks/bench_quality.py --device cuda --frames 8 --sigmas 10,25,50 \
    --methods models --modes known --out /tmp/gpu-quality \
    --checkpoint "fast-fp32=$F,precision=fp32" --checkpoint "fast-bf16=$F,precision=bf16" \
    --checkpoint "best-fp32=$B,quality=best,precision=fp32" --checkpoint "best-bf16=$B,quality=best,precision=bf16"
cp /tmp/gpu-quality/quality.csv "$out/quality.csv" 2>/dev/null
step 120 clean.log "$python" benchmarks/bench_clean.py --parts 1 --frames 30 --long-frames 100
step 30 training.log "$python" benchmarks/bench_training.py --timing-only --device cuda
