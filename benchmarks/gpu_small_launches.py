"""Small launches of every CUDA kernel of the package, each checked against a stored value.

Usage:
    python benchmarks/gpu_small_launches.py              # every case, against the stored values
    python benchmarks/gpu_small_launches.py --only deals # the cases whose name has "deals"
    python benchmarks/gpu_small_launches.py --list       # the manifest: cases and their kernels
    python benchmarks/gpu_small_launches.py --store      # NumPy's answers -> the stored values
    python benchmarks/gpu_small_launches.py --profile    # the main kernels at sizes worth
                                                         # profiling (for ncu), once each

The manifest (:func:`cases`) names every case, the kernels it launches and the stand-in
device's support for them; together the cases launch every kernel of every module (bad
inputs included: rows that must raise or be masked). Each case's device answer is reduced to
a digest and compared with the digest of NumPy's answer stored in
``gpu_small_launches.json`` beside this file, so under compute-sanitizer only the device work
runs. ``--store`` recomputes the stored digests (CPU only); a test checks they are current.

benchmarks/gpu_check.sh runs the cases under ``compute-sanitizer --tool memcheck|racecheck``
and ``--profile`` under ``ncu``; its ``--dry-run`` runs them on the stand-in device. Exits 1
on a mismatch, 0 with a message when no GPU is present.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import gpu_eval as ge
from gpu_eval import cards
from gpu_eval.cuda import availability

STORED = Path(__file__).with_suffix(".json")
#: Kernels of the newest modules (range reports, games, deals, batch, solver tables, indexer,
#: lows):
#: ``--newest-first`` runs their cases first, so a capped sanitizer run reaches them.
NEWEST = ("ge_report_", "ge_games_", "ge_deals_", "ge_batch_", "ge_tables_", "ge_hand_index",
          "ge_low_")


@dataclass(frozen=True)
class Case:
    """One check: ``device()`` on the GPU, ``reference()`` on NumPy, the same digest."""

    name: str
    kernels: tuple[str, ...]            # every kernel the device call launches
    device: Callable[[], Any]
    reference: Callable[[], Any]


def digest(value: Any) -> str:
    """A digest of a result: arrays (NumPy or CuPy; integers compared as int64), tuples and
    lists of them, bools, strings.

    Examples
    --------
    >>> digest(np.array([1, 2], np.uint16)) == digest(np.array([1, 2], np.int64))
    True
    """
    h = hashlib.sha256()

    def add(v: Any) -> None:
        if isinstance(v, (tuple, list)):
            h.update(b"(")
            for x in v:
                add(x)
            h.update(b")")
        elif isinstance(v, (bool, np.bool_)):
            h.update(b"T" if v else b"F")
        elif isinstance(v, str):
            h.update(b"s" + v.encode() + b"\0")
        else:
            a = np.asarray(v.get() if hasattr(v, "get") else v)
            if a.dtype.kind in "iu":
                a = a.astype(np.int64)
            h.update(f"a{a.dtype.str}{a.shape}".encode() + np.ascontiguousarray(a).tobytes())

    add(value)
    return h.hexdigest()


def raises(fn: Callable[[], Any], row: str) -> tuple[str, bool]:
    """``(exception type, whether its message names row)`` of a call that must raise."""
    try:
        fn()
    except Exception as exc:  # the type is part of the answer
        return type(exc).__name__, row in str(exc)
    return "no error", False


def _ids(n: int, k: int, seed: int, deck: int = 52, low: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return (np.argsort(rng.random((n, deck)), axis=1)[:, :k] + low).astype(np.uint8)


def _xp(device: bool):
    """CuPy for the device call, NumPy for the reference (imported only when used)."""
    if not device:
        return np
    import cupy

    return cupy


def _np(x):
    return x.get() if hasattr(x, "get") else x


def cases() -> list[Case]:
    """The manifest: every kernel of every module in at least one small case."""
    from gpu_eval.cuda import holdem
    from gpu_eval.equity_engine import enumerate_boards as eb
    from gpu_eval.equity_engine.holdem import cuda_engine as ce
    from gpu_eval.scale import NUM_STRENGTHS

    out: list[Case] = []

    def case(name, kernels, fn):
        """``fn(device: bool)`` answers on the device or on NumPy."""
        out.append(Case(name, tuple(kernels), lambda: fn(True), lambda: fn(False)))

    ids = _ids(3000, 7, 1)
    masks = cards.to_mask(ids)
    dh = cards.to_deadhorse(ids).astype(np.int32)

    def want(device):
        return ge.evaluate(ids, backend="numpy")

    for alg, p in (("bitmask", "ge_"), ("perfect-hash", "ge_phash_")):
        def masks_raw(device, alg=alg):
            return (holdem.evaluate_masks_cuda(_xp(True).asarray(masks), algorithm=alg)
                    if device else want(False))

        def ids_raw(device, alg=alg):
            return (holdem.evaluate_ids_cuda(_xp(True).asarray(ids), algorithm=alg)
                    if device else want(False))

        def dh_raw(device, alg=alg):
            return (holdem.evaluate_deadhorse_cuda(_xp(True).asarray(dh), algorithm=alg)
                    if device else want(False))

        def checked(device, alg=alg, what=masks):
            return ge.evaluate(_xp(device).asarray(what), backend="cuda" if device else "numpy",
                               **({"algorithm": alg} if device else {}))

        def streamed(device, alg=alg):
            return (holdem.evaluate_masks_cuda(masks, algorithm=alg, chunk_rows=1000)
                    if device else want(False))

        case(f"eval_masks {alg}", [p + "eval_masks"], masks_raw)
        case(f"eval_ids {alg}", [p + "eval_ids"], ids_raw)
        case(f"eval_deadhorse {alg}", [p + "eval_deadhorse"], dh_raw)
        case(f"check_eval_masks {alg}", [p + "check_eval_masks"], checked)
        case(f"check_eval_ids {alg}", [p + "check_eval_ids"],
             lambda device, alg=alg: checked(device, alg, ids))
        case(f"streamed masks {alg}", [p + "eval_masks"], streamed)

    def from_deadhorse(device):
        return ge.evaluate(_xp(device).asarray(dh), backend="cuda" if device else "numpy",
                           encoding="deadhorse")

    case("deadhorse_to_masks + eval_masks", ["ge_deadhorse_to_masks", "ge_eval_masks"],
         from_deadhorse)
    bad = ids.copy()
    bad[5, 1] = bad[5, 0]

    def masked(device):
        return ge.evaluate(_xp(device).asarray(bad), backend="cuda" if device else "numpy",
                           invalid="mask")

    case("bad input: a card twice, invalid='mask'", ["ge_check_eval_ids"], masked)
    case("bad input: a card twice raises, naming the row", ["ge_check_eval_ids"],
         lambda device: raises(lambda: ge.evaluate(_xp(device).asarray(bad),
                                                   backend="cuda" if device else "numpy"),
                               "row 5"))
    off = ids[:50].copy()
    off[7, 3] = 60  # an id past the deck

    case("bad input: an id past the deck raises, naming the row", ["ge_check_eval_ids"],
         lambda device: raises(lambda: ge.evaluate(_xp(device).asarray(off),
                                                   backend="cuda" if device else "numpy"),
                               "row 7"))

    def enumerate_counts(device):
        if device:
            return holdem.enumerate_counts_cuda(5, 0, 200_000)
        from gpu_eval import combinatorics

        return np.bincount(ge.evaluate(combinatorics.subset_masks(52, 5)[:200_000],
                                       backend="numpy"), minlength=NUM_STRENGTHS)

    case("enumerate_counts", ["ge_enumerate_counts"], enumerate_counts)

    # Variants: short deck (both rule sets), Omaha, wild cards.
    sd = _ids(2000, 7, 3, deck=36, low=16)
    for game in ("shortdeck", "shortdeck-triton"):
        case(f"{game} ids", ["ge_shortdeck_check_eval_ids"],
             lambda device, game=game: ge.evaluate(_xp(device).asarray(sd), game=game,
                                                   backend="cuda" if device else "numpy"))
        case(f"{game} masks", ["ge_shortdeck_check_eval_masks"],
             lambda device, game=game: ge.evaluate(_xp(device).asarray(cards.to_mask(sd)),
                                                   game=game,
                                                   backend="cuda" if device else "numpy"))

    def sd_raw(device):
        from gpu_eval.cuda import variants as CV

        if not device:
            return (ge.evaluate(sd, game="shortdeck", backend="numpy"),) * 2
        import cupy

        return (CV.shortdeck_masks_cuda(cupy.asarray(cards.to_mask(sd)), "shortdeck"),
                CV.shortdeck_ids_cuda(cupy.asarray(sd), "shortdeck"))

    case("shortdeck raw kernels", ["ge_shortdeck_eval_masks", "ge_shortdeck_eval_ids"], sd_raw)
    om = _ids(2000, 9, 4)
    case("omaha", ["ge_omaha_eval_ids"],
         lambda device: ge.evaluate_omaha(_xp(device).asarray(om[:, :4]),
                                          _xp(device).asarray(om[:, 4:]),
                                          backend="cuda" if device else "numpy"))
    wild = _ids(2000, 7, 5)
    case("wild", ["ge_wild_eval_masks"],
         lambda device: ge.evaluate(_xp(device).asarray(wild), wild=["2"],
                                    backend="cuda" if device else "numpy"))
    case("wild from masks (counted step by step)", ["ge_mask_counts", "ge_wild_eval_masks"],
         lambda device: ge.evaluate(_xp(device).asarray(cards.to_mask(wild)), wild=["2"],
                                    backend="cuda" if device else "numpy"))

    # Lows: 2-7, A-5, badugi (kernels/lowball.cu), and 8-or-better (equity_games.cu).
    five = _ids(2000, 5, 11)
    four = _ids(2000, 4, 12)
    for game, hands in (("deuce-seven", five), ("ace-five", five), ("badugi", four)):
        case(f"low {game}", ["ge_low_check_eval_ids"],
             lambda device, game=game, hands=hands: _np(ge.evaluate(
                 _xp(device).asarray(hands), game=game, backend="cuda" if device else "numpy")))
    case("low deuce-seven, host ids streamed to the device", ["ge_low_eval_masks"],
         lambda device: _np(ge.evaluate(five, game="deuce-seven",
                                        backend="cuda" if device else "numpy")))

    def low_dh(device):
        d = cards.to_deadhorse(five).astype(np.int32)
        return _np(ge.evaluate(_xp(device).asarray(d), game="deuce-seven", encoding="deadhorse",
                               backend="cuda" if device else "numpy"))

    case("low deuce-seven from DeadHorse ints", ["ge_deadhorse_to_masks", "ge_low_eval_masks"],
         low_dh)
    # The step-by-step path (what the fused kernels leave: hands of a size the game does not
    # take, masked; a 2-D mask array).
    case("bad input: 4-card rows of a 5-card low masked (invalid='mask')",
         ["ge_ids_to_masks", "ge_low_eval_masks"],
         lambda device: _np(ge.evaluate(_xp(device).asarray(four), game="deuce-seven",
                                        invalid="mask",
                                        backend="cuda" if device else "numpy")))

    case("low ace-five from masks", ["ge_low_check_eval_masks"],
         lambda device: _np(ge.evaluate(_xp(device).asarray(cards.to_mask(five)), game="ace-five",
                                        backend="cuda" if device else "numpy")))
    hole4, board5 = om[:, :4], om[:, 4:]
    case("8-or-better low, Omaha 2 + 3", ["ge_games_low"],
         lambda device: _np(ge.evaluate_low(_xp(device).asarray(hole4),
                                            _xp(device).asarray(board5),
                                            backend="cuda" if device else "numpy")))

    # State machine.
    def fsm(device):
        from gpu_eval.evaluator import statemachine

        hands = _ids(3000, 5, 6)
        if not device:
            return ge.evaluate(hands, backend="numpy")
        return statemachine.evaluate_fsm(_xp(True).asarray(hands),
                                         statemachine.build_table(5))

    case("fsm", ["ge_fsm_eval_ids"], fsm)

    # Hold'em equity: strengths + showdown (exact, on the turn) and sampling, 2..10 players.
    deck = [r + u for r in "23456789TJQKA" for u in "cdhs"]
    for n in range(2, 11):
        hands = ["".join(deck[2 * p:2 * p + 2]) for p in range(n)]

        def exact(device, hands=hands):
            r = ge.equity(hands, board=" ".join(deck[40:44]), exact=True,
                          backend="cuda" if device else "numpy")
            return r.wins, r.ties

        def sampled(device, hands=hands):
            if not device:
                return True
            r = ge.equity(hands, board=" ".join(deck[40:43]), exact=False, samples=20_000,
                          seed=1, backend="cuda")
            return bool(np.isclose(r.equity.sum(), 1.0) and r.samples == 20_000)

        case(f"equity exact, {n} players", ["ge_eq_strengths", f"ge_eq_showdown_{n}"], exact)
        case(f"equity monte carlo, {n} players (every pot handed out)", [f"ge_eq_sample_{n}"],
             sampled)

    def pairs(device):
        hands = cards.to_mask(["AhKh", "QsQd", "7c2d", "JhTh"])
        if not device:
            return 1
        w, t, per = ce.pair_matrix_cuda(hands, eb.FULL_DECK, 3)
        return int(w[0, 1] + w[1, 0] + t[0, 1] == per)

    case("ge_eq_pairs (4 hands, 3-card boards): every board counted once", ["ge_eq_pairs"],
         pairs)
    ctr = np.arange(4 * 512, dtype=np.uint32).reshape(512, 4)
    key = np.ones((512, 2), dtype=np.uint32)

    def philox(device):
        if not device:
            return ce.philox4x32(ctr, key)
        import cupy

        out = cupy.zeros((512, 4), dtype=cupy.uint32)
        ce.get_state(players=0).kernels["ge_eq_philox"](
            (2,), (256,), (cupy.asarray(ctr), cupy.asarray(key), out, np.uint64(512)))
        return out

    case("ge_eq_philox", ["ge_eq_philox"], philox)

    def mc_draws(device):
        holes = [cards.to_mask(["AhKh"]), cards.to_mask(["QsQd", "JsJd"])]
        cum = [None, np.array([1.0, 2.0])]
        dmask = eb.FULL_DECK & ~int(cards.to_mask("AhKhQsQdJsJd"))
        mkey = ce.mc_key(3)
        if not device:
            return ce.mc_draws(holes, cum, dmask, 5, 0, 512, mkey)[0]
        import cupy

        combos, offsets, cw = ce._pack(holes, cum)
        dk = eb.deck_values(dmask)
        d_h = cupy.zeros(2 * 512, dtype=cupy.uint64)
        d_b = cupy.zeros(512, dtype=cupy.uint64)
        d_ok = cupy.zeros(512, dtype=cupy.uint8)
        ce.get_state(players=0).kernels["ge_eq_mc_draws"](
            (2,), (256,),
            (np.int32(2), cupy.asarray(combos), cupy.asarray(offsets), cupy.asarray(cw),
             cupy.asarray(ce.player_modes(cum)), cupy.asarray(dk), np.uint32(len(dk)),
             np.int32(5), np.uint32(mkey[0]), np.uint32(mkey[1]), np.uint64(0),
             np.uint64(512), np.uint32(ce.MAX_TRIES), d_h, d_b, d_ok))
        return d_h.reshape(512, 2)

    case("ge_eq_mc_draws", ["ge_eq_mc_draws"], mc_draws)

    # equity_batch: ge_batch_N on flop, turn and river spots (a warp / a thread per spot).
    rng = np.random.default_rng(4)
    for n in range(2, 11):
        b = (3, 4, 5)[n % 3]
        spots = np.argsort(rng.random((60, 52)), axis=1)[:, :2 * n + b]
        sh, sb = spots[:, :2 * n].reshape(60, n, 2), spots[:, 2 * n:]
        case(f"equity_batch, {n} players, {b}-card boards", [f"ge_batch_{n}"],
             lambda device, sh=sh, sb=sb: ge.equity_batch(
                 sh, sb, backend="cuda" if device else "numpy").wins)

    # equity_games.cu: Omaha / short deck / hi-lo, exact 2..10 players, sampled.
    for n in range(2, 11):
        players = [cards.format(np.arange(4 * p, 4 * p + 4, dtype=np.uint8), sep="")
                   for p in range(n)]
        board = cards.format(np.arange(44, 48, dtype=np.uint8), sep="")

        def games_exact(device, players=players, board=board):
            r = ge.equity(players, board=board, game="omaha-hilo", exact=True,
                          backend="cuda" if device else "numpy")
            return r.wins, r.ties

        case(f"omaha hi/lo exact, {n} players, turn",
             ["ge_games_strengths", f"ge_games_showdown_{n}"], games_exact)

    # One sampler per player count: a known hand, then "random" players (every pot handed out).
    for n in range(2, 11):
        def games_sampled(device, n=n):
            if not device:
                return True
            r = ge.equity(["AsAhKdQc"] + ["random"] * (n - 1), board="Ac2h3s", game="omaha",
                          exact=False, samples=2048, seed=1, backend="cuda")
            return bool(np.isclose(r.equity.sum(), 1.0) and r.samples == 2048)

        case(f"omaha monte carlo, {n} players (every pot handed out)",
             [f"ge_games_sample_{n}"], games_sampled)
    case("short deck exact, heads-up, flop",
         ["ge_games_strengths", "ge_games_showdown_2"],
         lambda device: ge.equity(["AsKs", "QhQd"], board="Ts9s6c", game="shortdeck",
                                  exact=True, backend="cuda" if device else "numpy").wins)

    # hand_index.cu: every round's index on hold'em by street.
    hi = ge.HandIndexer((2, 3, 1, 1))
    deals7 = _ids(300, 7, 7)
    case("ge_hand_index", ["ge_hand_index"],
         lambda device: _np(hi.index(_xp(device).asarray(deals7), all_rounds=True))
         if device else hi.index(deals7, all_rounds=True, backend="numpy"))
    # The kernel checks ids itself: uint8 ids past the deck (and, in short deck, below its
    # lowest card) only mark their row bad, never index past its tables (memcheck watches).
    bad_ids = deals7[:64].copy()
    bad_ids[5, 3], bad_ids[9, 0], bad_ids[40, 6] = 64, 127, 255
    case("bad input: hand-index ids past the deck raise, naming the row", ["ge_hand_index"],
         lambda device: raises(lambda: hi.index(_xp(device).asarray(bad_ids), all_rounds=True,
                                                backend="cuda" if device else "numpy"),
                               "row 5"))
    sd_index = ge.HandIndexer((2, 5), game="shortdeck")
    sd_ids = _ids(64, 7, 9, deck=36, low=16)
    sd_ids[3, 2] = 7
    case("bad input: a hand-index card below the short deck raises, naming the row",
         ["ge_hand_index"],
         lambda device: raises(lambda: sd_index.index(_xp(device).asarray(sd_ids),
                                                      backend="cuda" if device else "numpy"),
                               "row 3"))

    # solver_tables.cu: board strengths, river counts (and a board that must raise).
    boards = _ids(64, 5, 8)
    case("ge_tables_board_strengths", ["ge_tables_board_strengths"],
         lambda device: _np(ge.board_strengths(_xp(device).asarray(boards),
                                               backend="cuda" if device else "numpy")))

    def river(device):
        from gpu_eval.solver_tables.layout import deck_layout

        board_masks = np.bitwise_or.reduce(cards.ID_TO_MASK[boards], axis=1)
        if device:
            from gpu_eval.solver_tables.cuda_engine import river_counts_cuda

            return river_counts_cuda(board_masks, deck_layout())
        from gpu_eval.solver_tables.river_counts import count_columns

        return count_columns(ge.board_strengths(boards, backend="numpy"), deck_layout(), 5)

    case("ge_tables_river_counts", ["ge_tables_river_counts"], river)
    bad_boards = boards[:10].copy()
    bad_boards[3, 2] = bad_boards[3, 0]
    case("bad input: a board with a card twice raises, naming the row (host check)", [],
         lambda device: raises(lambda: ge.board_strengths(
             _xp(device).asarray(bad_boards), backend="cuda" if device else "numpy"), "3"))

    # equity_deals.cu: completion strengths, the grid of deals (2..8 players), sampling.
    # Draw games, every player drawing one card from n + 1 left (the rest dead): (n + 1)!
    # deals, at most 362,880.
    order = np.argsort(np.random.default_rng(9).random(52)).astype(np.uint8)
    for n in range(2, 9):
        game = ("deuce-seven-draw", "five-card-draw", "badugi-draw")[n % 3]
        keep = 3 if game == "badugi-draw" else 4
        kept = [cards.format(order[keep * p:keep * (p + 1)], sep="") for p in range(n)]
        dead = cards.format(order[keep * n:52 - (n + 1)], sep="")

        def deals_exact(device, game=game, kept=kept, dead=dead):
            r = ge.equity(kept, game=game, dead=dead, exact=True,
                          backend="cuda" if device else "numpy")
            return r.wins, r.ties

        case(f"{game} exact, {n} players, one card each from {n + 1}",
             ["ge_deals_strengths", f"ge_deals_grid_{n}"], deals_exact)

        def deals_sampled(device, game=game, kept=kept):
            if not device:
                return True
            r = ge.equity(kept, game=game, exact=False, samples=4096, seed=1, backend="cuda")
            return bool(abs(r.equity.sum() - 1) < 1e-12 and r.samples == 4096)

        case(f"{game} monte carlo, {n} players (every pot handed out)",
             [f"ge_deals_sample_{n}"], deals_sampled)
    case("stud hi/lo exact, 3 players (low tables on the grid)",
         ["ge_deals_strengths", "ge_deals_grid_3"],
         lambda device: ge.equity(["Ah2c3dKhQc6s", "4s5c6dQhJc7d", "8c8dAs2h7sKd"],
                                  game="stud-hilo", dead="9c", exact=True,
                                  backend="cuda" if device else "numpy").wins)

    # range_report.cu: every river of one turn board (48 small blocks), weighted and 0/1
    # ranges (float and packed weight vectors), a list of boards of two sizes.
    def report(device):
        backend = "cuda" if device else "numpy"
        r = ge.range_report("QQ+, AKs, 0.5(76s)", "JJ-99, AQs", board="Kd7c2hAs",
                            backend=backend)
        b = ge.range_report("AKs, QQ", "JJ, AQo:0.5", boards=["AsKd7h2c", "9s8s7s2s3h"],
                            backend=backend)
        return r.hero.wins, r.hero.ties, r.villain.wins, b.units, b.showdowns

    case("range report, one turn and a list of boards", ["ge_report_counts"], report)
    return out


def every_kernel_name() -> set[str]:
    """Every kernel of every module the package compiles: its kernel manifest's records."""
    from gpu_eval.cuda import manifest as kernel_manifest

    return kernel_manifest.every_kernel_name()


