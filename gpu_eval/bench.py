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
from typing import cast

import numpy as np

from gpu_eval import cards
from gpu_eval.evaluator.api import evaluate
from gpu_eval.progress import Progress, wanted

#: A low guess of NumPy's hands per second (dealing plus evaluating, on a loaded two-core
#: machine), only to decide whether a run is long enough for a progress bar.
EXPECTED_RATE = 5e6


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
    """``n`` random ``k``-card hands as ``(n, k)`` uint8 ids, cards distinct within a row.

    Each row is the first ``k`` cards of a deck shuffled by Fisher-Yates (``k`` swaps, for
    a block of rows at once), so every ordered ``k``-card hand is equally likely.

    Examples
    --------
    >>> h = random_hands(1000, 7, seed=1)
    >>> h.shape, h.dtype.name, bool((np.diff(np.sort(h, axis=1), axis=1) > 0).all())
    ((1000, 7), 'uint8', True)
    """
    rng = np.random.default_rng(seed)
    out = np.empty((n, k), dtype=np.uint8)
    step = 1 << 18
    for s in range(0, n, step):
        m = min(n, s + step) - s
        deck = np.tile(np.arange(52, dtype=np.uint8), (m, 1))
        rows = np.arange(m)
        for i in range(k):  # swap card i with a card from i..51, in every row
            j = rng.integers(i, 52, size=m)
            held = deck[rows, i].copy()
            deck[rows, i] = deck[rows, j]
            deck[rows, j] = held
        out[s:s + m] = deck[:, :k]
    return out


def median_rate(fn: Callable[[], object], n: int, repeats: int,
                bar: Progress | None = None) -> float:
    """Hands per second of ``fn`` (``n`` hands a call): the median of ``repeats`` timed calls
    after one warm-up; ``bar`` advances by one per call.

    Examples
    --------
    >>> median_rate(lambda: sum(range(1000)), 1000, 3) > 0
    True
    """
    fn()  # warm-up: tables, thread pool, caches
    if bar is not None:
        bar.update(1)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
        if bar is not None:
            bar.update(1)
    return n / statistics.median(times)


def event_seconds(fn: Callable[[], object], repeats: int) -> list[float]:
    """Seconds of each of ``repeats`` calls of ``fn()`` on the GPU, between two CUDA events on
    the current stream, after one warm-up call (``fn`` should only queue device work; CuPy is
    imported here, so only on a machine with a GPU)."""
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
    return times


def median_event_seconds(fn: Callable[[], object], repeats: int) -> float:
    """Median seconds of ``fn()`` on the GPU (:func:`event_seconds`)."""
    return statistics.median(event_seconds(fn, repeats))


def _peer_eval7(hands: np.ndarray) -> Callable[[], object] | None:
    try:
        import eval7
    except ImportError:
        return None
    deck = [eval7.Card(t) for t in cast(str, cards.format(np.arange(52, dtype=np.uint8),
                                                           sep=" ")).split()]
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
        backends=("numpy",), print_fn=print, progress: bool | None = False) -> list[Figure]:
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
    print_fn : callable
        Where each line of the report goes (default ``print``).
    progress : bool or None
        A progress bar on stderr, one step per timed call (and per dealing of the hands):
        ``True`` always, ``False`` never (the default), ``None`` when the run looks longer
        than a few seconds.

    Examples
    --------
    >>> figs = run(n=20000, peer_n=2000, repeats=1, card_counts=(7,), print_fn=lambda s: None)
    >>> figs[0].hands_per_s > 0
    True
    """
    figures: list[Figure] = []
    peer_n = min(peer_n, n)  # the peers measure a prefix of the same hands
    makers = (("eval7.evaluate", _peer_eval7), ("phevaluator.evaluate_cards", _peer_phevaluator))
    # Steps: per hand size, dealing the hands, then every timed call (warm-up included).
    per_k = 1 + (repeats + 1) * (4 * len(backends) + (len(makers) if peer_n > 0 else 0))
    expected = n * len(card_counts) * (1 + 4 * len(backends) * (repeats + 1)) / EXPECTED_RATE
    with Progress(per_k * len(card_counts), "bench", unit="steps",
                  enabled=wanted(progress, expected)) as bar:
        say = bar.write if print_fn is print else print_fn  # report lines above the bar
        for k in card_counts:
            hands = random_hands(n, k, seed=k)
            masks = cards.to_mask(hands)
            bar.update(1)
            peers = {}
            for label, make in makers:
                fn = make(hands[:peer_n]) if peer_n > 0 else None
                if fn is not None:
                    rate = median_rate(fn, peer_n, repeats, bar)
                    peers[label] = rate
                    figures.append(Figure(f"peer: {label}", k, rate, peer_n, repeats))
                elif peer_n > 0:  # not installed: its steps are skipped
                    bar.update(repeats + 1)
            best_peer = max(peers.values()) if peers else None
            for backend in backends:
                for algorithm in ("bitmask", "perfect-hash"):
                    for enc, data in (("ids", hands), ("masks", masks)):
                        rate = median_rate(
                            lambda: evaluate(data, backend=backend, algorithm=algorithm), n,
                            repeats, bar)
                        figures.append(Figure(f"gpu_eval {backend} {algorithm} ({enc})", k,
                                              rate, n, repeats))
            say(f"\n{k}-card hands (ratio vs fastest peer"
                f"{': ' + max(peers, key=peers.__getitem__) if peers else ': none installed'})")
            for f in figures:
                if f.cards == k:
                    say(f.row(None if f.name.startswith("peer") else best_peer))
    return figures
