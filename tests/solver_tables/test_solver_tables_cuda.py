"""The CUDA path of the solver tables (kernels/solver_tables.cu, gpu_eval.solver_tables.cuda_engine),
on the stand-in CuPy and, for the ``gpu`` tests, on a real device where one is present.

* NVRTC: the module assembles for sm_90 exporting its manifest kernels (tests/cuda/test_manifest.py).
* The device code built as host C++ and run by the block emulator (every thread a fiber, real
  barriers), under several launch shapes: the NumPy path's strengths and river counts.
* End to end through the stand-in CuPy: CuPy boards in, CuPy strengths out; NumPy in, NumPy
  out; several launches per call; hold'em and short deck modules side by side.
"""

from __future__ import annotations

import numpy as np
import pytest

import gpu_eval as ge
from gpu_eval.cards import ID_TO_MASK
from gpu_eval.solver_tables import cuda_engine as cuda_tables
from gpu_eval.solver_tables.layout import deck_layout
from gpu_eval.solver_tables.river_counts import count_columns


def _boards(rng, n, k, game="holdem"):
    low = deck_layout(game).lowest_card
    return np.stack([rng.choice(np.arange(low, 52), k, replace=False) for _ in range(n)]
                    ).astype(np.uint8)


def _masks(boards):
    return np.bitwise_or.reduce(ID_TO_MASK[boards], axis=1)


@pytest.fixture
def host(kernel_host):
    return kernel_host


def _columns(game):
    lay = deck_layout(game)
    low = lay.lowest_card
    cards = ((lay.pairs[:, 0].astype(np.uint16) - low)
             | ((lay.pairs[:, 1].astype(np.uint16) - low) << 8)).astype(np.uint16)
    return lay, np.ascontiguousarray(lay.pair_masks), cards


@pytest.mark.parametrize("game, k, grid, block", [
    ("holdem", 3, 3, 64), ("holdem", 4, 1, 256), ("holdem", 5, 7, 32),
    ("shortdeck", 5, 2, 128), ("shortdeck-triton", 4, 5, 96)])
def test_host_board_strengths_equal_numpy(host, game, k, grid, block):
    lay, pairs, _ = _columns(game)
    host.set_tables(np.array([np.ascontiguousarray(lay.tables.as_dict()[n]).ctypes.data
                              for n in cuda_tables.modules.BITMASK_TABLE_ORDER], dtype=np.uintp))
    keep = lay.tables  # noqa: F841 -- the tables stay alive while the kernel reads them
    boards = _boards(np.random.default_rng(k), 60, k, game)
    out = np.full((60, lay.columns), 0xBEEF, dtype=np.uint16)
    host.launch("ge_tables_board_strengths", (grid,), (block,),
                (_masks(boards), np.uint32(60), pairs, np.uint32(lay.columns), out))
    assert (out == ge.board_strengths(boards, game=game, backend="numpy").view(np.uint16)).all()


@pytest.mark.parametrize("game, n, grid, block", [
    ("holdem", 40, 3, 256), ("holdem", 9, 16, 64), ("shortdeck", 30, 4, 32),
    ("shortdeck-triton", 12, 5, 96)])
def test_host_river_counts_equal_numpy(host, game, n, grid, block):
    """A block a board (more or fewer blocks than boards): count_columns' integers."""
    from gpu_eval.games import registry

    lay, pairs, cards = _columns(game)
    host.set_tables(np.array([np.ascontiguousarray(lay.tables.as_dict()[nm]).ctypes.data
                              for nm in cuda_tables.modules.BITMASK_TABLE_ORDER], dtype=np.uintp))
    boards = _boards(np.random.default_rng(n), n, 5, game)
    s = ge.board_strengths(boards, game=game, backend="numpy").view(np.uint16)
    want_w, want_t = count_columns(s, lay, 5)
    w = np.full((n, lay.columns), 0xBEEF, dtype=np.uint16)
    t = np.full((n, lay.columns), 0xBEEF, dtype=np.uint16)
    ns = registry.SCALES[registry.check_scale(game)] + 1
    host.launch("ge_tables_river_counts", (grid,), (block,),
                (_masks(boards), np.uint32(n), pairs, cards, np.uint32(lay.columns),
                 np.uint32(lay.deck_size), np.uint32(ns), w, t))
    assert (w == want_w).all() and (t == want_t).all()


@pytest.fixture
def fake(stand_in_cupy, monkeypatch):
    monkeypatch.setattr(cuda_tables, "BOARDS_PER_LAUNCH", 7)   # several launches per call
    yield stand_in_cupy
    assert not stand_in_cupy.races


