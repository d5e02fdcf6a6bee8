#!/usr/bin/env bash
# One-shot check on a GPU machine (an H200 with CuPy already installed, no network), all in
# one call of under 5 minutes (a 290 s budget; every step's timeout is capped by what is left):
#   1. install the package from this checkout (no network: --no-deps --no-build-isolation);
#   2. the GPU tests (tests/*_gpu.py) first;
#   3. the GPU benchmarks (bench_cuda, bench_equity --gpu-only, bench_variants --gpu-only, bench_games --gpu,
#      gpu_interop: torch / JAX / Numba arrays in and out;
#      bench_tables --gpu, and --gpu-tables: board strengths and the whole river table);
#   4. compute-sanitizer (memcheck, racecheck, synccheck) on one small launch of every kernel
#      (benchmarks/gpu_small_launches.py), and Nsight Compute (ncu --clock-control none) on the
#      evaluation, enumeration and all-pairs kernels; each skipped with a message where the
#      tool is missing or refuses (no permission for the counters, ...);
#   5. ptxas figures of every kernel (registers, spills: python -m gpu_eval.cuda.resources);
#   6. the rest of the test suite, with the time left.
# Output goes to the terminal and, when $OUT is set, to $OUT/*.log.
#
#   bash benchmarks/gpu_check.sh            # PYTHON=python3.12 to choose the interpreter
set -uo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python}"
LOGDIR="${OUT:-}"
[ -n "$LOGDIR" ] && mkdir -p "$LOGDIR"

DEADLINE=$((SECONDS + ${GPU_CHECK_BUDGET:-290}))  # GPU_CHECK_BUDGET: for dry runs
budget() {  # budget N: N seconds, or what is left before the deadline if that is less
    local left=$((DEADLINE - SECONDS))
    [ "$left" -lt 1 ] && left=1
    [ "$1" -lt "$left" ] && echo "$1" || echo "$left"
}
left() { echo $((DEADLINE - SECONDS)); }

log() {  # log NAME: tee stdin into $OUT/NAME.log when OUT is set
    if [ -n "$LOGDIR" ]; then tee -a "$LOGDIR/$1.log"; else cat; fi
}

status=0
note_rc() {  # note_rc RC WHAT: remember the first failure (a timeout, 124, is reported too)
    if [ "$1" -eq 124 ]; then
        echo "== $2: stopped by its time budget" | log gpu_check
    elif [ "$1" -ne 0 ]; then
        echo "== $2: exit status $1" | log gpu_check
        [ "$status" -eq 0 ] && status=$1
    fi
}

{
    echo "== $(date -u +%FT%TZ) gpu_check on $(hostname)"
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>&1 || true
    "$PY" -c "import sys, numpy, cupy; print('python', sys.version.split()[0], '| numpy',
numpy.__version__, '| cupy', cupy.__version__, '| devices', cupy.cuda.runtime.getDeviceCount())"
} 2>&1 | log gpu_check

# No network and no build isolation: setuptools must already be installed.
"$PY" -m pip install --no-deps --no-build-isolation -q -e . 2>&1 | tail -5 | log gpu_check
"$PY" -c "import gpu_eval.cuda.availability as c; print('cuda_available:', c.cuda_available())" 2>&1 \
    | log gpu_check

# --- 2. GPU tests first ---------------------------------------------------------------------
GPU_TESTS="-m device tests"  # every test body's real-device instance (tests/conftest.py: gpu)
echo "== pytest (GPU tests): $GPU_TESTS" | log pytest
timeout "$(budget 90)" "$PY" -m pytest -q -ra -p no:cacheprovider $GPU_TESTS 2>&1 | log pytest
note_rc "${PIPESTATUS[0]}" "GPU tests"

# --- 3. GPU benchmarks ----------------------------------------------------------------------
echo "== benchmarks/bench_cuda.py" | log bench
timeout "$(budget 45)" "$PY" benchmarks/bench_cuda.py --n 67108864 --host-n 16777216 --repeats 3 2>&1 | log bench
note_rc "${PIPESTATUS[0]}" "bench_cuda"

echo "== benchmarks/bench_equity.py --gpu-only" | log bench
timeout "$(budget 35)" "$PY" benchmarks/bench_equity.py --gpu-only --repeat 3 2>&1 | log bench
note_rc "${PIPESTATUS[0]}" "bench_equity"

if [ -f benchmarks/bench_variants.py ]; then
    echo "== benchmarks/bench_variants.py --gpu-only" | log bench
    timeout "$(budget 15)" "$PY" benchmarks/bench_variants.py --gpu-only --gpu-n 16777216 \
        --repeats 3 2>&1 | log bench
    note_rc "${PIPESTATUS[0]}" "bench_variants"
fi

if [ -f benchmarks/bench_games.py ]; then
    echo "== benchmarks/bench_games.py --gpu" | log bench
    timeout "$(budget 40)" "$PY" benchmarks/bench_games.py --gpu --repeat 3 --samples 200000 \
        2>&1 | log bench
fi

# DLPack / CUDA array interface: CuPy, and torch / JAX / Numba where installed: the same
# pointer in and out, the result's kind and device, no host round trip, the adoption's cost.
echo "== benchmarks/gpu_interop.py" | log bench
timeout "$(budget 25)" "$PY" benchmarks/gpu_interop.py --n 16777216 --repeats 5 2>&1 | log bench
note_rc "${PIPESTATUS[0]}" "gpu_interop"
if [ -f benchmarks/bench_tables.py ]; then
    echo "== benchmarks/bench_tables.py --rows none --gpu (hand indexer kernel)" | log bench
    timeout "$(budget 25)" "$PY" benchmarks/bench_tables.py --rows none --gpu --gpu-n 67108864 \
        --repeats 3 2>&1 | log bench
    note_rc "${PIPESTATUS[0]}" "bench_tables"
    echo "== benchmarks/bench_tables.py --rows none --gpu --gpu-tables (board strengths, river" \
         "table)" | log bench
    timeout "$(budget 45)" "$PY" benchmarks/bench_tables.py --rows none --gpu --gpu-tables \
        --gpu-n 1048576 --boards 20000 --repeats 3 2>&1 | log bench
    note_rc "${PIPESTATUS[0]}" "bench_tables (solver tables)"
