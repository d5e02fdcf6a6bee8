"""The per-call cost of the commonest small spots (issue 27 item 7): one ``ge.equity`` call
against the peer's one call, in the same process, timed as a user's loop of calls sees it.

Run from the repository root::

    python benchmarks/bench_per_call.py --calls 400

Each spot times ``--calls`` single calls after two untimed ones (wall clock, the garbage
collector on, as in a user's loop; gpu_eval's and the peer's calls interleaved, so a burst of
load on a shared machine falls on both) and prints the medians: AhKh vs QsQd on 2c7d9h (990
boards) against pokerfast, the exact 42-deal 2-7 single draw and 44-deal badugi spots against
poker-equity (``pip install -e ".[bench]"``). The "and read" rows also read ``.equity``
(gpu_eval works out a one-spot result's arrays when first read). ``bench_games.py`` times its
rows over five calls, the second to sixth of the process for the first family row, while the
interpreter still specialises the code they run; these medians are the steady state.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import gpu_eval as ge  # noqa: E402

SPOTS = [  # (name, gpu_eval's call, the peer, the peer's call)
    ("AhKh vs QsQd on 2c7d9h, one call",
     lambda: ge.equity(["AhKh", "QsQd"], board="2c7d9h"), "pokerfast",
     lambda m: m.equity(["AhKh", "QsQd"], board="2c7d9h")),
    ("exact 2-7 draw 7d5h4c3s2h vs 5s4h3d2c",
     lambda: ge.equity(["7d5h4c3s2h", "5s4h3d2c"], game="deuce-seven-draw", dead="Ad",
                       exact=True, backend="numpy"), "poker_equity",
     lambda m: m.exact_from_text("deuce_seven", ["7d5h4c3s2h", "5s4h3d2c"], "", "Ad")),
    ("exact badugi draw Ac2d3h vs 4s5h6c7d",
     lambda: ge.equity(["Ac2d3h", "4s5h6c7d"], game="badugi-draw", dead="Kd", exact=True,
                       backend="numpy"), "poker_equity",
     lambda m: m.exact_from_text("badugi", ["Ac2d3h", "4s5h6c7d"], "", "Kd")),
]


def medians(fns, calls: int) -> list[float]:
    """Median seconds of ``calls`` single calls of each of ``fns``, interleaved (one call of
    each in turn, in a rotating order, so a burst of load on a shared machine falls on all of
    them alike and none always runs after the same other), after two untimed rounds."""
    times: list[list[float]] = [[] for _ in fns]
    n = len(fns)
    for i in range(calls + 2):
        for j in range(n):  # each in turn first, so none always follows the same other
            k = (i + j) % n
            t = time.perf_counter()
            fns[k]()
            if i >= 2:
                times[k].append(time.perf_counter() - t)
    return [statistics.median(t) for t in times]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--calls", type=int, default=400, help="single calls timed per row")
    args = ap.parse_args()
    print(f"{'case':<44} {'gpu_eval':>10} {'peer':>10} {'speed-up':>9}")
    for name, ours, peer, theirs in SPOTS:
        try:
            mod = __import__("pokerfast.equity" if peer == "pokerfast" else peer,
                             fromlist=["equity"])
        except ImportError:
            mod = None
        fns = [ours, lambda: ours().equity] + ([lambda: theirs(mod)] if mod else [])
        got = medians(fns, args.calls)
        t_peer = got[2] if mod else None
        for label, t in ((name, got[0]), ("  and read .equity", got[1])):
            peer_col = f"{t_peer * 1e3:8.3f} ms" if t_peer else f"{'-':>11}"
            speed = f"{t_peer / t:8.2f}x" if t_peer else f"{'-':>9}"
            print(f"{label:<44} {t * 1e3:7.3f} ms {peer_col} {speed}")


if __name__ == "__main__":
    main()
