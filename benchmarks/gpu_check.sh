#!/usr/bin/env bash
# One-shot check on a GPU machine (an H200 with CuPy already installed, no network):
# install the package from this checkout, run the whole test suite (the GPU tests run there
# instead of skipping), then the CUDA benchmark and the evaluator benchmark.
# Output goes to the terminal and, when $OUT is set, to $OUT/*.log. Finishes in a few minutes.
#
#   bash benchmarks/gpu_check.sh            # PYTHON=python3.12 to choose the interpreter
set -uo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python}"
LOGDIR="${OUT:-}"
[ -n "$LOGDIR" ] && mkdir -p "$LOGDIR"

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
"$PY" -c "import gpu_eval._cuda as c; print('cuda_available:', c.cuda_available())" 2>&1 \
    | log gpu_check

echo "== pytest" | log pytest
timeout 180 "$PY" -m pytest -q -ra -p no:cacheprovider tests/ 2>&1 | log pytest
rc=${PIPESTATUS[0]}
[ "$rc" -ne 0 ] && status=$rc

echo "== benchmarks/bench_cuda.py" | log bench
timeout 75 "$PY" benchmarks/bench_cuda.py 2>&1 | log bench
rc=${PIPESTATUS[0]}
[ "$rc" -ne 0 ] && [ "$status" -eq 0 ] && status=$rc

if [ -f benchmarks/bench_evaluate.py ]; then
    echo "== benchmarks/bench_evaluate.py" | log bench
    timeout 45 "$PY" benchmarks/bench_evaluate.py --n 4000000 --repeats 3 2>&1 | log bench
fi

echo "== gpu_check exit status $status" | log gpu_check
exit "$status"
