"""The range report's CUDA kernel (kernels/range_report.cu) without a GPU: compiled by NVRTC
for sm_90, built as host C++ and run in the block emulator against the NumPy counting, and its
launcher run on the stand-in CuPy through ``range_report(..., backend="cuda")``;
test_report_cuda_gpu.py runs the same comparisons on a real GPU where one is present."""

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


def test_kernel_compiles_for_sm90():
    from gpu_eval.cuda import nvrtc

    try:
        nvrtc.nvrtc_version()
    except nvrtc.NvrtcUnavailableError as exc:
        pytest.skip(str(exc))
    ptx = nvrtc.compile_ptx(cuda_report.module_source(), arch="compute_90",
                            name="range_report_module.cu")
    assert ".entry ge_report_counts" in ptx


@pytest.fixture(scope="module")
def report_host():
    from emulation import hostbuild, report_host

    try:
        return report_host.load_private()
    except hostbuild.HostBuildUnavailableError as exc:
        pytest.skip(f"cannot build the kernels for the CPU: {exc}")


@pytest.mark.parametrize("game,board", [("holdem", "Kd7c2h"), ("holdem", "Ts9s2s"),
                                        ("shortdeck", "Kd7cTh")])
def test_host_build_counts_what_numpy_counts(report_host, game, board):
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
    report_host.set_tables(np.array(
        [np.ascontiguousarray(lay.tables.as_dict()[n]).ctypes.data
         for n in cuda_report.modules.BITMASK_TABLE_ORDER], dtype=np.uintp))
    keep = [lay.tables.as_dict()[n] for n in cuda_report.modules.BITMASK_TABLE_ORDER]
    masks, cd, start, mates = cuda_report.column_tables(lay, cols)
    wk = np.ascontiguousarray(w[:, cols])
    n, K = len(boards), len(cols)
    less = np.zeros((n, 2, K))
    equal = np.zeros((n, 2, K))
    for block in (64, 256):
        report_host.launch("ge_report_counts", (7,), (block,),
                           [boards, np.uint32(n), masks, cd, np.uint32(K), start, mates, wk,
                            np.uint32(2), less, equal])
        got_l = np.transpose(less, (1, 0, 2))
        got_e = np.transpose(equal, (1, 0, 2))
        # 0/1 weights: the same integers; fractional ones: the same sums up to their order.
        assert np.array_equal(got_l[0], want_l[0][:, cols])
        assert np.array_equal(got_e[0], want_e[0][:, cols])
        np.testing.assert_allclose(got_l[1], want_l[1][:, cols], rtol=0, atol=1e-9)
        np.testing.assert_allclose(got_e[1], want_e[1][:, cols], rtol=0, atol=1e-9)
    del keep


@pytest.fixture
def stand_in(stand_in_cupy, monkeypatch):
    """The stand-in CuPy with the range-report module (host build) and an empty module cache."""
    from emulation import hostbuild, report_host

    try:
        report_host.build()
    except hostbuild.HostBuildUnavailableError as exc:
        pytest.skip(f"cannot build the kernels for the CPU: {exc}")
    monkeypatch.setattr(cuda_report, "_STATES", {})
    yield stand_in_cupy
    assert not stand_in_cupy.races


def _same_report(a, b) -> None:
    for x, y in ((a.hero, b.hero), (a.villain, b.villain)):
        for f in ("wins", "ties", "matchups", "made", "draws", "outs", "nut_rank"):
            assert np.array_equal(np.asarray(getattr(x, f)), np.asarray(getattr(y, f))), f
        np.testing.assert_allclose(np.asarray(x.equity), np.asarray(y.equity), rtol=0,
                                   atol=1e-10)


def test_launcher_on_the_stand_in(stand_in):
    # Turn and river boards: the emulator runs every thread of every block as a fiber.
    for board in ("AhKh3d7s", "6c5c4d3h2s"):
        want = range_report(H, V, board=board, backend="numpy")
        got = range_report(H, V, board=board, backend="cuda")
        assert got.hero.wins is not None
        _same_report(got, want)
    s_want = range_report("QQ+, AKs", "JJ-99, AQs", board="Kd7c2hAs", street="river",
                          backend="numpy")
    s_got = range_report("QQ+, AKs", "JJ-99, AQs", board="Kd7c2hAs", street="river",
                         backend="cuda")
    assert s_got.backend == "cuda"
    for c in ("Ah", "7h", "3c"):
        _same_report(s_got[c], s_want[c])
    boards = ["AsKd7h2c", "7c7d2h9s", "9s8s7s2s"]
    b_want = range_report("AKs, QQ", "JJ, AQo:0.5", boards=boards, backend="numpy")
    b_got = range_report("AKs, QQ", "JJ, AQo:0.5", boards=boards, backend="cuda")
    assert np.array_equal(b_got.units, b_want.units)
    assert np.array_equal(b_got.showdowns, b_want.showdowns)
    np.testing.assert_allclose(b_got.hero_equity, b_want.hero_equity, rtol=0, atol=1e-12)
    assert any(name == "ge_report_counts" for name, *_ in stand_in.launches)


def test_cupy_board_runs_on_the_device_and_comes_back(stand_in):
    want = range_report(H, V, board="Kd7c2h5s9d", backend="numpy")
    got = range_report(H, V, board=stand_in.asarray(cards.parse("Kd7c2h5s9d")))
    assert isinstance(got.hero.wins, stand_in.ndarray)
    np.testing.assert_array_equal(got.hero.wins.get(), want.hero.wins)


def test_omaha_cuda_says_it_counts_on_numpy():
    with pytest.raises(NotImplementedError, match="NumPy"):
        range_report("AA$ds", "KKQQ", board="Kd7c2h", game="omaha", backend="cuda")
