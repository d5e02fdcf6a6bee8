"""The hold'em engine's offer to the planner: its :class:`~gpu_eval.equity_engine.planner.Engine`
record (rates and ``exact=None`` limits on NumPy and CUDA), what its strategies derive from a
request (:class:`HoldemSetup`), the strategies of :func:`gpu_eval.equity`, and of the pair
counting of :func:`gpu_eval.equity_matrix` / :func:`gpu_eval.preflop_table`, and their tasks.

=====================  =====  ================================================================
strategy               kind   answers
=====================  =====  ================================================================
``known hands``        equity every hand known after the flop, NumPy (``shortcuts/known_hands``)
``two ranges``         equity two ranges on the turn or river, NumPy (``shortcuts/two_ranges``)
``shipped table``      both   heads-up preflop without dead cards (``shipped_table``)
``board enumeration``  both   every board completion, one per suit orbit
``rank classes``       equity preflop, boards grouped by rank class
``monte carlo``        both   sampling
=====================  =====  ================================================================

Examples
--------
>>> from gpu_eval.equity_engine.planner import Request, choose
>>> req = Request("equity", players=["AhKh", "QQ+,AKs"], board="Kd7c2h")
>>> s = choose(req, EQUITY + PAIRS)
>>> s.name, s.engine is ENGINE, f"{s.cost(req):.4f}"
('board enumeration', True, '0.0003')
"""

from __future__ import annotations

import dataclasses
import importlib
import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from types import ModuleType

import numpy as np

from gpu_eval import backend_choice
from gpu_eval.equity_engine import enumerate_boards
from gpu_eval.equity_engine.holdem import cuda_engine, matchup_orbits, numpy_engine, shipped_table
from gpu_eval.equity_engine.holdem.shortcuts import known_hands, two_ranges
from gpu_eval.equity_engine.planner import Engine, Part, Plan, Request, Setup, Strategy, backend_name
from gpu_eval.equity_engine.problem import (
    DEFAULT_SAMPLES,
    DEFAULT_TABLE_SAMPLES,
    MAX_MATCHUPS,
    Problem,
    cards_text,
    entropy_of,
    enumerate_matchups,
    no_matchup_error,
    symmetry_group,
)
from gpu_eval.equity_engine.results import EquityResult, exact_result, sampled_result, spot_result
from gpu_eval.games.registry import HOLDEM
from gpu_eval.once import cached_property
from gpu_eval.progress import Progress, wanted

__all__ = ["ENGINE", "EQUITY", "PAIRS", "HoldemSetup", "engine_for",
           "table_applies", "table_backend", "table_counts", "table_pairs", "table_equity",
           "board_slice", "sampled_boards", "MC_BLOCK", "BOARD_BLOCK", "warn_long"]

#: The hold'em engine: evaluations plus comparisons per second, and ``exact=None``'s limit
#: (NumPy's :data:`numpy_engine.EXACT_WORK_LIMIT` of work, a few seconds on two cores; the
#: CUDA engine's own, about two seconds at its rate).
ENGINE = Engine(
    HOLDEM,
    rates={"numpy": numpy_engine.RATE, "cuda": cuda_engine.RATE},
    exact_seconds={"numpy": numpy_engine.EXACT_WORK_LIMIT / numpy_engine.RATE,
                   "cuda": cuda_engine.EXACT_WORK_LIMIT / cuda_engine.RATE})

#: Monte Carlo showdowns per cluster task of :func:`gpu_eval.equity` (a multiple of the NumPy
#: engine's random block, so the tasks draw the single-process samples).
MC_BLOCK = 1 << 18
#: Sampled boards per cluster task of :func:`gpu_eval.equity_matrix` and
#: :func:`gpu_eval.preflop_table` Monte Carlo (every pair is played on each board, so a task
#: is ``pairs`` times more work than its size).
BOARD_BLOCK = 1 << 12


