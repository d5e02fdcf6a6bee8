"""Tests for gpu_eval.ranges: range syntax, weights, top X%, card removal and bad input."""

import doctest
import math
import re

import numpy as np
import pytest

from gpu_eval import cards, ranges
from gpu_eval.ranges import Range, chen_score, preflop_order


def classes_of(spec):
    return set(Range(spec).classes())


# --- combo counts for every syntax -----------------------------------------------------------

@pytest.mark.parametrize("spec, n", [
    ("QQ", 6), ("QQ+", 18), ("22+", 78), ("88-JJ", 24), ("JJ-88", 24),
    ("AKs", 4), ("AKo", 12), ("AK", 16),
    ("A2s+", 48), ("KTs+", 12), ("ATo+", 48), ("AK+", 16), ("AKs+", 4),
    ("A5s-A2s", 16), ("A2s-A5s", 16), ("A5o-A2o", 48), ("A5-A2", 64),
    ("JTs-76s", 20), ("76s-JTs", 20), ("JTo-76o", 60), ("JT-76", 80), ("T8s-64s", 20),
    ("AhKh", 1), ("2c7d", 1), ("10h10s", 1),
    ("22", 6), ("99", 6), ("55:0.5", 6), ("0.5(22, 99)", 12), ("66 77", 12),
    ("random", 1326), ("any", 1326), ("100%", 1326), ("RANDOM", 1326),
    ("", 0), (" ,; ", 0),
])
def test_combo_counts(spec, n):
    assert len(Range(spec)) == n


def test_every_class_parses_to_its_combo_count():
    for name in preflop_order():
        n = 6 if len(name) == 2 else 4 if name.endswith("s") else 12
        assert len(Range(name)) == n, name
        assert set(Range(name).classes()) == {name}


def test_classes_named_by_each_syntax():
    assert classes_of("A2s+") == {f"A{k}s" for k in "23456789TJQK"}
    assert classes_of("KTs+") == {"KTs", "KJs", "KQs"}
    assert classes_of("A5s-A2s") == {"A5s", "A4s", "A3s", "A2s"}
    assert classes_of("JTs-76s") == {"JTs", "T9s", "98s", "87s", "76s"}
    assert classes_of("88-JJ") == {"88", "99", "TT", "JJ"}
    assert classes_of("QQ+") == {"QQ", "KK", "AA"}
    assert classes_of("ATo+") == {"ATo", "AJo", "AQo", "AKo"}


