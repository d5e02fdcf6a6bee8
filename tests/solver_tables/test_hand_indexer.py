"""The hand-isomorphism indexer (gpu_eval.solver_tables.indexer): Waugh's numbering.

Checked four ways: the class counts (the issue's and the C library's); the C library's own
indices and canonical hands (tests/data/hand_index_fixtures.npz, made by
tests/data/make_indexer_fixtures.sh); round trips over every index of the small layouts and
big samples of the large ones; and a slow, obviously right canonicaliser here (the least of a
hand's 24 suit relabellings), which counts the classes of the small layouts by brute force and
says whether two hands are isomorphic.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

import gpu_eval as ge
from gpu_eval.solver_tables.indexer import HandIndexer, layout_tables

FIXTURES = Path(__file__).resolve().parents[1] / "data" / "hand_index_fixtures.npz"
PERMS = np.array(list(itertools.permutations(range(4))), dtype=np.uint8)
LAYOUTS = [(2,), (3,), (4,), (7,), (2, 3), (2, 4), (2, 5), (2, 3, 1, 1)]
# In the fixtures too: 64-bit sizes, more rounds, the sparse configuration lookup (10, 10).
ODD_LAYOUTS = [(13,), (2, 2, 2), (1, 2, 1, 2), (3, 3, 1), (6, 6), (8, 1), (10, 10)]

HOLDEM_COUNTS = {
    (2,): [169], (3,): [1755], (4,): [16432], (7,): [6009159],
    (2, 3): [169, 1286792], (2, 4): [169, 13960050], (2, 5): [169, 123156254],
    (2, 3, 1, 1): [169, 1286792, 55190538, 2428287420],
}
# Waugh's construction over 9 ranks (the C library built with RANKS 9); the small ones are
# also counted by brute force below.
SHORTDECK_COUNTS = {
    (2,): [81], (3,): [573], (4,): [3663], (7,): [383274],
    (2, 3): [81, 186696], (2, 4): [81, 1340856], (2, 5): [81, 7723728],
    (2, 3, 1, 1): [81, 186696, 5266044, 151065864],
    (2, 2): [81, 20313], (1, 1, 2): [9, 153, 39825],
}


@pytest.fixture(scope="module")
def fixtures():
    with np.load(FIXTURES) as f:
        return {k: f[k] for k in f.files}


def _key(layout) -> str:
    return "_".join(map(str, layout))


# -- a slow reference: canonical form = least suit relabelling ---------------------------------

def canonical_forms(hands: np.ndarray, rounds) -> np.ndarray:
    """Each hand's least image over the 24 suit relabellings, as a row of per-round hand
    masks (a relabelling permutes the masks' 16-bit suit lanes), least in row order:
    equal rows <=> isomorphic hands."""
    hands = np.asarray(hands, dtype=np.intp)
    starts = np.cumsum((0, *rounds))
    masks = [np.bitwise_or.reduce(ge.cards.ID_TO_MASK[hands[:, a:b]], axis=1)
             for a, b in zip(starts[:-1], starts[1:])]
    lanes = [m.view(np.uint16).reshape(-1, 4) for m in masks]
    best = None
    for perm in PERMS:
        key = [np.ascontiguousarray(lane[:, perm]).view(np.uint64).ravel() for lane in lanes]
        if best is None:
            best = key
            continue
        less = np.zeros(len(hands), dtype=bool)
        undecided = np.ones(len(hands), dtype=bool)
        for k, b in zip(key, best):
            less |= undecided & (k < b)
            undecided &= k == b
        best = [np.where(less, k, b) for k, b in zip(key, best)]
    return np.stack(best, axis=1)


def class_numbers(forms: np.ndarray) -> tuple[int, np.ndarray]:
    """``(number of distinct rows, each row's class number)``."""
    order = np.lexsort(forms.T[::-1])
    s = forms[order]
    new = np.ones(len(s), dtype=bool)
    new[1:] = (s[1:] != s[:-1]).any(axis=1)
    inverse = np.empty(len(s), dtype=np.int64)
    inverse[order] = np.cumsum(new) - 1
    return int(new.sum()), inverse


def all_hands(rounds, deck: np.ndarray) -> np.ndarray:
    """Every deal of ``rounds`` from ``deck`` (cards within a round increasing): each round's
    subsets of the deck, crossed with the deals so far, keeping the disjoint ones."""
    rows = np.zeros((1, 0), dtype=np.uint8)
    for c in rounds:
        combos = np.array(list(itertools.combinations(deck, c)), dtype=np.uint8)
        pairs = np.stack(np.meshgrid(np.arange(len(rows)), np.arange(len(combos)),
                                     indexing="ij"), -1).reshape(-1, 2)
        new = np.concatenate([rows[pairs[:, 0]], combos[pairs[:, 1]]], axis=1)
        ok = np.ones(len(new), dtype=bool)
        for a, b in itertools.combinations(range(new.shape[1]), 2):
            ok &= new[:, a] != new[:, b]
        rows = new[ok]
    return rows


def random_deals(rng, n: int, total: int, deck_lo: int = 0) -> np.ndarray:
    keys = rng.random((n, 52 - deck_lo))
    return (np.argsort(keys, axis=1)[:, :total] + deck_lo).astype(np.uint8)


# -- counts -----------------------------------------------------------------------------------

@pytest.mark.parametrize("layout", list(HOLDEM_COUNTS))
def test_holdem_counts(layout):
    idx = ge.HandIndexer(layout)
    assert [idx.size(r) for r in range(len(layout))] == HOLDEM_COUNTS[layout]


@pytest.mark.parametrize("layout", list(SHORTDECK_COUNTS))
def test_shortdeck_counts(layout):
    idx = ge.HandIndexer(layout, game="shortdeck")
    assert [idx.size(r) for r in range(len(layout))] == SHORTDECK_COUNTS[layout]


@pytest.mark.parametrize("layout, game", [((2,), "holdem"), ((3,), "holdem"), ((4,), "holdem"),
                                          ((2,), "shortdeck"), ((3,), "shortdeck"),
                                          ((4,), "shortdeck"), ((2, 2), "shortdeck"),
                                          ((1, 1, 2), "shortdeck")])
def test_counts_by_brute_force(layout, game):
    """Every deal canonicalised the slow way: as many classes as the indexer has indices,
    and the indexer gives isomorphic deals one index and the others different ones."""
    idx = ge.HandIndexer(layout, game=game)
    deck = np.arange(4 * idx.lowest_rank, 52)
    hands = all_hands(layout, deck)
    forms = canonical_forms(hands, layout)
    n_classes, inverse = class_numbers(forms)
    assert n_classes == idx.size(len(layout) - 1)
    got = idx.index(hands)
    # the index is a function of the class and tells classes apart
    assert len(np.unique(got)) == n_classes
    first = np.zeros(n_classes, dtype=np.int64)
    first[inverse[::-1]] = got[::-1]
    assert np.array_equal(first[inverse], got)


# -- the C library's numbering ----------------------------------------------------------------

@pytest.mark.parametrize("game", ["holdem", "shortdeck"])
@pytest.mark.parametrize("layout", LAYOUTS + ODD_LAYOUTS, ids=_key)
def test_matches_the_c_library(fixtures, game, layout):
    key = f"{game}_{_key(layout)}"
    idx = ge.HandIndexer(layout, game=game)
    assert [idx.size(r) for r in range(len(layout))] == fixtures[f"{key}_sizes"].tolist()
    hands = fixtures[f"{key}_hands"]
    expected = fixtures[f"{key}_indices"]
    assert np.array_equal(idx.index(hands, all_rounds=True), expected)
    assert np.array_equal(idx.index(hands), expected[:, -1])
    for r in range(len(layout)):
        # the canonical hands exactly as the library writes them
        want = fixtures[f"{key}_unindex{r}_cards"]
        got = idx.unindex(r, fixtures[f"{key}_unindex{r}_indices"])
        assert np.array_equal(got, want), (r, np.flatnonzero((got != want).any(axis=1))[:5])


# -- round trips ------------------------------------------------------------------------------

@pytest.mark.parametrize("layout, game", [((2,), "holdem"), ((3,), "holdem"), ((4,), "holdem"),
                                          ((2, 3), "holdem"), ((2,), "shortdeck"),
                                          ((3,), "shortdeck"), ((4,), "shortdeck"),
                                          ((2, 3), "shortdeck")])
def test_every_index_round_trips(layout, game):
    idx = ge.HandIndexer(layout, game=game)
    for r in range(len(layout)):
        every = np.arange(idx.size(r))
        canon = idx.unindex(r, every)
        prefix = ge.HandIndexer(layout[: r + 1], game=game)
        assert np.array_equal(prefix.index(canon), every)
        if r == len(layout) - 1:
            assert np.array_equal(idx.index(canon), every)


@pytest.mark.parametrize("layout, game", [((2, 5), "holdem"), ((2, 4), "holdem"),
                                          ((7,), "holdem"), ((2, 3, 1, 1), "holdem"),
                                          ((2, 3, 1, 1), "shortdeck"), ((2, 5), "shortdeck")])
def test_random_indices_round_trip(layout, game):
    rng = np.random.default_rng(21)
    idx = ge.HandIndexer(layout, game=game)
    n = 200_000 if layout in ((2, 5), (2, 3, 1, 1)) else 50_000
    for r in range(len(layout)):
        if idx.size(r) <= 169:
            continue  # the first rounds: every index above
        sample = rng.integers(0, idx.size(r), n)
        sample[:2] = (0, idx.size(r) - 1)
        canon = idx.unindex(r, sample)
        assert np.array_equal(ge.HandIndexer(layout[: r + 1], game=game).index(canon), sample)
        if r == len(layout) - 1:
            all_rounds = idx.index(canon, all_rounds=True)
            assert np.array_equal(all_rounds[:, -1], sample)


@pytest.mark.parametrize("layout, game", [((2, 3, 1, 1), "holdem"), ((2, 5), "holdem"),
                                          ((7,), "holdem"), ((2, 3, 1, 1), "shortdeck")])
def test_canonical_hand_is_isomorphic(layout, game):
    rng = np.random.default_rng(5)
    idx = ge.HandIndexer(layout, game=game)
    hands = random_deals(rng, 20_000, sum(layout), 4 * idx.lowest_rank)
    indices = idx.index(hands, all_rounds=True)
    canon = idx.unindex(len(layout) - 1, indices[:, -1])
    assert np.array_equal(canonical_forms(canon, layout), canonical_forms(hands, layout))
    assert np.array_equal(idx.index(canon, all_rounds=True), indices)


@pytest.mark.parametrize("layout", [(2, 3, 1, 1), (2, 5), (4,), (2, 4)], ids=_key)
def test_index_ignores_suit_names_and_order_within_rounds(layout):
    rng = np.random.default_rng(7)
    idx = ge.HandIndexer(layout)
    hands = random_deals(rng, 50_000, sum(layout))
    want = idx.index(hands, all_rounds=True)
    perm = PERMS[rng.integers(0, 24, len(hands))]
    relabelled = (hands & ~np.uint8(3)) | np.take_along_axis(perm, (hands & 3).astype(np.intp),
                                                             axis=1)
    shuffled = relabelled.copy()
    start = 0
    for c in layout:
        order = np.argsort(rng.random((len(hands), c)), axis=1) + start
        shuffled[:, start:start + c] = np.take_along_axis(relabelled, order, axis=1)
        start += c
    assert np.array_equal(idx.index(shuffled, all_rounds=True), want)
    assert np.array_equal(idx.index(shuffled), want[:, -1])


def test_all_rounds_agree_with_prefix_layouts():
    rng = np.random.default_rng(3)
    hands = random_deals(rng, 30_000, 7)
    full = ge.HandIndexer((2, 3, 1, 1)).index(hands, all_rounds=True)
    for r, prefix in enumerate([(2,), (2, 3), (2, 3, 1), (2, 3, 1, 1)]):
        assert np.array_equal(ge.HandIndexer(prefix).index(hands[:, :sum(prefix)]), full[:, r])


def test_text_and_other_integer_dtypes():
    idx = ge.HandIndexer((2, 3))
    ids = ge.cards.parse(["AsKs 2c7d9h", "7c2d Ah Kh Qh"])
    want = idx.index(ids)
    assert np.array_equal(idx.index(["AsKs 2c7d9h", "7c2d Ah Kh Qh"]), want)
    assert np.array_equal(idx.index(ids.astype(np.int64)), want)
    assert idx.index("AsKs 2c7d9h") == want[0]
    assert idx.index(ids[0]).shape == ()
    assert idx.index(np.zeros((0, 5), dtype=np.uint8)).shape == (0,)
    assert idx.unindex(1, np.zeros((0,), dtype=np.int64)).shape == (0, 5)
    before = ids.copy()
    idx.index(ids, all_rounds=True)
    assert np.array_equal(ids, before)  # inputs are not modified


def test_layout_tables_are_cached():
    assert layout_tables((2, 5)) is layout_tables((2, 5))


# -- bad input --------------------------------------------------------------------------------

def test_bad_cards_name_the_row():
    idx = ge.HandIndexer((2, 3))
    good = ge.cards.parse(["AsKs 2c7d9h"] * 3)
    twice = good.copy()
    twice[2, 4] = twice[2, 0]
    with pytest.raises(ValueError, match=r"row 2: card As appears twice"):
        idx.index(twice)
    across = good.copy()
    across[1, 1] = across[1, 3]  # hole card repeated on the board
    with pytest.raises(ValueError, match=r"row 1: card 7d appears twice"):
        idx.index(across)
    high = good.astype(np.int64)
    high[1, 3] = 52
    with pytest.raises(ValueError, match=r"row 1: card id 52 is out of range"):
        idx.index(high)
    high[1, 3] = -1
    with pytest.raises(ValueError, match=r"row 1: card id -1 is out of range"):
        idx.index(high)
    big = good.copy()
    big[0, 0] = 200
    with pytest.raises(ValueError, match=r"row 0: card id 200"):
        idx.index(big)
    with pytest.raises(ValueError, match=r"each row must hold 5 cards"):
        idx.index(good[:, :4])
    with pytest.raises(TypeError, match="integer card ids"):
        idx.index(good.astype(np.float64))
    with pytest.raises(ValueError, match="row 1"):
        idx.index(["AsKs 2c7d9h", "AsAs 2c7d9h"])


def test_a_duplicate_in_a_later_chunk_names_its_row():
    idx = ge.HandIndexer((2, 5))
    rng = np.random.default_rng(0)
    hands = random_deals(rng, 100_000, 7)
    hands[77_777, 6] = hands[77_777, 0]
    with pytest.raises(ValueError, match=r"row 77777: card .. appears twice"):
        idx.index(hands)


def test_shortdeck_refuses_small_cards():
    idx = ge.HandIndexer((2, 3), game="shortdeck")
    with pytest.raises(ValueError, match=r"row 1: card 5h \(id 14\) is not in the shortdeck deck"):
        idx.index(["AsKs 6c7d9h", "AsKs 5h7d9h"])
    with pytest.raises(ValueError, match=r"row 0: card 2c \(id 0\)"):
        idx.index(np.array([[0, 20, 24, 28, 32]], dtype=np.uint8))


def test_bad_layouts_and_rounds():
    with pytest.raises(ValueError, match="1 to 8 rounds"):
        HandIndexer(())
    with pytest.raises(ValueError, match="1 to 15 cards"):
        HandIndexer((2, 0))
    with pytest.raises(ValueError, match="do not fit"):
        HandIndexer((15, 15, 15, 15), game="shortdeck")
    with pytest.raises(ValueError, match="Waugh's indexer .* stops below 1,048,573"):
        HandIndexer((1,) * 6)  # 13 * 12 * ... * 8 rank sets for one suit
    with pytest.raises(ValueError, match="more indices than int64 holds"):
        HandIndexer((15, 15))
    with pytest.raises(ValueError, match="unknown game"):
        HandIndexer((2,), game="pineapple")
    idx = HandIndexer((2, 3))
    with pytest.raises(ValueError, match="round 2"):
        idx.size(2)
    with pytest.raises(ValueError, match=r"position 1: index 1286792 is out of range"):
        idx.unindex(1, [0, 1286792])
    with pytest.raises(ValueError, match=r"position 0: index -1 is out of range"):
        idx.unindex(1, [-1])
    with pytest.raises(TypeError, match=r"indices must be integer indices, got the float 0\.5"):
        idx.unindex(1, [0.5])
