"""The game tag: strengths of non-hold'em scales carry their game in the dtype's metadata, the
readers (category, describe, to_value, ...) use it, contradictions and mixed-game showdowns
raise, and the tag survives what users do with arrays (docs/architecture.md: "a result object or dtype
field says which game a strength belongs to. Never compare strengths across games silently")."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import gpu_eval as ge
from gpu_eval import strength as ST

HANDS = ["As Ks Qs Js Ts", "6c 7d 8h 9s Ac", "Kc Kd Kh 9s 9c", "Ah Jh 9h 7h 6h"]
JOKERS = ["Ac Ad Ah As Jk", "2c 7d 7h Kc Ks", "As Ks Qs Js Jk 2c 3d"]


def tagged(game):
    return {"game": game}


@pytest.mark.parametrize("game", ["shortdeck", "shortdeck-triton"])
def test_short_deck_results_are_tagged(game):
    s = ge.evaluate(HANDS, game=game)
    assert s.dtype == np.uint16 and s.dtype.metadata == tagged(game)
    assert s.dtype == ST.strength_dtype(game) and ST.game_of(s) == game
    one = ge.evaluate(HANDS[0], game=game)
    assert one.shape == () and one.dtype.metadata == tagged(game) and int(one) == 1404
    masked = ge.evaluate(HANDS + ["2c 3d 4h 5s 6c"], game=game, invalid="mask")
    assert masked.dtype.metadata == tagged(game) and masked[-1] == 0
    empty = ge.evaluate(np.zeros((0, 5), np.uint8), game=game)
    assert empty.shape == (0,) and empty.dtype.metadata == tagged(game)


def test_wild_results_are_tagged_and_holdem_omaha_are_plain():
    w = ge.evaluate(JOKERS, wild="joker")
    assert w.dtype.metadata == tagged("wild") and ST.game_of(w) == "wild"
    assert ge.evaluate(JOKERS[0], wild="joker").dtype.metadata == tagged("wild")
    assert ge.evaluate(["As Ks Qs Js Ts 2c"], wild="2").dtype.metadata == tagged("wild")
    h = ge.evaluate(HANDS)
    assert h.dtype == np.uint16 and h.dtype.metadata is None and ST.game_of(h) == "holdem"
    assert type(ge.evaluate(HANDS[0])) is np.uint16  # one hold'em hand: a NumPy scalar, as before
    o = ge.evaluate_omaha(["AsKs2c3d", "7h8h9cTc"], "Qs Js Ts 6h 2d")
    assert o.dtype.metadata is None  # Omaha is on the hold'em scale
    assert ST.strength_dtype("omaha6") == np.uint16 and ST.strength_dtype("omaha6").metadata is None
    with pytest.raises(ValueError, match="no strength scale"):
        ST.strength_dtype("pineapple")


def test_readers_use_the_tag():
    s = ge.evaluate(HANDS, game="shortdeck-triton")
    assert ge.describe(s) == ge.describe(s, game="shortdeck-triton")
    assert ge.describe(s)[1] == "Straight, Nine high"
    np.testing.assert_array_equal(ge.category(s), [8, 4, 6, 5])
    np.testing.assert_array_equal(ge.to_value(s), ge.to_value(s, game="shortdeck-triton"))
    w = ge.evaluate(JOKERS, wild="joker")
    assert ge.describe(w)[0] == "Five of a Kind, Aces"
    assert int(ge.category(w)[0]) == 9
    # Untagged input is hold'em unless game= says otherwise.
    assert ge.describe(1404) == ge.describe(1404, game="holdem")
    assert ge.describe(1404) == "Pair, Twos, King Seven Three kickers"
    assert ge.describe(1404, game="shortdeck") == "Royal Flush"


@pytest.mark.parametrize("tag, wrong", [("shortdeck", "holdem"), ("shortdeck", "omaha"),
                                        ("shortdeck", "shortdeck-triton"), ("wild", "holdem"),
                                        ("shortdeck-triton", "wild")])
def test_explicit_game_contradicting_the_tag_raises(tag, wrong):
    s = (ge.evaluate(JOKERS, wild="joker") if tag == "wild"
         else ge.evaluate(HANDS, game=tag))
    for fn in (ge.describe, ge.category, ge.to_value):
        with pytest.raises(ValueError) as err:
            fn(s, game=wrong)
        msg = str(err.value)
        assert repr(tag) in msg and repr(wrong) in msg, msg


def test_cactus_kev_is_for_holdem_scale_only():
    with pytest.raises(ValueError, match="'shortdeck' strengths"):
        ge.to_cactus_kev(ge.evaluate(HANDS, game="shortdeck"))
    with pytest.raises(ValueError, match="'wild' strengths"):
        ge.to_cactus_kev(7400, game="wild")
    assert ge.to_cactus_kev(ge.evaluate_omaha("AsKs2c3d", "Qs Js Ts 6h 2d")).tolist() == 1
    assert ge.to_cactus_kev(7462, game="omaha5").tolist() == 1


@pytest.mark.parametrize("game, top", [("holdem", 7462), ("shortdeck", 1404),
                                       ("shortdeck-triton", 1404), ("wild", 7475)])
def test_from_value_round_trip_per_game(game, top):
    s = np.arange(1, top + 1).astype(np.uint16).view(ST.strength_dtype(game))
    values = ge.to_value(s)
    back = ge.from_value(values, game=game)
    np.testing.assert_array_equal(back, s)
    assert back.dtype == ST.strength_dtype(game) and back.dtype.metadata == s.dtype.metadata
    with pytest.raises(ValueError, match="not the value of any"):
        ge.from_value(values[:3] + 1 if game != "holdem" else np.array([12345]), game=game)


def test_compare_refuses_mixed_games():
    sd = ge.evaluate(HANDS, game="shortdeck")
    tr = ge.evaluate(HANDS, game="shortdeck-triton")
    he = ge.evaluate(HANDS)
    w = ge.evaluate(JOKERS + ["2c 3c 4c 5c 7d"], wild="joker")
    for a, b, names in ((sd, tr, ("'shortdeck'", "'shortdeck-triton'")),
                        (sd, he, ("'shortdeck'", "'holdem'")),
                        (w, he, ("'wild'", "'holdem'"))):
        with pytest.raises(ValueError, match="different games") as err:
            ge.compare([a, b])
        assert all(n in str(err.value) for n in names)
    r = ge.compare([sd, sd[::-1]])
    assert r.best.dtype.metadata == tagged("shortdeck")
    assert r.winners.tolist() == [[True, False], [False, True], [True, False], [False, True]]
    r = ge.compare(np.stack([tr, tr], axis=1).view(ST.strength_dtype("shortdeck-triton")))
    assert r.best.dtype.metadata == tagged("shortdeck-triton")
    # Python ints and int64 arrays make no claim; plain uint16 arrays are hold'em.
    assert ge.compare([[1, 2]]).best.tolist() == [2]
    assert ge.compare([sd, sd.astype(np.int64)]).share.shape == (4, 2)
    assert ge.compare([he, he]).best.dtype.metadata is None


def test_tag_survives_indexing_copying_and_pickling():
    s = ge.evaluate(HANDS * 3, game="shortdeck")
    keep = {
        "slice": s[1:5], "step": s[::2], "index array": s[[0, 2]], "boolean": s[s > 1000],
        "0-d": s[0:1].reshape(()), "copy": s.copy(), "np.copy": np.copy(s),
        "np.array": np.array(s), "asarray": np.asarray(s), "reshape": s.reshape(3, 4),
        "ravel": s.reshape(3, 4).ravel(), "transpose": s.reshape(3, 4).T, "sort": np.sort(s),
        "unique": np.unique(s), "take": np.take(s, [1, 2]), "newaxis": s[:, None],
        "pickle": pickle.loads(pickle.dumps(s)), "deepcopy": copy.deepcopy(s),
        "axis max": s.reshape(3, 4).max(axis=1),
    }
    for name, a in keep.items():
        assert a.dtype.metadata == tagged("shortdeck"), name
        assert ST.game_of(a) == "shortdeck", name
    # Documented losses: one element (a NumPy scalar), astype, concatenate, where.
    lost = {"element": s[0], "astype": s.astype(np.uint16), "concatenate": np.concatenate([s, s]),
            "where": np.where(s > 0, s, 0), "max": s.max()}
    for name, a in lost.items():
        assert a.dtype.metadata is None, name
    # ... after which the game must be named again:
    assert ge.describe(s[0], game="shortdeck") == "Royal Flush"
