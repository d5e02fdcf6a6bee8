"""The pairwise count of a few columns (``pairwise.pair_counts``) against the sorting count
(``showdowns.sorted_counts``): the same integers (0/1 vectors packed two to an int64 as
``count_boards`` does, and any int64 modulo ``2**64``), the same weighted sums up to rounding,
on random, flush, four-flush, paired and trips boards, with columns spread over the deck or
crowded on a few cards (many shared cards and ties); and ``count_boards`` takes it up to
``PAIR_COLUMNS`` columns."""

from __future__ import annotations

import numpy as np
import pytest

from gpu_eval.cards import ID_TO_MASK
from gpu_eval.range_reports import pairwise, showdowns
from gpu_eval.range_reports.pairwise import PAIR_COLUMNS, pair_counts
from gpu_eval.range_reports.showdowns import count_boards, sorted_counts
from gpu_eval.solver_tables.layout import deck_layout

GAMES = ("holdem", "shortdeck", "shortdeck-triton")
TOL = 1e-12


def _boards(rng: np.random.Generator, game: str, n: int) -> np.ndarray:
    """``n`` boards of each kind: random, five of a suit, four of a suit, two pair, trips."""
    ids = np.arange(deck_layout(game).lowest_card, 52)
    rows = []
    for _ in range(n):
        rows.append(rng.choice(ids, 5, replace=False))
        suit = ids[ids % 4 == rng.integers(4)]
        rows.append(rng.choice(suit, 5, replace=False))
        rows.append(np.append(rng.choice(suit, 4, replace=False),
                              rng.choice(np.setdiff1d(ids, suit))))
        r = rng.choice(np.unique(ids >> 2), 3, replace=False)
        two = np.concatenate([rng.choice(ids[ids >> 2 == x], 2, replace=False) for x in r[:2]])
        rows.append(np.append(two, rng.choice(np.setdiff1d(ids, two))))
        trips = rng.choice(ids[ids >> 2 == r[2]], 3, replace=False)
        rows.append(np.append(trips, rng.choice(np.setdiff1d(ids, trips), 2, replace=False)))
    return np.bitwise_or.reduce(ID_TO_MASK[np.stack(rows)], axis=1)


def _columns(rng: np.random.Generator, game: str, k: int, crowded: bool) -> np.ndarray:
    lay = deck_layout(game)
    if crowded:   # the columns of a few cards: most pairs share a card
        cards = rng.choice(np.arange(lay.lowest_card, 52), int(np.ceil(np.sqrt(2 * k))) + 2,
                           replace=False)
        pool = np.flatnonzero(np.isin(lay.pairs, cards).all(axis=1))
    else:
        pool = np.arange(lay.columns)
    return np.sort(rng.choice(pool, k, replace=False))


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("k", [1, 7, 8, 9, 28, 41, PAIR_COLUMNS])
def test_pairs_count_what_sorting_counts(game, k):
    rng = np.random.default_rng(k * 7 + len(game))
    lay = deck_layout(game)
    boards = _boards(rng, game, 12)
    for crowded in (False, True):
        cols = _columns(rng, game, k, crowded)
        lo, hi = rng.integers(0, 2, (2, k))
        vecs = [lo | (hi << 32),                                  # two 0/1 lanes
                rng.integers(-2**62, 2**62, k),                   # any int64
                rng.choice([0.0, 0.25, 0.5, 1.0], k),             # dyadic: exact sums
                rng.random(k) * (rng.random(k) < 0.6)]            # weighted
        got = pair_counts(boards, lay, [v.copy() for v in vecs], cols)
        want = sorted_counts(boards, lay, [v.copy() for v in vecs], cols)
        for j, ((gl, ge_), (wl, we)) in enumerate(zip(got, want, strict=True)):
            assert gl.dtype == wl.dtype and gl.shape == wl.shape == (len(boards), k)
            if j < 3:
                np.testing.assert_array_equal(gl, wl)
                np.testing.assert_array_equal(ge_, we)
            else:
                np.testing.assert_allclose(gl, wl, rtol=0, atol=TOL)
                np.testing.assert_allclose(ge_, we, rtol=0, atol=TOL)


def test_no_boards():
    [(less, equal)] = pair_counts(np.zeros(0, dtype=np.uint64), deck_layout("holdem"),
                                  [np.ones(5)], np.arange(5))
    assert less.shape == equal.shape == (0, 5)


def test_count_boards_pairs_up_to_pair_columns(monkeypatch):
    """Up to ``PAIR_COLUMNS`` columns every board is counted pairwise, above by sorting; the
    same counts either way."""
    rng = np.random.default_rng(3)
    lay = deck_layout("holdem")
    boards = _boards(rng, "holdem", 4)
    used = []
    monkeypatch.setattr(showdowns, "pair_counts",
                        lambda b, *a: used.append(len(b)) or pairwise.pair_counts(b, *a))
    for k in (PAIR_COLUMNS, PAIR_COLUMNS + 1):
        cols = _columns(rng, "holdem", k, False)
        w = np.zeros((2, lay.columns))
        w[0, cols] = 1.0
        w[1, cols] = rng.random(k)
        less, equal = count_boards(boards, lay, w, reduce="none")
        want = sorted_counts(boards, lay, [np.ascontiguousarray(v[cols]) for v in w], cols)
        np.testing.assert_array_equal(less[0][:, cols], want[0][0])
        np.testing.assert_array_equal(equal[0][:, cols], want[0][1])
        np.testing.assert_allclose(less[1][:, cols], want[1][0], rtol=0, atol=TOL)
        np.testing.assert_allclose(equal[1][:, cols], want[1][1], rtol=0, atol=TOL)
        assert sum(used) == len(boards), k              # the first k only
