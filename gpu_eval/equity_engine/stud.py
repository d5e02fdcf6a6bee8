"""Equity of seven-card stud: ``"stud"`` (high), ``"stud-hilo"`` (8-or-better) and ``"razz"``.

A player is the cards it has been dealt so far, down and up cards as one text (2 to 7); dead
cards are the up-cards of folded players (and any other card known gone). There is no board:
passing one raises. Every player is dealt up to seven cards from what is left; the best five
play (high on the hold'em scale; razz by A-5 lowball, ``gpu_eval.games.lows``; hi/lo splits
the pot with the best 8-or-better low as Omaha hi/lo does, the result carrying ``high``,
``low`` and ``scoop``). The engine is :mod:`gpu_eval.equity_engine.deals`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gpu_eval.equity_engine import deals
from gpu_eval.equity_engine import results as equity_results
from gpu_eval.games import registry

__all__ = ["equity", "GAMES"]

#: The stud games.
GAMES = registry.names(registry.STUD)


def equity(players: Sequence[Any], board: Any = "", dead: Any = "", exact: bool | None = None,
           samples: int | None = None, seed: int | None = None, game: str = registry.STUD,
           backend: str = "auto", progress: bool | None = None
           ) -> equity_results.EquityResult:
    """Stud, stud hi/lo and razz equity (what ``ge.equity(..., game="stud")`` runs).

    Parameters
    ----------
    players : list of str
        2 to 8 players (as the deck allows), each its known cards, 2 to 7.
    board : str
        Must be empty: stud has no board.
    dead : str
        Folded up-cards.
    exact, samples, seed, backend, progress
        As for :func:`gpu_eval.equity`; ``exact=None`` walks every deal when that is cheap
        (:func:`gpu_eval.equity_engine.deals.costs`), else samples.

    Returns
    -------
    EquityResult
        As for hold'em; stud hi/lo adds ``high``, ``low`` and ``scoop``.

    Examples
    --------
    >>> r = equity(["AhAcAdKhQc", "KsKcKdQhJc"], game="stud-hilo")
    >>> [round(float(x), 8) for x in r.equity], r.low.tolist()
    ([0.74956074, 0.25043926], [0.0, 0.0])
    >>> equity(["AhKh", "QsQd"], board="2c7d9s")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: 'stud' has no board ...
    """
    registry.get(game, where="stud equity()", families=(registry.STUD,))
    return deals.equity(players, board, dead, exact=exact, samples=samples, seed=seed,
                        game=game, backend=backend, progress=progress)
