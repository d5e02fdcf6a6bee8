"""The NumPy bitmask evaluator (the algorithm the CUDA kernels run; see ``_tables``).

Works on ``uint64`` hand masks of 5 to 9 cards, chunk by chunk so that temporaries stay in
cache and memory use stays bounded, with the chunks spread over a small thread pool (NumPy
releases the GIL inside its loops).
"""

from __future__ import annotations

import numpy as np

from ._tables import BitmaskTables, bitmask_tables

CHUNK = 1 << 14


def _eval_chunk(masks: np.ndarray, out: np.ndarray, t: BitmaskTables) -> None:
    lanes = masks.view(np.uint16).reshape(-1, 4)
    c, d, h, s = (np.ascontiguousarray(lanes[:, i]) for i in range(4))

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
    o32 = o.astype(np.uint32)

    # pair, straight or high card
    best = np.take(t.pair_high, np.take(t.row, dp) + o32)
    # two pair: top two pairs and the best remaining rank
    info = np.take(t.two_pair_info, dp)
    kick = o32 & ~info
    np.maximum(best, np.take(t.two_pair, (info >> 16) + np.take(t.top_rank, kick)), out=best)

    # Trips, full houses and quads are rare: evaluate those rows only.
    # (flatnonzero is several times faster on a bool array than on integers)
    rare = np.flatnonzero((t3 | q) != 0)
    if rare.size:
        o_r, t_r, q_r = o32[rare], t3[rare], q[rare]
        trow = np.take(t.row, t_r)
        cand = np.take(t.trips, trow + o_r)
        np.maximum(cand, np.take(t.full_house, trow + p[rare]), out=cand)
        np.maximum(cand, np.take(t.quads, np.take(t.row, q_r) + o_r), out=cand)
        np.maximum(best[rare], cand, out=cand)
        best[rare] = cand

    # Flushes: a lane of five or more cards. Lane popcounts packed one per byte: adding 123
    # to each sets its top bit exactly when the count is 5 or more.
    counts = np.bitwise_count(lanes).view(np.uint32).reshape(-1)
    suited = np.flatnonzero(((counts + np.uint32(0x7B7B7B7B)) & np.uint32(0x80808080)) != 0)
    if suited.size:
        fl = np.take(t.flush, c[suited])
        fl |= np.take(t.flush, d[suited])
        fl |= np.take(t.flush, h[suited])
        fl |= np.take(t.flush, s[suited])
        np.maximum(best[suited], fl, out=fl)
        best[suited] = fl
    out[:] = best


def evaluate_masks(masks: np.ndarray, out: np.ndarray | None = None,
                   tables: BitmaskTables | None = None) -> np.ndarray:
    """Strength of each ``uint64`` hand mask (5 to 9 cards each; not validated here).

    ``tables`` selects the game: hold'em by default; short deck passes its own tables of the
    same layout (``gpu_eval.shortdeck``), since only the values in them differ.
    """
    t = bitmask_tables() if tables is None else tables
    masks = np.ascontiguousarray(masks, dtype=np.uint64).reshape(-1)
    if out is None:
        out = np.empty(masks.shape, dtype=np.uint16)
    for start in range(0, len(masks), CHUNK):
        stop = min(start + CHUNK, len(masks))
        _eval_chunk(masks[start:stop], out[start:stop], t)
    return out