def engine_for(backend: str) -> tuple[ModuleType, str]:
    """``(kernel module, backend name)``: NumPy, or the CUDA engine when there is a device.

    Examples
    --------
    >>> engine_for("numpy")[1]
    'numpy'
    """
    if backend_choice.resolve(backend) == "cuda":
        return importlib.import_module("gpu_eval.equity_engine.holdem.cuda_engine"), "cuda"
    return numpy_engine, "numpy"


def _module(name: str) -> ModuleType:
    return cuda_engine if name == "cuda" else numpy_engine


def warn_long(work: float, what: str, backend: str) -> None:
    """Warn when an exact run is expected to take over a minute on ``backend``."""
    minutes = ENGINE.seconds(work, backend) / 60
    if minutes > 1:
        warnings.warn(f"exact {what} needs about {work:.3g} evaluations and comparisons, "
                      f"roughly {minutes:.0f} minutes on this backend; pass exact=False for "
                      f"Monte Carlo", RuntimeWarning, stacklevel=4)


# ---------------------------------------------------------------------------------------------
# What the strategies derive from a request, each once.
# ---------------------------------------------------------------------------------------------

class HoldemSetup(Setup):
    """The hold'em set-up of one request (``req.state(HoldemSetup)``): the prepared problem,
    its matchups, its suit symmetry and the shortcuts' counts, each built on first use.

    Examples
    --------
    >>> req = Request("equity", players=["AA", "KK"], dead="2c")
    >>> s = req.state(HoldemSetup)
    >>> "problem" in s.__dict__, len(s.problem.players), "problem" in s.__dict__
    (False, 2, True)
    """

    @cached_property
    def sizes(self) -> dict:
        """Deck and board counts: boards, boards per matchup, matchups bound."""
        prob = self.problem
        r_deck = bin(prob.deck_mask).count("1")
        return dict(n_boards=math.comb(r_deck, prob.k),
                    per_matchup=math.comb(r_deck - self.req.record.hole_cards
                                          * len(prob.ranged), prob.k),
                    upper=math.prod(len(p.masks) for p in prob.players))

    @cached_property
    def matchups(self) -> tuple[np.ndarray, np.ndarray] | None:
        """Every compatible matchup and its weight, or None when too many to list (then only
        Monte Carlo runs). Raises when no matchup is possible, or ``exact=True`` cannot list
        them."""
        prob, s, exact = self.problem, self.sizes, self.req.exact
        masks = [p.masks for p in prob.players]
        weights = [p.weights for p in prob.players]
        found = None
        # Listing the matchups is worth it when enumeration may be chosen: 20 times the
        # limit bounds what the suit symmetry can bring back under it.
        if exact is not False and (exact or s["upper"] * s["per_matchup"]
                                   <= 20 * ENGINE.work_limit(self.req.runs_on)):
            found = enumerate_matchups(masks, weights, MAX_MATCHUPS)
            if found is None and exact:
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
        listed = self.matchups
        assert listed is not None, "asked only where the matchups are listed"
        idx = listed[0]
        pool, inverse = np.unique(np.concatenate([p.masks for p in prob.players]),
                                  return_inverse=True)
        offsets = np.cumsum([0] + [len(p.masks) for p in prob.players[:-1]])
        return pool, inverse[idx + offsets[None, :]]

    @cached_property
    def group(self) -> tuple[tuple[int, ...], ...]:
        """The suit permutations that map the problem onto itself."""
        return symmetry_group(self.problem)

    @cached_property
    def board_work(self) -> float:
        """Evaluations plus comparisons of enumerating every board, over the symmetry."""
        s = self.sizes
        n_pool, listed = len(self.pool[0]), self.matchups
        assert listed is not None, "asked only where the matchups are listed"
        work = n_pool * s["n_boards"] + len(listed[0]) * s["per_matchup"]
        return work / len(self.group)

    @cached_property
    def matchup_orbits(self) -> tuple[np.ndarray, np.ndarray]:
        """``(representatives, orbit of each matchup)`` under the suit permutations that keep
        the board and dead cards (:mod:`gpu_eval.equity_engine.holdem.matchup_orbits`)."""
        pool, pool_idx = self.pool
        prob = self.problem
        return matchup_orbits.orbits(pool, pool_idx, [prob.board_mask, prob.dead_mask])

    @cached_property
    def known_hands(self) -> known_hands.Spot | None:
        """The known-hands shortcut's counts (:mod:`~gpu_eval.equity_engine.holdem.shortcuts.known_hands`)."""
        r = self.req
        return known_hands.counts(r.players, r.board, r.dead)

    @cached_property
    def two_ranges(self) -> tuple | None:
        """The two-ranges shortcut's counts (:mod:`~gpu_eval.equity_engine.holdem.shortcuts.two_ranges`)."""
        r = self.req
        return two_ranges.counts(r.players, r.board, r.dead)

    @property
    def labels_board_dead(self) -> dict:
        prob = self.problem
        return dict(labels=tuple(p.label for p in prob.players),
                    board=cards_text(prob.board) if prob.board else "",
                    dead=cards_text(prob.dead) if prob.dead else "")

    def reported(self, part: Part) -> str:
        """The backend a result reports: where this process ran it, or (on a cluster's
        client) the engines the workers used."""
        return self.req.runs_on if self.req.here else backend_name(part.backends)


