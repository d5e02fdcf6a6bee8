"""Short deck (6+): the scale, every 5- and 7-card hand against a direct ranker, bad input,
and the device code (NVRTC for sm_90, and built as host C++ against NumPy)."""

from __future__ import annotations

from itertools import combinations
from math import comb

import numpy as np
import pytest

import gpu_eval as ge
from gpu_eval.cards import ID_TO_MASK
from gpu_eval.cuda import nvrtc
from gpu_eval.evaluator import bitmask
from gpu_eval.games import shortdeck as SD

DECK = np.arange(16, 52, dtype=np.uint8)  # 6c .. As
# Hands per category (high card .. straight flush) over all C(36, 5) = 376,992 hands.
FIVE_CARD_COUNTS = [122400, 193536, 36288, 16128, 6120, 480, 1728, 288, 24]
STRAIGHT_FLUSH, QUADS, FULL_HOUSE, FLUSH, STRAIGHT, TRIPS, TWO_PAIR, PAIR, HIGH = (
    8, 7, 6, 5, 4, 3, 2, 1, 0)
# The direct ranker's category order (lowest first) per game.
ORDER = {"shortdeck": [HIGH, PAIR, TWO_PAIR, TRIPS, STRAIGHT, FULL_HOUSE, FLUSH, QUADS,
                       STRAIGHT_FLUSH],
         "shortdeck-triton": [HIGH, PAIR, TWO_PAIR, STRAIGHT, TRIPS, FULL_HOUSE, FLUSH, QUADS,
                              STRAIGHT_FLUSH]}


def reference_key(ids: np.ndarray, game: str) -> tuple[np.ndarray, np.ndarray]:
    """A short-deck 5-card ranker written from the rules, nothing shared with the package:
    ``(key, category)`` for each row of an ``(N, 5)`` id array; bigger keys are better."""
    ranks, suits = ids.astype(np.int16) // 4, ids.astype(np.int16) % 4
    rows = np.arange(len(ids))
    counts = np.zeros((len(ids), 13), dtype=np.int16)
    for j in range(5):
        counts[rows, ranks[:, j]] += 1
    flush = (suits == suits[:, :1]).all(axis=1)
    # the ranks by (how many of that rank, rank), both descending
    ordered = np.sort(counts[rows[:, None], ranks] * 16 + ranks, axis=1)[:, ::-1] % 16
    top2 = np.sort(counts, axis=1)[:, ::-1][:, :2]
    distinct = top2[:, 0] == 1
    low = distinct & (np.sort(ranks, axis=1) == [4, 5, 6, 7, 12]).all(axis=1)  # A-6-7-8-9
    straight = distinct & ((ordered[:, 0] - ordered[:, 4] == 4) | low)
    cat = np.select([straight & flush, top2[:, 0] == 4, (top2[:, 0] == 3) & (top2[:, 1] == 2),
                     flush, straight, top2[:, 0] == 3, (top2[:, 0] == 2) & (top2[:, 1] == 2),
                     top2[:, 0] == 2],
                    [STRAIGHT_FLUSH, QUADS, FULL_HOUSE, FLUSH, STRAIGHT, TRIPS, TWO_PAIR, PAIR],
                    HIGH)
    top = np.where(low, 7, ordered[:, 0])  # A-6-7-8-9 is nine high
    is_straight = ((cat == STRAIGHT) | (cat == STRAIGHT_FLUSH))[:, None]
    digits = np.where(is_straight, np.stack([top] + [0 * top] * 4, axis=1), ordered)
    key = np.array(ORDER[game])[None, :].argsort(axis=1)[0][cat]  # position in the order
    for i in range(5):
        key = key * 16 + digits[:, i]
    return key, cat


def colex_subsets(n: int, k: int) -> np.ndarray:
    """All k-subsets of range(n) as sorted rows, in colex order (row i has colex index i)."""
    level = np.zeros((1, 0), dtype=np.uint8)
    for j in range(1, k + 1):
        level = np.concatenate([np.concatenate([level[:comb(t, j - 1)],
                                                np.full((comb(t, j - 1), 1), t, np.uint8)],
                                               axis=1) for t in range(j - 1, n)])
    return level


