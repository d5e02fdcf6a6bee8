"""benchmarks/gpu_small_launches.py on a real GPU: every case of its manifest (every kernel,
bad inputs included), each result checked against the stored NumPy answer (the same cases
gpu_check.sh runs under compute-sanitizer). Skips without a GPU.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from gpu_eval.cuda import availability

OK, REASON = availability.cuda_available()
pytestmark = pytest.mark.skipif(not OK, reason=REASON)


def test_every_case_on_the_device():
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    try:
        import gpu_small_launches
    finally:
        sys.path.pop(0)
    assert gpu_small_launches.run(gpu_small_launches.cases()) == 0
