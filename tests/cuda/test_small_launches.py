"""benchmarks/gpu_small_launches.py on a real GPU: every kernel once, each result checked
against NumPy (the same script gpu_check.sh runs under compute-sanitizer). A device test only
(its launches take minutes of host-built kernels on the stand-in; the sanitizer job,
tests/emulation/sanitize.py, covers every kernel there).
"""

from __future__ import annotations

import sys
from pathlib import Path


def test_every_kernel_once_on_the_device(gpu):
    gpu.only_real("every kernel at sizes for a device")
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    try:
        import gpu_small_launches
    finally:
        sys.path.pop(0)
    gpu_small_launches.every_kernel()
