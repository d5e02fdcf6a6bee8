"""Omaha (4, 5 or 6 hole cards): the best hand using exactly two hole cards and three board cards.

Strengths are on the hold'em scale (1..7462, ``gpu_eval.describe`` reads them). Instead of
evaluating the 60 (PLO4, 5-card board) to 200 (PLO6) two-plus-three hands one by one, the
evaluator splits the problem the way PokerHandEvaluator does, into a part decided by ranks
alone and a flush part, and looks both up in tables generated here (under 0.5 s, once):

* **Non-flush**: ``noflush[offset[k] + board * 169 + 13 * rank_a + rank_b]`` is the best
  non-flush hand made of the hole ranks ``rank_a``, ``rank_b`` (both orders stored, so no
  sorting is needed) and three of the board's ranks, for every rank multiset ``board`` of a
  k-card board (455, 1820 and 6175 of them for k = 3, 4, 5). A hand takes one lookup per pair
  of hole cards (6 for PLO4, 15 for PLO6), all within one 338-byte block, and the maximum.
  The board's multiset is numbered by a perfect hash: each card adds ``5**rank`` for ranks 2..8
  (low 17 bits) or ``5**(rank - 7) << 17`` for ranks 9..A, i.e. the base-5 rank counts, split in
  two halves; two small tables turn the halves into a dense index (``board_lo``, ``board_hi``).
  Each table entry for a 4- or 5-card board is the maximum over its 3-card sub-boards of the
  3-card board table, which is filled by the hold'em evaluator. For PLO4 the NumPy path folds
  the six lookups into one, in a table ``[hole rank multiset (1820), board multiset]`` built
  from this one on first use (22 MB for 5-card boards); the kernels keep the six lookups.
* **Flush**: only rows where the board holds three or more cards of one suit ``f`` (at most one
  suit can, on five cards) and the hole two or more of ``f`` (about 7% of PLO4 hands) need it.
  With ``H`` and ``B`` the 13-bit rank masks of the hole's and the board's cards of suit ``f``
  (disjoint: they are different cards), a hand of two from ``H`` and three from ``B`` is a
  straight flush in the 5-rank window ``W`` exactly when ``W`` lies inside ``H | B`` with two
  of its ranks in ``H`` and three in ``B``; otherwise the best flush is the top two of ``H``
  with the top three of ``B``. So ``hole_info[H] = top2(H) | windows with 2+ ranks of H << 16``
  and ``board_info[B] = top3(B) | windows with 3+ ranks of B << 16``; the windows of
  ``hole_info & board_info`` that ``covered[H | B]`` also holds, read by ``sf_best``, give
  the straight flush, and ``flush5[(hole_info | board_info) & 0x1FFF]`` the flush.

The same tables feed ``kernels/omaha.cuh``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from itertools import combinations, combinations_with_replacement

import numpy as np

from gpu_eval import card_input, cards
from gpu_eval import scale as S
from gpu_eval.cards import ID_TO_MASK
from gpu_eval.evaluator.bitmask import evaluate_masks
from gpu_eval.evaluator.numpy_path import run_chunked
from gpu_eval.games import registry

__all__ = ["OMAHA_GAMES", "omaha_tables", "OmahaTables", "evaluate_rows"]

#: Omaha games (hi/lo included: the high hand is the same) and their number of hole cards.
OMAHA_GAMES = {name: registry.GAMES[name].hole_cards for name in registry.names(registry.OMAHA)}
BOARD_SIZES = (3, 4, 5)
PAIR_STRIDE = 169       # ordered rank pairs: a board's block in the non-flush table
#: Rank multisets of a k-card board (and of PLO4's four hole cards: 1820).
BOARDS = {3: 455, 4: 1820, 5: 6175}
_HI_SIZE = 5 ** 6       # high-half keys per board size in ``board_hi``
_LO_BITS = 17           # board hash: ranks 0..6 in the low 17 bits, 7..12 above
_LO_RANKS = 7


@dataclass(frozen=True)
class OmahaTables:
    """The Omaha evaluator's tables (read-only NumPy arrays); see the module docstring."""

    card_weight: np.ndarray   # uint32[52]: base-5 weight of the card's rank (split in halves)
    board_lo: np.ndarray      # uint32[5**7]: low half -> dense index within its card count
    board_hi: np.ndarray      # uint32[3 * 5**6]: [(k - 3) * 5**6 + high half] -> block start
    noflush: np.ndarray       # uint16[(455 + 1820 + 6175) * 169]: k = 3, 4, 5 concatenated
    noflush_offset: np.ndarray  # uint32[6]: where board size k's block starts in ``noflush``
    hole_info: np.ndarray     # uint32[8192]: top two ranks | windows with 2+ of them << 16
    board_info: np.ndarray    # uint32[8192]: top three ranks | windows with 3+ of them << 16
    covered: np.ndarray       # uint16[8192]: the straight windows inside a rank mask (10 bits)
    sf_best: np.ndarray       # uint16[1024]: straight flush strength of the best window in a set
    flush5: np.ndarray        # uint16[8192]: flush (or straight flush) of a 5-rank mask

    def as_dict(self) -> dict[str, np.ndarray]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def _count_vectors(nranks: int, total: int) -> np.ndarray:
    """Rank-count vectors over ``nranks`` ranks (entries 0..4) summing to ``total``."""
    out = [np.bincount(c, minlength=nranks) for c in
           combinations_with_replacement(range(nranks), total)]
    out = np.array(out, dtype=np.int64).reshape(-1, nranks)
    return out[(out <= 4).all(axis=1)]


