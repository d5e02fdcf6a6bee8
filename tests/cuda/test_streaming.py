"""Every public CUDA entry point at any size: work and outputs in chunks sized from free device
memory, a chunk that runs out of memory retried smaller, and work on the device that holds the
input (gpu_eval.cuda.streaming).

The capped tests give the current device a few hundred KiB more than its modules' tables hold
(CuPy's pool limit; on the stand-in its capacity too) and inputs several times that: each
entry point must still give the NumPy path's integers. They run on the stand-in and, as their
``cuda`` instance, on a real device; the second-device tests need two devices (the stand-in
has them).
"""

from __future__ import annotations

import numpy as np
import pytest

import gpu_eval as ge
from gpu_eval import cards
from gpu_eval.cuda import streaming
from gpu_eval.solver_tables.cuda_engine import river_counts_cuda
from gpu_eval.solver_tables.layout import deck_layout
from gpu_eval.solver_tables.river_counts import count_columns

import kernel_refs as R

CAP = 256 << 10  # device bytes a capped call gets beyond the tables already there


def _deal(rng, n: int, k: int, low: int = 0) -> np.ndarray:
    return (np.argsort(rng.random((n, 52 - low)), axis=1)[:, :k] + low).astype(np.uint8)


# --- the mechanism -------------------------------------------------------------------------


def test_chunks_are_sized_from_free_memory(stand_in_cupy):
    cp = stand_in_cupy
    pool = cp.get_default_memory_pool()
    cp.set_device_memory(pool.used_bytes() + (4 << 20))
    assert streaming.device_budget(cp) == 4 << 20
    assert streaming.rows_per_chunk(cp, 100, 10**9) == (1 << 20) // 100  # a quarter of it
    assert streaming.rows_per_chunk(cp, 100, 7) == 7
    assert streaming.rows_per_chunk(cp, 100, 10**9, max_rows=5) == 5
    pool.set_limit(size=pool.used_bytes() + (1 << 20))  # the pool's limit is lower
    assert streaming.device_budget(cp) == 1 << 20
    cp.set_device_memory(None)
    pool.set_limit(size=0)
    assert streaming.rows_per_chunk(cp, 1, 10**12) == streaming.MAX_CHUNK_BYTES


def test_out_of_memory_is_answered_by_a_smaller_chunk(stand_in_cupy):
    cp = stand_in_cupy
    seen = []

    def work(lo: int, hi: int) -> None:
        if hi - lo > 3:
            raise cp.cuda.memory.OutOfMemoryError(hi - lo, 0)
        seen.append((lo, hi))

    assert streaming.for_chunks(cp, 10, 8, work, rows=16) == 2
    assert seen == [(0, 2), (2, 4), (4, 6), (6, 8), (8, 10)]
    with pytest.raises(cp.cuda.memory.OutOfMemoryError):  # not even one row: the caller's
        streaming.for_chunks(cp, 3, 8, lambda lo, hi: work(lo, hi + 10), rows=4)


def test_stream_host_retries_a_chunk_that_ran_out(stand_in_cupy):
    """A launch that runs out of device memory mid-stream: the chunks before it are kept,
    the rest streams in smaller chunks, every row is right."""
    from gpu_eval.cuda import holdem

    cp = stand_in_cupy
    state = holdem.get_module()
    masks = R.ids_to_masks(R.random_hands(np.random.default_rng(1), 5000, 7))
    sizes = []

    def launch(st, d_in, d_out, m):
        sizes.append(m)
        if m > 600:
            cp.empty(1, dtype=cp.uint8)  # fine
            raise cp.cuda.memory.OutOfMemoryError(m, 0)
        st.launch("ge_eval_masks", m, (d_in[0], d_out[0], np.uint64(m)))

    out, = streaming.stream_host(state, [masks], [streaming.STRENGTHS], launch, chunk_rows=2000)
    np.testing.assert_array_equal(out, ge.evaluate(masks, backend="numpy"))
    assert sizes[:2] == [2000, 1000] and max(sizes[2:]) <= 500
    assert not cp.races


# --- every public entry point with inputs several times the cap ------------------------------


