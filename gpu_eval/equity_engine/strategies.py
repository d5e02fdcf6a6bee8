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

from functools import lru_cache

from gpu_eval.equity_engine import planner
from gpu_eval.equity_engine.board_games import strategies as board_games
from gpu_eval.equity_engine.deals import strategies as deals
from gpu_eval.equity_engine.holdem import strategies as holdem
from gpu_eval.equity_engine.planner import Plan, Request, Strategy

__all__ = ["STRATEGIES", "plan", "choose", "offered"]

#: Every strategy: hold'em's (the free shortcuts first), the other board games', the deal
#: games', then the pair counting's.
STRATEGIES: list[Strategy] = [*holdem.EQUITY, *board_games.STRATEGIES, *deals.STRATEGIES,
                              *holdem.PAIRS]


def choose(req: Request) -> Strategy:
    """:func:`gpu_eval.equity_engine.planner.choose` over the strategies of :data:`STRATEGIES`
    that the request's engine offers for its kind (every other one declines it: each
    strategy answers only its own engine's requests).

    Examples
    --------
    >>> choose(Request("equity", players=["AsAhKdQc", "KQJT"], game="omaha")).name
    'game board enumeration'
    """
    return planner.choose(req, offered(tuple(STRATEGIES), req.kind, req.engine))


@lru_cache(maxsize=64)
def offered(strategies: tuple[Strategy, ...], kind: str, engine: str) -> tuple[Strategy, ...]:
    """The strategies of ``strategies`` of ``kind`` offered by the engine named ``engine``, in
    order (the list is read on every call, so a replaced :data:`STRATEGIES` is seen; the
    selection is remembered: asking a dozen strategies whether they apply is a measurable
    part of a small spot's call).

    Examples
    --------
    >>> [s.name for s in offered(tuple(STRATEGIES), "equity", "deals")]
    ['deal enumeration', 'deal monte carlo']
    """
    return tuple(s for s in strategies if s.kind == kind and s.engine.name == engine)


def plan(req: Request) -> Plan:
    """The chosen strategy's plan (:func:`choose`)."""
    return choose(req).plan(req)
