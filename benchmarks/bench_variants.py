"""Throughput of the game variants (Omaha, short deck, wild cards) on NumPy, with peers measured
in the same run when installed: phevaluator's Omaha (evaluate_omaha_cards) and pokerkit's short
deck (ShortDeckHoldemHand). Prints medians of several repeats and ratios against the peer.
With a CUDA device, GPU rows follow: the variant kernels on device-resident hands (timed with
CUDA events around the launch), the validated public calls on CuPy input (wall clock, input
checks included), and NumPy input streamed through the device (wall clock, in -> out).

Usage: python benchmarks/bench_variants.py [--n 2000000] [--peer-n 50000] [--repeats 5]
       [--gpu-n 33554432] [--gpu-only]
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time

import numpy as np

import gpu_eval as ge
from gpu_eval import backend_choice, cards
from gpu_eval.bench import median_event_seconds, median_rate, random_hands
from gpu_eval.games import omaha as omaha_mod
from gpu_eval.games import shortdeck as shortdeck_mod
from gpu_eval.games import wild as wild_mod


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
    parser.add_argument("--gpu-n", type=int, default=1 << 25,
                        help="hands per device-resident GPU run")
    parser.add_argument("--gpu-only", action="store_true", help="skip the NumPy rows")
    args = parser.parse_args()
    ok, why = backend_choice.cuda_status()
    print(f"machine: {platform.processor() or platform.machine()}, Python "
          f"{platform.python_version()}; GPU: {'yes' if ok else 'no (' + why + ')'}")
    if args.gpu_only:
        if ok:
            gpu(args.gpu_n, args.repeats)
        else:
            print(f"bench_variants: no GPU benchmark on this machine: {why}")
        return
    for build in (omaha_mod.omaha_tables, shortdeck_mod.shortdeck_tables, wild_mod.wild_tables):
        t0 = time.perf_counter()
        build()
        print(f"tables {build.__module__}.{build.__name__}: {time.perf_counter() - t0:.2f} s")
    omaha(args.n, args.peer_n, args.repeats)
    short_deck(args.n, args.peer_n // 10, args.repeats)
    wild(args.n, args.repeats)
    if ok:
        gpu(args.gpu_n, args.repeats)
    else:
        print(f"\nGPU: no device here ({why}); no GPU figures.")


def gpu(n: int, repeats: int) -> None:
    """GPU rows (device-resident kernels, validated CuPy calls, streamed NumPy input)."""
    import cupy

    from gpu_eval.cuda import variants as CV

    t0 = time.perf_counter()
    state = CV.get_module(families=CV.FAMILIES)  # compile + upload outside the timings
    props = cupy.cuda.runtime.getDeviceProperties(state.device_id)
    name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
    print(f"\nGPU: device {state.device_id} {name}, {state.sm_count} SMs, CuPy "
          f"{cupy.__version__}; module + tables ready in {time.perf_counter() - t0:.1f} s")

    def events(fn) -> float:
        return median_event_seconds(fn, repeats)

    def wall(fn) -> float:
        def run():
            fn()
            cupy.cuda.Device().synchronize()
        run()
        times = []
        for _ in range(max(1, min(3, repeats))):
            t = time.perf_counter()
            run()
            times.append(time.perf_counter() - t)
        return statistics.median(times)

    def grow(base: np.ndarray):
        """``n`` rows on the device: ``base`` (2**20 random rows) repeated."""
        d = cupy.asarray(base)
        return cupy.tile(d, (-(-n // len(base)),) + (1,) * (d.ndim - 1))[:n]

    def grow_host(base: np.ndarray, m: int) -> np.ndarray:
        return np.tile(base, (-(-m // len(base)),) + (1,) * (base.ndim - 1))[:m]

    host_n = min(n, 1 << 24)
    table = cupy.asarray(cards.ID_TO_MASK)

    def dev_masks(d_ids):
        m = table[d_ids[:, 0]]
        for j in range(1, d_ids.shape[1]):
            m |= table[d_ids[:, j]]
        return m

    base_n = 1 << 20
    print(f"  {'what':<62} {'G hands/s':>10} {'time':>10}")

    def out(what: str, hands: int, seconds: float) -> None:
        print(f"  {what:<62} {hands / seconds / 1e9:10.3f} {seconds * 1e3:8.1f}ms", flush=True)

    rng = np.random.default_rng(36)
    deck = np.arange(16, 52, dtype=np.uint8)
    sd = deck[np.argpartition(rng.random((base_n, 36)), 7, axis=1)[:, :7]]
    d_ids = grow(sd)
    d_masks = dev_masks(d_ids)
    for game in ("shortdeck", "shortdeck-triton"):
        out(f"short deck {game}: kernel, device masks (7 cards)", n,
            events(lambda: CV.shortdeck_masks_cuda(d_masks, game)))
        out(f"short deck {game}: kernel, device ids (7 cards)", n,
            events(lambda: CV.shortdeck_ids_cuda(d_ids, game)))
        out(f"short deck {game}: evaluate(cupy ids), validated", n,
            wall(lambda: ge.evaluate(d_ids, game=game)))
    host = grow_host(sd, host_n)
    out("short deck: evaluate(numpy ids, backend='cuda'), streamed", host_n,
        wall(lambda: ge.evaluate(host, game="shortdeck", backend="cuda")))
    del d_ids, d_masks, host

    for h, game in ((4, "omaha"), (5, "omaha5"), (6, "omaha6")):
        deal = random_hands(base_n, h + 5, seed=h)
        d_hole, d_board = grow(np.ascontiguousarray(deal[:, :h])), \
            grow(np.ascontiguousarray(deal[:, h:]))
        d_hole, d_board = cupy.ascontiguousarray(d_hole), cupy.ascontiguousarray(d_board)
        out(f"{game}: kernel, device ids, 5-card boards", n,
            events(lambda: CV.omaha_ids_cuda(d_hole, d_board)))
        out(f"{game}: evaluate_omaha(cupy ids), validated", n,
            wall(lambda: ge.evaluate_omaha(d_hole, d_board, game=game)))
        board = np.array([51, 46, 41, 8, 0], dtype=np.uint8)  # As Kh Qd 4c 2c
        free = np.setdiff1d(np.arange(52), board).astype(np.uint8)
        d_free = grow(free[np.argpartition(rng.random((base_n, 47)), h, axis=1)[:, :h]])
        d_free = cupy.ascontiguousarray(d_free)
        d_shared = cupy.asarray(board)
        out(f"{game}: kernel, one shared board", n,
            events(lambda: CV.omaha_ids_cuda(d_free, d_shared)))
        if h == 4:
            hh, bb = grow_host(deal[:, :h], host_n), grow_host(deal[:, h:], host_n)
            out(f"{game}: evaluate_omaha(numpy, backend='cuda'), streamed", host_n,
                wall(lambda: ge.evaluate_omaha(hh, bb, game=game, backend="cuda")))
            del hh, bb
    cupy.get_default_memory_pool().free_all_blocks()

    base = random_hands(base_n, 7, seed=7)
    with_joker = base.copy()
    with_joker[::2, 0] = 52  # every other hand holds a joker
    d_ids = grow(with_joker)
    masks = np.bitwise_or.reduce(wild_mod.ID_OR_JOKER_TO_MASK[with_joker], axis=1)
    d_masks = grow(masks)
    d_jokers = grow((with_joker == 52).sum(axis=1).astype(np.uint8))
    for label, spec in (("1 joker in half the hands", "joker"), ("deuces wild", "2"),
                        ("jokers and deuces", ["joker", "2"]), ("the bug", "bug")):
        parsed = wild_mod.parse_wild(spec)
        jk = d_jokers if parsed.jokers != "none" else cupy.zeros_like(d_jokers)
        out(f"wild, {label}: kernel, device masks", n,
            events(lambda: CV.wild_masks_cuda(d_masks, jk, parsed)))
        ids = d_ids if parsed.jokers != "none" else grow(base)
        out(f"wild, {label}: evaluate(cupy ids), validated", n,
            wall(lambda: ge.evaluate(ids, wild=spec)))
    host = grow_host(with_joker, host_n)
    out("wild, joker: evaluate(numpy ids, backend='cuda'), streamed", host_n,
        wall(lambda: ge.evaluate(host, wild="joker", backend="cuda")))


if __name__ == "__main__":
    main()