def test_suited_and_offsuit_combos_really_are():
    suits = Range("AKs").combos % 4
    assert (suits[:, 0] == suits[:, 1]).all()
    suits = Range("AKo").combos % 4
    assert (suits[:, 0] != suits[:, 1]).all()
    assert (Range("QQ").combos // 4 == 10).all()


def test_exact_combo_is_that_combo():
    r = Range("2c7d")
    assert r.combos.tolist() == [[cards.parse_card("7d"), cards.parse_card("2c")]]
    assert Range("2c7d") == Range("7d2c") == Range("7D2C")


def test_random_is_every_combo_once():
    c = Range("random").combos.astype(int)
    assert len({(a, b) for a, b in c}) == 1326
    assert (c[:, 0] > c[:, 1]).all() and c.max() == 51 and c.min() == 0


# --- weights ---------------------------------------------------------------------------------

def test_group_weight():
    r = Range("0.6(AA)")
    assert len(r) == 6
    assert r.weights.tolist() == pytest.approx([0.6] * 6)
    assert r.total_weight() == pytest.approx(3.6)


def test_percent_group_weight_applies_to_every_token_inside():
    r = Range("40%(ATs+, KQo)")
    assert r.classes() == {
        "AKs": (4, pytest.approx(1.6)), "AQs": (4, pytest.approx(1.6)),
        "AJs": (4, pytest.approx(1.6)), "ATs": (4, pytest.approx(1.6)),
        "KQo": (12, pytest.approx(4.8)),
    }
    assert np.allclose(r.weights, 0.4)


@pytest.mark.parametrize("spec, w", [
    ("AA:0.5", 0.5), ("AKs:40%", 0.4), ("AA : .25", 0.25), ("0.5 (AA)", 0.5),
    ("100%(AA)", 1.0), ("AA:1", 1.0), ("top 5%:0.5", 0.5), ("0.3(top 5%)", 0.3),
])
def test_weight_forms(spec, w):
    r = Range(spec)
    assert len(r) > 0
    assert np.allclose(r.weights, w)


def test_mixed_weights_and_total():
    r = Range("QQ+, 0.5(AKs), AKo:0.25")
    assert len(r) == 18 + 4 + 12
    assert r.total_weight() == pytest.approx(18 + 2 + 3)
    assert r.weights.dtype == np.float64
    assert ((r.weights > 0) & (r.weights <= 1)).all()


def test_later_mention_replaces_earlier_weight():
    r = Range("AA, 0.5(AsAh)")
    assert r.weights.tolist() == [0.5, 1, 1, 1, 1, 1]
    assert np.allclose(Range("AA:0.5, AA").weights, 1.0)
    assert np.allclose(Range("AA, AA:0.5").weights, 0.5)
    assert Range(["QQ+", "0.2(KK)"]).classes()["KK"] == (6, pytest.approx(1.2))


# --- separators, case, aliases ---------------------------------------------------------------

@pytest.mark.parametrize("spec", [
    "QQ+ AKs; AQs", "QQ+,AKs,AQs", "QQ+;AKs;AQs", "  QQ+ ,\tAKs ;\n AQs ,", "qq+ aks AQS",
    "QQ, KK, AA, AKs, AQs", "QQ-AA, AQs-AKs", "AQs+, QQ+",
])
def test_separators_and_case(spec):
    assert Range(spec) == Range("QQ+, AKs, AQs")
    assert len(Range(spec)) == 26


@pytest.mark.parametrize("spec, same_as", [
    ("akS", "AKs"), ("aks", "AKs"), ("AKS", "AKs"), ("ako", "AKo"), ("A10s", "ATs"),
    ("1010+", "TT+"), ("k10o", "KTo"), ("AhKh", "ahkh"), ("A♥K♥", "AhKh"),
    ("tOp 10%", "top10%"),
])
def test_case_and_aliases(spec, same_as):
    assert Range(spec) == Range(same_as)


def test_list_spec_is_union():
    r = Range(["AhKh", "QQ+"])
    assert len(r) == 19
    assert "AhKh" in r and "QsQd" in r


# --- top X% and the preflop order ------------------------------------------------------------

@pytest.mark.parametrize("hand, score", [
    ("AA", 20),    # 10 doubled
    ("KK", 16),    # 8 doubled
    ("22", 5),     # 1 doubled = 2, pairs score at least 5
    ("55", 5),     # 2.5 doubled
    ("AKs", 12),   # 10 + 2 suited
    ("AKo", 10),
    ("QJs", 9),    # 7 + 2, no bonus: the queen is not below a queen
    ("JTo", 7),    # 6 + 1 (both below Q, gap 0)
    ("T9s", 8),    # 5 + 2 + 1
    ("J9o", 6),    # 6 - 1 (gap 1) + 1
    ("54s", 6),    # 2.5 + 2 + 1 = 5.5, rounds up
    ("A2o", 5),    # 10 - 5 (gap 4+)
    ("K9s", 6),    # 8 + 2 - 4 (Q, J, T between: gap 3)
    ("72o", -1),   # 3.5 - 5 = -1.5, half rounds up
])
def test_chen_score_by_hand(hand, score):
    assert chen_score(hand) == score


def test_chen_score_unrounded_and_bad_input():
    assert chen_score("72o", rounded=False) == -1.5
    assert chen_score("54s", rounded=False) == 5.5
    assert chen_score("a10S") == chen_score("ATs")
    for bad in ["AK", "AAs", "KAs", "AKx", "A"]:
        with pytest.raises(ValueError):
            chen_score(bad)
    with pytest.raises(TypeError):
        chen_score(12)


def test_preflop_order_is_every_class_once_best_first():
    order = preflop_order()
    assert len(order) == 169 and len(set(order)) == 169
    assert order[:4] == ["AA", "KK", "QQ", "JJ"]
    # JJ and AKs both score 12: the pair comes first, then suited before offsuit.
    assert order.index("JJ") < order.index("AKs") < order.index("TT")
    scores = [chen_score(c) for c in order]
    assert scores == sorted(scores, reverse=True)
    assert order[-1] == "62o" and chen_score("62o") == -1
    # Every class adds up to the full deck of combos.
    assert sum(Range(c).__len__() for c in order) == 1326
    order.append("XX")  # the caller gets a copy
    assert len(preflop_order()) == 169


def test_top_percent_first_classes_and_whole_classes():
    assert classes_of("top 1%") == {"AA", "KK", "QQ"}  # target 13 combos: the QQ class crosses it
    assert len(Range("top 100%")) == 1326
    assert len(Range("top 0.01%")) == 6  # a positive percentage always selects a class


def test_top_percent_is_monotone_and_meets_its_target():
    order = preflop_order()
    prev = set()
    for pct in [0.5, 1, 2, 3, 5, 7.5, 10, 15, 20, 25, 33.3, 50, 66, 75, 90, 99, 100]:
        r = Range(f"top {pct}%")
        now = set(r.classes())
        assert prev <= now
        target = math.floor(pct / 100 * 1326 + 0.5)
        assert len(r) >= target
        # Removing the last class taken falls below the target: only the crossing class is whole.
        last = max(order.index(c) for c in now)
        assert len(r) - len(Range(order[last])) < target
        assert now == set(order[:last + 1])
        prev = now


# --- card removal ----------------------------------------------------------------------------

@pytest.mark.parametrize("spec, dead, n", [
    ("AA", "As", 3), ("AK", "AsKd", 9), ("AK", "As Kd", 9), ("AK", "As,Kd", 9),
    ("AA", [51], 3), ("AA", np.array([[51, 50]]), 1), ("AA", 51, 3),
    ("AA", cards.to_mask("As"), 3), ("AA", cards.to_mask(["As", "Ah"]), 1),
    ("AA", ["As", "Ah"], 1), ("AA", "", 6), ("AA", [], 6), ("random", "AhKd2c", 1176),
    ("AA", "2c", 6),
])
def test_without_counts(spec, dead, n):
    assert len(Range(spec).without(dead)) == n


def test_without_removes_exactly_the_touching_combos():
    r = Range("random")
    dead = cards.to_mask("AhKd2c")
    left = r.without("AhKd2c")
    assert ((left.masks & dead) == 0).all()
    gone = r.masks[(r.masks & dead) != 0]
    assert len(gone) + len(left) == 1326


def test_without_leaves_original_unchanged_and_keeps_weights():
    r = Range("0.5(AA), KK")
    before = (r.combos.copy(), r.weights.copy())
    dead = np.array([51, 50], dtype=np.uint8)
    s = r.without(dead)
    assert len(r) == 12 and len(s) == 7
    assert np.array_equal(r.combos, before[0]) and np.array_equal(r.weights, before[1])
    assert dead.tolist() == [51, 50]
    assert s.classes() == {"AA": (1, 0.5), "KK": (6, 6.0)}
    assert s.spec == r.spec == "0.5(AA), KK"


def test_without_empty_raises_naming_range_and_cards():
    with pytest.raises(ValueError, match=r"range 'AA' is empty after removing .*As") as e:
        Range("AA").without("AsAhAd")
    assert all(c in str(e.value) for c in ("As", "Ah", "Ad"))
    r = Range("AA").without("AsAhAd", allow_empty=True)
    assert len(r) == 0 and r.total_weight() == 0
    assert r.combos.shape == (0, 2) and r.weights.shape == (0,) and r.masks.shape == (0,)
    with pytest.raises(ValueError, match="'AA' without As is empty"):
        Range("AA").without("As").without("AhAd")


@pytest.mark.parametrize("dead, exc", [
    (60, ValueError), (-1, ValueError), ("Zz", ValueError), (None, TypeError),
    (1.5, TypeError), (True, TypeError), (np.array([1 << 14], dtype=np.uint64), ValueError),
])
def test_without_bad_dead_cards(dead, exc):
    with pytest.raises(exc):
        Range("AA").without(dead)


# --- data layout -----------------------------------------------------------------------------

def test_arrays_layout_and_read_only():
    r = Range("QQ+, AKs, 0.3(72o), 2c3d")
    c = r.combos
    assert c.dtype == np.uint8 and c.shape == (len(r), 2)
    assert (c[:, 0] > c[:, 1]).all()
    key = c[:, 0].astype(int) * 52 + c[:, 1]
    assert (np.diff(key) < 0).all()  # rows strictly descending by (high id, low id)
    assert r.masks.dtype == np.uint64
    assert np.array_equal(r.masks, cards.to_mask(c))
    for a in (r.combos, r.weights, r.masks):
        with pytest.raises(ValueError):
            a[0] = 0
    assert r.hands()[0] == "AsAh"


def test_classes_counts_and_weights():
    cl = Range("AK, 0.5(QQ), T9s:0.1").classes()
    assert cl == {"AKs": (4, 4.0), "AKo": (12, 12.0), "QQ": (6, 3.0),
                  "T9s": (4, pytest.approx(0.4))}


def test_contains_eq_hash_repr():
    r = Range("AKs, QQ")
    assert "AhKh" in r and "Kh Ah" in r and "ahkh" in r and [50, 46] in r
    assert "AhKd" not in r and "QsQh" in r and "JsJh" not in r
    with pytest.raises(ValueError, match="AK"):
        "AK" in r  # noqa: B015 -- the membership test itself must raise
    assert Range("AKs") == Range("AsKs, AhKh, AdKd, AcKc")
    assert Range("AA") != Range("AA:0.5")
    assert Range("AA") != "AA"
    assert Range(Range("AA")) == Range("AA")
    assert hash(Range("QQ+")) == hash(Range("AA, KK, QQ"))
    assert repr(Range("QQ+, 0.5(AKs)")) == "Range('QQ+, 0.5(AKs)', 22 combos, weight 20)"
    assert repr(Range("AA").without("As")) == "Range('AA' without As, 3 combos)"
    assert "1 combo)" in repr(Range("AhKh"))


def test_pickle_and_copy_round_trip():
    import copy
    import pickle
    r = Range("QQ+, 0.5(AKs)").without("As")
    for s in (pickle.loads(pickle.dumps(r)), copy.deepcopy(r), copy.copy(r)):
        assert s == r and repr(s) == repr(r)
        with pytest.raises(ValueError):
            s.weights[0] = 1


# --- from_combos -----------------------------------------------------------------------------

def test_from_combos_round_trip_and_no_mutation():
    r = Range("QQ+, 0.5(AKs)")
    ids = r.combos[::-1, ::-1].copy()  # any order, either card first
    w = r.weights[::-1].copy()
    ids0, w0 = ids.copy(), w.copy()
    s = Range.from_combos(ids, w)
    assert s == r and s.spec is None
    assert np.array_equal(ids, ids0) and np.array_equal(w, w0)
    assert len(Range.from_combos([[0, 1]])) == 1
    assert len(Range.from_combos(np.zeros((0, 2), dtype=np.uint8))) == 0
    assert len(Range.from_combos([[0, 1], [2, 3]], [0.0, 1.0])) == 1  # weight 0 = absent


@pytest.mark.parametrize("ids, weights, exc, text", [
    ([[0, 1, 2]], None, ValueError, r"shape \(M, 2\)"),
    ([0, 1], None, ValueError, r"shape \(M, 2\)"),
    ([[0, 52]], None, ValueError, "row 0"),
    ([[0, 1], [-1, 3]], None, ValueError, "row 1"),
    ([[0, 1], [5, 5]], None, ValueError, "row 1 uses card 3d twice"),
    ([[0, 1], [2, 3], [1, 0]], None, ValueError, "appears twice"),
    ([[0.0, 1.0]], None, TypeError, r"combos must be integer card ids, got the float 0\.0"),
    ([[0, 1]], [1.5], ValueError, "row 0"),
    ([[0, 1]], [float("nan")], ValueError, "row 0"),
    ([[0, 1]], [-0.1], ValueError, "row 0"),
    ([[0, 1]], [1.0, 1.0], ValueError, "shape"),
])
def test_from_combos_validation(ids, weights, exc, text):
    with pytest.raises(exc, match=text):
        Range.from_combos(ids, weights)


# --- errors ----------------------------------------------------------------------------------

@pytest.mark.parametrize("spec, token, pos", [
    ("QQ+, AKx", "AKx", 5),
    ("AKs-QJo", "AKs-QJo", 0),
    ("QQ, AA-KQs", "AA-KQs", 4),
    ("AAs", "AAs", 0),
    ("KK AAo", "AAo", 3),
    ("AhAh", "AhAh", 0),
    ("AKs, AhAh", "AhAh", 5),
    ("KAs+", "KAs+", 0),
    ("A2s-KQs", "A2s-KQs", 0),
    ("AA-KK+", "AA-KK+", 0),
    ("15%", "15%", 0),
    ("QQ+ 0.5", "0.5", 4),
    ("AA:0", "AA:0", 0),
    ("AA:1.5", "AA:1.5", 0),
    ("KK, AA:-0.5", "AA:-0.5", 4),
    ("AA:", "AA:", 0),
    ("AA:x", "AA:x", 0),
    ("0(AA)", "0", 0),
    ("1.5(AA)", "1.5", 0),
    ("KK -0.5(AA)", "-0.5", 3),
    ("120%(AA)", "120%", 0),
    ("QQ, (AA)", "(", 4),
    ("0.5(AA", "0.5(", 0),
    ("AA)", ")", 2),
    ("0.5(KK, AA:0.3)", "AA:0.3", 8),
    ("0.5(0.3(AA))", "0.3", 4),
    (":0.5", ":0.5", 0),
    ("top 15", "top 15", 0),
    ("top 0%", "top 0%", 0),
    ("top 150%", "top 150%", 0),
    ("top", "top", 0),
    ("Ah", "Ah", 0),
    ("AKQ", "AKQ", 0),
    ("hello", "hello", 0),
    ("X1s", "X1s", 0),
])
def test_errors_name_token_and_position(spec, token, pos):
    with pytest.raises(ValueError) as e:
        Range(spec)
    msg = str(e.value)
    assert f"bad range token {token!r} at position {pos} in {spec!r}" in msg
    assert spec[pos:pos + len(token)] == token  # the position really points at the token


def test_error_messages_explain():
    def msg(spec):
        with pytest.raises(ValueError) as e:
            Range(spec)
        return str(e.value)
    assert "top 15%" in msg("15%")
    assert "'AA'" in msg("AAs")
    assert "'AKs+'" in msg("KAs+")
    assert "same suffix" in msg("AKs-QJo")
    assert "pair and a non-pair" in msg("AA-KQs")
    assert "twice" in msg("AhAh")
    assert "out of range" in msg("AA:1.5")
    assert "list item 1" in str(pytest.raises(ValueError, Range, ["AA", "AKx"]).value)


@pytest.mark.parametrize("spec", [12, 0.5, None, b"AA", {"AA"}, np.array([[51, 50]]),
                                  ["AA", 3]])
def test_type_errors(spec):
    with pytest.raises(TypeError):
        Range(spec)


# --- docstrings ------------------------------------------------------------------------------

def test_docstring_examples():
    result = doctest.testmod(ranges, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 20 and result.failed == 0


def test_public_api_documented():
    for name in ranges.__all__:
        obj = getattr(ranges, name)
        assert "Examples" in obj.__doc__, name
    for name in ["from_combos", "combos", "weights", "masks", "spec", "total_weight", "hands",
                 "classes", "without", "__contains__", "__eq__", "__len__", "__repr__"]:
        doc = getattr(Range, name).__doc__
        assert doc and re.search(r">>> ", doc), name
