"""The NumPy backend: validated hands in, strengths out, in cache-sized chunks.

Ids become masks one chunk at a time (so memory stays bounded by input plus output), each
chunk's card count is checked from the mask's popcount (a repeated card shows up as a short
count), and the chunks run on a thread pool where that pays (see ``run_chunked``).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache

import numpy as np

from gpu_eval.cards import ID_TO_MASK, VALID_MASK_BITS
from gpu_eval.evaluator import bitmask
from gpu_eval.evaluator.inputs import Hands

CHUNK = bitmask.CHUNK


def _phash_masks(masks: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """The perfect-hash evaluator, imported on first use (its tables take ~12 ms to build,
    which every ``import gpu_eval`` paid before)."""
    from gpu_eval.evaluator import phash  # noqa: PLC0415

    return phash.evaluate_masks(masks, out)


ALGORITHMS: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "bitmask": bitmask.evaluate_masks,
    "perfect-hash": _phash_masks,
}

# The mask of every pair of cards, indexed by the two ids read as one little-endian uint16
# (first id + 256 * second id): one lookup ORs two cards.
_PAIR_IDS = np.arange(52)
_PAIR_MASKS = np.zeros(256 * 51 + 52, dtype=np.uint64)
_PAIR_MASKS[(_PAIR_IDS[:, None] + 256 * _PAIR_IDS[None, :]).ravel()] = (
    ID_TO_MASK[:, None] | ID_TO_MASK[None, :]).ravel()
_PAIR_MASKS.flags.writeable = False


@lru_cache(maxsize=1)
def _pool() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=os.cpu_count() or 1, thread_name_prefix="gpu_eval")


def ids_to_masks(ids: np.ndarray) -> np.ndarray:
    """OR the mask bits of each row of an ``(n, k)`` uint8 id array (ids already in range).

    Two cards at a time: each row's bytes ``j, j + 1`` read as one uint16 index a table of
    card pairs (an odd last card pairs with its neighbour again, which OR ignores). That is
    half the lookups of one card at a time, and needs no cast of the ids.

    Examples
    --------
    >>> from gpu_eval import cards
    >>> ids_to_masks(cards.parse(["AsKs", "2c3c"])).tolist() == cards.to_mask(
    ...     cards.parse(["AsKs", "2c3c"])).tolist()
    True
    """
    n, k = ids.shape
    if k < 2 or n == 0:
        mask = np.zeros(n, dtype=np.uint64)
        for j in range(k):
            mask |= np.take(ID_TO_MASK, ids[:, j])
        return mask
    ids = np.ascontiguousarray(ids, dtype=np.uint8)
    starts = list(range(0, k - 1, 2)) + ([k - 2] if k % 2 else [])
    acc: np.ndarray | None = None
    for j in starts:
        pair = np.ndarray((n,), dtype="<u2", buffer=ids, offset=j, strides=(k,))
        if acc is None:
            acc = np.take(_PAIR_MASKS, pair)
        else:
            acc |= np.take(_PAIR_MASKS, pair)
    assert acc is not None  # k >= 2: one pair at least
    return acc


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
    or a card repeated within the row) get an arbitrary strength: the caller zeroes or raises
    (``evaluation.finish``).
    """
    evaluate_masks = ALGORITHMS[algorithm]
    n = hands.n
    out = np.empty(n, dtype=np.uint16)
    counts = np.empty(n, dtype=np.uint8)

    def work(start: int, stop: int) -> None:
        if hands.ids is not None:
            m = ids_to_masks(hands.ids[start:stop])
        else:
            assert hands.masks is not None, "Hands holds ids or masks"
            m = hands.masks[start:stop] & VALID_MASK_BITS
        np.bitwise_count(m, out=counts[start:stop])
        evaluate_masks(m, out[start:stop])

    run_chunked(n, work)
    return out, counts
