"""What the table builders need of suit symmetry, all read from ``HandIndexer``: one board per
suit orbit, each orbit's size, and the preflop class of every column.
"""

from __future__ import annotations

from functools import cache
from math import comb

import numpy as np

from gpu_eval.combinatorics import unrank
from gpu_eval.solver_tables.indexer import HandIndexer
from gpu_eval.solver_tables.layout import deck_layout

__all__ = ["indexer", "canonical_boards", "orbit_sizes", "column_classes"]


@cache
def indexer(rounds: tuple[int, ...], game: str) -> HandIndexer:
    """One shared ``HandIndexer`` per layout and game."""
    return HandIndexer(rounds, game=game)


@cache
def canonical_boards(k: int, game: str) -> np.ndarray:
    """``(M, k)`` uint8: one board of ``k`` cards per suit orbit, in ``HandIndexer((k,))``
    order (read-only)."""
    ix = indexer((k,), game)
    out = ix.unindex(0, np.arange(ix.size(0), dtype=np.int64))
    out = np.ascontiguousarray(out, dtype=np.uint8)
    out.flags.writeable = False
    return out


@cache
def orbit_sizes(k: int, game: str) -> np.ndarray:
    """How many boards of ``k`` cards each canonical board stands for (int64, read-only):
    every board of the deck indexed once and counted."""
    lay = deck_layout(game)
    ix = indexer((k,), game)
    sizes = np.zeros(ix.size(0), dtype=np.int64)
    total = comb(lay.deck_size, k)
    step = 1 << 20
    for a in range(0, total, step):
        boards = unrank(np.arange(a, min(a + step, total)), k) + lay.lowest_card
        sizes += np.bincount(ix.index(boards.astype(np.uint8)), minlength=len(sizes))
    sizes.flags.writeable = False
    return sizes


@cache
def column_classes(game: str) -> tuple[np.ndarray, np.ndarray]:
    """``(class of each column, raw pairs per class)``: the ``HandIndexer((2,))`` index of
    every hole pair (169 classes in hold'em) and how many pairs each class holds."""
    lay = deck_layout(game)
    ix = indexer((2,), game)
    cls = ix.index(lay.pairs).astype(np.intp)
    size = np.bincount(cls, minlength=ix.size(0))
    cls.flags.writeable = False
    size.flags.writeable = False
    return cls, size
