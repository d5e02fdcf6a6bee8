"""ge.equity_batch on a real GPU (gpu_eval.equity_engine.batch.cuda_engine) against the NumPy path
(docs/architecture.md:
testing, way 3). Every test here is skipped, with the reason, unless CuPy imports and sees a
CUDA device; without one, tests/equity_engine/batch/test_batch_cuda.py runs the same kernels on the CPU.
"""

from __future__ import annotations

import numpy as np
import pytest
from batch_spots import random_spots

import gpu_eval as ge
from gpu_eval.cuda import availability
from gpu_eval.equity_engine.batch import cuda_engine as cuda_batch

OK, REASON = availability.cuda_available()
pytestmark = pytest.mark.skipif(not OK, reason=REASON)

FIELDS = ("equity", "win", "tie", "tie_share", "wins", "ties", "boards")


@pytest.mark.parametrize("p, b", [(2, 3), (3, 3), (4, 3), (2, 4), (3, 4), (6, 4), (2, 5),
                                  (4, 5), (10, 5)])
def test_device_equals_numpy(p, b):
    hands, boards, dead = random_spots(np.random.default_rng(10 * p + b), 3000, p, b)
    want = ge.equity_batch(hands, boards, dead, backend="numpy")
    got = ge.equity_batch(hands, boards, dead, backend="cuda")
    assert got.backend == "cuda"
    for name in FIELDS:
        np.testing.assert_array_equal(getattr(got, name), getattr(want, name), err_msg=name)


def test_cupy_in_cupy_out_and_several_launches(monkeypatch):
    import cupy

    monkeypatch.setattr(cuda_batch, "SPOTS_PER_LAUNCH", 1000)
    hands, boards, _ = random_spots(np.random.default_rng(2), 4321, 2, 3, max_dead=0)
    want = ge.equity_batch(hands, boards, backend="numpy")
    got = ge.equity_batch(cupy.asarray(hands), cupy.asarray(boards))
    assert got.backend == "cuda"
    for name in FIELDS:
        g = getattr(got, name)
        assert isinstance(g, cupy.ndarray), name
        np.testing.assert_array_equal(g.get(), getattr(want, name), err_msg=name)