@pytest.fixture(scope="module")
def five():
    """All 5-card hands (positions in DECK, colex order) with reference strengths per game:
    the reference keys, numbered densely from 1 (the scale is dense by definition)."""
    pos = colex_subsets(36, 5)
    ids = DECK[pos]
    out = {}
    for game in SD.GAMES:
        key, cat = reference_key(ids, game)
        _, strength = np.unique(key, return_inverse=True)
        out[game] = (strength.astype(np.int64) + 1, cat)
    return pos, ids, out


@pytest.mark.parametrize("game", SD.GAMES)
def test_all_five_card_hands(five, game):
    _, ids, ref = five
    got = ge.evaluate(ids, game=game, backend="numpy")
    strength, cat = ref[game]
    assert len(got) == 376_992
    np.testing.assert_array_equal(got, strength)
    assert np.unique(got).size == SD.NUM_CLASSES == 1404
    assert np.bincount(cat, minlength=9).tolist() == FIVE_CARD_COUNTS
    assert np.bincount(ge.category(got, game=game), minlength=9).tolist() == FIVE_CARD_COUNTS
    # Masks, and card order within a row, do not matter.
    np.testing.assert_array_equal(ge.evaluate(ge.cards.to_mask(ids[::7]), game=game), got[::7])
    np.testing.assert_array_equal(ge.evaluate(ids[::5, ::-1], game=game), got[::5])


@pytest.fixture(scope="module")
def seven(five):
    """Every one of the 8,347,680 seven-card hands (positions in DECK, colex order) as a mask,
    and per game the best of its 21 five-card subsets by the direct ranker (via a table of
    the 376,992 five-card reference strengths). The subsets' colex indices and the masks do
    not depend on the game: worked out once for both."""
    ref5 = {game: five[2][game][0].astype(np.uint16) for game in SD.GAMES}
    binom = np.array([[comb(n, j) for n in range(36)] for j in range(6)], dtype=np.int64)
    six = colex_subsets(35, 6)
    card = ID_TO_MASK[DECK]
    masks = np.zeros(comb(36, 7), dtype=np.uint64)
    best = {game: np.zeros(comb(36, 7), dtype=np.uint16) for game in SD.GAMES}
    drops = list(combinations(range(7), 2))
    for top in range(6, 36):
        lo, hi = comb(top, 7), comb(top + 1, 7)
        rows = np.concatenate([six[:comb(top, 6)], np.full((comb(top, 6), 1), top, np.uint8)],
                              axis=1).astype(np.int64)
        # colex index of the 5 positions left after dropping a and b: sum C(c_m, slot + 1)
        terms = {(m, s): binom[s + 1][rows[:, m]] for m in range(7) for s in range(5)
                 if 0 <= m - s <= 2}
        for a, b in drops:
            idx = sum(terms[(m, m - (m > a) - (m > b))] for m in range(7) if m not in (a, b))
            for game in SD.GAMES:
                np.maximum(best[game][lo:hi], ref5[game][idx], out=best[game][lo:hi])
        for m in range(7):
            masks[lo:hi] |= card[rows[:, m]]
    return masks, best


@pytest.mark.parametrize("game", SD.GAMES)
def test_all_seven_card_hands(seven, game):
    """Every seven-card hand against the best of its five-card subsets (:func:`seven`)."""
    masks, best = seven
    assert (np.bitwise_count(masks) == 7).all()  # every row filled in
    got = bitmask.evaluate_masks(masks, tables=SD.shortdeck_tables(game))
    np.testing.assert_array_equal(got, best[game])
    hist = np.bincount(got, minlength=SD.NUM_CLASSES + 1)
    total = len(got)
    assert total == comb(36, 7) == 8_347_680
    cats = np.bincount(ge.category(np.arange(1, SD.NUM_CLASSES + 1), game=game),
                       weights=hist[1:], minlength=9).astype(np.int64)
    assert cats.sum() == total and hist[0] == 0
    assert cats[STRAIGHT_FLUSH] > 0 and cats[FLUSH] < cats[FULL_HOUSE]  # why flush ranks higher


