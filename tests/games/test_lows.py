"""The low evaluators (2-7, A-5, badugi): every hand against slow references written here,
pokerkit where pokerkit is right, the host-built kernel and the stand-in CuPy.

The references build a lexicographic badness key from the sorted card ids (multiplicity sums
for the category, a base-13 polynomial for the ranks), not from rank-count hashes, so they
share nothing with gpu_eval.games.lowball but the rules.
"""

from __future__ import annotations

import numpy as np
import pytest

import gpu_eval as ge
from gpu_eval import cards
from gpu_eval.combinatorics import subset_masks, unrank
from gpu_eval.games import lowball

RNG = np.random.default_rng(22)


@pytest.fixture(scope="module")
def five_ids():
    return unrank(np.arange(2598960), 5).astype(np.int64)


@pytest.fixture(scope="module")
def five_masks():
    return subset_masks(52, 5)


def _ref_key(ids: np.ndarray, ace_low: bool, straights: bool) -> np.ndarray:
    """Badness of hands of five cards (higher = worse low)."""
    ids = np.asarray(ids, dtype=np.int16)
    r = ids // 4
    if ace_low:
        r = (r + 1) % 13  # A=0, 2=1, ..., K=12
    s = ids % 4
    mult = (r[:, :, None] == r[:, None, :]).sum(axis=2, dtype=np.int16)
    msum = mult.sum(axis=1)  # 5, 7, 9, 11, 13, 17: no pair .. quads
    # bigger groups first, then higher ranks: sort (multiplicity, rank) down, keep the rank
    seq = np.sort(mult * 16 + r, axis=1)[:, ::-1] % 16
    poly = np.zeros(len(ids), dtype=np.int64)
    for j in range(5):
        poly = poly * 13 + seq[:, j]
    if not straights:
        return msum * 13 ** 5 + poly
    # 2-7: hold'em's order with no wheel: high, pair, two pair, trips, straight, flush,
    # full house, quads, straight flush
    srt = np.sort(r, axis=1)
    straight = (msum == 5) & (srt[:, 4] - srt[:, 0] == 4)
    flush = (s == s[:, :1]).all(axis=1)
    rank_of = {5: 0, 7: 1, 9: 2, 11: 3, 13: 6, 17: 7}
    cat = np.zeros(len(ids), dtype=np.int64)
    for k, v in rank_of.items():
        cat[msum == k] = v
    cat = np.where(straight, 4, cat)
    cat = np.where(flush, np.where(straight, 8, 5), cat)
    return cat * 13 ** 5 + poly


def _same_order(strength: np.ndarray, badness: np.ndarray, classes: int) -> None:
    """Higher strength exactly when lower badness; ``classes`` distinct values."""
    order = np.argsort(badness, kind="stable")
    b, s = badness[order], strength[order].astype(np.int64)
    assert len(np.unique(s)) == classes == len(np.unique(b))
    step_b, step_s = np.diff(b), np.diff(s)
    assert ((step_b == 0) == (step_s == 0)).all()
    assert (step_s <= 0).all(), "a worse low has a higher strength"
    assert s[0] == classes and s[-1] == 1


def test_deuce_seven_every_hand(five_ids, five_masks):
    s = lowball.evaluate_masks(five_masks, "deuce-seven")
    _same_order(s, _ref_key(five_ids, ace_low=False, straights=True), 7462)
    # category counts of a 5-card hold'em deal, with the wheel moved to high card / flush
    cat = ge.category(s, game="deuce-seven")
    counts = np.bincount(cat, minlength=9).tolist()
    assert counts == [1302540 + 1020, 1098240, 123552, 54912, 10200 - 1020, 5108 + 4, 3744,
                      624, 40 - 4]


def test_ace_five_every_hand(five_ids, five_masks):
    s = lowball.evaluate_masks(five_masks, "ace-five")
    _same_order(s, _ref_key(five_ids, ace_low=True, straights=False), 6175)


def test_ace_five_six_and_seven_cards_are_the_best_five():
    from itertools import combinations

    for k in (6, 7):
        ids = np.array([RNG.choice(52, k, replace=False) for _ in range(20000)])
        subs = list(combinations(range(k), 5))
        bad = np.min([_ref_key(ids[:, list(c)], True, False) for c in subs], axis=0)
        best = np.max([lowball.evaluate_masks(cards.to_mask(ids[:, list(c)]), "ace-five")
                       for c in subs], axis=0)
        s = lowball.evaluate_masks(cards.to_mask(ids), "ace-five")
        assert (s == best).all()
        _same_order_partial(s, bad)


def _same_order_partial(s: np.ndarray, bad: np.ndarray) -> None:
    order = np.argsort(bad, kind="stable")
    db, ds = np.diff(bad[order]), np.diff(s[order].astype(np.int64))
    assert ((db == 0) == (ds == 0)).all() and (ds <= 0).all()


