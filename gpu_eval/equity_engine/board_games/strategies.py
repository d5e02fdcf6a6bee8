"""The board-games engine's offer to the planner (Omaha 4/5/6 high and hi/lo, short deck,
Courchevel): its :class:`~gpu_eval.equity_engine.planner.Engine` record, what its strategies
derive from a request (:class:`BoardGameSetup`), and the two strategies, ``game board
enumeration`` (every board completion, one per suit orbit) and ``game monte carlo``.

The engine offers the exact job's cost on the request's backend; :func:`~gpu_eval.
equity_engine.planner.choose` decides. On a GPU an exact Omaha preflop spot costs a fraction
of a second and is enumerated; on NumPy the same spot is past the limit and sampled.

Examples
--------
>>> from gpu_eval.equity_engine.planner import Request, choose
>>> req = Request("equity", players=["AsAhKdQc", "JhTc9s8d"], board="Ac2h3s", game="omaha")
>>> choose(req, STRATEGIES).name
'game board enumeration'
>>> choose(Request("equity", players=["AsAhKdQc", "random"], game="omaha6"), STRATEGIES).name
'game monte carlo'
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from gpu_eval.equity_engine.board_games import cuda_engine
from gpu_eval.equity_engine.board_games import numpy_engine as board_games
from gpu_eval.equity_engine.planner import Engine, Part, Plan, Request, Setup, Strategy
from gpu_eval.equity_engine.problem import (
    DEFAULT_SAMPLES,
    MAX_MATCHUPS,
    Problem,
    entropy_of,
    enumerate_matchups,
    no_matchup_error,
    symmetry_group,
)
from gpu_eval.once import cached_property
from gpu_eval.progress import wanted

__all__ = ["ENGINE", "STRATEGIES", "BoardGameSetup", "game_task"]

#: The board-games engine: work units (hold'em evaluations plus comparisons, see
#: :func:`~gpu_eval.equity_engine.board_games.numpy_engine.exact_work`) per second, and
#: ``exact=None``'s limit in seconds, on each backend.
ENGINE = Engine(
    "board games",
    rates={"numpy": board_games.RATE, "cuda": cuda_engine.RATE},
    exact_seconds={"numpy": board_games.EXACT_WORK_LIMIT / board_games.RATE,
                   "cuda": cuda_engine.EXACT_SECONDS})

# The most a suit symmetry can divide the work by (the 24 permutations of four suits).
_MAX_SYMMETRY = 24


class BoardGameSetup(Setup):
    """The board-games set-up of one request (``req.state(BoardGameSetup)``), each part built
    on first use: the problem, its listed hands, matchups, symmetry and jobs."""

    @cached_property
    def matchups(self) -> tuple[Problem, tuple] | None:
        """``(the listed problem, its matchups)`` when they can be listed and are worth
        listing, else None. Raises when no matchup is possible, or ``exact=True`` cannot list
        them."""
        prob, exact = self.problem, self.req.exact
        n_boards, per_matchup = board_games.board_counts(prob)
        upper = 1
        for p in prob.players:
            upper *= p.size(prob.deck_mask)
        found = None
        # Worth listing when enumeration may be chosen: 20 times the limit bounds what the
        # suit symmetry can bring back under it, and for exact=None the exact count of the
        # matchups a "random" player makes prices the run without listing them (millions).
        if exact is not False and (exact or upper * per_matchup
                                   <= 20 * ENGINE.work_limit(self.req.runs_on)) \
                and (exact or not self._past_the_limit()):
            full = board_games.listed(prob)
            m = None if full is None else board_games.matchups(full)
            if m is None and exact:
                raise ValueError(f"exact=True: more than {MAX_MATCHUPS:,} matchups to "
                                 f"enumerate; pass exact=False for Monte Carlo")
            if full is not None and m is not None:
                found = (full, m)
        if found is None:  # some matchup must exist: a random player is dealt what is left
            listed = [p for p in prob.players if not p.any_cards]
            if math.prod(len(p.masks) for p in listed) <= 2_000_000:
                m = enumerate_matchups([p.masks for p in listed], [p.weights for p in listed],
                                       MAX_MATCHUPS)
                if m is not None and len(m[0]) == 0:
                    raise no_matchup_error(prob)
        elif len(found[1][0]) == 0:
            raise no_matchup_error(prob)
        return found

    def _past_the_limit(self) -> bool:
        """Whether the listed run would cost more than ``exact=None`` spends (as
        :class:`GameEnumeration` prices it), counted without listing a ``"random"`` player's
        matchups; False when that cannot be told cheaply (then they are listed)."""
        prob = self.problem
        n_deck = bin(prob.deck_mask).count("1")
        randoms = [p.any_cards for p in prob.players if p.any_cards]
        if not randoms or math.comb(n_deck, randoms[0]) <= 1:
            return False
        counted = _count_matchups(prob, MAX_MATCHUPS)
        if counted is None or counted[0] is None or counted[0] == 0:
            return False  # not countable, beyond the cap, or none: as listing finds
        n_pool = sum(p.size(prob.deck_mask) for p in prob.players)
        work = board_games.work_of(prob, n_pool, counted[0])
        runs_on = self.req.runs_on
        return ENGINE.seconds(work / len(self.symmetry), runs_on) > ENGINE.exact_limit(runs_on)

    @cached_property
    def symmetry(self) -> tuple[tuple[int, ...], ...]:
        """The suit symmetry group of the problem (:func:`~gpu_eval.equity_engine.problem.
        symmetry_group`)."""
        # Of the unlisted problem: the same group (a "random" player's listed hands are every
        # hand of the deck left, which each permutation keeping the known cards, board and
        # dead cards keeps), without sorting up to a million listed masks per permutation.
        return symmetry_group(self.problem)

    def _listed(self) -> tuple[Problem, tuple]:
        """:attr:`matchups`, which the exact strategies ask for only when they are listed."""
        found = self.matchups
        assert found is not None, "asked only where the matchups are listed"
        return found

    @cached_property
    def raw_work(self) -> float:
        """The exact run's work before suit symmetry."""
        full, m = self._listed()
        return board_games.exact_work(full, m)

    @cached_property
    def group(self) -> tuple[tuple[int, ...], ...]:
        self._listed()  # only asked where the matchups are listed
        return self.symmetry

    def exact_job(self) -> board_games.ExactJob:
        full, m = self._listed()
        _, per_matchup = board_games.board_counts(full)
        return board_games.ExactJob.build(full, m, per_matchup, self.group,
                                          board_games.common(full, self.req.runs_on))

    def sample_job(self) -> board_games.SampleJob:
        n = self.req.samples if self.req.samples is not None else DEFAULT_SAMPLES
        return board_games.SampleJob.build(self.problem, n, entropy_of(self.req.seed),
                                           board_games.common(self.problem,
                                                              self.req.runs_on))


