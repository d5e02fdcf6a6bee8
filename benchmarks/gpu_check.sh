#!/usr/bin/env bash
# The one call that checks gpu_eval on a GPU machine (an H200 with CuPy, NumPy and pytest, no
# network), and whose account of itself can be trusted:
#
#   * it fits its budget by construction: every step has a cap, and the caps (plus each
#     step's kill grace and the report's own cap) add up to no more than the budget, checked
#     before anything runs;
#   * every step is recorded -- exit status, timed out or not, seconds -- with the figures, in
#     ONE file, $OUT/gpu_check.json (its full output goes to $OUT/gpu_check.log);
#   * any failed or timed-out step makes the script exit 1; a step that could not run for a
#     reason outside the package (a profiler this machine lacks or refuses) is "skipped" with
#     the reason and makes the run "incomplete", exit 2; exit 0 means every step ran and passed.
#
# Plans (each fits the budget alone; two device calls run both):
#   check (default): warm every module in parallel (gpu-eval compile), the newest kernels' GPU
#         tests, the other GPU tests, compute-sanitizer memcheck and racecheck over the manifest
#         of every kernel (benchmarks/gpu_small_launches.py, newest modules first), Nsight
#         Compute over the main kernels, the figures (benchmarks/gpu_figures.py: CUDA events
#         around device-resident launches, wall clock around public calls, medians of >= 3).
#   bench: the benchmark scripts' GPU rows (range reports included: bench_report.py --gpu)
#         and synccheck.
#
#   bash benchmarks/gpu_check.sh [--plan check|bench] [--dry-run]
#
# --dry-run runs the same steps on the stand-in device (tests/emulation/fake_cupy/ as `cupy`,
# through benchmarks/dry_run/site), with compute-sanitizer, ncu and nvidia-smi replaced by
# stubs that record their calls, at small sizes; tests/package/test_gpu_check.py runs it in CI.
# The stand-in is slow per launch, so a dry run multiplies every cap and the budget by the same
# factor (4: the arithmetic is the device run's, recorded as cap_scale).
# Environment: OUT (where the JSON and log go; default ./gpu_check_out), PYTHON (default
# python3), GPU_CHECK_BUDGET (seconds, default 290), GPU_CHECK_ONLY=NAME,NAME (run only these
# steps of the plan; the others are recorded as not run). For the tests only:
# GPU_CHECK_FAIL_STEP=NAME makes that step fail; GPU_CHECK_STALL_STEP=NAME:SECONDS makes it
# hang past a cap of SECONDS.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 2

# ---- the GPU tests: the pytest arguments that select them (every test body's real-device
# instance, the `device` marker: tests/conftest.py's gpu fixture) ----
GPU_TESTS="-m device tests"
# The files of the newest kernels' tests, whose device instances run first (the likeliest to
# fail on a first device).
NEWEST_GPU_TESTS="tests/range_reports/test_report_cuda.py
tests/equity_engine/deals/test_cuda_deals_emulated.py
tests/equity_engine/board_games/test_cuda_games_emulated.py
tests/equity_engine/batch/test_batch_cuda.py
tests/solver_tables/test_solver_tables_cuda.py
tests/solver_tables/test_hand_indexer_cuda.py
tests/games/test_lows.py
tests/cuda/test_small_launches.py"

PLAN=check
DRY_RUN=0
while [ "$#" -gt 0 ]; do
    case "$1" in
        --dry-run) DRY_RUN=1 ;;
        --plan) PLAN=${2:-}; shift ;;
        --plan=*) PLAN=${1#--plan=} ;;
        *) echo "gpu_check.sh: unknown argument $1 (--plan check|bench, --dry-run)" >&2; exit 2 ;;
    esac
    shift
done

