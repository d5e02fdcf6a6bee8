"""Exact equity of many independent spots at once: :func:`equity_batch`.

A *spot* is one row: every player's two hole cards, the board (0, 3, 4 or 5 cards, the same
number in every row) and optionally dead cards. Simulation users have millions of them (all-in
adjustment over a hand history, the terminal nodes of a solver), and calling
:func:`gpu_eval.equity` once per spot spends most of its time in Python. Here the spots are
done together, vectorised across rows:

* **flop and turn** (2 or 1 cards to come): each row's remaining deck is taken in id order,
  every completion of the board is formed for every row of a chunk in one array operation
  (990 river-turn pairs per heads-up flop row), each player's 7-card hand is evaluated once
  per completion and the players are compared per completion;
* **river**: one evaluation per player and row;
* **preflop**: heads-up rows without dead cards are read from the shipped exact table
  (:mod:`gpu_eval.equity_engine.holdem.shipped_table`), other rows go through the exact rank-class engine, a
  few
  milliseconds each.

Rows are processed in chunks (a few hundred thousand hand evaluations at a time) on all cores,
so memory stays bounded for any number of spots. Results are the exact integers the
one-spot :func:`gpu_eval.equity` counts, and the same shares.

With ``backend="cuda"`` (or ``"auto"`` and a usable device, or CuPy input) flop, turn and
river spots run on the GPU (:mod:`gpu_eval.equity_engine.batch.cuda_engine`: a warp per spot, the same
integers);
preflop spots keep the table and rank-class path on the host.
"""

from __future__ import annotations

import math
import sys
from typing import Any, cast

import numpy as np
import numpy.typing as npt

from gpu_eval import backend_choice, card_input, cards
from gpu_eval.array_interop import accepts_arrays
from gpu_eval.card_spelling import ID_TO_MASK as _ID_TO_MASK
from gpu_eval.card_spelling import RANKS, SUITS
from gpu_eval.equity_engine.batch import spot_counts
from gpu_eval.equity_engine.batch import strategies as batch_strategies
from gpu_eval.equity_engine.batch.spot_counts import BatchResult
from gpu_eval.equity_engine.planner import Request, plan, run_here
from gpu_eval.games import registry
from gpu_eval.games.registry import HOLDEM

__all__ = ["BatchResult", "equity_batch"]

MAX_PLAYERS = 10


