"""The range report's kernel (kernels/range_report.cu, gpu_eval.range_reports.cuda) on a real
GPU against the NumPy counting. Skipped, with the reason, unless CuPy imports and sees a CUDA
device; test_report_cuda.py runs the same kernel on the CPU (host build, stand-in CuPy)."""

from __future__ import annotations

import numpy as np
import pytest

from gpu_eval import cards
from gpu_eval.cuda import availability
from gpu_eval.range_reports.api import range_report

OK, REASON = availability.cuda_available()
pytestmark = pytest.mark.skipif(not OK, reason=REASON)

H, V = "0.5(QQ+), AKs, KQo:0.3, 76s, 22, A5s", "JJ-55, AQs:0.7, KJs, T9s, 98o"


def _same_report(a, b) -> None:
    for x, y in ((a.hero, b.hero), (a.villain, b.villain)):
        for f in ("wins", "ties", "matchups", "made", "draws", "outs", "nut_rank"):
            assert np.array_equal(np.asarray(getattr(x, f)), np.asarray(getattr(y, f))), f
        np.testing.assert_allclose(np.asarray(x.equity), np.asarray(y.equity), rtol=0,
                                   atol=1e-10)


@pytest.mark.parametrize("board", ["Kd7c2h", "Ts9s4d", "Qh8h3h", "AhKh3d7s", "6c5c4d3h2s"])
def test_one_board_equals_numpy(board):
    got = range_report(H, V, board=board, backend="cuda")
    assert got.backend == "cuda"
    _same_report(got, range_report(H, V, board=board, backend="numpy"))


def test_every_turn_and_many_boards_equal_numpy():
    s_got = range_report("QQ+, AKs", "JJ-99, AQs", board="Kd7c2h", street="turn",
                         backend="cuda")
    s_want = range_report("QQ+, AKs", "JJ-99, AQs", board="Kd7c2h", street="turn",
                          backend="numpy")
    for c in ("Ah", "7h", "3c"):
        _same_report(s_got[c], s_want[c])
    boards = ["AsKd7h2c", "7c7d2h9s", "9s8s7s2s", "Kd7c2h"]
    b_got = range_report("AKs, QQ", "JJ, AQo:0.5", boards=boards, backend="cuda")
    b_want = range_report("AKs, QQ", "JJ, AQo:0.5", boards=boards, backend="numpy")
    assert np.array_equal(b_got.units, b_want.units)
    assert np.array_equal(b_got.showdowns, b_want.showdowns)


def test_cupy_board_comes_back_as_cupy():
    import cupy

    want = range_report(H, V, board="Kd7c2h5s9d", backend="numpy")
    got = range_report(H, V, board=cupy.asarray(cards.parse("Kd7c2h5s9d")))
    assert isinstance(got.hero.wins, cupy.ndarray)
    np.testing.assert_array_equal(got.hero.wins.get(), want.hero.wins)