def _setup(req: Request) -> HoldemSetup:
    return req.state(HoldemSetup)


def _equity_request(req: Request) -> bool:
    return req.kind == "equity" and req.engine == ENGINE.name


def _exact_equity(req: Request) -> bool:
    return _equity_request(req) and req.exact is not False


# ---------------------------------------------------------------------------------------------
# Strategies of gpu_eval.equity.
# ---------------------------------------------------------------------------------------------

class HoldemStrategy(Strategy):
    """A strategy of the hold'em engine."""

    engine = ENGINE


class ShippedTable(HoldemStrategy):
    """Heads-up preflop without dead cards: the shipped table (:mod:`shipped_table`)."""

    name = "shipped table"

    def applies(self, req: Request) -> bool:
        if not _exact_equity(req) or req.samples is not None:
            return False
        prob = _setup(req).problem
        return table_applies(req.exact, req.samples, len(prob.players), prob.k, prob.dead,
                             req.progress)

    def cost(self, req: Request) -> float:
        return 0.0

    def plan(self, req: Request) -> Plan:
        name = table_backend(req.backend) if req.here else _client_table_backend(req.backend)
        prob = _setup(req).problem
        return Plan(self.name, lambda part: table_equity(prob, req.backend, name),
                    backend=name)


class KnownHands(HoldemStrategy):
    """Every hand known, after the flop, on NumPy: :mod:`known_hands` in one pass."""

    name = "known hands"

    def applies(self, req: Request) -> bool:
        if not _exact_equity(req) or req.samples is not None or req.runs_on != "numpy":
            return False
        fast = _setup(req).known_hands
        if fast is None:
            return False
        return not wanted(req.progress, ENGINE.seconds(len(req.players) * fast.boards, "numpy"))

    def cost(self, req: Request) -> float:
        return 0.0

    def plan(self, req: Request) -> Plan:
        def finish(_: Part) -> EquityResult:
            c = _setup(req).known_hands
            assert c is not None, "applies() found them"
            if req.exact:
                warn_long(len(req.players) * c.boards, "equity", "numpy")
            return spot_result(c.wins, c.ties, c.units, c.scale, c.boards,
                               labels=tuple(req.players), backend="numpy",
                               board=cards_text(c.board), dead=cards_text(c.dead) if c.dead else "")
        return Plan(self.name, finish)


