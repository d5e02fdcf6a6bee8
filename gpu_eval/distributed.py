"""Scale the big jobs out on a Dask cluster: equity, tables, flop sweeps, exhaustive counts.

Every function takes a ``distributed.Client`` first and otherwise looks like its
single-process counterpart in :mod:`gpu_eval`::

    from distributed import Client, LocalCluster
    import gpu_eval.distributed as ged

    client = Client(LocalCluster(n_workers=2))           # or dask-cuda's LocalCUDACluster()
    ged.equity(client, ["QQ+,AKs", "22+,A2s+"], exact=True)
    ged.flop_sweep(client, "AK", "QQ").overall             # 1,755 flops, exact
    ged.evaluation_counts(client, k=7).category_counts()

Install with ``pip install "gpu-eval[distributed]"``; Dask is imported only inside these
functions, so ``import gpu_eval`` stays light. ``client=None`` runs the same tasks one after
another in this process (no Dask needed), which is handy on a single GPU.

How the work is split
---------------------
Input is validated with the single-process preparation code *before* anything is submitted,
so bad input raises the same ``ValueError`` / ``TypeError`` and the scheduler sees no task.
The work is then cut into deterministic pieces:

* heads-up preflop work without dead cards (exact :func:`equity`, :func:`equity_matrix`,
  :func:`preflop_table`): no task at all; it is read from the shipped exact table
  (:mod:`gpu_eval.equity_engine.preflop_data`) on the client, as in a single process, with
  the same decision (:func:`gpu_eval.equity_engine.api.table_applies`) and the same result;
* other exact equity, :func:`equity_matrix` and :func:`preflop_table` work: slices
  ``[start, stop)`` of the colex-ordered board completions
  (:mod:`gpu_eval.equity_engine.enumerate_boards`); each task unranks its own slice, so no
  board list crosses the network;
* Monte Carlo: blocks of ``block_size`` samples (or sampled boards);
* :func:`flop_sweep`: groups of flop classes;
* :func:`evaluation_counts`: slices of the colex-ordered k-card hands.

The problem description (hole-card pool, matchups, weights) travels inside each task when
small, and is scattered to every worker once when large.
Exact tasks return integer win/tie counts, summed on the cluster in a tree; integer sums do
not depend on the order, so **a distributed exact result equals the single-process result
bit for bit, whatever the number of workers**. Each task resolves ``backend="auto"`` on its
own worker: the worker's GPU when it has one, NumPy otherwise.

Monte Carlo reproducibility
---------------------------
Block ``i`` of a run draws from its own stream, seeded by :func:`block_seed` ``(seed, i)``
(``numpy.random.SeedSequence(seed, spawn_key=(i,))``). So the same ``seed`` and
``block_size`` give the same answer on any cluster and any number of workers -- as long as
the workers use the same engine (NumPy and CUDA draw differently: pass ``backend="numpy"``
or ``"cuda"`` on a mixed cluster). The answer is *not* the one ``gpu_eval.equity(...,
seed=seed)`` gives in a single process, whose blocks are split differently; both are
unbiased estimates with the same standard error.

Progress and interruption
-------------------------
``progress=True`` shows Dask's own progress bar (:func:`distributed.progress`: a widget in
Jupyter, text in a terminal); the dashboard shows the tasks too, named ``gpu_eval-<job>``.
Ctrl-C (``KeyboardInterrupt``) -- or any error -- cancels every future the call submitted
before it propagates, so nothing is left running on the cluster.

Notes
-----
``exact=None`` makes the single-process choice, with the work limit of the backend the
*client* resolves; a CPU-only client driving GPU workers therefore samples sooner than it
needs to, so pass ``exact=True`` for big exact jobs there. Dask's nanny starts workers with
``MALLOC_TRIM_THRESHOLD_=65536``, which makes NumPy's temporaries 2-3x slower; the tasks
set glibc's ``M_TOP_PAD`` to 64 MiB in their worker process once (see ``_tune_malloc``).
The result arithmetic of :func:`equity`, :func:`equity_matrix` and :func:`preflop_table`
repeats that of :mod:`gpu_eval.equity_engine.api` on the same integer counts (the tests check that
the two agree bit for bit).
"""

from __future__ import annotations

import ctypes
import math
import os
import pickle
import sys
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np

from gpu_eval import backend_choice, cards, combinatorics
from gpu_eval.equity_engine import api as equity_api
from gpu_eval.equity_engine import enumerate_boards, numpy_engine
from gpu_eval.equity_engine import results as equity_results
from gpu_eval.equity_engine import setup as equity_setup
from gpu_eval.equity_engine.results import EquityResult, MatrixResult, PreflopTable, read_only
from gpu_eval.equity_engine.setup import CardsLike, PlayerLike
from gpu_eval.games import registry
from gpu_eval.games.registry import HOLDEM
from gpu_eval.scale import NUM_STRENGTHS
from gpu_eval.strength import CATEGORY_KEYS

if TYPE_CHECKING:  # pragma: no cover
    from distributed import Client

__all__ = ["equity", "equity_matrix", "preflop_table", "flop_sweep", "evaluation_counts",
           "FlopSweep", "EvaluationCounts", "block_seed", "colex_masks", "MC_BLOCK",
           "BOARD_BLOCK", "TASK_WORK"]

#: Monte Carlo showdowns per block (one random stream, one task) in :func:`equity`.
MC_BLOCK = 1 << 18
#: Sampled boards per block in :func:`equity_matrix` and :func:`preflop_table` (every pair
#: is played on each, so a block is ``pairs`` times more work than its size).
BOARD_BLOCK = 1 << 12
#: Exact jobs aim at about this much work (evaluations plus comparisons) per task, and at
#: least two tasks per worker thread; the split never changes an exact result.
TASK_WORK = 2e8
#: Hands per piece inside an :func:`evaluation_counts` task on NumPy (bounds memory).
_EVAL_CHUNK = 1 << 20
# Problem descriptions up to this size travel inside every task; bigger ones are scattered
# to every worker once.
_INLINE_BYTES = 1 << 18
# Reduction fan-in: partial results are summed in groups of this many on the cluster.
_FAN_IN = 8
# Subsets up to this size come from one cached list; bigger ones are built piece by piece.
_BASE_K = 4


# ---------------------------------------------------------------------------------------------
# Seeds, slices and colex unranking.
# ---------------------------------------------------------------------------------------------

def block_seed(seed: int, block: int) -> int:
    """The 128-bit seed of Monte Carlo block ``block`` of a run seeded with ``seed``.

    It is ``numpy.random.SeedSequence(seed, spawn_key=(block,))`` (the ``block``-th child of
    ``SeedSequence(seed).spawn``), so blocks draw independent streams, and block ``i`` draws
    the same numbers on whichever worker runs it.

    Examples
    --------
    >>> block_seed(1, 0) == block_seed(1, 0), block_seed(1, 0) == block_seed(1, 1)
    (True, False)
    """
    state = np.random.SeedSequence(int(seed), spawn_key=(int(block),)).generate_state(
        2, np.uint64)
    return int(state[0]) | int(state[1]) << 64


