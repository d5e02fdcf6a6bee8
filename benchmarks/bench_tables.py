"""Throughput of the solver-table machinery (gpu_eval.solver_tables), NumPy and CUDA.

Row ``index``: :class:`gpu_eval.HandIndexer` on random hands, NumPy (wall clock and the
process's CPU time, medians of several repeats), beside a naive per-hand Python canonicaliser
(the least of a hand's 24 suit relabellings, each round's cards sorted) timed on a sample and
scaled, in the same run; and ``unindex``. With ``--gpu`` (a CUDA device), the kernel on
device-resident hands (CUDA events around the call) and NumPy input through the device
(wall clock, in -> out).

Usage: python benchmarks/bench_tables.py [--rows index,unindex] [--n 4000000]
       [--naive-n 20000] [--repeats 5] [--gpu] [--gpu-n 67108864]
"""

from __future__ import annotations

import argparse
import itertools
import os
import platform
import statistics
import time

import numpy as np

import gpu_eval as ge
from gpu_eval.bench import median_event_seconds, median_rate, random_hands

LAYOUTS = ((2, 5), (2, 4), (2, 3), (2, 3, 1, 1), (7,))
PERMS = list(itertools.permutations(range(4)))


def row(name: str, rate: float, n: int, peer: float | None = None, unit: str = "hands",
        extra: str = "") -> None:
    ratio = f"{rate / peer:9.1f}x" if peer else " " * 10
    print(f"  {name:<52} {rate / 1e6:9.3f} M {unit}/s {ratio}  (n={n:,}){extra}")


def cpu_rate(fn, n: int, repeats: int) -> float:
    """Hands per second of CPU time (all threads of this process), median of ``repeats``."""
    fn()
    times = []
    for _ in range(repeats):
        t0 = time.process_time()
        fn()
        times.append(time.process_time() - t0)
    return n / statistics.median(times)


def naive_canonical(hand: list[int], rounds: tuple[int, ...]) -> tuple:
    """The obvious per-hand way: every suit relabelling, each round's cards sorted, the least."""
    best = None
    for perm in PERMS:
        relabelled = [(c & ~3) | perm[c & 3] for c in hand]
        form, at = [], 0
        for k in rounds:
            form.append(tuple(sorted(relabelled[at:at + k])))
            at += k
        form = tuple(form)
        if best is None or form < best:
            best = form
    return best


def bench_index(n: int, naive_n: int, repeats: int) -> None:
    print("\nindex: HandIndexer.index, NumPy (ratio vs the naive per-hand canonicaliser, scaled;"
          " CPU rate = hands per second of process CPU time)")
    for layout in LAYOUTS:
        total = sum(layout)
        hands = random_hands(n, total, seed=total)
        idx = ge.HandIndexer(layout)
        sample = hands[:naive_n].tolist()
        t0 = time.perf_counter()
        for h in sample:
            naive_canonical(h, layout)
        naive = naive_n / (time.perf_counter() - t0)
        row(f"naive Python canonicaliser {layout}", naive, naive_n)
        wall = median_rate(lambda: idx.index(hands, backend="numpy"), n, repeats)
        cpu = cpu_rate(lambda: idx.index(hands, backend="numpy"), n, repeats)
        row(f"gpu_eval numpy index {layout}", wall, n, naive,
            extra=f"  CPU rate {cpu / 1e6:.1f} M/s")


def bench_unindex(n: int, repeats: int) -> None:
    print("\nunindex: HandIndexer.unindex, NumPy")
    rng = np.random.default_rng(1)
    for layout in LAYOUTS:
        idx = ge.HandIndexer(layout)
        r = len(layout) - 1
        m = min(n, 1_000_000)
        indices = rng.integers(0, idx.size(r), m)
        row(f"gpu_eval numpy unindex {layout}", median_rate(
            lambda: idx.unindex(r, indices, backend="numpy"), m, repeats), m)


def bench_gpu(n: int, repeats: int) -> None:
    from gpu_eval import backend_choice

    ok, why = backend_choice.cuda_status()
    if not ok:
        print(f"\nGPU rows skipped: {why}")
        return
    import cupy

    print("\nindex on the GPU: kernel ge_hand_index (CUDA events), and NumPy in -> out")
    for layout in LAYOUTS:
        idx = ge.HandIndexer(layout)
        hands = random_hands(n, sum(layout), seed=sum(layout))
        d = cupy.asarray(hands)
        sec = median_event_seconds(lambda: idx.index(d), repeats)
        row(f"gpu_eval cuda index {layout}, device-resident", n / sec, n)
        m = min(n, 1 << 24)
        row(f"gpu_eval cuda index {layout}, NumPy in -> out", median_rate(
            lambda: idx.index(hands[:m], backend="cuda"), m, repeats), m)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", default="index,unindex")
    p.add_argument("--n", type=int, default=4_000_000)
    p.add_argument("--naive-n", type=int, default=20_000)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--gpu", action="store_true")
    p.add_argument("--gpu-n", type=int, default=1 << 26)
    a = p.parse_args(argv)
    print(f"gpu_eval {ge.__version__}, numpy {np.__version__}, {platform.processor() or 'cpu'}, "
          f"{os.cpu_count()} CPUs; load average {os.getloadavg()[0]:.1f} at the start")
    rows = set(a.rows.split(","))
    if "index" in rows:
        bench_index(a.n, a.naive_n, a.repeats)
    if "unindex" in rows:
        bench_unindex(a.n, a.repeats)
    if a.gpu:
        bench_gpu(a.gpu_n, a.repeats)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
