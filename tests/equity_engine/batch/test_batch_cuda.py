"""The CUDA path of ge.equity_batch (kernels/equity_batch.cu, gpu_eval.equity_engine.batch.cuda_engine)
without a GPU.

* NVRTC: the module assembles for sm_90 exporting its manifest kernels
  (tests/cuda/test_kernel_resources.py).
* The device code built as host C++ and run by the block emulator of
  tests/emulation/kernel_build.py (warp shuffles included), on random spots with 2 to 4 players,
  flop, turn and river, dead cards, under several launch shapes: the NumPy path's integers.
* End to end through tests/emulation/fake_cupy/ standing in for CuPy: backend="cuda" and
  "auto", NumPy in / NumPy out, CuPy in / CuPy out, several launches per call.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from batch_spots import random_spots

import gpu_eval as ge
from gpu_eval.cuda import nvrtc
from gpu_eval.equity_engine.batch import cuda_engine as cuda_batch

try:
    nvrtc.nvrtc_version()
    NVRTC_SKIP = ""
except nvrtc.NvrtcUnavailableError as exc:
    NVRTC_SKIP = str(exc)

FULL = np.uint64(0x1FFF1FFF1FFF1FFF)
BIT = np.left_shift(np.uint64(1), (16 * (np.arange(52) % 4) + np.arange(52) // 4)
                    .astype(np.uint64))


def masks(hands, boards, dead):
    """``(hole (n, p), board (n,), free (n,))`` hand masks, as equity_batch hands them over."""
    hole = BIT[hands[:, :, 0]] | BIT[hands[:, :, 1]]
    board = np.bitwise_or.reduce(BIT[boards], axis=1)
    dead_m = np.array([np.bitwise_or.reduce(ge.cards.to_mask([t]) if t else [np.uint64(0)])
                       for t in dead], dtype=np.uint64).reshape(-1)
    used = np.bitwise_or.reduce(hole, axis=1) | board | dead_m
    return hole, board, ~used & FULL


def units_of(r, p: int) -> np.ndarray:
    """Split-pot units from a result's tie_share (exact: small integers over small ones)."""
    scale = math.lcm(*range(1, p + 1))
    return np.rint(np.asarray(r.tie_share) * scale * np.asarray(r.boards)[:, None]).astype(
        np.int64)


# --- the device code on the CPU --------------------------------------------------------------

@pytest.fixture
def host(kernel_host):
    return kernel_host


@pytest.mark.parametrize("p, b, grid, block", [
    (2, 3, 3, 64), (3, 3, 2, 32), (4, 3, 5, 96),
    (2, 4, 1, 32), (3, 4, 7, 64), (4, 4, 2, 128),
    (2, 5, 1, 32), (3, 5, 2, 64), (4, 5, 1, 96),
])
def test_host_build_equals_numpy(host, p, b, grid, block):
    """Random spots with dead cards, fewer threads than spots (the kernels stride): the
    NumPy path's wins, ties and split-pot units, integer for integer."""
    rng = np.random.default_rng(100 * p + b)
    n = 40 if b == 3 else 150
    hands, boards, dead = random_spots(rng, n, p, b)
    want = ge.equity_batch(hands, boards, dead, backend="numpy")
    hole, board, free = masks(hands, boards, dead)
    out = [np.full((n, p), 0xDEADBEEF, dtype=np.uint32) for _ in range(3)]
    host.launch(f"ge_batch_{p}", (grid,), (block,),
                (np.ascontiguousarray(hole), board, free, np.uint32(n), np.int32(5 - b), *out))
    np.testing.assert_array_equal(out[0], want.wins)
    np.testing.assert_array_equal(out[1], want.ties)
    np.testing.assert_array_equal(out[2], units_of(want, p))


def test_host_build_many_players_and_all_ties(host):
    """Up to 10 players, and boards that play for everyone (every completion a split)."""
    hands = ge.cards.parse("2c3d 2d3c 2h3s 2s3h").reshape(1, 4, 2)
    boards = ge.cards.parse("AhKhQh").reshape(1, 3)
    hands = np.concatenate([hands, ge.cards.parse("2c3d 2d3c 2h3s 2s3h").reshape(1, 4, 2)])
    boards = np.concatenate([boards, ge.cards.parse("AcKcQc").reshape(1, 3)])
    for p, hs, bs in [(4, hands, boards)] + [
            (q, *random_spots(np.random.default_rng(q), 12, q, 4)[:2]) for q in (5, 8, 10)]:
        want = ge.equity_batch(hs, bs, backend="numpy")
        hole, board, free = masks(hs, bs, [""] * len(hs))
        out = [np.zeros((len(hs), p), dtype=np.uint32) for _ in range(3)]
        host.launch(f"ge_batch_{p}", (2,), (64,),
                    (np.ascontiguousarray(hole), board, free, np.uint32(len(hs)),
                     np.int32(5 - bs.shape[1]), *out))
        np.testing.assert_array_equal(out[0], want.wins)
        np.testing.assert_array_equal(out[1], want.ties)
        np.testing.assert_array_equal(out[2], units_of(want, p))