def _board_hash_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``card_weight``, ``board_lo`` and ``board_hi``: a board of k cards gets the dense index
    ``board_hi[(k - 3) * 5**6 + (key >> 17)] + board_lo[key & 0x1FFFF]`` where ``key`` is the
    sum of its cards' weights. Boards are ordered by high half, then low half."""
    lo_pow = 5 ** np.arange(_LO_RANKS)
    hi_pow = 5 ** np.arange(13 - _LO_RANKS)
    weight = np.array([5 ** r if r < _LO_RANKS else 5 ** (r - _LO_RANKS) << _LO_BITS
                       for r in range(13)], dtype=np.int64)
    card_weight = np.repeat(weight, 4).astype(np.uint32)
    board_lo = np.zeros(5 ** _LO_RANKS, dtype=np.int64)
    lo_count = np.zeros(6, dtype=np.int64)  # low-half vectors of each card count
    for j in range(6):
        vecs = _count_vectors(_LO_RANKS, j)
        board_lo[vecs @ lo_pow] = np.arange(len(vecs))
        lo_count[j] = len(vecs)
    board_hi = np.zeros((len(BOARD_SIZES), 5 ** (13 - _LO_RANKS)), dtype=np.int64)
    for i, k in enumerate(BOARD_SIZES):
        start = 0
        for j in range(k + 1):
            for vec in _count_vectors(13 - _LO_RANKS, j):
                board_hi[i, vec @ hi_pow] = start
                start += lo_count[k - j]
        assert start == len(_count_vectors(13, k))
    return card_weight, board_lo.astype(np.uint32), board_hi.reshape(-1).astype(np.uint32)


def _board_index(ranks: np.ndarray, card_weight, board_lo, board_hi) -> np.ndarray:
    """Dense index of each board of an ``(N, k)`` rank array (NumPy's version of the hash)."""
    key = card_weight[4 * ranks].sum(axis=1, dtype=np.int64)
    k = ranks.shape[1]
    return (board_hi[(k - 3) * 5 ** (13 - _LO_RANKS) + (key >> _LO_BITS)].astype(np.int64)
            + board_lo[key & ((1 << _LO_BITS) - 1)])


