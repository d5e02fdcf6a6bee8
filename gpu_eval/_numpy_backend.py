"""The NumPy backend: validated hands in, strengths out, in cache-sized chunks on all cores.

Ids become masks one chunk at a time (so memory stays bounded by input plus output), each
chunk's card count is checked from the mask's popcount (a repeated card shows up as a short
count), and the chunks run on a thread pool: NumPy releases the GIL inside its loops, so two
cores give close to twice the throughput.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from typing import Callable

import numpy as np

from . import _bitmask, _phash
from ._inputs import Hands
from .cards import _ID_TO_MASK, VALID_MASK_BITS

CHUNK = 1 << 14
ALGORITHMS: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "bitmask": _bitmask.evaluate_masks,
    "perfect-hash": _phash.evaluate_masks,
}


@lru_cache(maxsize=1)
def _pool() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=os.cpu_count() or 1, thread_name_prefix="gpu_eval")


def ids_to_masks(ids: np.ndarray) -> np.ndarray:
    """OR the mask bits of each row of an ``(n, k)`` uint8 id array (ids already in range)."""
    # Column by column: a gather per card into one contiguous accumulator is about twice as
    # fast as gathering the whole (n, k) block and OR-ing its strided columns.
    mask = np.take(_ID_TO_MASK, ids[:, 0])
    for j in range(1, ids.shape[1]):
        mask |= np.take(_ID_TO_MASK, ids[:, j])
    return mask


def run_chunked(n: int, work: Callable[[int, int], None], chunk: int = CHUNK) -> None:
    """Call ``work(start, stop)`` over ``[0, n)`` in chunks, on the thread pool when it pays."""
    spans = [(s, min(s + chunk, n)) for s in range(0, n, chunk)]
    if len(spans) <= 2:
        for s, e in spans:
            work(s, e)
        return
    for f in [_pool().submit(work, s, e) for s, e in spans]:
        f.result()


def evaluate(hands: Hands, *, min_cards: int, max_cards: int, algorithm: str = "bitmask"
             ) -> tuple[np.ndarray, np.ndarray]:
    """Evaluate validated ``hands``; returns ``(strength, card_count)`` per row.

    Rows whose card count is outside ``[min_cards, max_cards]`` (too few or too many cards,
    or a card repeated within the row) get strength 0; the caller decides whether to raise.
    """
    evaluate_masks = ALGORITHMS[algorithm]
    n = hands.n
    out = np.empty(n, dtype=np.uint16)
    counts = np.empty(n, dtype=np.uint8)

    def work(start: int, stop: int) -> None:
        if hands.ids is not None:
            m = ids_to_masks(hands.ids[start:stop])
        else:
            m = hands.masks[start:stop] & VALID_MASK_BITS
        cnt = np.bitwise_count(m)
        counts[start:stop] = cnt
        evaluate_masks(m, out[start:stop])
        out[start:stop][(cnt < min_cards) | (cnt > max_cards)] = 0

    run_chunked(n, work)
    return out, counts