# --- end to end through the stand-in CuPy ----------------------------------------------------

@pytest.fixture
def fake(stand_in_cupy, monkeypatch):
    monkeypatch.setattr(cuda_batch, "SPOTS_PER_LAUNCH", 17)  # several launches per call
    yield stand_in_cupy
    assert not stand_in_cupy.races  # every launch was ordered after the writes it read


@pytest.fixture
def device(gpu, monkeypatch):
    """The ``gpu`` fixture, several launches per call, no unordered read on the stand-in."""
    monkeypatch.setattr(cuda_batch, "SPOTS_PER_LAUNCH", gpu.size(1000, 17))
    yield gpu
    assert gpu.real or not gpu.cp.races


FIELDS = ("equity", "win", "tie", "tie_share", "wins", "ties", "boards")


@pytest.mark.parametrize("p, b", [(2, 3), (3, 4), (4, 5), (2, 5), (3, 3), (10, 3), (4, 3),
                                  (2, 4), (6, 4), (10, 5)])
def test_cuda_backend_equals_numpy(device, p, b):
    rng = np.random.default_rng(7 * p + b)
    n = device.size(3000, 45)
    hands, boards, dead = random_spots(rng, n, p, b)
    want = ge.equity_batch(hands, boards, dead, backend="numpy")
    got = ge.equity_batch(hands, boards, dead, backend="cuda")
    assert (want.backend, got.backend) == ("numpy", "cuda")
    assert got.method == want.method
    for name in FIELDS:
        a, g = getattr(want, name), getattr(got, name)
        assert type(g) is np.ndarray, name  # NumPy in, NumPy out
        assert g.dtype == a.dtype and not g.flags.writeable, name
        np.testing.assert_array_equal(g, a, err_msg=name)
    if not device.real:
        launches = [x for x in device.cp.launches if x[0] == f"ge_batch_{p}"]
        assert len(launches) == -(-n // cuda_batch.SPOTS_PER_LAUNCH)
        assert all(block == (cuda_batch.THREADS,) for _, _, block in launches)


def test_auto_picks_the_device_and_cupy_in_gives_cupy_out(device):
    fake = device.cp
    hands, boards, dead = random_spots(np.random.default_rng(3), device.size(4321, 40), 2, 3)
    want = ge.equity_batch(hands, boards, dead, backend="numpy")
    got = ge.equity_batch(fake.asarray(hands), fake.asarray(boards), dead)
    assert got.backend == "cuda"
    for name in FIELDS:
        g = getattr(got, name)
        assert isinstance(g, fake.ndarray), name
        np.testing.assert_array_equal(g.get(), getattr(want, name), err_msg=name)
    # Text input, "auto" with a usable device: the device too.
    texts = [["AhKh", "QsQd"], ["7c7d", "AsKs"]]
    r = ge.equity_batch(texts, ["2c7d9h", "2c8h9s"])
    assert r.backend == "cuda" and type(r.wins) is np.ndarray
    assert r.wins[0].tolist() == [280, 710] and r.boards.tolist() == [990, 990]
    assert r.equity[0].round(4).tolist() == [0.2828, 0.7172]


def test_preflop_stays_on_the_host(fake):
    r = ge.equity_batch([["AhKh", "QsQd"]], backend="cuda")
    assert r.backend == "numpy"
    assert r.wins.tolist() == [[787966, 917606]] and r.ties.tolist() == [[6732, 6732]]
    assert not [x for x in fake.launches if x[0].startswith("ge_batch_")]


def test_spot_counts_rejects_what_it_cannot_play():
    h = np.zeros((1, 11), dtype=np.uint64)
    with pytest.raises(ValueError, match="11 players"):
        cuda_batch.spot_counts(h, np.zeros(1, np.uint64), np.zeros(1, np.uint64), 2)
    with pytest.raises(ValueError, match="k=5"):
        cuda_batch.spot_counts(h[:, :2], np.zeros(1, np.uint64), np.zeros(1, np.uint64), 5)


def test_cuda_without_a_device_says_so(monkeypatch):
    """No usable device: an explicit "cuda" raises (preflop too), "auto" runs NumPy."""
    from gpu_eval import backend_choice

    monkeypatch.setattr(backend_choice, "cuda_status", lambda: (False, "no device (test)"))
    for board in (["2c7d9h"], None):
        with pytest.raises(RuntimeError, match="backend='cuda' is not available"):
            ge.equity_batch([["AhKh", "QsQd"]], board, backend="cuda")
        assert ge.equity_batch([["AhKh", "QsQd"]], board).backend == "numpy"
