"""``gpu_eval.evaluate``: bulk hand evaluation on NumPy or CUDA."""

from __future__ import annotations

import numpy as np

from . import _backend, _inputs, _numpy_backend

__all__ = ["evaluate", "GAMES"]

#: Games ``evaluate`` knows, with the card counts each accepts.
GAMES = {"holdem": (5, 9)}
#: Games evaluated by ``gpu_eval._variants`` (short deck; Omaha only to point elsewhere).
VARIANT_GAMES = ("shortdeck", "shortdeck-triton", "omaha", "omaha5", "omaha6")
ALGORITHMS = ("bitmask", "perfect-hash")


def evaluate(hands, *, game: str = "holdem", backend: str = "auto", invalid: str = "raise",
             encoding: str = "auto", algorithm: str = "bitmask", wild=None):
    """Evaluate poker hands in bulk.

    Parameters
    ----------
    hands : str, list of str, array_like
        One hand as text (``"AsKd Qh Jc Ts 2d 3d"``), a list of hands as text (sizes may
        differ), an ``(N, k)`` or ``(k,)`` integer array of card ids (``4 * rank + suit``),
        an ``(N,)`` or ``()`` ``uint64`` array of hand masks, or DeadHorse card ints with
        ``encoding="deadhorse"``. CuPy arrays are evaluated on the GPU.
    game : str
        ``"holdem"``: the best 5-card high hand of 5 to 9 cards. ``"shortdeck"`` and
        ``"shortdeck-triton"``: the 36-card deck 6..A (A-6-7-8-9 is a straight, a flush beats
        a full house; under Triton rules trips also beat a straight), strengths on their own
        scale 1..1404 (see ``gpu_eval.shortdeck``). Omaha needs the hole cards apart from
        the board: use :func:`gpu_eval.evaluate_omaha`.
    backend : {"auto", "numpy", "cuda"}
        ``auto`` uses CUDA for CuPy inputs, and for other inputs when CuPy and a device are
        present; otherwise NumPy. Both give identical results and errors, in every game.
    invalid : {"raise", "mask"}
        ``raise`` (default) raises ``ValueError`` naming the first bad hand and why;
        ``mask`` returns strength 0 for exactly the bad rows.
    encoding : {"auto", "ids", "mask", "deadhorse"}
        How to read an integer array: ``auto`` reads ``uint64`` as masks, other integer
        dtypes as ids.
    algorithm : {"bitmask", "perfect-hash"}
        The evaluator: the OR/XOR/AND bitmask evaluator (default; what the kernels run) or the
        perfect hash of the rank counts. Results are identical.
    wild : str or list of str, optional
        Wild cards (hold'em only): ``"joker"`` (id 52, text ``Jk``/``Xx``, up to two per
        hand), a rank such as ``"2"`` (deuces wild), a list of those, or ``"bug"`` (a joker
        that is an ace or completes a straight or flush). Strengths are then on the wild
        scale 1..7475, five of a kind on top (see ``gpu_eval.wild``).

    Returns
    -------
    numpy.ndarray or cupy.ndarray
        ``uint16`` strengths, higher is better (1..7462; ``7463 - strength`` is the Cactus Kev
        rank), shape ``()`` for one hand and ``(N,)`` otherwise; CuPy in, CuPy out. A plain
        ``uint16`` dtype means hold'em. Short-deck and wild-card strengths (NumPy) carry
        their game in the dtype, ``np.dtype(np.uint16, metadata={"game": "shortdeck"})``
        (or ``"shortdeck-triton"``, ``"wild"``), which ``category``/``describe``/``compare``
        read (see ``gpu_eval.strength``); one such hand gives a 0-d array, which keeps the
        tag. CuPy arrays cannot carry it: CuPy strengths are plain ``uint16`` in every game,
        so name the game (``describe(s.get(), game="shortdeck")``) when reading them.

    Raises
    ------
    ValueError
        Unknown card text, an id out of range, a card used twice in a hand, a hand with fewer
        than 5 or more than 9 cards, stray mask bits; the message names the row.
    TypeError
        Hands of a type or dtype that cannot hold cards.

    Examples
    --------
    >>> import gpu_eval as ge
    >>> int(ge.evaluate("As Ks Qs Js Ts 2c 3d"))
    7462
    >>> ge.evaluate(["7c5d4h3s2c", "AhAd5c5s2h"]).tolist()
    [1, 4897]
    >>> ge.evaluate(["AhAd5c5s2h", "AhAh5c5s2h"], invalid="mask").tolist()
    [4897, 0]
    >>> int(ge.evaluate("As 6d 7c 8h 9s", game="shortdeck"))   # its own scale, 1..1404
    1129
    >>> int(ge.evaluate("Ac Ad Ah As Jk", wild="joker"))        # five aces, top of 1..7475
    7475
    """
    if wild is not None or game in VARIANT_GAMES:
        from . import _variants  # noqa: PLC0415 -- short deck and wild cards
        return _variants.evaluate(hands, game=game, backend=backend, invalid=invalid,
                                  encoding=encoding, algorithm=algorithm, wild=wild)
    if game not in GAMES:
        raise ValueError(f"game {game!r} is not supported by evaluate(); "
                         f"known: {', '.join((*GAMES, *VARIANT_GAMES))}")
    if algorithm not in ALGORITHMS:
        raise ValueError(f"algorithm={algorithm!r}: expected one of {', '.join(ALGORITHMS)}")
    _inputs.check_invalid_mode(invalid)
    where = _backend.resolve(backend, hands)
    if where == "cuda":
        from . import _cuda  # deferred: imports CuPy
        return _cuda.evaluate(hands, game=game, invalid=invalid, encoding=encoding,
                              algorithm=algorithm)
    lo, hi = GAMES[game]
    h = _inputs.coerce(hands, encoding=encoding, invalid=invalid)
    out, counts = _numpy_backend.evaluate(h, min_cards=lo, max_cards=hi, algorithm=algorithm)
    finish(h, out, counts, lo, hi, invalid)
    return out[0] if h.scalar else out


def finish(h: _inputs.Hands, out: np.ndarray, counts: np.ndarray, lo: int, hi: int,
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
        raise _inputs.row_error(h, r, "a card is used twice")
    raise _inputs.row_error(h, r, f"{int(counts[r])} cards; this game takes {lo} to {hi}")
