"""Card text at array speed: parsing and formatting 1,000,000 seven-card hands, against
eval7's ``Card`` loop in the same run, and ``gpu-eval eval --file`` on a 1,000,000-line file
as a whole process (text table and JSON Lines).

Usage: python benchmarks/bench_text.py [--n 1000000] [--peer-n 200000] [--repeats 5]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import gpu_eval as ge
from gpu_eval import bench, cards

parser = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
parser.add_argument("--n", type=int, default=1_000_000, help="hands per gpu_eval measurement")
parser.add_argument("--peer-n", type=int, default=200_000, help="hands per eval7 measurement")
parser.add_argument("--repeats", type=int, default=5)
parser.add_argument("--cli-repeats", type=int, default=3)
args = parser.parse_args()

print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
      f"Python {platform.python_version()}, NumPy {np.__version__}")
ids = bench.random_hands(args.n, 7, seed=16)
spellings = {
    "AsKdQh2c3d4h5s (no separator)": cards.format(ids),
    "As Kd Qh 2c 3d 4h 5s (one separator)": cards.format(ids, sep=" "),
    "As, Kd, 10h ... (mixed: ', ' and 10)": [t.replace("T", "10")
                                              for t in cards.format(ids, sep=", ")],
    "A♠K♦Q♥2♣... (Unicode suits)": [t.translate(str.maketrans("cdhs", "♣♦♥♠"))
                                     for t in cards.format(ids)],
}
rows = spellings["AsKdQh2c3d4h5s (no separator)"]


def rate(fn, n):
    return bench.median_rate(fn, n, args.repeats) / 1e6


def line(what, mps, peer=None):
    vs = f"{mps / peer:7.1f}x" if peer else ""
    print(f"  {what:<52} {mps:9.2f} M/s {vs}")


# ----------------------------------------------------------------------------- parsing
peer_parse = None
try:
    import eval7

    peer_rows = rows[:args.peer_n]

    def eval7_parse():
        return [[eval7.Card(s[i:i + 2]) for i in range(0, 14, 2)] for s in peer_rows]

    peer_parse = rate(eval7_parse, len(peer_rows))
except ImportError:
    print("  (eval7 is not installed: no peer)")

print(f"parse {args.n:,} seven-card strings (list of str -> (N, 7) ids), median of "
      f"{args.repeats}:")
if peer_parse:
    line(f"eval7.Card loop (peer, {args.peer_n:,} hands)", peer_parse, peer_parse)
slow_rows = rows[:args.peer_n]
line(f"row-by-row reference parser (before; {args.peer_n:,})",
     rate(lambda: cards._parse_rows_slow(slow_rows), len(slow_rows)), peer_parse)
for name, texts in spellings.items():
    assert (cards.parse(texts) == ids).all()
    line(f"ge.cards.parse, {name}", rate(lambda t=texts: cards.parse(t), args.n), peer_parse)
line("ge.evaluate(list of str), parse + evaluate",
     rate(lambda: ge.evaluate(rows, backend="numpy"), args.n), peer_parse)
holes = [t[:8] for t in rows]  # four hole cards; the board is three others of the same hand
line("ge.evaluate_omaha(list of 4-card str, one board)",
     rate(lambda: ge.evaluate_omaha(holes, "2c 2d 2h", backend="numpy", invalid="mask"),
          args.n), peer_parse)

# ----------------------------------------------------------------------------- formatting
peer_format = None
try:
    import eval7

    peer_cards = [[eval7.Card(s[i:i + 2]) for i in range(0, 14, 2)] for s in rows[:args.peer_n]]
    peer_format = rate(lambda: ["".join(map(str, h)) for h in peer_cards], len(peer_cards))
except ImportError:
    pass
masks = cards.to_mask(ids)
print(f"format {args.n:,} seven-card hands (-> list of str), median of {args.repeats}:")
if peer_format:
    line(f"eval7: ''.join(map(str, cards)) (peer, {args.peer_n:,})", peer_format, peer_format)
line('ge.cards.format(ids)', rate(lambda: cards.format(ids), args.n), peer_format)
line('ge.cards.format(ids, sep=" ")', rate(lambda: cards.format(ids, sep=" "), args.n),
     peer_format)
line("ge.cards.format(masks)", rate(lambda: cards.format(masks), args.n), peer_format)

# ----------------------------------------------------------------------------- CLI
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "hands.txt")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("\n".join(rows))
        fh.write("\n")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([os.path.dirname(os.path.dirname(ge.__file__)),
                                         env.get("PYTHONPATH", "")])
    print(f"gpu-eval eval --file ({args.n:,} lines) as a whole process, stdout to a file, "
          f"median of {args.cli_repeats}:")
    for extra in ([], ["--json"]):
        cmd = [sys.executable, "-m", "gpu_eval.cli", "eval", "--file", path, *extra]
        times = []
        for _ in range(args.cli_repeats):
            with open(os.path.join(tmp, "out"), "w") as out:
                t0 = time.perf_counter()
                subprocess.run(cmd, stdout=out, check=True, env=env)
                times.append(time.perf_counter() - t0)
        with open(os.path.join(tmp, "out"), encoding="utf-8") as out:
            assert sum(1 for _ in out) == args.n
        shown = " ".join(["gpu-eval eval --file hands.txt", *extra])
        print(f"  {shown:<52} {statistics.median(times):9.2f} s   "
              f"({args.n / statistics.median(times) / 1e6:.2f} M lines/s)")
