"""Running the planner's plans, and plain task lists, on a Dask cluster (or here, one by one).

:func:`run_plan` cuts a :class:`~gpu_eval.equity_engine.planner.Plan` into spans (exact work:
about :data:`TASK_WORK` per task and at least two tasks per worker thread; Monte Carlo:
blocks of the plan's size, aligned to the engines' random blocks), submits them, sums the
integer parts in a tree on the workers (or joins them in span order) and finishes the result
on the client: the same integers a single process gives. :func:`run_tasks` is the generic
machinery under it (cancel on interrupt, scatter of large problems, malloc tuning).
"""

from __future__ import annotations

import ctypes
import math
import os
import pickle
import sys
import uuid
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from gpu_eval import backend_choice
from gpu_eval.equity_engine.holdem.strategies import BOARD_BLOCK, MC_BLOCK
from gpu_eval.equity_engine.planner import Part, Plan, tag

__all__ = ["run_plan", "run_tasks", "block_seed", "spans", "check_client", "check_common",
           "require_dask", "threads", "tune_malloc", "MC_BLOCK", "BOARD_BLOCK", "TASK_WORK",
           "INLINE_BYTES"]

#: Exact jobs aim at about this much work (evaluations plus comparisons) per task, and at
#: least two tasks per worker thread; the split never changes an exact result.
TASK_WORK = 2e8
#: Problem descriptions up to this size travel inside every task; bigger ones are scattered
#: to every worker once.
INLINE_BYTES = 1 << 18
# Reduction fan-in: partial results are summed in groups of this many on the cluster.
_FAN_IN = 8


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



def spans(total: int, n_pieces: int) -> list[tuple[int, int]]:
    """``[0, total)`` cut into ``n_pieces`` near-equal, non-empty, consecutive spans.

    Examples
    --------
    >>> spans(10, 3)
    [(0, 3), (3, 6), (6, 10)]
    """
    n_pieces = max(1, min(int(n_pieces), total))
    edges = [total * i // n_pieces for i in range(n_pieces + 1)]
    return [(edges[i], edges[i + 1]) for i in range(n_pieces) if edges[i] < edges[i + 1]]


_MALLOC_TUNED = False


def tune_malloc() -> None:
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


def require_dask():
    try:
        import distributed
    except ImportError as exc:  # pragma: no cover - exercised only without dask
        raise ImportError("gpu_eval.distributed needs Dask: "
                          "pip install 'dask[distributed]' (the distributed extra of gpu-eval)"
                          ) from exc
    return distributed


def check_client(client: Any) -> None:
    if client is None:
        return
    distributed = require_dask()
    if not isinstance(client, distributed.Client):
        raise TypeError(f"client must be a distributed.Client (or None to run here), got "
                        f"{type(client).__name__}")


def check_common(backend: str, progress: Any, block_size: Any) -> None:
    if backend not in backend_choice.BACKENDS:
        raise ValueError(f"backend={backend!r}: expected one of "
                         f"{', '.join(backend_choice.BACKENDS)}")
    if progress is not None and not isinstance(progress, bool):
        raise TypeError(f"progress must be True or False, got {progress!r}")
    if block_size is not None and (isinstance(block_size, bool)
                                   or not isinstance(block_size, (int, np.integer))
                                   or block_size < 1):
        raise ValueError(f"block_size must be a positive integer, got {block_size!r}")


def threads(client: Any) -> int:
    """Worker threads in the cluster (1 when running here)."""
    if client is None:
        return 1
    return max(1, sum(client.nthreads().values()))


def n_exact_tasks(client: Any, work: float, n_items: int, block_size: int | None) -> int:
    """How many spans an exact job of ``work`` over ``n_items`` is cut into."""
    if block_size is not None:
        return max(1, -(-n_items // int(block_size)))
    # At least two per thread so a slow or lost worker does not hold up the end.
    want = max(math.ceil(work / TASK_WORK), 2 * threads(client) if client is not None else 1)
    return max(1, min(want, n_items))


def _call(fn: Callable, shared: Any, *args: Any) -> Any:
    tune_malloc()
    return fn(shared, *args)


def run_tasks(client: Any, fn: Callable, shared: Any, args: Sequence[tuple], *, name: str,
         progress: bool, reduce: bool) -> Any:
    """``fn(shared, *a)`` for each ``a`` in ``args``: summed with :meth:`Part.add` or in order.

    On a client the calls are tasks named ``gpu_eval-<name>``, ``shared`` travels inside
    each task (or, when large, is scattered to every worker once), and the sum is a tree of
    ``_add`` tasks on the workers. Any exception while waiting, ``KeyboardInterrupt``
    included, cancels everything submitted here before it propagates.
    """
    if client is None:
        out = [_call(fn, shared, *a) for a in args]
        return Part.add(*out) if reduce else out
    distributed = require_dask()
    token = uuid.uuid4().hex[:10]
    prefix = f"gpu_eval-{name}"
    level: list = []
    try:
        if len(pickle.dumps(shared, protocol=5)) <= INLINE_BYTES:
            plan = shared  # small: inside each task, which then may run on any worker
        else:
            # Large: one copy per worker (a task depending on a single copy would be placed
            # on that worker first); a worker that joins later fetches it from a peer.
            plan = client.scatter(shared, broadcast=True, hash=False)
        level = [client.submit(_call, fn, plan, *a, key=f"{prefix}-{token}-{i}")
                 for i, a in enumerate(args)]
        depth = 0
        while reduce and len(level) > 1:
            # Dropping the references to a level lets workers free each partial result as
            # soon as its sum has it (a lost one is recomputed from the graph).
            level = [client.submit(Part.add, *level[i:i + _FAN_IN],
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


def run_plan(client: Any, p: Plan, *, block_size: int | None, name: str,
             progress: bool | None) -> Any:
    """Run a planner plan on ``client`` (``None``: its spans here, one after another).

    Exact plans are cut by work (or ``block_size`` items per task); Monte Carlo plans in
    blocks of ``block_size`` (default the plan's) rounded up to the plan's alignment.
    """
    if p.task is None or p.total == 0:  # answered on the client: nothing to submit
        return tag(p.finish(Part((), frozenset({p.backend}))), p.strategy)
    if p.block is not None:
        cuts = p.spans(block_size or p.block)
    else:
        cuts = spans(p.total, n_exact_tasks(client, p.work, p.total, block_size))
    out = run_tasks(client, p.task, p.job, cuts, name=f"{name}-{'mc' if p.block else 'exact'}",
                    progress=bool(progress), reduce=p.combine == "sum")
    return tag(p.finish(out if p.combine == "sum" else Part.concat(out)), p.strategy)
