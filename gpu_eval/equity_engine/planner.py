"""One planner for every equity question: which strategy answers it, as tasks plus a finish.

A :class:`Request` holds the caller's arguments; what a strategy needs to decide (the
prepared problem, its matchups, its suit symmetry, the engine) is derived from them lazily
and once, so a cheap strategy never pays for the set-up of an expensive one. A strategy
says whether it :meth:`~Strategy.applies`, what it would :meth:`~Strategy.cost` in seconds
(from the engines' measured rates: ``RATE``, ``EXACT_WORK_LIMIT``, ``PREFLOP_CLASS_WORK``)
and how to run: :meth:`~Strategy.plan` gives a :class:`Plan`, a task over spans
``[start, stop)`` of one index space (board completions, matchups, samples) plus a
``finish`` that turns the combined task results into the answer. :func:`choose` picks one:
the cheapest exact strategy that applies when it is cheap enough (or ``exact=True``), else
the sampler. The same plan runs in this process (:func:`run_here`: one span, or the plan's
spans on a thread pool) or on a Dask cluster (:mod:`gpu_eval.distributed`, many spans), and
because tasks return integer counts (and Monte Carlo spans follow the engines' own random
blocks) both give the same integers.

Adding a fast path is one :class:`Strategy` subclass and one entry in :data:`STRATEGIES`
(see ``docs/architecture.md``).

Examples
--------
>>> req = Request("equity", players=["AhKh", "QsQd"], board="2c7d9s")
>>> choose(req).name
'known hands'
>>> r = run_here(plan(req))
>>> r.strategy, r.wins.tolist()
('known hands', [237, 753])
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Any

import numpy as np

from gpu_eval import backend_choice
from gpu_eval.equity_engine import enumerate_boards
from gpu_eval.equity_engine.batch import spot_counts
from gpu_eval.equity_engine.holdem import matchup_orbits, numpy_engine, shipped_table
from gpu_eval.equity_engine.holdem.shortcuts import known_hands, two_ranges
from gpu_eval.equity_engine.problem import (
    MAX_MATCHUPS,
    Problem,
    cards_text,
    check_equity_game,
    check_options,
    engine_for,
    engine_setting,
    entropy_of,
    enumerate_matchups,
    expected_seconds,
    no_matchup_error,
    prepare,
    warn_long,
)
from gpu_eval.equity_engine.results import (
    EquityResult,
    exact_result,
    sampled_result,
    spot_result,
)
from gpu_eval.games import registry
from gpu_eval.games.registry import HOLDEM
from gpu_eval.progress import Progress, wanted

__all__ = ["Request", "Strategy", "Plan", "Part", "STRATEGIES", "choose", "plan", "run_here",
           "table_applies", "table_backend", "table_counts", "table_pairs", "table_equity",
           "symmetry_groups", "board_slice", "sampled_boards", "backend_name", "tag",
           "BOARD_BLOCK", "MC_BLOCK"]

#: Monte Carlo showdowns per cluster task of :func:`gpu_eval.equity` (a multiple of the NumPy
#: engine's random block, so the tasks draw the single-process samples).
MC_BLOCK = 1 << 18
#: Sampled boards per cluster task of :func:`gpu_eval.equity_matrix` and
#: :func:`gpu_eval.preflop_table` Monte Carlo (every pair is played on each board, so a task
#: is ``pairs`` times more work than its size).
BOARD_BLOCK = 1 << 12


# ---------------------------------------------------------------------------------------------
# The request: the caller's arguments, and what strategies derive from them (lazily).
# ---------------------------------------------------------------------------------------------

class Request:
    """One equity question.

    Parameters
    ----------
    kind : {"equity", "pairs", "batch"}
        ``"equity"``: :func:`gpu_eval.equity` (any game). ``"pairs"``: heads-up combo pairs
        on every board (the counting step of :func:`gpu_eval.equity_matrix` and
        :func:`gpu_eval.preflop_table`), given by ``pairs=(pool, pairs, deck, k, base, work)``.
        ``"batch"``: the spots of :func:`gpu_eval.equity_batch`, given by
        ``batch=(SpotJob, the caller's hands)``.
    players, board, dead, exact, samples, seed, game, backend, progress
        As for :func:`gpu_eval.equity` (validated here).
    here : bool
        True in a single process; False for a cluster's client, which reports the engines
        its workers used and falls back to NumPy's settings when ``backend`` does not
        resolve on the client.
    pairs : tuple, optional
        For ``kind="pairs"``.
    what : str
        The public call, for warnings and progress bars.

    Examples
    --------
    >>> req = Request("equity", players=["AA", "KK"], board="", dead="2c")
    >>> "problem" in req.__dict__   # nothing prepared yet
    False
    >>> len(req.problem.players), "problem" in req.__dict__
    (2, True)
    """

    def __init__(self, kind: str, players: Sequence[Any] = (), board: Any = "",
                 dead: Any = "", exact: bool | None = None, samples: int | None = None,
                 seed: int | None = None, game: str = HOLDEM, backend: str = "auto",
                 progress: bool | None = None, *, here: bool = True,
                 pairs: tuple | None = None, batch: tuple | None = None,
                 what: str = "equity") -> None:
        if kind not in ("equity", "pairs", "batch"):
            raise ValueError(f"kind must be 'equity', 'pairs' or 'batch', got {kind!r}")
        self.record = registry.get(game, where=f"{what}()")
        self.family = self.record.equity_family  # which equity path: hold'em's or the games'
        if self.family == HOLDEM:
            check_equity_game(game)
        elif backend not in backend_choice.BACKENDS:
            raise ValueError(f"backend={backend!r}: expected one of "
                             f"{', '.join(backend_choice.BACKENDS)}")
        self.samples = check_options(exact, samples, seed)
        self.kind, self.players, self.board, self.dead = kind, players, board, dead
        self.exact, self.seed, self.game, self.backend = exact, seed, game, backend
        self.progress, self.here, self.pairs, self.what = progress, here, pairs, what
        self.batch = batch

    # -- the engine ---------------------------------------------------------------------------
    @cached_property
    def engine(self) -> tuple[Any, str]:
        """``(engine module, backend name)`` whose settings decide (see ``here``)."""
        try:
            return engine_for(self.backend)
        except (RuntimeError, NotImplementedError):
            if self.here:
                raise
            return numpy_engine, "numpy"  # a CPU client may drive GPU workers

    @property
    def rate(self) -> float:
        """The engine's measured evaluations plus comparisons per second."""
        return getattr(self.engine[0], "RATE", numpy_engine.RATE)

    @property
    def limit_seconds(self) -> float:
        """``exact=None`` enumerates up to this many expected seconds."""
        return engine_setting(self.engine[0], "EXACT_WORK_LIMIT") / self.rate

    @property
    def numpy_here(self) -> bool:
        """Whether ``backend`` resolves to NumPy in this process (the NumPy shortcuts)."""
        return backend_choice.resolve(self.backend) == "numpy"

    # -- hold'em: the prepared problem and its matchups ---------------------------------------
    @cached_property
    def problem(self) -> Problem:
        """The validated problem (:func:`gpu_eval.equity_engine.problem.prepare`)."""
        return prepare(self.players, self.board, self.dead)

    @cached_property
    def sizes(self) -> dict:
        """Deck and board counts of the problem: boards, boards per matchup, matchups bound."""
        prob = self.problem
        r_deck = bin(prob.deck_mask).count("1")
        return dict(n_boards=math.comb(r_deck, prob.k),
                    per_matchup=math.comb(r_deck - self.record.hole_cards * len(prob.ranged),
                                          prob.k),
                    upper=math.prod(len(p.range) for p in prob.players))

    @cached_property
    def matchups(self) -> tuple[np.ndarray, np.ndarray] | None:
        """Every compatible matchup and its weight, or None when too many to list (then only
        Monte Carlo runs). Raises when no matchup is possible, or ``exact=True`` cannot list
        them."""
        prob, s = self.problem, self.sizes
        masks = [p.range.masks for p in prob.players]
        weights = [p.range.weights for p in prob.players]
        limit = engine_setting(self.engine[0], "EXACT_WORK_LIMIT")
        found = None
        if self.exact is not False and (self.exact or s["upper"] * s["per_matchup"]
                                        <= 20 * limit):
            found = enumerate_matchups(masks, weights, MAX_MATCHUPS)
            if found is None and self.exact:
                raise ValueError(f"exact=True: more than {MAX_MATCHUPS:,} matchups to "
                                 f"enumerate; pass exact=False for Monte Carlo")
        elif s["upper"] <= 2_000_000:  # cheap to check that some matchup exists at all
            found = enumerate_matchups(masks, weights, MAX_MATCHUPS)
        if found is not None and len(found[0]) == 0:
            raise no_matchup_error(prob)
        return found

    @cached_property
    def pool(self) -> tuple[np.ndarray, np.ndarray]:
        """``(pool, pool_idx)``: the distinct hole-card masks, each matchup's pool rows."""
        prob = self.problem
        idx, _ = self.matchups
        pool, inverse = np.unique(np.concatenate([p.range.masks for p in prob.players]),
                                  return_inverse=True)
        offsets = np.cumsum([0] + [len(p.range) for p in prob.players[:-1]])
        return pool, inverse[idx + offsets[None, :]]

    @cached_property
    def group(self) -> tuple[tuple[int, ...], ...]:
        """The suit permutations that map the problem onto itself."""
        return symmetry_groups(self.problem)

    @cached_property
    def board_work(self) -> float:
        """Evaluations plus comparisons of enumerating every board, over the symmetry."""
        s = self.sizes
        n_pool = len(np.unique(np.concatenate([p.range.masks for p in self.problem.players])))
        work = n_pool * s["n_boards"] + len(self.matchups[0]) * s["per_matchup"]
        return work / len(self.group)

    @cached_property
    def matchup_orbits(self) -> tuple[np.ndarray, np.ndarray]:
        """``(representatives, orbit of each matchup)`` under the suit permutations that keep
        the board and dead cards (:mod:`gpu_eval.equity_engine.holdem.matchup_orbits`)."""
        pool, pool_idx = self.pool
        prob = self.problem
        return matchup_orbits.orbits(pool, pool_idx, [prob.board_mask, prob.dead_mask])

    @cached_property
    def known_hands(self) -> tuple | None:
        """The known-hands shortcut's counts (:mod:`gpu_eval.equity_engine.holdem.shortcuts.known_hands`)."""
        return known_hands.counts(self.players, self.board, self.dead)

    @cached_property
    def two_ranges(self) -> tuple | None:
        """The two-ranges shortcut's counts (:mod:`gpu_eval.equity_engine.holdem.shortcuts.two_ranges`)."""
        return two_ranges.counts(self.players, self.board, self.dead)

    @cached_property
    def game_job(self) -> Any:
        """The other games' exact or sampled job (:func:`board_games.plan`)."""
        from gpu_eval.equity_engine.board_games import numpy_engine as board_games  # noqa: PLC0415 -- hold'em never loads it

        return board_games.plan(self.players, self.board, self.dead, exact=self.exact,
                                samples=self.samples, seed=self.seed, game=self.game,
                                backend=self.backend)

    @cached_property
    def deal_job(self) -> Any:
        """The board-less games' exact or sampled job (:func:`deals.plan`: stud, razz, the
        draw games)."""
        from gpu_eval.equity_engine.deals import numpy_engine as deals  # noqa: PLC0415 -- hold'em never loads it

        return deals.plan(self.players, self.board, self.dead, exact=self.exact,
                          samples=self.samples, seed=self.seed, game=self.game,
                          backend=self.backend)

    @property
    def labels_board_dead(self) -> dict:
        prob = self.problem
        return dict(labels=tuple(p.label for p in prob.players),
                    board=cards_text(prob.board) if prob.board else "",
                    dead=cards_text(prob.dead) if prob.dead else "")


# ---------------------------------------------------------------------------------------------
# Plans and task results.
# ---------------------------------------------------------------------------------------------

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
    """What a result reports for the engines its tasks used (``"cuda+numpy"``, ...)."""
    return "+".join(sorted(names)) if names else "numpy"


@dataclass
class Plan:
    """How a strategy answers: ``task(job, start, stop, bar)`` over spans of ``range(total)``,
    combined (``"sum"`` or ``"concat"`` in span order) and passed to ``finish(part)``.

    ``total == 0`` (or ``task is None``): nothing to run, ``finish`` answers alone.
    ``align``: spans start at multiples of it (Monte Carlo spans follow the engines' random
    blocks). ``local``: the spans one process runs (default one span; the engine threads
    inside), on a thread pool when several. ``work``: evaluations plus comparisons (how a
    cluster sizes its tasks). The bar: ``bar_total()`` units of work, shown as the same
    fraction of ``bar_shown()`` units of ``bar_unit`` when given: the count the result reports
    (every matchup or board, where the work is one per suit orbit).
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
# Strategies.
# ---------------------------------------------------------------------------------------------

class Strategy:
    """A way to answer a request. Subclasses set :attr:`name`, :attr:`kind`, :attr:`exact`
    and implement the three methods."""

    name = ""
    kind = "equity"
    exact = True

    def applies(self, req: Request) -> bool:  # pragma: no cover - interface
        raise NotImplementedError

    def cost(self, req: Request) -> float:  # pragma: no cover - interface
        """Expected seconds on the request's engine."""
        raise NotImplementedError

    def plan(self, req: Request) -> Plan:  # pragma: no cover - interface
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<strategy {self.name!r}>"


def _holdem_exact(req: Request) -> bool:
    return req.kind == "equity" and req.family == HOLDEM and req.exact is not False


class ShippedTable(Strategy):
    """Heads-up preflop without dead cards: the shipped table (:mod:`shipped_table`)."""

    name = "shipped table"

    def applies(self, req: Request) -> bool:
        if not _holdem_exact(req) or req.samples is not None:
            return False
        prob = req.problem
        return table_applies(req.exact, req.samples, len(prob.players), prob.k, prob.dead,
                             req.progress)

    def cost(self, req: Request) -> float:
        return 0.0

    def plan(self, req: Request) -> Plan:
        name = table_backend(req.backend) if req.here else _client_table_backend(req.backend)
        return Plan(self.name, lambda part: table_equity(req.problem, req.backend, name),
                    backend=name)


class KnownHands(Strategy):
    """Every hand known, after the flop, on NumPy: :mod:`known_hands` in one pass."""

    name = "known hands"

    def applies(self, req: Request) -> bool:
        if not _holdem_exact(req) or req.samples is not None or not req.numpy_here:
            return False
        fast = req.known_hands
        if fast is None:
            return False
        return not wanted(req.progress, expected_seconds(len(req.players) * fast[-3],
                                                         numpy_engine))

    def cost(self, req: Request) -> float:
        return 0.0

    def plan(self, req: Request) -> Plan:
        def finish(_: Part) -> EquityResult:
            wins, ties, units, _v, scale, per, b, d = req.known_hands
            if req.exact:
                warn_long(len(req.players) * per, "equity", numpy_engine)
            return spot_result(wins[0], ties[0], units[0], scale, per,
                               labels=tuple(req.players), backend="numpy",
                               board=cards_text(b), dead=cards_text(d) if d else "")
        return Plan(self.name, finish)


class TwoRanges(Strategy):
    """Two ranges on the turn or river, on NumPy: :mod:`two_ranges`'s grid."""

    name = "two ranges"

    def applies(self, req: Request) -> bool:
        if not _holdem_exact(req) or req.samples is not None or req.progress is True \
                or not req.numpy_here or req.known_hands is not None:
            return False
        return req.two_ranges is not None

    def cost(self, req: Request) -> float:
        return 0.0

    def plan(self, req: Request) -> Plan:
        def finish(_: Part) -> EquityResult:
            wins, ties, units, valid, scale, w, per, labels, b, d = req.two_ranges
            return exact_result(wins, ties, units, valid, scale, w, per, labels=labels,
                                backend="numpy", board=cards_text(b),
                                dead=cards_text(d) if d else "")
        return Plan(self.name, finish)


class BoardEnumeration(Strategy):
    """Every matchup on every board completion, one board per suit orbit."""

    name = "board enumeration"

    def applies(self, req: Request) -> bool:
        return _holdem_exact(req) and req.matchups is not None

    def cost(self, req: Request) -> float:
        return req.board_work / req.rate

    def plan(self, req: Request) -> Plan:
        prob, eng = req.problem, req.engine[0]
        pool, pool_idx = req.pool
        if req.exact:
            warn_long(req.board_work, "equity", eng)
        job = BoardJob(pool, pool_idx, prob.deck_mask, prob.k, prob.board_mask, req.group,
                       req.backend)
        w, per = req.matchups[1], req.sizes["per_matchup"]
        common = req.labels_board_dead

        def finish(part: Part) -> EquityResult:
            wins, ties, units, valid = part.arrays
            return exact_result(wins, ties, units, valid, numpy_engine.pot_units(
                len(prob.players)), w, per, backend=_reported(req, part), **common)

        return Plan(self.name, finish, board_task, job, req.sizes["n_boards"],
                    work=req.board_work,
                    bar_enabled=wanted(req.progress, expected_seconds(req.board_work, eng)),
                    bar_total=lambda: sum(len(b) for b, _ in enumerate_boards.
                                          symmetric_completions(job.deck_mask, job.k,
                                                                job.group)),
                    bar_shown=lambda: per, bar_what="equity (exact)", backend=req.engine[1])


class RankClasses(Strategy):
    """Preflop: each matchup (one per suit orbit) over boards grouped by rank class."""

    name = "rank classes"

    def applies(self, req: Request) -> bool:
        return _holdem_exact(req) and req.problem.k == 5 and req.matchups is not None \
            and hasattr(numpy_engine, "preflop_counts")

    def cost(self, req: Request) -> float:
        return len(req.matchup_orbits[0]) * numpy_engine.PREFLOP_CLASS_WORK / req.rate

    def plan(self, req: Request) -> Plan:
        prob, eng = req.problem, req.engine[0]
        pool, pool_idx = req.pool
        reps, orbit = req.matchup_orbits
        work = len(reps) * numpy_engine.PREFLOP_CLASS_WORK
        if req.exact:
            warn_long(work, "equity", eng)
        job = RankClassJob(pool, pool_idx[reps], prob.deck_mask, req.backend)
        w, per = req.matchups[1], req.sizes["per_matchup"]
        common = req.labels_board_dead

        def finish(part: Part) -> EquityResult:
            wins, ties, units, valid = (a[orbit] for a in part.arrays)
            return exact_result(wins, ties, units, valid, numpy_engine.pot_units(
                len(prob.players)), w, per, backend=_reported(req, part), **common)

        return Plan(self.name, finish, rank_class_task, job, len(reps), combine="concat",
                    work=work, bar_enabled=wanted(req.progress, expected_seconds(work, eng)),
                    # as the result reports it: matchups, or one matchup's boards
                    bar_total=lambda: len(reps),
                    bar_shown=lambda: len(w) if len(w) > 1 else per,
                    bar_unit="matchups" if len(w) > 1 else "boards",
                    bar_what="equity (exact)", backend=req.engine[1])


class MonteCarlo(Strategy):
    """Sampled matchups on sampled boards, in the engine's random blocks."""

    name = "monte carlo"
    exact = False

    def applies(self, req: Request) -> bool:
        if req.kind != "equity" or req.family != HOLDEM:
            return False
        req.matchups  # noqa: B018 -- raises when no matchup is possible
        return True

    def n_samples(self, req: Request) -> int:
        return req.samples if req.samples is not None else engine_setting(
            req.engine[0], "DEFAULT_SAMPLES")

    def cost(self, req: Request) -> float:
        return self.n_samples(req) * len(req.problem.players) * 2 / req.rate

    def plan(self, req: Request) -> Plan:
        prob = req.problem
        n, n_samples, entropy = len(prob.players), self.n_samples(req), entropy_of(req.seed)
        # A "random" player (every combo left, equal weights) is dealt from the deck instead.
        n_any = math.comb(bin(prob.deck_mask).count("1"), 2)
        dealt = [not p.fixed and len(p.range) == n_any
                 and bool(np.all(p.range.weights == p.range.weights[0])) for p in prob.players]
        job = SampleJob([p.range.masks for p in prob.players],
                        [None if p.fixed else np.cumsum(p.range.weights) for p in prob.players],
                        dealt, prob.deck_mask, prob.board_mask, prob.k, entropy, req.backend)
        common = req.labels_board_dead

        def finish(part: Part) -> EquityResult:
            wins, ties, units, units_sq = part.arrays
            return sampled_result(wins, ties, units, units_sq, n, n_samples, entropy,
                                  backend=_reported(req, part), **common)

        return Plan(self.name, finish, sample_task, job, n_samples,
                    align=numpy_engine.SAMPLE_BLOCK, block=MC_BLOCK,
                    work=n_samples * n * 2.0,
                    bar_enabled=wanted(req.progress, expected_seconds(n_samples * n * 2,
                                                                      req.engine[0])),
                    bar_total=lambda: n_samples, bar_unit="samples",
                    bar_what="equity (monte carlo)", backend=req.engine[1])


class GameEnumeration(Strategy):
    """Omaha, hi/lo, short deck: every board (:mod:`board_games`'s exact tasks)."""

    name = "game board enumeration"

    def applies(self, req: Request) -> bool:
        return req.kind == "equity" and req.family == "games" and req.game_job.exact

    def cost(self, req: Request) -> float:
        return req.game_job.work / numpy_engine.RATE

    def plan(self, req: Request) -> Plan:
        job = req.game_job
        step = job.n_boards if job.backend == "cuda" else job.chunk  # the device chunks itself
        return Plan(self.name, lambda part: job.finish(part.arrays), game_task, job,
                    job.n_boards, work=job.work,
                    local=[(s, min(s + step, job.n_boards)) for s in range(0, job.n_boards, step)],
                    bar_enabled=wanted(req.progress, self.cost(req)),
                    bar_total=lambda: job.n_boards, bar_shown=lambda: job.per_matchup,
                    bar_unit="boards", bar_what=f"{req.game} exact", backend=job.backend)


class GameMonteCarlo(Strategy):
    """Omaha, hi/lo, short deck: sampled deals (:mod:`board_games`'s sample blocks)."""

    name = "game monte carlo"
    exact = False

    def applies(self, req: Request) -> bool:
        return req.kind == "equity" and req.family == "games" and not req.game_job.exact

    def cost(self, req: Request) -> float:
        return req.game_job.n_samples * len(req.game_job.sides) * 2 / numpy_engine.RATE

    def plan(self, req: Request) -> Plan:
        job = req.game_job
        step = job.n_samples if job.backend == "cuda" else job.block
        return Plan(self.name, lambda part: job.finish(part.arrays), game_task, job,
                    job.n_samples, align=job.block, block=job.block,
                    local=[(s, min(s + step, job.n_samples))
                           for s in range(0, job.n_samples, step)],
                    bar_enabled=wanted(req.progress, self.cost(req)),
                    bar_total=lambda: job.n_samples, bar_unit="samples",
                    bar_what=f"{req.game} monte carlo", backend=job.backend)


class DealEnumeration(Strategy):
    """Stud, razz, stud hi/lo, the draw games: every deal (:mod:`deals`: a grid of the
    players' completions, or heads-up inclusion-exclusion over shared cards)."""

    name = "deal enumeration"

    def applies(self, req: Request) -> bool:
        return req.kind == "equity" and req.family == "deals" and req.deal_job.exact

    def cost(self, req: Request) -> float:
        return _deal_seconds(req)

    def plan(self, req: Request) -> Plan:
        return _deal_plan(self, req, "deals")


class DealMonteCarlo(Strategy):
    """Stud, razz, stud hi/lo, the draw games: sampled deals (:mod:`deals`' blocks)."""

    name = "deal monte carlo"
    exact = False

    def applies(self, req: Request) -> bool:
        return req.kind == "equity" and req.family == "deals" and not req.deal_job.exact

    def cost(self, req: Request) -> float:
        return _deal_seconds(req)

    def plan(self, req: Request) -> Plan:
        return _deal_plan(self, req, "samples")


def _deal_seconds(req: Request) -> float:
    """Expected seconds of the deal job, from its backend's measured (NumPy) or estimated
    (CUDA) rates (:mod:`deals`)."""
    return req.deal_job.seconds


def _deal_plan(strategy: Strategy, req: Request, unit: str) -> Plan:
    """The plan of either deal strategy: :func:`deals.task` over the job's spans (exact
    units, or whole sample blocks), finished by :func:`deals.finish`."""
    from gpu_eval.equity_engine.deals import numpy_engine as deals  # noqa: PLC0415 -- hold'em never loads it

    job = req.deal_job
    spans = job.spans()
    return Plan(strategy.name, lambda part: deals.finish(job, part.arrays,
                                                         backend_name(part.backends)),
                deal_task, job, job.span, align=1 if job.exact else deals.SAMPLE_BLOCK,
                block=None if job.exact else deals.SAMPLE_BLOCK, local=spans,
                work=job.work, bar_enabled=wanted(req.progress, strategy.cost(req)),
                # what deals.task counts: work units exact (comparisons), else samples
                bar_total=lambda: int(job.work) if job.exact else job.span,
                bar_shown=lambda: job.prob.deals() if job.exact else job.span, bar_unit=unit,
                bar_what=f"{req.game} {'exact' if job.exact else 'monte carlo'}",
                backend=job.backend)


class SpotsOnDevice(Strategy):
    """:func:`gpu_eval.equity_batch` flop, turn and river spots on the GPU
    (:mod:`gpu_eval.equity_engine.batch.cuda_engine`: a warp per spot, the host's integers)."""

    name = "spots on device"
    kind = "batch"

    def applies(self, req: Request) -> bool:
        job, hands = req.batch
        return job.k < 5 and len(job.hole) > 0 \
            and backend_choice.resolve(req.backend, hands) == "cuda"

    def cost(self, req: Request) -> float:
        return 0.0

    def plan(self, req: Request) -> Plan:
        job = req.batch[0]

        def finish(part: Part) -> Any:
            wins, ties, units = part.arrays
            n_boards = job.n_boards
            if job.cupy_out:
                import cupy  # noqa: PLC0415 -- the input was already a CuPy array

                n_boards = cupy.asarray(n_boards)
            return spot_counts.batch_result(wins, ties, units, n_boards, job.scale, "cuda",
                                            job.method)

        return Plan(self.name, finish, device_spot_task, job, len(job.hole), combine="concat",
                    backend="cuda")


class SpotsOnHost(Strategy):
    """:func:`gpu_eval.equity_batch` on NumPy: preflop rows from the shipped table (or by
    rank class), later streets every completion of each row at once."""

    name = "spots on host"
    kind = "batch"

    def applies(self, req: Request) -> bool:
        return True

    def cost(self, req: Request) -> float:
        return 0.0

    def plan(self, req: Request) -> Plan:
        job = req.batch[0]
        if job.k == 5 and req.backend == "cuda":  # preflop runs on the host; "cuda" checks
            backend_choice.resolve(req.backend)

        def finish(part: Part) -> Any:
            wins, ties, units = part.arrays
            res = spot_counts.batch_result(wins, ties, units, job.n_boards, job.scale,
                                           "numpy", job.method)
            if job.cupy_out:
                import cupy  # noqa: PLC0415 -- the input was already a CuPy array

                res = spot_counts.BatchResult(
                    *[cupy.asarray(a) for a in (res.equity, res.win, res.tie, res.tie_share,
                                                res.wins, res.ties, res.boards)],
                    backend=res.backend, method=res.method)
            return res

        return Plan(self.name, finish, host_spot_task, job, len(job.hole), combine="concat")


class PairTable(Strategy):
    """Heads-up combo pairs preflop without dead cards: the shipped table."""

    name = "shipped table"
    kind = "pairs"

    def applies(self, req: Request) -> bool:
        k, deck = req.pairs[3], req.pairs[2]
        return table_applies(req.exact, req.samples, 2, k, deck != enumerate_boards.FULL_DECK,
                             req.progress)

    def cost(self, req: Request) -> float:
        return 0.0

    def plan(self, req: Request) -> Plan:
        name = table_backend(req.backend) if req.here else _client_table_backend(req.backend)
        pool, pairs = req.pairs[:2]
        return Plan(self.name, lambda part: table_pairs(pool, pairs, name,
                                                        matrix=req.what == "equity_matrix"),
                    backend=name)


class PairEnumeration(Strategy):
    """Heads-up combo pairs on every board completion."""

    name = "board enumeration"
    kind = "pairs"

    def applies(self, req: Request) -> bool:
        return req.exact is not False

    def cost(self, req: Request) -> float:
        return req.pairs[5] / req.rate

    def plan(self, req: Request) -> Plan:
        pool, pairs, deck, k, base, work = req.pairs
        eng = req.engine[0]
        if req.exact:
            warn_long(work, req.what, eng)
        job = PairJob(pool, pairs, deck, k, base, None, req.backend)

        def finish(part: Part) -> tuple:
            return (_counts(part), None, None, None, _reported(req, part))

        n = enumerate_boards.count(deck, k)
        per_pair = math.comb(bin(deck).count("1") - 4, k)  # the boards each pair is played on
        return Plan(self.name, finish, pair_task, job, n, work=work,
                    bar_enabled=wanted(req.progress, expected_seconds(work, eng)),
                    bar_total=lambda: n, bar_shown=lambda: per_pair,
                    bar_what=f"{req.what} (exact)",
                    backend=req.engine[1])


class PairMonteCarlo(Strategy):
    """Heads-up combo pairs on sampled boards (one stream; a cluster plays slices)."""

    name = "monte carlo"
    kind = "pairs"
    exact = False

    def applies(self, req: Request) -> bool:
        return True

    def n_samples(self, req: Request) -> int:
        return req.samples if req.samples is not None else engine_setting(
            req.engine[0], "DEFAULT_TABLE_SAMPLES")

    def cost(self, req: Request) -> float:
        pool, pairs, deck, k, base, work = req.pairs
        return work * self.n_samples(req) / max(enumerate_boards.count(deck, k), 1) / req.rate

    def plan(self, req: Request) -> Plan:
        pool, pairs, deck, k, base, work = req.pairs
        n_used, entropy = self.n_samples(req), entropy_of(req.seed)
        job = PairJob(pool, pairs, deck, k, base, entropy, req.backend, n_used)
        method = f"monte carlo: {n_used:,} sampled boards"

        def finish(part: Part) -> tuple:
            return (_counts(part), n_used, method, entropy, _reported(req, part))

        return Plan(self.name, finish, pair_task, job, n_used, block=BOARD_BLOCK,
                    work=self.cost(req) * req.rate,
                    bar_enabled=wanted(req.progress, self.cost(req)), bar_total=lambda: n_used,
                    bar_what=f"{req.what} (monte carlo)", backend=req.engine[1])


#: Every strategy, in the order ties of cost are broken (first wins; the free shortcuts
#: first, cheapest to rule out first: the two NumPy shortcuts read plain text without the
#: set-up the others need). A new fast path is a :class:`Strategy` subclass and an entry here.
STRATEGIES: list[Strategy] = [KnownHands(), TwoRanges(), ShippedTable(), BoardEnumeration(),
                              RankClasses(), MonteCarlo(), GameEnumeration(), GameMonteCarlo(),
                              DealEnumeration(), DealMonteCarlo(),
                              PairTable(), PairEnumeration(), PairMonteCarlo(),
                              SpotsOnDevice(), SpotsOnHost()]


def choose(req: Request, strategies: Sequence[Strategy] | None = None) -> Strategy:
    """The strategy that answers ``req``.

    ``exact=False``: the first sampler that applies. Otherwise the cheapest exact strategy
    that applies (ties: the first in the list), when ``exact=True`` or its cost is within
    the engine's limit (:attr:`Request.limit_seconds`); else the first sampler.

    Examples
    --------
    >>> choose(Request("equity", players=["AhKh", "QsQd"])).name
    'shipped table'
    >>> choose(Request("equity", players=["QQ+,AKs", "22+,A2s+,KTs+"], dead="2c")).name
    'rank classes'
    >>> choose(Request("equity", players=["AA", "KK"], exact=False)).name
    'monte carlo'
    """
    mine = STRATEGIES if strategies is None else strategies
    if req.exact is not False:
        best, best_cost = None, math.inf
        for s in mine:
            if s.kind == req.kind and s.exact and s.applies(req):
                c = s.cost(req)
                if c <= 0:  # nothing is cheaper: the others need not even be set up
                    return s
                if c < best_cost:
                    best, best_cost = s, c
        if best is not None and (req.exact or best_cost <= req.limit_seconds):
            return best
    for s in mine:
        if s.kind == req.kind and not s.exact and s.applies(req):
            return s
    raise ValueError(f"no strategy answers this {req.kind} request")  # pragma: no cover


def plan(req: Request, strategies: Sequence[Strategy] | None = None) -> Plan:
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
    >>> r = run_here(plan(Request("equity", players=["AhKh", "QQ"], board="Kd7c2h")))
    >>> r.strategy, r.method
    ('board enumeration', 'exact: 6 matchups x 990 boards')
    """
    if p.task is None or p.total == 0:
        return tag(p.finish(Part((), frozenset({p.backend}))), p.strategy)
    spans = p.local if p.local is not None else [(0, p.total)]
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


def _reported(req: Request, part: Part) -> str:
    return req.engine[1] if req.here else backend_name(part.backends)


def _counts(part: Part) -> numpy_engine.Counts:
    wins, ties, units, valid = part.arrays
    return numpy_engine.Counts(wins, ties, units, valid, numpy_engine.pot_units(2))


# ---------------------------------------------------------------------------------------------
# Tasks (module level: they travel to cluster workers).
# ---------------------------------------------------------------------------------------------

def board_slice(deck_mask: int, k: int, start: int, stop: int) -> np.ndarray:
    """Board completions ``[start, stop)`` of a deck in colex order (the whole list cached).

    Examples
    --------
    >>> int(board_slice(enumerate_boards.FULL_DECK, 5, 0, 3)[0]) == int(
    ...     enumerate_boards.completions(enumerate_boards.FULL_DECK, 5)[0])
    True
    """
    from gpu_eval import combinatorics  # noqa: PLC0415 -- a foundation, light

    if start == 0 and stop == enumerate_boards.count(deck_mask, k):
        return enumerate_boards.completions(deck_mask, k)
    return combinatorics.colex_masks(enumerate_boards.deck_values(deck_mask), k, start, stop)


@dataclass(frozen=True)
class BoardJob:
    pool: np.ndarray
    matchups: np.ndarray
    deck_mask: int
    k: int
    base: int
    group: tuple
    backend: str


def board_task(job: BoardJob, start: int, stop: int, bar: Progress | None = None) -> Part:
    """Counts of every matchup on completions ``[start, stop)``, orbit-weighted."""
    eng, name = engine_for(job.backend)
    if start == 0 and stop == enumerate_boards.count(job.deck_mask, job.k):
        parts = enumerate_boards.symmetric_completions(job.deck_mask, job.k, job.group)
    else:
        parts = enumerate_boards.orbit_representatives(
            board_slice(job.deck_mask, job.k, start, stop), job.group)
    m, n = job.matchups.shape
    if len(parts) == 1 and parts[0][1] == 1:  # no symmetry: the counts as they come
        c = eng.showdown_counts(job.pool, job.matchups, parts[0][0], base=job.base,
                                progress=bar)
        return Part((c.wins, c.ties, c.units, c.valid), frozenset({name}))
    acc = [np.zeros((m, n), np.int64), np.zeros((m, n), np.int64),
           np.zeros((m, n), np.int64), np.zeros(m, np.int64)]
    for boards, mult in parts:
        if len(boards):
            c = eng.showdown_counts(job.pool, job.matchups, boards, base=job.base,
                                    progress=bar)
            for a, v in zip(acc, (c.wins, c.ties, c.units, c.valid)):
                a += mult * v
    return Part(tuple(acc), frozenset({name}))


@dataclass(frozen=True)
class RankClassJob:
    pool: np.ndarray
    matchups: np.ndarray  # one per suit orbit
    deck_mask: int
    backend: str


def rank_class_task(job: RankClassJob, start: int, stop: int,
                    bar: Progress | None = None) -> Part:
    """Preflop counts of matchups ``[start, stop)`` by rank class (NumPy's tables; the
    integers every engine gives)."""
    eng, name = engine_for(job.backend)
    by_class = getattr(eng, "preflop_counts", numpy_engine.preflop_counts)
    c = by_class(job.pool, job.matchups[start:stop], job.deck_mask, progress=bar)
    return Part((c.wins, c.ties, c.units, c.valid), frozenset({name}))


@dataclass(frozen=True)
class SampleJob:
    holes: list
    cum: list
    dealt: list
    deck_mask: int
    base: int
    k: int
    entropy: int
    backend: str


def sample_task(job: SampleJob, start: int, stop: int, bar: Progress | None = None) -> Part:
    """Monte Carlo showdowns ``[start, stop)`` of one run (its random blocks are global)."""
    eng, name = engine_for(job.backend)
    out = eng.sample_counts(job.holes, job.cum, job.deck_mask, job.base, job.k, stop - start,
                            job.entropy, dealt=job.dealt, first=start, progress=bar)
    return Part(tuple(np.asarray(a, dtype=np.int64) for a in out), frozenset({name}))


@dataclass(frozen=True)
class PairJob:
    pool: np.ndarray
    pairs: np.ndarray
    deck_mask: int
    k: int
    base: int
    entropy: int | None  # None: exact (board slices); else sampled boards
    backend: str
    n_samples: int = 0  # Monte Carlo: boards in the whole run


@lru_cache(maxsize=2)
def sampled_boards(entropy: int, n: int, deck_mask: int, k: int) -> np.ndarray:
    """The ``n`` boards a Monte Carlo pair run samples (one stream, ``SeedSequence(entropy)``);
    a task plays a slice of them, so any split gives the one-process integers.

    Examples
    --------
    >>> len(sampled_boards(1, 10, enumerate_boards.FULL_DECK, 5))
    10
    """
    rng = np.random.default_rng(np.random.SeedSequence(entropy))
    out = enumerate_boards.sample(rng, n, deck_mask, k)
    out.flags.writeable = False
    return out


def pair_task(job: PairJob, start: int, stop: int, bar: Progress | None = None) -> Part:
    """Exact: completions ``[start, stop)``. Monte Carlo: sampled boards ``[start, stop)``
    of :func:`sampled_boards`."""
    eng, name = engine_for(job.backend)
    c = None
    if job.entropy is None:
        n = enumerate_boards.count(job.deck_mask, job.k)
        if start == 0 and stop == n and job.k == 5 and job.deck_mask == \
                enumerate_boards.FULL_DECK and hasattr(eng, "preflop_pair_counts"):
            c = eng.preflop_pair_counts(job.pool, job.pairs, progress=bar)  # the GPU matrix
        boards = None if c is not None else board_slice(job.deck_mask, job.k, start, stop)
    else:
        boards = sampled_boards(job.entropy, job.n_samples, job.deck_mask, job.k)[start:stop]
    if c is None:
        c = eng.showdown_counts(job.pool, job.pairs, boards, base=job.base, progress=bar)
    return Part((c.wins, c.ties, c.units, c.valid), frozenset({name}))


def host_spot_task(job: Any, start: int, stop: int, bar: Progress | None = None) -> Part:
    """:func:`gpu_eval.equity_batch` spots ``[start, stop)`` on NumPy."""
    return Part(spot_counts.spot_task(job, start, stop), frozenset({"numpy"}))


def device_spot_task(job: Any, start: int, stop: int, bar: Progress | None = None) -> Part:
    """:func:`gpu_eval.equity_batch` spots ``[start, stop)`` on the GPU."""
    from gpu_eval.equity_engine.batch import cuda_engine as cuda_batch  # noqa: PLC0415 -- CuPy only when used

    sl = slice(start, stop)
    free = ~job.used[sl] & np.uint64(enumerate_boards.FULL_DECK)
    out = cuda_batch.spot_counts(job.hole[sl], job.b_mask[sl], free, job.k,
                                 device_out=job.cupy_out)
    return Part(tuple(out), frozenset({"cuda"}))


def deal_task(job: Any, start: int, stop: int, bar: Progress | None = None) -> Part:
    """One task of :mod:`deals`: exact units or sample blocks ``[start, stop)``."""
    from gpu_eval.equity_engine.deals import numpy_engine as deals  # noqa: PLC0415 -- hold'em never loads it

    return Part(deals.task(job, start, stop, bar), frozenset({job.backend}))


def game_task(job: Any, start: int, stop: int, bar: Progress | None = None) -> Part:
    """One task of :mod:`board_games`: board span or sample block ``[start, stop)``."""
    from gpu_eval.equity_engine.board_games import numpy_engine as board_games  # noqa: PLC0415 -- hold'em never loads it

    fn = board_games.exact_task if job.exact else board_games.sample_task
    if not job.exact and job.backend != "cuda":
        # NumPy draws block by block: a span of several blocks is their sum.
        size = job.block
        parts = [fn(job, s, min(s + size, stop)) for s in range(start, stop, size)]
        out = [sum(p[i] for p in parts) for i in range(len(parts[0]))]
    else:
        out = fn(job, start, stop)
    if bar is not None:  # the span is done (the family's tasks draw no bar themselves)
        bar.update(stop - start)
    return Part(tuple(np.asarray(a, dtype=np.int64) for a in out),
                frozenset({getattr(job, "backend", "numpy")}))


# ---------------------------------------------------------------------------------------------
# The shipped table and the suit symmetry of a problem.
# ---------------------------------------------------------------------------------------------

def table_applies(exact: bool | None, samples: int | None, n_players: int, k: int, dead,
                  progress: bool | None) -> bool:
    """Whether the shipped exact heads-up preflop table answers a problem.

    Heads-up, no board card, no dead card, and exact (``True``, or ``None`` without
    ``samples``).

    Examples
    --------
    >>> table_applies(None, None, 2, 5, "", False), table_applies(None, None, 2, 5, "2c", False)
    (True, False)
    """
    wanted(progress, 0.0)  # validates it: table lookups need no progress bar
    return (exact is True or (exact is None and samples is None)) and n_players == 2 \
        and k == 5 and not dead and shipped_table.USE_TABLE


def table_backend(backend: str) -> str:
    """The backend a table lookup reports: it runs on the host, but an explicit ``"cuda"``
    still checks for a device (and raises ``RuntimeError`` without one).

    Examples
    --------
    >>> table_backend("auto")
    'numpy'
    """
    return "numpy" if backend in ("auto", "numpy") else engine_for(backend)[1]


def _client_table_backend(backend: str) -> str:
    """A cluster client's table answer reports ``"numpy"`` where ``backend`` does not
    resolve on the client (it may drive GPU workers; the table needs none)."""
    try:
        return table_backend(backend)
    except (RuntimeError, NotImplementedError):
        return "numpy"


def table_counts(pool: np.ndarray, pairs: np.ndarray) -> numpy_engine.Counts:
    """Exact heads-up preflop counts of combo pairs, read from :mod:`shipped_table`.

    Examples
    --------
    >>> from gpu_eval import cards
    >>> c = table_counts(cards.to_mask(["AhKh", "QsQd"]), np.array([[0, 1]]))
    >>> c.wins.tolist(), c.ties.tolist()
    ([[787966, 917606]], [[6732, 6732]])
    """
    wins, ties = shipped_table.counts_of_masks(pool, pairs)
    t = np.column_stack([ties, ties])
    return numpy_engine.Counts(wins, t, t.copy(), np.full(len(wins), shipped_table.BOARDS), 2)


def table_pairs(pool: np.ndarray, pairs: np.ndarray, backend_name: str, *,
                matrix: bool = True) -> tuple:
    """The table's answer to a pair-counting step: ``(Counts, None, method, None,
    backend_name)``.

    Examples
    --------
    >>> from gpu_eval import cards
    >>> table_pairs(cards.to_mask(["AhKh", "QsQd"]), np.array([[0, 1]]), "numpy")[2]
    'exact (table): 1 pairs x 1,712,304 boards'
    """
    method = f"exact (table): {len(pairs):,} pairs x {shipped_table.BOARDS:,} boards" \
        if matrix else f"exact (table): {math.comb(52, 5):,} boards"
    return table_counts(pool, pairs), None, method, None, backend_name


def table_equity(prob: Problem, backend: str, backend_name: str | None = None
                 ) -> EquityResult:
    """:func:`gpu_eval.equity` of a heads-up preflop problem without dead cards, from the
    table; its ``method`` starts with ``"exact (table):"``.

    Examples
    --------
    >>> r = table_equity(prepare(["AhKh", "QsQd"], "", ""), "auto")
    >>> r.method, r.wins.tolist()
    ('exact (table): 1,712,304 boards', [787966, 917606])
    """
    if backend_name is None:
        backend_name = table_backend(backend)
    masks = [p.range.masks for p in prob.players]
    idx, w = enumerate_matchups(masks, [p.range.weights for p in prob.players], MAX_MATCHUPS)
    if len(w) == 0:
        raise no_matchup_error(prob)
    c = table_counts(np.concatenate(masks), idx + np.array([0, len(masks[0])]))
    r = exact_result(c.wins, c.ties, c.units, c.valid, c.scale, w, shipped_table.BOARDS,
                     labels=tuple(p.label for p in prob.players), backend=backend_name)
    return dataclasses.replace(r, method=r.method.replace("exact:", "exact (table):", 1))


def symmetry_groups(prob: Problem) -> tuple[tuple[int, ...], ...]:
    """Suit permutations that map the problem onto itself.

    They keep every known hand, the board and the dead cards, and map every range onto
    itself with its weights, so summed over matchups a board and its image give the same
    counts, and only one board per orbit needs to be played.

    Examples
    --------
    >>> len(symmetry_groups(prepare(["AA", "KK"], "", "")))
    24
    """
    known = [int(p.range.masks[0]) for p in prob.players if p.fixed]
    group = enumerate_boards.stabilizer(known + [prob.board_mask, prob.dead_mask])
    for i in prob.ranged:
        if len(group) == 1:  # the identity alone (a rainbow board): it keeps every range
            break
        r = prob.players[i].range
        group = enumerate_boards.keeping_range(group, r.masks, r.weights)
    return group

