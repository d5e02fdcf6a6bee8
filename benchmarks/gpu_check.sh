#!/usr/bin/env bash
# One-shot check on a GPU machine (an H200 with CuPy already installed, no network):
# install the package from this checkout, run the whole test suite (the GPU tests run there
# instead of skipping), then the CUDA, evaluator, equity and variants (GPU rows) benchmarks.
# Output goes to the terminal and, when $OUT is set, to $OUT/*.log. Finishes within 5 minutes:
# every step's timeout is also capped by what is left of a 290 s budget.
#
#   bash benchmarks/gpu_check.sh            # PYTHON=python3.12 to choose the interpreter
set -uo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python}"
LOGDIR="${OUT:-}"
[ -n "$LOGDIR" ] && mkdir -p "$LOGDIR"

DEADLINE=$((SECONDS + 290))
budget() {  # budget N: N seconds, or what is left before the deadline if that is less
    local left=$((DEADLINE - SECONDS))
    [ "$left" -lt 1 ] && left=1
    [ "$1" -lt "$left" ] && echo "$1" || echo "$left"
}

log() {  # log NAME: tee stdin into $OUT/NAME.log when OUT is set
    if [ -n "$LOGDIR" ]; then tee -a "$LOGDIR/$1.log"; else cat; fi
}

status=0
{
    echo "== $(date -u +%FT%TZ) gpu_check on $(hostname)"
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>&1 || true
    "$PY" -c "import sys, numpy, cupy; print('python', sys.version.split()[0], '| numpy',
numpy.__version__, '| cupy', cupy.__version__, '| devices', cupy.cuda.runtime.getDeviceCount())"
} 2>&1 | log gpu_check

# No network and no build isolation: setuptools must already be installed.
"$PY" -m pip install --no-deps --no-build-isolation -q -e . 2>&1 | tail -5 | log gpu_check
"$PY" -c "import gpu_eval.cuda.holdem as c; print('cuda_available:', c.cuda_available())" 2>&1 \
    | log gpu_check

echo "== pytest" | log pytest
# (The equity GPU tests, tests/test_cuda_equity_gpu.py, run here with the rest.)
timeout "$(budget 170)" "$PY" -m pytest -q -ra -p no:cacheprovider tests/ 2>&1 | log pytest
rc=${PIPESTATUS[0]}
[ "$rc" -ne 0 ] && status=$rc

echo "== benchmarks/bench_cuda.py" | log bench
timeout "$(budget 60)" "$PY" benchmarks/bench_cuda.py 2>&1 | log bench
rc=${PIPESTATUS[0]}
[ "$rc" -ne 0 ] && [ "$status" -eq 0 ] && status=$rc

if [ -f benchmarks/bench_evaluate.py ]; then
    echo "== benchmarks/bench_evaluate.py" | log bench
    timeout "$(budget 30)" "$PY" benchmarks/bench_evaluate.py --n 4000000 --repeats 3 2>&1 \
        | log bench
fi

echo "== benchmarks/bench_equity.py --gpu-only" | log bench
timeout "$(budget 45)" "$PY" benchmarks/bench_equity.py --gpu-only --repeat 3 2>&1 | log bench
rc=${PIPESTATUS[0]}
[ "$rc" -ne 0 ] && [ "$status" -eq 0 ] && status=$rc

if [ -f benchmarks/bench_variants.py ]; then
    echo "== benchmarks/bench_variants.py --gpu-only" | log bench
    timeout "$(budget 40)" "$PY" benchmarks/bench_variants.py --gpu-only --gpu-n 16777216 \
        --repeats 3 2>&1 | log bench
fi

echo "== gpu_check exit status $status" | log gpu_check
exit "$status"