BUDGET=${GPU_CHECK_BUDGET:-290}
KILL_GRACE=2     # seconds a step gets after SIGTERM before SIGKILL (counted in the budget)
REPORT_CAP=5     # the report's own cap (counted in the budget)
SCALE=1          # caps and budget multiplied by this (a dry run: 4)
[ "$DRY_RUN" = 1 ] && SCALE=4
ONLY=",${GPU_CHECK_ONLY:-},"
OUT=${OUT:-$ROOT/gpu_check_out}
mkdir -p "$OUT"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/gpu_check.XXXXXX")
LOG="$OUT/gpu_check.log"
: >"$LOG"
STEPS_TSV="$WORK/steps.tsv"
: >"$STEPS_TSV"
mkdir -p "$WORK/figures"
export ROOT WORK DRY_RUN GPU_TESTS NEWEST_GPU_TESTS
export REFUSALS="Device not supported|LibraryNotLoaded|Failed to initialize the profiler|ERR_NVGPUCTRPERM"
export PY=${PYTHON:-python3}
export GPU_CHECK_PY=$PY
export PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONUNBUFFERED=1

if [ "$DRY_RUN" = 1 ]; then  # the stand-in device and stub tools
    mkdir -p "$WORK/bin"
    for tool in compute-sanitizer ncu nvidia-smi; do
        printf '#!/usr/bin/env bash\nexec bash %q %s "$@"\n' \
            "$ROOT/benchmarks/dry_run/stub_tool.sh" "$tool" >"$WORK/bin/$tool"
        chmod +x "$WORK/bin/$tool"
    done
    export PATH="$WORK/bin:$PATH"
    export GPU_CHECK_STUB_CALLS="$WORK/stub_calls.jsonl"
    : >"$GPU_CHECK_STUB_CALLS"
    export PYTHONPATH="$ROOT/benchmarks/dry_run/site:$PYTHONPATH"
    export GPU_EVAL_STAND_IN_DEVICE=1
fi

# ---- the steps: each a function; its output goes to the log; it may write figures to
# $STEP_FIGURES (JSON) and, to be recorded as skipped, a reason to $STEP_SKIP ----
skip() { echo "$*" >"$STEP_SKIP"; echo "skipped: $*"; exit 0; }

step_env() {
    date -u +%FT%TZ
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
    "$PY" - <<'EOF'
import json, os, sys
import numpy, cupy
from gpu_eval.cuda import availability, kernel_cache
ok, why = availability.cuda_available()
info = {"python": sys.version.split()[0], "numpy": numpy.__version__,
        "cupy": getattr(cupy, "__version__", "stand-in"), "cuda_available": ok, "devices": why,
        "kernel_cache": str(kernel_cache.cache_dir())}
print(json.dumps(info))
json.dump(info, open(os.environ["STEP_FIGURES"], "w"))
sys.exit(0 if ok else 1)
EOF
}

step_compile() {  # every module, in parallel processes, for the device (dry run: two small
    # modules for sm_90 into a scratch cache: NVRTC is real, the device is not)
    if [ "$DRY_RUN" = 1 ]; then
        GPU_EVAL_STAND_IN_DEVICE=0 GPU_EVAL_CACHE_DIR="$WORK/cache" \
            "$PY" -m gpu_eval.cli compile --arch sm_90 --module lows --module fsm --no-progress
    else
        "$PY" -m gpu_eval.cli compile --no-progress
    fi
}

pytest_step() {  # pytest_step ARGS...: the GPU tests (dry run: collected, not run)
    local collect=()
    # A dry run collects without rewriting the asserts (nothing runs; half the collection's CPU).
    [ "$DRY_RUN" = 1 ] && collect=(--collect-only --assert=plain)
    # One process (-n 0): on a device the tests share one GPU (tests/conftest.py picks no
    # workers there anyway); in a dry run two workers would each collect the suite again.
    # shellcheck disable=SC2068
    "$PY" -m pytest -q -ra -p no:cacheprovider -n 0 "${collect[@]}" $@
}

step_tests_newest() {
    # shellcheck disable=SC2086
    pytest_step -m device $NEWEST_GPU_TESTS
}

step_tests_gpu() {  # the other GPU tests
    local ignore="" f
    for f in $NEWEST_GPU_TESTS; do ignore="$ignore --ignore=$f"; done
    # shellcheck disable=SC2086
    pytest_step $GPU_TESTS $ignore
}

