"""``gpu-eval report HERO [--vs VILLAIN] --board Kd7c2h [--street turn] [--all-flops]
[--out FILE]``: what each combo of a range holds on a board (made hands, draws, equity).

One board prints a table of each range's share per made-hand class and draw, with equity;
``--street turn`` (on a flop) or ``river`` (on a turn) a row per next card; ``--all-flops``
the equity over every flop, the best and worst, by texture. ``--out`` writes the rows (a
combo, a card or a board each) as CSV, or Parquet for a ``.parquet`` name (pandas needed:
the ``frames`` extra).
"""

from __future__ import annotations

import argparse

__all__ = ["add_parser", "run", "write_frame"]


def add_parser(sub) -> None:
    """Add the ``report`` subcommand to the ``gpu-eval`` subparsers ``sub``."""
    from gpu_eval.games import registry
    from gpu_eval.range_reports.api import reads

    games = [n for n in registry.names() if reads(n)]
    p = sub.add_parser("report", help="range anatomy: made hands, draws, equity per combo",
                       description="Take a range apart on a board: each combo's made-hand "
                                   "class, draws, outs and nut rank and, with --vs, its exact "
                                   "equity against the other range. One board prints each "
                                   "range's share per class and draw; --street turn (on a "
                                   "flop) or river (on a turn) a row per next card; "
                                   "--all-flops the equity over every flop, the best and "
                                   "worst, by texture. --out writes the rows (a combo, a card "
                                   "or a board each) as CSV, or Parquet for a .parquet name.")
    p.add_argument("hero", help='the range, e.g. "QQ+,AKs" (Omaha: "AA$ds"; quote it)')
    p.add_argument("--vs", dest="villain", default=None, help="the other range (adds equity)")
    p.add_argument("--board", default="", help="3, 4 or 5 board cards, e.g. Kd7c2h")
    p.add_argument("--street", choices=("turn", "river"), default=None,
                   help="a report on every turn of a flop, or every river of a turn")
    p.add_argument("--all-flops", action="store_true",
                   help="every flop (1,755 suit classes weighted to 22,100 flops)")
    p.add_argument("--dead", default="", help="dead cards")
    p.add_argument("--game", default=registry.HOLDEM, choices=games,
                   help=f"the game (default {registry.HOLDEM}; the Omaha games play exactly "
                        f"two hole cards)")
    p.add_argument("--out", default=None,
                   help="write the rows to FILE: .csv, or .parquet (needs pandas and pyarrow)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=run)


def write_frame(report, path: str) -> int:
    """Write a report's rows to ``path`` (CSV, or Parquet by extension); returns the rows."""
    from gpu_eval.range_reports.results import BoardsReport, RangeReport, StreetReport

    if isinstance(report, RangeReport):
        frames = [report.to_frame("combos", "hero").assign(range="hero")]
        if report.villain is not None:
            frames.append(report.to_frame("combos", "villain").assign(range="villain"))
        import pandas as pd  # noqa: PLC0415 -- to_frame() already needed it

        df = pd.concat(frames)
    elif isinstance(report, (StreetReport, BoardsReport)):
        df = report.to_frame()
    else:  # pragma: no cover -- range_report returns one of the three
        raise TypeError(type(report).__name__)
    if path.lower().endswith(".parquet"):
        try:
            df.to_parquet(path)
        except ImportError as e:
            raise ValueError(f"writing {path}: Parquet needs the pyarrow package, which is "
                             f"not installed here; give a .csv name instead ({e})") from None
    else:
        df.to_csv(path)
    return len(df)


def run(args: argparse.Namespace) -> int:
    from gpu_eval.range_reports.api import range_report

    if args.all_flops and (args.board or args.street):
        raise ValueError("--all-flops reports every flop: leave out --board and --street")
    if not args.all_flops and not args.board:
        raise ValueError("give --board (3, 4 or 5 cards), or --all-flops")
    progress = False if args.no_progress else None
    if args.all_flops:
        report = range_report(args.hero, args.villain, boards="flops", dead=args.dead,
                              game=args.game, progress=progress)
    else:
        report = range_report(args.hero, args.villain, board=args.board, dead=args.dead,
                              game=args.game, street=args.street, progress=progress)
    print(report)
    if args.out:
        n = write_frame(report, args.out)
        print(f"wrote {n:,} rows to {args.out}")
    return 0