class TwoRanges(HoldemStrategy):
    """Two ranges on the turn or river, on NumPy: :mod:`two_ranges`'s grid."""

    name = "two ranges"

    def applies(self, req: Request) -> bool:
        if not _exact_equity(req) or req.samples is not None or req.progress is True \
                or req.runs_on != "numpy" or _setup(req).known_hands is not None:
            return False
        return _setup(req).two_ranges is not None

    def cost(self, req: Request) -> float:
        return 0.0

    def plan(self, req: Request) -> Plan:
        def finish(_: Part) -> EquityResult:
            counts = _setup(req).two_ranges
            assert counts is not None, "applies() found them"
            wins, ties, units, valid, scale, w, per, labels, b, d = counts
            return exact_result(wins, ties, units, valid, scale, w, per, labels=labels,
                                backend="numpy", board=cards_text(b),
                                dead=cards_text(d) if d else "")
        return Plan(self.name, finish)


class BoardEnumeration(HoldemStrategy):
    """Every matchup on every board completion, one board per suit orbit."""

    name = "board enumeration"

    def applies(self, req: Request) -> bool:
        return _exact_equity(req) and _setup(req).matchups is not None

    def cost(self, req: Request) -> float:
        return ENGINE.seconds(_setup(req).board_work, req.runs_on)

    def plan(self, req: Request) -> Plan:
        st = _setup(req)
        prob = st.problem
        pool, pool_idx = st.pool
        if req.exact:
            warn_long(st.board_work, "equity", req.runs_on)
        job = BoardJob(pool, pool_idx, prob.deck_mask, prob.k, prob.board_mask, st.group,
                       req.backend)
        listed = st.matchups
        assert listed is not None, "applies() found them listed"
        w, per = listed[1], st.sizes["per_matchup"]
        common = st.labels_board_dead

        def finish(part: Part) -> EquityResult:
            wins, ties, units, valid = part.arrays
            return exact_result(wins, ties, units, valid, numpy_engine.pot_units(
                len(prob.players)), w, per, backend=st.reported(part), **common)

        return Plan(self.name, finish, board_task, job, st.sizes["n_boards"],
                    work=st.board_work,
                    bar_enabled=wanted(req.progress, self.cost(req)),
                    bar_total=lambda: sum(len(b) for b, _ in enumerate_boards.
                                          symmetric_completions(job.deck_mask, job.k,
                                                                job.group)),
                    bar_shown=lambda: per, bar_what="equity (exact)", backend=req.runs_on)


class RankClasses(HoldemStrategy):
    """Preflop: each matchup (one per suit orbit) over boards grouped by rank class."""

    name = "rank classes"

    def applies(self, req: Request) -> bool:
        return _exact_equity(req) and _setup(req).problem.k == 5 \
            and _setup(req).matchups is not None

    def cost(self, req: Request) -> float:
        reps = _setup(req).matchup_orbits[0]
        return ENGINE.seconds(len(reps) * numpy_engine.PREFLOP_CLASS_WORK, req.runs_on)

    def plan(self, req: Request) -> Plan:
        st = _setup(req)
        prob = st.problem
        pool, pool_idx = st.pool
        reps, orbit = st.matchup_orbits
        work = len(reps) * numpy_engine.PREFLOP_CLASS_WORK
        if req.exact:
            warn_long(work, "equity", req.runs_on)
        job = RankClassJob(pool, pool_idx[reps], prob.deck_mask, req.backend)
        listed = st.matchups
        assert listed is not None, "applies() found them listed"
        w, per = listed[1], st.sizes["per_matchup"]
        common = st.labels_board_dead

        def finish(part: Part) -> EquityResult:
            wins, ties, units, valid = (a[orbit] for a in part.arrays)
            return exact_result(wins, ties, units, valid, numpy_engine.pot_units(
                len(prob.players)), w, per, backend=st.reported(part), **common)

        return Plan(self.name, finish, rank_class_task, job, len(reps), combine="concat",
                    work=work, bar_enabled=wanted(req.progress, self.cost(req)),
                    # as the result reports it: matchups, or one matchup's boards
                    bar_total=lambda: len(reps),
                    bar_shown=lambda: len(w) if len(w) > 1 else per,
                    bar_unit="matchups" if len(w) > 1 else "boards",
                    bar_what="equity (exact)", backend=req.runs_on)


