"""Equity benchmarks: gpu_eval (NumPy or CUDA) against eval7 in the same run.

Run from the repository root::

    python benchmarks/bench_equity.py            # median of 7 runs per case
    python benchmarks/bench_equity.py --repeat 3 --no-peers

Cases
-----
1. AhKh vs QsQd preflop, exact (1,712,304 boards). eval7 has no preflop exact equity
   (``py_hand_vs_range_exact`` needs a complete board), so its figure is the same enumeration
   done the way an eval7 user would: ``eval7.evaluate`` in a Python loop over every board.
2. AhKh vs ``QQ+,AKs`` preflop: gpu_eval exact (15 matchups x 1,712,304 boards), and both
   libraries' Monte Carlo with 1,000,000 samples (``eval7.py_hand_vs_range_monte_carlo``).
3. ``QQ+,AKs`` vs ``22+,A2s+,KTs+`` preflop: gpu_eval exact (2,646 matchups x 1,712,304
   boards; both ranges are suit-symmetric, so only one board in 24 is played), and Monte
   Carlo with 1,000,000 samples on both sides (eval7: ``py_all_hands_vs_range`` with the
   samples shared among the hero's 22 combos; eval7 has no exact range-vs-range preflop).

The gpu_eval timings are warm (board lists cached, thread pool started): the first, cold run
is printed separately. eval7 runs once or a few times (it is single-threaded and slow here).
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gpu_eval._equity import equity  # noqa: E402


def timed(fn, repeat: int):
    """``(median seconds, all times, last result)`` of ``repeat`` calls."""
    times, result = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), times, result


def row(case: str, engine: str, method: str, seconds: float, value: str,
        fastest: float | None = None) -> None:
    best = f"{fastest * 1000:>8.1f} ms" if fastest is not None else " " * 11
    print(f"{case:<34} {engine:<26} {method:<40} {seconds * 1000:>8.1f} ms {best}   {value}")


def eval7_exact_loop(hero: str, villain: str) -> float:
    import eval7
    h = [eval7.Card(hero[:2]), eval7.Card(hero[2:])]
    v = [eval7.Card(villain[:2]), eval7.Card(villain[2:])]
    deck = [eval7.Card(r + s) for r in "23456789TJQKA" for s in "cdhs"]
    rest = [c for c in deck if c not in h + v]
    ev = eval7.evaluate
    win = tie = n = 0
    for b in itertools.combinations(rest, 5):
        b = list(b)
        a, c = ev(h + b), ev(v + b)
        win += a > c
        tie += a == c
        n += 1
    return (win + tie / 2) / n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7, help="runs per gpu_eval case (median)")
    ap.add_argument("--samples", type=int, default=1_000_000, help="Monte Carlo samples")
    ap.add_argument("--backend", default="numpy", help="gpu_eval backend")
    ap.add_argument("--no-peers", action="store_true", help="skip eval7")
    args = ap.parse_args()
    rep, n, be = args.repeat, args.samples, args.backend
    peers = not args.no_peers
    try:
        import eval7
    except ImportError:
        peers = False
    print(f"# {os.cpu_count()} CPU cores, gpu_eval backend={be}, median of {rep} runs "
          f"(eval7: median of {min(rep, 3)})")
    print(f"{'case':<34} {'engine':<26} {'method':<40} {'median':>11} {'fastest':>11}   "
          f"equity of player 1")
    print("(gpu_eval's exact runs of cases 2 and 3 take the median of repeat // 2 and // 3)")

    # 1. Hand vs hand, exact.
    case = "AhKh vs QsQd preflop"
    t0 = time.perf_counter()
    r = equity(["AhKh", "QsQd"], backend=be, progress=False)
    row(case, "gpu_eval (cold)", r.method, time.perf_counter() - t0, f"{r.equity[0]:.6f}")
    med, ts, r = timed(lambda: equity(["AhKh", "QsQd"], backend=be, progress=False), rep)
    row(case, "gpu_eval", r.method, med, f"{r.equity[0]:.6f} (wins {r.wins[0]:,}, "
                                         f"ties {r.ties[0]:,})", min(ts))
    if peers:
        med, ts, e = timed(lambda: eval7_exact_loop("AhKh", "QsQd"), min(rep, 3))
        row(case, "eval7 evaluate() loop", "exact: 1,712,304 boards", med, f"{e:.6f}", min(ts))

    # 2. Hand vs range.
    case = "AhKh vs QQ+,AKs preflop"
    med, ts, r = timed(lambda: equity(["AhKh", "QQ+,AKs"], exact=True, backend=be,
                                     progress=False), max(1, rep // 2))
    row(case, "gpu_eval", r.method, med, f"{r.equity[0]:.6f}", min(ts))
    med, ts, r = timed(lambda: equity(["AhKh", "QQ+,AKs"], exact=False, samples=n, seed=1,
                                     backend=be, progress=False), rep)
    row(case, "gpu_eval", r.method, med, f"{r.equity[0]:.6f} +- {r.stderr[0]:.6f}", min(ts))
    if peers:
        hero = [eval7.Card("Ah"), eval7.Card("Kh")]
        villain = eval7.HandRange("QQ+,AKs").hands
        med, ts, e = timed(lambda: eval7.py_hand_vs_range_monte_carlo(hero, villain, [], n),
                          min(rep, 3))
        row(case, "eval7 hand_vs_range_mc", f"monte carlo: {n:,} samples", med, f"{e:.6f}",
            min(ts))

    # 3. Range vs range.
    case = "QQ+,AKs vs 22+,A2s+,KTs+ preflop"
    a, b = "QQ+,AKs", "22+,A2s+,KTs+"
    med, ts, r = timed(lambda: equity([a, b], exact=True, backend=be, progress=False),
                      max(1, rep // 3))
    row(case, "gpu_eval", r.method, med, f"{r.equity[0]:.6f}", min(ts))
    med, ts, r = timed(lambda: equity([a, b], exact=False, samples=n, seed=1, backend=be,
                                     progress=False), rep)
    row(case, "gpu_eval", r.method, med, f"{r.equity[0]:.6f} +- {r.stderr[0]:.6f}", min(ts))
    if peers:
        hero_r, vill_r = eval7.HandRange(a), eval7.HandRange(b)
        per_hand = max(1, n // len(hero_r.hands))

        def eval7_range_vs_range() -> float:
            eq = eval7.py_all_hands_vs_range(hero_r, vill_r, [], per_hand)
            return sum(eq.values()) / len(eq)  # unweighted mean over hero combos

        med, ts, e = timed(eval7_range_vs_range, min(rep, 3))
        row(case, "eval7 all_hands_vs_range", f"monte carlo: {per_hand * len(hero_r.hands):,}"
            f" samples", med, f"{e:.6f} (mean over hero combos)", min(ts))


if __name__ == "__main__":
    main()
