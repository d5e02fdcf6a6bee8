"""Throughput of the game variants (Omaha, short deck, wild cards) on NumPy, with peers measured
in the same run when installed: phevaluator's Omaha (evaluate_omaha_cards) and pokerkit's short
deck (ShortDeckHoldemHand). Prints medians of several repeats and ratios against the peer.

Usage: python benchmarks/bench_variants.py [--n 2000000] [--peer-n 50000] [--repeats 5]
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time

import numpy as np

import gpu_eval as ge
from gpu_eval import _backend, cards, omaha as omaha_mod, shortdeck as shortdeck_mod
from gpu_eval import wild as wild_mod
from gpu_eval.bench import random_hands


def median_rate(fn, n: int, repeats: int) -> float:
    fn()  # warm-up: tables, thread pool, caches
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return n / statistics.median(times)


def row(name: str, rate: float, n: int, peer: float | None = None) -> None:
    ratio = f"{rate / peer:9.1f}x" if peer else " " * 10
    print(f"  {name:<46} {rate / 1e6:9.3f} M hands/s {ratio}  (n={n:,})")


def omaha(n: int, peer_n: int, repeats: int) -> None:
    print("\nOmaha (exactly 2 hole + 3 board cards; ratio vs phevaluator.evaluate_omaha_cards)")
    try:
        from phevaluator import evaluate_omaha_cards
    except ImportError:
        evaluate_omaha_cards = None
    for h, game in ((4, "omaha"), (5, "omaha5"), (6, "omaha6")):
        for k in ((3, 4, 5) if h == 4 else (5,)):
            deal = random_hands(n, h + k, seed=10 * h + k)
            hole, board = np.ascontiguousarray(deal[:, :h]), np.ascontiguousarray(deal[:, h:])
            peer = None
            if evaluate_omaha_cards is not None and h == 4 and k == 5:
                rows = [(b, hh) for hh, b in zip(hole[:peer_n].tolist(),
                                                 board[:peer_n].tolist())]
                peer = median_rate(lambda: [evaluate_omaha_cards(*b, *hh) for b, hh in rows],
                                   peer_n, repeats)
                row("peer: phevaluator.evaluate_omaha_cards PLO4", peer, peer_n)
            rate = median_rate(lambda: ge.evaluate_omaha(hole, board, game=game,
                                                         backend="numpy"), n, repeats)
            row(f"gpu_eval numpy {game}, {k}-card board", rate, n, peer)
    deal = random_hands(n, 4, seed=1)
    board = np.array([51, 46, 41, 8, 0], dtype=np.uint8)  # As Kh Qd 4c 2c
    ok = ~np.isin(deal, board).any(axis=1)
    hole = np.ascontiguousarray(deal[ok])
    rate = median_rate(lambda: ge.evaluate_omaha(hole, board, backend="numpy"), len(hole),
                       repeats)
    row("gpu_eval numpy omaha, one shared board", rate, len(hole))


def short_deck(n: int, peer_n: int, repeats: int) -> None:
    print("\nShort deck, 7 cards (ratio vs pokerkit ShortDeckHoldemHand.from_game)")
    rng = np.random.default_rng(36)
    deck = np.arange(16, 52, dtype=np.uint8)
    hands = np.empty((n, 7), dtype=np.uint8)
    for s in range(0, n, 1 << 18):
        e = min(n, s + (1 << 18))
        hands[s:e] = deck[np.argpartition(rng.random((e - s, 36)), 7, axis=1)[:, :7]]
    peer = None
    try:
        import pokerkit
    except ImportError:
        pokerkit = None
    if pokerkit is not None:
        texts = cards.format(hands[:peer_n])
        pairs = [(t[:4], t[4:]) for t in texts]
        make = pokerkit.ShortDeckHoldemHand.from_game
        peer = median_rate(lambda: [make(a, b) for a, b in pairs], peer_n, repeats)
        row("peer: pokerkit ShortDeckHoldemHand.from_game", peer, peer_n)
    masks = cards.to_mask(hands)
    for game in ("shortdeck", "shortdeck-triton"):
        for enc, data in (("ids", hands), ("masks", masks)):
            rate = median_rate(lambda: ge.evaluate(data, game=game, backend="numpy"), n,
                               repeats)
            row(f"gpu_eval numpy {game} ({enc})", rate, n, peer)


def wild(n: int, repeats: int) -> None:
    print("\nWild cards, 7 cards (no peer measured)")
    base = random_hands(n, 7, seed=7)
    with_joker = base.copy()
    with_joker[::2, 0] = 52  # every other hand holds a joker
    for name, hands, spec in (("1 joker in half the hands", with_joker, "joker"),
                              ("deuces wild", base, "2"),
                              ("jokers and deuces", with_joker, ["joker", "2"]),
                              ("the bug in half the hands", with_joker, "bug")):
        rate = median_rate(lambda: ge.evaluate(hands, wild=spec, backend="numpy"), n, repeats)
        row(f"gpu_eval numpy, {name}", rate, n)
    rate = median_rate(lambda: ge.evaluate(base, backend="numpy"), n, repeats)
    row("(reference: plain hold'em, same hands)", rate, n)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=2_000_000)
    parser.add_argument("--peer-n", type=int, default=50_000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    ok, why = _backend.cuda_status()
    print(f"machine: {platform.processor() or platform.machine()}, Python "
          f"{platform.python_version()}; GPU: {'yes' if ok else 'no (' + why + ')'}")
    for build in (omaha_mod.omaha_tables, shortdeck_mod.shortdeck_tables, wild_mod.wild_tables):
        t0 = time.perf_counter()
        build()
        print(f"tables {build.__module__}.{build.__name__}: {time.perf_counter() - t0:.2f} s")
    omaha(args.n, args.peer_n, args.repeats)
    short_deck(args.n, args.peer_n // 10, args.repeats)
    wild(args.n, args.repeats)
    if ok:
        print("\nGPU: the variant kernels (kernels/variants.cu) are compiled and tested as host "
              "C++ but not wired to CuPy yet; no GPU figures.")


if __name__ == "__main__":
    main()