def _card(c: int) -> str:
    return RANKS[c // 4] + SUITS[c % 4]


def _is_cupy(x) -> bool:
    cp = sys.modules.get("cupy")
    return cp is not None and isinstance(x, cp.ndarray)


def _parse_rows(rows, what: str, per_row: int | None) -> list[list[int]]:
    """Card ids of each row of text (a string of cards per row, or a list of hand texts)."""
    out = []
    for i, row in enumerate(rows):
        texts = [row] if isinstance(row, str) else list(row)
        ids: list[int] = []
        for j, t in enumerate(texts):
            if not isinstance(t, str):
                raise TypeError(f"{what}, row {i}: expected card text, got "
                                f"{type(t).__name__}")
            try:
                got = [int(c) for c in cards.parse(t).reshape(-1)] if t.strip() else []
            except ValueError as exc:
                raise ValueError(f"{what}, row {i}: {exc}") from None
            if per_row is not None and len(got) != per_row:
                raise ValueError(f"{what}, row {i}: hand {j + 1} ({t!r}) has {len(got)} "
                                 f"cards; a hold'em hand has {per_row}")
            ids.extend(got)
        out.append(ids)
    return out


def _hands_array(hands) -> np.ndarray:
    """``(N, P, 2)`` int16 card ids from ids or N lists of hand texts."""
    if isinstance(hands, (list, tuple)) and hands and not isinstance(hands[0], str) and \
            isinstance(hands[0], (list, tuple)) and hands[0] and isinstance(hands[0][0], str):
        rows = _parse_rows(hands, "hands", 2)
        widths = {len(r) for r in rows}
        if len(widths) != 1:
            n0 = len(rows[0]) // 2
            bad = next(i for i, r in enumerate(rows) if len(r) != len(rows[0]))
            raise ValueError(f"hands, row {bad}: {len(rows[bad]) // 2} players, but row 0 has "
                             f"{n0}; every spot needs the same number of players")
        arr = np.array(rows, dtype=np.int16).reshape(len(rows), -1, 2)
    elif isinstance(hands, str):
        raise TypeError("hands must be an (N, P, 2) array of card ids or N lists of hand "
                        "texts such as [['AhKh', 'QsQd'], ...]")
    else:  # ids of any integer width (uint64 too: the shape says ids), checked before a cast
        arr = card_input.integer_array(hands, "hands")
        if arr.ndim != 3 or arr.shape[2] != 2:
            raise ValueError(f"hands must have shape (N, P, 2), got {arr.shape}")
        card_input.check_range(arr, "hands", 0, 51, axes=card_input.SPOT_AXES)
    if not 2 <= arr.shape[1] <= MAX_PLAYERS:
        raise ValueError(f"equity_batch needs 2 to {MAX_PLAYERS} players per spot, got "
                         f"{arr.shape[1]}")
    return arr.astype(np.int16)


def _board_rows(boards, n: int, sizes: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """The boards as ``(ids (N, b), masks (N,))``: one size in every row, one of ``sizes``."""
    ids, masks = card_input.card_rows(boards, n, "boards")
    if ids is None:
        rows = [card_input.card_set(t, "boards") for t in boards]
        bad = next(i for i, r in enumerate(rows) if len(r) != len(rows[0]))
        raise ValueError(f"boards, row {bad}: {len(rows[bad])} cards, but row 0 has "
                         f"{len(rows[0])}; every spot's board has the same size")
    if ids.shape[1] not in sizes:
        raise ValueError(f"boards has {ids.shape[1]} cards per spot; a hold'em board has 0, "
                         f"3, 4 or 5")
    return ids, masks


def _where_twice(hands: np.ndarray, board: np.ndarray, dead: np.ndarray | None,
                 dead_mask: int, row: int) -> str:
    """The message for a row where a card is used twice."""
    owner: dict[int, str] = {}
    places = [(int(c), f"player {p + 1}") for p in range(hands.shape[1])
              for c in hands[row, p]]
    places += [(int(c), "the board") for c in board[row]]
    if dead is not None:
        places += [(int(c), "the dead cards") for c in dead[row]]
    else:
        places += [(c, "the dead cards") for c in range(52)
                   if dead_mask & int(_ID_TO_MASK[c])]
    for c, where in places:
        if c in owner:
            both = where if where == owner[c] else f"{owner[c]} and {where}"
            return f"spot {row}: card {_card(c)} is used twice ({both})"
        owner[c] = where
    return f"spot {row}: a card is used twice"


@accepts_arrays("hands", "boards", "dead")
def equity_batch(hands: npt.ArrayLike, boards: npt.ArrayLike | None = None,
                 dead: npt.ArrayLike | None = None, game: str = HOLDEM,
                 backend: str = "auto") -> BatchResult:
    """Exact equity of many independent spots (hands, board, dead cards per row).

    Parameters
    ----------
    hands : array_like or list
        ``(N, P, 2)`` card ids (NumPy or CuPy; 2 to 10 players, the same P in every row), or
        N lists of P hand texts such as ``[["AhKh", "QsQd"], ["7c7d", "AsKs"]]``.
    boards : array_like or list, optional
        ``(N, b)`` card ids with one b in 0, 3, 4 or 5 for every row, or N texts
        (``"2c7d9h"``), or one text for all rows; None (or ``""``) for preflop.
    dead : array_like or list, optional
        Dead cards: ``(N, d)`` ids, N texts (any number of cards per row) or one text for
        all rows.
    game : str
        ``"holdem"``, vectorised as above; every other game with equity (``"shortdeck"``,
        ``"shortdeck-triton"``, ``"omaha"``, ``"omaha5"``, ``"omaha6"``, ``"omaha-hilo"``,
        ``"omaha5-hilo"``, ``"courchevel"``, ``"courchevel-hilo"``, ``"stud"``,
        ``"stud-hilo"``, ``"razz"``, ``"deuce-seven-draw"``, ``"badugi-draw"``,
        ``"five-card-draw"``) runs each spot through its own exact engine, its spots given as
        lists of each player's cards.
    backend : {"auto", "numpy", "cuda"}
        ``"cuda"`` runs flop, turn and river spots on the GPU (the same integers);
        ``"auto"`` does so for CuPy input or when a device is usable, else runs NumPy.
        Preflop spots run on the host on every backend. CuPy arrays in give CuPy arrays
        out.

    Returns
    -------
    BatchResult
        ``equity``, ``win``, ``tie`` (N, P) shares; ``wins``, ``ties`` (N, P) board counts;
        ``boards`` (N,) completions per spot; in the hi/lo games ``high``, ``low``,
        ``scoop`` (N, P) as well (None otherwise).

    Raises
    ------
    ValueError
        A bad card, a card used twice in a spot (naming the spot and both places), rows of
        different sizes, a board of 1, 2 or 6+ cards, too many cards for the deck.
    TypeError
        An argument of the wrong type.
    RuntimeError
        ``backend="cuda"`` without CuPy or a CUDA device.

    Examples
    --------
    >>> r = equity_batch([["AhKh", "QsQd"], ["AhKh", "QsQd"]], ["2c7d9h", "2c7d9s"])
    >>> r.equity.round(4).tolist(), r.wins[1].tolist(), r.boards.tolist()
    ([[0.2828, 0.7172], [0.2394, 0.7606]], [237, 753], [990, 990])
    >>> r = equity_batch([["AhKh", "QsQd"]])   # preflop, from the exact table
    >>> r.wins.tolist(), r.ties.tolist()
    ([[787966, 917606]], [[6732, 6732]])
    """
    backend_choice.check(backend)
    if _is_cupy(hands):  # work runs on the device that holds the input, results stay there
        with cast(Any, hands).device:  # a CuPy array: on its own device
            return _equity_batch(hands, boards, dead, game, backend)
    return _equity_batch(hands, boards, dead, game, backend)


def _equity_batch(hands, boards, dead, game: str, backend: str) -> BatchResult:
    if registry.get(game, where="equity_batch()").engine != HOLDEM:  # one spot at a time
        from gpu_eval.equity_engine.batch import other_games  # noqa: PLC0415
        return BatchResult(*other_games.spot_counts(hands, boards, dead, game=game,
                                                   backend=backend))
    cupy_out = _is_cupy(hands)
    h = _hands_array(hands)
    n, p = h.shape[:2]
    record = registry.get(game)
    b_ids, b_mask = _board_rows(boards, n, record.board_sizes)
    d_ids, d_mask = card_input.card_rows(dead, n, "dead")
    hole = np.zeros((n, p), dtype=np.uint64)
    for j in range(p):
        hole[:, j] = _ID_TO_MASK[h[:, j, 0]] | _ID_TO_MASK[h[:, j, 1]]
    used = np.bitwise_or.reduce(hole, axis=1) | b_mask | d_mask
    n_dead = np.bitwise_count(d_mask).astype(np.int64)
    expected = 2 * p + b_ids.shape[1] + n_dead
    bad = np.flatnonzero(np.bitwise_count(used) != expected)
    if bad.size:
        raise ValueError(_where_twice(h, b_ids, d_ids, int(d_mask[bad[0]]), int(bad[0])))
    k = record.cards_to_come(b_ids.shape[1])
    left = record.deck_size - expected
    if (left < k).any():
        i = int(np.flatnonzero(left < k)[0])
        raise ValueError(f"spot {i}: too many cards: {p} players, {b_ids.shape[1]} board and "
                         f"{int(n_dead[i])} dead cards leave {int(left[i])} for the board")

    n_boards = np.array([math.comb(int(r), k) for r in range(53)], dtype=np.int64)[left]
    job = spot_counts.SpotJob(hole, b_mask, d_mask, used, left, k, n_boards,
                              math.lcm(*range(1, p + 1)), cupy_out)
    return run_here(plan(Request("batch", backend=backend, batch=(job, hands),
                                 what="equity_batch"), batch_strategies.STRATEGIES))
