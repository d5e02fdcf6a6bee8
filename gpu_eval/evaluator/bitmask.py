"""The NumPy bitmask evaluator (the algorithm the CUDA kernels run; see ``gpu_eval.evaluator.tables``).

Works on ``uint64`` hand masks of 5 to 9 cards, chunk by chunk so that temporaries stay in
cache and memory use stays bounded. NumPy pays a fixed cost per call (about a microsecond),
so the chunks are large enough to hide it, and the common hand takes few calls: a dense pass
of cheap 16-bit logic and two table lookups, then one sparse pass over the rows that hold a
rank three or more times or a flush (about 13% of 7-card hands).
"""

from __future__ import annotations

import numpy as np

from gpu_eval.evaluator.tables import BitmaskTables, bitmask_tables

#: Hands per chunk: big enough that NumPy's per-call cost is small, small enough that the
#: chunk's temporaries (about 40 bytes a hand) stay in a 1 MB L2 or at worst L3.
CHUNK = 1 << 16

# Per-lane card counts, one per byte pair: the byte popcounts times 257 put each lane's count
# in the high byte of its 16 bits; adding 123 there sets the byte's top bit exactly when the
# count is 5 or more (counts are at most 13, so nothing carries into the next lane).
_PAIR_BYTES = np.uint64(257)
_ADD_123 = np.uint64(0x7B007B007B007B00)
_TOP_BITS = np.uint64(0x8000800080008000)

_INDEX_TABLES: dict[int, tuple[BitmaskTables, np.ndarray, np.ndarray]] = {}


def _index_tables(t: BitmaskTables) -> tuple[np.ndarray, np.ndarray]:
    """``t.dup_row`` and ``t.row`` as ``intp``: ``np.take`` skips a cast with native indices."""
    hit = _INDEX_TABLES.get(id(t))
    if hit is None or hit[0] is not t:
        hit = (t, t.dup_row.astype(np.intp), t.row.astype(np.intp))
        _INDEX_TABLES[id(t)] = hit
    return hit[1], hit[2]


def flush_rows(masks: np.ndarray) -> np.ndarray:
    """Boolean per hand: some suit lane holds five or more cards."""
    lane = np.bitwise_count(masks.view(np.uint8)).view(np.uint64)
    lane *= _PAIR_BYTES
    lane += _ADD_123
    lane &= _TOP_BITS
    return lane != 0


def _rare_candidates(lanes: np.ndarray, t: BitmaskTables, row: np.ndarray) -> np.ndarray:
    """Best trips, full house, quads or flush of each hand of a ``(4, n)`` lane subset."""
    c, d, h, s = lanes
    cd = c & d
    hs = h & s
    o = c | d
    o |= h
    o |= s
    x = c ^ d
    hxs = h ^ s
    p = x & hxs
    x ^= hxs                     # odd counts
    p |= cd
    p |= hs                      # held at least twice
    q = cd & hs                  # quads
    t3 = p & x                   # trips
    o64 = o.astype(np.intp)
    trow = np.take(row, t3)
    cand = np.take(t.trips, trow + o64)
    np.maximum(cand, np.take(t.full_house, trow + p), out=cand)
    np.maximum(cand, np.take(t.quads, np.take(row, q) + o64), out=cand)
    # At most one lane holds 5 cards in up to 9, and the flush table is 0 for shorter lanes.
    fl = np.take(t.flush, c)
    fl |= np.take(t.flush, d)
    fl |= np.take(t.flush, h)
    fl |= np.take(t.flush, s)
    np.maximum(cand, fl, out=cand)
    return cand


def _eval_chunk(masks: np.ndarray, out: np.ndarray, t: BitmaskTables) -> None:
    dup_row, row = _index_tables(t)
    lanes = masks.view(np.uint16).reshape(-1, 4).T.copy()  # (4, n): c, d, h, s contiguous
    c, d, h, s = lanes

    cd = c & d
    hs = h & s
    cod = c | d
    hos = h | s
    o = cod | hos                # ranks present
    p = c ^ d
    p &= h ^ s
    p |= cd
    p |= hs                      # ranks held at least twice
    three = cd & hos
    three |= hs & cod            # ranks held three or four times
    p &= ~three                  # exact pairs

    # Pair, two pair, straight or high card: one row per pair pattern, indexed by O.
    idx = np.take(dup_row, p)
    idx += o
    best = np.take(t.dup, idx)

    # Trips, full houses, quads and flushes are rare: evaluate those rows only.
    rare = flush_rows(masks)
    rare |= three.astype(bool)
    sel = np.flatnonzero(rare)
    if sel.size:
        cand = _rare_candidates(lanes[:, sel], t, row)
        np.maximum(cand, best[sel], out=cand)
        best[sel] = cand
    out[:] = best


def evaluate_masks(masks: np.ndarray, out: np.ndarray | None = None,
                   tables: BitmaskTables | None = None) -> np.ndarray:
    """Strength of each ``uint64`` hand mask (5 to 9 cards each; not validated here).

    ``tables`` selects the game: hold'em by default; short deck passes its own tables of the
    same layout (``gpu_eval.games.shortdeck``), since only the values in them differ.

    Examples
    --------
    >>> from gpu_eval import cards
    >>> evaluate_masks(cards.to_mask(cards.parse(["AsKsQsJsTs", "7c5d4h3s2c"]))).tolist()
    [7462, 1]
    """
    t = bitmask_tables() if tables is None else tables
    masks = np.ascontiguousarray(masks, dtype=np.uint64).reshape(-1)
    if out is None:
        out = np.empty(masks.shape, dtype=np.uint16)
    for start in range(0, len(masks), CHUNK):
        stop = min(start + CHUNK, len(masks))
        _eval_chunk(masks[start:stop], out[start:stop], t)
    return out