def _boards_sorted_ranks(k: int, card_weight, board_lo, board_hi) -> np.ndarray:
    """Every k-card board rank multiset as sorted ranks, in dense-index order."""
    boards = np.array([c for c in combinations_with_replacement(range(13), k)
                       if max(c.count(r) for r in set(c)) <= 4], dtype=np.int64)
    idx = _board_index(boards, card_weight, board_lo, board_hi)
    assert np.array_equal(np.sort(idx), np.arange(len(boards))), "board hash must be dense"
    out = np.empty_like(boards)
    out[idx] = boards
    return out


def _pair_ranks() -> np.ndarray:
    """The 169 ordered rank pairs ``(a, b)``, index ``13 * a + b``."""
    return np.array([(a, b) for a in range(13) for b in range(13)], dtype=np.int64)


def _noflush_three(boards3: np.ndarray) -> np.ndarray:
    """``[board3, 13 * a + b]`` -> non-flush strength of hole ranks a, b + the 3 board ranks."""
    pairs = _pair_ranks()
    five = np.concatenate([np.repeat(boards3, len(pairs), axis=0),
                           np.tile(pairs, (len(boards3), 1))], axis=1)
    five = np.sort(five, axis=1)
    # Suits by position (0, 1, 2, 3, 0): repeated ranks sit side by side, so they get
    # different suits, and no five cards share one: a rank-only (non-flush) hand.
    mask = np.zeros(len(five), dtype=np.uint64)
    for i in range(5):
        mask |= np.uint64(1) << (five[:, i] + 16 * (i % 4)).astype(np.uint64)
    strength = evaluate_masks(mask).astype(np.int64)
    counts = (five[:, :, None] == np.arange(13)).sum(axis=1)
    strength[(counts > 4).any(axis=1)] = 0  # five of a rank: no such cards
    return strength.reshape(len(boards3), len(pairs))


def _flush_tables() -> dict[str, np.ndarray]:
    """The flush part's tables (see the module docstring)."""
    m = S.ALL_RANK_MASKS
    windows = np.array(S.STRAIGHT_MASKS)
    hits = np.bitwise_count(m[:, None] & windows[None, :])  # ranks of each window held
    bits = np.int64(1) << np.arange(len(windows))
    window_set = lambda cond: (cond * bits).sum(axis=1)  # noqa: E731
    sets = np.arange(1 << len(windows))
    best_window = np.where(sets > 0, S.bit_rank(S.highest_bit(sets)), 0)
    sf = S.five_distinct_strength(windows, flush=True)
    return {
        "hole_info": S.top_bits(m, 2) | window_set(hits >= 2) << 16,
        "board_info": S.top_bits(m, 3) | window_set(hits >= 3) << 16,
        "covered": window_set(hits == 5),
        "sf_best": np.where(sets > 0, sf[best_window], 0),
        "flush5": np.where(np.bitwise_count(m) == 5, S.five_distinct_strength(m, flush=True), 0),
    }


@cache
def omaha_tables() -> OmahaTables:
    """Generate (once, under 0.5 s) and return the Omaha tables.

    Examples
    --------
    >>> t = omaha_tables()
    >>> t.noflush.dtype, len(t.noflush) == (455 + 1820 + 6175) * 169
    (dtype('uint16'), True)
    """
    card_weight, board_lo, board_hi = _board_hash_tables()
    hashes = (card_weight, board_lo, board_hi)
    boards3 = _boards_sorted_ranks(3, *hashes)
    nf3 = _noflush_three(boards3)
    blocks = {3: nf3}
    for k in (4, 5):
        boards = _boards_sorted_ranks(k, *hashes)
        best = np.zeros((len(boards), PAIR_STRIDE), dtype=np.int64)
        for cols in combinations(range(k), 3):
            sub = _board_index(boards[:, list(cols)], *hashes)  # sorted stays sorted
            np.maximum(best, nf3[sub], out=best)
        blocks[k] = best
    offset = np.zeros(6, dtype=np.uint32)
    pos = 0
    for k in BOARD_SIZES:
        offset[k] = pos
        pos += blocks[k].size
    fl = _flush_tables()
    tables = OmahaTables(
        card_weight=card_weight, board_lo=board_lo, board_hi=board_hi,
        noflush=np.concatenate([blocks[k].reshape(-1) for k in BOARD_SIZES]).astype(np.uint16),
        noflush_offset=offset,
        hole_info=fl["hole_info"].astype(np.uint32), board_info=fl["board_info"].astype(np.uint32),
        covered=fl["covered"].astype(np.uint16), sf_best=fl["sf_best"].astype(np.uint16),
        flush5=fl["flush5"].astype(np.uint16),
    )
    for a in tables.as_dict().values():
        a.flags.writeable = False
    return tables


