"""The batch engine's offer to the planner: :func:`gpu_eval.equity_batch`'s spots counted on
the device (flop, turn and river: :mod:`gpu_eval.equity_engine.batch.cuda_engine`, a warp per
spot) or on the host (:mod:`gpu_eval.equity_engine.batch.spot_counts`), always exact.

Examples
--------
>>> [s.name for s in STRATEGIES]
['spots on device', 'spots on host']
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from gpu_eval import backend_choice
from gpu_eval.equity_engine import enumerate_boards
from gpu_eval.equity_engine.batch import spot_counts
from gpu_eval.equity_engine.planner import Engine, Part, Plan, Request, Strategy
from gpu_eval.progress import Progress

__all__ = ["ENGINE", "STRATEGIES", "host_spot_task", "device_spot_task"]

#: The batch engine: every spot is counted exactly, whatever the work (the caller asked for
#: those spots), so its limit is unbounded on both backends.
ENGINE = Engine("batch", rates={"numpy": 8e7, "cuda": 2e10},
                exact_seconds={"numpy": math.inf, "cuda": math.inf})


class SpotsOnDevice(Strategy):
    """:func:`gpu_eval.equity_batch` flop, turn and river spots on the GPU
    (:mod:`gpu_eval.equity_engine.batch.cuda_engine`: a warp per spot, the host's integers)."""

    name = "spots on device"
    kind = "batch"
    engine = ENGINE

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
    engine = ENGINE

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


#: The batch strategies, the device first.
STRATEGIES: list[Strategy] = [SpotsOnDevice(), SpotsOnHost()]


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
