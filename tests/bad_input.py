"""Bad input for every public entry point that takes cards: a table of how to call each, and a
seeded generator of bad ids, dtypes, shapes and array kinds (``tests/package/test_bad_input_fuzz.py``).

Each case takes a valid input of the entry point (``Entry.good``), maybe reshapes it (one row,
no rows, 0-d, an extra axis, a card fewer), maybe corrupts one value (an id out of range in
some integer type, a float, a bool), and hands it over as some kind of array (a NumPy integer
dtype, a nested list, a DLPack object). What may come back:

* **no corruption**: exactly what the same cards give as a ``uint8`` NumPy array (the same
  result, or the same exception type); every array kind is read the same way;
* **a corrupted value**: ``ValueError`` naming the bad value (an id out of range) or
  ``TypeError`` naming its type (``float``, ``bool``). When the reshaped input is itself
  refused, any ``ValueError`` / ``TypeError`` with a message will do (it has two faults).

Anything else fails: another exception (``IndexError``, ``OverflowError``, ``KeyError``,
``AttributeError``, ...), a NumPy warning (warnings are errors here), or an answer to a
corrupted input (a 304 read as a card).
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
from array_objects import DLPackOnly

import gpu_eval as ge
import gpu_eval.distributed as ged

INT_DTYPES = (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64)
FLOAT_DTYPES = (np.float16, np.float32, np.float64)
#: Values no card id (nor an index of a small layout) can be, each in every integer type that
#: holds it; Python ints beyond 64 bits only go in lists.
BAD_VALUES = (52, 53, 60, 64, 127, 255, 256, 300, 304, 1000, 2**15, 2**16 + 48, 2**31 - 1,
              2**32 + 48, 2**63 - 1, 2**64 - 1, 2**70, -1, -2, -48, -128, -2**31, -2**63,
              -2**70)
FLOATS = (48.7, 5.0, 0.5, float("nan"), float("inf"), -1.5)
SHAPES = ("as is", "one row", "no rows", "0-d", "extra axis", "a card fewer")


@dataclasses.dataclass(frozen=True)
class Entry:
    """One public entry point, called with one argument standing for its cards.

    ``good`` is a valid input as ``uint8`` ids (or indices), rows first; ``masks``: a
    ``uint64`` array is read as hand masks there (so uint64 ids are not the same cards);
    ``lo``/``hi``: the valid values (a joker is 52 where ``hi`` is 52).
    """

    name: str
    call: Callable[[Any], Any]
    good: np.ndarray
    masks: bool = False
    lo: int = 0
    hi: int = 51


def _ids(*texts: str) -> np.ndarray:
    return np.array([ge.cards.parse(t) for t in texts], dtype=np.uint8)



_HOLE = ge.cards.parse(["AsKs2c3d", "7h8h9cTc"])
_IX23 = ge.HandIndexer((2, 3))
_IX24 = ge.HandIndexer((2, 4))

ENTRIES = [
    Entry("evaluate holdem", ge.evaluate, _ids("AsKsQsJsTs2c3d", "7c5d4h3s2c9d8d"), masks=True),
    Entry("evaluate shortdeck", lambda x: ge.evaluate(x, game="shortdeck"),
          _ids("AsKsQsJsTs6c", "9c8d7h6s6dTc"), masks=True),
    Entry("evaluate deuce-seven", lambda x: ge.evaluate(x, game="deuce-seven"),
          _ids("7c5d4h3s2c", "AhKhQhJhTh"), masks=True),
    Entry("evaluate ace-five", lambda x: ge.evaluate(x, game="ace-five"),
          _ids("7c5d4h3s2c9d", "AhKhQhJhTh9c"), masks=True),
    Entry("evaluate badugi", lambda x: ge.evaluate(x, game="badugi"),
          _ids("2s3s4d7h", "AcKdQhJs"), masks=True),
    Entry("evaluate wild", lambda x: ge.evaluate(x, wild="joker"),
          np.array([[52, 51, 47, 43, 39, 0, 5]], dtype=np.uint8), masks=True, hi=52),
    Entry("evaluate_omaha hole", lambda x: ge.evaluate_omaha(x, "Qs Js Ts 6h 2d"), _HOLE,
          masks=True),
    Entry("evaluate_omaha board", lambda x: ge.evaluate_omaha("AsKs2c3d", x),
          _ids("Qs Js Ts 6h 2d", "Qh Jh Th 6c 2h"), masks=True),
    Entry("evaluate_low", ge.evaluate_low, _ids("Ah2d3c4s5h9cKd", "8h7d6c5s4hKcKs"),
          masks=True),
    Entry("evaluate_low hole", lambda x: ge.evaluate_low(x, "Qh 5d 4h 9s Jd"), _HOLE,
          masks=True),
    Entry("cards.format", ge.cards.format, _ids("AsKd", "2c3c"), masks=True, hi=52),
    Entry("cards.to_mask", ge.cards.to_mask, _ids("AsKd7h", "2c3c4c")),
    Entry("cards.to_deadhorse", ge.cards.to_deadhorse, _ids("AsKd7h", "2c3c4c")),
    Entry("Range.from_combos", ge.Range.from_combos, _ids("AsKd", "2c3c", "AhAd")),
    Entry("Range.without", lambda x: ge.Range("AA,KK,AKs").without(x), _ids("As", "Kd")[:, 0],
          masks=True),
    Entry("HandIndexer.index", _IX23.index, _ids("AsKs 2c7d9h", "AhAd 2s7c9d")),
    Entry("HandIndexer.unindex", lambda x: _IX23.unindex(1, x),
          np.array([0, 5, 944_059], dtype=np.int64), hi=_IX23.size(1) - 1),
    Entry("board_strengths", ge.board_strengths, _ids("2c7d9h", "AsKsQs"), masks=True),
    Entry("river_strength", lambda x: ge.river_strength(indices=x),
          np.array([0, 7, 123_156_253], dtype=np.int64), hi=123_156_253),
    Entry("strength_histograms", lambda x: ge.strength_histograms("turn", indices=x, bins=4),
          np.array([0, 13_960_049], dtype=np.int64), hi=_IX24.size(1) - 1),
    Entry("equity_batch hands", lambda x: ge.equity_batch(x, "2c7d9h Js 4d"),
          _ids("AhKh", "QsQd")[None]),
    Entry("equity_batch boards", lambda x: ge.equity_batch([["AhKh", "QsQd"]] * 2, x),
          _ids("2c7d9h Js 4d", "2c7d9h 3s 4d")),
    Entry("equity_batch dead", lambda x: ge.equity_batch([["AhKh", "QsQd"]] * 2,
                                                         ["2c7d9hJs", "2c7d9h3s"], x),
          _ids("5c", "6d")),
    Entry("equity_batch omaha boards",
          lambda x: ge.equity_batch([["AsAhKdQc", "2s3s4s5s"]], x, game="omaha"),
          _ids("Ac 2h 3c 9d Td")),
    Entry("equity_batch courchevel boards",
          lambda x: ge.equity_batch([["AsAhKdQcJc", "2s3s4s5s6h"]], x, game="courchevel"),
          _ids("Ac 2h 3c 9d Td")),
    Entry("equity_batch stud hands", lambda x: ge.equity_batch(x, game="stud"),
          _ids("AsAhKdQcJc9h8h", "2s3s4s5s6h7c7d")[None]),
    Entry("equity_batch stud dead",
          lambda x: ge.equity_batch([["AsAhKdQcJc9h", "2s3s4s5s6h7c"]], dead=x, game="stud"),
          _ids("Td Th")),
    Entry("equity board", lambda x: ge.equity(["AhKh", "QsQd"], board=x),
          ge.cards.parse("2c7d9hJs4d"), masks=True),
    Entry("equity dead", lambda x: ge.equity(["AhKh", "QsQd"], board="2c7d9hJs", dead=x),
          ge.cards.parse("5c6d"), masks=True),
    Entry("equity player", lambda x: ge.equity([x, "QsQd"], board="2c7d9hJs"),
          ge.cards.parse("AhKh")),
    Entry("equity omaha board",
          lambda x: ge.equity(["AsAhKdQc", "2s3s4s5s"], board=x, game="omaha"),
          ge.cards.parse("Ac2h3c9dTd"), masks=True),
    Entry("equity stud player",
          lambda x: ge.equity([x, "2s3s4s5s6h7c7d"], game="stud"),
          ge.cards.parse("AsAhKdQcJc9h8h")),
    Entry("equity_matrix board", lambda x: ge.equity_matrix("AhKh", "QsQd", board=x),
          ge.cards.parse("2c7d9hJs4d"), masks=True),
    Entry("distributed.equity board",
          lambda x: ged.equity(None, ["AhKh", "QsQd"], board=x), ge.cards.parse("2c7d9hJs4d"), masks=True),
]


def params(test: str) -> list:
    """Every entry point as a pytest parameter of ``test``."""
    import pytest  # noqa: PLC0415 -- only the tests need it

    return [pytest.param(e, id=e.name) for e in ENTRIES]


def reshape(good: np.ndarray, shape: str) -> np.ndarray:
    """``good`` changed as ``shape`` says (rows first; a card is the last axis)."""
    if shape == "as is":
        return good
    if shape == "one row":
        return np.asarray(good[0])
    if shape == "no rows":
        return good[:0]
    if shape == "0-d":
        return np.array(good.reshape(-1)[0])
    if shape == "extra axis":
        return good[None]
    return good[..., :-1]  # a card fewer


def as_kind(arr: np.ndarray, kind: str, dtype) -> Any:
    """The same values as another kind of array: a NumPy dtype, a list, a DLPack object."""
    if kind == "list":
        return arr.tolist()
    a = np.asarray(arr).astype(dtype)
    return DLPackOnly(a) if kind == "dlpack" else a


@dataclasses.dataclass(frozen=True)
class Case:
    """One input: ``shape`` of the good input, the corruption (``None``; ``("value", v)``;
    ``("float", f)``; ``("bool", b)``), where it went, and the kind of array."""

    shape: str
    corrupt: tuple | None
    kind: str
    dtype: Any
    x: Any

    def __str__(self) -> str:
        what = "clean" if self.corrupt is None else f"{self.corrupt[0]} {self.corrupt[1]!r}"
        dt = "" if self.kind == "list" else f" {np.dtype(self.dtype).name}"
        return f"{self.shape}, {what}, {self.kind}{dt}"


def _put(base: np.ndarray, cell: tuple, value) -> list:
    """``base`` as a nested list with ``value`` (a Python object) at ``cell``."""
    out = base.tolist()
    if not cell:
        return value
    row = out
    for i in cell[:-1]:
        row = row[i]
    row[cell[-1]] = value
    return out


def make_case(entry: Entry, rng: np.random.Generator) -> Case:
    """One random case for ``entry``."""
    shape = SHAPES[rng.integers(len(SHAPES))] if rng.random() < 0.4 else "as is"
    base = reshape(entry.good, shape)
    what = ("clean", "value", "value", "float", "bool")[rng.integers(5)] if base.size else "clean"
    kind = ("numpy", "numpy", "list", "dlpack")[rng.integers(4)]
    if (kind == "dlpack" and base.ndim == 0) or (kind == "list" and not base.size):
        kind = "numpy"  # a list holds no empty trailing axis; a 0-d input is a NumPy one
    cell = tuple(int(rng.integers(n)) for n in base.shape) if base.size else ()
    if what == "clean":
        dtypes = [d for d in INT_DTYPES if not (entry.masks and d == np.uint64)
                  and np.iinfo(d).max >= entry.hi]
        dtype = dtypes[rng.integers(len(dtypes))]
        return Case(shape, None, kind, dtype, as_kind(base, kind, dtype))
    if what == "value":
        bad = [v for v in BAD_VALUES if not entry.lo <= v <= entry.hi]
        v = bad[rng.integers(len(bad))]
        fits = [d for d in INT_DTYPES if np.iinfo(d).min <= v <= np.iinfo(d).max
                and np.iinfo(d).max >= entry.hi and not (entry.masks and d == np.uint64)]
        if not fits or kind == "list":
            return Case(shape, ("value", v), "list", None, _put(base, cell, v))
        dtype = fits[rng.integers(len(fits))]
        a = base.astype(dtype)
        a[cell] = v
        return Case(shape, ("value", v), kind, dtype, DLPackOnly(a) if kind == "dlpack" else a)
    if what == "float":
        f = FLOATS[rng.integers(len(FLOATS))]
        if kind == "list":
            return Case(shape, ("float", f), "list", None, _put(base, cell, f))
        dtype = FLOAT_DTYPES[rng.integers(len(FLOAT_DTYPES))]
        a = base.astype(dtype)
        a[cell] = f
        return Case(shape, ("float", f), kind, dtype, DLPackOnly(a) if kind == "dlpack" else a)
    b = bool(rng.integers(2))
    if kind == "list":
        return Case(shape, ("bool", b), "list", None, _put(base, cell, b))
    a = np.asarray(base != 0)
    a[cell] = b
    return Case(shape, ("bool", b), kind, np.bool_, DLPackOnly(a) if kind == "dlpack" else a)


def outcome(entry: Entry, x) -> tuple:
    """``("ok", comparable result)`` or ``("raise", exception)``; warnings are errors."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            return "ok", comparable(entry.call(x))
        except Exception as exc:  # judged by the caller
            return "raise", exc


