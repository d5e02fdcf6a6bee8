"""``gpu-eval eval``: hands from the command line and/or a file, evaluated and written in
chunks, so a file of any length runs in bounded memory.

Input: one hand per line; blank lines and lines starting with ``#`` are skipped (line numbers
still count them). ``--file -`` reads standard input. Lines split as ``str.splitlines`` does.

Output, one line per hand, chunk by chunk as each is evaluated:

* a text table ``HAND  STRENGTH  DESCRIPTION`` (the hand column as wide as the longest hand
  among the arguments and the file's first chunk; a longer hand later pushes its line's
  columns right);
* with ``--json``, JSON Lines: one object per line,
  ``{"hand": ..., "strength": ..., "category": ..., "description": ...}``.

Bad hands: by default the first one stops the run with an error naming its line (what earlier
chunks wrote stays written). With ``--invalid mask`` every bad line is reported on stderr with
its line number and the reason, and is written with strength 0 (category ``null`` in JSON,
"no valid hand" as description).

A file expected to take more than a few seconds (:data:`BYTES_PER_SECOND`) draws a progress
bar over its bytes on stderr (``--no-progress``: never); standard input has no known size and
no bar.
"""

from __future__ import annotations

import io
import json
import os
import sys
from collections.abc import Iterator
from itertools import chain, islice, repeat
from operator import add

import numpy as np

from gpu_eval.cli_words import cli_words
from gpu_eval.games import registry
from gpu_eval.progress import Progress, wanted

#: Lines read, parsed, evaluated and written at a time (``--chunk-lines``).
CHUNK_LINES = 1 << 18
#: A low guess of the bytes of a file of hands read, evaluated and written per second (about
#: 1,000,000 lines of 16 bytes in 1.5 s), only to decide whether to draw a progress bar.
BYTES_PER_SECOND = 1e7


def _open(path: str):
    if path == "-":
        buf = getattr(sys.stdin, "buffer", None)
        return (io.TextIOWrapper(buf, encoding="utf-8") if buf is not None else sys.stdin,
                "stdin", False)
    try:
        return open(path, encoding="utf-8"), repr(path), True
    except OSError as exc:
        raise ValueError(f"cannot read --file {path!r}: {exc.strerror or exc}") from None


def file_chunks(path: str, chunk_lines: int = CHUNK_LINES, bar: Progress | None = None
                ) -> Iterator[tuple[list[str], np.ndarray | range, str]]:
    """``(hands, line numbers, source name)`` per chunk of a file of hands (``-``: stdin).

    Hands are the stripped lines that are neither blank nor ``#`` comments; line numbers
    start at 1. ``bar`` advances by the bytes of each chunk read.

    Examples
    --------
    >>> import tempfile, os
    >>> with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
    ...     _ = f.write("# hands\\nAsKsQsJsTs\\n\\n 7c5d4h3s2c \\n")
    >>> [(h, [int(i) for i in n]) for h, n, _ in file_chunks(f.name)]
    [(['AsKsQsJsTs', '7c5d4h3s2c'], [2, 4])]
    >>> os.unlink(f.name)
    """
    fh, name, close = _open(path)
    first = 1
    try:
        while True:
            try:
                block = list(islice(fh, chunk_lines))
            except UnicodeDecodeError as exc:
                raise ValueError(f"cannot read --file {path!r}: not UTF-8 text "
                                 f"({exc.reason})") from None
            except OSError as exc:
                raise ValueError(f"cannot read --file {path!r}: {exc.strerror or exc}") \
                    from None
            if not block:
                return
            text = "".join(block)
            if bar is not None:
                bar.update(len(text) if text.isascii() else len(text.encode("utf-8")))
            # splitlines, as a whole-file read would split (\x0b, \x1c, \u2028, ... too)
            lines = list(map(str.strip, text.splitlines()))
            if "" in lines or any(map(str.startswith, lines, repeat("#"))):
                keep = [i for i, ln in enumerate(lines) if ln and ln[0] != "#"]
                hands = [lines[i] for i in keep]
                numbers = np.array(keep, dtype=np.int64) + first
            else:
                hands, numbers = lines, range(first, first + len(lines))
            first += len(lines)
            if hands:
                yield hands, numbers, name
    finally:
        if close:
            fh.close()


