"""Cards, card sets and integer arguments as a caller gives them, read one way everywhere.

Every public entry point reads what a user passes as cards (or as indices, or counts) through
this module, so every game and every array kind gets the same checks and the same messages:

* **text** (``"AsKd"``, ``"As Kd"``, a list of such) is spelled as in :mod:`gpu_eval.cards`;
* **numbers are integers**: any NumPy integer dtype, Python ints, lists and tuples of them
  (nested), 0-d arrays, and any ``__dlpack__`` / ``__cuda_array_interface__`` array (viewed
  without a copy through :mod:`gpu_eval.array_interop`; one on a device is read to the host).
  Bools, floats (NaN included), complex numbers and other objects are refused with
  ``TypeError``: ``True`` is not the card 2d, and 48.7 is not Ac;
* **values are checked in the caller's own integer type, before any cast**, so the id 304 is
  refused instead of wrapping into 48 (Ac) as ``uint8``, and a Python int too big for 64 bits
  is named as it is;
* ``uint64`` is the hand-mask encoding wherever one number can be a whole hand;
* an error is a ``ValueError`` (a bad value) or ``TypeError`` (a wrong type) naming the
  argument, the row (spot, player) and the card, and saying what is wrong.

Examples
--------
>>> import numpy as np
>>> card_ids(np.array([[51, 47, 43]], dtype=np.int64), "boards").tolist()
[[51, 47, 43]]
>>> card_ids(np.array([[51, 304, 43]], dtype=np.int16), "boards")
Traceback (most recent call last):
...
ValueError: boards, row 0: card id 304 is out of range 0..51
>>> card_set("Kd 7c 2h", "the board"), card_set(np.uint64(1), "the dead cards")
([45, 20, 2], [0])
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from gpu_eval.array_interop import adopt, is_foreign
from gpu_eval.card_spelling import (
    ID_TO_MASK,
    PLAIN_CARD_ID,
    VALID_MASK_BITS,
    id_text,
    parse_hand_text,
)

__all__ = ["SPOT_AXES", "integer_array", "check_range", "place", "card_ids", "card_masks",
           "card_set", "cards_mask", "card_rows", "plain_text_ids", "whole_number", "indices",
           "mask_ids"]

#: The largest card id (jokers, id 52, are allowed only where a caller says so).
TOP = 51
_UINT64_MAX = (1 << 64) - 1


def _got(x: Any) -> str:
    """How an error message names a value of the wrong type."""
    if isinstance(x, (bool, np.bool_)):
        return f"the bool {bool(x)}"
    if isinstance(x, str):
        return f"the text {x!r}"
    if isinstance(x, (float, complex, np.floating, np.complexfloating)):
        return f"the {type(x).__name__} {x.item() if isinstance(x, np.generic) else x!r}"
    if isinstance(x, np.ndarray):
        return f"dtype {x.dtype}"
    return f"a {type(x).__name__}"


def _type_error(what: str, noun: str, got: str) -> TypeError:
    return TypeError(f"{what} must be {noun}, got {got}")


_INT_TYPES = (int, np.integer)


def _check_leaves(obj: np.ndarray, what: str, noun: str) -> list:
    """The leaves of an object array, each checked to be an integer (a bool is not)."""
    flat = obj.reshape(-1).tolist()
    types = set(map(type, flat))
    if any(t is bool or t is np.bool_ or not issubclass(t, _INT_TYPES) for t in types):
        i, v = next((i, v) for i, v in enumerate(flat)
                    if isinstance(v, (bool, np.bool_)) or not isinstance(v, _INT_TYPES))
        at = tuple(int(w) for w in np.unravel_index(i, obj.shape)) if obj.ndim else None
        raise _type_error(what, noun, _got(v) + (f" at index {at}" if at is not None else ""))
    return flat


def _python_ints(obj: np.ndarray, what: str, noun: str) -> np.ndarray:
    """An object array of integers as int64 where the values fit, else as the Python ints
    themselves (dtype object), which a range check still names as given. Never ``uint64``:
    that dtype means hand masks, and Python ints are no more masks than ids."""
    values = [int(v) for v in _check_leaves(obj, what, noun)]
    info = np.iinfo(np.int64)
    if all(info.min <= v <= info.max for v in values):
        return np.array(values, dtype=np.int64).reshape(obj.shape)
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out.reshape(obj.shape)


def _from_sequence(x: Sequence, what: str, noun: str) -> np.ndarray:
    if x and is_foreign(x[0]):  # a list of other libraries' arrays, e.g. one per row
        x = [adopt(e, host_only=True).array for e in x]
    try:
        fast = np.asarray(x)
    except ValueError as exc:  # ragged nesting
        raise ValueError(f"{what}: rows of different lengths cannot make one array of "
                         f"{noun} ({exc})") from None
    if fast.size == 0 and fast.dtype.kind in "fO":
        return fast.astype(np.int64)  # an empty list is no cards, not a float array
    if fast.dtype.kind in "US":
        raise _type_error(what, noun, f"text inside a list ({fast.dtype})")
    # NumPy turns [True, 5] into int64 and [2**64 - 1, -1] into float64: read the leaves.
    obj = np.array(x, dtype=object)
    if obj.shape != fast.shape:
        raise _type_error(what, noun, "a nested list of arrays")
    if fast.dtype.kind in "iu":
        leaves = _check_leaves(obj, what, noun)
        # NumPy reads [2**64 - 1] as uint64, the mask encoding: Python ints stay plain ints.
        if fast.dtype != np.uint64 or not any(type(v) is int for v in leaves):
            return fast
    return _python_ints(obj, what, noun)


def integer_array(x: Any, what: str, *, noun: str = "integer card ids") -> np.ndarray:
    """``x`` as a NumPy integer array, every value as the caller gave it.

    Parameters
    ----------
    x : int, sequence or array_like
        Python or NumPy ints, (nested) lists and tuples of them, an integer array of any
        width and shape (0-d included), or another library's array (``__dlpack__``,
        ``__cuda_array_interface__``; read to the host without a cast).
    what : str
        The argument's name in messages (``"boards"``, ``"the dead cards"``).
    noun : str
        What the integers are, in messages (``"integer card ids"``, ``"integer indices"``);
        any integer width is taken.

    Returns
    -------
    numpy.ndarray
        An array of an integer dtype; Python ints beyond 64 bits stay Python ints (dtype
        object) so that :func:`check_range` names them as given.

    Raises
    ------
    TypeError
        Bools, floats, complex numbers, text or any other object, naming what was given.
    ValueError
        Nested lists of different lengths.

    Examples
    --------
    >>> integer_array([[1, 2], [3, 4]], "hands").dtype
    dtype('int64')
    >>> integer_array([[True, 5]], "hands")
    Traceback (most recent call last):
    ...
    TypeError: hands must be integer card ids, got the bool True at index (0, 0)
    """
    if isinstance(x, np.ndarray):
        arr = x
    elif isinstance(x, (bool, np.bool_, str, float, complex, np.floating, np.complexfloating)):
        raise _type_error(what, noun, _got(x))
    elif isinstance(x, (list, tuple)):
        return _from_sequence(x, what, noun)
    elif isinstance(x, (int, np.integer)):
        arr = np.asarray(x)
    else:  # DLPack / CUDA array interface / CuPy: a host view (adopt passes others through)
        arr = adopt(x, host_only=True).array
        if not isinstance(arr, np.ndarray):
            raise _type_error(what, noun, _got(x))
    if arr.dtype == object:
        return _python_ints(arr, what, noun)
    if arr.dtype.kind not in "iu":
        raise _type_error(what, noun, f"dtype {arr.dtype}")
    return arr


#: Axes counted from 1 in messages: players are "player 1", "player 2" everywhere (rows and
#: spots count from 0, as NumPy does).
ONE_BASED = ("player",)


#: How messages name the axes of an ``(N, P, k)`` array of many spots' players.
SPOT_AXES = ("row", "player")


def place(index: tuple[int, ...], axes: Sequence[str]) -> str:
    """``", spot 3, player 2"``: where ``index`` (the leading axes) points, for a message.

    Examples
    --------
    >>> place((3, 1), ("spot", "player")), place((), ("row",)), place((2, 0), ("row",))
    (', spot 3, player 2', '', ', row 2, index 0')
    """
    names = list(axes) + ["index"] * (len(index) - len(axes))
    return "".join(f", {n} {i + (n in ONE_BASED)}" for n, i in zip(names, index))


def check_range(arr: np.ndarray, what: str, lo: int, hi: int, *, noun: str = "card id",
                axes: Sequence[str] = ("row",), last_axis_is_cards: bool = True,
                note: str = "") -> None:
    """Raise ``ValueError`` naming the first value of ``arr`` outside ``lo..hi``.

    The check runs on ``arr`` as given (any integer dtype, or Python ints), before any cast.
    ``axes`` name the leading axes in the message; with ``last_axis_is_cards`` the last axis
    (a row's cards) is not named, the value is. ``note`` ends the message.

    Examples
    --------
    >>> check_range(np.array([[3, 60]]), "hands", 0, 51)
    Traceback (most recent call last):
    ...
    ValueError: hands, row 0: card id 60 is out of range 0..51
    """
    if arr.size == 0:
        return
    if arr.dtype != object and int(arr.max()) <= hi and (arr.dtype.kind == "u" and lo <= 0
                                                        or int(arr.min()) >= lo):
        return  # one or two passes, no temporary the size of the input
    bad = (arr < lo) | (arr > hi)
    if not bad.any():
        return
    where = tuple(int(i) for i in np.argwhere(bad)[0]) if arr.ndim else ()
    lead = where[:-1] if last_axis_is_cards and arr.ndim else where
    raise ValueError(f"{what}{place(lead, axes)}: {noun} {int(arr[where])} is out of range "
                     f"{lo:,}..{hi:,}{note}")


def card_ids(x: Any, what: str, *, top: int = TOP, axes: Sequence[str] = ("row",)
             ) -> np.ndarray:
    """Card ids of any integer width and shape, checked, as ``uint8``.

    Parameters
    ----------
    x : int, sequence or array_like
        What :func:`integer_array` reads; the last axis is a hand's cards.
    what : str
        The argument's name in messages.
    top : int
        The largest id allowed (51; 52 where a joker may be).
    axes : sequence of str
        Names of the leading axes in messages (``("spot", "player")``).

    Returns
    -------
    numpy.ndarray
        ``uint8`` ids, the shape of ``x``.

    Raises
    ------
    TypeError
        Not integers (:func:`integer_array`).
    ValueError
        An id out of ``0..top``, naming the row and the id.

    Examples
    --------
    >>> card_ids([51, 47], "the hand").tolist()
    [51, 47]
    >>> card_ids(np.array([[[0, 1], [2, 307]]], dtype=np.uint64), "hands",
    ...          axes=("spot", "player"))
    Traceback (most recent call last):
    ...
    ValueError: hands, spot 0, player 2: card id 307 is out of range 0..51
    """
    arr = integer_array(x, what)
    check_range(arr, what, 0, top, axes=axes)
    return arr.astype(np.uint8, copy=False)


def card_masks(x: Any, what: str, *, axes: Sequence[str] = ("row",)) -> np.ndarray:
    """``uint64`` hand masks (any integer dtype in), checked for stray bits.

    Parameters
    ----------
    x : int, sequence or array_like
        Hand masks, bit ``16 * suit + rank`` per card; any shape.
    what : str
        The argument's name in messages.
    axes : sequence of str
        Names of the axes in messages (every axis is a row of masks).

    Returns
    -------
    numpy.ndarray
        ``uint64``, the shape of ``x``.

    Raises
    ------
    TypeError
        Not integers.
    ValueError
        A negative value, one beyond 64 bits, or bits outside the 52 card positions.

    Examples
    --------
    >>> card_masks([1, 1 << 13], "masks")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: masks, row 1: hand mask 0x2000 has bits set outside the 52 card positions ...
    """
    arr = integer_array(x, what, noun="integer hand masks")
    check_range(arr, what, 0, _UINT64_MAX, noun="hand mask", axes=axes,
                last_axis_is_cards=False)
    masks = arr.astype(np.uint64, copy=False)
    if masks.size and np.bitwise_or.reduce(masks.reshape(-1)) & ~VALID_MASK_BITS:
        where = tuple(int(i) for i in np.argwhere((masks & ~VALID_MASK_BITS) != 0)[0]) \
            if masks.ndim else ()
        raise ValueError(f"{what}{place(where, axes)}: hand mask {int(masks[where]):#x} has "
                         f"bits set outside the 52 card positions (bits 13-15 of each 16-bit "
                         f"suit lane must be 0)")
    return masks


def mask_ids(mask: int) -> list[int]:
    """The card ids of one hand mask, lowest first.

    Examples
    --------
    >>> mask_ids(1 | 1 << 60)
    [0, 51]
    """
    return [c for c in range(52) if mask >> (16 * (c % 4) + c // 4) & 1]


def plain_text_ids(text: str) -> list[int] | None:
    """Ids of plain two-character card text (``"2c7d9h"``, ``"2c 7d,9h"``); None for any other
    spelling (``"10h"``, a suit symbol, a typo), which the full reader then reads and names.

    Examples
    --------
    >>> plain_text_ids("2c 7d 9h"), plain_text_ids("10h")
    ([0, 21, 30], None)
    """
    t = text.replace(" ", "").replace(",", "")
    if len(t) % 2:
        return None
    out = [PLAIN_CARD_ID.get(t[i:i + 2]) for i in range(0, len(t), 2)]
    return None if None in out else out


def card_set(x: Any, what: str) -> list[int]:
    """The card ids of a set of cards (a board, dead cards, one player's cards); no repeats.

    Parameters
    ----------
    x : None, str, list of str, int or array_like
        None or ``""`` (no cards), card text, a list of card texts, card ids of any integer
        width and shape (0-d: one card), or ``uint64`` hand masks (each one some cards).
    what : str
        The argument's name in messages (``"the board"``).

    Returns
    -------
    list of int
        The ids in the order given (a mask's cards lowest first).

    Raises
    ------
    ValueError
        Unknown card text, an id out of range, stray mask bits, a card given twice.
    TypeError
        Bools, floats, or another type that holds no cards.

    Examples
    --------
    >>> card_set(["Kd", "7c 2h"], "the board"), card_set(None, "the dead cards")
    ([45, 20, 2], [])
    >>> card_set([48.7], "the board")
    Traceback (most recent call last):
    ...
    TypeError: the board must be integer card ids, got the float 48.7 at index (0,)
    """
    if x is None:
        return []
    if isinstance(x, str):
        ids = plain_text_ids(x)
        if ids is None:
            try:
                ids = parse_hand_text(x, allow_joker=False)
            except ValueError as exc:
                raise ValueError(f"{what}: {exc}") from None
    elif isinstance(x, (list, tuple)) and x and all(isinstance(t, str) for t in x):
        ids = [c for t in x for c in card_set(t, what)]
    else:
        arr = integer_array(x, what)
        if arr.dtype == np.uint64:  # uint64 is the hand-mask encoding
            ids = [c for m in card_masks(arr, what).reshape(-1).tolist() for c in mask_ids(m)]
        else:
            check_range(arr.reshape(-1), what, 0, TOP, axes=())
            ids = arr.reshape(-1).tolist()
    seen: set[int] = set()
    for c in ids:
        if c in seen:
            raise ValueError(f"card {id_text(c)} appears twice in {what}")
        seen.add(c)
    return [int(c) for c in ids]


def cards_mask(x: Any, what: str) -> int:
    """The hand mask of some cards to take out of play, where naming a card twice is naming it
    once (removal is a set operation): text, a list of texts, ids of any integer width, or
    ``uint64`` hand masks (OR-ed).

    Examples
    --------
    >>> hex(cards_mask("As 2c", "dead cards")), cards_mask(np.uint64(1), "dead cards")
    ('0x1000000000000001', 1)
    >>> cards_mask([51, 51], "dead cards") == cards_mask("As", "dead cards")
    True
    """
    if type(x) is np.uint64:  # the hot path: equity's card removal passes a mask
        m = int(x)
        if m & ~int(VALID_MASK_BITS):
            card_masks(x, what)  # raises, naming the stray bits
        return m
    if isinstance(x, str) or (isinstance(x, (list, tuple)) and x
                              and all(isinstance(t, str) for t in x)):
        texts = [x] if isinstance(x, str) else x
        ids = []
        for t in texts:
            got = plain_text_ids(t)
            if got is None:
                try:
                    got = parse_hand_text(t, allow_joker=False)
                except ValueError as exc:
                    raise ValueError(f"{what}: {exc}") from None
            ids += got
        return _mask_of(ids)
    arr = integer_array(x, what, noun="integer card ids or uint64 masks")
    if arr.dtype == np.uint64:  # uint64 is the hand-mask encoding
        flat = card_masks(arr, what).reshape(-1)
        return int(np.bitwise_or.reduce(flat)) if flat.size else 0
    flat = arr.reshape(-1)
    check_range(flat, what, 0, TOP, axes=(), note=" (pass a hand mask as numpy.uint64)")
    return _mask_of(flat)


def card_rows(x: Any, n: int, what: str) -> tuple[np.ndarray | None, np.ndarray]:
    """Cards of ``n`` rows (a board or dead cards per spot): ``(ids, masks)``.

    Parameters
    ----------
    x : None, str, list of str or array_like
        None or ``""`` (no cards in any row); one text for every row; ``n`` texts (rows may
        differ in size); or ``(n, b)`` card ids of any integer width (``uint64`` included:
        the shape says ids).
    n : int
        Rows expected.
    what : str
        The argument's name in messages.

    Returns
    -------
    ids : numpy.ndarray or None
        ``(n, b)`` ``uint8`` when every row has ``b`` cards, else None.
    masks : numpy.ndarray
        ``(n,)`` ``uint64``: each row's cards.

    Raises
    ------
    ValueError
        A bad card (naming the row), the wrong number of rows, a card twice in one row of
        text.
    TypeError
        Not card text or integers.

    Examples
    --------
    >>> ids, masks = card_rows(["2c7d9h", "AsKs Qs"], 2, "boards")
    >>> ids.tolist(), card_rows("Ah", 2, "dead")[0].tolist()
    ([[0, 21, 30], [51, 47, 43]], [[50], [50]])
    >>> card_rows(["2c", "3c 4c"], 2, "dead")[0] is None
    True
    """
    if x is None or (isinstance(x, str) and not x.strip()):
        return np.zeros((n, 0), dtype=np.uint8), np.zeros(n, dtype=np.uint64)
    if isinstance(x, str):  # one set of cards for every row
        ids = np.array(card_set(x, what), dtype=np.uint8)
        return np.broadcast_to(ids, (n, len(ids))), np.full(n, _mask_of(ids), np.uint64)
    if isinstance(x, (list, tuple)) and x and all(isinstance(t, str) for t in x):
        if len(x) != n:
            raise ValueError(f"{what}: {len(x)} rows for {n} spots")
        rows = [card_set(t, f"{what}, row {i}") for i, t in enumerate(x)]
        masks = np.array([_mask_of(r) for r in rows], dtype=np.uint64)
        if len({len(r) for r in rows}) > 1:
            return None, masks
        return np.array(rows, dtype=np.uint8).reshape(n, -1), masks
    arr = integer_array(x, what)
    if arr.ndim == 1 and arr.size == 0:
        arr = arr.reshape(n, 0)
    if arr.ndim != 2 or len(arr) != n:
        raise ValueError(f"{what} must have shape (N, cards) with N = {n} spots, got "
                         f"{arr.shape}")
    check_range(arr, what, 0, TOP)
    ids = arr.astype(np.uint8, copy=False)
    masks = np.zeros(n, dtype=np.uint64)
    for j in range(ids.shape[1]):
        masks |= ID_TO_MASK[ids[:, j]]
    return ids, masks


def _mask_of(ids) -> int:
    return int(np.bitwise_or.reduce(ID_TO_MASK[np.asarray(ids, dtype=np.intp)])) \
        if len(ids) else 0


def whole_number(x: Any, what: str, lo: int, hi: int | None = None) -> int:
    """One whole number (a count, a round's cards, a bin count) as a Python int.

    Python and NumPy ints are taken; bools, floats (even ``2.0``), text and anything else
    are refused with ``TypeError``, values outside ``lo..hi`` with ``ValueError``.

    Examples
    --------
    >>> whole_number(np.int64(5), "bins", 1), whole_number(2, "a round", 1, 7)
    (5, 2)
    >>> whole_number(2.5, "a round", 1, 7)
    Traceback (most recent call last):
    ...
    TypeError: a round must be a whole number, got the float 2.5
    """
    if isinstance(x, (bool, np.bool_)):
        raise TypeError(f"{what} must be a whole number, got {_got(x)}")
    try:
        v = operator.index(x)  # Python and NumPy ints, 0-d integer arrays, other libraries'
    except TypeError:
        raise TypeError(f"{what} must be a whole number, got {_got(x)}") from None
    if v < lo or (hi is not None and v > hi):
        span = f"{lo}..{hi}" if hi is not None else f"at least {lo}"
        raise ValueError(f"{what} is {v}; expected {span}")
    return v


def indices(x: Any, size: int, what: str = "indices", *, note: str = "") -> np.ndarray:
    """Integer indices into ``0..size - 1``, any integer width and shape (0-d: one index),
    checked before any cast, as ``int64``; ``note`` ends a range error's message.

    Examples
    --------
    >>> indices(np.uint8(7), 169).tolist(), indices([[0, 168]], 169).shape
    (7, (1, 2))
    >>> indices([0, 169], 169)
    Traceback (most recent call last):
    ...
    ValueError: indices, position 1: index 169 is out of range 0..168
    """
    arr = integer_array(x, what, noun="integer indices")
    check_range(arr, what, 0, size - 1, noun="index", axes=("position",),
                last_axis_is_cards=False, note=note)
    return arr.astype(np.int64, copy=False)