def comparable(r) -> Any:
    """A result reduced to plain values that compare with ``==`` (arrays with their dtype)."""
    if isinstance(r, (np.ndarray, np.generic)):
        a = np.asarray(r)
        return ("array", a.dtype.str, a.shape, a.tobytes())
    if isinstance(r, ge.Range):
        return ("range", comparable(r.combos), comparable(r.weights))
    if dataclasses.is_dataclass(r) and not isinstance(r, type):
        return tuple((f.name, comparable(getattr(r, f.name))) for f in dataclasses.fields(r))
    if isinstance(r, (list, tuple)):
        return type(r).__name__, tuple(comparable(v) for v in r)
    return r


ALLOWED = (ValueError, TypeError)


def judge(entry: Entry, case: Case, reference: tuple) -> str | None:
    """Why ``case`` was answered wrongly (None: rightly); ``reference`` is the outcome of the
    same shape as clean ``uint8`` NumPy ids."""
    got = outcome(entry, case.x)
    if got[0] == "raise" and not isinstance(got[1], ALLOWED):
        return f"raised {type(got[1]).__name__}: {got[1]}"
    if got[0] == "raise" and not str(got[1]).strip():
        return f"raised {type(got[1]).__name__} without a message"
    if case.corrupt is None:
        if reference[0] == "ok":
            if got[0] != "ok":
                return f"refused cards that uint8 ids give an answer for: {got[1]!r}"
            if got[1] != reference[1]:
                return "answered differently from the same cards as uint8 ids"
            return None
        if got[0] == "ok":
            return f"answered where the uint8 ids raise {reference[1]!r}"
        if type(got[1]) is not type(reference[1]):
            return f"raised {got[1]!r} where the uint8 ids raise {reference[1]!r}"
        return None
    if got[0] == "ok":
        return f"answered a corrupted input (silently wrong): {case.corrupt}"
    if reference[0] == "raise":
        return None  # the reshaped input is refused too: either fault may be named
    what, v = case.corrupt
    msg = str(got[1])
    if what == "value":
        if not isinstance(got[1], ValueError) or str(v) not in msg:
            return f"an id out of range gave {got[1]!r}, which does not name {v}"
    elif not isinstance(got[1], TypeError) or what not in msg:
        return f"a {what} gave {got[1]!r}, which does not say {what}"
    return None