# A tool that cannot work on this machine (REFUSALS: gVisor's "Device not supported", no
# counters) is a skip with its words as the reason; anything else it says is the step's result.
sanitizer() {  # sanitizer TOOL: the manifest of every kernel, newest modules first
    local tool=$1 exe only=() rc
    exe=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
    [ -n "$exe" ] || skip "compute-sanitizer not found on this machine"
    [ "$DRY_RUN" = 1 ] && only=(--only "exact, 2 players")
    "$exe" --tool "$tool" --error-exitcode 9 --print-limit 20 \
        "$PY" benchmarks/gpu_small_launches.py --newest-first "${only[@]}" 2>&1 \
        | tee "$WORK/$tool.out"
    rc=${PIPESTATUS[0]}
    if [ "$rc" -ne 0 ] && [ "$rc" -ne 9 ] && grep -qE "$REFUSALS" "$WORK/$tool.out"; then
        skip "compute-sanitizer refused: $(grep -m1 -E "$REFUSALS" "$WORK/$tool.out")"
    fi
    return "$rc"
}
step_memcheck() { sanitizer memcheck; }
step_racecheck() { sanitizer racecheck; }
step_synccheck() { sanitizer synccheck; }

step_ncu() {  # Nsight Compute over the main kernels, one launch each
    local exe small=() filter rc
    exe=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null)
    [ -n "$exe" ] || skip "ncu (Nsight Compute) not found on this machine"
    [ "$DRY_RUN" = 1 ] && small=(--small)
    filter=$("$PY" benchmarks/gpu_small_launches.py --ncu-filter) || return 1
    "$exe" --clock-control none --kernel-name "$filter" --launch-count 60 --csv --page raw \
        --metrics gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread \
        --log-file "$WORK/ncu.csv" \
        "$PY" benchmarks/gpu_small_launches.py --profile "${small[@]}" 2>&1 | tee "$WORK/ncu.out"
    rc=${PIPESTATUS[0]}
    [ -f "$WORK/ncu.csv" ] && cat "$WORK/ncu.csv"
    if [ "$rc" -ne 0 ] && cat "$WORK/ncu.out" "$WORK/ncu.csv" 2>/dev/null | grep -qE "$REFUSALS"
    then
        skip "ncu refused: $(cat "$WORK/ncu.out" "$WORK/ncu.csv" 2>/dev/null | grep -m1 -E "$REFUSALS")"
    fi
    return "$rc"
}

step_figures() {
    local small=()
    [ "$DRY_RUN" = 1 ] && small=(--small)
    "$PY" benchmarks/gpu_figures.py --repeats 3 --json "$STEP_FIGURES" "${small[@]}"
}

bench() {  # bench SCRIPT ARGS...: a benchmark script's GPU rows (dry run: --help only)
    if [ "$DRY_RUN" = 1 ]; then "$PY" "$1" --help >/dev/null; else "$PY" "$@"; fi
}
step_bench_cuda() { bench benchmarks/bench_cuda.py --n 67108864 --host-n 16777216 --repeats 3; }
step_bench_equity() { bench benchmarks/bench_equity.py --gpu-only --repeat 3; }
step_bench_variants() { bench benchmarks/bench_variants.py --gpu-only --gpu-n 16777216 --repeats 3; }
step_bench_games() { bench benchmarks/bench_games.py --gpu --repeat 3 --samples 200000; }
step_bench_tables() {
    bench benchmarks/bench_tables.py --rows none --gpu --gpu-tables --gpu-n 16777216 \
        --boards 20000 --repeats 3
}
step_interop() { bench benchmarks/gpu_interop.py --n 16777216 --repeats 5; }
# Range reports (kernels/range_report.cu): three flops of two 1,000-combo ranges (integers
# checked against NumPy's) and every turn of one. Every flop (paper estimate 5-10 s, host-bound)
# does not fit the plan's budget: `python benchmarks/bench_report.py --gpu` by hand.
step_bench_report() { bench benchmarks/bench_report.py --gpu --repeat 3 --skip-flops; }

# ---- the plans: NAME CAP lines (seconds); the caps, each step's kill grace and the report's
# cap add up to no more than the budget, or nothing runs ----
case "$PLAN" in
    check) STEPS="env 10
compile 33
tests_newest 38
tests_gpu 23
memcheck 60
racecheck 60
ncu 22
figures 23" ;;
    bench) STEPS="env 10
