"""State-machine (FSM) table evaluator vs the bitmask evaluator: three layouts, random and
sequential (colex enumeration order) hands, NumPy and (when present) the GPU; with table
sizes and generation times.  Prints medians in millions of hands per second.

Usage: python benchmarks/bench_statemachine.py [--n 4000000] [--repeats 5] [--cards 5 7]
"""

from __future__ import annotations

import argparse
import platform
import tempfile
import time
from math import comb

import numpy as np

import gpu_eval as ge
from gpu_eval import combinatorics
from gpu_eval.bench import median_event_seconds, median_rate, random_hands
from gpu_eval.cuda import availability, holdem
from gpu_eval.evaluator import statemachine as sm


def sequential_hands(n: int, k: int) -> np.ndarray:
    """``n`` consecutive hands of the colex enumeration, from the middle of it."""
    start = max(0, comb(52, k) // 2 - n // 2)
    return combinatorics.unrank(np.arange(start, start + min(n, comb(52, k))), k)


def gpu_rate(fn, n: int, repeats: int, cupy) -> float:
    return n / median_event_seconds(fn, repeats)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=4_000_000, help="hands per measurement")
    parser.add_argument("--gpu-n", type=int, default=100_000_000, help="hands on the GPU")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--cards", type=int, nargs="+", default=[5, 7])
    args = parser.parse_args()

    ok, reason = availability.cuda_available()
    print(f"machine: {platform.processor() or platform.machine()}, Python "
          f"{platform.python_version()}; GPU: {reason if ok else 'none (' + reason + ')'}")
    cache = tempfile.mkdtemp(prefix="fsm_bench_")

    for k in args.cards:
        sm._machine.cache_clear()
        t0 = time.perf_counter()
        sm._machine(k)
        gen = time.perf_counter() - t0
        tables, flat_s, load_s = {}, {}, {}
        for lay in sm.LAYOUTS:
            t0 = time.perf_counter()
            t = sm.build_table(k, lay)
            flat_s[lay] = time.perf_counter() - t0
            path = sm.save_table(t, sm.cache_path(k, lay, cache))
            t0 = time.perf_counter()
            tables[lay] = sm.read_table(path, cards=k, layout=lay)
            load_s[lay] = time.perf_counter() - t0
        info = tables["bfs"].info
        print(f"\n{k}-card table: {info.num_states:,} states "
              f"({', '.join(map(str, info.states_per_depth))} per depth + dead), "
              f"{info.slots:,} slots, {info.nbytes / 2**20:.1f} MiB; machine generated in "
              f"{gen:.1f} s; flattening " +
              ", ".join(f"{lay} {flat_s[lay]:.1f} s" for lay in sm.LAYOUTS) +
              "; reading + SHA-256 check " +
              ", ".join(f"{lay} {load_s[lay]:.2f} s" for lay in sm.LAYOUTS))

        access = {"random": random_hands(args.n, k, seed=k),
                  "sequential": sequential_hands(args.n, k)}
        rows: list[tuple[str, str, list[float]]] = []
        for acc, ids in access.items():
            n = len(ids)
            for label, check in (("fsm numpy, unchecked", False), ("fsm numpy, checked", True)):
                rates = [median_rate(lambda t=t: sm.evaluate_fsm(ids, t, check=check), n,
                                     args.repeats) for t in tables.values()]
                rows.append((label, acc, rates))
            for alg in ("bitmask", "perfect-hash"):
                r = median_rate(lambda: ge.evaluate(ids, backend="numpy", algorithm=alg), n,
                                args.repeats)
                rows.append((f"ge.evaluate numpy {alg}", acc, [r]))
        if ok:
            import cupy

            g_access = {"random": random_hands(args.gpu_n, k, seed=k + 100),
                        "sequential": sequential_hands(args.gpu_n, k)}
            for acc, ids in g_access.items():
                d_ids = cupy.asarray(ids)
                n = len(ids)
                rates = [gpu_rate(lambda t=t: sm.evaluate_fsm(d_ids, t, check=False), n,
                                  args.repeats, cupy) for t in tables.values()]
                rows.append(("fsm cuda, unchecked", acc, rates))
                r = gpu_rate(lambda: holdem.evaluate_ids_cuda(d_ids), n, args.repeats, cupy)
                rows.append(("bitmask cuda (evaluate_ids_cuda)", acc, [r]))
                del d_ids
                cupy.get_default_memory_pool().free_all_blocks()
        else:
            print(f"(GPU figures skipped: {reason})")

        print(f"{'M hands/s (median of ' + str(args.repeats) + ')':<36}{'access':<12}"
              + "".join(f"{lay:>10}" for lay in sm.LAYOUTS))
        for label, acc, rates in rows:
            cells = "".join(f"{r / 1e6:10.1f}" for r in rates)
            if len(rates) == 1:
                cells = f"{rates[0] / 1e6:10.1f}{'(no layout)':>20}"
            print(f"{label:<36}{acc:<12}{cells}")


if __name__ == "__main__":
    main()
