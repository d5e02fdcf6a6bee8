"""benchmarks/gpu_small_launches.py on a real GPU: every kernel once, each result checked
against NumPy (the same script gpu_check.sh runs under compute-sanitizer). Skips without a GPU.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from gpu_eval.cuda import availability

OK, REASON = availability.cuda_available()
pytestmark = pytest.mark.skipif(not OK, reason=REASON)


def test_every_kernel_once_on_the_device():
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    try:
        import gpu_small_launches
    finally:
        sys.path.pop(0)
    gpu_small_launches.every_kernel()