compile 20
synccheck 45
bench_cuda 40
bench_equity 35
bench_variants 20
bench_games 30
bench_tables 35
interop 15
bench_report 14" ;;
    *) echo "gpu_check.sh: unknown plan $PLAN (check, bench)" >&2; exit 2 ;;
esac
export -f skip pytest_step sanitizer bench $(compgen -A function step_)

worst=$REPORT_CAP
while read -r name cap; do worst=$((worst + cap + KILL_GRACE)); done <<<"$STEPS"
echo "== gpu_check plan $PLAN$([ "$DRY_RUN" = 1 ] && echo " (dry run, caps x$SCALE)"): worst" \
     "case ${worst}s of a ${BUDGET}s budget; log $LOG" | tee -a "$LOG"

run_step() {  # run_step NAME CAP: run step_NAME under its cap (x SCALE); one line in steps.tsv
    local name=$1 cap=$(($2 * SCALE)) cmd="step_$1" start end rc timed_out status reason=""
    if [ "$ONLY" != ",," ] && [[ "$ONLY" != *",$name,"* ]]; then
        printf '%s\t%s\t-1\tfalse\t0\t0\tnot_run\tnot in GPU_CHECK_ONLY\n' "$name" "$cap" \
            >>"$STEPS_TSV"
        return
    fi
    if [ "${GPU_CHECK_FAIL_STEP:-}" = "$name" ]; then
        cmd='echo "failing on purpose (GPU_CHECK_FAIL_STEP)"; exit 1'
    elif [ "${GPU_CHECK_STALL_STEP:-}" != "" ] && [ "${GPU_CHECK_STALL_STEP%%:*}" = "$name" ]; then
        cap=${GPU_CHECK_STALL_STEP#*:}
        cmd='echo "hanging on purpose (GPU_CHECK_STALL_STEP)"; exec sleep 3600'
    fi
    export STEP_FIGURES="$WORK/figures/$name.json" STEP_SKIP="$WORK/skip.$name"
    echo "== step $name (cap ${cap}s) $(date -u +%T)" >>"$LOG"
    start=$(date +%s.%N)
    timeout --kill-after="$KILL_GRACE" "$cap" bash -c "$cmd" >>"$LOG" 2>&1 </dev/null
    rc=$?
    end=$(date +%s.%N)
    timed_out=false  # 124: timeout's TERM; 137: its KILL after the grace, or another kill
    if [ "$rc" -eq 124 ] || { [ "$rc" -eq 137 ] && awk "BEGIN { exit !($end - $start >= $cap) }"; }
    then timed_out=true; fi
    if [ "$timed_out" = true ]; then status=timed_out
    elif [ "$rc" -ne 0 ]; then status=failed
    elif [ -s "$STEP_SKIP" ]; then status=skipped; reason=$(head -c 300 "$STEP_SKIP" | tr '\t\n' '  ')
    else status=ok
    fi
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$cap" "$rc" "$timed_out" "$start" "$end" \
        "$status${reason:+	$reason}" >>"$STEPS_TSV"
    printf '%-13s %-9s rc %-3s %6.1f s (cap %s s)%s\n' "$name" "$status" "$rc" \
        "$(awk "BEGIN { print $end - $start }")" "$cap" "${reason:+: $reason}"
}

if [ "$worst" -gt "$BUDGET" ]; then
    echo "gpu_check.sh: the $PLAN plan's caps need ${worst}s, over the ${BUDGET}s budget: nothing run" \
        | tee -a "$LOG" >&2
    over=1
else
    over=0
    while read -r name cap; do run_step "$name" "$cap"; done <<<"$STEPS"
fi

timeout $((REPORT_CAP * SCALE)) "$PY" benchmarks/gpu_check_report.py --steps "$STEPS_TSV" \
    --plan-steps "$STEPS" --work "$WORK" --out "$OUT/gpu_check.json" --plan "$PLAN" \
    --dry-run "$DRY_RUN" --budget "$BUDGET" --kill-grace "$KILL_GRACE" \
    --report-cap "$REPORT_CAP" --over-budget "$over" --cap-scale "$SCALE"
status=$?
rm -rf "$WORK"
exit "$status"
