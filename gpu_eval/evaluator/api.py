"""The public evaluators, ``gpu_eval.evaluate`` and ``gpu_eval.evaluate_omaha``: read the game's
record in the registry, pick the backend, and hand the rows to that game family's evaluator on
NumPy (``gpu_eval.evaluator.numpy_path``, ``gpu_eval.games.*``) or CUDA (``gpu_eval.cuda.*``).
"""

from __future__ import annotations

from gpu_eval import backend_choice
from gpu_eval.array_interop import accepts_arrays
from gpu_eval.cuda.availability import is_cupy_array
from gpu_eval.evaluator import inputs, numpy_path
from gpu_eval.games import registry
from gpu_eval.games.registry import HOLDEM, OMAHA, SHORTDECK

__all__ = ["evaluate", "evaluate_omaha", "evaluate_low", "ALGORITHMS", "EVALUATORS"]

ALGORITHMS = ("bitmask", "perfect-hash")


@accepts_arrays("hands")
def evaluate(hands, *, game: str = HOLDEM, backend: str = "auto", invalid: str = "raise",
             encoding: str = "auto", algorithm: str = "bitmask", wild=None):
    """Evaluate poker hands in bulk.

    Parameters
    ----------
    hands : str, list of str, array_like
        One hand as text (``"AsKd Qh Jc Ts 2d 3d"``), a list of hands as text (sizes may
        differ), an ``(N, k)`` or ``(k,)`` integer array of card ids (``4 * rank + suit``),
        an ``(N,)`` or ``()`` ``uint64`` array of hand masks, or DeadHorse card ints with
        ``encoding="deadhorse"``. CuPy arrays are evaluated on the GPU; PyTorch, JAX, Numba
        and any ``__dlpack__`` / ``__cuda_array_interface__`` arrays are read without a copy
        and give results of their own kind (``docs/interop.md``).
    game : str
        ``"holdem"`` (default): the best 5-card high hand of 5 to 9 cards. ``"shortdeck"`` and
        ``"shortdeck-triton"``: the 36-card deck 6..A (A-6-7-8-9 is a straight, a flush beats
        a full house; under Triton rules trips also beat a straight), strengths on their own
        scale 1..1404. ``"deuce-seven"``, ``"ace-five"``, ``"badugi"``: low hands, each on
        its own dense scale where, as everywhere, higher is better: 2-7 lowball of exactly
        five cards (1..7462, 7462 = 7-5-4-3-2 unsuited), A-5 lowball of the best five of 5 to
        7 cards (1..6175, 6175 = 5-4-3-2-A), badugi of four cards (1..1092, 1092 = A-2-3-4 of
        four suits). The Omaha games (``"omaha"``, ``"omaha5"``, ``"omaha6"``,
        ``"omaha-hilo"``, ``"omaha5-hilo"``, ``"courchevel"``, ``"courchevel-hilo"``) need the
        hole cards apart from the board: use :func:`gpu_eval.evaluate_omaha`. The games
        without a board evaluate a finished hand: ``"stud"`` the best high five of 5 to 7
        cards (the hold'em scale), ``"razz"`` the best A-5 low of 5 to 7 (the ace-five
        scale), ``"stud-hilo"`` both the best high five and the best 8-or-better low (a pair
        of arrays, see Returns), ``"five-card-draw"`` a high hand of five cards,
        ``"deuce-seven-draw"`` and ``"badugi-draw"`` their lows (five and four cards).
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
        scale 1..7475, five of a kind on top.

    Returns
    -------
    numpy.ndarray or cupy.ndarray
        ``uint16`` strengths, higher is better (1..7462; ``7463 - strength`` is the Cactus Kev
        rank), shape ``()`` for one hand and ``(N,)`` otherwise; CuPy in, CuPy out. A plain
        ``uint16`` dtype means hold'em. Short-deck and wild-card strengths (NumPy) carry
        their game in the dtype, ``np.dtype(np.uint16, metadata={"game": "shortdeck"})``
        (or ``"shortdeck-triton"``, ``"wild"``), which ``category``/``describe``/``compare``
        read (see :func:`gpu_eval.category`); one such hand gives a 0-d array, which keeps the
        tag. CuPy arrays cannot carry it: CuPy strengths are plain ``uint16`` in every game,
        so name the game (``describe(s.get(), game="shortdeck")``) when reading them.
    tuple of two arrays
        For ``game="stud-hilo"``: ``(high, low)``, the high strengths as for ``"stud"`` and
        the 8-or-better lows as :func:`gpu_eval.evaluate_low` gives them (``uint8``, 0 = no
        qualifying low); ``invalid="mask"`` is refused there (the two scales would mask
        alike only by accident).

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
    >>> ge.describe(ge.evaluate(["7c5d4h3s2c", "Ah5d4h3s2c"], game="deuce-seven"))
    ['7-5-4-3-2', 'A-5-4-3-2']
    >>> ge.describe(ge.evaluate("2s3s4d7h", game="badugi"))
    'Three-card 7-4-2'
    >>> ge.describe(ge.evaluate("AhKhQh2c3c4d5s", game="stud"))   # the best high five
    'Straight, Five high'
    >>> ge.describe(ge.evaluate("AhKhQh2c3c4d5s", game="razz"))   # the best A-5 low
    '5-4-3-2-A'
    >>> high, low = ge.evaluate("AhKhQh2c3c4d5s", game="stud-hilo")
    >>> int(high) == int(ge.evaluate("AhKhQh2c3c4d5s", game="stud")), int(low)
    (True, 56)
    """
    record = registry.get(game, where="evaluate()")
    if record.is_omaha:
        raise ValueError(f"game {game!r}: Omaha uses exactly two hole cards and three board "
                         f"cards, so evaluate() cannot tell them apart in one hand; call "
                         f"gpu_eval.evaluate_omaha(hole, board, game={game!r})")
    if wild is not None and record.name != HOLDEM:
        raise ValueError(f"wild cards are supported with game={HOLDEM!r} only, not {game!r}")
    if record.evaluator not in EVALUATORS:
        raise ValueError(f"game {game!r} is not supported by evaluate()")
    if algorithm not in ALGORITHMS:
        raise ValueError(f"algorithm={algorithm!r}: expected one of {', '.join(ALGORITHMS)}")
    if (wild is not None or record.evaluator != HOLDEM) and algorithm != "bitmask":
        raise ValueError(f"algorithm={algorithm!r} is not available for "
                         f"{'wild cards' if wild is not None else repr(game)}; use 'bitmask'")
    inputs.check_invalid_mode(invalid)
    if record.hilo and invalid != "raise":
        raise ValueError(f"game {game!r} gives a high and a low strength per hand; "
                         f"invalid={invalid!r} applies to one scale: evaluate the high hands "
                         f"with game={registry.names(record.evaluator, deal=record.deal)[0]!r} "
                         f"and the lows with evaluate_low")
    on_cuda = backend_choice.resolve(backend, hands) == "cuda"
    evaluator = _evaluate_variant if wild is not None else EVALUATORS[record.evaluator]
    high = evaluator(hands, record, invalid, encoding, algorithm, wild, on_cuda)
    if not record.hilo:
        return high
    # Hi/lo (stud hi/lo): the best high five and the best 8-or-better low of the same cards.
    return high, evaluate_low(hands, backend="cuda" if on_cuda else "numpy")


