"""Equity for Omaha, Omaha hi/lo, short deck, and the stud, draw and Courchevel families (exact,
NumPy path): gpu_eval against poker-equity in the same run (poker-equity only when it is
installed: ``pip install -e ".[bench]"``).

Run from the repository root::

    python benchmarks/bench_games.py               # median of 5 warm runs per case
    python benchmarks/bench_games.py --repeat 3 --samples 500000
    python benchmarks/bench_games.py --families --match draw --repeat 101   # the draw rows
    python benchmarks/bench_games.py --families --match 7d5h4c3s,Ac2d3h,AhAdKcKs --repeat 201

Cases (exact, heads-up, preflop):

1. PLO4 ``AsAhKdQc`` vs ``JhTc9s8d`` (1,086,008 boards; no suit symmetry);
2. Omaha hi/lo ``AsAh2d3c`` vs ``KsKhQdJc`` (1,086,008 boards; one suit swap);
3. short deck ``AhAd`` vs ``KsKc`` (201,376 boards; four suit permutations);

then one exact spot per stud, draw and Courchevel game (:data:`FAMILY_CASES`; poker-equity's
``exact_from_text`` declines the third-street spot, "-"), then Monte Carlo of cases 1 and 2
with the same number of samples on both sides
(``poker_equity.chunk_from_text``, which uses 4 threads by default; gpu_eval uses every core).
gpu_eval's timings are warm: one untimed call first builds the Omaha tables and board lists.
``--gpu`` adds the exact cases, the family spots and Monte Carlo with 100 times the samples
on ``backend="cuda"`` (kernels/equity_games.cu, kernels/equity_deals.cu; needs a device).
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


#: The families of issue 22: (name, game, poker-equity's game, players, board, dead).
FAMILY_CASES = [
    ("razz Ah2h3h4h5h vs Kh2d3d4d5d", "razz", "razz", ["Ah2h3h4h5h", "Kh2d3d4d5d"], "", ""),
    ("stud AhAcAdKhQc vs KsKcKdQhJc", "stud", "stud", ["AhAcAdKhQc", "KsKcKdQhJc"], "", ""),
    ("stud hi/lo AhAcAdKhQc vs KsKcKdQhJc", "stud-hilo", "stud_hi_lo",
     ["AhAcAdKhQc", "KsKcKdQhJc"], "", ""),
    ("stud hi/lo Ah2h3h4c9s vs KsKcKdQhJh", "stud-hilo", "stud_hi_lo",
     ["Ah2h3h4c9s", "KsKcKdQhJh"], "", ""),
    ("2-7 draw 7d5h4c3s2h vs 5s4h3d2c", "deuce-seven-draw", "deuce_seven",
     ["7d5h4c3s2h", "5s4h3d2c"], "", "Ad"),
    ("2-7 draw 7d5h4c3s vs 8h6d4s2c", "deuce-seven-draw", "deuce_seven",
     ["7d5h4c3s", "8h6d4s2c"], "", ""),
    ("2-7 draw 7d5h4c vs 8h6d4s2c", "deuce-seven-draw", "deuce_seven",
     ["7d5h4c", "8h6d4s2c"], "", ""),
    ("badugi draw Ac2d3h vs 4s5h6c7d", "badugi-draw", "badugi", ["Ac2d3h", "4s5h6c7d"], "",
     "Kd"),
    ("badugi draw Ac2d vs 4s5h6c", "badugi-draw", "badugi", ["Ac2d", "4s5h6c"], "", ""),
    ("5-card draw AhAdKcKs vs QhJhTh9h", "five-card-draw", "five_card_draw",
     ["AhAdKcKs", "QhJhTh9h"], "", ""),
    ("5-card draw AhAd vs KsKcQd", "five-card-draw", "five_card_draw",
     ["AhAd", "KsKcQd"], "", ""),
    ("courchevel, board Ah", "courchevel", "courchevel", ["AsKsQd3c2h", "JhTh9d8c4s"], "Ah",
     ""),
    ("courchevel hi/lo, board Ah", "courchevel-hilo", "courchevel_hi_lo",
     ["AsKsQd3c2h", "JhTh9d8c4s"], "Ah", ""),
    ("stud 3rd street AhKh3c vs QsQd7h", "stud", "stud", ["AhKh3c", "QsQd7h"], "", ""),
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
    ap.add_argument("--families", action="store_true",
                    help="only the stud, draw and Courchevel rows (FAMILY_CASES)")
    ap.add_argument("--match", default="",
                    help="only the family rows whose name contains one of these texts "
                         "(comma-separated, e.g. 'draw' or '7d5h4c3s,Ac2d3h')")
    ap.add_argument("--batch", type=int, default=1000,
                    help="spots per equity_batch call in the batch rows (default 1000)")
    args = ap.parse_args()
    try:
        import poker_equity as pe
    except ImportError:
        pe = None
    print(f"{'case':<48} {'gpu_eval':>10} {'poker-equity':>13} {'speed-up':>9}  equity")
    rows = []
    for name, game, pe_game, hands in [] if args.families else CASES:
        ge.equity(hands, game=game, exact=True)  # warm
        t_ge, r = timed(lambda: ge.equity(hands, game=game, exact=True), args.repeat)
        t_pe, eq_pe = None, None
        if pe is not None:
            t_pe, rp = timed(lambda: pe.exact_from_text(pe_game, hands), args.repeat)
            eq_pe = rp["players"][0]["equity"]
        rows.append((f"exact {name}", t_ge, t_pe, float(r.equity[0]), eq_pe))
    for name, game, pe_game, hands, board, dead in FAMILY_CASES:
        if not any(m in name for m in args.match.split(",")):
            continue
        ge.equity(hands, game=game, board=board, dead=dead, exact=True,
                  backend="numpy")  # warm
        t_ge, r = timed(lambda: ge.equity(hands, game=game, board=board, dead=dead, exact=True,
                                          backend="numpy"), args.repeat)
        t_pe, eq_pe = None, None
        if pe is not None and pe.exact_from_text(pe_game, hands, board, dead) is not None:
            t_pe, rp = timed(lambda: pe.exact_from_text(pe_game, hands, board, dead),
                             args.repeat)
            eq_pe = rp["players"][0]["equity"]
        rows.append((f"exact {name}", t_ge, t_pe, float(r.equity[0]), eq_pe))
    # The small heads-up spots as equity_batch walks them (together), per spot, against
    # poker-equity's one call per spot.
    from gpu_eval.equity_engine.deals import numpy_engine as deals  # noqa: PLC0415

    for name, game, pe_game, hands, board, dead in FAMILY_CASES:
        if board or not any(m in name for m in args.match.split(",")) or \
                not deals.batchable(deals.prepare(hands, board, dead, game)):
            continue
        n_spots = args.batch
        batch = dict(dead=[dead] * n_spots, game=game, backend="numpy")
        ge.equity_batch([hands] * n_spots, **batch)  # warm
        t_ge, r = timed(lambda: ge.equity_batch([hands] * n_spots, **batch), args.repeat)
        t_pe, eq_pe = None, None
        if pe is not None:
            t_pe, rp = timed(lambda: pe.exact_from_text(pe_game, hands, board, dead),
                             args.repeat)
            eq_pe = rp["players"][0]["equity"]
        rows.append((f"batch/spot {name}", t_ge / n_spots, t_pe, float(r.equity[0, 0]), eq_pe))
    for name, game, pe_game, hands in [] if args.families else CASES[:2]:
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
        for name, game, _, hands, board, dead in FAMILY_CASES:
            kw = dict(game=game, board=board, dead=dead, exact=True, backend="cuda")
            ge.equity(hands, **kw)
            t_ge, r = timed(lambda: ge.equity(hands, **kw), args.repeat)
            rows.append((f"exact {name} (cuda)", t_ge, None, float(r.equity[0]), None))
        for name, game, _, hands in CASES[:2]:
            n = 100 * args.samples
            ge.equity(hands, game=game, exact=False, samples=n, seed=1, backend="cuda")
            t_ge, r = timed(lambda: ge.equity(hands, game=game, exact=False, samples=n, seed=1,
                                              backend="cuda"), args.repeat)
            rows.append((f"MC {n:,} {name} (cuda)", t_ge, None, float(r.equity[0]), None))
    for label, t_ge, t_pe, e_ge, e_pe in rows:
        pe_s = f"{1e3 * t_pe:10.3f} ms" if t_pe is not None else f"{'-':>13}"
        sp = f"{t_pe / t_ge:8.2f}x" if t_pe is not None else f"{'-':>9}"
        eqs = f"{e_ge:.6f}" + (f" / {e_pe:.6f}" if e_pe is not None else "")
        print(f"{label:<48} {1e3 * t_ge:7.3f} ms {pe_s} {sp}  {eqs}")


if __name__ == "__main__":
    main()
