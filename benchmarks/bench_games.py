"""Equity for Omaha, Omaha hi/lo and short deck: gpu_eval (NumPy) against poker-equity in the
same run (poker-equity only when it is installed: ``pip install -e ".[bench]"``).

Run from the repository root::

    python benchmarks/bench_games.py               # median of 5 warm runs per case
    python benchmarks/bench_games.py --repeat 3 --samples 500000

Cases (exact, heads-up, preflop):

1. PLO4 ``AsAhKdQc`` vs ``JhTc9s8d`` (1,086,008 boards; no suit symmetry);
2. Omaha hi/lo ``AsAh2d3c`` vs ``KsKhQdJc`` (1,086,008 boards; one suit swap);
3. short deck ``AhAd`` vs ``KsKc`` (201,376 boards; four suit permutations);

then Monte Carlo of cases 1 and 2 with the same number of samples on both sides
(``poker_equity.chunk_from_text``, which uses 4 threads by default; gpu_eval uses every core).
gpu_eval's timings are warm: one untimed call first builds the Omaha tables and board lists.
``--gpu`` adds the exact cases and Monte Carlo with 100 times the samples on
``backend="cuda"`` (kernels/equity_games.cu; needs a device).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import gpu_eval as ge  # noqa: E402

CASES = [
    ("PLO4 AsAhKdQc vs JhTc9s8d", "omaha", "omaha", ["AsAhKdQc", "JhTc9s8d"]),
    ("hi/lo AsAh2d3c vs KsKhQdJc", "omaha-hilo", "omaha_hi_lo", ["AsAh2d3c", "KsKhQdJc"]),
    ("short deck AhAd vs KsKc", "shortdeck", "short_deck", ["AhAd", "KsKc"]),
]


def timed(fn, repeat: int):
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--samples", type=int, default=1_000_000)
    ap.add_argument("--gpu", action="store_true",
                    help="also time the exact cases with backend='cuda' (needs a device)")
    args = ap.parse_args()
    try:
        import poker_equity as pe
    except ImportError:
        pe = None
    print(f"{'case':<40} {'gpu_eval':>10} {'poker-equity':>13} {'speed-up':>9}  equity")
    rows = []
    for name, game, pe_game, hands in CASES:
        ge.equity(hands, game=game, exact=True)  # warm
        t_ge, r = timed(lambda: ge.equity(hands, game=game, exact=True), args.repeat)
        t_pe, eq_pe = None, None
        if pe is not None:
            t_pe, rp = timed(lambda: pe.exact_from_text(pe_game, hands), args.repeat)
            eq_pe = rp["players"][0]["equity"]
        rows.append((f"exact {name}", t_ge, t_pe, float(r.equity[0]), eq_pe))
    for name, game, pe_game, hands in CASES[:2]:
        n = args.samples
        ge.equity(hands, game=game, exact=False, samples=n, seed=1)
        t_ge, r = timed(lambda: ge.equity(hands, game=game, exact=False, samples=n, seed=1),
                        args.repeat)
        t_pe, eq_pe = None, None
        if pe is not None:
            t_pe, rp = timed(lambda: pe.chunk_from_text(pe_game, hands, samples=n, seed=1),
                             args.repeat)
            eq_pe = rp["players"][0]["equity"]
        rows.append((f"MC {n:,} {name}", t_ge, t_pe, float(r.equity[0]), eq_pe))
    if args.gpu:  # wall clock around the call, host results (device synchronised)
        for name, game, _, hands in CASES:
            ge.equity(hands, game=game, exact=True, backend="cuda")
            t_ge, r = timed(lambda: ge.equity(hands, game=game, exact=True, backend="cuda"),
                            args.repeat)
            rows.append((f"exact {name} (cuda)", t_ge, None, float(r.equity[0]), None))
        for name, game, _, hands in CASES[:2]:
            n = 100 * args.samples
            ge.equity(hands, game=game, exact=False, samples=n, seed=1, backend="cuda")
            t_ge, r = timed(lambda: ge.equity(hands, game=game, exact=False, samples=n, seed=1,
                                              backend="cuda"), args.repeat)
            rows.append((f"MC {n:,} {name} (cuda)", t_ge, None, float(r.equity[0]), None))
    for label, t_ge, t_pe, e_ge, e_pe in rows:
        pe_s = f"{1e3 * t_pe:10.1f} ms" if t_pe is not None else f"{'-':>13}"
        sp = f"{t_pe / t_ge:8.2f}x" if t_pe is not None else f"{'-':>9}"
        eqs = f"{e_ge:.6f}" + (f" / {e_pe:.6f}" if e_pe is not None else "")
        print(f"{label:<40} {1e3 * t_ge:7.1f} ms {pe_s} {sp}  {eqs}")


if __name__ == "__main__":
    main()