def _count_matchups(prob: Problem, cap: int, most: int = 100_000
                    ) -> tuple[int | None] | None:
    """``(len(matchups),)`` of the problem with its ``"random"`` players listed, as
    :func:`~gpu_eval.equity_engine.problem.enumerate_matchups` would list them in player
    order, ``(None,)`` where it would stop at ``cap``; None when the other players' hands make
    more than ``most`` combinations (then they are listed instead).

    Per prefix of the players: every compatible combination of its listed players' hands,
    each leaving ``C(free, h) * C(free - h, h) * ...`` hands to its random players, ``free``
    the cards of the deck left that the combination does not hold."""
    import numpy as np  # noqa: PLC0415 -- light; keeps the module's imports to the planner's

    deck = np.uint64(prob.deck_mask)
    sizes = [p.size(prob.deck_mask) for p in prob.players]
    acc = np.zeros(1, dtype=np.uint64)  # the listed players' cards, per combination so far
    h_random: list[int] = []
    counts = []
    for p in prob.players:
        if p.any_cards:
            h_random.append(p.any_cards)
        else:
            rows, cols = np.nonzero((acc[:, None] & p.masks[None, :]) == 0)
            if len(rows) > most:
                return None
            acc = acc[rows] | p.masks[cols]
        free, times = np.unique(np.bitwise_count(deck & ~acc), return_counts=True)
        total = 0
        for f, t in zip(free.tolist(), times.tolist()):
            ways = 1
            for h in h_random:
                ways *= math.comb(f, h)
                f -= h
            total += t * ways
        counts.append(total)
    if len(sizes) == 2 and sizes[0] <= cap and sizes[0] * sizes[1] <= 2 * cap:
        return (None,) if counts[1] > cap else (counts[1],)
    before = 1
    for size, c in zip(sizes, counts):
        if before * size > 2 * cap or c > cap:
            return (None,)
        before = c
    return (counts[-1],)