def test_random_seven_card_hands_by_direct_keys(five):
    """Random 7-card hands: the best of 21 subsets by the direct ranker's keys themselves."""
    rng = np.random.default_rng(7)
    pos = np.sort(np.argsort(rng.random((30_000, 36)), axis=1)[:, :7], axis=1)
    for game in SD.GAMES:
        best = None
        for cols in combinations(range(7), 5):
            key, _ = reference_key(DECK[pos[:, list(cols)]], game)
            best = key if best is None else np.maximum(best, key)
        all_keys = np.unique(reference_key(five[1], game)[0])  # the 1404 classes, in order
        np.testing.assert_array_equal(ge.evaluate(DECK[pos], game=game),
                                      np.searchsorted(all_keys, best) + 1)


def test_agrees_with_pokerkit_short_deck():
    """pokerkit's ShortDeckHoldemHand (standard rules) orders random 7-card hands as we do."""
    pokerkit = pytest.importorskip("pokerkit")
    rng = np.random.default_rng(8)
    ids = DECK[np.argsort(rng.random((1500, 36)), axis=1)[:, :7]]
    ours = ge.evaluate(ids, game="shortdeck")
    texts = ge.cards.format(ids)
    hands = [pokerkit.ShortDeckHoldemHand.from_game(t[:4], t[4:]) for t in texts]
    order = np.argsort(ours, kind="stable")
    for a, b in zip(order[:-1], order[1:]):
        if ours[a] == ours[b]:
            assert hands[a] == hands[b], (texts[a], texts[b])
        else:
            assert hands[a] < hands[b], (texts[a], texts[b])


def test_scale_layout():
    for game in SD.GAMES:
        ranges = SD.category_ranges(game)
        assert sum(hi - lo + 1 for lo, hi in ranges.values()) == 1404
        assert ranges[FLUSH][0] > ranges[FULL_HOUSE][1]        # flush beats a full house
        assert ranges[STRAIGHT_FLUSH] == (1399, 1404)
    assert SD.category_ranges("shortdeck")[STRAIGHT] == (1129, 1134)
    assert SD.category_ranges("shortdeck-triton")[TRIPS][0] > \
        SD.category_ranges("shortdeck-triton")[STRAIGHT][1]  # trips beat a straight


@pytest.mark.parametrize("hand, game, text", [
    ("As 6d 7c 8h 9s", "shortdeck", "Straight, Nine high"),
    ("As 6s 7s 8s 9s", "shortdeck", "Straight Flush, Nine high"),
    ("As Ks Qs Js Ts", "shortdeck", "Royal Flush"),
    ("Ah Kh Qh 9h 7h", "shortdeck", "Flush, Ace high, King Queen Nine Seven"),
    ("Ah Ad Ac 6s 6d", "shortdeck", "Full House, Aces full of Sixes"),
    ("6h 6d 6c 7s 8d Kh Qd", "shortdeck-triton", "Three of a Kind, Sixes, King Queen kickers"),
    ("Ts Jd Qc 9h 8s", "shortdeck", "Straight, Queen high"),
])
def test_describe_in_short_deck_terms(hand, game, text):
    s = ge.evaluate(hand, game=game)
    assert ge.describe(s, game=game) == text


def test_category_orders():
    flush = ge.evaluate("Ah Kh Qh 9h 7h", game="shortdeck")
    house = ge.evaluate("Ah Ad Ac 6s 6d", game="shortdeck")
    assert flush > house
    straight = ge.evaluate("As 6d 7c 8h 9s", game="shortdeck-triton")
    trips = ge.evaluate("6h 6d 6c 8s 9d", game="shortdeck-triton")
    assert trips > straight
    assert ge.evaluate("6h 6d 6c 8s 9d", game="shortdeck") < \
        ge.evaluate("As 6d 7c 8h 9s", game="shortdeck")
    # A-6-7-8-9 is the lowest straight, above every set of trips in standard short deck
    assert ge.evaluate("As 6d 7c 8h 9s", game="shortdeck") < \
        ge.evaluate("6s 7d 8c 9h Ts", game="shortdeck")


