"""The deals engine's offer to the planner (stud, stud hi/lo, razz and the draw games): its
:class:`~gpu_eval.equity_engine.planner.Engine` record, what its strategies derive from a
request (:class:`DealSetup`), and the two strategies, ``deal enumeration`` (every deal: a
grid of the players' completions, or heads-up inclusion-exclusion over shared cards) and
``deal monte carlo``.

Examples
--------
>>> from gpu_eval.equity_engine.planner import Request, choose
>>> choose(Request("equity", players=["AhKh3c", "QsQd7h"], game="stud"), STRATEGIES).name
'deal enumeration'
>>> choose(Request("equity", players=["AhKh3c", "QsQd7h"], game="stud", exact=False),
...        STRATEGIES).name
'deal monte carlo'
"""

from __future__ import annotations

from gpu_eval.equity_engine.deals import numpy_engine as deals
from gpu_eval.equity_engine.plain_spots import plain_deal
from gpu_eval.equity_engine.planner import Engine, Part, Plan, Request, Setup, Strategy, backend_name
from gpu_eval.equity_engine.problem import DEFAULT_SAMPLES, entropy_of
from gpu_eval.once import cached_property
from gpu_eval.progress import Progress, wanted

__all__ = ["ENGINE", "STRATEGIES", "DealSetup", "deal_task"]

#: The deals engine: pair comparisons (or sorted entries) per second and ``exact=None``'s
#: limit in seconds. NumPy's exact jobs cost their measured seconds
#: (:func:`~gpu_eval.equity_engine.deals.numpy_engine.expected_seconds`); CUDA's, pairs at
#: :data:`~gpu_eval.equity_engine.deals.numpy_engine.CUDA_RATE`.
ENGINE = Engine(
    "deals",
    rates={"numpy": deals.RATE, "cuda": deals.CUDA_RATE},
    exact_seconds={"numpy": deals.EXACT_SECONDS,
                   "cuda": deals.CUDA_EXACT_LIMIT / deals.CUDA_RATE})


class DealSetup(Setup):
    """The deals set-up of one request (``req.state(DealSetup)``): the validated deal and its
    jobs, each built on first use."""

    @cached_property
    def deal(self) -> deals.DealProblem:
        """The problem as the deal engine reads it (each player's cards to come): plain
        card text read directly (:mod:`~gpu_eval.equity_engine.plain_spots`), anything else
        through the validated problem."""
        r = self.req
        fast = plain_deal(r.players, r.board, r.dead, r.record)
        if fast is not None:
            return deals.plain_problem(fast, r.record)
        return deals.deal_problem(self.problem)

    @cached_property
    def exact_job(self) -> deals.DealJob | None:
        """The cheapest exact job: on the request's backend, except that ``"auto"`` with a
        device keeps a walk on NumPy when NumPy's measured seconds are below a launch's cost
        (:data:`~gpu_eval.equity_engine.deals.numpy_engine.HOST_SECONDS`)."""
        req = self.req
        if req.runs_on == "cuda" and req.backend == "auto":
            host = deals.exact_job(self.deal, "numpy", None)
            if host is not None and host.seconds <= deals.HOST_SECONDS:
                return host
        return deals.exact_job(self.deal, req.runs_on, req.exact)

    @cached_property
    def sample_job(self) -> deals.DealJob:
        req = self.req
        n = req.samples if req.samples is not None else DEFAULT_SAMPLES
        return deals.sample_job(self.deal, n, entropy_of(req.seed), req.runs_on)


def _setup(req: Request) -> DealSetup:
    return req.state(DealSetup)


def _mine(req: Request) -> bool:
    return req.kind == "equity" and req.engine == ENGINE.name


class DealEnumeration(Strategy):
    """Stud, razz, stud hi/lo, the draw games: every deal."""

    name = "deal enumeration"
    engine = ENGINE

    def applies(self, req: Request) -> bool:
        return _mine(req) and req.exact is not False and _setup(req).exact_job is not None

    @staticmethod
    def _job(req: Request) -> deals.DealJob:
        job = _setup(req).exact_job
        assert job is not None, "applies() found it"
        return job

    def cost(self, req: Request) -> float:
        return self._job(req).seconds

    def plan(self, req: Request) -> Plan:
        return _deal_plan(self, req, self._job(req), "deals")


class DealMonteCarlo(Strategy):
    """Stud, razz, stud hi/lo, the draw games: sampled deals, in blocks of random streams."""

    name = "deal monte carlo"
    exact = False
    engine = ENGINE

    def applies(self, req: Request) -> bool:
        if not _mine(req):
            return False
        _setup(req).deal  # noqa: B018 -- bad input raises here
        return True

    def cost(self, req: Request) -> float:
        return _setup(req).sample_job.seconds

    def plan(self, req: Request) -> Plan:
        return _deal_plan(self, req, _setup(req).sample_job, "samples")


#: The deals strategies, exact first.
STRATEGIES: list[Strategy] = [DealEnumeration(), DealMonteCarlo()]


def _deal_plan(strategy: Strategy, req: Request, job: deals.DealJob, unit: str) -> Plan:
    """The plan of either deal strategy: :func:`deals.task` over the job's spans (exact
    units, or whole sample blocks), finished by :func:`deals.finish`."""
    return Plan(strategy.name, lambda part: deals.finish(job, part.arrays,
                                                         backend_name(part.backends)),
                deal_task, job, job.span, align=1 if job.exact else deals.SAMPLE_BLOCK,
                block=None if job.exact else deals.SAMPLE_BLOCK, local=job.spans(),
                work=job.work, bar_enabled=wanted(req.progress, job.seconds),
                # what deals.task counts: work units exact (comparisons), else samples
                bar_total=lambda: int(job.work) if job.exact else job.span,
                bar_shown=lambda: job.prob.deals() if job.exact else job.span, bar_unit=unit,
                bar_what=f"{req.game} {'exact' if job.exact else 'monte carlo'}",
                backend=job.backend)


def deal_task(job: deals.DealJob, start: int, stop: int, bar: Progress | None = None) -> Part:
    """One task of :mod:`deals`: exact units or sample blocks ``[start, stop)``."""
    return Part(deals.task(job, start, stop, bar), frozenset({job.backend}))  # int64 arrays
