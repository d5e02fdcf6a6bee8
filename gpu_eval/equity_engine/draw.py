"""Equity of the single-draw games: ``"deuce-seven-draw"`` (2-7 lowball), ``"badugi-draw"``
and ``"five-card-draw"`` (high).

One draw: a player's cards are the cards it keeps (0 up to the hand size: five, four in
badugi), and it draws the rest from the deck (``""`` draws a whole hand). Dead cards are the
discards and any other card known gone. There is no board. Exact walks every draw
(:mod:`gpu_eval.equity_engine.deals`): ``ge.equity(["7d5h4c3s2h", "5s4h3d2c"],
game="deuce-seven-draw", dead="Ad")`` is a pat seven against a one-card draw, 42 draws.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gpu_eval.equity_engine import deals
from gpu_eval.equity_engine import results as equity_results
from gpu_eval.games import registry

__all__ = ["equity", "GAMES", "FAMILY"]

#: The registry family of the draw games, and its games.
FAMILY = registry.DRAW
GAMES = registry.names(FAMILY)


def equity(players: Sequence[Any], board: Any = "", dead: Any = "", exact: bool | None = None,
           samples: int | None = None, seed: int | None = None,
           game: str = registry.DEUCE_SEVEN_DRAW, backend: str = "auto",
           progress: bool | None = None) -> equity_results.EquityResult:
    """Single-draw equity (what ``ge.equity(..., game="deuce-seven-draw")`` runs).

    Parameters
    ----------
    players : list of str
        2 to 8 players, each the cards it keeps (at most the hand size).
    board : str
        Must be empty.
    dead : str
        Discards and other cards known gone.
    exact, samples, seed, backend, progress
        As for :func:`gpu_eval.equity`.

    Returns
    -------
    EquityResult
        As for hold'em.

    Examples
    --------
    >>> r = equity(["7d5h4c3s2h", "5s4h3d2c"], dead="Ad")
    >>> r.method, [round(float(x), 8) for x in r.equity]
    ('exact (grid): 42 deals', [0.96428571, 0.03571429])
    """
    registry.get(game, where="draw equity()", families=(FAMILY,))
    return deals.equity(players, board, dead, exact=exact, samples=samples, seed=seed,
                        game=game, backend=backend, progress=progress)
