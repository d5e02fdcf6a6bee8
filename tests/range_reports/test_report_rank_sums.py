"""The counting by rank pair summed over the boards (``rank_sums``), boards with three cards of
a suit included, against the sorting count (``showdowns.sorted_counts``) board by board: the
same integers for 0/1 vectors (packed two to an int64), the same weighted sums up to rounding;
on random boards, on every runout of flops of each texture (dead cards, short deck), and
through ``range_report`` against exact equity on three-flush and four-flush runouts."""

from __future__ import annotations

import doctest
import importlib

import numpy as np
import pytest

import gpu_eval as ge
from gpu_eval import cards
from gpu_eval.cards import ID_TO_MASK
from gpu_eval.games import registry
from gpu_eval.range_reports import bits, flush_split
from gpu_eval.range_reports import boards as board_sets
from gpu_eval.range_reports.api import range_report
from gpu_eval.range_reports.five_flush import five_flush, five_flush_sums
from gpu_eval.range_reports.flush_split import (
    SPLIT_BOARDS,
    SPLIT_NEEDS,
    flush_need,
    split_flush,
    split_rows,
    split_sums,
)
from gpu_eval.range_reports.hands import column_of_pairs
from gpu_eval.range_reports.rank_runouts import flush_free
from gpu_eval.range_reports.rank_sums import rank_countable, rank_patterns, sums_by_rank
from gpu_eval.range_reports.showdowns import RANK_PAIR_COLUMNS, count_boards, sorted_counts
from gpu_eval.range_reports.strengths import column_strengths
from gpu_eval.solver_tables.layout import deck_layout

GAMES = ("holdem", "shortdeck", "shortdeck-triton")
TOL = 1e-9


def _weights(rng: np.random.Generator, game: str, dead: np.ndarray) -> np.ndarray:
    """Four vectors over the columns: two 0/1 ranges, two weighted, 0 through dead cards."""
    lay = deck_layout(game)
    dens = rng.uniform(0.05, 0.9, 4)
    w = (rng.random((4, lay.columns)) < dens[:, None]).astype(float)
    w[2] *= rng.choice([0.25, 0.5, 0.7, 1.0], lay.columns)
    w[3] *= rng.random(lay.columns)
    w[:, np.isin(lay.pairs, dead).any(axis=1)] = 0
    return w


def _packed(w: np.ndarray, cols: np.ndarray) -> list[np.ndarray]:
    """The two 0/1 rows packed into one int64 (low, high), the weighted rows as they are."""
    return [np.ascontiguousarray(v[cols]) for v in
            (w[0].astype(np.int64) | (w[1].astype(np.int64) << 32), w[2], w[3])]


def _reference(boards, lay, vecs, cols, mult):
    """The sorting count board by board, times the multiplicities, summed."""
    out = []
    for less, equal in sorted_counts(boards, lay, [v.copy() for v in vecs], cols):
        t = mult.astype(less.dtype)[:, None]
        out.append(((less * t).sum(axis=0), (equal * t).sum(axis=0)))
    return out


def _same(got, want):
    (gl, ge_), (wl, we) = got[0], want[0]
    assert gl.dtype == np.int64
    np.testing.assert_array_equal(gl, wl)
    np.testing.assert_array_equal(ge_, we)
    for (gl, ge_), (wl, we) in zip(got[1:], want[1:], strict=True):
        np.testing.assert_allclose(gl, wl, rtol=0, atol=TOL * max(1.0, np.abs(wl).max()))
        np.testing.assert_allclose(ge_, we, rtol=0, atol=TOL * max(1.0, np.abs(we).max()))


def _count_boards_is_the_sorting_count(boards, lay, w, cols, mult) -> None:
    """``count_boards`` summed with ``mult`` against the sorting count of each vector of
    ``w``: the two 0/1 vectors' integers exactly, the weighted ones to rounding."""
    less, equal = count_boards(boards, lay, w, reduce="sum", multiplicity=mult)
    for j, v in enumerate(w):
        [(lo, eq)] = sorted_counts(boards, lay, [np.ascontiguousarray(v[cols])], cols)
        lo, eq = (lo * mult[:, None]).sum(axis=0), (eq * mult[:, None]).sum(axis=0)
        if j < 2:
            np.testing.assert_array_equal(less[j, cols], lo)
            np.testing.assert_array_equal(equal[j, cols], eq)
        else:
            np.testing.assert_allclose(less[j, cols], lo, rtol=0, atol=1e-7)
            np.testing.assert_allclose(equal[j, cols], eq, rtol=0, atol=1e-7)


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("seed", range(3))
def test_sums_by_rank_equal_the_sorting_count_summed(game, seed):
    rng = np.random.default_rng(100 + seed)
    lay = deck_layout(game)
    dead = rng.choice(np.arange(lay.lowest_card, 52), int(rng.integers(0, 4)), replace=False)
    w = _weights(rng, game, dead)
    cols = np.flatnonzero((w != 0).any(axis=0))
    if seed == 1:   # a few columns only
        cols = np.sort(rng.choice(cols, 40, replace=False))
    deck = np.setdiff1d(np.arange(lay.lowest_card, 52), dead)
    ids = np.stack([rng.choice(deck, 5, replace=False) for _ in range(400)])
    boards = np.bitwise_or.reduce(ID_TO_MASK[ids], axis=1)
    boards = boards[rank_countable(boards)][:160]
    three = ~flush_free(boards)
    assert 40 <= three.sum() <= 120          # both kinds of board
    mult = rng.integers(1, 7, len(boards))
    vecs = _packed(w, cols)
    _same(sums_by_rank(boards, lay, vecs, cols, mult),
          _reference(boards, lay, vecs, cols, mult))