# ---------------------------------------------------------------------------- evaluation

_THREE, _TWO, _TOPS = np.uint32(0x7D7D7D7D), np.uint32(0x7E7E7E7E), np.uint32(0x80808080)
CHUNK = 1 << 15


def _multiset_index(t: OmahaTables, cols: list[np.ndarray]) -> np.ndarray:
    """Dense index of the rank multiset of 3 to 5 cards (intp id columns) among its size's."""
    key = np.take(t.card_weight, cols[0])
    for c in cols[1:]:
        key += np.take(t.card_weight, c)
    idx = np.take(t.board_hi, (key >> _LO_BITS) + np.uint32((len(cols) - 3) * _HI_SIZE))
    idx += np.take(t.board_lo, key & np.uint32((1 << _LO_BITS) - 1))
    return idx.astype(np.intp)


@cache
def _hole4_table(k: int) -> np.ndarray:
    """NumPy-only speed-up for PLO4: ``[hole * BOARDS[k] + board]`` -> best non-flush hand of
    the 4-card hole rank multiset ``hole`` (1820) with the k-card board multiset ``board``:
    the maximum of the hole's six pairs in ``noflush``, so always equal to the pair lookups
    the kernels do. 22 MB for k = 5, built on first use (about 0.2 s)."""
    t = omaha_tables()
    holes = _boards_sorted_ranks(4, t.card_weight, t.board_lo, t.board_hi)
    pairs = np.stack([13 * holes[:, i] + holes[:, j] for i, j in combinations(range(4), 2)],
                     axis=1)  # (1820, 6)
    nf = t.noflush[t.noflush_offset[k]:t.noflush_offset[k] + BOARDS[k] * PAIR_STRIDE]
    nf = nf.reshape(BOARDS[k], PAIR_STRIDE)
    out = np.empty((len(holes), BOARDS[k]), dtype=np.uint16)
    for start in range(0, len(holes), 128):
        block = nf[:, pairs[start:start + 128]]          # (boards, holes, 6)
        out[start:start + 128] = block.max(axis=2).T
    out = out.reshape(-1)
    out.flags.writeable = False
    return out


def _or_masks(cols: list[np.ndarray]) -> np.ndarray:
    m = np.take(ID_TO_MASK, cols[0])
    for c in cols[1:]:
        m |= np.take(ID_TO_MASK, c)
    return m


def _suit_counts(masks: np.ndarray) -> np.ndarray:
    """Cards per suit, packed one per byte (suit 0 lowest) into a uint32 per mask."""
    return np.bitwise_count(masks.view(np.uint16)).view(np.uint32)


