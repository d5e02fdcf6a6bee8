"""The players' completions in a deal without a board (stud, razz, the draw games) and their
strengths, for :mod:`gpu_eval.equity_engine.deals.numpy_engine`.

A player's completions are every ``need``-card subset of the deck left; they depend only on
that deck and ``need``, so they are cached per deck (a spot asked again, or the next player
drawing as many cards, skips building them). Their strengths are the evaluators' integers
(:func:`strengths`), read more cheaply where the hand is small:

* a five-card hand (2-7 and five-card draw) has, under every scale here, the strength of its
  rank multiset unless its five cards share a suit: so each completion's rank key
  (``sum 5^rank``) and suit lanes are cached with the completions, and a player's strengths
  are one sorted lookup in the table of the 6,175 five-card rank multisets, raised to the
  flush table where the kept cards leave a flush possible (:func:`five_card_tables`, built
  from the evaluators themselves);
* a badugi hand is read from the evaluator's table of every four-card hand by the colex
  number of its sorted ids, from the completions' ids rather than from masks.

At a few dozen hands the evaluators' forty NumPy calls cost far more than their arithmetic;
these lookups are a handful.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations_with_replacement
from math import comb
from typing import Any, NamedTuple

import numpy as np

from gpu_eval import combinatorics
from gpu_eval.card_spelling import CARD_BIT, CARD_POW5_INTS, RANK_POW5
from gpu_eval.combinatorics import rank_multiset_keys
from gpu_eval.equity_engine import board_orbits
from gpu_eval.games import registry
from gpu_eval.games.registry import BADUGI

__all__ = ["Completions", "completions", "strengths", "player_strengths", "five_card_tables",
           "ids_of_mask"]

_LANE = np.uint64(0x1FFF)
#: ``C(id, j + 1)`` at ``52 * j + id``: a row of four increasing ids has the colex number
#: ``sum_j C(ids[j], j + 1)``, one gather (the badugi table's index).
_COLEX4_TERMS = np.array([comb(c, j + 1) for j in range(4) for c in range(52)], dtype=np.int64)
_COLEX4_TERMS.flags.writeable = False
_COLEX4_OFFSETS = np.arange(0, 4 * 52, 52, dtype=np.intp)


class Completions(NamedTuple):
    """Every ``k``-card completion of a deck: deck positions ``(m, k)``, card ids ``(m, k)``,
    masks ``(m,)`` (read-only)."""

    pos: np.ndarray
    ids: np.ndarray
    masks: np.ndarray


@lru_cache(maxsize=64)
def completions(deck: bytes, k: int) -> Completions:
    """The ``k``-card completions of a deck given as the bytes of its ``uint8`` ids, colex
    order of deck positions; cached.

    Examples
    --------
    >>> c = completions(bytes([0, 1, 2]), 2)
    >>> c.pos.tolist(), c.ids.tolist(), c.masks.tolist()
    ([[0, 1], [0, 2], [1, 2]], [[0, 1], [0, 2], [1, 2]], [65537, 4294967297, 4295032832])
    """
    d = np.frombuffer(deck, dtype=np.uint8)
    pos = combinatorics.subsets(len(d), k)
    ids = d[pos]
    masks = board_orbits.or_rows(ids) if k else np.zeros(1, dtype=np.uint64)
    for a in (ids, masks):
        a.flags.writeable = False
    return Completions(pos, ids, masks)


@lru_cache(maxsize=64)
def _rank_parts(deck: bytes, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Per completion its four suit lanes ``(4, m)`` (``intp``: rank bits, to index the flush
    table) and the column of its rank multiset in :func:`_five_card_rows` (``intp``); cached
    with the deck."""
    c = completions(deck, k)
    keys = RANK_POW5[c.ids // 4].sum(axis=1, dtype=np.int64) if k \
        else np.zeros(1, dtype=np.int64)
    lanes = np.stack([((c.masks >> np.uint64(16 * s)) & _LANE).astype(np.intp)
                      for s in range(4)])
    col = rank_multiset_keys(k).searchsorted(keys)
    for a in (lanes, col):
        a.flags.writeable = False
    return lanes, col


@lru_cache(maxsize=32)
def _five_card_rows(game: str, need: int) -> tuple[dict[int, int], np.ndarray]:
    """:func:`five_card_tables`' strengths without a flush laid out for hands of ``5 - need``
    kept cards: ``(row of each kept rank key, strengths (rows, columns))``, a column per
    multiset of the ``need`` ranks to come (:func:`~gpu_eval.combinatorics.rank_multiset_keys`
    order), 0 where the two hold a rank five times; read-only. A player's strengths over its
    completions are one row read from a few hundred bytes, not a binary search each."""
    keys, plain, _ = five_card_tables(game)
    kept, cols = rank_multiset_keys(5 - need), rank_multiset_keys(need)
    total = kept[:, None] + cols[None, :]
    at = np.minimum(keys.searchsorted(total), len(keys) - 1)
    table = np.where(keys[at] == total, plain[at], 0).astype(np.uint16)
    table.flags.writeable = False
    return dict(zip(kept.tolist(), range(len(kept)))), table


def strengths(game: str, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """``(pot strengths, 8-or-better lows or None)`` of final hand masks: the high hand
    (hold'em scale) or, in the low games, the low scale's strength; hi/lo adds the low.

    Examples
    --------
    >>> from gpu_eval import cards
    >>> hi, lo = strengths("stud-hilo", cards.to_mask(["Ah2h3h4h5h6c7c"]))
    >>> int(hi[0]), int(lo[0])
    (7453, 56)
    """
    record = registry.GAMES[game]
    m = np.ascontiguousarray(masks, dtype=np.uint64).reshape(-1)
    if record.low:
        from gpu_eval.games import lowball  # noqa: PLC0415 -- its tables load on demand

        return lowball.evaluate_masks(m, record.low), None
    from gpu_eval.evaluator.bitmask import evaluate_masks  # noqa: PLC0415

    hi = evaluate_masks(m, np.empty(len(m), dtype=np.uint16))
    if not record.hilo:
        return hi, None
    from gpu_eval.games import eight_or_better  # noqa: PLC0415

    return hi, eight_or_better.lookup(eight_or_better.low_tables()["BEST5"], m, None)


@lru_cache(maxsize=8)
def five_card_tables(game: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(rank keys, strengths, flush table)`` of a game whose hands are five cards: the
    sorted keys ``sum 5^rank`` of the 6,175 five-card rank multisets with the strength of a
    hand of those ranks in more than one suit, and per 13-bit rank lane the strength of those
    five ranks in one suit (0 for lanes of other sizes). All read from :func:`strengths`.

    Examples
    --------
    >>> keys, plain, flush = five_card_tables("deuce-seven-draw")
    >>> len(keys), int(plain.max()), int(flush[0b10111100])   # 7-5-4-3-2; 9-7-6-5-4 suited
    (6175, 7462, 1567)
    """
    multisets = [r for r in combinations_with_replacement(range(13), 5) if len(set(r)) > 1]
    ids = []
    for ranks in multisets:
        seen: dict[int, int] = {}
        row = []
        for r in ranks:  # the j-th card of a rank in suit j: no flush unless all ranks differ
            row.append(4 * r + seen.get(r, 0))
            seen[r] = seen.get(r, 0) + 1
        if len(set(ranks)) == 5:
            row[-1] += 1  # five ranks: one card off suit
        ids.append(row)
    ids_a = np.array(ids, dtype=np.uint8)
    keys = RANK_POW5[ids_a // 4].sum(axis=1)
    plain = strengths(game, board_orbits.or_rows(ids_a))[0]
    order = np.argsort(keys)
    lanes = np.array([v for v in range(1 << 13) if v.bit_count() == 5], dtype=np.int64)
    suited = np.zeros(len(lanes), dtype=np.uint64)
    for r in range(13):  # clubs: bit r of the first 16-bit lane
        suited |= ((lanes >> r) & 1).astype(np.uint64) << np.uint64(r)
    flush = np.zeros(1 << 13, dtype=np.uint16)
    flush[lanes] = strengths(game, suited)[0]
    out = (keys[order], plain[order].astype(np.uint16), flush)
    for a in out:
        a.flags.writeable = False
    return out


@lru_cache(maxsize=8)
def _five_card_lists(game: str) -> tuple[dict[int, int], list[int]]:
    """:func:`five_card_tables` as a dict by rank key and a list by lane (a pat hand's one
    strength is then read without a NumPy call)."""
    keys, plain, flush = five_card_tables(game)
    return dict(zip(keys.tolist(), plain.tolist())), flush.tolist()


@lru_cache(maxsize=4096)
def _ids_of_mask(mask: int) -> tuple[int, ...]:
    out = []
    while mask:
        low = mask & -mask
        b = low.bit_length() - 1
        out.append(4 * (b % 16) + b // 16)
        mask ^= low
    return tuple(sorted(out))


@lru_cache(maxsize=1)
def _badugi_one_more() -> np.ndarray:
    """Badugi strengths of three cards and a fourth, ``uint16 (C(52, 3), 52)``: the row is the
    colex number of the three increasing ids, the column the fourth card (meaningless where it
    is one of the three); read from the evaluator's table of four-card hands, built once
    (2.3 MB, a fraction of a second), so a one-card draw's strengths are one gather.

    Examples
    --------
    >>> from gpu_eval.games import lowball
    >>> t = _badugi_one_more()   # 2d 3h 4s and Ac: the best badugi
    >>> int(t[1 + comb(6, 2) + comb(11, 3), 48]) == int(lowball.badugi_table()[
    ...     1 + comb(6, 2) + comb(11, 3) + comb(48, 4)])
    True
    """
    from gpu_eval.games import lowball  # noqa: PLC0415 -- its tables load on demand

    table = lowball.badugi_table()
    three = np.array([(a, b, c) for c in range(52) for b in range(c) for a in range(b)],
                     dtype=np.intp)  # colex order: row r holds the r-th triple
    out = np.zeros((len(three), 52), dtype=np.uint16)
    for x in range(52):
        ids = np.column_stack([three, np.full(len(three), x)])
        ok = (three != x).all(axis=1)
        ids.sort(axis=1)
        rows = np.take(_COLEX4_TERMS, ids[ok] + _COLEX4_OFFSETS).sum(axis=1)
        out[ok, x] = table[rows]
    out.flags.writeable = False
    return out


def ids_of_mask(mask: int) -> list[int]:
    """Card ids of a hand mask, increasing.

    Examples
    --------
    >>> ids_of_mask((1 << 16) | 1 | (1 << 12))   # 2c 2d Ac
    [0, 1, 48]
    """
    return list(_ids_of_mask(mask))  # remembered: a spot's few hands are decoded again


@lru_cache(maxsize=4096)
def _kept_reader(game: str, need: int, known: int) -> tuple[str, Any]:
    """How a player's completion strengths are read, given its kept cards (a hand mask) and
    the cards it draws: ``("pat", strengths (1,))``, ``("row", (row, flush lanes))``: a
    row of :func:`_five_card_rows` indexed by each completion's rank multiset, raised to
    the flush table in each ``(suit, kept cards' lane)`` where a flush is still possible,
    ``("one more", row)``: a badugi one-card draw's row of :func:`_badugi_one_more`, indexed
    by the card drawn, or ``("any", None)``: the general reading. A function of the kept cards
    alone: remembered, as their text is (a caller asks about the same few hands again)."""
    record = registry.GAMES[game]
    kept = _ids_of_mask(known)
    if record.draws and not record.hilo and record.hole_cards == 5:
        key = sum(CARD_POW5_INTS[i] for i in kept)
        suits = {i % 4 for i in kept}
        if not need:  # a pat hand: one strength
            by_key, by_lane = _five_card_lists(game)
            pat = by_key[key]
            if len(suits) == 1:
                pat = by_lane[sum(CARD_BIT[i] >> (16 * (i % 4)) for i in kept)] or pat
            return "pat", _read_only(np.array([pat], dtype=np.uint16))
        rows, table = _five_card_rows(game, need)
        # A flush is still possible: in the kept cards' suit, or in any when none is kept.
        flushes = tuple((s, sum(CARD_BIT[i] >> (16 * s) for i in kept))
                        for s in (suits or range(4))) if len(suits) <= 1 else ()
        return "row", (table[rows[key]], flushes)
    if record.low == BADUGI and record.draws:
        from gpu_eval.games import lowball  # noqa: PLC0415 -- its tables load on demand

        if not need:  # a pat hand: one strength, its colex number in plain ints
            a, b, cc, d = kept
            row = a + comb(b, 2) + comb(cc, 3) + comb(d, 4)
            return "pat", _read_only(np.array([lowball.badugi_table()[row]], dtype=np.uint16))
        if len(kept) == 3:  # the one-card draw: one gather from the three cards' row
            a, b, cc = kept
            return "one more", _badugi_one_more()[a + comb(b, 2) + comb(cc, 3)]
    return "any", None


def _read_only(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


def player_strengths(game: str, deck: bytes, need: int, known: int
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    """A player's completions and their strengths: ``(deck positions (m, need), masks (m,),
    strengths (m,), lows (m,) or None)`` for known cards ``known`` (a hand mask), drawing
    ``need`` cards from ``deck`` (the bytes of its ``uint8`` ids).

    Examples
    --------
    >>> from gpu_eval import cards
    >>> kept = cards.parse("7d5h4c3s")
    >>> deck = bytes(c for c in range(52) if c not in kept)
    >>> pos, m, hi, lo = player_strengths("deuce-seven-draw", deck, 1,
    ...                                   int(cards.to_mask(kept)))
    >>> len(hi), int(hi.max()), lo is None   # a deuce makes 7-5-4-3-2, the nuts
    (48, 7462, True)
    """
    c = completions(deck, need)
    how, arg = _kept_reader(game, need, known)
    if how == "pat":
        return c.pos, c.masks, arg, None
    if how == "row":
        row, flushes = arg
        lanes, col = _rank_parts(deck, need)
        st = row.take(col)
        if flushes:
            flush = five_card_tables(game)[2]
            for s, lane in flushes:
                f = flush.take(lanes[s] | lane)
                st = np.where(f > 0, f, st)
        return c.pos, c.masks, st, None
    if how == "one more":
        return c.pos, c.masks, arg.take(c.ids.reshape(-1)), None
    record = registry.GAMES[game]
    if record.low == BADUGI and record.draws:  # a badugi draw of two or more cards
        from gpu_eval.games import lowball  # noqa: PLC0415 -- its tables load on demand

        kept = _ids_of_mask(known)
        ids = np.empty((len(c.ids), 4), dtype=np.intp)
        ids[:, :len(kept)] = kept
        ids[:, len(kept):] = c.ids
        ids.sort(axis=1)
        rows = np.take(_COLEX4_TERMS, ids + _COLEX4_OFFSETS).sum(axis=1)
        return c.pos, c.masks, np.take(lowball.badugi_table(), rows), None
    hi, lo = strengths(game, c.masks | np.uint64(known))
    return c.pos, c.masks, hi, lo