def test_badugi_every_hand():
    ids = unrank(np.arange(270725), 4).astype(np.int64)
    s = lowball.evaluate_masks(cards.to_mask(ids), "badugi")
    # reference: a subset plays when its suit set and its rank set both have its size;
    # among equal sizes the lower ace-low rank mask (read as an integer) is the better low
    r = (ids // 4 + 1) % 13
    best = np.full(len(ids), -1, dtype=np.int64)
    for sub in range(1, 16):
        pick = [j for j in range(4) if sub >> j & 1]
        rm = np.bitwise_or.reduce(1 << r[:, pick], axis=1)
        sm = np.bitwise_or.reduce(1 << (ids[:, pick] % 4), axis=1)
        ok = (np.bitwise_count(rm) == len(pick)) & (np.bitwise_count(sm) == len(pick))
        good = len(pick) << 13 | (0x1FFF - rm)
        best = np.where(ok, np.maximum(best, good), best)
    _same_order(s, -best, 1092)
    assert np.bincount(ge.category(s, game="badugi")).tolist()[1:] == [
        int(np.sum(best >> 13 == n)) for n in range(1, 5)]


@pytest.mark.parametrize("game, hands, want", [
    ("deuce-seven", ["7c5d4h3s2c", "Ah5d4h3s2c", "Ah6d4h3s2c", "KhQdJh9s8c", "2c2d3h4s5c"],
     ["7-5-4-3-2", "A-5-4-3-2", "A-6-4-3-2", "K-Q-J-9-8", "Pair, 2-2-5-4-3"]),
    ("ace-five", ["Ah2d3c4s5h9cKd", "KsKcKdKhQs", "AcAd2c2d3c3d4h"],
     ["5-4-3-2-A", "Four of a Kind, K-K-K-K-Q", "Pair, A-A-4-3-2"]),
    ("badugi", ["2s3s4d7h", "KcKdKhKs", "Ac2c3c4c", "Ac2d3h4s"],
     ["Three-card 7-4-2", "One-card K", "One-card A", "Badugi 4-3-2-A"]),
])
def test_published_hands(game, hands, want):
    s = ge.evaluate(hands, game=game)
    assert ge.describe(s) == want  # the dtype carries the game
    assert s.dtype.metadata["game"] == game


def test_the_deuce_seven_wheel():
    s = ge.evaluate(["Ah5d4h3s2c", "Ah6d4h3s2c", "KhQdJh9s8c", "AhAd2c3d4s", "7c5d4h3s2c",
                     "7c5c4c3c2c"], game="deuce-seven").astype(int)
    wheel, a6, king, pair, nuts, flush = s
    assert a6 < wheel < king and pair < wheel and nuts == 7462 and flush < pair


def test_pokerkit_agrees_where_it_is_right():
    from pokerkit import BadugiHand, RegularLowHand, StandardLowHand

    for game, hand_type, k in (("deuce-seven", StandardLowHand, 5),
                               ("ace-five", RegularLowHand, 7), ("badugi", BadugiHand, 4)):
        ids = np.array([RNG.choice(52, k, replace=False) for _ in range(3000)])
        text = cards.format(cards.to_mask(ids))
        if game == "deuce-seven":  # the wheel and its neighbours, where 2-7 peers go wrong
            text += ["Ah5d4h3s2c", "Ah5h4h3h2h", "Ah6d4h3s2c", "KhQdJh9s8c", "2c2d3h4s5c",
                     "6h5d4h3s2c", "Kh8h6h4h2h"]
        s = ge.evaluate(text, game=game).astype(int)
        theirs = [hand_type.from_game(t) for t in text]
        order = np.argsort(s, kind="stable")
        for a, b in zip(order[:-1], order[1:]):
            assert (theirs[a] < theirs[b]) == (s[a] < s[b]), (text[a], text[b])
            assert (theirs[a] == theirs[b]) == (s[a] == s[b]), (text[a], text[b])


@pytest.mark.parametrize("game, bad, msg", [
    ("deuce-seven", "7c5d4h3s2c9h", "6 cards; this game takes 5 to 5"),
    ("badugi", "AcAc2d3h", "used twice"),
    ("ace-five", "Ac2d3h4s", "4 cards; this game takes 5 to 7"),
])
def test_bad_hands_name_the_row(game, bad, msg):
    with pytest.raises(ValueError, match=msg):
        ge.evaluate(["7c5d4h3s2c8h" if game == "ace-five" else "Ac2d3h4s5c"[:8 if game ==
                     "badugi" else 10], bad], game=game)
    out = ge.evaluate(["Ac2d3h4s5c6h"[:8 if game == "badugi" else 10], bad], game=game,
                      invalid="mask")
    assert out[1] == 0 and out[0] > 0


def test_ids_masks_and_text_agree():
    ids = np.array([RNG.choice(52, 5, replace=False) for _ in range(500)], dtype=np.uint8)
    for game in ("deuce-seven", "ace-five"):
        a = ge.evaluate(ids, game=game)
        assert (a == ge.evaluate(cards.to_mask(ids), game=game)).all()
        assert (a == ge.evaluate(cards.format(cards.to_mask(ids)), game=game)).all()
    four = ids[:, :4]
    assert (ge.evaluate(four, game="badugi") == ge.evaluate(cards.to_mask(four),
                                                            game="badugi")).all()


def test_strength_readers_refuse_other_scales():
    s = ge.evaluate("7c5d4h3s2c", game="deuce-seven")
    with pytest.raises(ValueError, match="deuce-seven"):
        ge.describe(s, game="holdem")
    with pytest.raises(ValueError, match="no 30-bit value"):
        ge.to_value(s)
    with pytest.raises(ValueError, match="outside"):
        ge.describe(7000, game="ace-five")


def _random_masks(k: int, n: int = 4000) -> np.ndarray:
    return cards.to_mask(np.array([RNG.choice(52, k, replace=False) for _ in range(n)]))


def test_host_built_kernel_matches_numpy(five_masks):
    from emulation import hostbuild, lows_host

    try:
        kern = lows_host.load()
    except hostbuild.HostBuildUnavailableError as exc:
        pytest.skip(f"no C++ compiler: {exc}")
    sample = five_masks[::7]
    for game in ("deuce-seven", "ace-five"):
        assert (kern.evaluate(sample, game) == lowball.evaluate_masks(sample, game)).all()
    for k in (6, 7):
        m = _random_masks(k)
        assert (kern.evaluate(m, "ace-five") == lowball.evaluate_masks(m, "ace-five")).all()
    four = subset_masks(52, 4)
    assert (kern.evaluate(four, "badugi") == lowball.evaluate_masks(four, "badugi")).all()
    assert (kern.evaluate(_random_masks(6, 10), "deuce-seven") == 0).all()  # wrong counts


def test_cupy_in_cupy_out(gpu):
    cp = gpu.cp
    for game, k in (("deuce-seven", 5), ("ace-five", 7), ("badugi", 4)):
        m = _random_masks(k, 300)
        want = lowball.evaluate_masks(m, game)
        got = ge.evaluate(cp.asarray(m), game=game, backend="cuda")
        assert isinstance(got, cp.ndarray) and (got.get() == want).all()
        host = ge.evaluate(m, game=game, backend="cuda")  # NumPy in, tagged NumPy out
        assert (host == want).all() and host.dtype.metadata["game"] == game
    bad = cp.asarray(np.array([[0, 4, 8, 12, 12]], dtype=np.uint8))
    with pytest.raises(ValueError, match="used twice"):
        ge.evaluate(bad, game="deuce-seven", backend="cuda")
    assert int(ge.evaluate(bad, game="deuce-seven", backend="cuda", invalid="mask")[0]) == 0


@pytest.mark.parametrize("game, k", [("deuce-seven", 5), ("ace-five", 5), ("badugi", 4)])
def test_every_hand_on_the_device(gpu, game, k):
    cp = gpu.cp
    m = subset_masks(52, k)
    got = ge.evaluate(cp.asarray(m), game=game, backend="cuda")
    assert isinstance(got, cp.ndarray)
    assert np.array_equal(got.get(), lowball.evaluate_masks(m, game))


def test_seven_card_razz_hands_and_errors(gpu):
    cp = gpu.cp
    rng = np.random.default_rng(7)
    n = gpu.size(100_000, 10_000)
    ids = np.array([rng.choice(52, 7, replace=False) for _ in range(n)], dtype=np.uint8)
    got = ge.evaluate(cp.asarray(ids), game="ace-five", backend="cuda").get()
    assert np.array_equal(got, lowball.evaluate_masks(cards.to_mask(ids), "ace-five"))
    with pytest.raises(ValueError, match="used twice"):
        ge.evaluate(cp.asarray(np.array([[0, 4, 8, 12, 12]], dtype=np.uint8)),
                    game="deuce-seven", backend="cuda")


def test_evaluate_low_takes_cupy_arrays(gpu):
    cp = gpu.cp
    hands = ["Ah2d3c4s5h9cKd", "8h7d6c5s4h", "Ah2d3c9sTh"]
    want = ge.evaluate_low(hands)
    got = ge.evaluate_low(cp.asarray(cards.to_mask(hands)))
    assert isinstance(got, cp.ndarray) and (got.get() == want).all()
    hole, board = ["AhKd3c9s", "7h8d9cTc"], "2c 5d 4h Qs Js"
    want = ge.evaluate_low(hole, board)
    got = ge.evaluate_low(cp.asarray(cards.to_mask(hole)), board)
    assert isinstance(got, cp.ndarray) and (got.get() == want).all()
    with pytest.raises(ValueError, match="used twice"):
        ge.evaluate_low(cp.asarray(cards.to_mask(["2c3c4c5cAh"])), "2c 5d 4h")