def _eval_chunk(hole: np.ndarray, board: np.ndarray, out: np.ndarray, bad: np.ndarray,
                t: OmahaTables) -> None:
    """Strengths of ``hole`` (n, h) with ``board`` (n, k), or (1, k) shared by every row.

    Ids must be in range; ``bad`` gets the rows with a card used twice (their ``out`` is
    meaningless). Everything for a chunk happens here, so it stays in cache.
    """
    n, h = hole.shape
    k = board.shape[1]
    # Contiguous intp columns: np.take then skips converting (and bounds-checking) indices.
    hcols = [hole[:, i].astype(np.intp) for i in range(h)]
    bcols = [board[:, j].astype(np.intp) for j in range(k)]

    hm, bm = _or_masks(hcols), _or_masks(bcols)
    bad[:] = np.bitwise_count(hm | bm) != h + k  # a card twice, in the hole, board or both
    if bad.any():
        # A board holding a card twice can have five of a rank, which has no table entry:
        # evaluate placeholder cards in bad rows (their result is discarded).
        hole, board = sanitize(hole, board, bad)
        hcols = [hole[:, i].astype(np.intp) for i in range(h)]
        bcols = [board[:, j].astype(np.intp) for j in range(k)]
        hm, bm = _or_masks(hcols), _or_masks(bcols)

    board_index = _multiset_index(t, bcols)  # the board's rank multiset
    if h == 4:
        # PLO4: one lookup, [hole rank multiset, board rank multiset] (see _hole4_table).
        idx = _multiset_index(t, hcols) * BOARDS[k]
        idx += board_index
        best = np.take(_hole4_table(k), idx, mode="clip")
    else:
        # One lookup per pair of hole cards: [offset + board * 169 + 13 * rank_i + rank_j].
        base = board_index * PAIR_STRIDE + int(t.noflush_offset[k])
        ranks = [c >> 2 for c in hcols]
        best = np.zeros(n, dtype=np.uint16)
        cand = np.empty(n, dtype=np.uint16)
        idx = np.empty(n, dtype=np.intp)
        row = np.empty(n, dtype=np.intp)
        for i in range(h - 1):
            np.multiply(ranks[i], 13, out=row)
            row += base
            for j in range(i + 1, h):
                np.add(row, ranks[j], out=idx)
                np.take(t.noflush, idx, out=cand, mode="clip")  # in range; unbuffered
                np.maximum(best, cand, out=best)

    # Flushes need 3+ board cards and 2+ hole cards of one suit (at most one suit has 3+ on
    # the board): about 7% of PLO4 hands. Adding 125 (126) to a byte sets its top bit at 3 (2).
    hit = ((_suit_counts(bm) + _THREE) & (_suit_counts(hm) + _TWO)) & _TOPS
    rows = np.flatnonzero(hit)
    if rows.size:
        hit = np.broadcast_to(hit, (n,))[rows]
        shift = ((np.bitwise_count(hit - np.uint32(1)) >> 3) << 4).astype(np.uint64)
        lane = np.uint64(0x1FFF)
        hole_f = ((hm[rows] >> shift) & lane).astype(np.intp)
        board_f = ((np.broadcast_to(bm, (n,))[rows] >> shift) & lane).astype(np.intp)
        hi, bi = np.take(t.hole_info, hole_f), np.take(t.board_info, board_f)
        fl = np.take(t.flush5, (hi | bi) & np.uint32(0x1FFF))
        windows = ((hi & bi) >> np.uint32(16)) & np.take(t.covered, hole_f | board_f)
        np.maximum(fl, np.take(t.sf_best, windows), out=fl)
        best[rows] = np.maximum(best[rows], fl)
    out[:] = best


#: Stand-ins for the cards of rows with a card used twice (disjoint, so always evaluable).
PLACEHOLDER_HOLE = np.arange(6, dtype=np.uint8)                      # 2c 2d 2h 2s 3c 3d
PLACEHOLDER_BOARD = np.array([51, 50, 49, 48, 47], dtype=np.uint8)   # As Ah Ad Ac Ks


def sanitize(hole: np.ndarray, board: np.ndarray, bad: np.ndarray
             ) -> tuple[np.ndarray, np.ndarray]:
    """Copies of ``hole`` (n, h) and ``board`` (n, k) or (1, k) with the rows in ``bad``
    replaced by placeholder cards (a shared board is replaced when it repeats a card)."""
    h, k = hole.shape[1], board.shape[1]
    hole = np.where(bad[:, None], PLACEHOLDER_HOLE[:h], hole).astype(np.uint8)
    if len(board) == 1 and len(bad) != 1:
        if len(np.unique(board[0])) != k:
            board = PLACEHOLDER_BOARD[None, :k].copy()
    else:
        board = np.where(bad[:, None], PLACEHOLDER_BOARD[:k], board).astype(np.uint8)
    return hole, board