def test_evaluate_every_game_larger_than_the_device(gpu):
    rng = np.random.default_rng(2)
    n = 200_000
    ids = _deal(rng, n, 7)
    sd = _deal(rng, n // 2, 7, 16)
    low = _deal(rng, n // 2, 5)
    wild = _deal(rng, n // 2, 7)
    for args, kw in (((ids[:5],), {}), ((sd[:5],), {"game": "shortdeck"}),
                     ((low[:5],), {"game": "deuce-seven"}), ((wild[:5],), {"wild": "joker"}),
                     ((ids[:5],), {"game": "stud-hilo"})):
        ge.evaluate(*args, backend="cuda", **kw)  # the modules and tables, before the cap
    with gpu.capped(CAP):
        assert ids.nbytes > 4 * CAP
        np.testing.assert_array_equal(ge.evaluate(ids, backend="cuda"),
                                      ge.evaluate(ids, backend="numpy"))
        np.testing.assert_array_equal(ge.evaluate(cards.to_mask(ids), backend="cuda"),
                                      ge.evaluate(ids, backend="numpy"))
        np.testing.assert_array_equal(ge.evaluate(sd, game="shortdeck", backend="cuda"),
                                      ge.evaluate(sd, game="shortdeck", backend="numpy"))
        np.testing.assert_array_equal(ge.evaluate(low, game="deuce-seven", backend="cuda"),
                                      ge.evaluate(low, game="deuce-seven", backend="numpy"))
        np.testing.assert_array_equal(ge.evaluate(wild, wild="joker", backend="cuda"),
                                      ge.evaluate(wild, wild="joker", backend="numpy"))
        # the games without a board: a finished hand through the high or the low evaluator
        half = ids[:n // 2]
        for game, hands in (("stud", half), ("razz", half), ("five-card-draw", low),
                            ("deuce-seven-draw", low), ("badugi-draw", low[:, :4])):
            np.testing.assert_array_equal(ge.evaluate(hands, game=game, backend="cuda"),
                                          ge.evaluate(hands, game=game, backend="numpy"))
        for got, want in zip(ge.evaluate(half, game="stud-hilo", backend="cuda"),
                             ge.evaluate(half, game="stud-hilo", backend="numpy")):
            np.testing.assert_array_equal(got, want)


def test_omaha_and_lows_larger_than_the_device(gpu):
    rng = np.random.default_rng(3)
    n = 100_000
    deal = _deal(rng, n, 9)
    hole, board = deal[:, :4], deal[:, 4:]
    ge.evaluate_omaha(hole[:3], board[:3], backend="cuda")
    ge.evaluate_low(cards.to_mask(hole[:3]), cards.to_mask(board[:3]), backend="cuda")
    with gpu.capped(CAP):
        np.testing.assert_array_equal(ge.evaluate_omaha(hole, board, backend="cuda"),
                                      ge.evaluate_omaha(hole, board, backend="numpy"))
        shared = np.array([51, 47, 43, 39, 2], dtype=np.uint8)
        ok = ~np.isin(hole, shared).any(axis=1)
        np.testing.assert_array_equal(ge.evaluate_omaha(hole[ok], shared, backend="cuda"),
                                      ge.evaluate_omaha(hole[ok], shared, backend="numpy"))
        hm, bm = cards.to_mask(hole), cards.to_mask(board)
        np.testing.assert_array_equal(ge.evaluate_low(hm, bm, backend="cuda"),
                                      ge.evaluate_low(hm, bm, backend="numpy"))
        # one hand against many boards, and the other way round
        apart = bm[(bm & hm[0]) == 0]
        np.testing.assert_array_equal(ge.evaluate_low(hm[:1], apart, backend="cuda"),
                                      ge.evaluate_low(hm[:1], apart, backend="numpy"))


def test_solver_tables_and_the_indexer_larger_than_the_device(gpu):
    rng = np.random.default_rng(4)
    boards = _deal(rng, gpu.size(2000, 400), 5)
    lay = deck_layout()
    ge.board_strengths(boards[:2], backend="cuda")
    river_counts_cuda(cards.to_mask(boards[:2]), lay)
    hands = _deal(rng, 100_000, 7)
    idx = ge.HandIndexer((2, 3, 1, 1))
    idx.index(hands[:2], backend="cuda")
    want = ge.board_strengths(boards, backend="numpy")
    with gpu.capped(CAP):
        assert want.nbytes > 4 * CAP  # the output alone is several times the device
        np.testing.assert_array_equal(ge.board_strengths(boards, backend="cuda"), want)
        w, t = river_counts_cuda(cards.to_mask(boards), lay)
        ww, wt = count_columns(want, lay, 5)
        np.testing.assert_array_equal(w, ww)
        np.testing.assert_array_equal(t, wt)
        np.testing.assert_array_equal(idx.index(hands, all_rounds=True, backend="cuda"),
                                      idx.index(hands, all_rounds=True, backend="numpy"))


def test_equity_larger_than_the_device(gpu):
    deal = _deal(np.random.default_rng(5), gpu.size(40_000, 3000), 9)
    hands, boards = deal[:, :6].reshape(-1, 3, 2), deal[:, 6:]
    dead = None
    ge.equity_batch(hands[:2], boards[:2], backend="cuda")
    spot = (["QQ+,AKs,AQs", "JJ+,AJs+,KQs"], "Kd 7c 2h")
    omaha = (["AsAhKdQc", "KK$ds"], "Kc7d2s")
    ge.equity(spot[0], board="Kd 7c 2h 3s", backend="cuda", exact=True)
    ge.equity(omaha[0], board=omaha[1] + "9h", game="omaha", backend="cuda", exact=True)
    with gpu.capped(CAP // 4):
        got = ge.equity_batch(hands, boards, dead, backend="cuda")
        want = ge.equity_batch(hands, boards, dead, backend="numpy")
        for name in ("wins", "ties", "boards"):
            np.testing.assert_array_equal(getattr(got, name), getattr(want, name))
        got = ge.equity(spot[0], board=spot[1], backend="cuda", exact=True)
        want = ge.equity(spot[0], board=spot[1], backend="numpy", exact=True)
        np.testing.assert_array_equal(got.wins, want.wins)
        np.testing.assert_array_equal(got.ties, want.ties)
        got = ge.equity(omaha[0], board=omaha[1], game="omaha", backend="cuda", exact=True)
        want = ge.equity(omaha[0], board=omaha[1], game="omaha", backend="numpy", exact=True)
        np.testing.assert_array_equal(got.wins, want.wins)


def test_device_ids_of_any_width_without_full_size_temporaries(gpu):
    """int64 CuPy ids: the device holds them and the result, and a small part of them more:
    checking and casting go a chunk at a time (a full int64 temporary would not fit)."""
    cp = gpu.cp
    rng = np.random.default_rng(6)
    ids = _deal(rng, 30_000, 7).astype(np.int64)
    want = ge.evaluate(ids, backend="numpy")
    sd = _deal(rng, 30_000, 7, 16).astype(np.int32)
    ge.evaluate(cp.asarray(ids[:2]), backend="cuda")
    ge.evaluate(cp.asarray(sd[:2]), game="shortdeck", backend="cuda")
    ge.evaluate(cp.asarray(ids[:2, :5]), game="ace-five", backend="cuda")
    idx = ge.HandIndexer((2, 5))
    idx.index(cp.asarray(ids[:2]))
    d_ids = cp.asarray(ids)
    d_sd = cp.asarray(sd)
    bad = d_ids.copy()
    bad[27_777, 3] = 300  # would wrap to a card in uint8
    with gpu.capped(ids.nbytes // 4 + 3 * len(ids) * 8):  # the results, and a quarter more
        got = ge.evaluate(d_ids, backend="cuda")
        np.testing.assert_array_equal(cp.asnumpy(got), want)
        got = ge.evaluate(d_ids, backend="cuda", encoding="ids", invalid="mask")
        np.testing.assert_array_equal(cp.asnumpy(got), want)
        got = ge.evaluate(d_sd, game="shortdeck", backend="cuda")
        np.testing.assert_array_equal(cp.asnumpy(got), ge.evaluate(sd, game="shortdeck",
                                                                   backend="numpy"))
        got = ge.evaluate(d_ids[:, :5], game="ace-five", backend="cuda")
        np.testing.assert_array_equal(cp.asnumpy(got), ge.evaluate(ids[:, :5], game="ace-five",
                                                                   backend="numpy"))
        for game in ("stud", "razz"):  # a finished hand of the games without a board
            got = ge.evaluate(d_ids, game=game, backend="cuda")
            np.testing.assert_array_equal(cp.asnumpy(got), ge.evaluate(ids, game=game,
                                                                       backend="numpy"))
        np.testing.assert_array_equal(cp.asnumpy(idx.index(d_ids)), idx.index(ids))
        with pytest.raises(ValueError, match=r"row 27777.*card id 300 is out of range"):
            ge.evaluate(bad, backend="cuda")
        with pytest.raises(ValueError, match=r"row 27777: card id 300 is out of range"):
            idx.index(bad)


# --- the device that holds the input ----------------------------------------------------------


def test_input_on_the_second_device_is_computed_there(gpu):
    """Every entry point given arrays of device 1 runs there: the stand-in fails a launch
    that reads another device's array, and results stay on device 1."""
    cp = gpu.cp
    if gpu.devices() < 2:
        pytest.skip("one device only")
    rng = np.random.default_rng(7)
    ids = _deal(rng, 500, 7)
    boards = _deal(rng, 20, 5)
    sd = _deal(rng, 300, 7, 16)
    d_ids, d_boards, d_i64, d_masks, d_dh, d_sd, d_bmasks = (_on(cp, 1, a) for a in (
        ids, boards, ids.astype(np.int64), cards.to_mask(ids),
        cards.to_deadhorse(ids).astype(np.int32), sd, cards.to_mask(boards)))
    numpy = ge.evaluate(ids, backend="numpy")
    outs = {
        "evaluate": (ge.evaluate(d_ids), numpy),
        "evaluate int64": (ge.evaluate(d_i64), numpy),
        "evaluate masks": (ge.evaluate(d_masks), numpy),
        "deadhorse": (ge.evaluate(d_dh, encoding="deadhorse"), numpy),
        "shortdeck": (ge.evaluate(d_sd, game="shortdeck"),
                      ge.evaluate(sd, game="shortdeck", backend="numpy")),
        "wild": (ge.evaluate(d_ids, wild="2"), ge.evaluate(ids, wild="2", backend="numpy")),
        "low": (ge.evaluate(d_ids[:, :5], game="ace-five"),
                ge.evaluate(ids[:, :5], game="ace-five", backend="numpy")),
        "evaluate_low": (ge.evaluate_low(d_masks, backend="cuda"),
                         ge.evaluate_low(ids, backend="numpy")),
        "omaha": (ge.evaluate_omaha(d_ids[:, :4], d_ids[:, 4:]),
                  ge.evaluate_omaha(ids[:, :4], ids[:, 4:], backend="numpy")),
        "board_strengths": (ge.board_strengths(d_boards),
                            ge.board_strengths(boards, backend="numpy")),
        "indexer": (ge.HandIndexer((2, 5)).index(d_i64), ge.HandIndexer((2, 5)).index(ids)),
        "river_counts": (river_counts_cuda(d_bmasks, deck_layout(), device_out=True)[0],
                         count_columns(ge.board_strengths(boards, backend="numpy"),
                                       deck_layout(), 5)[0]),
    }
    from gpu_eval.evaluator import statemachine

    outs["fsm"] = (statemachine.evaluate_fsm(d_ids[:, :5], statemachine.build_table(5)),
                   ge.evaluate(ids[:, :5], backend="numpy"))
    hands = ge.cards.parse(["AhKh", "QsQd", "7c7d", "AsKs"]).reshape(2, 2, 2)
    spots = ge.cards.parse(["2c7d9h", "Ah Kd 3c"])
    batch = ge.equity_batch(_on(cp, 1, hands), _on(cp, 1, spots))
    outs["equity_batch"] = (batch.wins, ge.equity_batch(hands, spots, backend="numpy").wins)
    assert cp.cuda.runtime.getDevice() == 0
    for name, (got, want) in outs.items():
        assert got.device.id == 1, name
        np.testing.assert_array_equal(got.get(), want, err_msg=name)


def _on(cp, device: int, host: np.ndarray):
    with cp.cuda.Device(device):
        return cp.asarray(host)
