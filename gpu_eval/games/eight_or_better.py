"""Low hands, 8-or-better ace-to-five: the low half of Omaha hi/lo (``"omaha-hilo"``).

A low is five cards of five *different* ranks, all 8 or lower, the ace counting as one;
straights and flushes do not count against it. Lows compare by their highest card, then the
next, and so on: 5-4-3-2-A (the wheel) is the best, 8-7-6-5-4 the worst qualifying low.

Scale (``uint8``, higher is better, like every strength in this package)
-----------------------------------------------------------------------
``0`` means *no qualifying low*; ``1..56`` are the C(8, 5) = 56 qualifying lows, ``56`` the
wheel 5-4-3-2-A, ``55`` 6-4-3-2-A, ..., ``1`` 8-7-6-5-4. :func:`describe_low` names them.

How it is computed
------------------
A low depends only on which low ranks are present. Write them as an 8-bit *low mask*
(bit 0 the ace, bit ``i`` rank ``i + 1`` for 2..8). Two five-rank lows compare like their
masks read as integers (the first difference from the top decides, and the hand holding the
higher rank there is worse), so the strength of a five-rank mask is its position among the 56
from the top (:data:`LOW5`). Two tables follow from it:

* ``BEST5[m]``: the best low among any five of the ranks in ``m`` (its lowest five bits),
  for hold'em-style "any five cards";
* ``OMAHA[h * 256 + b]``: the best low of exactly two ranks from the hole mask ``h`` and three
  from the board mask ``b``, all five different: the maximum of ``LOW5[x | y]`` over two-rank
  ``x`` inside ``h`` and three-rank ``y`` inside ``b`` with ``x & y == 0``. It is built from
  the 28 x 56 disjoint pairs by a superset-maximum transform over both masks (64 K entries).
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations

import numpy as np

from gpu_eval import card_input, cards
from gpu_eval.array_interop import accepts_arrays
from gpu_eval.games import registry

__all__ = ["low_rows", "lookup", "describe_low", "low_masks", "low_tables", "NUM_LOWS"]

#: Number of qualifying lows (strengths 1..56).
NUM_LOWS = 56
_LANE = np.uint64(0x1FFF)
_LOW_NAMES = "A2345678"


@lru_cache(maxsize=1)
def low_tables() -> dict[str, np.ndarray]:
    """``LOW5``, ``BEST5`` (``uint8[256]``) and ``OMAHA`` (``uint8[65536]``), read-only.

    Examples
    --------
    >>> t = low_tables()
    >>> int(t["LOW5"][0b00011111]), int(t["LOW5"][0b11111000])   # wheel, 8-7-6-5-4
    (56, 1)
    """
    m = np.arange(256)
    pop = np.bitwise_count(m.astype(np.uint8))
    fives = np.flatnonzero(pop == 5)  # ascending: the best low first
    low5 = np.zeros(256, dtype=np.int64)
    low5[fives] = NUM_LOWS - np.arange(NUM_LOWS)
    # BEST5: keep the lowest five set bits.
    best5 = np.zeros(256, dtype=np.int64)
    for v in np.flatnonzero(pop >= 5):
        bits = [i for i in range(8) if v >> i & 1][:5]
        best5[v] = low5[sum(1 << i for i in bits)]
    # OMAHA: disjoint two-from-hole, three-from-board pairs, then superset maxima.
    grid = np.zeros((256, 256), dtype=np.int64)
    for x in combinations(range(8), 2):
        xm = (1 << x[0]) | (1 << x[1])
        for y in combinations(range(8), 3):
            ym = sum(1 << i for i in y)
            if xm & ym == 0:
                grid[xm, ym] = low5[xm | ym]
    for bit in range(8):
        b = 1 << bit
        has = (m & b) != 0
        grid[has, :] = np.maximum(grid[has, :], grid[m[has] ^ b, :])
        grid[:, has] = np.maximum(grid[:, has], grid[:, m[has] ^ b])
    out = {"LOW5": low5.astype(np.uint8), "BEST5": best5.astype(np.uint8),
           "OMAHA": grid.reshape(-1).astype(np.uint8)}
    for a in out.values():
        a.flags.writeable = False
    return out


def low_masks(masks: np.ndarray) -> np.ndarray:
    """The 8-bit low mask (bit 0 ace, bit ``i`` rank ``i + 1``) of ``uint64`` hand masks.

    Examples
    --------
    >>> int(low_masks(cards.to_mask("Ac 2d 9h 8s 8c")))   # A, 2, 8 (the 9 is not low)
    131
    """
    m = np.asarray(masks, dtype=np.uint64)
    r = (m & _LANE) | ((m >> np.uint64(16)) & _LANE) | ((m >> np.uint64(32)) & _LANE) \
        | ((m >> np.uint64(48)) & _LANE)
    return (((r & np.uint64(0x7F)) << np.uint64(1)) | ((r >> np.uint64(12)) & np.uint64(1))
            ).astype(np.uint8)


def _masks(x, what: str) -> tuple[np.ndarray, np.ndarray, bool]:
    """``(masks (N,), card counts (N,), single)`` of text, ids or uint64 masks."""
    if isinstance(x, str) or (isinstance(x, (list, tuple)) and x and isinstance(x[0], str)):
        try:
            m = cards.to_mask(x)
        except ValueError as exc:
            raise ValueError(f"{what}: {exc}") from None
        single = isinstance(x, str)
        m = np.atleast_1d(m)
        return m, np.bitwise_count(m).astype(np.int64), single
    arr = card_input.integer_array(x, what, noun="integer card ids or uint64 masks")
    if arr.dtype == np.uint64:
        if arr.ndim > 1:
            raise ValueError(f"{what}: hand masks must have shape () or (N,), got {arr.shape}")
        m = np.atleast_1d(arr)
        stray = np.flatnonzero((m & ~cards.VALID_MASK_BITS) != 0)
        if stray.size:
            raise ValueError(f"{what} mask {int(m[stray[0]]):#x} (row {int(stray[0])}): bits "
                             f"set outside the 52 card positions")
        return m, np.bitwise_count(m).astype(np.int64), arr.ndim == 0
    if arr.ndim not in (1, 2):
        raise ValueError(f"{what}: card ids must have shape (k,) or (N, k), got {arr.shape}")
    try:
        m = np.atleast_1d(cards.to_mask(arr))
    except ValueError as exc:
        raise ValueError(f"{what}: {exc}") from None
    return m, np.full(len(m), arr.shape[-1], dtype=np.int64), arr.ndim == 1


def low_rows(hands, board=None, game: str | None = None
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, bool]:
    """Validate the input of :func:`gpu_eval.evaluate_low`: ``(table, hole or hand masks,
    board masks or None, scalar)``, the lows being ``lookup(table, hands, board)``.

    Examples
    --------
    >>> table, hm, bm, scalar = low_rows("Ah 2d 3c 4s 5h")
    >>> int(lookup(table, hm, bm)[0]), scalar
    (56, True)
    """
    t = low_tables()
    hm, hc, h_one = _masks(hands, "hands" if board is None else "hole cards")
    if board is None:
        bad = np.flatnonzero((hc < 5) | (hc > 9))
        if bad.size:
            r = int(bad[0])
            raise ValueError(f"hand {cards.format(np.uint64(hm[r]))} (row {r}): {hc[r]} "
                             f"cards; a low takes 5 to 9")
        return t["BEST5"], hm, None, h_one
    if game is not None and not registry.get(game, where="evaluate_low()").is_omaha:
        raise ValueError(f"game {game!r} is not an Omaha game; known: "
                         f"{', '.join(registry.names(registry.OMAHA))}")
    lo, hi = (4, 6) if game is None else (registry.GAMES[game].hole_cards,) * 2
    bm, bc, b_one = _masks(board, "board")
    for what, c, m, a, b in (("hole cards", hc, hm, lo, hi), ("board", bc, bm, 3, 5)):
        bad = np.flatnonzero((c < a) | (c > b))
        if bad.size:
            r = int(bad[0])
            want = f"{a}" if a == b else f"{a} to {b}"
            raise ValueError(f"{what} {cards.format(np.uint64(m[r]))} (row {r}): {c[r]} "
                             f"cards; this takes {want}")
    if len(hm) != len(bm) and min(len(hm), len(bm)) != 1:
        raise ValueError(f"{len(hm)} rows of hole cards but {len(bm)} boards; give one board "
                         f"per row, or a single board for all rows")
    clash = np.flatnonzero((hm & bm) != 0)
    if clash.size:
        r = int(clash[0])
        both = cards.format(np.uint64(hm[r % len(hm)] & bm[r % len(bm)]))
        raise ValueError(f"hole cards and board (row {r}): {both} is used twice")
    return t["OMAHA"], hm, bm, h_one and b_one


def lookup(table: np.ndarray, hm: np.ndarray, bm: np.ndarray | None) -> np.ndarray:
    """The lows of validated masks, by table lookup on NumPy (``bm`` None: best five).

    Examples
    --------
    >>> table, hm, bm, _ = low_rows("AhKd3c9s", "2c 5d 4h Qs Js")
    >>> int(lookup(table, hm, bm)[0])
    56
    """
    if bm is None:
        return np.take(table, low_masks(hm))
    return np.take(table, low_masks(hm).astype(np.intp) * 256 + low_masks(bm))


@accepts_arrays("strength", host_only=True)
def describe_low(strength):
    """Name lows as their ranks from the top (``"7-5-4-2-A"``), ``"no low"`` for 0.

    Parameters
    ----------
    strength : int or array_like of int
        Low strengths, 0..56 (as :func:`gpu_eval.evaluate_low` gives them).

    Returns
    -------
    str or list of str
        One name for a single strength, else a flat list.

    Raises
    ------
    ValueError
        A strength outside 0..56 (naming it and, in an array, its index).
    TypeError
        Strengths that are not integers.

    Examples
    --------
    >>> describe_low(56), describe_low(np.array([1, 0], dtype=np.uint8))
    ('5-4-3-2-A', ['8-7-6-5-4', 'no low'])
    """
    t = low_tables()
    fives = np.flatnonzero(t["LOW5"])  # ascending masks: strengths 56 .. 1
    names = ["no low"] + ["-".join(_LOW_NAMES[i] for i in range(7, -1, -1) if m >> i & 1)
                          for m in fives[::-1]]
    s = np.asarray(strength)
    if s.dtype.kind not in "iu":
        raise TypeError(f"low strengths must be integers, got dtype {s.dtype}")
    bad = (s < 0) | (s >= len(names))
    if bad.any():
        where = tuple(int(w) for w in np.argwhere(bad)[0]) if s.ndim else ()
        at = f" at index {where}" if s.ndim else ""
        raise ValueError(f"low strength {int(s[where])}{at} is outside 0..{len(names) - 1} "
                         f"(0: no low)")
    if s.ndim == 0:
        return names[int(s)]
    return [names[int(v)] for v in s.reshape(-1)]