def store(selected: list[Case], merge: bool) -> None:
    """Write the digests of NumPy's answers (needs no GPU); ``merge``: keep the other cases'."""
    stored = json.loads(STORED.read_text()) if merge and STORED.exists() else {}
    for c in selected:
        stored[c.name] = digest(c.reference())
    STORED.write_text(json.dumps(dict(sorted(stored.items())), indent=1) + "\n")
    print(f"stored {len(selected)} digests in {STORED.name}")


def run(selected: list[Case]) -> int:
    """Each case on the device against its stored digest; the number of mismatches (the
    stand-in device of the tests runs every kernel too, from its host builds)."""
    import cupy

    stored = json.loads(STORED.read_text())
    if hasattr(cupy.cuda, "set_allocator"):
        # Each array its own cudaMalloc: memcheck then sees an access past an array's end,
        # which CuPy's pool would hide inside a larger block.
        cupy.cuda.set_allocator(None)
    bad = 0
    for c in selected:
        t = time.perf_counter()
        got = digest(c.device())
        ok = stored.get(c.name) == got
        bad += not ok
        print(f"{'ok ' if ok else 'BAD'} {c.name} ({time.perf_counter() - t:.2f} s)"
              + ("" if ok else f": digest {got[:12]}, stored {str(stored.get(c.name))[:12]}"),
              flush=True)
    cupy.cuda.runtime.deviceSynchronize()
    return bad


