"""``gpu-eval tables river|turn|flop|preflop --out DIR``: build a solver table into files.

The run is chunked and resumable (``gpu_eval.solver_tables.build``): interrupt it and run the
same command again to carry on; the table loads (``gpu_eval.load_table``) only once complete.
"""

from __future__ import annotations

import argparse

__all__ = ["add_parser", "run"]

STREETS = ("river", "turn", "flop", "preflop")


def add_parser(sub, count) -> None:
    """Add the ``tables`` subcommand to the ``gpu-eval`` subparsers ``sub``."""
    from gpu_eval.games import registry

    p = sub.add_parser("tables", help="solver tables: river strength, strength histograms",
                       description=__doc__.split("\n\n")[0])
    p.add_argument("street", choices=STREETS)
    p.add_argument("--out", required=True, help="folder of the table files (created)")
    p.add_argument("--bins", type=count, default=50, help="histogram bins (default 50)")
    p.add_argument("--game", default=registry.HOLDEM,
                   choices=registry.names(registry.HOLDEM) + registry.names(registry.SHORTDECK))
    p.add_argument("--backend", default="auto", choices=("auto", "numpy", "cuda"),
                   help="where river boards are counted (the files are the same)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from gpu_eval.solver_tables.build import build_files

    side = build_files(args.street, args.out, game=args.game, bins=args.bins,
                       progress=False if args.no_progress else True, backend=args.backend)
    print(side)
    return 0