class _Rows:
    """What to write for each strength, built once per strength value seen."""

    def __init__(self, ge, scale: str, as_json: bool):
        self.ge, self.scale, self.as_json = ge, scale, as_json
        self.table = np.full(1 << 16, None, dtype=object)

    def suffixes(self, strength: np.ndarray) -> list:
        s = strength.astype(np.intp)
        seen = np.flatnonzero(np.bincount(s, minlength=1))
        new = seen[[self.table[v] is None for v in seen.tolist()]]
        if new.size:
            names = self.ge.describe(new.astype(np.uint16), game=self.scale)
            names = [names] if isinstance(names, str) else list(names)
            valid = new > 0
            cats = np.zeros(len(new), dtype=np.int64)
            if valid.any():
                cats[valid] = self.ge.category(new[valid].astype(np.uint16), game=self.scale)
            for v, c, d, ok in zip(new.tolist(), cats.tolist(), names, valid.tolist()):
                if self.as_json:
                    rest = json.dumps({"strength": v, "category": c if ok else None,
                                       "description": d})
                    self.table[v] = ", " + rest[1:] + "\n"
                else:
                    self.table[v] = f"  {v:>5}  {d}\n"
        return self.table[s].tolist()


def _quoted(hands: list[str]) -> list[str]:
    """JSON strings of the hands (as ``json.dumps`` writes them), quickly when no escape is
    needed."""
    joined = "".join(hands)
    if joined.isascii() and joined.isprintable() and '"' not in joined and "\\" not in joined:
        return list(map(add, repeat('{"hand": "'), map(add, hands, repeat('"'))))
    return ['{"hand": ' + json.dumps(h) for h in hands]


def run(args, out=None) -> int:
    """Run ``gpu-eval eval`` with parsed ``args``; write to ``out`` (default stdout)."""
    import gpu_eval as ge

    out = out if out is not None else sys.stdout
    scale = args.game
    omaha = registry.get(args.game).is_omaha
    kw: dict = {}
    if omaha:
        if not args.board:
            raise ValueError(f"--game {args.game} needs --board (3 to 5 board cards): Omaha "
                             f"hands use exactly two hole cards and three board cards")
    else:
        if args.board:
            raise ValueError("--board applies to the Omaha games only; for hold'em put the "
                             "board cards in each hand")
        if args.wild:
            wild = [w.strip() for w in args.wild.split(",") if w.strip()]
            kw["wild"] = wild[0] if len(wild) == 1 else wild
            scale = "wild"

    def evaluate(hands: list[str], invalid: str) -> np.ndarray:
        if omaha:
            return ge.evaluate_omaha(hands, args.board, game=args.game, backend=args.backend,
                                     invalid=invalid)
        return ge.evaluate(hands, backend=args.backend, game=args.game, invalid=invalid, **kw)

    def reason(hand: str, where: str) -> str:
        """The error evaluating this one hand raises, placed at ``where``."""
        try:
            evaluate([hand], "raise")
        except ValueError as exc:
            msg = cli_words(str(exc))
            return msg.replace("(row 0)", f"({where})") if "(row 0)" in msg \
                else f"{where}: {msg}"
        return f"{where}: not a valid hand"  # pragma: no cover - masked yet fine alone

    # A bar over the file's bytes, for a file (stdin has no size) that looks long.
    size = os.path.getsize(args.file) if args.file and args.file != "-" and \
        os.path.isfile(args.file) else 0
    show = size > 0 and wanted(False if getattr(args, "no_progress", False) else None,
                               size / BYTES_PER_SECOND)
    # The hands given as arguments, then the file's chunks; the first chunk of the file is
    # read before anything is written, so the table's hand column fits both.
    with Progress(size, "eval", unit="B", enabled=show) as bar:
        file_iter = file_chunks(args.file, args.chunk_lines, bar if show else None) \
            if args.file else iter(())
        first = [([*args.hands], None, None)] if args.hands else []
        first += [c for c in [next(file_iter, None)] if c is not None]
        width = max((len(h) for hands, _, _ in first for h in hands), default=0)
        rows = _Rows(ge, scale, args.json)
        total = 0
        for hands, numbers, name in chain(first, file_iter):
            strength = np.atleast_1d(np.asarray(evaluate(hands, "mask")))
            bad = np.flatnonzero(strength == 0).tolist()
            for r in bad:
                where = f"row {r}" if numbers is None else f"line {numbers[r]} of {name}"
                msg = reason(hands[r], where)
                if args.invalid == "raise":
                    raise ValueError(msg)
                bar.write(f"gpu-eval eval: warning: {' '.join(msg.split())}", sys.stderr)
            suffix = rows.suffixes(strength)
            if args.json:
                lines = map(add, _quoted(hands), suffix)
            else:
                lines = map(add, map(str.ljust, hands, repeat(width)), suffix)
            out.write("".join(lines))
            total += len(hands)
    if not total:
        raise ValueError("no hands given: pass hands as arguments or --file")
    return 0