def profile(small: bool = False) -> None:
    """The launches Nsight Compute looks at, each main kernel once at a size worth profiling:
    evaluation (raw and fused), enumeration, the all-pairs matrix, Omaha and stud equity,
    equity_batch, the solver tables, the hand indexer, the lows and the range report's
    counting (``small``: tiny sizes,
    for the stand-in device)."""
    import cupy

    from gpu_eval.cuda import holdem
    from gpu_eval.cuda import lowball as cuda_lows
    from gpu_eval.equity_engine import enumerate_boards as eb
    from gpu_eval.equity_engine.holdem import cuda_engine as ce

    # The newest modules' kernels first and the many-launch pair matrix last: ncu profiles the
    # first --launch-count matching launches.
    n = 1 << (16 if small else 24)
    # A range report: every runout of a flop (1,176 boards; small: the 48 rivers of a turn).
    ge.range_report("22+,A2+,K2+,Q2+,J2+,T2+,92+,82+", "22+,A2+,K2+,Q2+,J5+,T6+,96s+,86s+",
                    board="Kd7c2hAs" if small else "Kd7c2h", backend="cuda")
    ids = cupy.asarray(np.tile(_ids(1 << 16, 7, 9), (n >> 16, 1)))
    masks = cupy.asarray(np.tile(cards.to_mask(_ids(1 << 16, 7, 9)), n >> 16))
    ge.equity(["AsAhKdQc", "JhTc9s8d"], board="Ac2h3s", game="omaha", exact=True,
              backend="cuda")
    ge.equity(["AhKh3c4d7s", "QsQd7h8h2c"] if small else ["AhKh3c4d", "QsQd7h8h"], game="stud",
              exact=True, backend="cuda")
    spots = np.argsort(np.random.default_rng(1).random((1 << (8 if small else 17), 52)),
                       axis=1)[:, :7]
    ge.equity_batch(spots[:, :4].reshape(-1, 2, 2), spots[:, 4:], backend="cuda")
    boards = cupy.asarray(_ids(1 << (6 if small else 14), 5, 10))
    ge.board_strengths(boards)
    from gpu_eval.solver_tables.cuda_engine import river_counts_cuda
    from gpu_eval.solver_tables.layout import deck_layout

    river_counts_cuda(cupy.asarray(np.bitwise_or.reduce(cards.ID_TO_MASK[_ids(
                          32 if small else 2048, 5, 11)], axis=1)), deck_layout(),
                      device_out=True)
    ge.HandIndexer((2, 3, 1, 1)).index(ids[: 1 << (12 if small else 22)], all_rounds=True)
    cuda_lows.low_masks_cuda(cupy.asarray(np.tile(cards.to_mask(_ids(1 << 16, 5, 12)),
                                                  n >> 16)), "deuce-seven")
    holdem.evaluate_masks_cuda(masks)
    holdem.evaluate_ids_cuda(ids)
    ge.evaluate(masks, backend="cuda")
    ge.evaluate(ids, backend="cuda")
    holdem.enumerate_counts_cuda(5 if small else 7, 0, 1 << 16 if small else None)
    # small: 8 hands of a 16-card deck (the 2s to 5s), 3-card boards
    hands = ge.Range("22-55" if small else "22+,A2s+,K9s+,QTs+,ATo+,KJo+").masks[
        :8 if small else 64]
    ce.pair_matrix_cuda(np.asarray(hands, dtype=np.uint64),
                        int(cards.to_mask("2c2d2h2s3c3d3h3s4c4d4h4s5c5d5h5s")) if small
                        else eb.FULL_DECK, 3 if small else 5)
    cupy.cuda.runtime.deviceSynchronize()
    print("profile launches done", flush=True)