def test_cupy_boards_give_cupy_strengths(fake):
    boards = _boards(np.random.default_rng(1), 20, 5)
    want = ge.board_strengths(boards, backend="numpy")
    got = ge.board_strengths(fake.asarray(boards))
    assert isinstance(got, fake.ndarray) and got.dtype == np.uint16
    assert (np.asarray(got) == want).all()
    got_np = ge.board_strengths(boards, backend="cuda")
    assert type(got_np) is np.ndarray and (got_np == want).all()
    one = ge.board_strengths("AhKhQhJh2c", backend="cuda")
    assert one.shape == (1326,) and (one == ge.board_strengths("AhKhQhJh2c", backend="numpy")).all()
    sd = _boards(np.random.default_rng(2), 9, 4, "shortdeck")
    got_sd = ge.board_strengths(sd, game="shortdeck", backend="cuda")
    assert (got_sd == ge.board_strengths(sd, game="shortdeck", backend="numpy")).all()
    assert got_sd.dtype.metadata == {"game": "shortdeck"}
    with pytest.raises(ValueError, match="used twice"):
        ge.board_strengths(fake.asarray(np.array([[0, 0, 1]], dtype=np.uint8)))
    names = [x[0] for x in fake.launches]
    assert names.count("ge_tables_board_strengths") >= 3 + 2


def test_river_counts_through_the_launcher(fake):
    for game in ("holdem", "shortdeck"):
        lay = deck_layout(game)
        boards = _boards(np.random.default_rng(3), 15, 5, game)
        want = count_columns(ge.board_strengths(boards, game=game, backend="numpy"), lay, 5)
        w, t = cuda_tables.river_counts_cuda(_masks(boards), lay)
        assert type(w) is np.ndarray and (w == want[0]).all() and (t == want[1]).all()
        dw, dt = cuda_tables.river_counts_cuda(fake.asarray(_masks(boards)), lay,
                                                device_out=True)
        assert isinstance(dw, fake.ndarray) and (np.asarray(dt) == want[1]).all()


def test_table_build_on_the_device_equals_numpy(fake, monkeypatch):
    """A (small) chunk of the short-deck river table counted through the CUDA path: the same
    rows."""
    from gpu_eval.solver_tables import chunks

    monkeypatch.setattr(chunks.RiverChunks, "chunk_size", 24)
    cpu = chunks.chunks_of("river", "shortdeck", backend="numpy")
    dev = chunks.chunks_of("river", "shortdeck", backend="cuda")
    assert dev.backend == "cuda"
    i_cpu, v_cpu = cpu.run(3)
    i_dev, v_dev = dev.run(3)
    assert (i_cpu == i_dev).all()
    assert all((v_cpu[n] == v_dev[n]).all() for n in v_cpu)


# --- one body for the stand-in and a real device ------------------------------------------------

def _deck_boards(n, k, game, seed):
    low = deck_layout(game).lowest_card
    rng = np.random.default_rng(seed)
    return (np.argsort(rng.random((n, 52 - low)), axis=1)[:, :k] + low).astype(np.uint8)


@pytest.mark.parametrize("game", ["holdem", "shortdeck", "shortdeck-triton"])
@pytest.mark.parametrize("k", [3, 4, 5])
def test_board_strengths_device_equals_numpy(gpu, game, k):
    cupy = gpu.cp
    boards = _deck_boards(gpu.size(5000, 100), k, game, k)
    want = ge.board_strengths(boards, game=game, backend="numpy")
    got = ge.board_strengths(cupy.asarray(boards), game=game)
    assert isinstance(got, cupy.ndarray)
    np.testing.assert_array_equal(got.get(), want.view(np.uint16))
    np.testing.assert_array_equal(ge.board_strengths(boards, game=game, backend="cuda"), want)


@pytest.mark.parametrize("game", ["holdem", "shortdeck"])
def test_river_counts_device_equals_numpy(gpu, game):
    lay = deck_layout(game)
    boards = _deck_boards(gpu.size(3000, 20), 5, game, 9)
    want_w, want_t = count_columns(ge.board_strengths(boards, game=game, backend="numpy"), lay, 5)
    w, t = cuda_tables.river_counts_cuda(np.bitwise_or.reduce(ID_TO_MASK[boards], axis=1), lay)
    np.testing.assert_array_equal(w, want_w)
    np.testing.assert_array_equal(t, want_t)


def test_whole_shortdeck_river_table_on_the_device(gpu):
    gpu.only_real("every short-deck river board (test_table_build_on_the_device_equals_numpy "
                  "builds a chunk on the stand-in)")
    want = ge.river_strength("shortdeck", backend="numpy", progress=False)
    got = ge.river_strength("shortdeck", backend="cuda", progress=False)
    assert got.wins.tobytes() == want.wins.tobytes() and got.ties.tobytes() == want.ties.tobytes()


def test_holdem_chunks_on_the_device(gpu):
    from gpu_eval.solver_tables import chunks

    gpu.only_real("a chunk of every hold'em street is minutes of host-built kernels")
    for street, i in (("river", 17), ("turn", 3), ("flop", 100), ("preflop", 5)):
        a = chunks.chunks_of(street, "holdem", 50, "numpy").run(i)
        b = chunks.chunks_of(street, "holdem", 50, "cuda").run(i)
        if a[0] is not None:
            np.testing.assert_array_equal(a[0], b[0])
        for name in a[1]:
            np.testing.assert_array_equal(a[1][name], b[1][name], err_msg=f"{street} {name}")
