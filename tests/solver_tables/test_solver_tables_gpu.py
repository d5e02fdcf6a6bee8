"""The solver tables on a real GPU (kernels/solver_tables.cu, gpu_eval.solver_tables.cuda_engine)
against the NumPy path (docs/architecture.md: testing, way 3). Skipped, with the reason, unless
CuPy imports and sees a CUDA device; tests/solver_tables/test_solver_tables_cuda.py runs the same kernels on
the CPU.
"""

from __future__ import annotations

import numpy as np
import pytest

import gpu_eval as ge
from gpu_eval.cards import ID_TO_MASK
from gpu_eval.cuda import availability
from gpu_eval.solver_tables import cuda_engine as cuda_tables
from gpu_eval.solver_tables import plans
from gpu_eval.solver_tables.layout import deck_layout
from gpu_eval.solver_tables.river_counts import count_columns

OK, REASON = availability.cuda_available()
pytestmark = pytest.mark.skipif(not OK, reason=REASON)


def _boards(n, k, game, seed):
    low = deck_layout(game).lowest_card
    rng = np.random.default_rng(seed)
    return (np.argsort(rng.random((n, 52 - low)), axis=1)[:, :k] + low).astype(np.uint8)


@pytest.mark.parametrize("game", ["holdem", "shortdeck", "shortdeck-triton"])
@pytest.mark.parametrize("k", [3, 4, 5])
def test_board_strengths_device_equals_numpy(game, k):
    import cupy

    boards = _boards(5000, k, game, k)
    want = ge.board_strengths(boards, game=game, backend="numpy")
    got = ge.board_strengths(cupy.asarray(boards), game=game)
    assert isinstance(got, cupy.ndarray)
    np.testing.assert_array_equal(got.get(), want.view(np.uint16))
    np.testing.assert_array_equal(ge.board_strengths(boards, game=game, backend="cuda"), want)


@pytest.mark.parametrize("game", ["holdem", "shortdeck"])
def test_river_counts_device_equals_numpy(game):
    lay = deck_layout(game)
    boards = _boards(3000, 5, game, 9)
    want_w, want_t = count_columns(ge.board_strengths(boards, game=game, backend="numpy"), lay, 5)
    w, t = cuda_tables.river_counts_cuda(np.bitwise_or.reduce(ID_TO_MASK[boards], axis=1), lay)
    np.testing.assert_array_equal(w, want_w)
    np.testing.assert_array_equal(t, want_t)


def test_whole_shortdeck_river_table_on_the_device():
    want = ge.river_strength("shortdeck", backend="numpy", progress=False)
    got = ge.river_strength("shortdeck", backend="cuda", progress=False)
    assert got.wins.tobytes() == want.wins.tobytes() and got.ties.tobytes() == want.ties.tobytes()


def test_holdem_chunks_on_the_device():
    for street, i in (("river", 17), ("turn", 3), ("flop", 100), ("preflop", 5)):
        a = plans.plan(street, "holdem", 50, "numpy").run(i)
        b = plans.plan(street, "holdem", 50, "cuda").run(i)
        if a[0] is not None:
            np.testing.assert_array_equal(a[0], b[0])
        for name in a[1]:
            np.testing.assert_array_equal(a[1][name], b[1][name], err_msg=f"{street} {name}")