#: Kernels ``--profile`` launches (gpu_check.sh's ncu filter is built from this).
PROFILED = ("ge_eval_masks", "ge_eval_ids", "ge_check_eval_masks", "ge_check_eval_ids",
            "ge_enumerate_counts", "ge_eq_pairs", "ge_games_strengths", "ge_games_showdown_2",
            "ge_deals_strengths", "ge_deals_grid_2", "ge_batch_2", "ge_tables_board_strengths",
            "ge_tables_river_counts", "ge_hand_index", "ge_low_eval_masks", "ge_report_counts")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--store", action="store_true")
    parser.add_argument("--only", default="", help="cases whose name contains this")
    parser.add_argument("--newest-first", action="store_true",
                        help="the newest modules' cases first (a capped run reaches them)")
    parser.add_argument("--small", action="store_true", help="--profile at tiny sizes")
    parser.add_argument("--ncu-filter", action="store_true",
                        help="print the ncu kernel-name regex of --profile's kernels")
    args = parser.parse_args(argv)
    if args.ncu_filter:
        print("regex:^(" + "|".join(PROFILED) + ")$")
        return 0
    selected = [c for c in cases() if args.only in c.name]
    if args.newest_first:  # a stable sort: the newest modules' cases, then the others
        selected.sort(key=lambda c: not any(k.startswith(NEWEST) for k in c.kernels))
    if args.list:
        for c in selected:
            print(f"{c.name}: {' '.join(c.kernels)}")
        return 0
    if args.store:
        store(selected, merge=bool(args.only))
        return 0
    ok, reason = availability.cuda_available()
    if not ok:
        print(f"gpu_small_launches: no GPU on this machine: {reason}")
        return 0
    if args.profile:
        profile(args.small)
        return 0
    bad = run(selected)
    print(f"{len(selected) - bad} of {len(selected)} cases match the stored values")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
