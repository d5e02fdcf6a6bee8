"""The counting by rank pair of the flush-free runouts (``rank_runouts``) against the sorting
count (``showdowns.sorted_counts``) on random boards and weight vectors: the same integers for
0/1 vectors (packed two to an int64 as ``count_boards`` does), the same weighted sums up to
rounding; and ``count_boards``, which mixes both, against the sorting count alone. The made-hand
classes read by rank pair against those classified column by column."""

from __future__ import annotations

import numpy as np
import pytest

from gpu_eval.cards import ID_TO_MASK
from gpu_eval.games import registry
from gpu_eval.range_reports.made_hands import classify_columns
from gpu_eval.range_reports.rank_runouts import counts_by_rank, flush_free
from gpu_eval.range_reports.showdowns import count_boards, sorted_counts
from gpu_eval.solver_tables.board_strengths import strengths_of_masks
from gpu_eval.solver_tables.layout import deck_layout

GAMES = ("holdem", "shortdeck", "shortdeck-triton")
TOL = 1e-9


def _boards(rng: np.random.Generator, game: str, n: int, dead: np.ndarray) -> np.ndarray:
    """``n`` random 5-card boards of the deck avoiding ``dead``, about half of them
    flush-free."""
    lay = deck_layout(game)
    deck = np.setdiff1d(np.arange(lay.lowest_card, 52), dead)
    ids = np.stack([rng.choice(deck, 5, replace=False) for _ in range(4 * n)])
    masks = np.bitwise_or.reduce(ID_TO_MASK[ids], axis=1)
    ff = flush_free(masks)
    return np.concatenate([masks[ff][: n // 2], masks[~ff][: n - n // 2]])


def _weights(rng: np.random.Generator, game: str, dead: np.ndarray) -> np.ndarray:
    """Four vectors over the columns: two 0/1 ranges, two weighted, 0 through dead cards."""
    lay = deck_layout(game)
    C = lay.columns
    dens = rng.uniform(0.05, 0.9, 4)
    w = (rng.random((4, C)) < dens[:, None]).astype(float)
    w[2] *= rng.choice([0.25, 0.5, 0.7, 1.0], C)
    w[3] *= rng.random(C)
    touches = np.isin(lay.pairs, dead).any(axis=1)
    w[:, touches] = 0
    return w


def _packed(w: np.ndarray) -> list[np.ndarray]:
    """The two 0/1 rows packed into one int64 (low, high), the weighted rows as they are."""
    return [w[0].astype(np.int64) | (w[1].astype(np.int64) << 32), w[2], w[3]]


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("seed", range(4))
def test_rank_pairs_count_what_sorting_counts(game, seed):
    rng = np.random.default_rng(seed)
    lay = deck_layout(game)
    dead = rng.choice(np.arange(lay.lowest_card, 52), int(rng.integers(0, 4)), replace=False)
    w = _weights(rng, game, dead)
    cols = np.flatnonzero((w != 0).any(axis=0))
    if seed % 2:   # a few columns only
        cols = np.sort(rng.choice(cols, 40, replace=False))
    boards = _boards(rng, game, 60, dead)
    boards = boards[flush_free(boards)]
    assert len(boards) >= 20
    vecs = [np.ascontiguousarray(v[cols]) for v in _packed(w)]
    got = counts_by_rank(boards, lay, vecs, cols)
    want = sorted_counts(boards, lay, [v.copy() for v in vecs], cols)
    (gl, ge_), (wl, we) = got[0], want[0]
    assert gl.dtype == np.int64 and gl.shape == (len(boards), len(cols))
    np.testing.assert_array_equal(gl, wl)
    np.testing.assert_array_equal(ge_, we)
    for (gl, ge_), (wl, we) in zip(got[1:], want[1:], strict=True):
        np.testing.assert_allclose(gl, wl, rtol=0, atol=TOL)
        np.testing.assert_allclose(ge_, we, rtol=0, atol=TOL)


def _reference(boards: np.ndarray, game: str, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(m, N, C)`` counts by the sorting count alone, one float vector at a time."""
    lay = deck_layout(game)
    cols = np.flatnonzero((w != 0).any(axis=0))
    out_l = np.zeros((len(w), len(boards), lay.columns))
    out_e = np.zeros_like(out_l)
    for j, v in enumerate(w):
        [(lo, eq)] = sorted_counts(boards, lay, [np.ascontiguousarray(v[cols])], cols)
        out_l[j][:, cols] = lo
        out_e[j][:, cols] = eq
    return out_l, out_e


@pytest.mark.parametrize("game", GAMES)
def test_count_boards_mixes_both_counts_exactly(game):
    rng = np.random.default_rng(len(game))
    lay = deck_layout(game)
    dead = rng.choice(np.arange(lay.lowest_card, 52), 2, replace=False)
    w = _weights(rng, game, dead)
    boards = _boards(rng, game, 50, dead)
    rng.shuffle(boards)
    want_l, want_e = _reference(boards, game, w)
    less, equal = count_boards(boards, lay, w, reduce="none")
    for j in range(2):   # the 0/1 vectors: integers
        np.testing.assert_array_equal(less[j], want_l[j])
        np.testing.assert_array_equal(equal[j], want_e[j])
    np.testing.assert_allclose(less[2:], want_l[2:], rtol=0, atol=TOL)
    np.testing.assert_allclose(equal[2:], want_e[2:], rtol=0, atol=TOL)

    mult = rng.integers(1, 7, len(boards))
    less, equal = count_boards(boards, lay, w, reduce="sum", multiplicity=mult)
    for j in range(2):
        np.testing.assert_array_equal(less[j], (want_l[j] * mult[:, None]).sum(axis=0))
        np.testing.assert_array_equal(equal[j], (want_e[j] * mult[:, None]).sum(axis=0))
    np.testing.assert_allclose(less[2:], (want_l[2:] * mult[:, None]).sum(axis=1), atol=1e-7)

    seg = np.sort(rng.integers(0, 5, len(boards)))
    less, equal = count_boards(boards, lay, w, reduce="segments", segments=seg)
    for s in range(5):
        np.testing.assert_array_equal(less[:2, s], want_l[:2, seg == s].sum(axis=1))
        np.testing.assert_array_equal(equal[:2, s], want_e[:2, seg == s].sum(axis=1))


def test_flush_free_reads_the_suits():
    boards = np.bitwise_or.reduce(ID_TO_MASK[np.array([[0, 4, 9, 13, 18],     # 2c3c..: two c
                                                       [0, 4, 8, 13, 18]])], axis=1)
    assert flush_free(boards).tolist() == [True, False]


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("k", [3, 4, 5])
def test_classes_by_rank_pair_match_the_column_by_column_classes(game, k):
    """``classify_columns`` reads the classes below a straight by rank pair; with
    ``position_boards`` it classifies every column: the same classes."""
    rng = np.random.default_rng(k)
    lay = deck_layout(game)
    ids = np.stack([rng.choice(np.arange(lay.lowest_card, 52), k, replace=False)
                    for _ in range(300)])
    boards = np.bitwise_or.reduce(ID_TO_MASK[ids], axis=1)
    s = strengths_of_masks(boards, lay)
    g = registry.get(game)
    np.testing.assert_array_equal(classify_columns(boards, s, lay, g),
                                  classify_columns(boards, s, lay, g, position_boards=boards))


def test_the_rank_pair_count_is_chosen_from_its_column_count(monkeypatch):
    """A few columns count every board pairwise or by sorting (the rank-pair count's fixed
    cost a board would dominate); from ``RANK_PAIR_COLUMNS`` up the flush-free boards are
    counted by rank pair.
    Either way the counts are the sorting count's."""
    from gpu_eval.range_reports import showdowns

    rng = np.random.default_rng(7)
    lay = deck_layout("holdem")
    boards = _boards(rng, "holdem", 12, np.array([], dtype=int))
    used = []
    real = showdowns.counts_by_rank
    monkeypatch.setattr(showdowns, "counts_by_rank",
                        lambda b, *a: used.append(len(b)) or real(b, *a))
    for k in (40, showdowns.RANK_PAIR_COLUMNS):
        w = np.zeros((2, lay.columns))
        w[:, np.sort(rng.choice(lay.columns, k, replace=False))] = 1.0
        w[1] *= rng.random(lay.columns)
        less, equal = count_boards(boards, lay, w, reduce="none")
        want_l, want_e = _reference(boards, "holdem", w)
        np.testing.assert_array_equal(less[0], want_l[0])
        np.testing.assert_array_equal(equal[0], want_e[0])
        np.testing.assert_allclose(less[1], want_l[1], rtol=0, atol=TOL)
        np.testing.assert_allclose(equal[1], want_e[1], rtol=0, atol=TOL)
        assert used == ([] if k == 40 else [int(flush_free(boards).sum())]), k
