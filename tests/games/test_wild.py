"""Wild cards (jokers, wild ranks, the bug) against brute force over every substitution,
five of a kind, the scale, bad input, compare(), and the device code built as host C++."""

from __future__ import annotations

from itertools import combinations, combinations_with_replacement

import numpy as np
import pytest

import gpu_eval as ge
from gpu_eval.games import wild as W

JOKER = 52
FIVE, SF, QUADS, FULL_HOUSE, FLUSH, STRAIGHT = 9, 8, 7, 6, 5, 4


# ------------------------------------------------------------------------------ reference

def key5(ranks: np.ndarray, suits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A direct 5-card ranker for multisets of cards (a wild card may repeat a card):
    ``(key, category)``, bigger keys better. Five of a kind tops everything; a flush is five
    different ranks of one suit."""
    n = len(ranks)
    counts = (ranks[:, :, None] == np.arange(13)).sum(axis=1)
    distinct = (counts <= 1).all(axis=1)
    flush = (suits == suits[:, :1]).all(axis=1) & distinct
    by = counts[np.arange(n)[:, None], ranks] * 16 + ranks
    ordered = np.take_along_axis(ranks, np.argsort(-by, axis=1), axis=1)
    top2 = np.sort(counts, axis=1)[:, ::-1][:, :2]
    wheel = distinct & (np.sort(ranks, axis=1) == [0, 1, 2, 3, 12]).all(axis=1)
    straight = distinct & ((ordered[:, 0] - ordered[:, 4] == 4) | wheel)
    cat = np.select([top2[:, 0] == 5, straight & flush, top2[:, 0] == 4,
                     (top2[:, 0] == 3) & (top2[:, 1] == 2), flush, straight, top2[:, 0] == 3,
                     (top2[:, 0] == 2) & (top2[:, 1] == 2), top2[:, 0] == 2],
                    [9, 8, 7, 6, 5, 4, 3, 2, 1], 0)
    top = np.where(wheel, 3, ordered[:, 0])
    is_straight = ((cat == 4) | (cat == 8))[:, None]
    digits = np.where(is_straight, np.stack([top] + [0 * top] * 4, axis=1), ordered)
    key = cat.astype(np.int64)
    for i in range(5):
        key = key * 16 + digits[:, i]
    return key, cat


def class_keys() -> np.ndarray:
    """The reference key of every strength 1..7475 of the wild scale, read from the seed
    value (``to_value``) of each hold'em class, plus five of a kind."""
    keys = []
    for v in ge.to_value(np.arange(1, 7463)).astype(np.int64).tolist():
        cat, imp, kick = v >> 26, (v >> 13) & 0x1FFF, v & 0x1FFF
        ranks = lambda m: [r for r in range(12, -1, -1) if m >> r & 1]  # noqa: E731
        if cat in (4, 8):
            d = [3 if kick == 0xF else ranks(kick)[0], 0, 0, 0, 0]
        else:
            reps = {1: 2, 2: 2, 3: 3, 6: 3, 7: 4}.get(cat, 1)
            d = [r for r in ranks(imp) for _ in range(reps)]
            d += [r for r in ranks(kick) for _ in range(2 if cat == 6 else 1)]
        key = cat
        for x in d:
            key = key * 16 + x
        keys.append(key)
    for r in range(13):
        key = 9
        for _ in range(5):
            key = key * 16 + r
        keys.append(key)
    keys = np.array(keys, dtype=np.int64)
    assert (np.diff(keys) > 0).all(), "the scale must order the classes as the ranker does"
    return keys


CLASS_KEYS = class_keys()


def brute_force(naturals: list[list[int]], wild: int, *, bug: bool = False) -> np.ndarray:
    """Strength of each hand: its natural card ids plus ``wild`` wild cards, by trying every
    card (any rank and suit, repeats allowed) for every wild card and the best 5 of the
    result. With ``bug``, a wild card counts only as an ace, or in a straight / flush /
    straight flush. Rows must all have the same number of natural cards."""
    nat = np.array(naturals, dtype=np.int64).reshape(len(naturals), -1)
    n, k = len(nat), nat.shape[1] + wild
    # Suits the naturals lack are interchangeable: one of them stands for all (exact).
    cand = np.arange(52) if wild <= 2 else np.array(
        [c for c in range(52) if c % 4 in set((nat % 4).ravel().tolist()) | {3}])
    subs = np.array(list(combinations_with_replacement(cand.tolist(), wild)),
                    dtype=np.int64).reshape(-1, wild) if wild else np.zeros((1, 0), np.int64)
    s = len(subs)
    cards = np.concatenate([np.repeat(nat, s, axis=0), np.tile(subs, (n, 1))], axis=1)
    best = np.zeros(len(cards), dtype=np.int64)
    for cols in combinations(range(k), 5):
        c = cards[:, list(cols)]
        key, cat = key5(c // 4, c % 4)
        if bug:
            wild_cols = [j for j, col in enumerate(cols) if col >= nat.shape[1]]
            ok = np.isin(cat, [4, 5, 8]) | np.all([c[:, j] // 4 == 12 for j in wild_cols],
                                                  axis=0)
            key = np.where(ok, key, 0)
        np.maximum(best, key, out=best)
    best = best.reshape(n, s).max(axis=1)
    return np.searchsorted(CLASS_KEYS, best) + 1


def random_naturals(rng, n: int, k: int, exclude_ranks=()) -> np.ndarray:
    deck = np.array([c for c in range(52) if c // 4 not in exclude_ranks])
    return deck[np.argsort(rng.random((n, len(deck))), axis=1)[:, :k]]


# ----------------------------------------------------------------------------------- tests

def test_reference_agrees_with_holdem_without_wild_cards():
    rng = np.random.default_rng(0)
    nat = random_naturals(rng, 2000, 6)
    np.testing.assert_array_equal(brute_force(nat.tolist(), 0), ge.evaluate(nat))


@pytest.mark.parametrize("k, jokers, n", [(5, 1, 400), (6, 1, 300), (7, 1, 200), (9, 1, 60),
                                          (5, 2, 150), (6, 2, 60), (7, 2, 25)])
def test_jokers_match_brute_force(k, jokers, n):
    rng = np.random.default_rng(100 * k + jokers)
    nat = random_naturals(rng, n, k - jokers)
    hands = np.concatenate([nat, np.full((n, jokers), JOKER)], axis=1).astype(np.uint8)
    rng.permuted(hands, axis=1, out=hands)  # jokers anywhere in the row
    got = ge.evaluate(hands, wild="joker", backend="numpy")
    np.testing.assert_array_equal(got, brute_force(nat.tolist(), jokers))


@pytest.mark.parametrize("k, jokers, n", [(5, 1, 300), (7, 1, 120), (5, 2, 100), (6, 2, 40)])
def test_bug_matches_brute_force(k, jokers, n):
    rng = np.random.default_rng(7 * k + jokers)
    nat = random_naturals(rng, n, k - jokers)
    # a share of hands rich in aces and one suit, where the bug's limits matter
    rich = np.array([c for c in range(52) if c // 4 >= 8 or c % 4 == 0])
    nat[: n // 2] = rich[np.argsort(rng.random((n // 2, len(rich))), axis=1)[:, :k - jokers]]
    hands = np.concatenate([nat, np.full((n, jokers), JOKER)], axis=1).astype(np.uint8)
    got = ge.evaluate(hands, wild="bug")
    np.testing.assert_array_equal(got, brute_force(nat.tolist(), jokers, bug=True))


@pytest.mark.parametrize("k, deuces, n", [(5, 1, 300), (7, 1, 150), (5, 2, 100), (7, 2, 30),
                                          (5, 3, 12), (6, 3, 6), (5, 4, 4), (6, 4, 2)])
def test_deuces_wild_match_brute_force(k, deuces, n):
    rng = np.random.default_rng(50 * k + deuces)
    nat = random_naturals(rng, n, k - deuces, exclude_ranks=(0,))
    deuce_ids = np.stack([rng.permutation(4)[:deuces] for _ in range(n)])  # 2c..2s = 0..3
    hands = np.concatenate([nat, deuce_ids], axis=1).astype(np.uint8)
    got = ge.evaluate(hands, wild="2")
    np.testing.assert_array_equal(got, brute_force(nat.tolist(), deuces))
    # the same as text and as masks
    np.testing.assert_array_equal(ge.evaluate(ge.cards.format(hands[:20]), wild="2"), got[:20])
    np.testing.assert_array_equal(ge.evaluate(ge.cards.to_mask(hands), wild="2"), got)


def test_jokers_and_deuces_together():
    rng = np.random.default_rng(11)
    for k, deuces, jokers, n in ((7, 1, 1, 40), (6, 2, 1, 6), (5, 1, 2, 6)):
        nat = random_naturals(rng, n, k - deuces - jokers, exclude_ranks=(0,))
        deuce_ids = np.stack([rng.permutation(4)[:deuces] for _ in range(n)])
        hands = np.concatenate([nat, deuce_ids, np.full((n, jokers), JOKER)],
                               axis=1).astype(np.uint8)
        np.testing.assert_array_equal(ge.evaluate(hands, wild=["joker", "2"]),
                                      brute_force(nat.tolist(), deuces + jokers))


@pytest.mark.parametrize("hand, wild, text", [
    ("Ac Ad Ah As Jk", "joker", "Five of a Kind, Aces"),
    ("7c 7d 7h Jk Xx 2c", "joker", "Five of a Kind, Sevens"),
    ("2c 2d 2h 2s 3c", "2", "Five of a Kind, Threes"),
    ("2c 2d 2h 2s Jk 9d", ["joker", "2"], "Five of a Kind, Aces"),
    ("Ks Qs Js Ts Jk", "joker", "Royal Flush"),
    ("Ks Qs Js 9s Jk 3d", "joker", "Straight Flush, King high"),
    ("Ah Kh 7h 4h Jk", "joker", "Flush, Ace high, King Queen Seven Four"),
    ("Ah Kh 7h 4h Jk", "bug", "Flush, Ace high, King Queen Seven Four"),
    ("Ac Ad Ah As Jk", "bug", "Five of a Kind, Aces"),
    ("Kc Kd Kh Ks Jk", "bug", "Four of a Kind, Kings, Ace kicker"),
    ("Kc Kd 7h 4s Jk", "bug", "Pair, Kings, Ace Seven Four kickers"),
    ("Kc Kd 7h 4s Jk", "joker", "Three of a Kind, Kings, Seven Four kickers"),
    ("9c 8d 7h 5s Jk", "bug", "Straight, Nine high"),
    ("Ac Kd Qh Js Tc", "joker", "Straight, Ace high"),
])
def test_known_hands(hand, wild, text):
    s = ge.evaluate(hand, wild=wild)
    assert ge.describe(s, game="wild") == text
    if text.startswith("Five"):
        assert int(ge.category(s, game="wild")) == FIVE and int(s) > 7462


def test_scale():
    assert W.NUM_CLASSES == 7475
    five = np.arange(7463, 7476)
    assert ge.category(five, game="wild").tolist() == [9] * 13
    assert ge.describe(7463, game="wild") == "Five of a Kind, Twos"
    assert ge.describe(7462, game="wild") == "Royal Flush"
    # no wild card in the hand: the hold'em strength
    hands = random_naturals(np.random.default_rng(1), 5000, 7)
    np.testing.assert_array_equal(ge.evaluate(hands, wild="joker"), ge.evaluate(hands))
    with pytest.raises(ValueError, match="outside the hold'em scale"):
        ge.describe(7470)
    with pytest.raises(ValueError, match="outside the 'wild' scale"):
        ge.describe(7476, game="wild")


def test_five_or_more_wild_cards_make_five_aces():
    got = ge.evaluate(["2c 2d 2h 2s Jk 7d 8h", "2c 2d 2h 2s Jk Xx 3c"], wild=["joker", "2"])
    assert got.tolist() == [7475, 7475]
    assert int(ge.evaluate("3c 3d 3h 3s 2c 2d 2h 2s 4c", wild=["2", "3"])) == 7475


@pytest.mark.parametrize("hands, wild, match", [
    ("Ac Ad Ah Jk Jk Jk", "joker", r"3 jokers; a deck has 2"),
    ("Ac Ad Ah As Jk", None, r"joker"),
    ("Ac Ad Ah As Jk", "2", r"joker, which this game does not allow"),
    ("Ac Ac Ah As Jk", "joker", r"card Ac is used twice"),
    (["Ac Kd Qh Js Jk", "Ac Ad Jk"], "joker", r"row 1\): 3 cards; this game takes 5 to 9"),
    (np.array([[0, 1, 2, 3, 53]]), "joker", r"row 0\): card id 53 is out of range 0..52"),
    (np.array([[0, 1, 2, 3, 52]]), "2", r"card id 52 is out of range 0..51"),
    (np.array([[0, 1, 2, 2, 52]]), "joker", r"row 0\): a card is used twice"),
    ("Ac Kd Qh Js Tc", "three", r"wild='three'"),
    ("Ac Kd Qh Js Tc", ["bug", "joker"], r"either fully wild"),
    ("Ac Kd Qh Js Tc", ["bug", "2"], r"cannot be combined"),
    ("Ac Kd Qh Js Tc", [], r"wild= needs"),
])
def test_bad_input(hands, wild, match):
    with pytest.raises(ValueError, match=match):
        ge.evaluate(hands, wild=wild) if wild is not None else ge.evaluate(hands)


def test_mask_mode():
    ids = np.array([[48, 49, 50, 51, 52], [0, 1, 2, 2, 52], [0, 4, 8, 12, 53],
                    [52, 52, 52, 1, 5]], dtype=np.uint8)
    assert ge.evaluate(ids, wild="joker", invalid="mask").tolist() == [7475, 0, 0, 0]
    got = ge.evaluate(["Ac Ad Ah As Jk", "Ac Ad Jk", "Ac Ac Kd Qs Jk"], wild="joker",
                      invalid="mask")
    assert got.tolist() == [7475, 0, 0]


def test_compare_winners_and_split_pots():
    board = "Ah Kd 7c 7s 2h"
    s = [ge.evaluate(h + " " + board) for h in ("AsQd", "AcQh", "KhKs")]
    r = ge.compare(s)
    assert r.winners.tolist() == [False, False, True] and r.share.tolist() == [0, 0, 1.0]
    # (N, P) arrays, ties and masked (0) rows
    strengths = np.array([[10, 20, 20], [5, 5, 5], [0, 0, 0], [0, 3, 0]], dtype=np.uint16)
    r = ge.compare(strengths)
    assert r.winners.tolist() == [[False, True, True], [True, True, True],
                                  [False, False, False], [False, True, False]]
    np.testing.assert_allclose(r.share, [[0, .5, .5], [1 / 3] * 3, [0, 0, 0], [0, 1, 0]])
    assert r.best.tolist() == [20, 5, 0, 3]
    # per-player arrays, and players on another axis
    per_player = [strengths[:, j] for j in range(3)]
    np.testing.assert_array_equal(ge.compare(per_player).share, r.share)
    np.testing.assert_array_equal(ge.compare(strengths.T, axis=0).share, r.share)
    # with wild cards: five of a kind beats a royal flush
    s = ge.evaluate(["Ac Ad Ah As Jk 2c 3d", "As Ks Qs Js Ts 2c 3d"], wild="joker")
    assert ge.compare(list(s)).winners.tolist() == [True, False]
    with pytest.raises(TypeError):
        ge.compare(np.array([[1.5, 2.0]]))
    with pytest.raises(ValueError, match="at least one player"):
        ge.compare(np.zeros((3, 0), np.uint16))


# ------------------------------------------------------------------------------ device code

def test_wild_table_struct_matches_tables():
    import re

    from gpu_eval.cuda import nvrtc
    body = (nvrtc.kernel_dir() / "wild.cuh").read_text()
    fields = re.findall(r"const\s+ge_(u8|u16|u32|u64)\*\s+(\w+);",
                        re.search(r"GeWildTables\s*\{(.*?)\};", body, re.S).group(1))
    assert tuple(f for _, f in fields) == W.WILD_TABLE_ORDER
    tables = W.wild_device_tables()
    for ctype, name in fields:
        assert tables[name].dtype == np.dtype(f"uint{ctype[1:]}"), name


@pytest.mark.parametrize("wild", ["joker", ["joker", "2"], "bug", "2"])
def test_host_kernels_match_numpy(variant_host, wild):
    rng = np.random.default_rng(4)
    spec = W.parse_wild(wild)
    for k in (5, 7, 9):
        ids = np.argsort(rng.random((40_000, 54)), axis=1)[:, :k]
        if spec.jokers != "none":  # ids 52 and 53 are the two jokers; a third of rows get one
            ids = np.where(ids >= 52, JOKER, ids)
            ids[::3, 0] = JOKER
        masks = np.bitwise_or.reduce(W.ID_OR_JOKER_TO_MASK[np.minimum(ids, JOKER)], axis=1)
        jokers = (ids == JOKER).sum(axis=1)
        valid = (np.bitwise_count(masks) + jokers == k) & (jokers <= 2)
        valid &= (ids <= (JOKER if spec.jokers != "none" else 51)).all(axis=1)
        ids, masks, jokers = ids[valid], masks[valid], jokers[valid]
        ref = ge.evaluate(ids.astype(np.uint8), wild=wild)
        np.testing.assert_array_equal(variant_host.wild(masks, jokers, spec.ranks,
                                                spec.jokers == "bug"), ref)