def duplicates(hole: np.ndarray, board: np.ndarray) -> np.ndarray:
    """Rows of ``hole`` (n, h) with ``board`` (n, k) or (1, k) that use a card twice."""
    n, h = hole.shape
    k = board.shape[1]
    out = np.empty(n, dtype=bool)
    shared = len(board) == 1 and n > 1

    def work(start: int, stop: int) -> None:
        bd = board if shared else board[start:stop]
        hm = _or_masks([hole[start:stop, i].astype(np.intp) for i in range(h)])
        bm = _or_masks([bd[:, j].astype(np.intp) for j in range(k)])
        out[start:stop] = np.bitwise_count(hm | bm) != h + k

    run_chunked(n, work, chunk=CHUNK)
    return out


def evaluate_rows(hole, board, game: str, invalid: str, device):
    """Validate host inputs and evaluate them on NumPy, or with ``device(hole, board)`` ->
    strengths (validated ids: ``board`` (n, k), or (k,) shared by every row)."""
    h = OMAHA_GAMES[game]
    hole_ids, hole_bad, hole_one = coerce_rows(hole, "hole cards", (h, h), invalid, game)
    board_ids, board_bad, board_one = coerce_rows(board, "board", (3, 5), invalid, game)
    n = max(len(hole_ids), len(board_ids))
    if len(hole_ids) != len(board_ids) and min(len(hole_ids), len(board_ids)) != 1:
        raise ValueError(f"{len(hole_ids)} rows of hole cards but {len(board_ids)} boards; "
                         f"give one board per row, or a single board for all rows")
    if len(hole_ids) != n:
        hole_ids = np.broadcast_to(hole_ids, (n, h))
    out = np.empty(n, dtype=np.uint16)
    shared = len(board_ids) == 1 and n > 1
    if device is None:
        bad = np.empty(n, dtype=bool)  # a card used twice
        t = omaha_tables()

        def work(start: int, stop: int) -> None:
            bd = board_ids if shared else board_ids[start:stop]
            _eval_chunk(hole_ids[start:stop], bd, out[start:stop], bad[start:stop], t)

        run_chunked(n, work, chunk=CHUNK)
    else:
        bad = duplicates(hole_ids, board_ids)
    for b in (hole_bad, board_bad):  # unreadable rows found while reading the input
        if b is not None:
            bad |= b
    if bad.any():
        if invalid == "raise":
            r = int(np.flatnonzero(bad)[0])
            raise row_error(hole_ids[r], board_ids[r if len(board_ids) > 1 else 0], r)
        if device is not None:
            hole_ids, board_ids = sanitize(hole_ids, board_ids, bad)
    if device is not None and n:
        out[:] = device(np.ascontiguousarray(hole_ids),
                        board_ids[0] if shared else np.ascontiguousarray(board_ids))
    out[bad] = 0
    return out[0] if (hole_one and board_one) else out


def coerce_rows(x, what: str, sizes: tuple[int, int], invalid: str, game: str
          ) -> tuple[np.ndarray, np.ndarray | None, bool]:
    """``(ids (N, k) uint8, bad rows or None, single)`` from text, ids or masks."""
    lo, hi = sizes
    want = f"{lo}" if lo == hi else f"{lo} to {hi}"
    if what == "hole cards":
        want += f" ({game!r})"
    if isinstance(x, str):
        ids = cards.parse(x)
        single, rows = True, ids.reshape(1, -1)
    elif isinstance(x, (list, tuple)) and x and all(isinstance(r, str) for r in x):
        return _text_rows(x, what, sizes, want, invalid)
    else:
        arr = card_input.integer_array(x, what, noun="integer card ids or uint64 masks")
        if arr.dtype == np.uint64:
            return mask_rows(arr, what, sizes, want, invalid)
        if arr.ndim not in (1, 2):
            raise ValueError(f"{what}: card ids must have shape (k,) or (N, k), got {arr.shape}")
        single, rows = arr.ndim == 1, arr.reshape(-1, arr.shape[-1])
    k = rows.shape[1]
    if not lo <= k <= hi:
        raise ValueError(f"{what}: {k} cards per row; this game takes {want}")
    bad = None
    if rows.size and (rows.min() < 0 or rows.max() > 51):
        cells = (rows < 0) | (rows > 51)
        bad = cells.any(axis=1)
        r = int(np.flatnonzero(bad)[0])
        if invalid == "raise":
            raise ValueError(f"{what} {rows[r].tolist()} (row {r}): card id "
                             f"{int(rows[r][cells[r]][0])} is out of range 0..51")
        rows = np.where(cells, 0, rows)
    return rows.astype(np.uint8), bad, single