def _setup(req: Request) -> BoardGameSetup:
    return req.state(BoardGameSetup)


def _mine(req: Request) -> bool:
    return req.kind == "equity" and req.engine == ENGINE.name


class GameEnumeration(Strategy):
    """Omaha, hi/lo, short deck, Courchevel: every board, one per suit orbit."""

    name = "game board enumeration"
    engine = ENGINE

    def applies(self, req: Request) -> bool:
        return _mine(req) and req.exact is not False and _setup(req).matchups is not None

    def cost(self, req: Request) -> float:
        st = _setup(req)
        bound = ENGINE.seconds(st.raw_work / _MAX_SYMMETRY, req.runs_on)
        if req.exact is None and bound > ENGINE.exact_limit(req.runs_on):
            return bound  # past the limit even with the largest symmetry: no need to find it
        return ENGINE.seconds(st.raw_work / len(st.group), req.runs_on)

    def plan(self, req: Request) -> Plan:
        job = _setup(req).exact_job()
        step = job.n_boards if job.backend == "cuda" else job.chunk  # the device chunks itself
        return Plan(self.name, lambda part: job.finish(part.arrays), game_task, job,
                    job.n_boards, work=job.work,
                    local=[(s, min(s + step, job.n_boards)) for s in range(0, job.n_boards, step)],
                    bar_enabled=wanted(req.progress, self.cost(req)),
                    bar_total=lambda: job.n_boards, bar_shown=lambda: job.per_matchup,
                    bar_unit="boards", bar_what=f"{req.game} exact", backend=job.backend)


class GameMonteCarlo(Strategy):
    """Omaha, hi/lo, short deck, Courchevel: sampled deals, in blocks of random streams."""

    name = "game monte carlo"
    exact = False
    engine = ENGINE

    def applies(self, req: Request) -> bool:
        if not _mine(req):
            return False
        _setup(req).matchups  # noqa: B018 -- raises when no matchup is possible
        return True

    def cost(self, req: Request) -> float:
        n = req.samples if req.samples is not None else DEFAULT_SAMPLES
        return ENGINE.seconds(n * len(_setup(req).problem.players) * 2, req.runs_on)

    def plan(self, req: Request) -> Plan:
        job = _setup(req).sample_job()
        step = job.n_samples if job.backend == "cuda" else job.block
        return Plan(self.name, lambda part: job.finish(part.arrays), game_task, job,
                    job.n_samples, align=job.block, block=job.block,
                    local=[(s, min(s + step, job.n_samples))
                           for s in range(0, job.n_samples, step)],
                    bar_enabled=wanted(req.progress, self.cost(req)),
                    bar_total=lambda: job.n_samples, bar_unit="samples",
                    bar_what=f"{req.game} monte carlo", backend=job.backend)


#: The board-games strategies, exact first.
STRATEGIES: list[Strategy] = [GameEnumeration(), GameMonteCarlo()]


def game_task(job, start: int, stop: int, bar=None) -> Part:
    """One task: a board span (exact) or sample blocks ``[start, stop)``."""
    import numpy as np  # noqa: PLC0415 -- light; keeps the module's imports to the planner's

    fn = board_games.exact_task if job.exact else board_games.sample_task
    out: Sequence[Any]
    if job.backend == "cuda":  # the device launches advance the bar as they complete
        out = fn(job, start, stop, bar)
    else:
        if job.exact:
            out = fn(job, start, stop)
        else:  # NumPy draws block by block: a span of several blocks is their sum
            size = job.block
            parts = [fn(job, s, min(s + size, stop)) for s in range(start, stop, size)]
            out = [sum(p[i] for p in parts) for i in range(len(parts[0]))]
        if bar is not None:  # the span is done
            bar.update(stop - start)
    return Part(tuple(np.asarray(a, dtype=np.int64) for a in out),
                frozenset({getattr(job, "backend", "numpy")}))
