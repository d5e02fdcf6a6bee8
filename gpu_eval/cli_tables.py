"""``gpu-eval tables river|turn|flop|preflop --out DIR``: build a solver table into files.

The run is chunked and resumable (``gpu_eval.solver_tables.build``): interrupt it and run the
same command again to carry on; the table loads (``gpu_eval.load_table``) only once complete.
A folder that cannot be made or written is one error line naming ``--out`` and the path.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

__all__ = ["add_parser", "run", "DESCRIPTION"]

STREETS = ("river", "turn", "flop", "preflop")
#: What ``gpu-eval tables --help`` says (plain text: argparse shows it as written).
DESCRIPTION = ("Build a solver table into files in the --out folder: river (exact wins and ties "
               "of every canonical river hand against every opponent hand), or turn, flop or "
               "preflop (histograms of river strength over every runout, with EHS and EHS^2). "
               "The run is chunked and resumable: interrupt it and run the same command again "
               "to carry on; the files load with gpu_eval.load_table once the run is complete.")


def add_parser(sub, count) -> None:
    """Add the ``tables`` subcommand to the ``gpu-eval`` subparsers ``sub``.

    Examples
    --------
    >>> from gpu_eval.cli import build_parser
    >>> build_parser().parse_args(["tables", "river", "--out", "t"]).street
    'river'
    """
    from gpu_eval.games import registry

    games = registry.names(registry.HOLDEM, deal=registry.BOARD) + registry.names(
        registry.SHORTDECK)
    p = sub.add_parser("tables", help="solver tables: river strength, strength histograms",
                       description=DESCRIPTION)
    p.add_argument("street", choices=STREETS,
                   help="the table: river (river strength), or turn, flop or preflop "
                        "(strength histograms)")
    p.add_argument("--out", required=True,
                   help="folder of the table files (created if missing; a rerun resumes)")
    p.add_argument("--bins", type=count, default=50,
                   help="histogram bins (default 50; the river table has none)")
    p.add_argument("--game", default=registry.HOLDEM, choices=games, metavar="GAME",
                   help=f"the game (default holdem): {', '.join(games)}")
    p.add_argument("--backend", default="auto", choices=("auto", "numpy", "cuda"),
                   help="where river boards are counted (the files are the same)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Build the table of ``args`` (parsed by :func:`add_parser`'s subcommand); print its
    sidecar's path.

    Raises
    ------
    ValueError
        ``--out`` is not a folder, or a file in it cannot be created or written (the
        message names ``--out``, the path and the system's reason).
    """
    from gpu_eval.solver_tables.build import build_files

    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise ValueError(f"--out {args.out!r} is a file, not a folder: name a folder (created "
                         f"if missing)")
    if out.is_symlink() and not out.exists():
        raise ValueError(f"--out {args.out!r} is a link to {os.readlink(out)!r}, which does "
                         f"not exist: create that folder or name another")
    try:
        side = build_files(args.street, args.out, game=args.game, bins=args.bins,
                           progress=False if args.no_progress else True, backend=args.backend)
    except OSError as exc:  # the folder or a file in it: name both, not a raw [Errno N]
        path = exc.filename if exc.filename is not None else args.out
        reason = exc.strerror or os.strerror(exc.errno or 0) or type(exc).__name__
        raise ValueError(f"--out {args.out!r}: cannot create or write {os.fspath(path)!r}: "
                         f"{reason}") from None
    print(side)
    return 0
