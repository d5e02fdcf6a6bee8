"""``gpu_eval.range_report``: what every combo of a range holds on a board -- its made-hand
class, draws, outs, nut rank -- and, against another range, its exact equity; on one board,
on every next card, or on every flop.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import numpy.typing as npt

from gpu_eval import backend_choice
from gpu_eval import progress as progress_bars
from gpu_eval.array_interop import Adopted, adopt, is_foreign
from gpu_eval.backend_choice import BACKENDS, is_cupy_array
from gpu_eval.games import registry
from gpu_eval.games.registry import HOLDEM, OMAHA, SHORTDECK
from gpu_eval.range_reports import boards as board_sets
from gpu_eval.range_reports.hands import RangeLike, read_range
from gpu_eval.range_reports.results import (
    BoardsReport,
    RangeReport,
    SideReport,
    StreetReport,
    range_equity,
)

__all__ = ["range_report", "game_record", "reads", "STREETS", "EVALUATORS"]

#: ``street=`` values: the board itself (None), every turn of a flop, every river of a turn.
STREETS = (None, "turn", "river")
#: The evaluators a report plays hands with (high games with a shared board).
EVALUATORS = (HOLDEM, SHORTDECK, OMAHA)


def reads(name: str) -> bool:
    """Whether a report reads game ``name``: a high game with a shared board that one of
    :data:`EVALUATORS` plays.

    Examples
    --------
    >>> [n for n in registry.names() if reads(n)]  # doctest: +NORMALIZE_WHITESPACE
    ['holdem', 'shortdeck', 'shortdeck-triton', 'omaha', 'omaha5', 'omaha6', 'courchevel']
    """
    g = registry.GAMES[name]
    return g.evaluator in EVALUATORS and g.deal == registry.BOARD and not g.hilo


def game_record(game) -> registry.Game:
    """The registry record of a game a report reads; ``ValueError`` naming the games it
    reads otherwise."""
    g = registry.get(game, where="range_report()")
    if not reads(g.name):
        why = " (its pot is split high/low)" if g.hilo and g.evaluator in EVALUATORS \
            and g.deal == registry.BOARD else ""
        raise ValueError(f"game {game!r} is not supported by range_report(){why}; known: "
                         f"{', '.join(n for n in registry.names() if reads(n))}")
    return g


def _wants_adopt(v) -> bool:
    return is_foreign(v) or is_cupy_array(v)


def _back(lead, result):
    """``result`` with every array (nested reports included) as the caller's kind."""
    if dataclasses.is_dataclass(result) and not isinstance(result, type):
        changes = {}
        for f in dataclasses.fields(result):
            v = getattr(result, f.name)
            if dataclasses.is_dataclass(v) or isinstance(v, (tuple, dict)) or hasattr(v, "dtype"):
                changes[f.name] = _back(lead, v)
        return dataclasses.replace(result, **changes)
    if isinstance(result, tuple):
        return tuple(_back(lead, v) for v in result)
    if isinstance(result, dict):
        return {k: _back(lead, v) for k, v in result.items()}
    if hasattr(result, "dtype") and getattr(result, "dtype", None) is not None \
            and result.dtype.kind != "O":
        return lead.back(result)
    return result


