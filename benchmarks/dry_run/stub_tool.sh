#!/usr/bin/env bash
# A stand-in for a GPU tool in `gpu_check.sh --dry-run`: records that it was called (one line of
# JSON in $GPU_CHECK_STUB_CALLS: the tool and its arguments) and, for compute-sanitizer and
# ncu, runs the program they would have run (everything from the first argument equal to
# $GPU_CHECK_PY on), so the step's own program is exercised on the stand-in device.
# GPU_CHECK_STUB_REFUSE=TOOL makes that tool refuse the device as compute-sanitizer does under
# gVisor (for the test of gpu_check.sh's skips).
#   stub_tool.sh TOOL ARGS...
set -u
tool=$1
shift
# -I (isolated): PYTHONPATH is ignored, so the stand-in's sitecustomize (NumPy and the stand-in
# CuPy, a third of a second) is not imported just to write this line.
"${GPU_CHECK_PY:-python3}" -I - "$tool" "$@" >>"${GPU_CHECK_STUB_CALLS:-/dev/null}" <<'EOF'
import json, sys
print(json.dumps({"tool": sys.argv[1], "args": sys.argv[2:]}))
EOF
if [ "${GPU_CHECK_STUB_REFUSE:-}" = "$tool" ]; then
    echo "========= Error: Device not supported (stub $tool, GPU_CHECK_STUB_REFUSE)"
    exit 1
fi
case "$tool" in
    nvidia-smi)
        echo "Stand-in device (gpu_check --dry-run), 0.0, 0 MiB"
        exit 0 ;;
    compute-sanitizer | ncu)
        while [ "$#" -gt 0 ] && [ "$1" != "${GPU_CHECK_PY:-python3}" ]; do shift; done
        [ "$#" -gt 0 ] || { echo "stub $tool: no program to run" >&2; exit 2; }
        exec "$@" ;;
    *)
        echo "stub_tool: unknown tool $tool" >&2
        exit 2 ;;
esac