def _evaluate_holdem(hands, record, invalid: str, encoding: str, algorithm: str, wild,
                     on_cuda: bool):
    """Hold'em's bitmask (or perfect-hash) evaluator, on CUDA or NumPy."""
    if on_cuda:
        from gpu_eval.cuda import holdem  # deferred: imports CuPy
        return holdem.evaluate(hands, game=record.name, invalid=invalid, encoding=encoding,
                               algorithm=algorithm)
    lo, hi = record.evaluate_cards
    h = inputs.coerce(hands, encoding=encoding, invalid=invalid)
    out, counts = numpy_path.evaluate(h, min_cards=lo, max_cards=hi, algorithm=algorithm)
    inputs.finish(h, out, counts, lo, hi, invalid)
    return out[0] if h.scalar else out


def _evaluate_variant(hands, record, invalid: str, encoding: str, algorithm: str, wild,
                      on_cuda: bool):
    """Short deck (``record``) or wild cards (``wild``), on CUDA or NumPy."""
    game = record.name
    if on_cuda:
        from gpu_eval.cuda import variants as cuda_variants  # deferred: imports CuPy
        return cuda_variants.evaluate(hands, game=game, invalid=invalid, encoding=encoding,
                                      wild=wild)
    if wild is not None:
        from gpu_eval.games import wild as wild_cards  # deferred: its tables load on demand
        return wild_cards.evaluate_hands(hands, wild=wild, invalid=invalid, encoding=encoding)
    from gpu_eval.games import shortdeck  # deferred: its tables load on demand
    return shortdeck.evaluate_hands(hands, game=game, invalid=invalid, encoding=encoding)