class MonteCarlo(HoldemStrategy):
    """Sampled matchups on sampled boards, in the engine's random blocks."""

    name = "monte carlo"
    exact = False

    def applies(self, req: Request) -> bool:
        if not _equity_request(req):
            return False
        _setup(req).matchups  # noqa: B018 -- raises when no matchup is possible
        return True

    @staticmethod
    def n_samples(req: Request) -> int:
        return req.samples if req.samples is not None else DEFAULT_SAMPLES

    def cost(self, req: Request) -> float:
        return ENGINE.seconds(self.n_samples(req) * len(_setup(req).problem.players) * 2,
                              req.runs_on)

    def plan(self, req: Request) -> Plan:
        st = _setup(req)
        prob = st.problem
        n, n_samples, entropy = len(prob.players), self.n_samples(req), entropy_of(req.seed)
        # A "random" player (every combo left, equal weights) is dealt from the deck instead.
        n_any = math.comb(bin(prob.deck_mask).count("1"), 2)
        dealt = [not p.fixed and len(p.masks) == n_any
                 and bool(np.all(p.weights == p.weights[0])) for p in prob.players]
        job = SampleJob([p.masks for p in prob.players],
                        [None if p.fixed else np.cumsum(p.weights) for p in prob.players],
                        dealt, prob.deck_mask, prob.board_mask, prob.k, entropy, req.backend)
        common = st.labels_board_dead

        def finish(part: Part) -> EquityResult:
            wins, ties, units, units_sq = part.arrays
            return sampled_result(wins, ties, units, units_sq, n, n_samples, entropy,
                                  backend=st.reported(part), **common)

        return Plan(self.name, finish, sample_task, job, n_samples,
                    align=numpy_engine.SAMPLE_BLOCK, block=MC_BLOCK,
                    work=n_samples * n * 2.0,
                    bar_enabled=wanted(req.progress, self.cost(req)),
                    bar_total=lambda: n_samples, bar_unit="samples",
                    bar_what="equity (monte carlo)", backend=req.runs_on)


# ---------------------------------------------------------------------------------------------
# Strategies of the pair counting (equity_matrix, preflop_table).
# ---------------------------------------------------------------------------------------------

def _reported_pairs(req: Request, part: Part) -> str:
    return req.runs_on if req.here else backend_name(part.backends)


def _counts(part: Part) -> numpy_engine.Counts:
    wins, ties, units, valid = part.arrays
    return numpy_engine.Counts(wins, ties, units, valid, numpy_engine.pot_units(2))


def _pairs(req: Request) -> tuple:
    """``(pool, pairs, deck, k, base, work)`` of a ``"pairs"`` request."""
    assert req.pairs is not None, "a 'pairs' request carries them"
    return req.pairs


class PairTable(HoldemStrategy):
    """Heads-up combo pairs preflop without dead cards: the shipped table."""

    name = "shipped table"
    kind = "pairs"

    def applies(self, req: Request) -> bool:
        k, deck = _pairs(req)[3], _pairs(req)[2]
        return table_applies(req.exact, req.samples, 2, k, deck != enumerate_boards.FULL_DECK,
                             req.progress)

    def cost(self, req: Request) -> float:
        return 0.0

    def plan(self, req: Request) -> Plan:
        name = table_backend(req.backend) if req.here else _client_table_backend(req.backend)
        pool, pairs = _pairs(req)[:2]
        return Plan(self.name, lambda part: table_pairs(pool, pairs, name,
                                                        matrix=req.what == "equity_matrix"),
                    backend=name)


