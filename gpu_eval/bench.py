"""Throughput benchmarks for the evaluator, with peers measured in the same run.

Run ``gpu-eval bench`` (or ``python benchmarks/bench_evaluate.py``). Figures are medians of
several repeats; peers (eval7, phevaluator) are measured on the same machine in the same
process when they are installed, and ratios are against the fastest peer.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from gpu_eval import cards
from gpu_eval.evaluator.api import evaluate


@dataclass
class Figure:
    """One measured throughput."""

    name: str
    cards: int
    hands_per_s: float
    n: int
    repeats: int

    def row(self, peer: float | None) -> str:
        ratio = f"{self.hands_per_s / peer:8.1f}x" if peer else "         "
        return (f"{self.name:<38} {self.cards:>2}  {self.hands_per_s / 1e6:10.2f} M/s {ratio}"
                f"  (n={self.n:,}, median of {self.repeats})")


def random_hands(n: int, k: int, seed: int = 0) -> np.ndarray:
    """``n`` random ``k``-card hands as ``(n, k)`` uint8 ids, cards distinct within a row."""
    rng = np.random.default_rng(seed)
    out = np.empty((n, k), dtype=np.uint8)
    step = 1 << 18
    for s in range(0, n, step):
        e = min(n, s + step)
        out[s:e] = np.argpartition(rng.random((e - s, 52)), k, axis=1)[:, :k]
    return out


def median_rate(fn: Callable[[], object], n: int, repeats: int) -> float:
    fn()  # warm-up: tables, thread pool, caches
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return n / statistics.median(times)


def median_event_seconds(fn: Callable[[], object], repeats: int) -> float:
    """Median seconds of ``fn()`` on the GPU, between two CUDA events on the current stream,
    after one warm-up call (CuPy is imported here, so only on a machine with a GPU)."""
    import cupy  # noqa: PLC0415 -- keep `import gpu_eval` (and this module) CuPy-free

    fn()
    cupy.cuda.Device().synchronize()
    times = []
    for _ in range(repeats):
        start, stop = cupy.cuda.Event(), cupy.cuda.Event()
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(cupy.cuda.get_elapsed_time(start, stop) * 1e-3)
    return statistics.median(times)


def _peer_eval7(hands: np.ndarray) -> Callable[[], object] | None:
    try:
        import eval7
    except ImportError:
        return None
    deck = [eval7.Card(t) for t in cards.format(np.arange(52, dtype=np.uint8), sep=" ").split()]
    rows = [[deck[c] for c in row] for row in hands.tolist()]
    return lambda: [eval7.evaluate(r) for r in rows]


def _peer_phevaluator(hands: np.ndarray) -> Callable[[], object] | None:
    try:
        from phevaluator import evaluate_cards
    except ImportError:
        return None
    rows = hands.tolist()  # phevaluator's ids are 4 * rank + suit, as ours
    return lambda: [evaluate_cards(*r) for r in rows]


def run(n: int = 10_000_000, peer_n: int = 200_000, repeats: int = 5, card_counts=(5, 7),
        backends=("numpy",), print_fn=print) -> list[Figure]:
    """Measure and print evaluator throughput; returns the figures.

    Parameters
    ----------
    n : int
        Hands per measurement for gpu_eval.
    peer_n : int
        Hands per measurement for the peers (their Python APIs go hand by hand).
    repeats : int
        Timed repeats; the median is reported.
    card_counts : tuple of int
        Hand sizes to measure.
    backends : tuple of str
        gpu_eval backends to measure ("numpy", "cuda").

    Examples
    --------
    >>> figs = run(n=20000, peer_n=2000, repeats=1, card_counts=(7,), print_fn=lambda s: None)
    >>> figs[0].hands_per_s > 0
    True
    """
    figures: list[Figure] = []
    peer_n = min(peer_n, n)  # the peers measure a prefix of the same hands
    for k in card_counts:
        hands = random_hands(n, k, seed=k)
        masks = cards.to_mask(hands)
        peers = {}
        for label, make in (("eval7.evaluate", _peer_eval7),
                            ("phevaluator.evaluate_cards", _peer_phevaluator)):
            fn = make(hands[:peer_n]) if peer_n > 0 else None
            if fn is not None:
                rate = median_rate(fn, peer_n, repeats)
                peers[label] = rate
                figures.append(Figure(f"peer: {label}", k, rate, peer_n, repeats))
        best_peer = max(peers.values()) if peers else None
        for backend in backends:
            for algorithm in ("bitmask", "perfect-hash"):
                for enc, data in (("ids", hands), ("masks", masks)):
                    rate = median_rate(
                        lambda: evaluate(data, backend=backend, algorithm=algorithm), n, repeats)
                    figures.append(Figure(f"gpu_eval {backend} {algorithm} ({enc})", k, rate,
                                          n, repeats))
        print_fn(f"\n{k}-card hands (ratio vs fastest peer"
                 f"{': ' + max(peers, key=peers.get) if peers else ': none installed'})")
        for f in figures:
            if f.cards == k:
                print_fn(f.row(None if f.name.startswith("peer") else best_peer))
    return figures
