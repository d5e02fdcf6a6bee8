"""The range report's CUDA kernel (kernels/range_report.cu, gpu_eval.range_reports.cuda), on
the stand-in CuPy and, for the ``gpu`` tests, on a real device where one is present.

* NVRTC: the module compiles for sm_90 (tests/cuda/test_manifest.py and
  test_kernel_resources.py check it exports its manifest kernel, none spilling).
* The device code built as host C++ from its manifest record (the ``kernel_host`` fixture)
  and run by the block emulator (every thread a fiber, real barriers), under several launch
  shapes: the NumPy counting's integers and weighted sums.
* Through the launcher (``range_report(..., backend="cuda")``): one body on the stand-in and
  on a real device, NumPy's reports field for field; several launches per call and a device
  too small for one chunk; CuPy boards counted on the device that holds them.
"""

from __future__ import annotations

import numpy as np
import pytest

from gpu_eval import cards, combinatorics
from gpu_eval.range_reports import cuda as cuda_report
from gpu_eval.range_reports.api import range_report
from gpu_eval.range_reports.showdowns import count_boards
from gpu_eval.solver_tables.layout import deck_layout

H, V = "0.5(QQ+), AKs, KQo:0.3, 76s, 22, A5s", "JJ-55, AQs:0.7, KJs, T9s, 98o"


