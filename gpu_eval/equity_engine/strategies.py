"""Every strategy of :func:`gpu_eval.equity` and of the pair counting of
:func:`gpu_eval.equity_matrix` / :func:`gpu_eval.preflop_table`, from every engine, in the
order ties of cost are broken; and :func:`plan`, the chosen strategy's plan.

Each engine folder offers its own list (``holdem/strategies.py``, ``board_games/``,
``deals/``); a request is answered by the one engine its game's deal shape calls for, so the
lists never compete, and :func:`~gpu_eval.equity_engine.planner.choose` decides within one.
A new fast path is a :class:`~gpu_eval.equity_engine.planner.Strategy` subclass in its
engine's ``strategies.py`` and an entry in that engine's list.

Examples
--------
>>> from gpu_eval.equity_engine.planner import Request, run_here
>>> run_here(plan(Request("equity", players=["AhKh", "QsQd"], board="2c7d9s"))).strategy
'known hands'
"""

from __future__ import annotations

from gpu_eval.equity_engine import planner
from gpu_eval.equity_engine.board_games import strategies as board_games
from gpu_eval.equity_engine.deals import strategies as deals
from gpu_eval.equity_engine.holdem import strategies as holdem
from gpu_eval.equity_engine.planner import Plan, Request, Strategy

__all__ = ["STRATEGIES", "plan", "choose"]

#: Every strategy: hold'em's (the free shortcuts first), the other board games', the deal
#: games', then the pair counting's.
STRATEGIES: list[Strategy] = [*holdem.EQUITY, *board_games.STRATEGIES, *deals.STRATEGIES,
                              *holdem.PAIRS]


def choose(req: Request) -> Strategy:
    """:func:`gpu_eval.equity_engine.planner.choose` over :data:`STRATEGIES`.

    Examples
    --------
    >>> choose(Request("equity", players=["AsAhKdQc", "KQJT"], game="omaha")).name
    'game board enumeration'
    """
    return planner.choose(req, STRATEGIES)


def plan(req: Request) -> Plan:
    """The chosen strategy's plan (:func:`choose`)."""
    return choose(req).plan(req)
