"""A report on one board, or on every next card of it (hold'em and short deck): the features
of every column (:mod:`gpu_eval.range_reports.columns`) gathered for each range, and the exact
equity of every combo both ways (:mod:`gpu_eval.range_reports.equity`).
"""

from __future__ import annotations

from math import comb
from typing import cast

import numpy as np

from gpu_eval import cards
from gpu_eval.cards import ID_TO_MASK
from gpu_eval.games.registry import Game
from gpu_eval.range_reports import boards as board_sets
from gpu_eval.range_reports.columns import Features, column_features, gather
from gpu_eval.range_reports.equity import (
    Counts,
    column_weights,
    opponents,
    side_counts,
    versus,
)
from gpu_eval.range_reports.hands import Side, column_of_pairs
from gpu_eval.range_reports.results import RangeReport, SideReport, range_equity, read_only
from gpu_eval.range_reports.symmetry import column_perms, orbit_reps, report_group, symmetrize
from gpu_eval.solver_tables.layout import deck_layout

__all__ = ["report_one", "report_street", "side_report", "method_text"]


def side_report(side: Side, game: Game, f: Features, counts: Counts | None,
                keep: np.ndarray | None = None) -> SideReport:
    """A :class:`SideReport` of ``side``'s combos (those ``keep`` selects) from their
    features and counts (1-d arrays over the side's combos)."""
    if f.outs is None or f.nut_outs is None:
        raise ValueError("side_report needs the outs: column_features(..., outs=True)")
    sel = slice(None) if keep is None else keep
    extra = {}
    if counts is not None:
        eq, win, tie = counts.fractions()
        extra = dict(equity=read_only(eq[sel]), win=read_only(win[sel]), tie=read_only(tie[sel]),
                     wins=read_only(counts.wins[sel]), ties=read_only(counts.ties[sel]),
                     matchups=read_only(counts.matchups[sel]),
                     opp_weight=read_only(np.array(counts.weight[sel])), boards=counts.boards)
    return SideReport(
        label=side.label, game=game.name, combos=read_only(side.combos[sel]),
        weights=read_only(side.weights[sel]), strength=read_only(f.strength[sel]),
        made=read_only(f.made[sel]), draws=read_only(f.draws[sel]),
        straight_ranks=read_only(f.straight_ranks[sel]), nut_rank=read_only(f.nut_rank[sel]),
        outs=read_only(f.outs[sel]), nut_outs=read_only(f.nut_outs[sel]), **extra)


def method_text(n_hero: int, n_villain: int | None, per: int | None) -> str:
    if n_villain is None:
        return f"{n_hero:,} combos classified"
    return (f"exact: {n_hero:,} x {n_villain:,} combos, {per:,} board"
            f"{'s' * (per != 1)} per matchup")


def _equity_parts(game: Game, board: int, dead: int, hero: Side, villain: Side, reduce: str,
                  bar=None, backend: str = "numpy"):
    lay = deck_layout(game.name)
    k = bin(board).count("1")
    runouts = board_sets.completions(board, dead, game, game.full_board - k)
    ch = column_of_pairs(hero.combos, lay.lowest_card)
    cv = column_of_pairs(villain.combos, lay.lowest_card)
    wh = column_weights(ch, hero.weights, lay.columns)
    wv = column_weights(cv, villain.weights, lay.columns)
    if reduce == "sum":
        # One runout per orbit of the suit permutations that keep the board and both ranges.
        group = report_group(board | dead, [hero, villain])
        idx, mult = orbit_reps(runouts, group)
        less, equal, w, where = versus(runouts[idx], lay, wh, wv, reduce=reduce, bar=bar,
                                       backend=backend,
                                       multiplicity=mult if len(group) > 1 else None)
        perms = column_perms(lay, group)
        return lay, runouts, ch, cv, symmetrize(less, perms), symmetrize(equal, perms), w, where
    less, equal, w, where = versus(runouts, lay, wh, wv, reduce=reduce, bar=bar,
                                   backend=backend)
    return lay, runouts, ch, cv, less, equal, w, where


