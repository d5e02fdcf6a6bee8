"""Board completions: every k-card completion of a board from the remaining deck, or a sample.

The remaining deck is given as a hand mask of the cards still available (the full deck minus
the board, the dead cards and the hole cards that every matchup holds). Its cards, in id order,
are numbered ``0..R-1``; completion number ``i`` is the colex-ordered k-subset number ``i`` of
those numbers (:mod:`gpu_eval.combinatorics`), so a slice ``[start, stop)`` of completions means
the same boards on the NumPy and CUDA paths (a kernel unranks ``i`` instead of reading an array).
"""

from __future__ import annotations

from functools import lru_cache
from math import comb

import numpy as np

from gpu_eval import combinatorics
from gpu_eval.cards import ID_TO_MASK
from gpu_eval.suit_symmetry import (  # noqa: F401 -- re-exported: the engines' names
    SUIT_PERMS,
    keeping_range,
    orbit_representatives,
    permute_suits,
    stabilizer,
)

FULL_DECK = int(np.bitwise_or.reduce(ID_TO_MASK))


def deck_ids(deck_mask: int) -> np.ndarray:
    """Ids of the cards in ``deck_mask``, increasing.

    Examples
    --------
    >>> from gpu_eval import cards
    >>> deck_ids(int(cards.to_mask("2c 2d As"))).tolist()
    [0, 1, 51]
    """
    return np.flatnonzero((ID_TO_MASK & np.uint64(deck_mask)) != 0).astype(np.uint8)


def deck_values(deck_mask: int) -> np.ndarray:
    """Mask bit of each card in ``deck_mask``, in id order (``uint64``, one per card)."""
    return ID_TO_MASK[deck_ids(deck_mask)]


def count(deck_mask: int, k: int) -> int:
    """Number of k-card completions: ``C(R, k)`` with ``R`` the cards in ``deck_mask``.

    Examples
    --------
    >>> count(FULL_DECK, 5), count(FULL_DECK, 0)
    (2598960, 1)
    """
    return comb(bin(deck_mask).count("1"), k)


def completions(deck_mask: int, k: int) -> np.ndarray:
    """All k-card completions from ``deck_mask`` as ``uint64`` masks, colex order, read-only.

    Built once per (deck, k) and cached (the cache of :func:`combinatorics.subset_masks`):
    repeated equity calls on the same deck skip the 20-30 ms this takes for 5 cards.

    Examples
    --------
    >>> from gpu_eval import cards
    >>> deck = int(cards.to_mask("2c 3c 4c"))
    >>> cards.format(completions(deck, 2))
    ['2c3c', '2c4c', '3c4c']
    """
    vals = deck_values(deck_mask)
    return combinatorics.subset_masks(len(vals), k, vals)


def sample(rng: np.random.Generator, n: int, deck_mask: int, k: int,
           used: np.ndarray | None = None) -> np.ndarray:
    """``n`` random k-card completions from ``deck_mask``, each avoiding ``used[i]``.

    Each row draws k cards at once, uniformly and independently from the deck; a row whose
    cards collide (with each other or with ``used[i]``) is drawn again whole. Rejecting whole
    rows keeps every row uniform over the k-subsets of the deck minus ``used[i]``. Rows that
    keep colliding (a nearly exhausted deck) are finished one card at a time.

    Parameters
    ----------
    rng : numpy.random.Generator
    n : int
        Number of completions.
    deck_mask : int
        The cards that may be drawn.
    k : int
        Cards per completion.
    used : numpy.ndarray of uint64, optional
        Per-row cards that must not be drawn (e.g. the hole cards of sampled range combos).

    Returns
    -------
    numpy.ndarray
        ``uint64`` masks of shape ``(n,)``.

    Raises
    ------
    ValueError
        When the deck, less a row's ``used`` cards, has fewer than ``k`` cards.

    Examples
    --------
    >>> from gpu_eval import cards
    >>> b = sample(np.random.default_rng(0), 4, FULL_DECK, 5)
    >>> cards.mask_popcount(b).tolist()
    [5, 5, 5, 5]
    """
    vals = deck_values(deck_mask)
    if k > len(vals):
        raise ValueError(f"cannot draw {k} cards from a deck of {len(vals)}")
    taken = np.zeros(n, dtype=np.uint64) if used is None else np.array(used, dtype=np.uint64)
    if k == 0 or n == 0:
        return np.zeros(n, dtype=np.uint64)
    if used is not None:
        short = np.bitwise_count(np.uint64(deck_mask) & ~taken) < k
        if short.any():
            r = int(np.flatnonzero(short)[0])
            raise ValueError(f"row {r}: fewer than {k} cards left to draw")
    pick = _pick(deck_mask, n)
    board = _draw_rows(rng, pick, k, taken)
    rest = np.flatnonzero(board == 0)
    for _ in range(_WHOLE_ROW_ROUNDS):
        if not rest.size:
            break
        got = _draw_rows(rng, pick, k, taken[rest])
        board[rest] = got
        rest = rest[got == 0]
    if rest.size:
        board[rest] = _sample_by_card(rng, vals, k, taken[rest])
    return board


# Whole-row redraws before the remaining rows go card by card: with 5 of 48 cards about 70%
# of rows succeed per round, so a handful of rounds leaves a few rows at most.
_WHOLE_ROW_ROUNDS = 12


# Below this many rows a draw reads the deck's pairs by ``v % count`` (a few us); from it up
# the 65,536-entry tables (1.5-3 ms to build, then one lookup a card) pay for themselves. A
# sampled sweep over many boards (one deck each, a few hundred rows) stays on the first.
_TABLE_ROWS = 1 << 15