def _evaluate_low_game(hands, record, invalid: str, encoding: str, algorithm: str, wild,
                       on_cuda: bool):
    """2-7, A-5 or badugi (``gpu_eval.games.lowball``), on CUDA or NumPy."""
    if on_cuda:
        from gpu_eval.cuda import lowball as cuda_lows  # deferred: imports CuPy
        return cuda_lows.evaluate(hands, game=record.name, invalid=invalid, encoding=encoding)
    from gpu_eval.games import lowball  # deferred: its tables load on demand
    return lowball.evaluate_hands(hands, game=record.name, invalid=invalid, encoding=encoding)


#: What plays each evaluator of the registry in :func:`evaluate` (a new evaluator: one entry
#: here and its code in ``games/``). Omaha is missing on purpose: two hole plus three board
#: cards cannot be told apart in one hand (:func:`evaluate_omaha`).
EVALUATORS = {HOLDEM: _evaluate_holdem, SHORTDECK: _evaluate_variant,
              **dict.fromkeys(registry.LOW_SCALES, _evaluate_low_game)}


@accepts_arrays("hole", "board")
def evaluate_omaha(hole, board, *, game: str = OMAHA, backend: str = "auto",
                   invalid: str = "raise"):
    """Evaluate Omaha hands: the best hand of exactly two hole cards and three board cards.

    Parameters
    ----------
    hole : str, list of str, array_like
        Hole cards: one hand as text (``"AsKsQdJd"``), a list of hands as text, card ids of
        shape ``(h,)`` or ``(N, h)``, or ``uint64`` hand masks of shape ``()`` or ``(N,)``;
        ``h`` is 4, 5 or 6 as ``game`` says.
    board : str, list of str, array_like
        Board cards, 3 to 5 per row, in the same forms. One board (a string, a ``(k,)`` id
        array or one mask) is shared by every row of ``hole``; likewise one hole hand with
        many boards.
    game : {"omaha", "omaha5", "omaha6", "omaha-hilo", "omaha5-hilo", "courchevel", "courchevel-hilo"}
        Fixes the number of hole cards: 4 (``"omaha"``, ``"omaha-hilo"``), 5 (``"omaha5"``,
        ``"omaha5-hilo"``, ``"courchevel"``, ``"courchevel-hilo"``) or 6 (``"omaha6"``); the
        high hand of the hi/lo games (their lows: :func:`gpu_eval.evaluate_low`).
    backend : {"auto", "numpy", "cuda"}
        ``"cuda"`` runs the Omaha kernel (``kernels/variants.cu``); ``"auto"`` does so for
        CuPy inputs, and for others when CuPy and a device are present, else NumPy. Both
        give identical results and errors.
    invalid : {"raise", "mask"}
        ``raise`` (default) raises ``ValueError`` naming the first bad row and why;
        ``mask`` returns strength 0 for exactly the bad rows.

    Returns
    -------
    numpy.ndarray or cupy.ndarray
        ``uint16`` strengths on the hold'em scale (1..7462, higher is better; a plain
        ``uint16`` dtype, as for hold'em), shape ``()`` when both inputs are single hands,
        else ``(N,)``; a CuPy array when either input is one.

    Raises
    ------
    ValueError
        Unknown card text, an id out of range, a wrong number of hole or board cards, a card
        used twice (within the hole cards, the board, or between them); the message names the
        row. An unknown ``game``.
    TypeError
        Inputs of a type that cannot hold cards.

    Examples
    --------
    >>> import gpu_eval as ge
    >>> s = ge.evaluate_omaha("AsAhKdQc", "Ad 7c 2h 3s 9d")   # trips: only two hole cards play
    >>> ge.describe(s)
    'Three of a Kind, Aces, Nine Seven kickers'
    >>> ge.describe(ge.evaluate_omaha("AsKs2c3d", "Qs Js Ts 4h 5h"))
    'Royal Flush'
    >>> ge.describe(ge.evaluate_omaha(["AsKs2c3d", "7h8h9cTc"], "Qs Js Ts 6h 2d"))
    ['Royal Flush', 'Straight, Queen high']
    """
    if not registry.get(game, where="evaluate_omaha()").is_omaha:
        raise ValueError(f"game {game!r} is not an Omaha game; known: "
                         f"{', '.join(registry.names(OMAHA))}")
    inputs.check_invalid_mode(invalid)
    if backend_choice.resolve(backend, hole, board) == "cuda":
        from gpu_eval.cuda import variants as cuda_variants  # deferred: imports CuPy
        return cuda_variants.evaluate_omaha(hole, board, game=game, invalid=invalid)
    from gpu_eval.games import omaha  # deferred: its tables load on demand
    return omaha.evaluate_rows(hole, board, game, invalid, None)