def report_one(game: Game, board: int, dead: int, hero: Side, villain: Side | None,
               backend: str = "numpy", bar=None) -> RangeReport:
    """Both ranges on ``board`` (a mask of 3 to 5 cards)."""
    lay = deck_layout(game.name)
    f = column_features(np.array([board], dtype=np.uint64), lay, game, dead=dead)
    f = f.map(lambda a: a[0])
    ch = column_of_pairs(hero.combos, lay.lowest_card)
    k = bin(board).count("1")
    per = None
    hc = vc = None
    if villain is not None:
        lay, _, ch, cv, less, equal, w, where = _equity_parts(game, board, dead, hero, villain,
                                                              "sum", bar, backend)
        opp = opponents(lay, w)
        n_dead = bin(dead).count("1")
        per = comb(game.deck_size - k - n_dead - 4, game.full_board - k)
        hc = _at(side_counts(less, equal, opp, where[0], where[1], per), ch)
        vc = _at(side_counts(less, equal, opp, where[2], where[3], per), cv)
    hs = side_report(hero, game, gather(f, ch), hc)
    vs = None
    if villain is not None:
        vs = side_report(villain, game, gather(f, column_of_pairs(villain.combos, lay.lowest_card)),
                         vc)
    eq = None if hs.equity is None else range_equity(np.asarray(hs.weights), np.asarray(hs.equity),
                                                     np.asarray(hs.opp_weight))
    return RangeReport(game=game.name, board=board_sets.board_text(board),
                       dead=board_sets.board_text(dead), hero=hs,
                       villain=vs, equity=eq,
                       method=method_text(len(hero), None if villain is None else len(villain),
                                          per), backend=backend)


def _at(c: Counts, cols: np.ndarray) -> Counts:
    return c.map(lambda a: np.take(a, cols, axis=-1))


def _card_side(side: Side, game: Game, fi: Features, cols: np.ndarray, counts: Counts | None,
               i: int, card_mask: np.uint64) -> SideReport:
    """``side`` on next card ``i`` (mask ``card_mask``): its combos that miss the card, with
    their features ``fi`` (that card's row) and their counts (row ``i`` of ``counts``)."""
    keep = (side.masks & card_mask) == 0
    ci = None if counts is None else _at(counts.map(lambda a: a[i]), cols)
    return side_report(side, game, gather(fi, cols), ci, keep)


def report_street(game: Game, board: int, dead: int, hero: Side, villain: Side | None,
                  backend: str = "numpy", bar=None) -> tuple[list[str], list[RangeReport]]:
    """A :class:`RangeReport` on each card that can come next: ``(cards, reports)``."""
    lay = deck_layout(game.name)
    k = bin(board).count("1")
    ids, nxt = board_sets.next_boards(board, dead, game)
    f = column_features(nxt, lay, game, dead=dead)
    ch = column_of_pairs(hero.combos, lay.lowest_card)
    cv = None if villain is None else column_of_pairs(villain.combos, lay.lowest_card)
    per = None
    counts_h = counts_v = None
    if villain is not None:
        lay, runouts, ch, cv, less, equal, w, where = _equity_parts(game, board, dead, hero,
                                                                    villain, "none", bar,
                                                                    backend)
        # Each next card's counts: the runouts holding it.
        # (Sums of rows, not a product with the incidence matrix: BLAS threads stall when the
        # cores are busy.)
        holds = (runouts[None, :] & ID_TO_MASK[ids][:, None]) != 0            # (n, R)
        card, runout = np.nonzero(holds)                                     # by card
        starts = np.searchsorted(card, np.arange(len(ids)))
        less = np.add.reduceat(less.take(runout, axis=1), starts, axis=1)   # (m, n, C)
        equal = np.add.reduceat(equal.take(runout, axis=1), starts, axis=1)
        n_dead = bin(dead).count("1")
        per = comb(game.deck_size - k - 1 - n_dead - 4, game.full_board - k - 1)
        through = np.zeros((len(ids), lay.columns), dtype=bool)
        for i, c in enumerate(ids):
            through[i] = (lay.pair_masks & ID_TO_MASK[c]) != 0
        opp = np.stack([opponents(lay, w * ~through[i]) for i in range(len(ids))], axis=1)
        counts_h = side_counts(less, equal, opp, where[0], where[1], per)
        counts_v = side_counts(less, equal, opp, where[2], where[3], per)
    texts: list[str] = []
    reports: list[RangeReport] = []
    for i, c in enumerate(ids):
        fi = f.map(lambda a: a[i])
        card_mask = ID_TO_MASK[c]
        hs = _card_side(hero, game, fi, ch, counts_h, i, card_mask)
        vs = None if villain is None or cv is None else \
            _card_side(villain, game, fi, cv, counts_v, i, card_mask)
        eq = None if hs.equity is None else range_equity(
            np.asarray(hs.weights), np.asarray(hs.equity), np.asarray(hs.opp_weight))
        texts.append(cast(str, cards.format([int(c)])))  # one card: its text
        reports.append(RangeReport(
            game=game.name, board=board_sets.board_text(board) + texts[-1],
            dead=board_sets.board_text(dead), hero=hs, villain=vs, equity=eq,
            method=method_text(len(hs.combos), None if vs is None else len(vs.combos), per),
            backend=backend))
    return texts, reports