def _spans(total: int, n_pieces: int) -> list[tuple[int, int]]:
    """``[0, total)`` cut into ``n_pieces`` near-equal, non-empty, consecutive spans."""
    n_pieces = max(1, min(int(n_pieces), total))
    edges = [total * i // n_pieces for i in range(n_pieces + 1)]
    return [(edges[i], edges[i + 1]) for i in range(n_pieces) if edges[i] < edges[i + 1]]


def _blocks(total: int, size: int) -> list[tuple[int, int]]:
    """``[0, total)`` in blocks of ``size`` (the last one shorter): ``(block index, size)``."""
    return [(i, min(size, total - s)) for i, s in enumerate(range(0, total, size))]


def colex_masks(values: np.ndarray, k: int, start: int, stop: int) -> np.ndarray:
    """OR of ``values`` over the k-subsets number ``start .. stop - 1`` in colex order.

    The same numbering as :func:`gpu_eval.combinatorics.subset_masks` (whose result this is
    a slice of) and ``unrank``, built without the whole list: subsets with top element ``t``
    are numbers ``C(t, k) .. C(t + 1, k) - 1``, each a (k-1)-subset of ``{0..t-1}`` plus
    ``t``, so a slice splits into a few slices one size smaller.

    Parameters
    ----------
    values : numpy.ndarray of uint64
        The value of each element (the mask bit of each card of a deck).
    k : int
        Subset size (0 gives the one empty subset).
    start, stop : int
        The slice of subset numbers, ``0 <= start <= stop <= C(len(values), k)``.

    Returns
    -------
    numpy.ndarray
        ``uint64`` array of length ``stop - start``.

    Examples
    --------
    >>> from gpu_eval import cards
    >>> from gpu_eval.combinatorics import subset_masks
    >>> vals = cards.ID_TO_MASK
    >>> bool((colex_masks(vals, 7, 10**6, 10**6 + 5000)
    ...       == cards.to_mask(combinatorics.unrank(range(10**6, 10**6 + 5000), 7))).all())
    True
    """
    vals = np.ascontiguousarray(values, dtype=np.uint64)
    n = len(vals)
    if not 0 <= start <= stop <= math.comb(n, k):
        raise ValueError(f"need 0 <= start <= stop <= C({n}, {k}), got {start}, {stop}")
    if stop == start:
        return np.zeros(0, dtype=np.uint64)
    if k <= _BASE_K:
        return combinatorics.subset_masks(n, k, vals)[start:stop]
    parts = []
    for t in range(k - 1, n):
        lo, hi = math.comb(t, k), math.comb(t + 1, k)
        if hi <= start:
            continue
        if lo >= stop:
            break
        # (k-1)-subsets of {0..t-1} are a prefix of those of {0..n-1}, so the same call works.
        sub = colex_masks(vals, k - 1, max(start, lo) - lo, min(stop, hi) - lo)
        parts.append(sub | vals[t])
    return np.concatenate(parts)


def _orbit_reps(boards: np.ndarray, group: tuple[tuple[int, ...], ...]
                ) -> list[tuple[np.ndarray, int]]:
    """The boards that are the smallest of their ``group`` orbit, grouped by orbit size.

    The same rule as :func:`gpu_eval.equity_engine.enumerate_boards.symmetric_completions`, applied to a
    slice: every orbit has exactly one smallest board, in exactly one slice, so summing
    ``orbit size x counts`` over the slices gives the full totals.
    """
    if len(group) <= 1:
        return [(boards, 1)]
    keep = np.ones(len(boards), dtype=bool)
    fixed_by = np.zeros(len(boards), dtype=np.uint8)
    for perm in group:
        image = enumerate_boards.permute_suits(boards, perm)
        keep &= image >= boards
        fixed_by += image == boards
    orbit = len(group) // fixed_by[keep]
    reps = boards[keep]
    return [(np.ascontiguousarray(reps[orbit == m]), int(m)) for m in np.unique(orbit)]


# ---------------------------------------------------------------------------------------------
# Running tasks: locally (client=None) or on a Dask cluster, with cancel on interrupt.
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Partial:
    """A task's integer results (summed elementwise by :func:`_add`) and the engines used."""

    arrays: tuple
    backends: frozenset


def _add(*parts: _Partial) -> _Partial:
    arrays = tuple(sum(a[i] for a in (p.arrays for p in parts))
                   for i in range(len(parts[0].arrays)))
    return _Partial(arrays, frozenset().union(*(p.backends for p in parts)))


_MALLOC_TUNED = False


def _tune_malloc() -> None:
    """Once per worker process: let glibc keep 64 MiB of freed heap instead of none.

    Dask's nanny starts workers with ``MALLOC_TRIM_THRESHOLD_=65536`` so that freed memory
    goes back to the OS at once; the NumPy engine's short-lived temporaries then page-fault
    afresh on every call, which measured 2-3x slower. ``M_TOP_PAD`` keeps that much at the
    top of the heap when trimming and still returns the rest.
    """
    global _MALLOC_TUNED
    if _MALLOC_TUNED:
        return
    _MALLOC_TUNED = True
    if not sys.platform.startswith("linux") or "MALLOC_TRIM_THRESHOLD_" not in os.environ:
        return
    try:
        ctypes.CDLL(None).mallopt(-2, 64 << 20)  # M_TOP_PAD
    except (OSError, AttributeError):  # not glibc
        pass


def _require_dask():
    try:
        import distributed
    except ImportError as exc:  # pragma: no cover - exercised only without dask
        raise ImportError("gpu_eval.distributed needs Dask: pip install "
                          "'gpu-eval[distributed]' (or 'dask[distributed]')") from exc
    return distributed


def _check_client(client: Any) -> None:
    if client is None:
        return
    distributed = _require_dask()
    if not isinstance(client, distributed.Client):
        raise TypeError(f"client must be a distributed.Client (or None to run here), got "
                        f"{type(client).__name__}")


def _check_common(backend: str, progress: Any, block_size: Any) -> None:
    if backend not in backend_choice.BACKENDS:
        raise ValueError(f"backend={backend!r}: expected one of "
                         f"{', '.join(backend_choice.BACKENDS)}")
    if progress is not None and not isinstance(progress, bool):
        raise TypeError(f"progress must be True or False, got {progress!r}")
    if block_size is not None and (isinstance(block_size, bool)
                                   or not isinstance(block_size, (int, np.integer))
                                   or block_size < 1):
        raise ValueError(f"block_size must be a positive integer, got {block_size!r}")


def _threads(client: Any) -> int:
    """Worker threads in the cluster (1 when running here)."""
    if client is None:
        return 1
    return max(1, sum(client.nthreads().values()))


def _n_exact_tasks(client: Any, work: float, n_items: int, block_size: int | None) -> int:
    """How many slices an exact job of ``work`` over ``n_items`` boards is cut into."""
    if block_size is not None:
        return max(1, -(-n_items // int(block_size)))
    # At least two per thread so a slow or lost worker does not hold up the end.
    want = max(math.ceil(work / TASK_WORK), 2 * _threads(client) if client is not None else 1)
    return max(1, min(want, n_items))


def _client_engine(backend: str):
    """The engine whose settings (exact work limit, default samples) this client uses.

    A client without a GPU can drive GPU workers, so a backend that does not resolve here
    falls back to the NumPy settings; each task resolves ``backend`` again on its worker.
    """
    try:
        return equity_setup.engine_for(backend)[0]
    except (RuntimeError, NotImplementedError):
        return numpy_engine


def _table_backend(backend: str) -> str:
    """What a table lookup (run here, on the host) reports: the single-process name where
    ``backend`` resolves here, else ``"numpy"`` (a client without a GPU may drive GPU
    workers, and the table needs none)."""
    try:
        return equity_api.table_backend(backend)
    except (RuntimeError, NotImplementedError):
        return "numpy"


def _backend_name(names: frozenset) -> str:
    return "+".join(sorted(names)) if names else "numpy"


def _run(client: Any, fn: Callable, shared: Any, args: Sequence[tuple], *, name: str,
         progress: bool, reduce: bool) -> Any:
    """``fn(shared, *a)`` for each ``a`` in ``args``: summed with :func:`_add` or in order.

    On a client the calls are tasks named ``gpu_eval-<name>``, ``shared`` travels inside
    each task (or, when large, is scattered to every worker once), and the sum is a tree of
    ``_add`` tasks on the workers. Any exception while waiting, ``KeyboardInterrupt``
    included, cancels everything submitted here before it propagates.
    """
    if client is None:
        out = [fn(shared, *a) for a in args]
        return _add(*out) if reduce else out
    distributed = _require_dask()
    token = uuid.uuid4().hex[:10]
    prefix = f"gpu_eval-{name}"
    level: list = []
    try:
        if len(pickle.dumps(shared, protocol=5)) <= _INLINE_BYTES:
            plan = shared  # small: inside each task, which then may run on any worker
        else:
            # Large: one copy per worker (a task depending on a single copy would be placed
            # on that worker first); a worker that joins later fetches it from a peer.
            plan = client.scatter(shared, broadcast=True, hash=False)
        level = [client.submit(fn, plan, *a, key=f"{prefix}-{token}-{i}")
                 for i, a in enumerate(args)]
        depth = 0
        while reduce and len(level) > 1:
            # Dropping the references to a level lets workers free each partial result as
            # soon as its sum has it (a lost one is recomputed from the graph).
            level = [client.submit(_add, *level[i:i + _FAN_IN],
                                   key=f"{prefix}-sum-{token}-{depth}-{i}")
                     for i in range(0, len(level), _FAN_IN)]
            depth += 1
        if progress:  # None (the single-process default) is False here
            distributed.progress(level)
        out = client.gather(level)
    except BaseException:
        # Cancel the last level (nothing depends on it); with the plan dropped too, no client
        # wants the tasks below, and the scheduler forgets them. (Cancelling a task that
        # others depend on recurses into tasks no client holds, which the scheduler rejects.)
        client.cancel(level)
        raise
    # Returning drops the last references: the scheduler frees the plan and the results.
    return out[0] if reduce else out


# ---------------------------------------------------------------------------------------------
# equity()
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class _ExactPlan:
    pool: np.ndarray
    matchups: np.ndarray
    deck_mask: int
    k: int
    base: int
    group: tuple
    backend: str


def _exact_task(plan: _ExactPlan, start: int, stop: int) -> _Partial:
    """Counts of every matchup on board completions ``[start, stop)`` (orbit-weighted)."""
    _tune_malloc()
    eng, name = equity_setup.engine_for(plan.backend)
    boards = colex_masks(enumerate_boards.deck_values(plan.deck_mask), plan.k, start, stop)
    m, n = plan.matchups.shape
    acc = [np.zeros((m, n), np.int64), np.zeros((m, n), np.int64),
           np.zeros((m, n), np.int64), np.zeros(m, np.int64)]
    for reps, mult in _orbit_reps(boards, plan.group):
        if len(reps):
            c = eng.showdown_counts(plan.pool, plan.matchups, reps, base=plan.base)
            for a, v in zip(acc, (c.wins, c.ties, c.units, c.valid)):
                a += mult * v
    return _Partial(tuple(acc), frozenset({name}))


@dataclass(frozen=True)
class _SamplePlan:
    holes: list
    cum: list
    dealt: list
    deck_mask: int
    base: int
    k: int
    entropy: int
    backend: str


def _sample_task(plan: _SamplePlan, block: int, size: int) -> _Partial:
    """One Monte Carlo block of :func:`equity`, on its own stream :func:`block_seed`."""
    _tune_malloc()
    eng, name = equity_setup.engine_for(plan.backend)
    out = eng.sample_counts(plan.holes, plan.cum, plan.deck_mask, plan.base, plan.k, size,
                            block_seed(plan.entropy, block), dealt=plan.dealt)
    return _Partial(tuple(np.asarray(a, dtype=np.int64) for a in out), frozenset({name}))


def equity(client: Client | None, players: Sequence[PlayerLike], board: CardsLike = "",
           dead: CardsLike = "", exact: bool | None = None, samples: int | None = None,
           seed: int | None = None, block_size: int | None = None,
           game: str = HOLDEM, backend: str = "auto", progress: bool | None = False
           ) -> EquityResult:
    """:func:`gpu_eval.equity` on a Dask cluster.

    Parameters
    ----------
    client : distributed.Client or None
        The cluster to run on; ``None`` runs the same tasks here, one after another.
    players, board, dead, exact, samples, seed, game
        As for :func:`gpu_eval.equity` (validated by the same code, before anything is
        submitted; ``exact=None`` makes the same choice as in a single process). Omaha,
        hi/lo and short-deck games run the tasks of :mod:`gpu_eval.equity_engine.game_equity`, giving the
        single-process result exactly, Monte Carlo included.
    block_size : int, optional
        Exact: board completions per task (default: about :data:`TASK_WORK` of work per
        task, at least two tasks per worker thread). Monte Carlo: showdowns per block
        (default :data:`MC_BLOCK`); the answer depends on ``seed`` and ``block_size`` only.
    backend : {"auto", "numpy", "cuda"}
        Resolved by each task on its worker.
    progress : bool or None
        Show Dask's progress bar.

    Returns
    -------
    EquityResult
        Exact: equal, field for field, to the single-process result (``backend`` says which
        engines the workers used, e.g. ``"cuda"`` or ``"cuda+numpy"``). Monte Carlo: the
        same fields, from the block streams described in the module docstring.

    Raises
    ------
    ValueError, TypeError, NotImplementedError
        Bad input, as :func:`gpu_eval.equity` (raised before any task is submitted).
    KeyboardInterrupt
        After cancelling the submitted tasks.

    Examples
    --------
    >>> from distributed import Client, LocalCluster  # doctest: +SKIP
    >>> client = Client(LocalCluster(n_workers=2))  # doctest: +SKIP
    >>> r = equity(client, ["AhKh", "QsQd"])  # doctest: +SKIP
    >>> r.wins.tolist(), r.ties.tolist()  # doctest: +SKIP
    ([787966, 917606], [6732, 6732])
    >>> r = equity(None, ["AhKh", "QsQd"], board="2c7d9s")  # no cluster: runs here
    >>> r.wins.tolist(), r.boards
    ([237, 753], 990)
    """
    if registry.get(game, where="equity()").deals_only:  # stud, razz, the draw games
        return _deals_equity(client, players, board, dead, exact, samples, seed, block_size,
                             game, backend, progress)
    if game != HOLDEM:  # Omaha, hi/lo and short deck: gpu_eval.equity_engine.game_equity' tasks
        return _games_equity(client, players, board, dead, exact, samples, seed, block_size,
                             game, backend, progress)
    equity_setup.check_equity_game(game)
    samples = equity_setup.check_options(exact, samples, seed)
    _check_common(backend, progress, block_size)
    _check_client(client)
    prob = equity_setup.prepare(players, board, dead)
    if equity_api.table_applies(exact, samples, len(prob.players), prob.k, prob.dead, False):
        # Heads-up preflop without dead cards: the shipped table, as in a single process.
        return equity_api.table_equity(prob, backend, _table_backend(backend))
    eng = _client_engine(backend)

    # The single-process choice of exact vs Monte Carlo (gpu_eval.equity_engine.api.equity).
    n = len(prob.players)
    r_deck = bin(prob.deck_mask).count("1")
    n_boards = math.comb(r_deck, prob.k)
    per_matchup = math.comb(r_deck - 2 * len(prob.ranged), prob.k)
    masks = [p.range.masks for p in prob.players]
    weights = [p.range.weights for p in prob.players]
    upper = math.prod(len(m) for m in masks)
    matchups = None
    limit = equity_setup.engine_setting(eng, "EXACT_WORK_LIMIT")
    if exact is not False and (exact or upper * per_matchup <= 20 * limit):
        matchups = equity_setup.enumerate_matchups(masks, weights, equity_setup.MAX_MATCHUPS)
        if matchups is None and exact:
            raise ValueError(f"exact=True: more than {equity_setup.MAX_MATCHUPS:,} matchups to "
                             f"enumerate; pass exact=False for Monte Carlo")
    elif upper <= 2_000_000:
        matchups = equity_setup.enumerate_matchups(masks, weights, equity_setup.MAX_MATCHUPS)
    if matchups is not None and len(matchups[0]) == 0:
        raise equity_setup.no_matchup_error(prob)
    run_exact, work, group = False, 0.0, ((0, 1, 2, 3),)
    if matchups is not None and exact is not False:
        group = equity_api.symmetry_groups(prob)
        n_pool = len(np.unique(np.concatenate(masks)))
        work = (n_pool * n_boards + len(matchups[0]) * per_matchup) / len(group)
        run_exact = bool(exact) or work <= limit
    common = dict(labels=tuple(p.label for p in prob.players),
                  board=equity_setup.cards_text(prob.board) if prob.board else "",
                  dead=equity_setup.cards_text(prob.dead) if prob.dead else "")

    if run_exact:
        assert matchups is not None
        idx, w = matchups
        pool, inverse = np.unique(np.concatenate(masks), return_inverse=True)
        offsets = np.cumsum([0] + [len(m) for m in masks[:-1]])
        plan = _ExactPlan(pool, inverse[idx + offsets[None, :]], prob.deck_mask, prob.k,
                          prob.board_mask, group, backend)
        spans = _spans(n_boards, _n_exact_tasks(client, work, n_boards, block_size))
        res = _run(client, _exact_task, plan, spans, name="equity-exact", progress=progress,
                   reduce=True)
        wins, ties, units, valid = res.arrays
        # The single-process arithmetic, on the same integers.
        return equity_results.exact_result(wins, ties, units, valid, numpy_engine.pot_units(n), w,
                                    per_matchup, backend=_backend_name(res.backends), **common)

    n_samples = samples if samples is not None else equity_setup.engine_setting(eng, "DEFAULT_SAMPLES")
    entropy = equity_setup.entropy_of(seed)
    n_any = math.comb(r_deck, 2)
    dealt = [not p.fixed and len(p.range) == n_any
             and bool(np.all(p.range.weights == p.range.weights[0])) for p in prob.players]
    plan = _SamplePlan([p.range.masks for p in prob.players],
                       [None if p.fixed else np.cumsum(p.range.weights) for p in prob.players],
                       dealt, prob.deck_mask, prob.board_mask, prob.k, entropy, backend)
    blocks = _blocks(n_samples, int(block_size or MC_BLOCK))
    res = _run(client, _sample_task, plan, blocks, name="equity-mc", progress=progress,
               reduce=True)
    wins, ties, units, units_sq = res.arrays
    return equity_results.sampled_result(wins, ties, units, units_sq, n, n_samples, entropy,
                                     backend=_backend_name(res.backends), **common)


def _games_task(job: Any, start: int, stop: int) -> _Partial:
    """One task of :mod:`gpu_eval.equity_engine.game_equity`: board span or sample block ``[start, stop)``."""
    from gpu_eval.equity_engine import game_equity  # noqa: PLC0415

    _tune_malloc()
    fn = game_equity.exact_task if isinstance(job, game_equity.ExactPlan) \
        else game_equity.sample_task
    return _Partial(tuple(np.asarray(a, dtype=np.int64) for a in fn(job, start, stop)),
                    frozenset({getattr(job, "backend", "numpy")}))


def _games_equity(client: Any, players: Any, board: Any, dead: Any, exact: bool | None,
                  samples: int | None, seed: int | None, block_size: int | None,
                  game: str, backend: str, progress: bool | None) -> EquityResult:
    """:func:`equity` for the games of :mod:`gpu_eval.equity_engine.game_equity`: the same plan and tasks
    as in one process, so exact results are equal field for field and Monte Carlo ones too
    (blocks are always ``game_equity.SAMPLE_BLOCK`` samples; ``block_size`` sizes exact
    board spans only)."""
    from gpu_eval.equity_engine import game_equity  # noqa: PLC0415

    _check_common(backend, progress, block_size)
    _check_client(client)
    job = game_equity.plan(players, board, dead, exact=exact, samples=samples, seed=seed,
                            game=game, backend=backend)
    if isinstance(job, game_equity.ExactPlan):
        work = (len(job.pool) * job.n_boards + len(job.weights) * job.per_matchup) \
            / len(job.group)
        spans = _spans(job.n_boards, _n_exact_tasks(client, work, job.n_boards, block_size))
        name = "games-exact"
    else:
        size = game_equity.SAMPLE_BLOCK
        spans = [(s, min(s + size, job.n_samples)) for s in range(0, job.n_samples, size)]
        name = "games-mc"
    res = _run(client, _games_task, job, spans, name=name, progress=progress, reduce=True)
    return job.finish(res.arrays)


def _deals_task(job: Any, start: int, stop: int) -> _Partial:
    """One task of :mod:`gpu_eval.equity_engine.deals` (stud, razz, draw games)."""
    from gpu_eval.equity_engine import deals  # noqa: PLC0415

    _tune_malloc()
    return _Partial(deals.task(job, start, stop), frozenset({"numpy"}))


def _deals_equity(client: Any, players: Any, board: Any, dead: Any, exact: bool | None,
                  samples: int | None, seed: int | None, block_size: int | None,
                  game: str, backend: str, progress: bool | None) -> EquityResult:
    """:func:`equity` for the games without a board: the single-process plan of
    :mod:`gpu_eval.equity_engine.deals`, its grid rows (or shared-set sizes, or sample
    blocks) spread over tasks, so the result is the single-process one field for field."""
    from gpu_eval.equity_engine import deals  # noqa: PLC0415

    _check_common(backend, progress, block_size)
    _check_client(client)
    job = deals.plan(players, board, dead, exact=exact, samples=samples, seed=seed, game=game,
                     backend=backend)
    parts = _n_exact_tasks(client, job.work, job.span, block_size) if job.exact else 1
    res = _run(client, _deals_task, job, job.spans(parts), name="deals", progress=progress,
               reduce=True)
    return deals.finish(job, res.arrays, _backend_name(res.backends))


# ---------------------------------------------------------------------------------------------
# Heads-up pairs on many boards: equity_matrix() and preflop_table().
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class _PairPlan:
    pool: np.ndarray
    pairs: np.ndarray
    deck_mask: int
    k: int
    base: int
    entropy: int | None  # None: exact (board slices); else sampled boards
    backend: str


def _pair_task(plan: _PairPlan, a: int, b: int) -> _Partial:
    """Exact: completions ``[a, b)``. Monte Carlo: block ``a`` of ``b`` sampled boards."""
    _tune_malloc()
    eng, name = equity_setup.engine_for(plan.backend)
    if plan.entropy is None:
        boards = colex_masks(enumerate_boards.deck_values(plan.deck_mask), plan.k, a, b)
    else:
        rng = np.random.default_rng(block_seed(plan.entropy, a))
        boards = enumerate_boards.sample(rng, b, plan.deck_mask, plan.k)
    c = eng.showdown_counts(plan.pool, plan.pairs, boards, base=plan.base)
    return _Partial((c.wins, c.ties, c.units, c.valid), frozenset({name}))


def _pair_counts(client: Any, pool: np.ndarray, pairs: np.ndarray, deck: int, k: int,
                 base: int, exact: bool | None, samples: int | None,
                 seed: int | None, work: float, block_size: int | None, backend: str,
                 progress: bool, what: str):
    """The distributed ``gpu_eval.equity_engine.api.pair_counts``.

    Returns ``(Counts, samples or None, method or None, seed or None, backend name)``.
    """
    eng = _client_engine(backend)
    run_exact = exact is True or (exact is None
                                  and work <= equity_setup.engine_setting(eng, "EXACT_WORK_LIMIT"))
    n_boards = enumerate_boards.count(deck, k)
    if run_exact:
        n_used = method = entropy = None
        args = _spans(n_boards, _n_exact_tasks(client, work, n_boards, block_size))
    else:
        n_used = samples if samples is not None else equity_setup.engine_setting(
            eng, "DEFAULT_TABLE_SAMPLES")
        entropy = equity_setup.entropy_of(seed)
        method = f"monte carlo: {n_used:,} sampled boards"
        args = _blocks(n_used, int(block_size or BOARD_BLOCK))
    plan = _PairPlan(pool, pairs, deck, k, base, entropy, backend)
    res = _run(client, _pair_task, plan, args, name=f"{what}-{'exact' if run_exact else 'mc'}",
               progress=progress, reduce=True)
    wins, ties, units, valid = res.arrays
    counts = numpy_engine.Counts(wins, ties, units, valid, numpy_engine.pot_units(2))
    return counts, n_used, method, entropy, _backend_name(res.backends)


def equity_matrix(client: Client | None, range_a: PlayerLike, range_b: PlayerLike,
                  board: CardsLike = "", dead: CardsLike = "", exact: bool | None = None,
                  samples: int | None = None, seed: int | None = None,
                  block_size: int | None = None, backend: str = "auto",
                  progress: bool | None = False) -> MatrixResult:
    """:func:`gpu_eval.equity_matrix` on a Dask cluster.

    Parameters
    ----------
    client : distributed.Client or None
        The cluster (``None``: run the tasks here).
    range_a, range_b, board, dead, exact, samples, seed
        As for :func:`gpu_eval.equity_matrix`.
    block_size : int, optional
        Exact: completions per task. Monte Carlo: sampled boards per block (default
        :data:`BOARD_BLOCK`).
    backend : {"auto", "numpy", "cuda"}
    progress : bool or None

    Returns
    -------
    MatrixResult
        Exact: equal to the single-process result.

    Examples
    --------
    >>> m = equity_matrix(None, "AA", "KK, AKs", board="Kd 7c 2h")
    >>> m.method, round(m.equity, 4)
    ('exact: 27 pairs x 990 boards', 0.3519)
    >>> m = equity_matrix(client, "QQ+", "AK", exact=True)  # doctest: +SKIP
    """
    samples = equity_setup.check_options(exact, samples, seed)
    _check_common(backend, progress, block_size)
    _check_client(client)

    def count_pairs(pool, pairs, deck, k, base, work):
        # runs after all validation: nothing is submitted for bad input
        if equity_api.table_applies(exact, samples, 2, k, deck != enumerate_boards.FULL_DECK,
                                    False):
            return equity_api.table_pairs(pool, pairs, _table_backend(backend))
        return _pair_counts(client, pool, pairs, deck, k, base, exact, samples, seed, work,
                            block_size, backend, progress, "equity_matrix")

    return equity_api.matrix_result(range_a, range_b, board, dead, count_pairs)


def preflop_table(client: Client | None, exact: bool | None = None,
                  samples: int | None = None, seed: int | None = None,
                  cells: Sequence[tuple[str, str]] | None = None,
                  block_size: int | None = None, backend: str = "auto",
                  progress: bool | None = False) -> PreflopTable:
    """:func:`gpu_eval.preflop_table` on a Dask cluster.

    The suit-isomorphism classes of combo pairs are found here (as in a single process);
    the tasks are slices of the 2,598,960 boards (exact) or blocks of sampled boards, each
    playing every class on its boards.

    Parameters
    ----------
    client : distributed.Client or None
        The cluster (``None``: run the tasks here).
    exact, samples, seed, cells
        As for :func:`gpu_eval.preflop_table`; the whole exact table (``exact=True``) is
        the job this is for.
    block_size : int, optional
        Exact: boards per task. Monte Carlo: sampled boards per block (default
        :data:`BOARD_BLOCK`).
    backend : {"auto", "numpy", "cuda"}
    progress : bool or None

    Returns
    -------
    PreflopTable
        Exact: equal, cell for cell, to the single-process table.

    Examples
    --------
    >>> t = preflop_table(client, exact=True, progress=True)  # doctest: +SKIP
    >>> round(t.cell("AA", "KK"), 4)  # doctest: +SKIP
    0.8195
    """
    samples = equity_setup.check_options(exact, samples, seed)
    _check_common(backend, progress, block_size)
    _check_client(client)

    if equity_api.table_applies(exact, samples, 2, 5, False, False):
        name = _table_backend(backend)  # the cells from the shipped table, here
        return equity_api.preflop_table_result(cells, lambda pool, pairs, *_: (
            equity_api.table_pairs(pool, pairs, name, matrix=False)), name)

    def count_pairs(pool, pairs, deck, k, base, work):
        # runs after the cells are validated: nothing is submitted for bad input
        return _pair_counts(client, pool, pairs, deck, k, base, exact, samples, seed, work,
                            block_size, backend, progress, "preflop_table")

    return equity_api.preflop_table_result(cells, count_pairs, "numpy")


# ---------------------------------------------------------------------------------------------
# flop_sweep()
# ---------------------------------------------------------------------------------------------

@lru_cache(maxsize=1)
def _flop_classes() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(flops, class_of, canonical)``: the 22,100 flop masks in colex order, the index of
    each one's class, and each class's canonical mask (the smallest of its 24 suit images),
    classes sorted by rank (high cards first)."""
    flops = combinatorics.subset_masks(52, 3)
    canon = flops.copy()
    for perm in enumerate_boards.SUIT_PERMS:
        np.minimum(canon, enumerate_boards.permute_suits(flops, perm), out=canon)
    reps = np.unique(canon)
    ids = np.sort(_mask_ids(reps), axis=1)[:, ::-1]  # ranks high to low
    order = np.lexsort((reps, -(ids[:, 2] // 4), -(ids[:, 1] // 4), -(ids[:, 0] // 4)))
    reps = reps[order]
    class_of = _lookup(reps, canon)
    for a in (flops, class_of, reps):
        a.flags.writeable = False
    return flops, class_of, reps


def _lookup(keys: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Index in ``keys`` (distinct, any order) of each of ``values``."""
    order = np.argsort(keys)
    return order[np.searchsorted(keys, values, sorter=order)]


def _mask_ids(masks: np.ndarray) -> np.ndarray:
    """``(N, 3)`` card ids of 3-card masks, increasing."""
    bits = (masks[:, None] & cards.ID_TO_MASK[None, :]) != 0
    return np.nonzero(bits)[1].reshape(len(masks), -1).astype(np.uint8)


@dataclass(frozen=True)
class _SweepPlan:
    mask_a: np.ndarray
    weight_a: np.ndarray
    mask_b: np.ndarray
    weight_b: np.ndarray
    pair_a: np.ndarray  # compatible pairs (indices into A and B), before the flop
    pair_b: np.ndarray
    dead_mask: int
    flops: np.ndarray  # played flops (masks), grouped by class
    flop_index: np.ndarray  # their colex index among the 22,100 flops (Monte Carlo streams)
    mult: np.ndarray  # flops of the class each one stands for
    offsets: np.ndarray  # class c plays flops[offsets[c]:offsets[c + 1]]
    samples: int | None  # None: exact over turn and river
    entropy: int | None
    backend: str


def _sweep_task(plan: _SweepPlan, c0: int, c1: int) -> tuple:
    """Classes ``c0 .. c1 - 1``: ``(num, den, units, showdowns, backends)`` per class.

    For each played flop F: ``den`` = total weight of the matchups that fit with F,
    ``num`` = their weighted equity sum, ``units`` = pot units won by A (2 per pot) summed
    over matchups and turn-river boards (or samples), ``showdowns`` = their number; each
    times the number of flops F stands for.
    """
    _tune_malloc()
    eng, name = equity_setup.engine_for(plan.backend)
    nc = c1 - c0
    num, den = np.zeros(nc), np.zeros(nc)
    units, shows = np.zeros(nc, np.int64), np.zeros(nc, np.int64)
    pm = plan.mask_a[plan.pair_a] | plan.mask_b[plan.pair_b]
    pw = plan.weight_a[plan.pair_a] * plan.weight_b[plan.pair_b]
    scale = numpy_engine.pot_units(2)
    two = combinatorics.subset_masks(52, 2)  # all turn-river pairs; filtered per flop
    for c in range(c0, c1):
        for f in range(plan.offsets[c], plan.offsets[c + 1]):
            flop = plan.flops[f]
            if int(flop) & plan.dead_mask:
                continue  # holds a dead card: never dealt, weight 0
            keep = (pm & flop) == 0
            if not keep.any():
                continue  # no matchup fits with this flop: weight 0
            sa, sb, w = plan.pair_a[keep], plan.pair_b[keep], pw[keep]
            deck = enumerate_boards.FULL_DECK & ~(int(flop) | plan.dead_mask)
            if plan.samples is None:
                pool, inv = np.unique(np.concatenate([plan.mask_a[sa], plan.mask_b[sb]]),
                                      return_inverse=True)
                # The completions of the deck, in colex order (a filter keeps the order).
                boards = two[(two & ~np.uint64(deck)) == 0]
                cnt = eng.showdown_counts(pool, inv.reshape(2, -1).T, boards, base=int(flop))
                e = cnt.equity()[:, 0]
                u = int((cnt.wins[:, 0] * scale + cnt.units[:, 0]).sum())
                s = int(cnt.valid.sum())
                f_num, f_den = float(w @ e), float(w.sum())
            else:
                ua, ub = np.unique(sa), np.unique(sb)
                out = eng.sample_counts(
                    [plan.mask_a[ua], plan.mask_b[ub]],
                    [np.cumsum(plan.weight_a[ua]), np.cumsum(plan.weight_b[ub])],
                    deck, int(flop), 2, plan.samples,
                    block_seed(plan.entropy, int(plan.flop_index[f])))
                u, s = int(out[2][0]), plan.samples
                f_den = float(w.sum())
                f_num = f_den * u / (scale * s)
            g = int(plan.mult[f])
            num[c - c0] += g * f_num
            den[c - c0] += g * f_den
            units[c - c0] += g * u
            shows[c - c0] += g * s
    return num, den, units, shows, name


@dataclass(frozen=True, eq=False)
class FlopSweep:
    """Range A's equity against range B on each of the 1,755 flop classes (:func:`flop_sweep`).

    A flop class is a set of flops that a suit permutation maps onto each other (``AcKd7h``
    and ``AsKh7c`` are one class); each is shown by its canonical member.

    Attributes
    ----------
    labels : tuple of str
        Range A and range B as given.
    flops : tuple of str
        The 1,755 canonical flops, cards high to low (``"AcKd7h"``), sorted by rank.
    flop_ids : numpy.ndarray, shape (1755, 3)
        The same as card ids (high to low).
    weights : numpy.ndarray of int64
        Flops in each class (1 .. 24); sums to C(52, 3) = 22,100.
    matchup_weight : numpy.ndarray
        Over the flops F of the class, the total weight of the matchups that fit with F
        (for ranges of weight 1: the number of compatible (A combo, B combo) pairs).
    equity : numpy.ndarray
        A's equity on the class: over its flops, the matchup-weighted mean of the equity
        over the turn and river; NaN when no matchup fits.
    units, showdowns : numpy.ndarray of int64
        Unweighted integer totals over the class: pot units A wins (2 per pot, 1 per split)
        and showdowns played (exact: matchups x 990 turn-river boards each).
    overall : float
        ``sum(matchup_weight * equity) / sum(matchup_weight)``: equal to A's exact preflop
        equity against B (see :func:`flop_sweep`).
    exact : bool
    samples : int or None
        Monte Carlo: showdowns per played flop.
    seed, backend, method, dead
        As for :class:`gpu_eval.EquityResult`.
    """

    labels: tuple[str, str]
    flops: tuple[str, ...]
    flop_ids: np.ndarray
    weights: np.ndarray
    matchup_weight: np.ndarray
    equity: np.ndarray
    units: np.ndarray
    showdowns: np.ndarray
    overall: float
    exact: bool
    samples: int | None
    backend: str
    method: str
    seed: int | None = None
    dead: str = ""

    @property
    def ranks(self) -> np.ndarray:
        """``(1755, 3)`` ranks of each canonical flop, high to low (0 = deuce .. 12 = ace)."""
        return self.flop_ids // 4

    @property
    def suits(self) -> np.ndarray:
        """Distinct suits on each flop: 1 monotone, 2 two-tone, 3 rainbow."""
        s = self.flop_ids % 4
        return 1 + (s[:, 0] != s[:, 1]) + ((s[:, 2] != s[:, 0]) & (s[:, 2] != s[:, 1]))

    @property
    def texture(self) -> np.ndarray:
        """Each flop's texture: ``"trips"``, ``"paired"``, or ``"monotone"`` / ``"two-tone"``
        / ``"rainbow"`` for unpaired flops.

        Examples
        --------
        >>> s = flop_sweep(None, "AhKh", "QsQd")  # doctest: +SKIP
        >>> sorted(set(s.texture))  # doctest: +SKIP
        ['monotone', 'paired', 'rainbow', 'trips', 'two-tone']
        """
        r = self.ranks
        distinct = 1 + (r[:, 0] != r[:, 1]) + (r[:, 1] != r[:, 2])
        out = np.array(["monotone", "two-tone", "rainbow"], dtype=object)[self.suits - 1]
        out[distinct == 2] = "paired"
        out[distinct == 1] = "trips"
        return out

    def mean_by(self, key: np.ndarray) -> dict:
        """Matchup-weighted equity of the flops grouped by ``key`` (one label per flop).

        Examples
        --------
        >>> s.mean_by(s.texture)["monotone"]  # doctest: +SKIP
        0.35...
        """
        key = np.asarray(key)
        out = {}
        for k in dict.fromkeys(key.tolist()):
            sel = (key == k) & (self.matchup_weight > 0)
            w = self.matchup_weight[sel]
            out[k] = float(w @ self.equity[sel] / w.sum()) if w.sum() > 0 else float("nan")
        return out

    def to_frame(self):
        """A pandas DataFrame, a row per flop class (needs the ``frames`` extra).

        Examples
        --------
        >>> flop_sweep(None, "AKs", "QQ").to_frame()["flops"].sum()   # doctest: +SKIP
        22100
        """
        from gpu_eval.frames import sweep_frame  # noqa: PLC0415 -- pandas only when asked for
        return sweep_frame(self)

    def plot(self, *, ax=None, **kwargs):
        """A's equity by the flop's two highest ranks (:meth:`by_top_two`) as a 13 x 13
        heatmap; returns the matplotlib Axes.

        Examples
        --------
        >>> flop_sweep(None, "AKs", "QQ").plot()   # doctest: +SKIP
        <Axes: ...>
        """
        from gpu_eval.frames import plot_sweep  # noqa: PLC0415 -- matplotlib only when asked for
        return plot_sweep(self, ax=ax, **kwargs)

    def by_top_two(self) -> np.ndarray:
        """``(13, 13)`` matchup-weighted equity by the flop's highest rank (row) and
        second rank (column), ranks 0 = deuce .. 12 = ace; NaN above the diagonal.

        A paired flop whose pair is on top (``KKx``) sits on the diagonal.
        """
        r = self.ranks
        num = np.zeros((13, 13))
        den = np.zeros((13, 13))
        ok = self.matchup_weight > 0
        np.add.at(num, (r[ok, 0], r[ok, 1]), self.matchup_weight[ok] * self.equity[ok])
        np.add.at(den, (r[ok, 0], r[ok, 1]), self.matchup_weight[ok])
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(den > 0, num / den, np.nan)

    def __str__(self) -> str:
        """The method, the overall equity and the best and worst flops for A."""
        head = f"flop sweep, {self.method} ({self.backend})"
        if self.dead:
            head += f", dead {self.dead}"
        lines = [head, f"{self.labels[0]!r} vs {self.labels[1]!r}: "
                       f"{equity_results.pct(self.overall)} over {int(self.weights.sum()):,} flops "
                       f"in {len(self.flops):,} classes"]
        ok = np.flatnonzero(self.matchup_weight > 0)
        if len(ok):
            order = ok[np.argsort(self.equity[ok], kind="stable")]
            for what, i in (("worst", order[0]), ("best", order[-1])):
                lines.append(f"{what}: {self.flops[i]} {equity_results.pct(self.equity[i])}")
        return "\n".join(lines)


def flop_sweep(client: Client | None, range_a: PlayerLike, range_b: PlayerLike,
               dead: CardsLike = "", exact: bool = True, samples: int | None = None,
               seed: int | None = None, block_size: int | None = None,
               backend: str = "auto", progress: bool | None = False) -> FlopSweep:
    """Equity of range A against range B on every flop, by suit-isomorphism class.

    The 22,100 flops fall into 1,755 classes under the 24 permutations of suits. On each
    flop F, A's equity is taken over the matchups (A combo, B combo) that fit with F and
    the dead cards (card removal per flop) and over the turn and river (exact, 990 boards
    per matchup, by default). The flops of one class have the same equity when both ranges
    and the dead cards are suit-symmetric (``"AK"``, ``"QQ+"``); otherwise (``"AhKh"``)
    every flop is played, except that flops equal under the permutations that do keep the
    ranges are played once.

    The invariant: dealing a flop to a matchup is uniform over the C(R, 3) flops that avoid
    its cards, the same number for every matchup, so with ``W_F`` the total weight of the
    matchups that fit with flop F, A's preflop equity is
    ``sum_F W_F * equity_F / sum_F W_F`` -- the :attr:`FlopSweep.overall` returned here.
    Counted in integers, every 5-card board is the flop-plus-turn-river of 10 flops, so
    ``units.sum() == 10 * (2 * wins + ties)`` of A in the exact single-process preflop
    :func:`gpu_eval.equity` (unweighted totals over matchups), and
    ``showdowns.sum() == 10 * matchups * boards``.

    Parameters
    ----------
    client : distributed.Client or None
        The cluster (``None``: run the tasks here, one after another).
    range_a, range_b : str, Range or card ids
        Hands or ranges, as for :func:`gpu_eval.equity_matrix`.
    dead : str or array_like, optional
        Cards out of play (removed from both ranges and from every flop).
    exact : bool
        True (default): every turn and river. False: ``samples`` Monte Carlo showdowns per
        played flop, from the stream :func:`block_seed` ``(seed, colex index of the flop)``,
        so the answer depends on ``seed`` and ``samples`` only.
    samples : int, optional
        Monte Carlo showdowns per flop (default 10,000).
    seed : int, optional
        Seed for Monte Carlo.
    block_size : int, optional
        Flop classes per task (default: four tasks per worker thread, at least 1,755 / 256
        classes each); never changes the result.
    backend : {"auto", "numpy", "cuda"}
    progress : bool or None

    Returns
    -------
    FlopSweep
        Per class ``equity``, ``weights`` (flops per class), ``matchup_weight``,
        integer ``units`` / ``showdowns``, and the ``overall`` equity.

    Raises
    ------
    ValueError
        Bad range or card text, a card used twice, a range emptied by the dead cards, no
        compatible matchup (before any task is submitted).

    Examples
    --------
    >>> s = flop_sweep(None, "AKs", "QQ")
    >>> len(s.flops), int(s.weights.sum()), s.method
    (1755, 22100, 'exact: 24 matchups x 990 turn-river boards per flop')
    >>> r = equity_api.equity(["AKs", "QQ"])
    >>> bool(abs(s.overall - r.equity[0]) < 1e-12)
    True
    >>> int(s.units.sum()) == 10 * (2 * int(r.wins[0]) + int(r.ties[0]))
    True
    """
    if not isinstance(exact, bool):
        raise TypeError(f"exact must be True or False, got {exact!r}")
    samples = equity_setup.check_options(exact, samples, seed)
    _check_common(backend, progress, block_size)
    _check_client(client)
    prob = equity_setup.prepare([range_a, range_b], "", dead)
    pa, pb = prob.players
    ia, ib = np.nonzero((pa.range.masks[:, None] & pb.range.masks[None, :]) == 0)
    if len(ia) == 0:
        raise equity_setup.no_matchup_error(prob)
    group = equity_api.symmetry_groups(prob)

    # Played flops: one per orbit of the group that keeps the problem, inside each class.
    flops, class_of, reps = _flop_classes()
    gcanon = flops.copy()
    for perm in group:
        np.minimum(gcanon, enumerate_boards.permute_suits(flops, perm), out=gcanon)
    played, first, mult = np.unique(gcanon, return_index=True, return_counts=True)
    pclass = class_of[first]
    order = np.lexsort((played, pclass))
    played, first, mult, pclass = played[order], first[order], mult[order], pclass[order]
    offsets = np.searchsorted(pclass, np.arange(len(reps) + 1))
    n_samples = None
    entropy = None
    if not exact:
        n_samples = samples if samples is not None else 10_000
        entropy = equity_setup.entropy_of(seed)
    plan = _SweepPlan(pa.range.masks, pa.range.weights, pb.range.masks, pb.range.weights,
                      ia.astype(np.int32), ib.astype(np.int32), prob.dead_mask, played,
                      first, mult, offsets, n_samples, entropy, backend)
    n_cls = len(reps)
    per_task = int(block_size) if block_size is not None else max(
        -(-n_cls // 256), -(-n_cls // (4 * _threads(client))))
    spans = [(c, min(c + per_task, n_cls)) for c in range(0, n_cls, per_task)]
    parts = _run(client, _sweep_task, plan, spans, name="flop_sweep", progress=progress,
                 reduce=False)
    num = np.concatenate([p[0] for p in parts])
    den = np.concatenate([p[1] for p in parts])
    units = np.concatenate([p[2] for p in parts])
    shows = np.concatenate([p[3] for p in parts])
    with np.errstate(invalid="ignore", divide="ignore"):
        eq = np.where(den > 0, num / den, np.nan)
    overall = float(num.sum() / den.sum())
    ids = np.sort(_mask_ids(reps), axis=1)[:, ::-1].copy()
    texts = tuple(cards.format(ids))
    if exact:
        per = math.comb(52 - 7 - len(prob.dead), 2)
        method = (f"exact: {len(ia):,} matchup{'s' * (len(ia) != 1)} x {per:,} turn-river "
                  f"boards per flop")
    else:
        method = f"monte carlo: {n_samples:,} samples per flop"
    return FlopSweep(
        labels=(pa.label, pb.label), flops=texts, flop_ids=read_only(ids),
        weights=read_only(np.bincount(class_of, minlength=n_cls).astype(np.int64)),
        matchup_weight=read_only(den), equity=read_only(eq), units=read_only(units),
        showdowns=read_only(shows),
        overall=overall, exact=exact, samples=n_samples,
        backend=_backend_name(frozenset(p[4] for p in parts)), method=method, seed=entropy,
        dead=equity_setup.cards_text(prob.dead) if prob.dead else "")


# ---------------------------------------------------------------------------------------------
# evaluation_counts()
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class EvaluationCounts:
    """Per-strength counts of the k-card hands ``start .. stop - 1`` (:func:`evaluation_counts`).

    Attributes
    ----------
    k : int
        Cards per hand.
    start, stop : int
        The slice of colex-ordered hands counted (all: ``0, C(52, k)``).
    counts : numpy.ndarray of int64, shape (7463,)
        ``counts[s]``: hands of strength ``s`` (``counts[0] == 0``).
    slices : int
        Tasks the job was cut into.
    backend : str
        Engines the workers used.
    """

    k: int
    start: int
    stop: int
    counts: np.ndarray
    slices: int
    backend: str

    @property
    def total(self) -> int:
        """Hands counted."""
        return int(self.counts.sum())

    @property
    def distinct(self) -> int:
        """Distinct strengths seen (7,462 for k = 5, 4,824 for k = 7)."""
        return int(np.count_nonzero(self.counts))

    @property
    def categories(self) -> np.ndarray:
        """Hands per category, ``int64[9]``: 0 high card .. 8 straight flush."""
        from gpu_eval.strength import category

        cat = category(np.arange(1, NUM_STRENGTHS))
        return np.bincount(cat, weights=self.counts[1:], minlength=9).astype(np.int64)

    def category_counts(self) -> dict[str, int]:
        """Hands per category by name, from straight flush down.

        Examples
        --------
        >>> evaluation_counts(None, k=5).category_counts()["straight flush"]
        40
        """
        c = self.categories
        return {CATEGORY_KEYS[i]: int(c[i]) for i in range(8, -1, -1)}


def _eval_counts_task(_: None, k: int, start: int, stop: int, backend: str) -> _Partial:
    _tune_malloc()
    where = backend_choice.resolve(backend)
    if where == "cuda":
        from gpu_eval.cuda.holdem import enumerate_counts_cuda  # imports CuPy

        return _Partial((enumerate_counts_cuda(k, start, stop),), frozenset({"cuda"}))
    from gpu_eval.evaluator.bitmask import evaluate_masks

    hist = np.zeros(NUM_STRENGTHS, dtype=np.int64)
    for s in range(start, stop, _EVAL_CHUNK):
        masks = colex_masks(cards.ID_TO_MASK, k, s, min(stop, s + _EVAL_CHUNK))
        hist += np.bincount(evaluate_masks(masks), minlength=NUM_STRENGTHS)
    return _Partial((hist,), frozenset({"numpy"}))


def evaluation_counts(client: Client | None, k: int = 7, slices: int | None = None,
                      start: int = 0, stop: int | None = None, backend: str = "auto",
                      progress: bool | None = False) -> EvaluationCounts:
    """Evaluate every k-card hand (or a slice of them) and count each strength.

    The C(52, k) hands are numbered in colex order (:func:`gpu_eval.combinatorics.unrank`);
    each task unranks the start of its slice and walks it (on a GPU worker,
    ``gpu_eval.cuda.holdem.enumerate_counts_cuda``; on NumPy, the bitmask evaluator), and the
    integer histograms are summed, so the counts do not depend on how the work is cut.

    Parameters
    ----------
    client : distributed.Client or None
        The cluster (``None``: run the slices here).
    k : int
        Cards per hand, 5..9.
    slices : int, optional
        Tasks (default: about 2^22 hands each, at least two per worker thread).
    start, stop : int
        Count only hands ``start .. stop - 1`` (default: all).
    backend : {"auto", "numpy", "cuda"}
    progress : bool or None

    Returns
    -------
    EvaluationCounts
        ``counts`` per strength, ``categories``, ``distinct``, ``total``.

    Examples
    --------
    >>> c = evaluation_counts(None, k=5)
    >>> c.total, c.distinct, c.categories.tolist()
    (2598960, 7462, [1302540, 1098240, 123552, 54912, 10200, 5108, 3744, 624, 40])
    >>> c = evaluation_counts(client, k=7, progress=True)  # doctest: +SKIP
    >>> c.distinct, c.category_counts()["straight flush"]  # doctest: +SKIP
    (4824, 41584)
    """
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 5 <= k <= 9:
        raise ValueError(f"k must be an integer 5..9, got {k!r}")
    k = int(k)
    total = math.comb(52, k)
    stop = total if stop is None else stop
    for what, v in (("start", start), ("stop", stop)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise TypeError(f"{what} must be an integer, got {v!r}")
    start, stop = int(start), int(stop)
    if not 0 <= start <= stop <= total:
        raise ValueError(f"need 0 <= start <= stop <= C(52, {k}) = {total:,}, got "
                         f"start={start}, stop={stop}")
    _check_common(backend, progress, None)
    if slices is not None and (isinstance(slices, bool) or not isinstance(
            slices, (int, np.integer)) or slices < 1):
        raise ValueError(f"slices must be a positive integer, got {slices!r}")
    _check_client(client)
    n = stop - start
    if slices is None:
        slices = max(-(-n // (1 << 22)), 2 * _threads(client) if client is not None else 1)
    spans = [(k, start + a, start + b, backend) for a, b in _spans(n, slices)] if n else []
    if not spans:
        counts = np.zeros(NUM_STRENGTHS, dtype=np.int64)
        return EvaluationCounts(k, start, stop, read_only(counts), 0, "numpy")
    res = _run(client, _eval_counts_task, None, spans,
               name=f"evaluation_counts-k{k}", progress=progress, reduce=True)
    return EvaluationCounts(k, start, stop, read_only(res.arrays[0]), len(spans),
                            _backend_name(res.backends))
