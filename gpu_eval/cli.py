"""The ``gpu-eval`` command line: eval, equity, bench, tables, compile, info.

Wrong input -- a bad option as much as a bad card -- prints exactly one line on stderr,
``gpu-eval <command>: error: <what and why>``, and exits with status 2, never a traceback.
Warnings (e.g. "this exact run takes minutes") print as one ``gpu-eval <command>: warning:``
line, and input read in a way a user may not expect (a 2-card hand in an Omaha game, which is
a range) or a run sampled where the user may have expected an exact answer as one
``gpu-eval <command>: note:`` line. Every message names options as the command line spells
them (``--wild joker``, not ``wild='joker'``). Long runs draw a progress bar on stderr
(``--no-progress`` turns it off); results always go to stdout.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import sys
import warnings
from collections.abc import Sequence

import numpy as np

from gpu_eval.cli_words import cli_words
from gpu_eval.games import registry

BACKENDS = ("auto", "numpy", "cuda")
#: The games ``equity`` plays: every game but the low hand evaluators (their equity is that of
#: the draw games).
EQUITY_GAMES = tuple(g for g in registry.names() if registry.GAMES[g].engine)


class _UsageError(Exception):
    """A command-line mistake found by argparse; the message is the whole error line."""


class _Parser(argparse.ArgumentParser):
    """argparse, but an error is one line (no usage block) and never exits by itself."""

    def error(self, message: str):  # type: ignore[override]
        raise _UsageError(f"{self.prog}: error: {message}")


def _whole(text: str, minimum: int) -> int:
    """A whole number ``>= minimum``; accepts ``1000000``, ``1_000_000`` and ``1e6``."""
    try:
        value = int(text.replace("_", ""))
    except ValueError:
        try:
            f = float(text)
        except ValueError:
            f = float("nan")
        if not f.is_integer():
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        value = int(f)
    if value < minimum:
        raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {text!r}")
    return value


def _count(text: str) -> int:
    return _whole(text, 1)


def _count0(text: str) -> int:
    return _whole(text, 0)


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}") \
            from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be a non-negative integer, got {text!r}")
    return value


def _cmd_eval(args: argparse.Namespace) -> int:
    from gpu_eval import cli_eval  # streams: chunk by chunk, in bounded memory

    return cli_eval.run(args)


def note(command: str, message: str) -> None:
    """Print a one-line note on stderr: input read in a way a user may not expect."""
    print(f"gpu-eval {command}: note: {_one_line(message)}", file=sys.stderr)


def short_hands_note(players: Sequence[str], game: str) -> str | None:
    """The note for players given fewer cards than the game's hole cards (Omaha and
    Courchevel): each such hand is read as a range, every hand holding those cards.

    Examples
    --------
    >>> print(short_hands_note(["AhKh", "QsQdJcTc"], "omaha"))  # doctest: +NORMALIZE_WHITESPACE
    player 1's AhKh has 2 cards where a hand of omaha has 4: it is read as a range, every
    omaha hand holding those cards (1,225 hands)
    >>> short_hands_note(["AhKh", "QsQd"], "holdem") is None
    True
    """
    from gpu_eval import cards  # noqa: PLC0415 -- light, but only the equity command needs it

    rules = registry.get(game)
    if not rules.is_omaha:
        return None
    short = []
    for i, text in enumerate(players):
        try:
            n = cards.parse(text).size
        except (ValueError, TypeError):  # range text: no note
            continue
        if 0 < n < rules.hole_cards:
            short.append((i + 1, text, n))
    if not short:
        return None
    hole = rules.hole_cards
    counts = [f"{math.comb(rules.deck_size - n, hole - n):,}" for _, _, n in short]
    count = counts[0] if len(set(counts)) == 1 else ", ".join(counts)
    if len(short) == 1:
        i, text, n = short[0]
        return (f"player {i}'s {text} has {n} cards where a hand of {game} has {hole}: it is "
                f"read as a range, every {game} hand holding those cards ({count} hands)")
    who = ", ".join(f"{i} ({text})" for i, text, _ in short)
    each = " each" if len(set(counts)) == 1 else ""
    return (f"players {who} hold fewer cards than the {hole} of a hand of {game}: each is read "
            f"as a range, every {game} hand holding those cards ({count} hands{each})")


def sampled_note(result, game: str) -> str:
    """Why a run without ``--exact`` or ``--samples`` was sampled, and how to change it.

    Examples
    --------
    >>> import gpu_eval as ge
    >>> r = ge.equity(["AA", "KK"], exact=False, samples=1000, seed=1)
    >>> print(sampled_note(r, "holdem"))  # doctest: +NORMALIZE_WHITESPACE
    answered by Monte Carlo (1,000 samples, with standard errors): enumerating every board
    would take longer than the few seconds allowed without --exact; --exact enumerates
    anyway, --samples N sets the count
    """
    what = "deal" if registry.get(game).deal == registry.OWN_CARDS else "board"
    return (f"answered by Monte Carlo ({result.samples:,} samples, with standard errors): "
            f"enumerating every {what} would take longer than the few seconds allowed without "
            f"--exact; --exact enumerates anyway, --samples N sets the count")


def _cmd_equity(args: argparse.Namespace) -> int:
    from gpu_eval.equity_engine.api import equity

    short = short_hands_note(args.players, args.game)
    if short:
        note("equity", short)
    exact = True if args.exact else (False if args.samples else None)
    # None: the library draws a bar on stderr when the run is expected to be long.
    result = equity(args.players, board=args.board, dead=args.dead, exact=exact,
                    samples=args.samples, seed=args.seed, backend=args.backend,
                    progress=False if args.no_progress else None, game=args.game)
    if exact is None and not result.exact:
        note("equity", sampled_note(result, args.game))
    if args.json:
        print(json.dumps(result.to_dict()))
    else:
        print(result)
    return 0


def _cmd_bench(args: argparse.Namespace) -> int:
    from gpu_eval import backend_choice, bench

    backends = ["numpy"] + (["cuda"] if backend_choice.cuda_status()[0] else [])
    if args.backend != "auto":
        backend_choice.resolve(args.backend)  # "cuda" without a device: a clear error now
        backends = [args.backend]
    print(f"machine: {platform.machine()}, Python {platform.python_version()}; "
          f"backends: {', '.join(backends)}")
    bench.run(n=args.n, peer_n=min(args.peer_n, args.n), repeats=args.repeats,
              backends=tuple(backends), progress=False if args.no_progress else None)
    return 0


def _cmd_info(args: argparse.Namespace) -> int:
    import gpu_eval as ge
    from gpu_eval import backend_choice

    ok, why = backend_choice.cuda_status()
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


#: Help of the options several subcommands share.
BACKEND_HELP = ("where to compute: auto (the GPU when CuPy sees a device, else NumPy; the "
                "default), numpy or cuda")
NO_PROGRESS_HELP = "no progress bar (by default runs expected to be long draw one on stderr)"


def build_parser() -> argparse.ArgumentParser:
    """The ``gpu-eval`` parser: every subcommand with a description, every option with help.

    Examples
    --------
    >>> build_parser().parse_args(["equity", "AhKh", "QQ+", "--exact"]).exact
    True
    """
    parser = _Parser(prog="gpu-eval", description=(
        "Bulk poker hand evaluation and equity on NVIDIA GPUs (CuPy) or NumPy."))
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND",
                                parser_class=_Parser)

    p = sub.add_parser("eval", help="evaluate hands: strength, category, description",
                       description="Evaluate hands: strength (higher is better), category "
                                   "and description, one line per hand. A --file is read, "
                                   "evaluated and written in chunks (bounded memory, any "
                                   "length); output is a text table, or JSON Lines with "
                                   "--json.")
    p.add_argument("hands", nargs="*", help='hands as text, e.g. "AsKs QsJsTs 2c 3d"')
    p.add_argument("--file", help="a file with one hand per line (# starts a comment line; "
                                  "- reads standard input)")
    p.add_argument("--invalid", default="raise", choices=["raise", "mask"],
                   help="raise: stop at the first bad hand (default); mask: report each bad "
                        "line with its line number on stderr, write it with strength 0, "
                        "and go on")
    p.add_argument("--chunk-lines", type=_count, default=1 << 18,
                   help="lines of --file read, evaluated and written at a time "
                        "(default 262144)")
    # One strength a hand (hi/lo games give two): evaluate, or evaluate_omaha with --board.
    evaluators = [g for g in registry.names() if not registry.GAMES[g].hilo]
    p.add_argument("--game", default=registry.HOLDEM, choices=evaluators, metavar="GAME",
                   help=f"the game whose hands these are (default holdem): "
                        f"{', '.join(evaluators)}")
    p.add_argument("--board", default="",
                   help="Omaha games: the board (3 to 5 cards) shared by every hand")
    p.add_argument("--wild", default="",
                   help='hold\'em with wild cards: "joker", a rank such as "2", "bug", '
                        'or several separated by commas')
    p.add_argument("--backend", default="auto", choices=BACKENDS, help=BACKEND_HELP)
    p.add_argument("--json", action="store_true",
                   help='print JSON Lines: one {"hand", "strength", "category", '
                        '"description"} object per line')
    p.add_argument("--no-progress", action="store_true", help=NO_PROGRESS_HELP)
    p.set_defaults(func=_cmd_eval)

    p = sub.add_parser("equity", help="equity of hands or ranges, exact or Monte Carlo",
                       description="Each player's share of the pot. Without --exact or "
                                   "--samples, small problems are enumerated exactly and "
                                   "large ones sampled (a note on stderr says so).")
    p.add_argument("players", nargs="+", help='2 to 10 hands or ranges, e.g. AhKh "QQ+,AKs"')
    p.add_argument("--board", default="", help="0, 3, 4 or 5 board cards")
    p.add_argument("--dead", default="", help="dead cards")
    p.add_argument("--game", default=registry.HOLDEM, choices=EQUITY_GAMES, metavar="GAME",
                   help=f"the game (default holdem; hi/lo games add high, low and scoop "
                        f"columns; Omaha ranges such as 'KK$ds' need quotes in the shell): "
                        f"{', '.join(EQUITY_GAMES)}")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--exact", action="store_true", help="enumerate every board")
    g.add_argument("--samples", type=_count, help="Monte Carlo with this many samples")
    p.add_argument("--seed", type=_seed, default=None, help="Monte Carlo seed")
    p.add_argument("--backend", default="auto", choices=BACKENDS, help=BACKEND_HELP)
    p.add_argument("--no-progress", action="store_true", help=NO_PROGRESS_HELP)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_cmd_equity)

    p = sub.add_parser("bench", help="evaluator throughput vs peers on this machine",
                       description="Measure evaluator throughput on this machine: 5- and "
                                   "7-card hands, bitmask and perfect-hash algorithms, ids "
                                   "and masks, on every backend here, against eval7 and "
                                   "phevaluator when they are installed (measured in the same "
                                   "run). Each figure is the median of --repeats timed runs. "
                                   "The defaults take about a minute on a CPU.")
    p.add_argument("--n", type=_count, default=10_000_000,
                   help="hands per measurement (default 10,000,000)")
    p.add_argument("--peer-n", type=_count0, default=200_000,
                   help="hands per measurement for eval7 / phevaluator (default 200,000; "
                        "0: skip them)")
    p.add_argument("--repeats", type=_count, default=5,
                   help="timed runs per figure, after one warm-up; the median is reported "
                        "(default 5)")
    p.add_argument("--backend", default="auto", choices=BACKENDS,
                   help="auto: measure NumPy and, when CuPy sees a device, CUDA (the "
                        "default); numpy or cuda: that one only")
    p.add_argument("--no-progress", action="store_true", help=NO_PROGRESS_HELP)
    p.set_defaults(func=_cmd_bench)

    from gpu_eval import cli_tables  # the solver tables' subcommand (light: imports on run)
    cli_tables.add_parser(sub, _count)
    from gpu_eval import cli_compile  # warming the kernel cache (light: imports on run)
    cli_compile.add_parser(sub, _count)

    p = sub.add_parser("info", help="backend, device, CuPy and NVRTC versions",
                       description="Print the versions of gpu_eval, Python, NumPy, CuPy and "
                                   "NVRTC, the backend that --backend auto picks here, why "
                                   "CUDA is or is not usable, and the CUDA device.")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_cmd_info)
    parser._subcommands = sub.choices  # type: ignore[attr-defined]
    return parser


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``gpu-eval``; returns the exit status.

    Examples
    --------
    >>> main(["eval", "AsKsQsJsTs"])
    AsKsQsJsTs   7462  Royal Flush
    0
    """
    parser = build_parser()
    try:
        args, extra = parser.parse_known_args(argv)
        if extra:
            sub = parser._subcommands.get(getattr(args, "command", None), parser)
            sub.error(f"unrecognized arguments: {' '.join(extra)}")
    except _UsageError as exc:
        print(_one_line(exc), file=sys.stderr)
        return 2
    except SystemExit as exc:  # --help and --version print and stop
        return exc.code if isinstance(exc.code, int) else 0
    where = f"gpu-eval {args.command}"

    def show_warning(message, category, filename, lineno, file=None, line=None):
        print(f"{where}: warning: {cli_words(_one_line(message))}", file=sys.stderr)

    with warnings.catch_warnings():
        warnings.showwarning = show_warning
        try:
            status = args.func(args)
            sys.stdout.flush()  # a closed pipe shows up here, not at interpreter exit
            return status
        except BrokenPipeError:  # `gpu-eval ... | head`: stop quietly, as other tools do
            try:
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            except (OSError, ValueError, AttributeError):
                pass
            return 1
        except (ValueError, TypeError, RuntimeError, OSError, NotImplementedError,
                MemoryError) as exc:
            msg = cli_words(_one_line(exc)) or type(exc).__name__
            if isinstance(exc, MemoryError):
                msg = f"out of memory{': ' + msg if msg != 'MemoryError' else ''}"
            print(f"{where}: error: {msg}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            print(f"{where}: interrupted", file=sys.stderr)
            return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
