"""Boards of a report: reading one board or many, the next cards of a street, the 1,755 flop
classes, and board textures.

A *flop class* is a set of flops that a permutation of the suits maps onto each other
(``AcKd7h`` and ``AsKh7c``); the 22,100 hold'em flops fall into 1,755 classes (short deck:
7,140 flops in 560 classes). Each class is shown by its canonical member, the flop whose
hand mask is the smallest of its 24 suit images, cards written high to low; classes are
sorted by rank, high cards first (the order of :func:`gpu_eval.distributed.flop_sweep`).

Textures of a board: **suits** (monotone: one suit, two-tone: two, rainbow: three or more),
**pairing** (unpaired, paired, trips: the most cards of one rank), **connectedness** (the
most board ranks inside one straight of the game: 3 means three of the board's ranks fit in
one five-rank straight), and the **high card** (the board's highest rank).
"""

from __future__ import annotations

from functools import cache, lru_cache
from math import comb
from typing import cast

import numpy as np

from gpu_eval import card_input, cards, combinatorics
from gpu_eval.cards import ID_TO_MASK
from gpu_eval.games.registry import Game
from gpu_eval.range_reports import bits
from gpu_eval.suit_symmetry import canonical_masks

__all__ = ["parse_cards", "parse_boards", "board_text", "next_boards", "flop_classes", "texture",
           "TEXTURES", "mask_ids", "completions"]

#: The texture keys :func:`texture` gives, with their values.
TEXTURES = {
    "suits": ("monotone", "two-tone", "rainbow"),
    "pairing": ("unpaired", "paired", "trips"),
    "connectedness": ("1", "2", "3", "4", "5"),
    "high card": tuple(cards.RANKS),
}


def _deck_check(mask: int, game: Game, label: str) -> None:
    if game.lowest_rank:
        low = sum(((1 << game.lowest_rank) - 1) << (16 * s) for s in range(4))
        bad = mask & low
        if bad:
            card = cards.format(np.uint64(bad & -bad))
            raise ValueError(f"{label}: card {card} is not in the {game.deck_size}-card deck "
                             f"of {game.name}")


def parse_cards(value, game: Game, what: str, sizes: tuple[int, ...]) -> int:
    """One set of cards as a mask, read as every entry point reads a set of cards
    (:func:`gpu_eval.card_input.card_set`: text, a list of texts, ids of any integer width,
    ``uint64`` hand masks, other libraries' arrays); ``ValueError`` / ``TypeError`` naming
    ``what`` and the card for anything else, a card outside the game's deck, or a number of
    cards not in ``sizes``.

    Examples
    --------
    >>> from gpu_eval.games import registry
    >>> m = parse_cards("Kd7c2h", registry.get("holdem"), "the board", (3, 4, 5))
    >>> m == int(cards.to_mask("Kd7c2h"))
    True
    >>> parse_cards(np.array([45, 20, 304], np.int16), registry.get("holdem"), "the board",
    ...             (3, 4, 5))
    Traceback (most recent call last):
    ...
    ValueError: the board: card id 304 is out of range 0..51
    """
    if value is None or (isinstance(value, str) and not value.strip()):
        mask = 0
    else:
        ids = card_input.card_set(value, what)
        mask = int(np.bitwise_or.reduce(ID_TO_MASK[np.asarray(ids, dtype=np.intp)])) \
            if ids else 0
    _deck_check(mask, game, what)
    n = bin(mask).count("1")
    if n not in sizes:
        want = ", ".join(str(s) for s in sizes[:-1]) + (" or " if len(sizes) > 1 else "") + \
            str(sizes[-1])
        raise ValueError(f"{what} has {n} card{'s' * (n != 1)}"
                         f"{' (' + board_text(mask) + ')' if n else ''}; expected {want} cards")
    return mask


def parse_boards(value, game: Game, sizes: tuple[int, ...] = (3, 4, 5)) -> np.ndarray:
    """Many boards as masks: a list of boards (each read as :func:`parse_cards` reads one;
    sizes may differ), ``(N, k)`` card ids of any integer width or ``(N,)`` ``uint64`` hand
    masks.

    Examples
    --------
    >>> from gpu_eval.games import registry
    >>> len(parse_boards(["Kd7c2h", "AsAd3c"], registry.get("holdem")))
    2
    """
    if isinstance(value, str):
        raise TypeError("boards must be 'flops' or a list of boards such as ['Kd7c2h', "
                        f"'AsQs2d'], got the text {value!r}")
    if isinstance(value, (list, tuple)):
        if not value:
            raise ValueError("boards is empty; give at least one board, or boards='flops'")
        return np.array([parse_cards(b, game, f"board {i} ({b!r})" if isinstance(b, str)
                                     else f"board {i}", sizes)
                         for i, b in enumerate(value)], dtype=np.uint64)
    arr = card_input.integer_array(value, "boards",
                                   noun="board texts, integer card ids or uint64 hand masks")
    if arr.ndim == 0 or arr.size == 0:
        raise ValueError(f"boards must hold at least one board, got an array of shape {arr.shape}")
    if arr.dtype == np.uint64:  # uint64 is the hand-mask encoding
        if arr.ndim != 1:
            raise ValueError(f"board masks must have shape (N,), got {arr.shape}")
        rows = list(card_input.card_masks(arr, "boards", axes=("board",)))
    else:
        if arr.ndim != 2:
            raise ValueError(f"board ids must have shape (N, k), got {arr.shape}")
        card_input.check_range(arr, "boards", 0, card_input.TOP, axes=("board",))
        rows = list(arr.astype(np.uint8))
    return np.array([parse_cards(r, game, f"board {i}", sizes) for i, r in enumerate(rows)],
                    dtype=np.uint64)