FLOPS = [("holdem", "Kd7c2h", "As"), ("holdem", "Ts9s4d", ""), ("holdem", "Qh8h3h", "Kh2c"),
         ("holdem", "7c7d2h", "7h"), ("shortdeck", "Kd7cTh", ""), ("shortdeck", "9s8s6s", "Ad"),
         ("shortdeck-triton", "9s8s6h", "")]


@pytest.mark.parametrize("game, flop, dead", FLOPS)
def test_every_runout_of_a_flop_summed_exactly(game, flop, dead):
    """Every runout of flops of each texture, the cards of the range that touch the flop and
    the dead cards weighing nothing: ``count_boards(reduce="sum")`` (rank pairs for the boards
    with at most three cards of a suit, sorting for the others) against the sorting count."""
    rng = np.random.default_rng(len(flop) + len(dead))
    lay = deck_layout(game)
    g = registry.get(game)
    board, dmask = int(cards.to_mask(flop)), int(cards.to_mask(dead)) if dead else 0
    runs = board_sets.completions(board, dmask, g, 2)
    known = cards.from_mask(np.uint64(board | dmask))
    w = _weights(rng, game, np.asarray(known))
    mult = rng.integers(1, 4, len(runs))
    cols = np.flatnonzero((w != 0).any(axis=0))
    less, equal = count_boards(runs, lay, w, reduce="sum", multiplicity=mult)
    want = []
    for v in w:
        [(lo, eq)] = sorted_counts(runs, lay, [np.ascontiguousarray(v[cols])], cols)
        want.append(((lo * mult[:, None]).sum(axis=0), (eq * mult[:, None]).sum(axis=0)))
    for j, (lo, eq) in enumerate(want):
        if j < 2:   # the 0/1 vectors: integers
            np.testing.assert_array_equal(less[j, cols], lo)
            np.testing.assert_array_equal(equal[j, cols], eq)
        else:
            np.testing.assert_allclose(less[j, cols], lo, rtol=0, atol=1e-7)
            np.testing.assert_allclose(equal[j, cols], eq, rtol=0, atol=1e-7)
    assert not np.any(less[:, np.setdiff1d(np.arange(lay.columns), cols)])