fi
# Heads-up third-street stud, exact (18,265,297,050 deals, 2.7e10 deal pairs) on the device
# (kernels/equity_deals.cu's grid): stud, stud hi/lo (sampled on NumPy) and razz, against the
# paper estimate (deals.CUDA_RATE, 2e10 pairs/s: about 1.3 s each; the issue's bound is 60 s),
# and the NumPy inclusion-exclusion of the same stud spot for the ratio.
echo "== stud third street AhKh3c vs QsQd7h, exact on cuda" | log bench
timeout "$(budget 40)" "$PY" - <<'PYEOF' 2>&1 | log bench
import time
import gpu_eval as ge
from gpu_eval.equity_engine.deals import numpy_engine as deals
players = ["AhKh3c", "QsQd7h"]
ge.equity(["Ah2h3h4h5h", "Kh2d3d4d5d"], game="razz", backend="cuda")  # compile, upload
for game in ("stud", "stud-hilo", "razz"):
    job = deals.plan(players, game=game, backend="cuda")
    t = time.perf_counter(); r = ge.equity(players, game=game, backend="cuda"); dt = time.perf_counter() - t
    print(f"{game} 3rd street exact on cuda: {r.boards:,} deals, {job.work:.3g} pairs in {dt:.3f} s "
          f"({job.work / dt:.3g} pairs/s; paper {job.seconds:.2f} s; {r.method}, backend {r.backend})",
          r.equity.round(9).tolist())
t = time.perf_counter(); r = ge.equity(players, game="stud", backend="numpy"); dt = time.perf_counter() - t
print(f"stud 3rd street exact on numpy: {dt:.3f} s ({r.method})", r.equity.round(9).tolist())
PYEOF

# --- 4. compute-sanitizer and Nsight Compute -------------------------------------------------
SANITIZER=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
if [ -z "$SANITIZER" ]; then
    echo "== compute-sanitizer: not found on this machine, skipped" | log sanitizer
else
    for tool in memcheck racecheck synccheck; do
        if [ "$(left)" -lt 15 ]; then
            echo "== compute-sanitizer --tool $tool: skipped, under 15 s left" | log sanitizer
            continue
        fi
        echo "== compute-sanitizer --tool $tool (every kernel, one small launch each)" \
            | log sanitizer
        timeout "$(budget 20)" "$SANITIZER" --tool "$tool" --error-exitcode 9 \
            --print-limit 20 "$PY" benchmarks/gpu_small_launches.py 2>&1 | log sanitizer
        rc=${PIPESTATUS[0]}
        if [ "$rc" -eq 9 ]; then
            note_rc 9 "compute-sanitizer $tool found errors"
        elif [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ]; then
            echo "== compute-sanitizer --tool $tool refused or failed (exit $rc), see above" \
                | log sanitizer
        else
            note_rc "$rc" "compute-sanitizer $tool"
        fi
    done
fi

NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null)
if [ -z "$NCU" ]; then
    echo "== ncu: Nsight Compute not found on this machine, skipped" | log ncu
elif [ "$(left)" -lt 20 ]; then
    echo "== ncu: skipped, under 20 s left" | log ncu
else
    echo "== ncu --clock-control none (evaluation, enumeration, all-pairs)" | log ncu
    timeout "$(budget 30)" "$NCU" --clock-control none \
        --kernel-name 'regex:^ge_(check_)?eval_(masks|ids)$|^ge_enumerate_counts$|^ge_eq_pairs$' \
        --launch-count 6 --section SpeedOfLight --section Occupancy --section LaunchStats \
        "$PY" benchmarks/gpu_small_launches.py --profile 2>&1 | log ncu
    rc=${PIPESTATUS[0]}
    if [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ]; then
        echo "== ncu refused or failed (exit $rc; ERR_NVGPUCTRPERM means no permission" \
             "for the performance counters), see above" | log ncu
    fi
fi

# --- 5. ptxas figures (CPU only: NVRTC) ------------------------------------------------------
echo "== ptxas figures (python -m gpu_eval.cuda.resources)" | log ptxas
timeout "$(budget 30)" "$PY" -m gpu_eval.cuda.resources sm_90 2>&1 | log ptxas
note_rc "${PIPESTATUS[0]}" "ptxas report (exit 1: a kernel spills)"

# --- 6. the rest of the suite, with the time left -------------------------------------------
IGNORE=""
for f in $GPU_TESTS; do IGNORE="$IGNORE --ignore=$f"; done
if [ "$(left)" -lt 10 ]; then
    echo "== pytest (rest of the suite): skipped, under 10 s left" | log pytest
else
    echo "== pytest (rest of the suite, $(left) s left)" | log pytest
    # shellcheck disable=SC2086
    timeout "$(budget 290)" "$PY" -m pytest -q -ra -p no:cacheprovider tests/ $IGNORE 2>&1 \
        | log pytest
    note_rc "${PIPESTATUS[0]}" "rest of the suite"
fi


echo "== gpu_check exit status $status ($SECONDS s)" | log gpu_check
exit "$status"
