"""The sanitizer job: every kernel's host build under AddressSanitizer and UBSan, driven by the
real launchers through the stand-in CuPy over small launches, bad inputs included.

    python tests/emulation/sanitize.py        # .ci/run runs it after the test suite

The kernels to cover come from the manifest (gpu_eval.cuda.manifest.KERNELS): the job fails
if any kernel was not launched, if any result differs from the NumPy path's, or on any
sanitizer report (ASan and UBSan abort the process). The host builds are the sanitized ones
(``kernel_build.load(name, sanitize=True)``); the process re-executes itself with the ASan
runtime preloaded, as a library built with ``-fsanitize=address`` needs in a Python that was
not.

A new kernel is covered once its tests add a case to :data:`CASES` (the job names any kernel
no case launches).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

_TESTS = Path(__file__).resolve().parents[1]
_CHILD = "GPU_EVAL_SANITIZE_CHILD"


def _rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


def _deal(seed: int, n: int, k: int, low: int = 0) -> np.ndarray:
    return (np.argsort(_rng(seed).random((n, 52 - low)), axis=1)[:, :k] + low).astype(np.uint8)


def _same(name: str, got, want) -> None:
    got = got.get() if hasattr(got, "get") else np.asarray(got)
    if not np.array_equal(np.asarray(got), np.asarray(want)):
        raise AssertionError(f"{name}: the kernel's result differs from NumPy's")


def _raises(name: str, fn: Callable[[], object], match: str) -> None:
    try:
        fn()
    except ValueError as exc:
        if match not in str(exc):
            raise AssertionError(f"{name}: {exc!r} does not say {match!r}") from exc
        return
    raise AssertionError(f"{name}: no error")


# --- the cases: each a few small launches through the real launchers -----------------------

def evaluation(cp) -> None:
    import gpu_eval as ge
    from gpu_eval import cards
    from gpu_eval.cuda import holdem

    ids = _deal(1, 300, 7)
    want = ge.evaluate(ids, backend="numpy")
    for alg in ("bitmask", "perfect-hash"):
        _same(f"masks {alg}", holdem.evaluate_masks_cuda(cp.asarray(cards.to_mask(ids)),
                                                         algorithm=alg), want)
        _same(f"ids {alg}", holdem.evaluate_ids_cuda(cp.asarray(ids), algorithm=alg), want)
        _same(f"deadhorse {alg}", holdem.evaluate_deadhorse_cuda(
            cp.asarray(cards.to_deadhorse(ids).astype(np.int32)), algorithm=alg), want)
        _same(f"fused ids {alg}", ge.evaluate(cp.asarray(ids), backend="cuda", algorithm=alg),
              want)
        _same(f"fused masks {alg}", ge.evaluate(cp.asarray(cards.to_mask(ids)), backend="cuda",
                                                algorithm=alg), want)
    _same("deadhorse on the device", ge.evaluate(
        cp.asarray(cards.to_deadhorse(ids).astype(np.int32)), encoding="deadhorse",
        backend="cuda"), want)
    _same("ids to masks (k=4 rows, masked)", ge.evaluate(
        cp.asarray(ids[:, :4]), backend="cuda", invalid="mask"), np.zeros(300, np.uint16))
    # Bad ids: uint8 64..127 and 200..255, int64 far out; masked and raising.
    bad = ids.copy()
    bad[::7, 2] = np.arange(64, 64 + len(bad[::7])) % 256
    bad[3, 0] = 255
    masked = ge.evaluate(cp.asarray(bad), backend="cuda", invalid="mask")
    _same("bad uint8 ids, masked", masked, ge.evaluate(bad, backend="numpy", invalid="mask"))
    _raises("bad uint8 ids", lambda: ge.evaluate(cp.asarray(bad), backend="cuda"),
            "out of range")
    wide = ids.astype(np.int64)
    wide[5, 1] = 300
    _raises("bad int64 ids", lambda: ge.evaluate(cp.asarray(wide), backend="cuda"),
            "card id 300")
    hist = holdem.enumerate_counts_cuda(5, 0, 20_000)
    from gpu_eval import combinatorics

    _same("enumerate", hist, np.bincount(ge.evaluate(combinatorics.subset_masks(52, 5)[:20_000],
                                                     backend="numpy"), minlength=7463))


def variants(cp) -> None:
    import gpu_eval as ge
    from gpu_eval import cards
    from gpu_eval.cuda import variants as CV

    sd = _deal(2, 200, 7, 16)
    want = ge.evaluate(sd, game="shortdeck", backend="numpy")
    _same("shortdeck fused", ge.evaluate(cp.asarray(sd), game="shortdeck"), want)
    _same("shortdeck masks", CV.shortdeck_masks_cuda(cp.asarray(cards.to_mask(sd))), want)
    _same("shortdeck fused masks", ge.evaluate(cp.asarray(cards.to_mask(sd)), game="shortdeck"),
          want)
    _same("shortdeck ids", CV.shortdeck_ids_cuda(cp.asarray(sd)), want)
    _raises("a deuce in short deck", lambda: ge.evaluate(cp.asarray(_deal(3, 5, 7)),
                                                         game="shortdeck"), "short deck")
    om = _deal(4, 200, 9)
    _same("omaha", ge.evaluate_omaha(cp.asarray(om[:, :4]), cp.asarray(om[:, 4:])),
          ge.evaluate_omaha(om[:, :4], om[:, 4:], backend="numpy"))
    wild = _deal(5, 200, 7)
    wild[::3, 0] = 52
    _same("wild", ge.evaluate(cp.asarray(wild), wild="joker"),
          ge.evaluate(wild, wild="joker", backend="numpy"))
    for game, k in (("deuce-seven", 5), ("ace-five", 7), ("badugi", 4)):
        low = _deal(6, 200, k)
        want = ge.evaluate(low, game=game, backend="numpy")
        _same(f"{game} fused ids", ge.evaluate(cp.asarray(low), game=game, backend="cuda"),
              want)
        _same(f"{game} fused masks", ge.evaluate(cp.asarray(cards.to_mask(low)), game=game,
                                                 backend="cuda"), want)
        _same(f"{game} streamed", ge.evaluate(low, game=game, backend="cuda"), want)
        bad = low.copy()
        bad[::9, 1] = 52 + np.arange(len(bad[::9])) % 204  # uint8 ids past the deck
        _same(f"{game} bad ids, masked", ge.evaluate(cp.asarray(bad), game=game,
                                                     backend="cuda", invalid="mask"),
              ge.evaluate(bad, game=game, backend="numpy", invalid="mask"))
    hm, bm = cards.to_mask(om[:, :4]), cards.to_mask(om[:, 4:])
    _same("evaluate_low", ge.evaluate_low(cp.asarray(hm), cp.asarray(bm), backend="cuda"),
          ge.evaluate_low(hm, bm, backend="numpy"))


def state_machine(cp) -> None:
    import gpu_eval as ge
    from gpu_eval.evaluator import statemachine

    five = _deal(8, 300, 5)
    _same("fsm", statemachine.evaluate_fsm(cp.asarray(five), statemachine.build_table(5)),
          ge.evaluate(five, backend="numpy"))


def holdem_equity(cp) -> None:
    from gpu_eval import cards
    from gpu_eval.equity_engine import enumerate_boards as eb
    from gpu_eval.equity_engine.holdem import cuda_engine as ce
    from gpu_eval.equity_engine.holdem import numpy_engine

    deck = [r + s for r in "23456789TJQKA" for s in "cdhs"]
    for n in range(2, 11):
        pool = cards.to_mask(["".join(deck[2 * p:2 * p + 2]) for p in range(n)])
        left = eb.FULL_DECK & ~int(np.bitwise_or.reduce(pool))
        boards = eb.completions(left, 5)[:40]
        mu = np.arange(n, dtype=np.int32).reshape(1, n)
        got = ce.showdown_counts(pool, mu, boards)
        want = numpy_engine.showdown_counts(pool, mu, boards)
        _same(f"showdown, {n} players", got.wins, want.wins)
        w, t, u, u2 = ce.sample_counts([pool[p:p + 1] for p in range(n)], [None] * n, left, 0,
                                       5, 300, 1)
        if int(u.sum()) != 300 * numpy_engine.pot_units(n):
            raise AssertionError(f"monte carlo, {n} players: the pots do not add up")
    w, t, per = ce.pair_matrix_cuda(cards.to_mask(["AhKh", "QsQd", "7c2d"]), eb.FULL_DECK, 3)
    if int(w[0, 1] + w[1, 0] + t[0, 1]) != per:
        raise AssertionError("pair matrix: a pair's boards do not add up")
    state = ce.get_state()
    ctr = np.arange(4 * 64, dtype=np.uint32).reshape(64, 4)
    key = np.ones((64, 2), dtype=np.uint32)
    out = cp.zeros((64, 4), dtype=cp.uint32)
    state.launch("ge_eq_philox", 64, (cp.asarray(ctr), cp.asarray(key), out, np.uint64(64)))
    _same("philox", out, ce.philox4x32(ctr, key))
    holes = [cards.to_mask(["AhKh"]), cards.to_mask(["QsQd", "JsJd"])]
    cum = [None, np.array([1.0, 2.0])]
    dmask = eb.FULL_DECK & ~int(cards.to_mask("AhKhQsQdJsJd"))
    combos, offsets, cw = ce._pack(holes, cum)
    dk = eb.deck_values(dmask)
    mkey = ce.mc_key(3)
    d_h, d_b = cp.zeros(2 * 64, dtype=cp.uint64), cp.zeros(64, dtype=cp.uint64)
    d_ok = cp.zeros(64, dtype=cp.uint8)
    state.launch("ge_eq_mc_draws", 64, (
        np.int32(2), cp.asarray(combos), cp.asarray(offsets), cp.asarray(cw),
        cp.asarray(ce.player_modes(cum)), cp.asarray(dk), np.uint32(len(dk)), np.int32(5),
        np.uint32(mkey[0]), np.uint32(mkey[1]), np.uint64(0), np.uint64(64),
        np.uint32(ce.MAX_TRIES), d_h, d_b, d_ok))
    _same("mc draws", d_h.reshape(64, 2), ce.mc_draws(holes, cum, dmask, 5, 0, 64, mkey)[0])


def batch(cp) -> None:
    import gpu_eval as ge

    for n, b in ((2, 3), (3, 4), (4, 5), (5, 3), (6, 4), (7, 5), (8, 3), (9, 4), (10, 3)):
        deal = _deal(10 + n, 6, 2 * n + b)
        hands, boards = deal[:, :2 * n].reshape(6, n, 2), deal[:, 2 * n:]
        _same(f"equity_batch, {n} players", ge.equity_batch(hands, boards, backend="cuda").wins,
              ge.equity_batch(hands, boards, backend="numpy").wins)


def board_games(cp) -> None:
    import gpu_eval as ge

    deck = [r + s for r in "23456789TJQKA" for s in "cdhs"]
    for n in range(2, 11):
        hands = ["".join(deck[4 * p:4 * p + 4]) for p in range(n)]
        board = " ".join(deck[47:52])
        for game in ("omaha-hilo",) if n == 2 else ("omaha",):
            _same(f"{game} river, {n} players",
                  ge.equity(hands, board=board, game=game, exact=True, backend="cuda").wins,
                  ge.equity(hands, board=board, game=game, exact=True, backend="numpy").wins)
    for n in range(2, 11):  # one sampler per player count
        hands = ["".join(deck[4 * p:4 * p + 4]) for p in range(n - 1)] + ["random"]
        game = "omaha-hilo" if n == 2 else "omaha"
        r = ge.equity(hands, board="As Ks Qs", game=game, exact=False,
                      samples=200, seed=2, backend="cuda")
        if abs(float(r.equity.sum()) - 1) > 1e-9:
            raise AssertionError(f"{game} monte carlo, {n} players: equities do not add up")


def deals(cp) -> None:
    import gpu_eval as ge

    deck = [r + s for r in "23456789TJQKA" for s in "cdhs"]
    for n in range(2, 9):
        # the first players pat, the last drawing one: a grid of one row
        players = ["".join(deck[5 * p:5 * p + 5]) for p in range(n - 1)]
        players.append("".join(deck[5 * (n - 1):5 * (n - 1) + 4]))
        _same(f"five-card draw, {n} players",
              ge.equity(players, game="five-card-draw", exact=True, backend="cuda").wins,
              ge.equity(players, game="five-card-draw", exact=True, backend="numpy").wins)
        drawing = ["".join(deck[4 * p:4 * p + 4]) for p in range(n)]
        r = ge.equity(drawing, game="five-card-draw", exact=False, samples=200, seed=3,
                      backend="cuda")
        if abs(float(r.equity.sum()) - 1) > 1e-9:
            raise AssertionError(f"draw monte carlo, {n} players: equities do not add up")


def solver_tables(cp) -> None:
    import gpu_eval as ge
    from gpu_eval import cards
    from gpu_eval.solver_tables.cuda_engine import river_counts_cuda
    from gpu_eval.solver_tables.layout import deck_layout
    from gpu_eval.solver_tables.river_counts import count_columns

    boards = _deal(20, 6, 5)
    want = ge.board_strengths(boards, backend="numpy")
    _same("board strengths", ge.board_strengths(cp.asarray(boards)), want)
    _same("river counts", river_counts_cuda(cards.to_mask(boards), deck_layout())[0],
          count_columns(want, deck_layout(), 5)[0])


def indexer(cp) -> None:
    import gpu_eval as ge

    idx = ge.HandIndexer((2, 3, 1, 1))
    hands = _deal(21, 200, 7)
    _same("hand index", idx.index(cp.asarray(hands), all_rounds=True),
          idx.index(hands, all_rounds=True, backend="numpy"))
    bad = hands.copy()
    bad[:64, 3] = np.arange(64, 128)  # uint8 ids 64..127: past the deck, and past 63
    _raises("indexer, uint8 ids 64..127", lambda: idx.index(cp.asarray(bad)), "row 0")
    sd = ge.HandIndexer((2, 5), game="shortdeck")
    low = _deal(22, 20, 7, 16)
    low[4, 1] = 3  # a deuce: below the short deck
    _raises("short-deck indexer, an id below the deck", lambda: sd.index(cp.asarray(low)),
            "row 4")


def range_report(cp) -> None:
    import gpu_eval as ge
    from gpu_eval import cards

    hero, villain = "QQ+, AKs, 0.5(76s), KQo:0.3", "JJ-99, AQs:0.7, T9s"
    for game, board in (("holdem", "Kd7c2hAs"), ("shortdeck", "Kd7cTh9s")):
        got = ge.range_report(hero, villain, board=board, game=game, backend="cuda")
        want = ge.range_report(hero, villain, board=board, game=game, backend="numpy")
        _same(f"range report, {game}, wins", got.hero.wins, want.hero.wins)
        _same(f"range report, {game}, ties", got.villain.ties, want.villain.ties)
    boards = ["AsKd7h2c", "9s8s7s2s3h"]
    b_got = ge.range_report(hero, villain, boards=boards, backend="cuda")
    b_want = ge.range_report(hero, villain, boards=boards, backend="numpy")
    _same("range report, boards", b_got.showdowns, b_want.showdowns)
    _same("range report, a CuPy river", ge.range_report(
        hero, villain, board=cp.asarray(cards.parse("Kd7c2h5s9d"))).hero.wins,
        ge.range_report(hero, villain, board="Kd7c2h5s9d", backend="numpy").hero.wins)
    _raises("range report, a card twice", lambda: ge.range_report(
        hero, board=cp.asarray(np.array([51, 51, 3], dtype=np.uint8))), "twice")


CASES: list[Callable] = [evaluation, variants, state_machine, holdem_equity, batch,
                         board_games, deals, solver_tables, indexer, range_report]


def required_kernels() -> set[str]:
    """Every kernel the job must launch: every record of the manifest."""
    from gpu_eval.cuda import manifest

    return set(manifest.KERNELS)


def run() -> int:
    """Run every case on the stand-in with the sanitized builds; 0 when all pass and every
    manifest kernel was launched."""
    sys.path.insert(0, str(_TESTS))
    from gpu_eval.cuda import availability, manifest, modules

    from emulation import fake_cupy, kernel_build

    kernel_build.SANITIZE = True
    sys.modules["cupy"] = fake_cupy
    availability.cuda_available.cache_clear()
    modules.clear_device_caches()
    fake_cupy.reset()
    failed = []
    for case in CASES:
        t0 = time.perf_counter()
        try:
            case(fake_cupy)
        except Exception as exc:  # every case runs; the job fails at the end
            failed.append(f"{case.__name__}: {type(exc).__name__}: {exc}")
        print(f"{case.__name__:<14} {time.perf_counter() - t0:6.1f} s", flush=True)
    launched = {name for name, _, _ in fake_cupy.launches}
    missing = sorted(required_kernels() - launched)
    if missing:
        failed.append(f"kernels no case launched: {', '.join(missing)}")
    if fake_cupy.races:
        failed.append(f"unordered reads: {fake_cupy.races[:3]}")
    for line in failed:
        print(f"FAILED {line}", flush=True)
    print(f"sanitize: {len(launched & required_kernels())} of {len(manifest.KERNELS)} kernels "
          f"under AddressSanitizer and UBSan, {len(fake_cupy.launches)} launches: "
          f"{'FAILED' if failed else 'ok'}", flush=True)
    return 1 if failed else 0


def main() -> int:
    """Re-execute with the ASan runtime preloaded (and abort on the first report)."""
    if os.environ.get(_CHILD):
        return run()
    from emulation import sanitizers

    return subprocess.run([sys.executable, __file__],
                          env=sanitizers.environment(**{_CHILD: "1"})).returncode


if __name__ == "__main__":
    sys.path.insert(0, str(_TESTS))
    sys.exit(main())
