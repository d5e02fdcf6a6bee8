"""Range report benchmarks: gpu_eval's ``range_report`` (NumPy) against pokerfast (OMPEval)
in the same run.

Run from the repository root::

    python benchmarks/bench_report.py                  # the three cases below
    python benchmarks/bench_report.py --repeat 3 --peer-flops 40

Cases (two ranges of 1,000+ combos: ``A`` 1,086 and ``B`` 806 combos):

1. One flop report: every combo of both ranges classified (class, draws, outs, nut rank) and
   its exact equity against the other range, on Kd7c2h (and a two-tone and a monotone flop).
   Peer: ``pokerfast.equity.equity([A, B], board)``, which gives only the range-vs-range
   equity of that flop. Target: at most 50 ms.
2. Every turn of one flop (``street="turn"``): 49 reports. Target: at most 1 s.
3. Every flop (``boards="flops"``, ``per_combo=True``): the 1,755 flop classes with per-combo
   equity of both ranges and every class and draw. Peer: a loop asking pokerfast for only
   each flop's range-vs-range equity; it is timed on ``--peer-flops`` flop classes spread over
   the list (every class would take about half an hour) and scaled to 1,755. Target: at
   least 3x faster than that loop.

Timings are medians of ``--repeat`` runs after one untimed warm-up (the tables built, the
thread pool started); the every-flop case runs ``--flop-repeat`` times (default once). The
NumPy counting uses every core (2 on the reference machine).

``--gpu`` (a CUDA device needed; ``benchmarks/gpu_check.sh`` runs it): the same cases on
``backend="cuda"`` (the first call compiles the kernel and is left out), each flop report
checked against NumPy's integers; every flop on the device only.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from datetime import date
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

import gpu_eval as ge  # noqa: E402

A = "22+,A2+,K2+,Q2+,J2+,T2+,92+,82+"                        # 1,086 combos
B = "22+,A2+,K2+,Q2+,J5+,T6+,96s+,86s+,75s+,64s+,54s"         # 806 combos
FLOPS = ("Kd7c2h", "Ts9s4d", "Qh8h3h")


def timed(fn, repeat: int):
    """``(median seconds, all times, last result)`` of ``repeat`` calls."""
    times, result = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), times, result


def row(case: str, engine: str, seconds: float, note: str = "") -> None:
    print(f"{case:<28} {engine:<40} {seconds * 1000:>11.1f} ms   {note}")


def pokerfast():
    try:
        from pokerfast import equity as pf  # noqa: PLC0415
    except ImportError:
        return None
    return pf if pf.available() else None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7, help="runs per case (median)")
    ap.add_argument("--flop-repeat", type=int, default=1, help="runs of the every-flop case")
    ap.add_argument("--peer-flops", type=int, default=60,
                    help="flop classes pokerfast is timed on (scaled to 1,755)")
    ap.add_argument("--no-peers", action="store_true")
    ap.add_argument("--skip-flops", action="store_true", help="leave out the every-flop case")
    ap.add_argument("--gpu", action="store_true", help="the cases on backend='cuda'")
    args = ap.parse_args()
    if args.gpu:
        gpu_rows(args)
        return
    pf = None if args.no_peers else pokerfast()
    print(f"# {date.today()}  {platform.platform()}  {os.cpu_count()} cores  "
          f"numpy {np.__version__}  pokerfast {'yes' if pf else 'no'}")
    print(f"# A = {A} ({len(ge.Range(A))} combos), B = {B} ({len(ge.Range(B))} combos)")
    print(f"{'case':<28} {'engine':<40} {'median':>14}")

    ge.range_report(A, B, board=FLOPS[0], backend="numpy")          # warm-up
    for flop in FLOPS:
        med, ts, r = timed(lambda: ge.range_report(A, B, board=flop, backend="numpy"),
                           args.repeat)
        row(f"one flop {flop}", "gpu_eval range_report (every combo)", med,
            f"fastest {min(ts) * 1000:.1f} ms; equity {r.equity:.6f}")
        if pf is not None:
            med_p, ts_p, e = timed(lambda: pf.equity([A, B], board=flop, threads=0),
                                   max(1, args.repeat // 2))
            row(f"one flop {flop}", "pokerfast equity (range vs range only)", med_p,
                f"equity {e[0]:.6f}; gpu_eval {med_p / med:.1f}x faster")

    med, ts, s = timed(lambda: ge.range_report(A, B, board=FLOPS[0], street="turn",
                                               backend="numpy"), max(1, args.repeat // 2))
    row(f"every turn of {FLOPS[0]}", "gpu_eval range_report street='turn'", med,
        f"{len(s)} turns; fastest {min(ts) * 1000:.1f} ms")

    if args.skip_flops:
        return
    med, ts, b = timed(lambda: ge.range_report(A, B, boards="flops", per_combo=True,
                                               backend="numpy", progress=False),
                       args.flop_repeat)
    row("every flop (1,755 classes)", "gpu_eval range_report per_combo", med,
        f"overall {b.overall:.6f}")
    if pf is not None and args.peer_flops > 0:
        pick = np.linspace(0, len(b.boards) - 1, args.peer_flops).round().astype(int)
        t = time.perf_counter()
        for i in pick:
            pf.equity([A, B], board=b.boards[i], threads=0)
        per = (time.perf_counter() - t) / len(pick)
        total = per * len(b.boards)
        row("every flop (1,755 classes)", f"pokerfast loop ({len(pick)} flops, scaled)", total,
            f"{per * 1000:.0f} ms a flop; gpu_eval {total / med:.1f}x faster")


def gpu_rows(args) -> None:
    """The cases on the device, the flop reports checked against NumPy."""
    print(f"# {date.today()}  gpu_eval range_report on backend='cuda'")
    ge.range_report(A, B, board=FLOPS[0], backend="cuda")           # compile, upload
    for flop in FLOPS:
        med, ts, r = timed(lambda: ge.range_report(A, B, board=flop, backend="cuda"),
                           args.repeat)
        want = ge.range_report(A, B, board=flop, backend="numpy")
        same = all(np.array_equal(np.asarray(getattr(x, f)), np.asarray(getattr(y, f)))
                   for x, y in ((r.hero, want.hero), (r.villain, want.villain))
                   for f in ("wins", "ties", "matchups"))
        row(f"one flop {flop}", "gpu_eval range_report cuda", med,
            f"fastest {min(ts) * 1000:.1f} ms; integers equal NumPy's: {same}")
    med, ts, s = timed(lambda: ge.range_report(A, B, board=FLOPS[0], street="turn",
                                               backend="cuda"), args.repeat)
    row(f"every turn of {FLOPS[0]}", "gpu_eval range_report cuda street='turn'", med,
        f"{len(s)} turns")
    if not args.skip_flops:
        med, ts, b = timed(lambda: ge.range_report(A, B, boards="flops", per_combo=True,
                                                   backend="cuda", progress=False), 1)
        row("every flop (1,755 classes)", "gpu_eval range_report cuda per_combo", med,
            f"overall {b.overall:.6f}")


if __name__ == "__main__":
    main()