def _runouts(board: str, n: int | None = None) -> np.ndarray:
    m = int(cards.to_mask(board))
    two = combinatorics.subset_masks(52, 2)
    out = two[(two & np.uint64(m)) == 0] | np.uint64(m)
    return out if n is None else np.ascontiguousarray(out[:: max(1, len(out) // n)][:n])


@pytest.mark.parametrize("game,board", [("holdem", "Kd7c2h"), ("holdem", "Ts9s2s"),
                                        ("shortdeck", "Kd7cTh")])
def test_host_build_counts_what_numpy_counts(kernel_host, game, board):
    lay = deck_layout(game)
    rng = np.random.default_rng(len(board))
    boards = _runouts(board, 12)
    if game != "holdem":    # the short deck's boards: no card below a six
        low = np.uint64(sum(((1 << 4) - 1) << (16 * s) for s in range(4)))
        boards = np.ascontiguousarray(boards[(boards & low) == 0])
    # A column subset (every column one vector weighs), 0/1 and fractional weights.
    w = np.zeros((2, lay.columns))
    w[0] = (rng.random(lay.columns) < 0.5) * 1.0
    w[1] = rng.random(lay.columns) * (rng.random(lay.columns) < 0.4)
    cols = np.flatnonzero((w != 0).any(axis=0))
    want_l, want_e = count_boards(boards, lay, w, reduce="none")
    kernel_host.set_tables(np.array(
        [np.ascontiguousarray(lay.tables.as_dict()[n]).ctypes.data
         for n in cuda_report.modules.BITMASK_TABLE_ORDER], dtype=np.uintp))
    keep = [lay.tables.as_dict()[n] for n in cuda_report.modules.BITMASK_TABLE_ORDER]
    masks, cd, start, mates = cuda_report.column_tables(lay, cols)
    wk = np.ascontiguousarray(w[:, cols])
    n, K = len(boards), len(cols)
    less = np.zeros((n, 2, K))
    equal = np.zeros((n, 2, K))
    for block in (64, 256):
        kernel_host.launch("ge_report_counts", (7,), (block,),
                           (boards, np.uint32(n), masks, cd, np.uint32(K), start, mates, wk,
                            np.uint32(2), less, equal))
        got_l = np.transpose(less, (1, 0, 2))
        got_e = np.transpose(equal, (1, 0, 2))
        # 0/1 weights: the same integers; fractional ones: the same sums up to their order.
        assert np.array_equal(got_l[0], want_l[0][:, cols])
        assert np.array_equal(got_e[0], want_e[0][:, cols])
        np.testing.assert_allclose(got_l[1], want_l[1][:, cols], rtol=0, atol=1e-9)
        np.testing.assert_allclose(got_e[1], want_e[1][:, cols], rtol=0, atol=1e-9)
    del keep


def _same_report(a, b) -> None:
    for x, y in ((a.hero, b.hero), (a.villain, b.villain)):
        for f in ("wins", "ties", "matchups", "made", "draws", "outs", "nut_rank"):
            assert np.array_equal(np.asarray(getattr(x, f)), np.asarray(getattr(y, f))), f
        np.testing.assert_allclose(np.asarray(x.equity), np.asarray(y.equity), rtol=0,
                                   atol=1e-10)


# --- one body for the stand-in and a real device ------------------------------------------------


@pytest.fixture
def no_races(stand_in_cupy):
    yield stand_in_cupy
    assert not stand_in_cupy.races


@pytest.mark.parametrize("board", ["Kd7c2h", "Ts9s4d", "Qh8h3h", "AhKh3d7s", "6c5c4d3h2s"])
def test_one_board_equals_numpy(gpu, board):
    if len(board) == 6:
        gpu.only_real("a flop's 1,081 runouts, every thread of every block a fiber (the turn "
                      "and the river run on the stand-in)")
    got = range_report(H, V, board=board, backend="cuda")
    assert got.backend == "cuda"
    assert got.hero.wins is not None
    _same_report(got, range_report(H, V, board=board, backend="numpy"))
    if not gpu.real:
        assert not gpu.cp.races
        assert any(name == "ge_report_counts" for name, *_ in gpu.cp.launches)


def test_every_next_card_and_many_boards_equal_numpy(gpu):
    # Every turn of a flop on a GPU; every river of a turn on the stand-in.
    board, street = ("Kd7c2h", "turn") if gpu.real else ("Kd7c2hAs", "river")
    s_got = range_report("QQ+, AKs", "JJ-99, AQs", board=board, street=street, backend="cuda")
    s_want = range_report("QQ+, AKs", "JJ-99, AQs", board=board, street=street,
                          backend="numpy")
    assert s_got.backend == "cuda"
    for c in ("Ah", "7h", "3c"):
        _same_report(s_got[c], s_want[c])
    boards = ["AsKd7h2c", "7c7d2h9s", "9s8s7s2s"] + (["Kd7c2h"] if gpu.real else [])
    b_got = range_report("AKs, QQ", "JJ, AQo:0.5", boards=boards, backend="cuda")
    b_want = range_report("AKs, QQ", "JJ, AQo:0.5", boards=boards, backend="numpy")
    assert np.array_equal(b_got.units, b_want.units)
    assert np.array_equal(b_got.showdowns, b_want.showdowns)
    np.testing.assert_allclose(b_got.hero_equity, b_want.hero_equity, rtol=0, atol=1e-12)
    if not gpu.real:
        assert not gpu.cp.races
        assert any(name == "ge_report_counts" for name, *_ in gpu.cp.launches)


def test_cupy_board_comes_back_as_cupy(gpu):
    cp = gpu.cp
    want = range_report(H, V, board="Kd7c2h5s9d", backend="numpy")
    got = range_report(H, V, board=cp.asarray(cards.parse("Kd7c2h5s9d")))
    assert isinstance(got.hero.wins, cp.ndarray)
    np.testing.assert_array_equal(got.hero.wins.get(), want.hero.wins)
    if not gpu.real:
        assert not cp.races


def test_board_on_the_second_device_is_counted_there(gpu):
    """A CuPy board of device 1: counted there (the stand-in fails a launch reading another
    device's array), the results on device 1, device 0 current again after."""
    cp = gpu.cp
    if gpu.devices() < 2:
        pytest.skip("one device only")
    want = range_report(H, V, board="Kd7c2h5s9d", backend="numpy")
    with cp.cuda.Device(1):
        board = cp.asarray(cards.parse("Kd7c2h5s9d"))
    got = range_report(H, V, board=board)
    assert cp.cuda.runtime.getDevice() == 0
    assert got.hero.wins.device.id == 1
    np.testing.assert_array_equal(got.hero.wins.get(), want.hero.wins)
    assert any(key[0] == 1 for states in cuda_report._STATES.values() for key in states)


def test_chunks_fit_a_small_device(gpu, monkeypatch):
    """Boards five a launch at most, on a device with room for a few boards' results: chunks
    sized from its free memory (fewer boards than the launch allows), NumPy's counts."""
    from gpu_eval.cuda import streaming

    monkeypatch.setattr(cuda_report, "BOARDS_PER_LAUNCH", 5)
    rows: list[int] = []
    for_chunks = streaming.for_chunks

    def recorded(cupy, n, row_bytes, work, **kw):
        def counted(lo, hi):
            rows.append(hi - lo)
            work(lo, hi)

        return for_chunks(cupy, n, row_bytes, counted, **kw)

    monkeypatch.setattr(streaming, "for_chunks", recorded)
    hero, villain = "AKs, QQ, 0.5(76s)", "JJ, AQo:0.5, T9s"
    boards = ["AsKd7h2c", "7c7d2h9s", "9s8s7s2s", "Qh8h3h2d", "Ts9s4d4c", "AhKh3d7s",
              "6c5c4d3h2s", "JdTd9c8h"]
    want = range_report(hero, villain, boards=boards, backend="numpy")
    whole = range_report(hero, villain, boards=boards, backend="cuda")
    assert rows and max(rows) == 5
    rows.clear()
    with gpu.capped(1 << 16):
        small = range_report(hero, villain, boards=boards, backend="cuda")
    assert rows and max(rows) < 5
    for got in (whole, small):
        assert np.array_equal(got.units, want.units)
        assert np.array_equal(got.showdowns, want.showdowns)
        np.testing.assert_allclose(got.hero_equity, want.hero_equity, rtol=0, atol=1e-12)
    if not gpu.real:
        assert not gpu.cp.races
        launched = [name for name, *_ in gpu.cp.launches if name == "ge_report_counts"]
        assert len(launched) >= len(rows)


def test_omaha_cuda_says_it_counts_on_numpy():
    with pytest.raises(NotImplementedError, match="NumPy"):
        range_report("AA$ds", "KKQQ", board="Kd7c2h", game="omaha", backend="cuda")
