"""The two ranges of a report: read them (text, :class:`gpu_eval.Range`, card ids), drop the
combos that touch the known cards (weights kept), and place every combo on the columns of
the game's hole pairs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from gpu_eval import card_input, ranges
from gpu_eval.games.registry import Game
from gpu_eval.omaha_ranges import OmahaRange
from gpu_eval.range_reports.boards import board_text

__all__ = ["Side", "RangeLike", "read_range", "column_of_pairs"]

#: A range as a report reads it: text (or a list of texts), a :class:`gpu_eval.Range` (an
#: Omaha range for the Omaha games), or ``(N, 2)`` card ids (hold'em and short deck).
RangeLike = str | ranges.Range | OmahaRange | npt.ArrayLike


@dataclass(frozen=True)
class Side:
    """One range of a report after card removal: its label, combos (``(N, h)`` uint8 ids,
    higher id first for two cards), masks and weights."""

    label: str
    combos: np.ndarray
    masks: np.ndarray
    weights: np.ndarray

    def __len__(self) -> int:
        return len(self.combos)


def _label(spec: RangeLike, rng: ranges.Range | OmahaRange) -> str:
    if isinstance(spec, str):
        return spec
    if isinstance(spec, np.ndarray) and not len(rng):
        return f"card ids of shape {spec.shape}"
    text = getattr(rng, "spec", None)
    if text:
        return text
    hands = rng.hands()
    return ",".join(hands[:3]) + (f",... ({len(hands)} combos)" if len(hands) > 3 else "")


def read_range(spec: RangeLike, game: Game, known: int, who: str) -> Side:
    """``spec`` as a :class:`Side` without the combos that touch ``known`` (a mask).

    ``ValueError`` names ``who`` and the range when the text is bad, the range is empty, or
    every combo touches the known cards; ``TypeError`` for a value of the wrong kind.

    Examples
    --------
    >>> from gpu_eval import cards
    >>> from gpu_eval.games import registry
    >>> s = read_range("QQ+", registry.get("holdem"), int(cards.to_mask("Qh")), "hero")
    >>> len(s), s.label
    (15, 'QQ+')
    """
    if isinstance(spec, (bool, np.bool_, float, np.floating, int, np.integer)) or spec is None:
        raise TypeError(f"{who} range must be range text such as 'QQ+, AKs', a Range or card "
                        f"ids, got {type(spec).__name__}: {spec!r}")
    rng: ranges.Range | OmahaRange
    try:
        if game.is_omaha:
            if isinstance(spec, OmahaRange):
                omaha = spec
            elif isinstance(spec, str):  # as ranges.Range(spec, game=game.name) reads it
                omaha = OmahaRange(spec, game=game.name)
            else:  # OmahaRange's own message
                raise TypeError(f"an Omaha range must be text such as 'AA$ds, KKQQ', got "
                                f"{type(spec).__name__}")
            if omaha.hole_cards != game.hole_cards:
                raise ValueError(f"it holds {omaha.hole_cards}-card hands; {game.name} deals "
                                 f"{game.hole_cards}")
            rng = omaha
        elif isinstance(spec, (list, tuple)) and not spec:
            raise ValueError("an empty list holds no combo")
        elif isinstance(spec, (str, ranges.Range)) or (
                isinstance(spec, (list, tuple)) and spec and isinstance(spec[0], str)):
            rng = ranges.Range(spec, game=game.name)
        else:
            arr = card_input.card_ids(spec, f"{who} range", axes=("combo",))
            if arr.shape == (2,):  # one combo
                arr = arr[None, :]
            if arr.ndim != 2 or arr.shape[1] != 2:
                raise ValueError(f"card ids must have shape (N, 2), one combo a row; got "
                                 f"{arr.shape}")
            rng = ranges.Range.from_combos(arr)
            if game.lowest_rank and len(rng):
                low = (rng.combos < 4 * game.lowest_rank).any(axis=1)
                if low.any():
                    raise ValueError(f"combo {rng.hands()[int(np.flatnonzero(low)[0])]} is not "
                                     f"in the {game.deck_size}-card deck of {game.name}")
    except ValueError as e:
        if str(e).startswith(f"{who} range"):
            raise
        raise ValueError(f"{who} range: {e}") from None
    except TypeError as e:
        if str(e).startswith(who):
            raise
        raise TypeError(f"{who} range: {e}") from None
    label = _label(spec, rng)
    if len(rng) == 0:
        raise ValueError(f"{who} range {label!r} is empty")
    masks = np.asarray(rng.masks, dtype=np.uint64)
    keep = (masks & np.uint64(known)) == 0
    if not keep.any():
        text = board_text(known)
        raise ValueError(f"{who} range {label!r} has no combo left: every one of its "
                         f"{len(masks)} combo{'s' * (len(masks) != 1)} holds a card of the "
                         f"board or the dead cards ({text})")
    combos = np.asarray(rng.combos)[keep]
    if game.is_omaha:  # highest card first, as hold'em combos
        combos = combos[:, ::-1]
    return Side(label, np.ascontiguousarray(combos, dtype=np.uint8),
                np.ascontiguousarray(masks[keep]), np.asarray(rng.weights, dtype=np.float64)[keep])


def column_of_pairs(pairs: np.ndarray, lowest_card: int) -> np.ndarray:
    """The column (colex pair number of the deck's cards) of each two-card combo ``(N, 2)``.

    Examples
    --------
    >>> column_of_pairs(np.array([[1, 0], [51, 50]]), 0).tolist()
    [0, 1325]
    """
    p = np.asarray(pairs, dtype=np.int64) - lowest_card
    a, b = p.min(axis=1), p.max(axis=1)
    return b * (b - 1) // 2 + a