def range_report(hero: RangeLike, villain: RangeLike | None = None,
                 board: npt.ArrayLike | None = "", *, game: str = HOLDEM,
                 dead: npt.ArrayLike | None = "", street: str | None = None,
                 boards: npt.ArrayLike | None = None, per_combo: bool = False,
                 backend: str = "auto", progress: bool | None = None
                 ) -> RangeReport | StreetReport | BoardsReport:
    """What each combo of a range holds on a board, and its exact equity against another range.

    For every combo of ``hero`` that fits the board (its weight kept): its made-hand class
    (each combo in exactly one: straight flush .. nothing), its draws (flush draw, nut flush
    draw, open-ended, gutshot, ... on the flop and turn), outs (the unseen cards that raise its
    class, and those that give it the nuts), nut rank (how many distinct hand strengths on
    the board beat it; 0 = the nuts), and with a ``villain`` range its exact equity, win and
    tie against it, with card removal per combo: the same integers as
    ``gpu_eval.equity([combo, villain], board=board, exact=True)``. The villain's combos get
    the same rows against the hero. The definitions are in the docs ("Range reports").

    Parameters
    ----------
    hero, villain : str, Range or array_like
        Ranges as text (``"QQ+, AKs, 0.5(A5s-A2s)"``, Omaha: ``"AA$ds"``), a
        :class:`gpu_eval.Range`, a list of range texts, or ``(N, 2)`` card ids (hold'em and short
        deck). ``villain`` is optional.
    board : str or array_like
        3, 4 or 5 board cards (text, ids or a hand mask). Leave it out with ``boards=``.
    game : str
        ``"holdem"``, ``"shortdeck"``, ``"shortdeck-triton"``, ``"omaha"``, ``"omaha5"``,
        ``"omaha6"``, ``"courchevel"`` (exactly two hole cards play in the Omaha games).
    dead : str or array_like
        Cards out of play: removed from both ranges, the runouts and the outs.
    street : {None, "turn", "river"}
        ``"turn"`` on a flop: a report on each turn card; ``"river"`` on a turn: on each river.
    boards : "flops" or list of boards
        Many boards: ``"flops"`` is every flop, as its 1,755 suit classes (short deck: 560)
        weighted by the flops they stand for; a list of boards is those boards.
    per_combo : bool
        With ``boards=``: keep the ``(boards, combos)`` arrays of both ranges (class, draws,
        nut rank, equity, wins, ties, matchups).
    backend : {"auto", "numpy", "cuda"}
        Where the runouts are counted: ``"cuda"`` on the GPU (``kernels/range_report.cu``, the
        same integers), ``"numpy"`` on the CPU, ``"auto"`` on the GPU when CuPy sees a device
        (or an input lies on one), else NumPy. The classes, draws and outs are read on the
        host either way; Omaha counts on NumPy only (``"cuda"`` with an Omaha game raises
        ``NotImplementedError``).
    progress : bool or None
        A progress bar for long runs (None: only when a run looks long).

    Returns
    -------
    RangeReport, StreetReport or BoardsReport
        One board; one report per next card; many boards. Arrays are CuPy (or the caller's
        kind) when a range, board or dead-card array was.

    Raises
    ------
    ValueError
        Naming what is wrong: bad range or card text, a board of other than 3 to 5 cards, a
        card used twice, a card outside the game's deck, a range with no combo left after the
        board and dead cards, ``street`` on the wrong board, an unknown game or street.
    TypeError
        A value of the wrong kind (floats, bools, an array of floats, ...).

    Examples
    --------
    >>> import gpu_eval as ge
    >>> r = ge.range_report("QQ+, AKs", "JJ-99, AQs", board="Kd7c2h")
    >>> t = r.hero.class_table()
    >>> {c: int(n) for c, n in zip(t["class"], t["combos"]) if n}
    {'set': 3, 'overpair': 6, 'top_pair_top_kicker': 3, 'pocket_pair_below_top_pair': 6}
    >>> i = r.hero.hands.index("AsKs")
    >>> int(r.hero.wins[i]), int(r.hero.ties[i]), int(r.hero.matchups[i]), r.hero.boards
    (19037, 0, 21, 990)
    >>> e = ge.equity(["AsKs", "JJ-99, AQs"], board="Kd7c2h", exact=True)
    >>> int(e.wins[0]), int(e.ties[0]), e.matchups
    (19037, 0, 21)
    """
    args: dict[str, Any] = dict(hero=hero, villain=villain, board=board, dead=dead, boards=boards)
    found = [k for k, v in args.items()
             if _wants_adopt(v) or (isinstance(v, (list, tuple)) and v and _wants_adopt(v[0]))]
    if not found:
        return _report(**args, game=game, street=street, per_combo=per_combo, backend=backend,
                       progress=progress, on_device=False)
    firsts: list[Adopted] = []  # the first input taken over of each found (lists: non-empty)
    for k in found:
        v = args[k]
        if isinstance(v, (list, tuple)):
            got = [adopt(e, host_only=True) for e in v]
            args[k] = type(v)(g.array for g in got)
        else:
            got = [adopt(v, host_only=True)]
            args[k] = got[0].array
        firsts.append(got[0])
    lead = firsts[0]
    with lead.scope():
        out = _report(**args, game=game, street=street, per_combo=per_combo, backend=backend,
                      progress=progress, on_device=lead.on_device)
        return _back(lead, out)


