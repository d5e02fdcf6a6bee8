"""Evaluator throughput: 5- and 7-card hands, both algorithms, ids and masks, vs eval7 and
phevaluator in the same run.  Usage: python benchmarks/bench_evaluate.py [--n 10000000]"""

import argparse
import platform

from gpu_eval import backend_choice, bench

parser = argparse.ArgumentParser(description=__doc__)
parser.add_argument("--n", type=int, default=10_000_000)
parser.add_argument("--peer-n", type=int, default=200_000)
parser.add_argument("--repeats", type=int, default=5)
args = parser.parse_args()

backends = ["numpy"] + (["cuda"] if backend_choice.cuda_status()[0] else [])
print(f"machine: {platform.processor() or platform.machine()}, {platform.python_version()}; "
      f"backends: {', '.join(backends)}")
bench.run(n=args.n, peer_n=args.peer_n, repeats=args.repeats, backends=tuple(backends))
