"""Scaling of gpu_eval.distributed with the number of Dask workers on this machine.

Run from the repository root (needs ``pip install -e '.[distributed]'``)::

    python benchmarks/bench_distributed.py                 # 1 and 2 workers, median of 3
    python benchmarks/bench_distributed.py --workers 1 2 4 --repeat 5

Cases
-----
1. Flop sweep, ``AK`` vs ``QQ``, exact: 1,755 flop classes x 96 matchups x 990 turn-river
   boards (``flop_sweep``).
2. Monte Carlo equity, ``AA`` vs ``KK`` vs ``random``, 2,000,000 showdowns in blocks of
   2^18 (``equity(..., exact=False)``); the same seed gives the same answer on every row.

Each cluster is a ``LocalCluster(n_workers=n, threads_per_worker=1, processes=True)``; the
first run on a fresh cluster (worker imports, table builds) is timed separately and the
median of the next ``--repeat`` runs is reported, with the speed-up over one worker. The
"here" row runs the same tasks in this process (``client=None``), without Dask.

Note: a NumPy worker still runs large chunks on all cores of its machine (the engine's own
thread pool), so on a small machine one worker already uses most of the CPU and more
workers gain little; the figure that matters for scaling out is the GPU one: one worker per
GPU (dask-cuda's ``LocalCUDACluster``) or per machine.

With a CUDA device present the flop sweep also runs on one GPU (``backend="cuda"``, in this
process, ``client=None``); without one that line says why it is skipped.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ["PYTHONPATH"] = os.pathsep.join(
    [str(ROOT)] + [p for p in [os.environ.get("PYTHONPATH")] if p])  # for worker processes

import gpu_eval.distributed as ged  # noqa: E402
from gpu_eval import backend_choice  # noqa: E402

CASES = {
    "flop sweep AK vs QQ (exact)": lambda c, backend="auto": ged.flop_sweep(
        c, "AK", "QQ", backend=backend),
    "MC AA vs KK vs random, 2M": lambda c, backend="auto": ged.equity(
        c, ["AA", "KK", "random"], exact=False, samples=2_000_000, seed=1, backend=backend),
}


def value(r) -> str:
    if isinstance(r, ged.FlopSweep):
        return f"overall {r.overall:.6f} ({r.backend})"
    return f"equity {r.equity[0]:.6f} +- {r.stderr[0]:.6f} ({r.backend})"


def timed(fn, repeat: int):
    t = time.perf_counter()
    result = fn()
    first = time.perf_counter() - t
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t)
    return first, statistics.median(times), result


def row(case: str, where: str, first: float, median: float, base: float | None, val: str):
    speed = f"{base / median:5.2f}x" if base else "      "
    print(f"{case:<30} {where:<12} {first:8.2f} s {median:8.2f} s  {speed}   {val}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        print("dask[distributed] is not installed: pip install -e '.[distributed]'")
        return
    print(f"{os.cpu_count()} CPUs; NumPy workers; median of {args.repeat} warm runs\n")
    print(f"{'case':<30} {'workers':<12} {'first':>10} {'median':>10}  speed-up")
    for case, job in CASES.items():
        first, base_here, result = timed(lambda: job(None, "numpy"), args.repeat)
        row(case, "here", first, base_here, None, value(result))
        base = None
        for n in args.workers:
            with LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                              dashboard_address=":0") as cluster, Client(cluster) as client:
                client.wait_for_workers(n)
                first, med, result = timed(lambda: job(client, "numpy"), args.repeat)
            base = base or med
            row(case, f"{n} worker{'s' * (n != 1)}", first, med, base, value(result))
    print()
    gpu_sweep(args.repeat)


def gpu_sweep(repeat: int) -> None:
    ok, why = backend_choice.cuda_status()
    if not ok:
        print(f"single-GPU flop sweep: skipped ({why})")
        return
    job = CASES["flop sweep AK vs QQ (exact)"]
    try:
        first, med, result = timed(lambda: job(None, "cuda"), repeat)
    except NotImplementedError as exc:  # the CUDA equity engine is not there yet
        print(f"single-GPU flop sweep: skipped ({exc})")
        return
    row("flop sweep AK vs QQ (exact)", "1 GPU", first, med, None, value(result))


if __name__ == "__main__":
    main()
