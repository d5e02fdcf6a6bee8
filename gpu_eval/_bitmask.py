"""The NumPy bitmask evaluator (the algorithm the CUDA kernels run; see ``_tables``).

Works on ``uint64`` hand masks of 5 to 9 cards, chunk by chunk so that temporaries stay in
cache and memory use stays bounded, with the chunks spread over a small thread pool (NumPy
releases the GIL inside its loops).
"""

from __future__ import annotations

import numpy as np

from ._tables import bitmask_tables

CHUNK = 1 << 14


def _eval_chunk(masks: np.ndarray, out: np.ndarray) -> None:
    t = bitmask_tables()
    lanes = masks.view(np.uint16).reshape(-1, 4)
    c, d, h, s = (np.ascontiguousarray(lanes[:, i]) for i in range(4))

    # Flush: only one lane can hold five or more cards, the others look up 0.
    best = np.take(t.flush, c)
    best |= np.take(t.flush, d)
    best |= np.take(t.flush, h)
    best |= np.take(t.flush, s)

    cd = c & d
    hs = h & s
    o = c | d
    o |= h
    o |= s
    x = c ^ d
    x ^= h
    x ^= s
    p = (c ^ d) & (h ^ s)        # one card in each half
    p |= cd
    p |= hs                      # p: ranks held at least twice
    q = cd & hs                  # quads
    t3 = p & x                   # trips (odd and at least two)
    dp = p & ~x                  # pairs and quads
    dp &= ~q                     # exact pairs

    np.maximum(best, np.take(t.high, o), out=best)
    o32 = o.astype(np.uint32)
    np.maximum(best, np.take(t.pair, np.take(t.row, dp) + o32), out=best)
    trow = np.take(t.row, t3)
    np.maximum(best, np.take(t.trips, trow + o32), out=best)
    np.maximum(best, np.take(t.full_house, trow + p), out=best)
    np.maximum(best, np.take(t.quads, np.take(t.row, q) + o32), out=best)
    kick = o & ~np.take(t.top_two, dp)
    np.maximum(best, np.take(t.two_pair, np.take(t.two_pair_row, dp) + np.take(t.top_rank, kick)),
               out=best)
    out[:] = best


def evaluate_masks(masks: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """Strength of each ``uint64`` hand mask (5 to 9 cards each; not validated here)."""
    masks = np.ascontiguousarray(masks, dtype=np.uint64).reshape(-1)
    if out is None:
        out = np.empty(masks.shape, dtype=np.uint16)
    for start in range(0, len(masks), CHUNK):
        stop = min(start + CHUNK, len(masks))
        _eval_chunk(masks[start:stop], out[start:stop])
    return out