class PairEnumeration(HoldemStrategy):
    """Heads-up combo pairs on every board completion."""

    name = "board enumeration"
    kind = "pairs"

    def applies(self, req: Request) -> bool:
        return req.exact is not False

    def cost(self, req: Request) -> float:
        return ENGINE.seconds(_pairs(req)[5], req.runs_on)

    def plan(self, req: Request) -> Plan:
        pool, pairs, deck, k, base, work = _pairs(req)
        if req.exact:
            warn_long(work, req.what, req.runs_on)
        job = PairJob(pool, pairs, deck, k, base, None, req.backend)

        def finish(part: Part) -> tuple:
            return (_counts(part), None, None, None, _reported_pairs(req, part))

        n = enumerate_boards.count(deck, k)
        per_pair = math.comb(bin(deck).count("1") - 4, k)  # the boards each pair is played on
        return Plan(self.name, finish, pair_task, job, n, work=work,
                    bar_enabled=wanted(req.progress, self.cost(req)),
                    bar_total=lambda: n, bar_shown=lambda: per_pair,
                    bar_what=f"{req.what} (exact)", backend=req.runs_on)


class PairMonteCarlo(HoldemStrategy):
    """Heads-up combo pairs on sampled boards (one stream; a cluster plays slices)."""

    name = "monte carlo"
    kind = "pairs"
    exact = False

    def applies(self, req: Request) -> bool:
        return True

    @staticmethod
    def n_samples(req: Request) -> int:
        return req.samples if req.samples is not None else DEFAULT_TABLE_SAMPLES

    def cost(self, req: Request) -> float:
        pool, pairs, deck, k, base, work = _pairs(req)
        return ENGINE.seconds(work * self.n_samples(req) / max(enumerate_boards.count(deck, k),
                                                               1), req.runs_on)

    def plan(self, req: Request) -> Plan:
        pool, pairs, deck, k, base, work = _pairs(req)
        n_used, entropy = self.n_samples(req), entropy_of(req.seed)
        job = PairJob(pool, pairs, deck, k, base, entropy, req.backend, n_used)
        method = f"monte carlo: {n_used:,} sampled boards"

        def finish(part: Part) -> tuple:
            return (_counts(part), n_used, method, entropy, _reported_pairs(req, part))

        return Plan(self.name, finish, pair_task, job, n_used, block=BOARD_BLOCK,
                    work=self.cost(req) * ENGINE.rate(req.runs_on),
                    bar_enabled=wanted(req.progress, self.cost(req)), bar_total=lambda: n_used,
                    bar_what=f"{req.what} (monte carlo)", backend=req.runs_on)


#: The hold'em strategies of :func:`gpu_eval.equity`, in the order ties of cost are broken
#: (the free shortcuts first, cheapest to rule out first: the two NumPy shortcuts read plain
#: text without the set-up the others need).
EQUITY: list[Strategy] = [KnownHands(), TwoRanges(), ShippedTable(), BoardEnumeration(),
                          RankClasses(), MonteCarlo()]
#: The strategies of the pair counting step.
PAIRS: list[Strategy] = [PairTable(), PairEnumeration(), PairMonteCarlo()]


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
    parts: Sequence[tuple[np.ndarray, int]]
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
    >>> from gpu_eval.equity_engine.problem import prepare
    >>> r = table_equity(prepare(["AhKh", "QsQd"], "", ""), "auto")
    >>> r.method, r.wins.tolist()
    ('exact (table): 1,712,304 boards', [787966, 917606])
    """
    if backend_name is None:
        backend_name = table_backend(backend)
    masks = [p.masks for p in prob.players]
    found = enumerate_matchups(masks, [p.weights for p in prob.players], MAX_MATCHUPS)
    assert found is not None, "heads-up: at most 1,326 ** 2 matchups, under the cap"
    idx, w = found
    if len(w) == 0:
        raise no_matchup_error(prob)
    c = table_counts(np.concatenate(masks), idx + np.array([0, len(masks[0])]))
    r = exact_result(c.wins, c.ties, c.units, c.valid, c.scale, w, shipped_table.BOARDS,
                     labels=tuple(p.label for p in prob.players), backend=backend_name)
    return dataclasses.replace(r, method=r.method.replace("exact:", "exact (table):", 1))
