"""Every hole pair's strength on many boards: ``board_strengths(boards)`` -> ``(N, C)`` uint16.

Board-major: the board's rank counts (four 13-bit planes: ranks held at least once, twice,
three and four times) are read once per board, each of the deck's hole *rank* pairs (91 in
hold'em, 45 in short deck) is added to them and evaluated with the bitmask evaluator's tables
(``gpu_eval.evaluator.tables``), and the columns gather their rank pair's strength (done once
per rank multiset of the deck, so a board's row is a lookup: ``_column_table``). Flushes are
the only thing suits change: only boards with three or more cards of one suit look again, at the
columns that can complete it (both hole cards of that suit on a three-flush, every column on a
four- or five-flush), and take the larger of the two strengths, exactly as the evaluator takes
the largest candidate. Columns that share a card with the board are 0.
"""

from __future__ import annotations

from functools import cache
from itertools import combinations_with_replacement
from typing import Any, cast

import numpy as np
import numpy.typing as npt

from gpu_eval import backend_choice, cards
from gpu_eval.array_interop import accepts_arrays
from gpu_eval.evaluator import inputs
from gpu_eval.games import registry
from gpu_eval.games.registry import HOLDEM
from gpu_eval.rank_planes import add_rank, planes_of_lanes
from gpu_eval.solver_tables.layout import EVALUATORS, DeckLayout, deck_layout

__all__ = ["board_strengths", "validate_boards", "strengths_of_masks", "rank_pair_strengths"]

#: Boards per NumPy chunk: the (chunk, C) uint16 output and a few (chunk, R) temporaries stay
#: in cache-sized pieces.
CHUNK = 2048
BOARD_CARDS = (3, 5)


def validate_boards(boards, game: str = HOLDEM) -> tuple[np.ndarray, bool]:
    """``boards`` (text, ids or masks) as validated ``uint64`` masks, and whether one board was
    given; ``ValueError`` naming the row for a repeated card, a wrong card count or (short deck)
    a card below the deck."""
    g = registry.get(game, where="board_strengths()", evaluators=EVALUATORS,
                     deals=(registry.BOARD,))
    h = inputs.coerce(boards)
    if h.ids is not None:
        masks = (np.bitwise_or.reduce(cards.ID_TO_MASK[h.ids], axis=1) if h.ids.shape[1]
                 else np.zeros(len(h.ids), dtype=np.uint64))
    else:
        masks = h.masks
    counts = np.bitwise_count(masks)
    lo, hi = BOARD_CARDS
    wrong = (counts < lo) | (counts > hi)
    if h.ids is not None:
        wrong |= counts != h.ids.shape[1]
    if wrong.any():
        r = int(np.flatnonzero(wrong)[0])
        if h.ids is not None and counts[r] < h.ids.shape[1]:
            raise inputs.row_error(h, r, "a card is used twice")
        raise inputs.row_error(h, r, f"{int(counts[r])} cards; a board has {lo} to {hi}")
    if g.lowest_rank:
        low = np.uint64(sum(((1 << g.lowest_rank) - 1) << (16 * s) for s in range(4)))
        bad = (masks & low) != 0
        if bad.any():
            r = int(np.flatnonzero(bad)[0])
            m = int(masks[r]) & int(low)
            raise inputs.row_error(h, r, f"card {cards.format(np.uint64(m & -m))} is not in the "
                                         f"{g.deck_size}-card deck of {game}")
    return np.ascontiguousarray(masks, dtype=np.uint64), h.scalar


def _rank_strengths(planes, lay: DeckLayout) -> np.ndarray:
    """``(n, R)`` strength of every board (planes of shape ``(n, 1)``) with every hole rank
    pair, flushes left out."""
    t = lay.tables
    one = np.uint16(1)
    r1 = one << lay.rank_pairs[:, 0].astype(np.uint16)
    r2 = one << lay.rank_pairs[:, 1].astype(np.uint16)
    b1, b2, b3, b4 = add_rank(add_rank(planes, r1[None, :]), r2[None, :])
    best = np.take(t.dup, np.take(t.dup_row, b2 & ~b3).astype(np.intp) + b1)
    rare = np.nonzero(b3)
    if rare[0].size:
        o, p, q, th = b1[rare], b2[rare], b4[rare], b3[rare]
        tr = th & ~q
        o64 = o.astype(np.intp)
        trow = np.take(t.row, tr).astype(np.intp)
        cand = np.take(t.trips, trow + o64)
        np.maximum(cand, np.take(t.full_house, trow + p), out=cand)
        np.maximum(cand, np.take(t.quads, np.take(t.row, q).astype(np.intp) + o64), out=cand)
        np.maximum(cand, best[rare], out=cand)
        best[rare] = cand
    return best