@lru_cache(maxsize=64)
def _draw_items(deck_mask: int) -> tuple[np.ndarray, np.ndarray]:
    """``(pairs, singles)``: the deck's 2-card and 1-card masks (the items a draw picks from)."""
    vals = deck_values(deck_mask)
    i, j = _pair_indices(len(vals))
    pairs = vals[i] | vals[j]
    pairs.flags.writeable = False
    return pairs, vals


@lru_cache(maxsize=64)
def _pair_indices(n: int) -> tuple[np.ndarray, np.ndarray]:
    return np.triu_indices(n, 1)


@lru_cache(maxsize=8)
def _draw_tables(deck_mask: int) -> tuple[np.ndarray, np.ndarray]:
    """``(pairs, singles)`` as tables indexed by a uniform 16-bit number ``v``: entry ``v`` is
    item ``v % count``; the top ``65536 % count`` numbers give 0 (rejected), so every pair,
    and every card, is exactly equally likely."""
    v = np.arange(1 << 16)
    out = []
    for items in _draw_items(deck_mask):
        if len(items) == 0:
            table = np.zeros(1 << 16, dtype=np.uint64)
        else:
            limit = (1 << 16) - (1 << 16) % len(items)
            table = np.where(v < limit, items[v % len(items)], np.uint64(0)).astype(np.uint64)
        table.flags.writeable = False
        out.append(table)
    return out[0], out[1]


def _pick(deck_mask: int, n: int):
    """``pick(which, v)``: the pair (``which`` 0) or card (1) that each 16-bit ``v`` names, 0
    for a rejected ``v``; by the tables for many rows, by ``v % count`` for few (the same
    items)."""
    if n >= _TABLE_ROWS:
        tables = _draw_tables(deck_mask)
        return lambda which, v: np.take(tables[which], v)
    items = _draw_items(deck_mask)

    def pick(which: int, v: np.ndarray) -> np.ndarray:
        its = items[which]
        if len(its) == 0:
            return np.zeros(len(v), dtype=np.uint64)
        out = np.take(its, v % np.uint16(len(its)))
        out[v >= (1 << 16) - (1 << 16) % len(its)] = 0
        return out
    return pick


def _draw_rows(rng: np.random.Generator, pick, k: int, taken: np.ndarray) -> np.ndarray:
    """One try per row: ``k // 2`` random pairs and ``k % 2`` random cards, each picked by a
    raw 16-bit random number (:func:`_pick`); 0 where the row failed (a rejected number, a card
    drawn twice, or a card in ``taken``). Given success every k-subset is equally likely: each
    arises from the same number of (pair, ..., card) draws."""
    n = len(taken)
    which = [0] * (k // 2) + [1] * (k % 2)
    raw = rng.bit_generator.random_raw(-(-len(which) * n // 4)).view("<u2")
    raw = raw[:len(which) * n].reshape(len(which), n)
    board = pick(which[0], raw[0])
    for w, r in zip(which[1:], raw[1:]):
        board |= pick(w, r)
    ok = np.bitwise_count(board) == k
    ok &= (board & taken) == 0
    board[~ok] = 0
    return board


def _uniform_ints(rng: np.random.Generator, r: int, shape) -> np.ndarray:
    """Uniform ints in ``[0, r)`` as ``floor(u * r)``: a few times faster than
    ``rng.integers``, with a bias below ``r / 2**53`` (far under any Monte Carlo error)."""
    return (rng.random(shape) * r).astype(np.intp)


def _sample_by_card(rng: np.random.Generator, vals: np.ndarray, k: int, taken: np.ndarray
                    ) -> np.ndarray:
    """One card at a time, redrawing collisions; ``taken`` is updated in place."""
    n = len(taken)
    board = np.zeros(n, dtype=np.uint64)
    for _ in range(k):
        bits = vals[_uniform_ints(rng, len(vals), n)]
        bad = np.flatnonzero(taken & bits)
        while bad.size:
            bits[bad] = vals[_uniform_ints(rng, len(vals), bad.size)]
            bad = bad[(taken[bad] & bits[bad]) != 0]
        taken |= bits
        board |= bits
    return board


# ---------------------------------------------------------------------------------------------
# Suit isomorphism: boards that a suit permutation maps onto each other, while it leaves every
# known card set (each player's hand, the board, the dead cards) unchanged, give the same result.
# ---------------------------------------------------------------------------------------------

@lru_cache(maxsize=4)
def symmetric_completions(deck_mask: int, k: int, group: tuple[tuple[int, ...], ...]
                          ) -> tuple[tuple[np.ndarray, int], ...]:
    """Completions grouped by orbit size: one board per orbit of ``group``, and its count.

    A board is kept when it is the smallest mask of its orbit under ``group`` (which must map
    the deck onto itself); its orbit has ``len(group) / |stabiliser|`` boards, all giving the
    same showdown. Returns ``((boards, multiplicity), ...)`` with each ``boards`` read-only;
    ``sum(len(b) * m) == count(deck_mask, k)``.

    Examples
    --------
    >>> from gpu_eval import cards
    >>> known = [int(cards.to_mask("AhKh")), int(cards.to_mask("QsQd"))]
    >>> deck = FULL_DECK & ~(known[0] | known[1])
    >>> parts = symmetric_completions(deck, 5, stabilizer(known))
    >>> sum(len(b) * m for b, m in parts), sum(len(b) for b, m in parts)
    (1712304, 890340)
    """
    full = completions(deck_mask, k)
    if len(group) <= 1:
        return ((full, 1),)
    parts = orbit_representatives(full, group)
    for b, _ in parts:
        b.flags.writeable = False
    return tuple(parts)
