"""Card encodings and the conversions between them.

One encoding is canonical, the card id ``4 * rank + suit`` (``2c = 0``, ``As = 51``), with ranks
``23456789TJQKA`` (0..12) and suits ``cdhs`` (0..3). The other encodings are views of it:

* **hand mask** -- a ``uint64`` with bit ``16 * suit + rank`` set for every card. Four 13-bit
  suit lanes, order-free and OR-combinable (``hole | board``).
* **DeadHorse int** -- DeadHorseEval's 17-bit card: bit ``rank`` plus one suit bit (diamonds 13,
  clubs 14, hearts 15, spades 16), so ``2s = 65537`` and ``Ad = 12288``.
* **text** -- ``"As"``, ``"10h"``, ``"q♠"``; hands as ``"AsKd"``, ``"As Kd"`` or ``"As,Kd"``.

Every function here is vectorised over NumPy arrays and validates what it is given.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from gpu_eval import card_input
from gpu_eval.array_interop import accepts_arrays

__all__ = [
    "RANKS",
    "SUITS",
    "JOKER",
    "parse",
    "parse_card",
    "format",
    "to_mask",
    "from_mask",
    "to_deadhorse",
    "from_deadhorse",
    "mask_popcount",
    "VALID_MASK_BITS",
    "check_mask_bits",
]

from gpu_eval.card_spelling import (
    ID_TO_MASK,
    JOKER,
    RANKS,
    SUITS,
    VALID_MASK_BITS,
    check_no_duplicates,
    id_text,
    parse_card,
    parse_hand_text,
)

_DEADHORSE_SUIT_BIT = (14, 13, 15, 16)  # c, d, h, s -> DeadHorseEval's S H C D bit layout
_ID_TO_DEADHORSE = np.array(
    [(1 << _DEADHORSE_SUIT_BIT[i % 4]) | (1 << (i // 4)) for i in range(52)], dtype=np.int32
)

HandsLike = str | Sequence[str] | np.ndarray | Sequence[Sequence[int]]


def parse(text: str | Iterable[str], *, allow_joker: bool = False) -> np.ndarray:
    """Parse card text into an array of card ids.

    Parameters
    ----------
    text : str or iterable of str
        One hand (``"AsKd"``, ``"As Kd"``, ``"As,Kd"``) or a list of hands with the same
        number of cards.
    allow_joker : bool
        Accept jokers (``"Jk"``/``"Xx"``, id 52).

    Returns
    -------
    numpy.ndarray
        ``uint8`` ids: shape ``(k,)`` for one hand, ``(N, k)`` for a list.

    Raises
    ------
    ValueError
        On unknown card text, naming the hand and the text; on a list of hands of
        different sizes; on a card used twice in one hand.

    Examples
    --------
    >>> parse("AsKd")
    array([51, 45], dtype=uint8)
    >>> parse(["2c 3c", "Ah,Kh"]).tolist()
    [[0, 4], [50, 46]]
    """
    if isinstance(text, str):
        ids = parse_hand_text(text, allow_joker=allow_joker)
        check_no_duplicates(ids, text)
        return np.array(ids, dtype=np.uint8)
    if isinstance(text, np.ndarray) and text.dtype.kind not in "UO":
        raise TypeError(f"parse() takes card text, got a {text.dtype} array; "
                        f"ids need no parsing")
    if not isinstance(text, Iterable) or isinstance(text, bytes):
        raise TypeError(f"parse() takes card text or a list of card text, got "
                        f"{type(text).__name__}: {text!r}")
    from gpu_eval import card_text  # the vectorised parser

    rows = text if isinstance(text, list) else list(text)
    if not rows:
        return np.zeros((0, 0), dtype=np.uint8)
    p = card_text.parse_rows(rows, allow_joker=allow_joker, stop_at_first_bad=True)
    # The first problem in row order, as the row-by-row reference (_parse_rows_slow) finds it.
    wrong = np.flatnonzero(p.counts[:p.stop] != p.counts[0])
    if len(wrong):
        i = int(wrong[0])
        raise ValueError(f"hand {rows[i]!r} (row {i}) has {p.counts[i]} cards but row 0 has "
                         f"{p.counts[0]}; use to_mask() for hands of mixed sizes")
    if p.stop < len(rows):
        if not isinstance(rows[p.stop], str):
            raise TypeError(f"hand {p.stop}: expected card text, "
                            f"got {type(rows[p.stop]).__name__}")
        raise p.errors[p.stop]
    return np.ascontiguousarray(p.ids[:, :int(p.counts[0])])


def _parse_rows_slow(text: Iterable[str], *, allow_joker: bool = False) -> np.ndarray:
    """The row-by-row reference for :func:`parse` on a list (tests compare the two)."""
    rows = []
    for i, hand in enumerate(text):
        if not isinstance(hand, str):
            raise TypeError(f"hand {i}: expected card text, got {type(hand).__name__}")
        ids = parse_hand_text(hand, allow_joker=allow_joker, where=f" (row {i})")
        check_no_duplicates(ids, f"{hand!r} (row {i})")
        if rows and len(ids) != len(rows[0]):
            raise ValueError(f"hand {hand!r} (row {i}) has {len(ids)} cards but row 0 has "
                             f"{len(rows[0])}; use to_mask() for hands of mixed sizes")
        rows.append(ids)
    if not rows:
        return np.zeros((0, 0), dtype=np.uint8)
    return np.array(rows, dtype=np.uint8)


@accepts_arrays("cards", host_only=True)
def format(cards: np.ndarray | int | Sequence[int], *, sep: str = "") -> str | list:
    """Format card ids or hand masks back to text.

    Parameters
    ----------
    cards : array_like
        ``uint8`` (or other integer) ids of shape ``(k,)`` or ``(N, k)``, or ``uint64`` hand
        masks of shape ``()`` or ``(N,)``.
    sep : str
        Text placed between cards.

    Returns
    -------
    str or list of str
        One string per hand. Masks list their cards from the lowest id up.

    Examples
    --------
    >>> format(parse("AsKd"))
    'AsKd'
    >>> format(to_mask(parse(["2c3d", "AhKh"])), sep=" ")
    ['2c 3d', 'Kh Ah']
    """
    arr = card_input.integer_array(cards, "cards", noun="integer card ids or uint64 masks")
    if arr.dtype == np.uint64 and arr.ndim == 1:
        from gpu_eval import card_text  # vectorised: masks grouped by card count

        return card_text.format_masks(arr, sep)
    if arr.ndim == 2:
        from gpu_eval import card_text  # vectorised: one byte buffer for all rows

        return card_text.format_ids(_as_ids(arr, allow_joker=True), sep)
    if arr.dtype == np.uint64:
        if arr.ndim == 0:
            return sep.join(id_text(c) for c in _mask_to_list(int(arr)))
        return [sep.join(id_text(c) for c in _mask_to_list(int(m))) for m in arr.ravel()]
    ids = _as_ids(arr, allow_joker=True)
    if ids.ndim == 1:
        return sep.join(id_text(int(c)) for c in ids)
    return [sep.join(id_text(int(c)) for c in row) for row in ids]


def _mask_to_list(mask: int) -> list[int]:
    out = []
    for card_id in range(52):
        if mask >> (16 * (card_id % 4) + card_id // 4) & 1:
            out.append(card_id)
    return out


def _as_ids(cards, *, allow_joker: bool = False) -> np.ndarray:
    """Card ids of any integer width, checked as given (:mod:`gpu_eval.card_input`), as
    ``uint8``."""
    return card_input.card_ids(cards, "cards", top=JOKER if allow_joker else 51)


@accepts_arrays("cards", host_only=True)
def to_mask(cards: HandsLike) -> np.ndarray:
    """Convert hands to ``uint64`` hand masks (bit ``16 * suit + rank`` per card).

    Parameters
    ----------
    cards : str, list of str, or array_like of ids
        Card text (hands may differ in size) or ids of shape ``(k,)`` or ``(N, k)``.

    Returns
    -------
    numpy.ndarray
        ``uint64`` masks: shape ``()`` for one hand, ``(N,)`` for several.

    Raises
    ------
    ValueError
        If a card appears twice in a hand (naming the row) or an id is out of range.

    Examples
    --------
    >>> hex(int(to_mask("2c As")))
    '0x1000000000000001'
    >>> bool(to_mask(parse("AhKh")) | to_mask("QhJhTh") == to_mask("AhKhQhJhTh"))
    True
    """
    if isinstance(cards, str):
        return to_mask(parse(cards))
    if isinstance(cards, (list, tuple)) and cards and isinstance(cards[0], str):
        from gpu_eval import card_text  # vectorised; an error names the row as parse()'s do

        p = card_text.parse_rows(cards, stop_at_first_bad=True)
        if p.stop < len(cards):
            raise p.errors[p.stop]
        return p.masks
    ids = _as_ids(cards)
    if ids.ndim not in (1, 2):
        raise ValueError(f"card ids must have shape (k,) or (N, k), got {ids.shape}")
    rows = ids.reshape(1, -1) if ids.ndim == 1 else ids
    bits = ID_TO_MASK[rows]
    mask = np.bitwise_or.reduce(bits, axis=1) if rows.shape[1] else np.zeros(len(rows), np.uint64)
    counts = mask_popcount(mask)
    bad = np.flatnonzero(counts != rows.shape[1])
    if bad.size:
        r = int(bad[0])
        raise ValueError(f"hand {format(rows[r])} (row {r}) uses a card twice")
    return mask[0] if ids.ndim == 1 else mask


@accepts_arrays("masks", host_only=True)
def mask_popcount(masks: np.ndarray) -> np.ndarray:
    """Number of cards in each ``uint64`` hand mask.

    Parameters
    ----------
    masks : array_like of uint64
        Hand masks, any shape.

    Returns
    -------
    numpy.ndarray
        ``uint8`` card counts, the same shape.

    Examples
    --------
    >>> int(mask_popcount(to_mask("AsKsQs")))
    3
    """
    return np.bitwise_count(card_input.card_masks(masks, "masks")).astype(np.uint8)


@accepts_arrays("masks", host_only=True)
def from_mask(masks: np.ndarray) -> np.ndarray:
    """Convert ``uint64`` hand masks to sorted card ids.

    Parameters
    ----------
    masks : array_like of uint64
        Shape ``()`` or ``(N,)``; every mask must hold the same number of cards.

    Returns
    -------
    numpy.ndarray
        ``uint8`` ids in increasing order, shape ``(k,)`` or ``(N, k)``.

    Raises
    ------
    ValueError
        If a mask has bits outside the 52 card positions, or the masks hold different
        numbers of cards.

    Examples
    --------
    >>> from_mask(to_mask("AsKd")).tolist()
    [45, 51]
    """
    arr = card_input.card_masks(masks, "masks")
    flat = arr.reshape(-1)
    counts = mask_popcount(flat)
    if flat.size and (counts != counts[0]).any():
        r = int(np.flatnonzero(counts != counts[0])[0])
        raise ValueError(f"mask row {r} holds {counts[r]} cards but row 0 holds {counts[0]}")
    k = int(counts[0]) if flat.size else 0
    # Card id order is rank-major, so walk ids 0..51 and keep the bits that are set.
    present = (flat[:, None] & ID_TO_MASK[None, :]) != 0
    ids = np.nonzero(present)[1].astype(np.uint8).reshape(len(flat), k)
    return ids[0] if arr.ndim == 0 else ids


def check_mask_bits(masks: np.ndarray) -> None:
    """Raise ``ValueError`` naming the first mask with bits outside the 52 card positions.

    Parameters
    ----------
    masks : numpy.ndarray of uint64
        Hand masks, one dimension (the message names the row).

    Examples
    --------
    >>> check_mask_bits(to_mask(["AsKs", "2c"]))
    >>> check_mask_bits(np.array([1 << 13], dtype=np.uint64))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: hand mask 0x2000 (row 0) has bits set outside the 52 card positions ...
    """
    bad = (masks & ~VALID_MASK_BITS) != 0
    if bad.any():
        r = int(np.flatnonzero(bad)[0])
        raise ValueError(f"hand mask {int(masks[r]):#x} (row {r}) has bits set outside the "
                         f"52 card positions (bits 13-15 of each 16-bit suit lane must be 0)")


@accepts_arrays("cards", host_only=True)
def to_deadhorse(cards: HandsLike) -> np.ndarray:
    """Convert card ids (or text) to DeadHorseEval's 17-bit card ints.

    Parameters
    ----------
    cards : str, list of str or array_like of int
        Card text or card ids (``4 * rank + suit``), any shape.

    Returns
    -------
    numpy.ndarray
        ``int32`` card ints, the shape of the ids: bit ``rank`` (2 = bit 0 up to A = bit 12)
        plus one suit bit, diamonds 13, clubs 14, hearts 15, spades 16.

    Examples
    --------
    >>> to_deadhorse("2s Ad").tolist()
    [65537, 12288]
    """
    if isinstance(cards, str) or (isinstance(cards, (list, tuple)) and cards
                                  and isinstance(cards[0], str)):
        cards = parse(cards)
    return _ID_TO_DEADHORSE[_as_ids(cards)]


_DEADHORSE_SUIT_TO_SUIT = {1 << 13: 1, 1 << 14: 0, 1 << 15: 2, 1 << 16: 3}


@accepts_arrays("ints", host_only=True)
def from_deadhorse(ints: np.ndarray) -> np.ndarray:
    """Convert DeadHorseEval's 17-bit card ints to card ids.

    Parameters
    ----------
    ints : array_like of int
        Card ints: bit ``rank`` plus one suit bit (diamonds 13, clubs 14, hearts 15, spades
        16), any shape.

    Returns
    -------
    numpy.ndarray
        ``uint8`` card ids, the same shape.

    Raises
    ------
    ValueError
        If a value is not exactly one rank bit plus one suit bit, naming it and its index.

    Examples
    --------
    >>> from_deadhorse([65537, 12288]).tolist()
    [3, 49]
    """
    arr = card_input.integer_array(ints, "DeadHorse cards", noun="integer DeadHorse cards")
    # No DeadHorse card needs more than 17 bits: wider or negative values read -1 (no card)
    # before the cast could wrap them; the message names the value as given.
    a = np.where((arr < 0) | (arr >= 1 << 17), -1, arr).astype(np.int64) if arr.size \
        else arr.astype(np.int64)
    rank_bits = a & 0x1FFF
    suit_bits = a & ~0x1FFF
    ok = ((np.bitwise_count(rank_bits) == 1) & (np.bitwise_count(suit_bits) == 1)
          & (suit_bits >= (1 << 13)) & (suit_bits <= (1 << 16)) & (a >= 0))
    if not ok.all():
        where = tuple(int(w) for w in np.argwhere(~ok)[0])
        at = f" at index {where}" if arr.ndim else ""
        raise ValueError(f"{int(arr[where])}{at} is not a DeadHorse card "
                         f"(one rank bit 0..12 plus one suit bit 13..16)")
    rank = np.log2(rank_bits.clip(1)).astype(np.int64) if a.size else rank_bits
    suit = np.select([suit_bits == 1 << 14, suit_bits == 1 << 13, suit_bits == 1 << 15],
                     [0, 1, 2], 3)
    return (4 * rank + suit).astype(np.uint8)