def test_low_cards_rejected_naming_card_and_row():
    with pytest.raises(ValueError, match=r"row 1\): card 5d is not in the 36-card short deck"):
        ge.evaluate(["As Ks Qs Js Ts", "Ah 5d 7c 8s 9h"], game="shortdeck")
    with pytest.raises(ValueError, match=r"card 2c is not in the 36-card short deck"):
        ge.evaluate(np.array([48, 44, 40, 36, 0], np.uint8), game="shortdeck")
    with pytest.raises(ValueError, match=r"row 0\): card 4h"):
        ge.evaluate(ge.cards.to_mask(["4h As Ks Qs Js"]), game="shortdeck-triton")
    got = ge.evaluate(["As Ks Qs Js Ts", "Ah 5d 7c 8s 9h", "AhAh7c8s9h", "AsKs"],
                      game="shortdeck", invalid="mask")
    assert got.tolist() == [1404, 0, 0, 0]
    with pytest.raises(ValueError, match="used twice"):
        ge.evaluate("As As Ks Qs Js", game="shortdeck")


def test_scales_do_not_mix():
    s = ge.evaluate("As Ks Qs Js Ts 2c 3d")  # hold'em 7462
    with pytest.raises(ValueError, match="outside the 'shortdeck' scale"):
        ge.describe(s, game="shortdeck")
    with pytest.raises(ValueError, match="wild cards are supported with game='holdem' only"):
        ge.evaluate("As Ks Qs Js Ts", game="shortdeck", wild="joker")
    from gpu_eval.cuda import availability
    if availability.cuda_available()[0]:  # a device: the kernels run (tests/test_cuda_variants_*)
        assert int(ge.evaluate("As Ks Qs Js Ts", game="shortdeck", backend="cuda")) == 1404
    else:
        with pytest.raises(RuntimeError, match="backend=.cuda."):  # no device here
            ge.evaluate("As Ks Qs Js Ts", game="shortdeck", backend="cuda")


# ------------------------------------------------------------------------------ device code

def test_variant_kernels_compile_with_their_tables_in_constant_memory():
    try:
        nvrtc.nvrtc_version()
    except nvrtc.NvrtcUnavailableError as exc:
        pytest.skip(str(exc))
    ptx = nvrtc.compile_ptx(nvrtc.kernel_dir() / "variants.cu", arch="compute_90")
    for kernel in ("ge_shortdeck_eval_masks", "ge_shortdeck_eval_ids", "ge_omaha_eval_ids",
                   "ge_wild_eval_masks"):
        assert f".entry {kernel}" in ptx
    assert ".const" in ptx and "ge_shortdeck_tables" in ptx
    # Its sm_90 cubin, through ptxas: the session's report of every manifest module
    # (tests/cuda/test_kernel_resources.py).


def test_host_kernels_all_five_card_hands(variant_host, five):
    pos, ids, ref = five
    masks = np.bitwise_or.reduce(ID_TO_MASK[ids], axis=1)
    for variant, game in enumerate(SD.GAMES):
        np.testing.assert_array_equal(variant_host.shortdeck_masks(masks, variant), ref[game][0])
        np.testing.assert_array_equal(variant_host.shortdeck_ids(ids[::3, ::-1], variant),
                                      ref[game][0][::3])


def test_host_kernels_random_seven_and_nine(variant_host):
    rng = np.random.default_rng(3)
    for k in (7, 9):
        ids = DECK[np.argsort(rng.random((50_000, 36)), axis=1)[:, :k]]
        for variant, game in enumerate(SD.GAMES):
            np.testing.assert_array_equal(variant_host.shortdeck_ids(ids, variant),
                                          ge.evaluate(ids, game=game))
