"""The solver tables and the hand indexer read indices, rounds, backends and table files as the
rest of the API reads its input (issue 27): DLPack and 0-d indices taken, bools, floats and text
refused, a bad backend refused before any work, and a damaged or forged sidecar answered with
``ValueError`` naming what is wrong."""

from __future__ import annotations

import json

import numpy as np
import pytest
from array_objects import DLPackOnly

import gpu_eval as ge
from gpu_eval.solver_tables import files

IX25 = ge.HandIndexer((2, 5))
IX24 = ge.HandIndexer((2, 4))
RIVER_HANDS = ge.cards.parse(["AsAh AdAc Kd 7h 2s", "2c 7d 9h Js Qd Kc 3h"])
TURN_HANDS = ge.cards.parse(["AsAh Ad Kc 7h 2s"])


def test_river_strength_takes_dlpack_indices():
    idx = IX25.index(RIVER_HANDS)
    want = ge.river_strength(indices=idx)
    got = ge.river_strength(indices=DLPackOnly(idx))
    np.testing.assert_array_equal(got.wins, want.wins)
    np.testing.assert_array_equal(got.ties, want.ties)
    np.testing.assert_array_equal(got.indices, want.indices)


def test_strength_histograms_takes_dlpack_indices():
    idx = IX24.index(TURN_HANDS).astype(np.uint32)
    want = ge.strength_histograms("turn", indices=idx, bins=10)
    got = ge.strength_histograms("turn", indices=DLPackOnly(idx), bins=10)
    np.testing.assert_array_equal(got.counts, want.counts)
    np.testing.assert_array_equal(got.twice_sum, want.twice_sum)


def test_one_hand_index_is_one_row():
    one = IX25.index(RIVER_HANDS[0])  # 0-d: one hand
    assert one.shape == ()
    r = ge.river_strength(indices=one)
    assert (len(r), int(r.wins[0]), int(r.ties[0])) == (1, 990, 0)
    np.testing.assert_array_equal(r.indices, [int(one)])
    h = ge.strength_histograms("turn", indices=IX24.index(TURN_HANDS[0]), bins=10)
    assert h.counts.shape == (1, 10)


@pytest.mark.parametrize("bad,kind,match", [
    ([0.5], TypeError, r"^indices must be integer indices, got the float 0\.5 at index \(0,\)$"),
    ([True, 3], TypeError, r"got the bool True at index \(0,\)"),
    (np.array([1.0]), TypeError, r"got dtype float64"),
    ("12", TypeError, r"got the text '12'"),
    ([0, -1], ValueError, r"^indices, position 1: index -1 is out of range 0\.\.123,156,253 "
                          r"\(the \(2, 5\) layout has 123,156,254 indices\)$"),
    ([2**70], ValueError, rf"index {2**70} is out of range"),
    (np.array([2**64 - 1], dtype=np.uint64), ValueError, rf"index {2**64 - 1} is out of range"),
    (np.zeros((2, 2), dtype=np.int64), ValueError, r"^indices must have shape \(N,\) or \(\)"),
])
def test_river_strength_refuses_bad_indices(bad, kind, match):
    with pytest.raises(kind, match=match):
        ge.river_strength(indices=bad)


@pytest.mark.parametrize("call", [
    lambda: ge.river_strength(backend="x"),
    lambda: ge.river_strength(indices=[0], backend="x"),
    lambda: ge.strength_histograms("turn", indices=[0], backend="x"),
    lambda: ge.river_strength(indices=[0], backend=None),
])
def test_unknown_backend_is_refused_even_where_unused(call):
    with pytest.raises(ValueError, match=r"^backend=('x'|None): expected one of auto, numpy"):
        call()


@pytest.mark.parametrize("rounds,kind,match", [
    ((2.5,), TypeError, r"^rounds\[0\] must be a whole number, got the float 2\.5$"),
    ((2, 5.0), TypeError, r"^rounds\[1\] must be a whole number, got the float 5\.0$"),
    ("25", TypeError, r"^rounds must be a sequence of card counts such as \(2, 5\), got the "
                      r"text '25'$"),
    ((True, 5), TypeError, r"^rounds\[0\] must be a whole number, got the bool True$"),
    (5, TypeError, r"^rounds must be a sequence of card counts"),
    ((2, "3"), TypeError, r"rounds\[1\] must be a whole number, got the text '3'"),
])
def test_hand_indexer_rounds_are_whole_numbers(rounds, kind, match):
    with pytest.raises(kind, match=match):
        ge.HandIndexer(rounds)


def test_hand_indexer_rounds_take_numpy_ints():
    assert ge.HandIndexer(np.array([2, 5], dtype=np.uint8)).rounds == (2, 5)
    assert ge.HandIndexer([np.int64(2)]).rounds == (2,)


@pytest.mark.parametrize("bad,kind,match", [
    ([[51, 47, 43, 39, True]], TypeError, r"got the bool True at index \(0, 4\)"),
    ([[51, 47, 43, 39, 35.0]], TypeError, r"got the float 35\.0 at index \(0, 4\)"),
    ([[51, 47, 43, 39, 2**70]], ValueError, rf"row 0: card id {2**70} is out of range"),
    (np.array([[51, 47, 43, 39, 304]], dtype=np.uint16), ValueError,
     r"row 0: card id 304 is out of range"),
    (DLPackOnly(np.array([[51, 47, 43, 39, 304]], dtype=np.int16)), ValueError,
     r"row 0: card id 304 is out of range"),
    (np.zeros((1, 1, 5), dtype=np.uint8), ValueError, r"each row must hold 5 cards"),
])
def test_hand_indexer_index_reads_cards_like_everyone(bad, kind, match):
    with pytest.raises(kind, match=match):
        ge.HandIndexer((2, 3)).index(bad)


