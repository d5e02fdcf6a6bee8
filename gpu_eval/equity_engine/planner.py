"""The planning framework of every equity question: requests, engines, strategies, plans, one
chooser and the in-process runner.

A :class:`Request` holds the caller's arguments, checked once, and the backend the work runs
on. Each engine (hold'em, the other board games, the board-less deal games, batches; one
folder each under :mod:`gpu_eval.equity_engine`) describes itself with an :class:`Engine`
record -- its measured rates and how many seconds ``exact=None`` may spend enumerating, per
backend -- and offers :class:`Strategy` objects: each says whether it
:meth:`~Strategy.applies`, what it would :meth:`~Strategy.cost` in seconds on the request's
backend, and how to run (:meth:`~Strategy.plan`: a :class:`Plan`, a task over spans
``[start, stop)`` of one index space plus a ``finish``). Strategies never decide:
:func:`choose` alone picks, comparing each exact strategy's cost with *its own engine's*
limit on *that backend*, and falls back on the engine's sampler, which applies to every
well-formed request. What a strategy derives from a request (the prepared problem, its
matchups, its symmetry) lives in the engine's own set-up object, built lazily and once per
request (:meth:`Request.state`), so a cheap strategy never pays for an expensive one.

The same plan runs in this process (:func:`run_here`: one span, or the plan's spans on a
thread pool) or on a Dask cluster (:mod:`gpu_eval.distributed`, many spans); tasks return
integer counts (and Monte Carlo spans follow the engines' own random blocks), so both give
the same integers.

Adding a fast path is one :class:`Strategy` subclass and one entry in the list of
:mod:`gpu_eval.equity_engine.strategies` (see ``docs/architecture.md``).

Examples
--------
>>> from gpu_eval.equity_engine.strategies import STRATEGIES
>>> req = Request("equity", players=["AhKh", "QsQd"], board="2c7d9s")
>>> choose(req, STRATEGIES).name
'known hands'
>>> r = run_here(plan(req, STRATEGIES))
>>> r.strategy, r.wins.tolist()
('known hands', [237, 753])
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, TypeVar

import numpy as np

from gpu_eval import backend_choice
from gpu_eval.equity_engine.problem import Problem, check_dealt, check_options, prepare
from gpu_eval.games import registry
from gpu_eval.games.registry import HOLDEM
from gpu_eval.once import cached_property
from gpu_eval.progress import Progress, wanted

__all__ = ["Request", "Engine", "Strategy", "Plan", "Part", "choose", "plan", "run_here",
           "backend_name", "tag", "KINDS"]

#: What a request asks: ``"equity"`` (:func:`gpu_eval.equity`), ``"pairs"`` (the counting step
#: of :func:`gpu_eval.equity_matrix` and :func:`gpu_eval.preflop_table`), ``"batch"``
#: (:func:`gpu_eval.equity_batch`).
KINDS = ("equity", "pairs", "batch")

_S = TypeVar("_S")


# ---------------------------------------------------------------------------------------------
# The request: the caller's arguments, checked once; engines derive the rest lazily.
# ---------------------------------------------------------------------------------------------

class Request:
    """One equity question.

    Parameters
    ----------
    kind : {"equity", "pairs", "batch"}
        See :data:`KINDS`. ``"pairs"`` is given by ``pairs=(pool, pairs, deck, k, base,
        work)``, ``"batch"`` by ``batch=(job, the caller's hands)``.
    players, board, dead, exact, samples, seed, game, backend, progress
        As for :func:`gpu_eval.equity` (``exact``, ``samples``, ``seed``, ``game`` and
        ``backend`` are checked here; cards by the engine that reads them).
    here : bool
        True in a single process; False for a cluster's client, which may have no GPU: the
        plan is costed for the backend the workers will use (``"cuda"`` when asked for by
        name, NumPy's figures for ``"auto"``), and each task resolves ``backend`` on its
        worker.
    pairs, batch : tuple, optional
        For ``kind="pairs"`` and ``kind="batch"``.
    what : str
        The public call, for warnings and progress bars.

    Examples
    --------
    >>> req = Request("equity", players=["AA", "KK"], board="", dead="2c")
    >>> req.record.name, req.runs_on
    ('holdem', 'numpy')
    """

    def __init__(self, kind: str, players: Sequence[Any] = (), board: Any = "",
                 dead: Any = "", exact: bool | None = None, samples: int | None = None,
                 seed: int | None = None, game: str = HOLDEM, backend: str = "auto",
                 progress: bool | None = None, *, here: bool = True,
                 pairs: tuple | None = None, batch: tuple | None = None,
                 what: str = "equity") -> None:
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {', '.join(map(repr, KINDS))}, got {kind!r}")
        self.record = registry.get(game, where=f"{what}()")
        if kind == "equity":
            check_dealt(self.record)
        if backend not in backend_choice.BACKENDS:
            raise ValueError(f"backend={backend!r}: expected one of "
                             f"{', '.join(backend_choice.BACKENDS)}")
        wanted(progress, 0.0)  # checks it: None, True or False
        self.samples = check_options(exact, samples, seed)
        self.kind, self.players, self.board, self.dead = kind, players, board, dead
        self.exact, self.seed, self.game, self.backend = exact, seed, game, backend
        self.progress, self.here, self.pairs, self.what = progress, here, pairs, what
        self.batch = batch
        #: The name of the equity engine the game calls for (``Game.engine``): the engine
        #: whose strategies answer the request (read by every strategy's ``applies``).
        self.engine: str = self.record.engine
        self._states: dict[type | int, Any] = {}
        self._runs_on: str | None = None

    @property
    def runs_on(self) -> str:
        """``"numpy"`` or ``"cuda"``: where the work runs, which decides the rates and
        limits its strategies are costed with. In one process, ``backend`` resolved here
        (``"cuda"`` without a device raises ``RuntimeError``); on a cluster's client, the
        backend named, or NumPy's figures for ``"auto"``."""
        if self._runs_on is None:
            if self.here:
                self._runs_on = backend_choice.resolve(self.backend)
            else:
                self._runs_on = "cuda" if self.backend == "cuda" else "numpy"
        return self._runs_on

    def state(self, setup: Callable[[Request], _S]) -> _S:
        """The engine set-up object ``setup(self)``, built once per request and kept: what
        the engine's strategies derive from the request (problem, matchups, symmetry)."""
        key = setup if isinstance(setup, type) else id(setup)
        out = self._states.get(key)
        if out is None:
            out = self._states[key] = setup(self)
        return out


class Setup:
    """An engine's set-up of one request (``req.state(TheSetup)``): what its strategies
    derive from the request, each part built on first use. Every engine's starts from the one
    validated :class:`~gpu_eval.equity_engine.problem.Problem` of the request.

    Examples
    --------
    >>> s = Request("equity", players=["AA", "KK"], dead="2c").state(Setup)
    >>> "problem" in s.__dict__, len(s.problem.players), "problem" in s.__dict__
    (False, 2, True)
    """

    def __init__(self, req: Request) -> None:
        self.req = req

    @cached_property
    def problem(self) -> Problem:
        """The validated problem (:func:`gpu_eval.equity_engine.problem.prepare`); bad input
        raises here."""
        r = self.req
        return prepare(r.players, r.board, r.dead, r.game)


# ---------------------------------------------------------------------------------------------
# Engines, plans and task results.
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Engine:
    """What an engine offers the chooser: its rate of work and its ``exact=None`` limit, per
    backend. Its strategies cost themselves in seconds through :meth:`seconds`;
    :func:`choose` compares an exact strategy's seconds with :meth:`exact_limit` on the
    request's backend.

    Examples
    --------
    >>> e = Engine("example", rates={"numpy": 1e8, "cuda": 2e10},
    ...            exact_seconds={"numpy": 3.0, "cuda": 2.0})
    >>> e.seconds(3e8, "numpy"), e.exact_limit("cuda")
    (3.0, 2.0)
    """

    name: str
    #: Work units per second on each backend (measured on NumPy; estimated on CUDA until a
    #: device measures it). The unit is the engine's own (evaluations plus comparisons, pair
    #: comparisons, ...), the same its strategies count.
    rates: Mapping[str, float]
    #: ``exact=None`` enumerates when an exact strategy's cost is at most this many seconds.
    exact_seconds: Mapping[str, float]

    def rate(self, backend: str) -> float:
        """Work units per second on ``backend``."""
        return self.rates[backend]

    def exact_limit(self, backend: str) -> float:
        """Seconds ``exact=None`` may spend enumerating on ``backend``."""
        return self.exact_seconds[backend]

    def seconds(self, work: float, backend: str) -> float:
        """Expected seconds of ``work`` units on ``backend``."""
        return work / self.rate(backend)

    def work_limit(self, backend: str) -> float:
        """The work ``exact=None`` enumerates on ``backend`` (limit times rate)."""
        return self.exact_limit(backend) * self.rate(backend)


@dataclass(frozen=True)
class Part:
    """A task's arrays and the engines it ran on (summed by :meth:`add`)."""

    arrays: tuple
    backends: frozenset

    @staticmethod
    def add(*parts: Part) -> Part:
        """Elementwise sum of task results (integers: order-free)."""
        if len(parts) == 1:
            return parts[0]
        arrays = tuple(sum(a[i] for a in (p.arrays for p in parts))
                       for i in range(len(parts[0].arrays)))
        return Part(arrays, frozenset().union(*(p.backends for p in parts)))

    @staticmethod
    def concat(parts: Sequence[Part]) -> Part:
        """Task results over consecutive spans, joined along their first axis."""
        if len(parts) == 1:  # one span: as it came (device arrays stay on their device)
            return parts[0]
        arrays = tuple(np.concatenate([p.arrays[i] for p in parts])
                       for i in range(len(parts[0].arrays)))
        return Part(arrays, frozenset().union(*(p.backends for p in parts)))


def backend_name(names: frozenset) -> str:
    """What a result reports for the engines its tasks used (``"cuda+numpy"``, ...).

    Examples
    --------
    >>> backend_name(frozenset({"numpy", "cuda"})), backend_name(frozenset())
    ('cuda+numpy', 'numpy')
    """
    if len(names) == 1:  # the commonest: one engine
        for name in names:
            return name
    return "+".join(sorted(names)) if names else "numpy"


@dataclass
class Plan:
    """How a strategy answers: ``task(job, start, stop, bar)`` over spans of ``range(total)``,
    combined (``"sum"`` or ``"concat"`` in span order) and passed to ``finish(part)``.

    ``total == 0`` (or ``task is None``): nothing to run, ``finish`` answers alone.
    ``align``: spans start at multiples of it (Monte Carlo spans follow the engines' random
    blocks). ``local``: the spans one process runs (default one span; the engine threads
    inside), on a thread pool when several. ``work``: work units (how a cluster sizes its
    tasks). The bar: ``bar_total()`` units of work, shown as the same fraction of
    ``bar_shown()`` units of ``bar_unit`` when given: the count the result reports (every
    matchup or board, where the work is one per suit orbit).
    """

    strategy: str
    finish: Callable[[Part], Any]
    task: Callable | None = None
    job: Any = None
    total: int = 0
    combine: str = "sum"
    align: int = 1
    local: list | None = None
    work: float = 0.0
    block: int | None = None  # default span size on a cluster (Monte Carlo)
    bar_enabled: bool = False
    bar_total: Callable[[], int] | None = None
    bar_shown: Callable[[], int] | None = None
    bar_unit: str = "boards"
    bar_what: str = ""
    backend: str = "numpy"  # what a run in this process reports

    def spans(self, size: int) -> list[tuple[int, int]]:
        """``range(total)`` in spans of ``size`` rounded up to :attr:`align`."""
        size = max(self.align, -(-int(size) // self.align) * self.align)
        return [(s, min(s + size, self.total)) for s in range(0, self.total, size)]


# ---------------------------------------------------------------------------------------------
# Strategies and the one chooser.
# ---------------------------------------------------------------------------------------------

class Strategy:
    """A way to answer a request, offered by one engine. Subclasses set :attr:`name`,
    :attr:`kind`, :attr:`exact` and :attr:`engine` and implement the three methods."""

    name = ""
    kind = "equity"
    exact = True
    engine: Engine

    def applies(self, req: Request) -> bool:  # pragma: no cover - interface
        """Whether it can answer ``req`` at all (it may raise the user's bad input)."""
        raise NotImplementedError

    def cost(self, req: Request) -> float:  # pragma: no cover - interface
        """Expected seconds on the request's backend (``req.runs_on``)."""
        raise NotImplementedError

    def plan(self, req: Request) -> Plan:  # pragma: no cover - interface
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<strategy {self.name!r}>"


def choose(req: Request, strategies: Sequence[Strategy]) -> Strategy:
    """The strategy that answers ``req``: the one decision of the planner.

    ``exact=False``: the first sampler that applies. Otherwise the cheapest exact strategy
    that applies (ties: the first in the list; a free one, cost 0, is taken at once), when
    ``exact=True`` or its cost is within its engine's limit on the request's backend
    (:meth:`Engine.exact_limit`); else the first sampler that applies.

    Raises
    ------
    ValueError
        ``exact=True`` and no exact strategy applies (the strategies raise the reason, such
        as too many matchups to list, where they know it), or no strategy applies at all.

    Examples
    --------
    >>> from gpu_eval.equity_engine.strategies import STRATEGIES
    >>> choose(Request("equity", players=["AhKh", "QsQd"]), STRATEGIES).name
    'shipped table'
    >>> choose(Request("equity", players=["QQ+,AKs", "22+,A2s+,KTs+"], dead="2c"),
    ...        STRATEGIES).name
    'rank classes'
    >>> choose(Request("equity", players=["AA", "KK"], exact=False), STRATEGIES).name
    'monte carlo'
    """
    kind = req.kind
    if req.exact is not False:
        best, best_cost = None, math.inf
        for s in strategies:
            if s.kind == kind and s.exact and s.applies(req):
                c = s.cost(req)
                if c <= 0:  # nothing is cheaper: the others need not even be set up
                    return s
                if c < best_cost:
                    best, best_cost = s, c
        if best is not None and (req.exact or best_cost <= best.engine.exact_limit(req.runs_on)):
            return best
        if req.exact:
            raise ValueError(f"exact=True: no exact method answers this {req.what}() request; "
                             f"pass exact=False (Monte Carlo)")
    for s in strategies:
        if s.kind == kind and not s.exact and s.applies(req):
            return s
    raise ValueError(f"no method answers this {req.what}() request")


def plan(req: Request, strategies: Sequence[Strategy]) -> Plan:
    """The chosen strategy's plan (:func:`choose`)."""
    return choose(req, strategies).plan(req)


# ---------------------------------------------------------------------------------------------
# The in-process runner.
# ---------------------------------------------------------------------------------------------

@lru_cache(maxsize=1)
def _pool() -> ThreadPoolExecutor:
    # Our own pool: the engines may use the package's pool inside a span, and a span waiting
    # on the pool it runs in could deadlock.
    return ThreadPoolExecutor(max_workers=os.cpu_count() or 1,
                              thread_name_prefix="gpu_eval-plan")


def run_here(p: Plan) -> Any:
    """Run a plan in this process: its local spans (one by default; several on a thread
    pool), combined, finished, tagged with the strategy's name.

    Examples
    --------
    >>> from gpu_eval.equity_engine.strategies import STRATEGIES
    >>> r = run_here(plan(Request("equity", players=["AhKh", "QQ"], board="Kd7c2h"),
    ...                   STRATEGIES))
    >>> r.strategy, r.method
    ('board enumeration', 'exact: 6 matchups x 990 boards')
    """
    if p.task is None or p.total == 0:
        return tag(p.finish(Part((), frozenset({p.backend}))), p.strategy)
    spans = p.local if p.local is not None else [(0, p.total)]
    if len(spans) == 1 and not p.bar_enabled:  # one span, no bar: the task alone
        part = p.task(p.job, *spans[0], None)
        return tag(p.finish(part), p.strategy)
    bar = Progress(p.bar_total() if p.bar_enabled and p.bar_total else 0, p.bar_what,
                   unit=p.bar_unit, enabled=p.bar_enabled,
                   shown=p.bar_shown() if p.bar_enabled and p.bar_shown else None)
    with bar:
        if len(spans) == 1:
            parts = [p.task(p.job, *spans[0], bar if p.bar_enabled else None)]
        else:  # spans on the pool; the bar advances as each finishes
            futures = {_pool().submit(p.task, p.job, a, b, None): b - a for a, b in spans}
            for f in as_completed(futures):
                if p.bar_enabled:
                    bar.update(futures[f])
            parts = [f.result() for f in futures]
    part = Part.add(*parts) if p.combine == "sum" else Part.concat(parts)
    return tag(p.finish(part), p.strategy)


def tag(result: Any, strategy: str) -> Any:
    """The result with ``strategy`` set (results of pair steps are tuples: appended)."""
    if isinstance(result, tuple):
        return (*result, strategy)
    # A result the finish just built, not yet seen by anyone: set in place (a replace() would
    # copy every field, a measurable share of the one-spot shortcut's time).
    object.__setattr__(result, "strategy", strategy)
    return result