def rank_pair_strengths(masks: np.ndarray, lay: DeckLayout) -> np.ndarray:
    """``(n, R)`` uint16: the strength of each board with each hole rank pair of the deck
    (``lay.rank_pairs``), flushes left out: the strength of every column of that rank pair
    on the boards where no flush can be made (whatever the suits, where the board leaves two
    such cards).

    Examples
    --------
    >>> from gpu_eval.solver_tables.layout import deck_layout
    >>> lay = deck_layout()
    >>> s = rank_pair_strengths(cards.to_mask(["Kd7c3h5s9d"]), lay)
    >>> s.shape, bool(s[0, -1] > s[0, 0])            # AA beats 22 there
    ((1, 91), True)
    """
    n = len(masks)
    if n == 0:
        return np.empty((0, len(lay.rank_pairs)), dtype=np.uint16)
    lanes = np.ascontiguousarray(masks, dtype=np.uint64).view(np.uint16).reshape(n, 4).T
    return _rank_strengths(tuple(p[:, None] for p in planes_of_lanes(*lanes)), lay)


def _plane_keys(planes) -> np.ndarray:
    """One uint64 per board from its four 13-bit rank planes: equal exactly when the boards
    hold the same rank multiset."""
    key = np.zeros(len(planes[0]), dtype=np.uint64)
    for i, p in enumerate(planes):
        key |= p.astype(np.uint64) << np.uint64(13 * i)
    return key


