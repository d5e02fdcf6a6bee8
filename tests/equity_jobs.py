"""The job the planner would run for a ``gpu_eval.equity`` call: what the engine tests drive
directly (tasks over spans, finish), without deciding anything themselves."""

from __future__ import annotations

from gpu_eval.equity_engine.planner import Request
from gpu_eval.equity_engine.strategies import plan


def job_of(players, board="", dead="", **options):
    """``plan(Request("equity", ...)).job`` for ``gpu_eval.equity(players, board, dead,
    **options)``: the chosen strategy's job (an engine's exact or sampled job)."""
    return plan(Request("equity", players, board, dead, **options)).job
