"""The spelling of one card and one hand of text, and the card tables everything else uses.

The lowest layer of the card encodings: :mod:`gpu_eval.cards` (the public conversions) and
:mod:`gpu_eval.card_text` (the vectorised text reader and writer) both build on it.
"""

from __future__ import annotations

import re

import numpy as np

__all__ = ["RANKS", "SUITS", "JOKER", "VALID_MASK_BITS", "ID_TO_MASK", "CARD_BIT", "RANK_POW5",
           "CARD_POW5", "CARD_POW5_INTS", "RANK_BIT", "PLAIN_CARD_ID", "parse_card",
           "parse_hand_text", "check_no_duplicates", "id_text"]

RANKS = "23456789TJQKA"
SUITS = "cdhs"
#: The joker's id, for games that allow one (see ``wild=``).
JOKER = 52

_SUIT_ALIASES = {"c": 0, "d": 1, "h": 2, "s": 3, "♣": 0, "♦": 1, "♥": 2, "♠": 3,
                 "♧": 0, "♢": 1, "♡": 2, "♤": 3}
_RANK_ALIASES = {ch: i for i, ch in enumerate(RANKS)}
_RANK_ALIASES["10"] = 8
_RANK_ALIASES["1"] = 12  # never matched alone: "1" is only accepted as part of "10"
del _RANK_ALIASES["1"]

# One card token: a rank ("10" or one of 23456789TJQKA) then a suit; or a joker.
# re.ASCII: case folding stays ASCII, so the Kelvin sign is not a "k" (it raised KeyError).
_CARD_RE = re.compile(r"(10|[2-9tjqka])([cdhs♣♦♥♠♧♢♡♤])|(jk|xx)", re.IGNORECASE | re.ASCII)
_SEPARATORS = re.compile(r"[\s,]+")

#: All 52 valid bits of a hand mask (4 lanes of 13 ranks).
VALID_MASK_BITS = np.uint64(sum(0x1FFF << (16 * s) for s in range(4)))

# Lookup table from a card id to its hand-mask bit.
ID_TO_MASK = np.array([1 << (16 * (i % 4) + i // 4) for i in range(52)], dtype=np.uint64)
#: The same bits as Python ints (pure-Python loops of the one-spot shortcuts).
CARD_BIT: tuple[int, ...] = tuple(int(b) for b in ID_TO_MASK)
#: ``5 ** rank``: a multiset of ranks (each at most 4 times) has the key ``sum m_r 5^r``.
RANK_POW5 = 5 ** np.arange(13, dtype=np.int64)
RANK_POW5.flags.writeable = False
#: Each card id's share of a rank-multiset key, ``5 ** (id // 4)``.
CARD_POW5 = RANK_POW5[np.arange(52) // 4]
CARD_POW5.flags.writeable = False
CARD_POW5_INTS: tuple[int, ...] = tuple(int(v) for v in CARD_POW5)
#: Each card id's rank bit ``1 << (id // 4)`` (a suit lane of a hand mask).
RANK_BIT = (1 << (np.arange(52) // 4)).astype(np.intp)
RANK_BIT.flags.writeable = False
#: Plain two-character card text (``"As"``, ``"as"``, ``"AS"``, ...) -> id: the shortcut
#: paths' reader, which leaves anything else to the full parser.
PLAIN_CARD_ID: dict[str, int] = {r + su: 4 * i + j for i, r0 in enumerate(RANKS)
                                 for j, s0 in enumerate(SUITS)
                                 for r in {r0, r0.lower()} for su in {s0, s0.upper()}}


def parse_card(text: str, *, allow_joker: bool = False) -> int:
    """Parse one card such as ``"As"``, ``"10h"`` or ``"q♠"`` into its id.

    Parameters
    ----------
    text : str
        One card: a rank (``23456789TJQKA`` or ``10``, any case) followed by a suit
        (``cdhs`` or ``♣♦♥♠``), or ``"Jk"``/``"Xx"`` for a joker.
    allow_joker : bool
        Accept a joker (id 52).

    Returns
    -------
    int
        The card id, ``4 * rank + suit``.

    Examples
    --------
    >>> parse_card("As"), parse_card("2c"), parse_card("10♥")
    (51, 0, 34)
    """
    if not isinstance(text, str):
        raise TypeError(f"a card must be given as text, got {type(text).__name__}: {text!r}")
    m = _CARD_RE.fullmatch(text.strip())
    if m is None:
        raise ValueError(f"unknown card {text!r}: expected a rank from 23456789TJQKA "
                         f"(or 10) followed by a suit from cdhs")
    if m.group(3):
        if not allow_joker:
            raise ValueError(f"card {text!r} is a joker, which this game does not allow "
                             f"(pass wild='joker')")
        return JOKER
    return 4 * _RANK_ALIASES[m.group(1).upper()] + _SUIT_ALIASES[m.group(2).lower()]


def parse_hand_text(text: str, *, allow_joker: bool, where: str = "") -> list[int]:
    """Split one hand's text (``"AsKd"``, ``"As Kd"``, ``"As,Kd"``) into card ids."""
    ids: list[int] = []
    for chunk in _SEPARATORS.split(text.strip()):
        pos = 0
        while pos < len(chunk):
            m = _CARD_RE.match(chunk, pos)
            if m is None:
                raise ValueError(f"unknown card text {chunk[pos:pos + 3]!r} in hand "
                                 f"{text!r}{where}: expected cards like 'As', 'Td', '10h'")
            ids.append(parse_card(m.group(0), allow_joker=allow_joker))
            pos = m.end()
    return ids


def check_no_duplicates(ids: list[int], label: object) -> None:
    """Raise ``ValueError`` naming the first card (other than a joker) listed twice in ``ids``."""
    seen = set()
    for c in ids:
        if c in seen and c != JOKER:
            raise ValueError(f"card {id_text(c)} is used twice in hand {label}")
        seen.add(c)


def id_text(card_id: int) -> str:
    """The text of one card id (``"As"``; ``"Jk"`` for the joker).

    Examples
    --------
    >>> id_text(51), id_text(52)
    ('As', 'Jk')
    """
    if card_id == JOKER:
        return "Jk"
    return RANKS[card_id // 4] + SUITS[card_id % 4]