def _where(g: registry.Game, backend: str, on_device: bool) -> str:
    """``"numpy"`` or ``"cuda"``: where the runouts are counted."""
    if backend not in BACKENDS:
        raise ValueError(f"backend={backend!r}: expected one of {', '.join(BACKENDS)}")
    if g.is_omaha:
        if backend == "cuda":
            raise NotImplementedError(f"{g.name} reports are counted on NumPy only: use "
                                      f"backend='numpy' (or 'auto')")
        return "numpy"
    if backend == "auto" and on_device:
        return "cuda"
    return backend_choice.resolve(backend)


def _report(hero, villain, board, dead, boards, game, street, per_combo, backend, progress,
            on_device):
    g = game_record(game)
    where = _where(g, backend, on_device)
    if street not in STREETS:
        raise ValueError(f"street={street!r}: expected None, 'turn' or 'river'")
    if not isinstance(per_combo, bool):
        raise TypeError(f"per_combo must be True or False, got {per_combo!r}")
    progress_bars.wanted(progress, 0.0)  # type check only
    dead_mask = board_sets.parse_cards(dead, g, "the dead cards", tuple(range(0, 40)))
    if boards is not None:
        if not (board is None or (isinstance(board, str) and not board.strip())):
            raise ValueError("give either board= (one board) or boards= (many), not both")
        if street is not None:
            raise ValueError("street= reads one board; with boards= every board is reported")
        from gpu_eval.range_reports.many_boards import report_boards  # noqa: PLC0415
        return report_boards(g, hero, villain, boards, dead_mask, per_combo=per_combo,
                             progress=progress, backend=where)
    if per_combo:
        raise ValueError("per_combo=True goes with boards=; one board always has a row per combo")
    sizes = tuple(s for s in g.board_sizes if s >= 3)
    board_mask = board_sets.parse_cards(board, g, "the board", sizes)
    if board_mask & dead_mask:
        raise ValueError(f"card {board_sets.board_text(board_mask & dead_mask)} is both on the "
                         f"board and dead")
    k = bin(board_mask).count("1")
    if street == "turn" and k != 3:
        raise ValueError(f"street='turn' needs a flop (3 cards); the board "
                         f"{board_sets.board_text(board_mask)} has {k}")
    if street == "river" and k != 4:
        raise ValueError(f"street='river' needs a turn board (4 cards); the board "
                         f"{board_sets.board_text(board_mask)} has {k}")
    known = board_mask | dead_mask
    hs = read_range(hero, g, known, "hero")
    vs = None if villain is None else read_range(villain, g, known, "villain")
    if g.is_omaha:
        from gpu_eval.range_reports import omaha  # noqa: PLC0415 -- its tables on demand
        one, per_card = omaha.report_one, omaha.report_street
    else:
        from gpu_eval.range_reports import one_board  # noqa: PLC0415
        one, per_card = one_board.report_one, one_board.report_street
    if street is None:
        return one(g, board_mask, dead_mask, hs, vs, backend=where)
    cards_text, reports = per_card(g, board_mask, dead_mask, hs, vs, backend=where)

    def eq(side):
        if vs is None:
            return None
        out = np.array([r.equity if side == "hero" else _side_equity(r.villain)
                        for r in reports])
        out.flags.writeable = False
        return out

    return StreetReport(game=g.name, board=board_sets.board_text(board_mask),
                        dead=board_sets.board_text(dead_mask), street=street,
                        cards=tuple(cards_text), reports=tuple(reports),
                        hero_equity=eq("hero"), villain_equity=eq("villain"),
                        method=reports[0].method if reports else "", backend=where)


def _side_equity(side: SideReport | None) -> float | None:
    """A side's matchup-weighted equity (None without the side or its equity)."""
    if side is None or side.equity is None:
        return None
    return range_equity(np.asarray(side.weights), np.asarray(side.equity),
                        np.asarray(side.opp_weight))