@pytest.mark.parametrize("game", GAMES)
def test_split_flush_boards_summed_exactly(game):
    """Boards with three or four cards of a suit (``flush_need``), paired ones and trips among
    them: the columns that make no flush by rank pair, the flush columns (and those that make
    a full house or quads) sorted among themselves: against the sorting count."""
    rng = np.random.default_rng(len(game) + 7)
    lay = deck_layout(game)
    dead = rng.choice(np.arange(lay.lowest_card, 52), 2, replace=False)
    w = _weights(rng, game, dead)
    deck = np.setdiff1d(np.arange(lay.lowest_card, 52), dead)
    # Two suits' groups (suit, cards needed) large enough to be split, a third suit's too
    # small (counted with cells or sorted); paired boards among them.
    ids = []
    for s, k, size in [(s, k, SPLIT_BOARDS + 8 if s < 2 else SPLIT_BOARDS // 4)
                       for s in range(3) for k in (3, 4)]:
        got = 0
        while got < size:
            hand = np.concatenate([rng.choice(deck[(deck & 3) == s], k, replace=False),
                                   rng.choice(deck[(deck & 3) != s], 5 - k, replace=False)])
            ids.append(hand)
            got += len(np.unique(hand >> 2)) == 5
    # Trips on the board beside three cards of a suit (full houses and quads above flushes).
    for _ in range(8):
        hand = rng.choice(deck[(deck & 3) == 0], 3, replace=False)
        trips = deck[((deck >> 2) == (hand[0] >> 2)) & (deck != hand[0])]
        if len(trips) >= 2:
            ids.append(np.concatenate([hand, rng.choice(trips, 2, replace=False)]))
    ids += [rng.choice(deck, 5, replace=False) for _ in range(12)]    # others, mostly
    boards = np.bitwise_or.reduce(ID_TO_MASK[np.array(ids)], axis=1)
    need = flush_need(boards)
    paired = (need > 0) & (split_flush(boards) == 0)
    assert (need == 1).sum() >= SPLIT_BOARDS and (need == 2).sum() >= SPLIT_BOARDS
    assert (need == 0).any() and paired.any()
    split = split_rows(boards)
    assert split[need == 1].any() and split[need == 2].any() and not split[need == 0].any()
    assert not split[paired].any() and not split[need > 0].all()   # other boards by rank
    # Only the large groups' boards: their paired boards split too.
    key = np.argmax(np.bitwise_count(bits.lanes(boards)), axis=1) * 4 + need
    large = np.isin(key, np.unique(key[split]))
    assert split_rows(boards[large]).all() and paired[large].any()
    mult = rng.integers(1, 7, len(boards))
    cols = np.flatnonzero((w != 0).any(axis=0))
    assert len(cols) >= RANK_PAIR_COLUMNS
    _count_boards_is_the_sorting_count(boards, lay, w, cols, mult)
    _count_boards_is_the_sorting_count(boards[large], lay, w, cols, mult[large])
    # Each kind split directly too (``count_boards`` splits the large groups only).
    assert SPLIT_NEEDS == (1, 2)
    vecs = _packed(w, cols)
    for nd in (1, 2):
        rows = np.flatnonzero(need == nd)
        _same(split_sums(boards[rows], lay, vecs, cols, mult[rows], sorted_counts),
              _reference(boards[rows], lay, vecs, cols, mult[rows]))


PAIRED_FLUSH_BOARDS = {
    "holdem": ["7h6h5h5c5d", "9h8h7h6h6c", "Qh8h3h5h5d", "Kh7h2h7d7c", "8s7s6s6d2c", "Ah5h4h3c3d",
               "Ts9s8s8d4c", "6c5c4c3c3d"],
    "shortdeck": ["9h8h7h7c7d", "TsJsQs9s9d", "AhKhQh6h6c", "8s7s6s6d9c", "AcJcTcTd7s"],
}


@pytest.mark.parametrize("game", GAMES)
def test_split_paired_flush_boards_summed_exactly(game):
    """Paired boards with three or four cards of a suit: full houses and quads of the columns
    without the suit above some flush columns, straight flushes above them: ``split_sums``
    (one group a suit and cards needed) against the sorting count, and such pairs present."""
    rng = np.random.default_rng(len(game) + 23)
    lay = deck_layout(game)
    w = _weights(rng, game, np.array([], dtype=int))
    w[:2, rng.random(lay.columns) < 0.1] = 1                # dense 0/1 ranges: more pairs met
    cols = np.flatnonzero((w != 0).any(axis=0))
    boards = cards.to_mask(PAIRED_FLUSH_BOARDS["holdem" if game == "holdem" else "shortdeck"])
    assert (flush_need(boards) > 0).all() and not split_flush(boards).any()
    st = column_strengths(boards, lay, cols)
    high = st >= flush_split._above_flush(game)
    suited = (lay.pairs[cols][None, :, :] & 3) == (np.argmax(
        np.bitwise_count(bits.lanes(boards)), axis=1))[:, None, None]
    flushing = suited.sum(axis=2) >= flush_need(boards)[:, None]
    assert (high & flushing).any() and (high & ~flushing).any()
    mult = rng.integers(1, 7, len(boards))
    vecs = _packed(w, cols)
    _same(split_sums(boards, lay, vecs, cols, mult, sorted_counts),
          _reference(boards, lay, vecs, cols, mult))


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("few", [False, True])
def test_five_flush_boards_summed_exactly(game, few):
    """Boards of five cards of a suit (straight flushes among them): only the columns through
    the suit sorted, the others' counts per card: against the sorting count, directly and
    through ``count_boards`` among other boards; a few columns too."""
    rng = np.random.default_rng(len(game) + 11 + few)
    lay = deck_layout(game)
    dead = rng.choice(np.arange(lay.lowest_card, 52), 2, replace=False)
    w = _weights(rng, game, dead)
    deck = np.setdiff1d(np.arange(lay.lowest_card, 52), dead)
    ids = [rng.choice(deck[(deck & 3) == rng.integers(0, 4)], 5, replace=False) for _ in range(60)]
    ids += [np.array([c for c in deck if c & 3 == s][-5:]) for s in range(4)]   # royal-ish
    ids += [rng.choice(deck, 5, replace=False) for _ in range(30)]              # others
    boards = np.bitwise_or.reduce(ID_TO_MASK[np.array(ids)], axis=1)
    suit = five_flush(boards)
    assert (suit >= 0).sum() >= 60 and len(np.unique(suit[suit >= 0])) >= 3 and (suit < 0).any()
    mult = rng.integers(1, 7, len(boards))
    cols = np.flatnonzero((w != 0).any(axis=0))
    if few:
        cols = np.sort(rng.choice(cols, 30, replace=False))
    flush = np.flatnonzero(suit >= 0)
    vecs = _packed(w, cols)
    _same(five_flush_sums(boards[flush], lay, vecs, cols, mult[flush], sorted_counts),
          _reference(boards[flush], lay, vecs, cols, mult[flush]))
    if few:
        return
    assert len(cols) >= RANK_PAIR_COLUMNS
    _count_boards_is_the_sorting_count(boards, lay, w, cols, mult)


# Weighted ranges full of suited hands (flush columns on the three-flush runouts), wide
# enough that the boards are counted by rank pair (``RANK_PAIR_COLUMNS``).
HERO = "0.5(QQ+), AKs, KQs:0.3, 76s, A5s:0.7, T9s, 22, 32s+, 42s+, 52s+, 62s+, 72s+, 82s+, 92s+"
VILLAIN = ("JJ-55, AQs:0.7, KJs, 0.25(A4s-A2s), J9s, 98o, T2s+, J2s+, Q2s+, K2s+, 0.4(A2o-A9o), "
           "KTo, QTo")


def _columns(text: str, game: str) -> np.ndarray:
    """The columns of a range (every combo, before card removal)."""
    return column_of_pairs(ge.Range(text, game=game).combos, deck_layout(game).lowest_card)


SPOTS = [("holdem", "Qh8h3h", "Ah", HERO, VILLAIN), ("holdem", "Ts9s4d", "2s3d", HERO, VILLAIN),
         ("holdem", "Ts9s4d5s", "", HERO, VILLAIN),
         ("shortdeck", "Ts9s7d", "As", HERO + ", 0.5(A6o+), K6o+", VILLAIN + ", Q6o+, J6o+, 96o+")]


@pytest.mark.parametrize("game, board, dead, hero, villain", SPOTS)
def test_report_on_flush_runouts_is_exact_equity(game, board, dead, hero, villain):
    assert len(np.union1d(_columns(hero, game), _columns(villain, game))) >= RANK_PAIR_COLUMNS
    r = range_report(hero, villain, board=board, dead=dead, game=game)
    rng = np.random.default_rng(7)
    for sd, other in ((r.hero, villain), (r.villain, hero)):
        for i in rng.choice(len(sd.combos), min(8, len(sd.combos)), replace=False):
            e = ge.equity([sd.hands[i], other], board=board, dead=dead, exact=True, game=game)
            where = f"{game} {board} dead {dead}: {sd.hands[i]} vs {other}"
            assert (int(e.wins[0]), int(e.ties[0]), e.matchups, e.boards) == \
                (sd.wins[i], sd.ties[i], sd.matchups[i], sd.boards), where
            for name in ("equity", "win", "tie"):
                assert abs(float(getattr(e, name)[0]) - float(getattr(sd, name)[i])) < 1e-10, where
    full = ge.equity([hero, villain], board=board, dead=dead, exact=True, game=game)
    assert abs(float(full.equity[0]) - r.equity) < 1e-10


def test_rank_patterns_and_countable_boards():
    b = cards.to_mask(["Kd7c2h5s9d", "Ks7c2d5s9h", "Kd7d2d5s9c", "Kd7d2d5d9c"])
    p = rank_patterns(b)
    assert len(set(p.tolist())) == 1                    # the same ranks: one pattern
    assert rank_patterns(cards.to_mask(["Kd7c2h5s8d"]))[0] != p[0]
    assert rank_countable(b).tolist() == [True, True, True, False]


@pytest.mark.parametrize("module", ["gpu_eval.range_reports.rank_sums",
                                    "gpu_eval.range_reports.rank_runouts",
                                    "gpu_eval.range_reports.showdowns",
                                    "gpu_eval.range_reports.five_flush",
                                    "gpu_eval.range_reports.flush_split",
                                    "gpu_eval.range_reports.strengths"])
def test_docstring_examples_run(module):
    failures, tried = doctest.testmod(importlib.import_module(module), verbose=False)
    assert tried and failures == 0
