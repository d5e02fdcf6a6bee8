"""Turning what a user passes as "hands" into validated ``uint64`` hand masks.

Hands come as text, lists of text, ``(k,)``/``(N, k)`` integer id arrays, ``uint64`` mask arrays
or DeadHorse int arrays. Ids are converted chunk by chunk inside the evaluators (so 100 million
hands never need a second full-size copy); everything else becomes masks here. Validation
finds the first bad row and names it; with ``invalid="mask"`` bad rows are remembered instead
and later get strength 0.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gpu_eval import card_input, cards

ENCODINGS = ("auto", "ids", "mask", "deadhorse")
INVALID_MODES = ("raise", "mask")


@dataclass
class Hands:
    """Validated hands ready for an evaluator.

    Exactly one of ``ids`` / ``masks`` is set. ``scalar`` means the user passed one hand and
    wants a 0-d result. ``bad`` is a boolean row mask of rows already known to be invalid
    (``invalid="mask"`` only); ids are range-checked here, their duplicate cards are found by
    the evaluator from the mask's popcount.
    """

    ids: np.ndarray | None = None
    masks: np.ndarray | None = None
    scalar: bool = False
    bad: np.ndarray | None = None
    text: list | None = None  # the user's own text per row, for error messages

    @property
    def n(self) -> int:
        return len(self.ids) if self.ids is not None else len(self.masks)


def check_invalid_mode(invalid: str) -> None:
    if invalid not in INVALID_MODES:
        raise ValueError(f"invalid={invalid!r}: expected 'raise' or 'mask'")


def row_error(hands: Hands, row: int, reason: str) -> ValueError:
    """A ``ValueError`` naming one row of ``hands`` (as text where it can) and the reason."""
    label = f"row {row}"
    try:
        if hands.text is not None:
            label = f"hand {hands.text[row]!r} ({label})"
        elif hands.ids is not None:
            ids = hands.ids[row]
            if (ids <= 51).all():
                label = f"hand {cards.format(ids)} ({label})"
            else:
                label = f"hand {ids.tolist()} ({label})"
        elif hands.masks is not None:
            m = hands.masks[row]
            if int(m) & ~int(cards.VALID_MASK_BITS) == 0:
                label = f"hand {cards.format(m)} ({label})"
            else:
                label = f"mask {int(m):#x} ({label})"
    except Exception:  # the label is a courtesy; never hide the real error behind it
        pass
    if hands.scalar:
        label = label.replace(" (row 0)", "")
    return ValueError(f"{label}: {reason}")


def coerce(hands, *, encoding: str = "auto", invalid: str = "raise",
           allow_joker: bool = False) -> Hands:
    """Validate and normalise ``hands``; see :func:`gpu_eval.evaluate` for what is accepted."""
    check_invalid_mode(invalid)
    if encoding not in ENCODINGS:
        raise ValueError(f"encoding={encoding!r}: expected one of {', '.join(ENCODINGS)}")
    if isinstance(hands, str):
        return Hands(masks=np.atleast_1d(cards.to_mask(cards.parse(hands,
                                                                   allow_joker=allow_joker))),
                     scalar=True, text=[hands])
    if isinstance(hands, (list, tuple)) and len(hands) == 0:
        return Hands(masks=np.zeros(0, dtype=np.uint64))  # no hands: an empty result
    if isinstance(hands, (list, tuple)) and hands and isinstance(hands[0], str):
        return _from_text_rows(hands, invalid, allow_joker)
    # Integers of any width, as given (no bools, floats or objects; Python ints beyond 64
    # bits stay themselves, so the range checks below name them).
    arr = card_input.integer_array(hands, "hands", noun="integer card ids or uint64 masks")
    if encoding == "auto":
        encoding = "mask" if arr.dtype == np.uint64 else "ids"
    if encoding == "mask":
        return _from_masks(arr, invalid)
    if encoding == "deadhorse":
        return _from_deadhorse(arr, invalid)
    return _from_ids(arr, invalid)


def _from_text_rows(rows, invalid: str, allow_joker: bool, fast: bool = True) -> Hands:
    if fast and not allow_joker:  # vectorised (card_text); the loop below is its reference
        return _from_text_rows_fast(rows, invalid)
    masks = np.zeros(len(rows), dtype=np.uint64)
    bad = np.zeros(len(rows), dtype=bool)
    for i, text in enumerate(rows):
        if not isinstance(text, str):
            raise TypeError(f"row {i}: expected card text, got {type(text).__name__}")
        try:
            ids = cards.parse_hand_text(text, allow_joker=allow_joker, where=f" (row {i})")
            cards.check_no_duplicates(ids, f"{text!r} (row {i})")
        except ValueError:
            if invalid == "raise":
                raise
            bad[i] = True
            continue
        masks[i] = int(cards.ID_TO_MASK[ids].sum()) if ids else 0
    return Hands(masks=masks, bad=bad if bad.any() else None, text=list(rows))


def _from_text_rows_fast(rows, invalid: str) -> Hands:
    from gpu_eval.card_text import parse_rows

    p = parse_rows(rows, stop_at_first_bad=invalid == "raise")
    if invalid == "raise" and p.stop < len(rows):
        raise p.errors[p.stop]
    not_text = [i for i, e in p.errors.items() if isinstance(e, TypeError)]
    if not_text:  # even with invalid="mask", a row that is not text is a TypeError
        raise p.errors[min(not_text)]
    return Hands(masks=p.masks, bad=p.bad if p.bad.any() else None, text=list(rows))


def _from_masks(arr: np.ndarray, invalid: str) -> Hands:
    if arr.ndim > 1:
        raise ValueError(f"hand masks must have shape () or (N,), got {arr.shape}")
    scalar = arr.ndim == 0
    if arr.dtype != np.uint64:  # masks given in another integer type: never wrap a value
        arr = np.atleast_1d(arr)
        wrong = (arr < 0) | (arr > (1 << 64) - 1) if arr.size else np.zeros(0, bool)
        if wrong.any():
            r = int(np.flatnonzero(wrong)[0])
            if invalid == "raise":
                where = "" if scalar else f" (row {r})"
                raise ValueError(f"hand mask {int(arr[r])}{where}: not a 64-bit hand mask")
            arr = np.where(wrong, 0, arr)
        arr = arr.astype(np.uint64)
        masks = arr
    else:
        wrong = None
        masks = np.atleast_1d(arr)
    hands = Hands(masks=masks, scalar=scalar)
    if wrong is not None and wrong.any():
        hands.bad = wrong
    # One pass with no full-size temporary finds whether any row has stray bits at all.
    if masks.size == 0 or not np.bitwise_or.reduce(masks) & ~cards.VALID_MASK_BITS:
        return hands
    stray = (masks & ~cards.VALID_MASK_BITS) != 0
    if stray.any():
        if invalid == "raise":
            raise row_error(hands, int(np.flatnonzero(stray)[0]),
                            "bits set outside the 52 card positions (bits 13-15 of each "
                            "16-bit suit lane must be 0)")
        hands.bad = stray if hands.bad is None else hands.bad | stray
    return hands


def _from_ids(arr: np.ndarray, invalid: str) -> Hands:
    if arr.ndim not in (1, 2):
        raise ValueError(f"card ids must have shape (k,) or (N, k), got {arr.shape}")
    scalar = arr.ndim == 1
    ids = arr.reshape(1, -1) if scalar else arr
    hands = Hands(ids=ids, scalar=scalar)
    if ids.size == 0:
        hands.ids = ids.astype(np.uint8)
        return hands
    if ids.dtype == np.uint8:
        out_of_range = ids.max() > 51
    else:
        out_of_range = ids.min() < 0 or ids.max() > 51
    if out_of_range:
        bad_cells = (ids < 0) | (ids > 51)
        bad = bad_cells.any(axis=1)
        if invalid == "raise":
            r = int(np.flatnonzero(bad)[0])
            v = int(ids[r][bad_cells[r]][0])
            raise row_error(hands, r, f"card id {v} is out of range 0..51")
        hands.bad = bad
        ids = np.where(bad_cells, 0, ids)
    hands.ids = ids.astype(np.uint8, copy=False)
    return hands


def _from_deadhorse(arr: np.ndarray, invalid: str) -> Hands:
    if arr.ndim not in (1, 2):
        raise ValueError(f"DeadHorse cards must have shape (k,) or (N, k), got {arr.shape}")
    scalar = arr.ndim == 1
    rows = arr.reshape(1, -1) if scalar else arr
    # No DeadHorse card needs more than 17 bits: anything wider (or negative) reads -1, no card
    # (the message names the value as given), before the cast could wrap it.
    a = np.where((rows < 0) | (rows >= 1 << 17), -1, rows).astype(np.int64) if rows.size \
        else rows.astype(np.int64)
    rank_bits, suit_bits = a & 0x1FFF, a & ~0x1FFF
    ok = ((np.bitwise_count(rank_bits) == 1) & (np.bitwise_count(suit_bits) == 1)
          & (suit_bits >= 1 << 13) & (suit_bits <= 1 << 16) & (a >= 0))
    bad = ~ok.all(axis=1)
    hands = Hands(scalar=scalar)
    if bad.any():
        r = int(np.flatnonzero(bad)[0])
        if invalid == "raise":
            v = int(rows[r][~ok[r]][0])
            raise ValueError(f"row {r}: {v} is not a DeadHorse card (one rank bit 0..12 plus "
                             f"one suit bit 13..16)")
        hands.bad = bad
        a = np.where(ok, a, (1 << 14) | 1)  # a harmless placeholder card; the row reads 0
    hands.ids = cards.from_deadhorse(a)
    return hands


def finish(h: Hands, out: np.ndarray, counts: np.ndarray, lo: int, hi: int,
           invalid: str) -> None:
    """Apply ``invalid`` to rows with a wrong card count or already known to be bad."""
    if h.ids is not None and lo <= h.ids.shape[1] <= hi:
        wrong = counts != h.ids.shape[1]  # a repeated card makes the mask short
    else:
        wrong = (counts < lo) | (counts > hi)
        if h.ids is not None:
            wrong |= counts != h.ids.shape[1]
    if h.bad is not None:
        wrong |= h.bad
    if not wrong.any():
        return
    if invalid == "mask":
        out[wrong] = 0
        return
    r = int(np.flatnonzero(wrong)[0])
    if h.ids is not None and counts[r] < h.ids.shape[1]:
        raise row_error(h, r, "a card is used twice")
    raise row_error(h, r, f"{int(counts[r])} cards; this game takes {lo} to {hi}")
