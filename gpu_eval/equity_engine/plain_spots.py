"""The commonest spots read in a few microseconds: every player's cards, the board and the
dead cards as plain card text (``"AhKh"``, ``"7d5h4c3s"``, ``"2c7d9h"``).

:func:`gpu_eval.equity_engine.problem.prepare` reads anything a caller may pass (ranges,
arrays of any integer width, card masks, other spellings) and names every mistake; for a
spot of a few hundred boards or deals that reading costs more than the counting. The readers
here take only plain text with nothing wrong in it and return None for anything else --
another spelling, an array, a range, a card used twice, a count the game does not deal --
so the general reader then reads it and raises its usual error. Both give the same spot.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, NamedTuple

from gpu_eval.card_input import plain_text_ids
from gpu_eval.card_spelling import CARD_BIT, CARD_POW5_INTS
from gpu_eval.equity_engine.problem import deck_of, max_players
from gpu_eval.games import registry

__all__ = ["plain", "plain_deal", "PlainDeal"]


@lru_cache(maxsize=4096)
def plain(text: str) -> tuple[tuple[int, ...], int, int] | None:
    """The ids of plain card text, their hand mask and their rank key (``sum 5^rank``, the
    key of the rank multiset the evaluators' rank tables are read by), or None for any other
    text and for text that names a card twice (remembered: a caller re-reads the same few
    texts).

    Examples
    --------
    >>> ids, mask, key = plain("2c7d9h")
    >>> ids, mask == 1 << 0 | 1 << (16 + 5) | 1 << (32 + 7), key == 5 ** 0 + 5 ** 5 + 5 ** 7
    ((0, 21, 30), True, True)
    >>> plain("2c 2c"), plain("10h")
    (None, None)
    """
    ids = plain_text_ids(text)
    if ids is None:
        return None
    mask = 0
    for c in ids:
        mask |= CARD_BIT[c]
    if mask.bit_count() != len(ids):
        return None
    return tuple(ids), mask, sum(CARD_POW5_INTS[c] for c in ids)


class PlainDeal(NamedTuple):
    """A deal of a game without a board (stud, razz, the draw games), read from plain text:
    what :func:`~gpu_eval.equity_engine.problem.prepare` reads of it."""

    labels: tuple[str, ...]
    known: tuple[int, ...]    #: each player's known (stud) or kept (draw) cards, a hand mask
    need: tuple[int, ...]     #: cards still to come, per player
    dead: tuple[int, ...]     #: the dead cards' ids
    deck_mask: int            #: the cards that can still come


def plain_deal(players: Any, board: Any, dead: Any, record: registry.Game
               ) -> PlainDeal | None:
    """The :class:`PlainDeal` of ``players`` (a list of plain card texts), no board and
    plain dead-card text of a game whose players hold their own cards; None for anything
    else (the general reader then reads it and names what is wrong).

    Examples
    --------
    >>> d = plain_deal(["7d5h4c3s2h", "5s4h3d2c"], "", "Ad", registry.get("deuce-seven-draw"))
    >>> d.labels, d.need, bin(d.deck_mask).count("1")
    (('7d5h4c3s2h', '5s4h3d2c'), (0, 1), 42)
    >>> plain_deal(["7d5h4c3s2h", "7d4h3d2c"], "", "", registry.get("deuce-seven-draw"))
    """
    if record.deal != registry.OWN_CARDS or board != "" \
            or type(players) not in (list, tuple) or not 2 <= len(players) <= max_players(record):
        return None
    lo, hi = record.hand_cards
    used = 0
    known, need = [], []
    for p in players:
        got = plain(p) if type(p) is str and p and p.strip() == p else None
        if got is None or not lo <= len(got[0]) <= hi or used & got[1]:
            return None
        used |= got[1]
        known.append(got[1])
        need.append(record.hole_cards - len(got[0]))
    got = plain(dead) if type(dead) is str else None
    if got is None or used & got[1]:
        return None
    full = deck_of(record)
    used |= got[1]
    if used & ~full:  # a card outside the game's deck
        return None
    deck = full & ~used
    if sum(need) > deck.bit_count():
        return None
    return PlainDeal(tuple(players), tuple(known), tuple(need), got[0], deck)
