"""The ``gpu-eval`` command line: eval, equity, bench, info.

Wrong input prints one clear line on stderr and exits with status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
from typing import Optional, Sequence

import numpy as np


def _cmd_eval(args: argparse.Namespace) -> int:
    import gpu_eval as ge

    hands = list(args.hands)
    if args.file:
        with open(args.file, encoding="utf-8") as fh:
            hands += [line.strip() for line in fh if line.strip() and not line.startswith("#")]
    if not hands:
        raise ValueError("no hands given: pass hands as arguments or --file")
    strength = np.atleast_1d(ge.evaluate(hands, backend=args.backend, game=args.game))
    cats = ge.category(strength)
    names = ge.describe(strength)
    if args.json:
        print(json.dumps([{"hand": h, "strength": int(s), "category": int(c), "description": d}
                          for h, s, c, d in zip(hands, strength, cats, names)]))
        return 0
    width = max(len(h) for h in hands)
    for h, s, d in zip(hands, strength, names):
        print(f"{h:<{width}}  {int(s):>5}  {d}")
    return 0


def _cmd_equity(args: argparse.Namespace) -> int:
    from gpu_eval._equity import equity

    exact = True if args.exact else (False if args.samples else None)
    result = equity(args.players, board=args.board, dead=args.dead, exact=exact,
                    samples=args.samples, seed=args.seed, backend=args.backend,
                    progress=not args.no_progress and not args.json)
    if args.json:
        print(json.dumps(result.to_dict()))
    else:
        print(result)
    return 0


def _cmd_bench(args: argparse.Namespace) -> int:
    from gpu_eval import _backend, bench

    backends = ["numpy"] + (["cuda"] if _backend.cuda_status()[0] else [])
    if args.backend != "auto":
        backends = [args.backend]
    print(f"machine: {platform.machine()}, Python {platform.python_version()}; "
          f"backends: {', '.join(backends)}")
    bench.run(n=args.n, peer_n=args.peer_n, repeats=args.repeats, backends=tuple(backends))
    return 0


def _cmd_info(args: argparse.Namespace) -> int:
    import gpu_eval as ge
    from gpu_eval import _backend

    ok, why = _backend.cuda_status()
    info = {"gpu_eval": ge.__version__, "python": platform.python_version(),
            "numpy": np.__version__, "default_backend": "cuda" if ok else "numpy",
            "cuda": why}
    try:
        import cupy

        info["cupy"] = cupy.__version__
        try:
            major, minor = cupy.cuda.nvrtc.getVersion()
            info["nvrtc"] = f"{major}.{minor}"
        except Exception as exc:  # NVRTC missing is worth reporting, not fatal
            info["nvrtc"] = f"unavailable ({exc})"
        if ok:
            props = cupy.cuda.runtime.getDeviceProperties(0)
            name = props["name"]
            info["device"] = name.decode() if isinstance(name, bytes) else str(name)
            info["compute_capability"] = f"{props['major']}.{props['minor']}"
    except ImportError:
        info["cupy"] = "not installed"
    if args.json:
        print(json.dumps(info))
    else:
        for k, v in info.items():
            print(f"{k:>20}: {v}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="gpu-eval", description=(
        "Bulk poker hand evaluation and equity on NVIDIA GPUs (CuPy) or NumPy."))
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("eval", help="evaluate hands: strength, category, description")
    p.add_argument("hands", nargs="*", help='hands as text, e.g. "AsKs QsJsTs 2c 3d"')
    p.add_argument("--file", help="a file with one hand per line")
    p.add_argument("--game", default="holdem")
    p.add_argument("--backend", default="auto", choices=["auto", "numpy", "cuda"])
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_cmd_eval)

    p = sub.add_parser("equity", help="equity of hands or ranges, exact or Monte Carlo")
    p.add_argument("players", nargs="+", help='hands or ranges, e.g. AhKh "QQ+,AKs"')
    p.add_argument("--board", default="", help="0, 3, 4 or 5 board cards")
    p.add_argument("--dead", default="", help="dead cards")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--exact", action="store_true", help="enumerate every board")
    g.add_argument("--samples", type=int, help="Monte Carlo with this many samples")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--backend", default="auto", choices=["auto", "numpy", "cuda"])
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_cmd_equity)

    p = sub.add_parser("bench", help="evaluator throughput vs peers on this machine")
    p.add_argument("--n", type=int, default=10_000_000)
    p.add_argument("--peer-n", type=int, default=200_000)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--backend", default="auto", choices=["auto", "numpy", "cuda"])
    p.set_defaults(func=_cmd_bench)

    p = sub.add_parser("info", help="backend, device, CuPy and NVRTC versions")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_cmd_info)
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point of ``gpu-eval``.

    Examples
    --------
    >>> main(["eval", "AsKsQsJsTs"])
    AsKsQsJsTs   7462  Royal Flush
    0
    """
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (ValueError, TypeError, RuntimeError, OSError, NotImplementedError) as exc:
        print(f"gpu-eval {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"gpu-eval {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