def board_text(mask: int) -> str:
    """The cards of a mask as text, high cards first (``""`` for none).

    Examples
    --------
    >>> board_text(int(cards.to_mask("2h Kd 7c")))
    'Kd7c2h'
    """
    if not mask:
        return ""
    ids = mask_ids(np.uint64(mask))[0][::-1]
    return cast(str, cards.format(ids))  # one hand's ids: one text


def mask_ids(masks: np.ndarray) -> np.ndarray:
    """``(N, k)`` card ids of masks that all hold ``k`` cards, increasing."""
    m = np.atleast_1d(np.asarray(masks, dtype=np.uint64))
    if not len(m):
        return np.zeros((0, 0), dtype=np.uint8)
    hit = (m[:, None] & ID_TO_MASK[None, :]) != 0
    k = int(hit[0].sum())
    return np.nonzero(hit)[1].reshape(len(m), k).astype(np.uint8)


def completions(board: int, dead: int, game: Game, cards_to_come: int) -> np.ndarray:
    """Every way to complete ``board`` with ``cards_to_come`` cards of the deck left (colex
    order of the remaining cards), as masks of the whole board."""
    ids = np.arange(4 * game.lowest_rank, 52)
    vals = ID_TO_MASK[ids[(ID_TO_MASK[ids] & np.uint64(board | dead)) == 0]]
    # combinatorics.subset_masks(len(vals), cards_to_come, vals), from a cached table of
    # positions: the deck left differs from board to board, the positions do not.
    sub = np.full(1, np.uint64(board))
    for col in _colex_positions(len(vals), cards_to_come).T:
        sub = sub | vals[col]
    return sub


@lru_cache(maxsize=16)
def _colex_positions(n: int, k: int) -> np.ndarray:
    """The k-subsets of ``range(n)`` in colex order, as rows of positions (read-only): the
    first ``C(n, k)`` subsets of the 52 cards' numbering."""
    out = combinatorics.unrank(np.arange(comb(n, k)), k)
    out.flags.writeable = False
    return out


def next_boards(board: int, dead: int, game: Game) -> tuple[np.ndarray, np.ndarray]:
    """``(card ids, boards)``: each card that can come next and the board it makes."""
    ids = np.arange(4 * game.lowest_rank, 52)
    left = ids[(ID_TO_MASK[ids] & np.uint64(board | dead)) == 0].astype(np.uint8)
    return left, ID_TO_MASK[left] | np.uint64(board)


@cache
def flop_classes(game: Game) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(flops, class_of, canonical)``: every flop of the deck (colex masks), the index of
    each one's class, and each class's canonical flop mask, classes sorted high cards first.

    Examples
    --------
    >>> from gpu_eval.games import registry
    >>> flops, cls, reps = flop_classes(registry.get("holdem"))
    >>> len(flops), len(reps), int(np.bincount(cls).max())
    (22100, 1755, 24)
    """
    low = 4 * game.lowest_rank
    flops = combinatorics.subset_masks(52 - low, 3, ID_TO_MASK[low:])
    canon = canonical_masks(flops)
    reps = np.unique(canon)
    ids = np.sort(mask_ids(reps), axis=1)[:, ::-1]
    order = np.lexsort((reps, -(ids[:, 2] // 4), -(ids[:, 1] // 4), -(ids[:, 0] // 4)))
    reps = reps[order]
    sorter = np.argsort(reps)
    class_of = sorter[np.searchsorted(reps, canon, sorter=sorter)]
    for a in (flops, class_of, reps):
        a.flags.writeable = False
    return flops, class_of, reps


def texture(masks: np.ndarray, game: Game) -> dict[str, np.ndarray]:
    """The textures of each board (see the module docstring), as arrays of text.

    Examples
    --------
    >>> from gpu_eval.games import registry
    >>> t = texture(cards.to_mask(["Kd7c2h", "AsKsQs", "7c7d2c"]), registry.get("holdem"))
    >>> [t[k].tolist() for k in ("suits", "pairing")]
    [['rainbow', 'monotone', 'two-tone'], ['unpaired', 'unpaired', 'paired']]
    >>> [t[k].tolist() for k in ("connectedness", "high card")]
    [['1', '3', '1'], ['K', 'A', '7']]
    """
    m = np.atleast_1d(np.asarray(masks, dtype=np.uint64))
    ln = bits.lanes(m)
    nsuits = (ln != 0).sum(axis=-1)
    b1, b2, b3, _ = bits.rank_planes(m)
    conn = np.zeros(len(m), dtype=np.int64)
    for w in bits.straights(game):
        conn = np.maximum(conn, bits.popcount(b1 & w))
    return {
        "suits": np.array(TEXTURES["suits"], dtype=object)[np.clip(nsuits, 1, 3) - 1],
        "pairing": np.array(TEXTURES["pairing"], dtype=object)[
            np.where(b3 != 0, 2, np.where(b2 != 0, 1, 0))],
        "connectedness": np.array(TEXTURES["connectedness"], dtype=object)[np.maximum(conn, 1) - 1],
        "high card": np.array(list(cards.RANKS), dtype=object)[bits.high_bit(b1)],
    }