@cache
def _column_table(game: str, k: int) -> tuple[np.ndarray, np.ndarray]:
    """``(keys, strengths)`` of every ``k``-card rank multiset of the game's deck: the sorted
    plane keys and, per key, every column's strength without flushes (``(K, C)`` uint16,
    read-only; 6,175 x 1,326 in hold'em, 16 MB). A board's columns depend on nothing but its
    rank multiset until flushes and blocked cards are applied, so a board's row is a lookup."""
    lay = deck_layout(game)
    rows = [c for c in combinations_with_replacement(range(lay.lowest_card // 4, 13), k)
            if max((c.count(r) for r in c), default=0) <= 4]
    lanes = np.zeros((4, len(rows)), dtype=np.uint16)
    for i, c in enumerate(rows):
        for j, r in enumerate(c):  # the copies of a rank in suits 0, 1, 2, 3: no flush
            lanes[c[:j].count(r), i] |= 1 << r
    planes = planes_of_lanes(*lanes)
    keys = _plane_keys(planes)
    order = np.argsort(keys)
    strengths = np.take(_rank_strengths(tuple(p[:, None] for p in planes), lay)[order],
                        lay.column_rank_pair, axis=1)
    keys, strengths = keys[order], np.ascontiguousarray(strengths)
    keys.flags.writeable = strengths.flags.writeable = False
    return keys, strengths


def strengths_of_masks(masks: np.ndarray, lay: DeckLayout, out: np.ndarray | None = None
                       ) -> np.ndarray:
    """``(n, C)`` strengths of validated board masks that all hold the same number of cards."""
    n = len(masks)
    if out is None:
        out = np.empty((n, lay.columns), dtype=np.uint16)
    if n == 0:
        return out
    k = int(np.bitwise_count(masks[0]))
    lanes = masks.view(np.uint16).reshape(n, 4).T
    keys, table = _column_table(lay.game, k)
    want = _plane_keys(planes_of_lanes(*lanes))
    row = np.searchsorted(keys, want)
    if (np.take(keys, row, mode="clip") != want).any():  # one pass over boards, not columns
        raise ValueError(f"boards that are not all {k}-card boards of the {lay.game} deck")
    np.take(table, row, axis=0, out=out)
    counts = np.bitwise_count(lanes)
    flush = lay.tables.flush
    for s in range(4):
        for rows, cols in ((np.flatnonzero(counts[s] == 3), lay.suited_columns[s]),
                           (np.flatnonzero(counts[s] >= 4), None)):
            if not rows.size:
                continue
            hl = lay.hole_lanes[s] if cols is None else lay.hole_lanes[s][cols]
            fl = np.take(flush, lanes[s][rows, None] | hl[None, :])
            if cols is None:
                np.maximum(out[rows], fl, out=fl)
                out[rows] = fl
            else:
                sub = out[rows[:, None], cols[None, :]]
                np.maximum(sub, fl, out=sub)
                out[rows[:, None], cols[None, :]] = sub
    # The k board cards block the columns through them.
    ids = cards.from_mask(masks).reshape(n, k)
    blocked = lay.card_columns[ids].reshape(n, -1)
    out[np.arange(n)[:, None], blocked] = 0
    return out


@accepts_arrays("boards")
def board_strengths(boards: npt.ArrayLike, game: str = HOLDEM, *, backend: str = "auto"
                    ) -> np.ndarray:
    """The strength of every hole pair with each board.

    Parameters
    ----------
    boards : str, list of str, array_like
        Boards of 3 to 5 cards: text (``"AsKdQh"``, or a list, sizes may differ), an
        ``(N, k)`` or ``(k,)`` id array, or ``uint64`` masks. CuPy arrays (ids or masks) are
        evaluated on the GPU and give a CuPy result.
    game : str
        ``"holdem"`` (1,326 columns) or ``"shortdeck"`` / ``"shortdeck-triton"`` (630
        columns, the pairs of the 36-card deck; strengths on that game's scale).
    backend : {"auto", "numpy", "cuda"}
        Where to compute: ``auto`` picks CUDA for CuPy boards, or when a device is usable.

    Returns
    -------
    numpy.ndarray or cupy.ndarray
        ``uint16`` of shape ``(N, C)`` (``(C,)`` for one board), column ``j`` the hole pair
        ``hole_pairs(game)[j]``; 0 where the pair shares a card with the board.

    Raises
    ------
    ValueError
        Naming the board: a repeated card, fewer than 3 or more than 5 cards, a card outside
        the game's deck.

    Examples
    --------
    >>> import gpu_eval as ge
    >>> s = ge.board_strengths("AhKhQh Jh 2c")
    >>> pairs = ge.hole_pairs()
    >>> j = int(np.flatnonzero((pairs == ge.cards.parse("2hTh")).all(axis=1))[0])
    >>> s.shape, int(s[j]), int(s[0])          # 2hTh makes the royal flush; 2c2d is blocked
    ((1326,), 7462, 0)
    >>> int(s[j - 1]) == int(ge.evaluate("AhKhQhJh2c " + ge.cards.format(pairs[j - 1])))
    True
    """
    on_device = backend_choice.resolve(backend, boards) == "cuda"
    cupy_in = backend_choice.is_cupy_array(boards)
    # CuPy boards are validated on the host: 8 bytes a board, against 2.6 KB of strengths.
    masks, scalar = validate_boards(boards.get() if backend_choice.is_cupy_array(boards)
                                    else boards, game)
    lay = deck_layout(game)
    if on_device:
        from gpu_eval.solver_tables.cuda_engine import board_strengths_cuda  # CuPy only here
        if cupy_in:  # on the device that holds the boards
            with cast(Any, boards).device:  # a CuPy array: on its own device
                out = board_strengths_cuda(masks, lay, cupy_out=True)
        else:
            out = board_strengths_cuda(masks, lay)
        if not cupy_in:
            out = registry.tag(out, game)
        return out[0] if scalar else out
    out = np.empty((len(masks), lay.columns), dtype=registry.strength_dtype(game))
    raw = out.view(np.uint16)
    counts = np.bitwise_count(masks)
    for k in range(BOARD_CARDS[0], BOARD_CARDS[1] + 1):
        rows = np.flatnonzero(counts == k)
        if rows.size == len(masks):
            for a in range(0, len(masks), CHUNK):
                strengths_of_masks(masks[a:a + CHUNK], lay, raw[a:a + CHUNK])
        elif rows.size:
            for a in range(0, rows.size, CHUNK):
                r = rows[a:a + CHUNK]
                raw[r] = strengths_of_masks(masks[r], lay)
    return out[0] if scalar else out