def _text_rows(x, what, sizes, want, invalid, fast: bool = True):
    if fast:  # vectorised (card_text); the loop below is its reference
        from gpu_eval.card_text import rows_of_size

        return (*rows_of_size(x, what=what, sizes=sizes, want=want, invalid=invalid), False)
    lo, hi = sizes
    parsed, bad = [], np.zeros(len(x), dtype=bool)
    for i, text in enumerate(x):
        try:
            ids = cards.parse_hand_text(text, allow_joker=False, where=f" (row {i})")
            cards.check_no_duplicates(ids, f"{text!r} (row {i})")
            if not lo <= len(ids) <= hi:
                raise ValueError(f"{what} {text!r} (row {i}): {len(ids)} cards; this game "
                                 f"takes {want}")
            if parsed and any(p is not None for p in parsed):
                k0 = len(next(p for p in parsed if p is not None))
                if len(ids) != k0:
                    raise ValueError(f"{what} {text!r} (row {i}) has {len(ids)} cards but "
                                     f"earlier rows have {k0}; evaluate boards of different "
                                     f"sizes in separate calls")
        except ValueError:
            if invalid == "raise":
                raise
            bad[i] = True
            parsed.append(None)
            continue
        parsed.append(ids)
    k = next((len(p) for p in parsed if p is not None), lo)
    rows = np.array([p if p is not None else list(range(k)) for p in parsed], dtype=np.uint8)
    return rows.reshape(len(x), k), (bad if bad.any() else None), False


def mask_rows(arr, what, sizes, want, invalid):
    lo, hi = sizes
    if arr.ndim > 1:
        raise ValueError(f"{what}: hand masks must have shape () or (N,), got {arr.shape}")
    single = arr.ndim == 0
    m = np.atleast_1d(arr)
    stray = (m & ~cards.VALID_MASK_BITS) != 0
    counts = np.bitwise_count(m).astype(np.int64)
    valid = ~stray & (counts >= lo) & (counts <= hi)
    k = int(np.bincount(counts[valid]).argmax()) if valid.any() else lo  # the usual size
    wrong = ~valid | (counts != k)
    if wrong.any():
        r = int(np.flatnonzero(wrong)[0])
        if invalid == "raise":
            reason = ("bits set outside the 52 card positions" if stray[r] else
                      f"{counts[r]} cards; this game takes {want}" if not valid[r] else
                      f"{counts[r]} cards but other rows have {k}")
            raise ValueError(f"{what} mask {int(m[r]):#x} (row {r}): {reason}")
        m = np.where(wrong, cards.to_mask(np.arange(k, dtype=np.uint8)), m)
    ids = cards.from_mask(m)
    return ids.reshape(len(m), k), (wrong if wrong.any() else None), single


def row_error(hole: np.ndarray, board: np.ndarray, r: int) -> ValueError:
    """Why row ``r`` (its hole cards and board, ids in range) is not a hand."""
    hole_text, board_text = cards.format(hole), cards.format(board)
    for what, row, text in (("hole cards", hole, hole_text), ("board", board, board_text)):
        if len(set(row.tolist())) != len(row):
            return ValueError(f"{what} {text} (row {r}): a card is used twice")
    both = cards.format(np.array(sorted(set(hole.tolist()) & set(board.tolist())), np.uint8))
    return ValueError(f"hole cards {hole_text} and board {board_text} (row {r}): {both} is "
                      f"used twice")