@pytest.mark.parametrize("bad,kind,match", [
    ([True], TypeError, r"got the bool True"),
    ([2**70], ValueError, rf"^unindex: indices, position 0: index {2**70} is out of range "
                          r"0\.\.1,286,791 of round 1$"),
    (np.array([1_286_792], dtype=np.uint32), ValueError, r"index 1286792 is out of range"),
])
def test_unindex_reads_indices_like_everyone(bad, kind, match):
    with pytest.raises(kind, match=match):
        ge.HandIndexer((2, 3)).unindex(1, bad)


def test_unindex_takes_0d_and_dlpack():
    ix = ge.HandIndexer((2, 3))
    want = ix.unindex(1, [944059])
    np.testing.assert_array_equal(ix.unindex(1, np.int64(944059)), want[0])
    np.testing.assert_array_equal(ix.unindex(1, DLPackOnly(np.array([944059]))), want)


# -- table files -------------------------------------------------------------------------------

@pytest.fixture
def river_file(tmp_path):
    side = ge.save_table(ge.river_strength(indices=np.arange(20)), tmp_path / "r")
    return side, json.loads(side.read_text())


@pytest.fixture
def turn_file(tmp_path):
    side = ge.save_table(ge.strength_histograms("turn", indices=[0, 5], bins=4), tmp_path / "t")
    return side, json.loads(side.read_text())


def _forge(side, doc, change):
    change(doc)
    side.write_text(json.dumps(doc))
    return side


def _set(key, value):
    return lambda d: d.__setitem__(key, value)


def _del(*path):
    def change(d):
        for k in path[:-1]:
            d = d[k]
        del d[path[-1]]
    return change


@pytest.mark.parametrize("change,match", [
    (_del("arrays"), r"'arrays'"),
    (_set("arrays", []), r"arrays"),
    (lambda d: d["arrays"].__setitem__("wins", "x"), r"array 'wins' needs 'file'"),
    (_set("arrays", {"wins": {}}), r"arrays \['wins'\], but a river table has"),
    (_del("arrays", "wins", "sha256"), r"array 'wins'.*'sha256'"),
    (_del("arrays", "ties"), r"arrays .*ties"),
    (_set("layout", "x"), r"layout"),
    (_del("layout"), r"layout"),
    (_del("rows"), r"rows"),
    (_del("opponents"), r"opponents"),
    (_del("game"), r"game"),
    (_set("opponents", 991), r"opponents 991.*'holdem' river table has 990"),
    (_set("opponents", 0), r"opponents 0.*990"),
    (_set("opponents", "990"), r"opponents '990'"),
    (_set("opponents", True), r"opponents True"),
    (_set("game", "omaha"), r"game 'omaha'"),
    (_set("game", "pineapple"), r"game 'pineapple'"),
    (_set("game", ["holdem"]), r"game \['holdem'\]"),
    (_set("kind", "strength_histograms"), r"kind"),
    (_set("rows", 21), r"rows \(21\) need"),
    (_set("street", 5), r"unknown street or layout 5"),
])
def test_load_table_refuses_a_damaged_or_forged_river_sidecar(river_file, change, match):
    side, doc = river_file
    with pytest.raises(ValueError, match=match):
        ge.load_table(_forge(side, doc, change))


@pytest.mark.parametrize("change,match", [
    (_set("runouts", 47), r"runouts 47.*46"),
    (_set("bins", 5), r"shape \[2, 4\], but the sidecar's rows \(2\) and bins \(5\) need"),
    (_set("bins", 0), r"bins"),
    (_set("game", "stud"), r"game 'stud'"),
    (_set("opponents", 406), r"opponents 406.*990"),
])
def test_load_table_refuses_a_forged_histogram_sidecar(turn_file, change, match):
    side, doc = turn_file
    with pytest.raises(ValueError, match=match):
        ge.load_table(_forge(side, doc, change))


def test_load_table_refuses_counts_beyond_the_opponents(tmp_path):
    r = ge.river_strength(indices=np.arange(5))
    forged = type(r)(r.wins + np.uint16(991), r.ties, r.game, r.opponents, r.indices)
    side = ge.save_table(forged, tmp_path / "f")  # arrays and checksums all consistent
    with pytest.raises(ValueError, match=r"row 0: 1,9\d\d wins and ties out of 990"):
        ge.load_table(side)
    assert len(ge.load_table(side, verify=False)) == 5  # verify=False reads no array
    r2 = type(r)(r.wins, r.ties, r.game, r.opponents, np.array([0, 1, 2, 3, 123_156_254]))
    side = ge.save_table(r2, tmp_path / "g")
    with pytest.raises(ValueError, match=r"indices.*123156254 is out of range"):
        ge.load_table(side)


def test_load_table_refuses_histogram_rows_that_do_not_sum_to_the_runouts(tmp_path):
    h = ge.strength_histograms("turn", indices=[0, 5], bins=4)
    counts = h.counts.copy()
    counts[1, 0] += 1
    forged = type(h)(h.street, counts, h.twice_sum, h.twice_sumsq, h.runouts, h.opponents,
                     h.game, h.bins, h.indices)
    side = ge.save_table(forged, tmp_path / "f")
    with pytest.raises(ValueError, match=r"row 1: its counts add up to 47, not the 46 runouts"):
        ge.load_table(side)


def test_a_good_table_still_loads(river_file, turn_file):
    assert len(ge.load_table(river_file[0])) == 20
    assert ge.load_table(turn_file[0]).bins == 4
    assert files.VERSION == 1