@accepts_arrays("hands", "board", host_only=True)
def evaluate_low(hands, board=None, *, game: str | None = None, backend: str = "auto"):
    """8-or-better ace-to-five low strengths (0 = no qualifying low, 1..56, 56 = the wheel).

    Parameters
    ----------
    hands : str, list of str, array_like
        Without ``board``: hands of 5 to 9 cards, the low being the best of any five of them.
        With ``board``: Omaha hole cards (4 to 6 cards), the low being made of exactly two of
        them and three board cards. Text, ``(N, k)`` card ids or ``uint64`` masks.
    board : str, list of str, array_like, optional
        Omaha board cards (3 to 5), one board shared by every row or one per row.
    game : str, optional
        With a board, the Omaha game whose number of hole cards to check: 4 (``"omaha"``,
        ``"omaha-hilo"``), 5 (``"omaha5"``, ``"omaha5-hilo"``, ``"courchevel"``,
        ``"courchevel-hilo"``) or 6 (``"omaha6"``); default: any of 4..6.
    backend : {"auto", "numpy", "cuda"}
        ``"cuda"`` looks the lows up on the GPU (``kernels/equity_games.cu``, the same
        tables; NumPy out for host input). ``"auto"`` runs NumPy for host input (a lookup is
        cheaper than the transfer); CuPy input is checked and looked up on its device, CuPy
        out.

    Returns
    -------
    numpy.ndarray
        ``uint8`` low strengths, shape ``()`` for single inputs, else ``(N,)``.

    Raises
    ------
    ValueError
        Bad card text, a card used twice (in a hand, or between hole cards and board, naming
        the row), a wrong number of cards.

    Examples
    --------
    >>> import gpu_eval as ge
    >>> int(ge.evaluate_low("Ah 2d 3c 4s 5h 9c Kd"))    # the wheel
    56
    >>> ge.evaluate_low(["8h 7d 6c 5s 4h", "Ah 2d 3c 9s Th"]).tolist()   # 8-7-6-5-4; none
    [1, 0]
    >>> ge.describe_low(ge.evaluate_low("AhKd3c9s", "2c 5d 4h Qs Js"))   # A3 from the hole
    '5-4-3-2-A'
    """
    from gpu_eval.games import eight_or_better  # deferred: its tables load on demand

    backend_choice.check(backend)
    if backend != "numpy" and (is_cupy_array(hands) or is_cupy_array(board)):  # CuPy in, CuPy out
        from gpu_eval.cuda import games_module  # deferred: imports CuPy
        from gpu_eval.cuda import lowball as cuda_lows

        table, hm, bm, scalar = cuda_lows.device_low_rows(hands, board, game)
        out = games_module.low_cuda(hm, bm, table)
        return out[0] if scalar else out
    table, hm, bm, scalar = eight_or_better.low_rows(hands, board, game)
    if backend == "cuda":  # "auto" stays on NumPy: a lookup is cheaper than the transfer
        backend_choice.resolve("cuda")  # a clear error without a device
        from gpu_eval.cuda import games_module  # deferred: imports CuPy
        out = games_module.low_cuda(hm, bm, table)
    else:
        out = eight_or_better.lookup(table, hm, bm)
    return out[0] if scalar else out
