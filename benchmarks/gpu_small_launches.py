"""One small launch of every CUDA kernel of the package, for compute-sanitizer and Nsight Compute.

Usage:
    python benchmarks/gpu_small_launches.py            # every kernel once, small inputs
    python benchmarks/gpu_small_launches.py --profile  # evaluation, enumeration, all-pairs at
                                                       # sizes worth profiling (for ncu)

benchmarks/gpu_check.sh runs the first under ``compute-sanitizer --tool memcheck|racecheck|
synccheck`` and the second under ``ncu --clock-control none``. Results are checked against
the NumPy path, so a kernel that misbehaves only under a tool still fails here. Exits 0 with
a message when no GPU is present.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

import gpu_eval as ge
from gpu_eval import cards
from gpu_eval.cuda import availability, holdem
from gpu_eval.cuda import equity as ce
from gpu_eval.equity_engine import enumerate_boards as eb
from gpu_eval.scale import NUM_STRENGTHS


def _ids(n: int, k: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.argsort(rng.random((n, 52)), axis=1)[:, :k].astype(np.uint8)


def _check(name: str, got, want) -> None:
    got = got.get() if hasattr(got, "get") else np.asarray(got)
    if not np.array_equal(np.asarray(got), np.asarray(want)):
        raise SystemExit(f"{name}: the device result differs from NumPy's")
    print(f"ok  {name}", flush=True)


def every_kernel() -> None:
    """Each kernel once (the launches are small: a sanitizer slows them down 10-100x)."""
    import cupy

    ids = _ids(3000, 7, 1)
    want = ge.evaluate(ids, backend="numpy")
    d_ids = cupy.asarray(ids)
    d_masks = cupy.asarray(cards.to_mask(ids))
    host_masks = cards.to_mask(ids)
    for alg in ("bitmask", "perfect-hash"):
        _check(f"eval_masks {alg}", holdem.evaluate_masks_cuda(d_masks, algorithm=alg), want)
        _check(f"eval_ids {alg}", holdem.evaluate_ids_cuda(d_ids, algorithm=alg), want)
        _check(f"eval_deadhorse {alg}", holdem.evaluate_deadhorse_cuda(
            cupy.asarray(cards.to_deadhorse(ids).astype(np.int32)), algorithm=alg), want)
        _check(f"check_eval_masks {alg}", ge.evaluate(d_masks, backend="cuda", algorithm=alg),
               want)
        _check(f"check_eval_ids {alg}", ge.evaluate(d_ids, backend="cuda", algorithm=alg),
               want)
        _check(f"streamed masks {alg}", holdem.evaluate_masks_cuda(
            host_masks, algorithm=alg, chunk_rows=1000), want)
    dh = cupy.asarray(cards.to_deadhorse(ids).astype(np.int32))
    _check("deadhorse_to_masks + mask_counts", ge.evaluate(dh, backend="cuda",
                                                           encoding="deadhorse"), want)
    bad = d_ids.copy()
    bad[5, 1] = bad[5, 0]
    _check("ids_to_masks path (invalid='mask')",
           ge.evaluate(bad, backend="cuda", invalid="mask")[5], 0)
    _check("enumerate_counts", holdem.enumerate_counts_cuda(5, 0, 200_000),
           np.bincount(ge.evaluate(_first_subsets(5, 200_000), backend="numpy"),
                       minlength=NUM_STRENGTHS))

    # Variants: short deck, Omaha (per-row and shared board, streamed), wild cards.
    sd = np.argsort(np.random.default_rng(3).random((2000, 36)), axis=1)[:, :7].astype(
        np.uint8) + 16
    _check("shortdeck ids", ge.evaluate(cupy.asarray(sd), game="shortdeck", backend="cuda"),
           ge.evaluate(sd, game="shortdeck", backend="numpy"))
    _check("shortdeck masks", ge.evaluate(cupy.asarray(cards.to_mask(sd)), game="shortdeck",
                                          backend="cuda"),
           ge.evaluate(sd, game="shortdeck", backend="numpy"))
    om = _ids(2000, 9, 4)
    _check("omaha", ge.evaluate_omaha(cupy.asarray(om[:, :4]), cupy.asarray(om[:, 4:]),
                                      backend="cuda"),
           ge.evaluate_omaha(om[:, :4], om[:, 4:], backend="numpy"))
    wild = _ids(2000, 7, 5)
    _check("wild", ge.evaluate(cupy.asarray(wild), wild=["2"], backend="cuda"),
           ge.evaluate(wild, wild=["2"], backend="numpy"))

    # State machine.
    from gpu_eval.evaluator import statemachine

    table = statemachine.build_table(5)
    five = _ids(3000, 5, 6)
    _check("fsm", statemachine.evaluate_fsm(cupy.asarray(five), table),
           ge.evaluate(five, backend="numpy"))

    # Equity: strengths + showdown for 2..10 players (exact, on the turn), sampling for 2..10.
    deck = [r + u for r in "23456789TJQKA" for u in "cdhs"]
    for n in range(2, 11):
        hands = ["".join(deck[2 * p:2 * p + 2]) for p in range(n)]
        board = " ".join(deck[40:44])
        a = ge.equity(hands, board=board, exact=True, backend="cuda")
        b = ge.equity(hands, board=board, exact=True, backend="numpy")
        _check(f"equity exact, {n} players (ge_eq_strengths, ge_eq_showdown_{n})", a.wins,
               b.wins)
        r = ge.equity(hands, board=" ".join(deck[40:43]), samples=20_000, seed=1,
                      backend="cuda")
        _check(f"equity monte carlo, {n} players (ge_eq_sample_{n})",
               np.isclose(r.equity.sum(), 1.0), True)
    hands = cards.to_mask(["AhKh", "QsQd", "7c2d", "JhTh"])
    w, t, per = ce.pair_matrix_cuda(hands, eb.FULL_DECK, 3)
    _check("ge_eq_pairs (4 hands, 3-card boards)", w[0, 1] + w[1, 0] + t[0, 1], per)
    state = ce.get_state()
    ctr = np.arange(4 * 512, dtype=np.uint32).reshape(512, 4)
    key = np.ones((512, 2), dtype=np.uint32)
    out = cupy.zeros((512, 4), dtype=cupy.uint32)
    state.kernels["ge_eq_philox"]((2,), (256,), (cupy.asarray(ctr), cupy.asarray(key), out,
                                                 np.uint64(512)))
    _check("ge_eq_philox", out, ce.philox4x32(ctr, key))
    holes = [cards.to_mask(["AhKh"]), cards.to_mask(["QsQd", "JsJd"])]
    cum = [None, np.array([1.0, 2.0])]
    dmask = eb.FULL_DECK & ~int(cards.to_mask("AhKhQsQdJsJd"))
    combos, offsets, cw = ce._pack(holes, cum)
    dk = eb.deck_values(dmask)
    mkey = ce.mc_key(3)
    d_h = cupy.zeros(2 * 512, dtype=cupy.uint64)
    d_b = cupy.zeros(512, dtype=cupy.uint64)
    d_ok = cupy.zeros(512, dtype=cupy.uint8)
    state.kernels["ge_eq_mc_draws"](
        (2,), (256,),
        (np.int32(2), cupy.asarray(combos), cupy.asarray(offsets), cupy.asarray(cw),
         cupy.asarray(ce.player_modes(cum)), cupy.asarray(dk), np.uint32(len(dk)), np.int32(5),
         np.uint32(mkey[0]), np.uint32(mkey[1]), np.uint64(0), np.uint64(512),
         np.uint32(ce.MAX_TRIES), d_h, d_b, d_ok))
    h, b, ok = ce.mc_draws(holes, cum, dmask, 5, 0, 512, mkey)
    _check("ge_eq_mc_draws", d_h.reshape(512, 2), h)
    # equity_batch: ge_batch_N on flop, turn and river spots (a warp / a thread per spot).
    rng = np.random.default_rng(4)
    for n, b in ((2, 3), (3, 4), (4, 5), (10, 3)):
        deals = np.argsort(rng.random((200, 52)), axis=1)[:, :2 * n + b]
        sh, sb = deals[:, :2 * n].reshape(200, n, 2), deals[:, 2 * n:]
        _check(f"equity_batch, {n} players, {b}-card boards (ge_batch_{n})",
               ge.equity_batch(sh, sb, backend="cuda").wins,
               ge.equity_batch(sh, sb, backend="numpy").wins)
    # hand_index.cu: ge_hand_index on hold'em by street, every round's index.
    hi = ge.HandIndexer((2, 3, 1, 1))
    deals = np.argsort(rng.random((300, 52)), axis=1)[:, :7].astype(np.uint8)
    _check("ge_hand_index", hi.index(cupy.asarray(deals), all_rounds=True).get(),
           hi.index(deals, all_rounds=True, backend="numpy"))
    # solver_tables.cu: ge_tables_board_strengths and ge_tables_river_counts.
    from gpu_eval.cuda.solver_tables import river_counts_cuda
    from gpu_eval.solver_tables.layout import deck_layout
    from gpu_eval.solver_tables.river_counts import count_columns

    boards = np.argsort(rng.random((64, 52)), axis=1)[:, :5].astype(np.uint8)
    _check("ge_tables_board_strengths", ge.board_strengths(cupy.asarray(boards)).get(),
           ge.board_strengths(boards, backend="numpy"))
    masks = np.bitwise_or.reduce(ge.cards.ID_TO_MASK[boards], axis=1)
    _check("ge_tables_river_counts", river_counts_cuda(masks, deck_layout())[0],
           count_columns(ge.board_strengths(boards, backend="numpy"), deck_layout(), 5)[0])
    # equity_deals.cu: ge_deals_strengths and ge_deals_grid_N (exact), ge_deals_sample.
    for game, players, dead in (("razz", ["Ah2h3h4h5h", "Kh2d3d4d5d"], ""),
                                ("stud-hilo", ["Ah2c3dKhQc6s", "4s5c6dQhJc", "8c8dAs2h7s"], "9c"),
                                ("deuce-seven-draw", ["7d5h4c", "8h6d4s2c"], "")):
        _check(f"{game} deals (ge_deals_grid_{len(players)})",
               ge.equity(players, game=game, dead=dead, backend="cuda", exact=True).wins,
               ge.equity(players, game=game, dead=dead, backend="numpy", exact=True).wins)
    mc = ge.equity(["AhKh3c", "QsQd7h"], game="stud-hilo", backend="cuda", exact=False,
                   samples=4096, seed=1)
    _check("ge_deals_sample_2 (every sample's pot handed out)",
           bool(abs(mc.equity.sum() - 1) < 1e-12 and mc.samples == 4096), True)
    # range_report.cu: ge_report_counts on the rivers of one turn board (48 small blocks).
    _check("ge_report_counts",
           ge.range_report("QQ+, AKs, 0.5(76s)", "JJ-99, AQs", board="Kd7c2hAs",
                           backend="cuda").hero.wins,
           ge.range_report("QQ+, AKs, 0.5(76s)", "JJ-99, AQs", board="Kd7c2hAs",
                           backend="numpy").hero.wins)
    cupy.cuda.runtime.deviceSynchronize()


def _first_subsets(k: int, count: int) -> np.ndarray:
    """The first ``count`` colex-ordered k-card subsets, as masks (what enumeration counts)."""
    from gpu_eval import combinatorics

    return combinatorics.subset_masks(52, k)[:count]


def profile() -> None:
    """The launches Nsight Compute looks at: evaluation (raw and fused), enumeration of all
    7-card hands, the all-pairs matrix on one 64 x 64 tile over every 5-card board."""
    import cupy

    n = 1 << 24
    ids = cupy.asarray(np.tile(_ids(1 << 16, 7, 9), (n >> 16, 1)))
    masks = cupy.asarray(np.tile(cards.to_mask(_ids(1 << 16, 7, 9)), n >> 16))
    holdem.evaluate_masks_cuda(masks)
    holdem.evaluate_ids_cuda(ids)
    ge.evaluate(masks, backend="cuda")
    ge.evaluate(ids, backend="cuda")
    holdem.enumerate_counts_cuda(7)
    hands = ge.Range("22+,A2s+,K9s+,QTs+,ATo+,KJo+").masks[:64]
    ce.pair_matrix_cuda(np.asarray(hands, dtype=np.uint64), eb.FULL_DECK, 5)
    cupy.cuda.runtime.deviceSynchronize()
    print("profile launches done", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args(argv)
    ok, reason = availability.cuda_available()
    if not ok:
        print(f"gpu_small_launches: no GPU on this machine: {reason}")
        return 0
    profile() if args.profile else every_kernel()
    return 0


if __name__ == "__main__":
    sys.exit(main())
