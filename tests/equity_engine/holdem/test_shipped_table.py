"""The shipped exact heads-up preflop table (gpu_eval.equity_engine.holdem.shipped_table) and the paths
that read it."""

import hashlib

import numpy as np
import pytest

from gpu_eval import cards
from gpu_eval.equity_engine import enumerate_boards
from gpu_eval.equity_engine.api import equity, equity_matrix, preflop_table
from gpu_eval.equity_engine.holdem import numpy_engine, shipped_table

BOARDS = 1_712_304


def _row(hand: str) -> int:
    a, b = (int(c) for c in cards.parse(hand).reshape(-1))
    return int(shipped_table.combo_index(np.array([a]), np.array([b]))[0])


def test_shipped_file_checksum():
    data = shipped_table.PATH.read_bytes()
    assert hashlib.sha256(data).hexdigest() == shipped_table.SHA256
    keys, counts = shipped_table.load()
    assert keys.shape == (47_008,) and counts.shape == (47_008, 3)
    assert not keys.flags.writeable and not counts.flags.writeable


def test_damaged_file_is_refused(tmp_path):
    data = bytearray(shipped_table.PATH.read_bytes())
    data[100] ^= 1
    bad = tmp_path / "preflop_headsup.bin"
    bad.write_bytes(bytes(data))
    with pytest.raises(RuntimeError, match="damaged"):
        shipped_table.load.__wrapped__(bad)
    with pytest.raises(RuntimeError, match="cannot be read"):
        shipped_table.load.__wrapped__(tmp_path / "missing.bin")


def test_keys_are_the_classes_of_all_pairs():
    keys, _ = shipped_table.load()
    np.testing.assert_array_equal(keys, shipped_table.all_classes())


def test_random_classes_regenerated_integer_for_integer():
    keys, counts = shipped_table.load()
    pick = np.random.default_rng(14).choice(len(keys), 1000, replace=False)
    fresh = shipped_table.generate(keys[pick])
    np.testing.assert_array_equal(fresh, counts[pick])


def test_counts_sum_to_boards_and_symmetric_classes_split_evenly():
    keys, counts = shipped_table.load()
    assert (counts.sum(axis=1) == BOARDS).all()
    assert (counts >= 0).all()
    # A class whose pair is its own swap under some suit permutation (AsKs vs AhKh) wins
    # equally on both sides.
    ra, rb = np.divmod(keys.astype(np.int64), 1326)
    perm = shipped_table._perm_rows()
    sym = np.zeros(len(keys), dtype=bool)
    for p in perm:
        sym |= (p[ra] == rb) & (p[rb] == ra)
    assert sym.sum() > 0
    np.testing.assert_array_equal(counts[sym, 0], counts[sym, 1])


def test_pairs_equal_board_enumeration():
    """A few pairs against playing every board (the board engine, not the rank classes)."""
    for a, b in (("AhKh", "QsQd"), ("7c2d", "7h2s"), ("As5s", "Td9d")):
        pool = cards.to_mask([a, b])
        deck = enumerate_boards.FULL_DECK & ~int(pool[0] | pool[1])
        c = numpy_engine.showdown_counts(pool, np.array([[0, 1]]),
                                          enumerate_boards.completions(deck, 5))
        wins, ties = shipped_table.lookup(np.array([_row(a)]), np.array([_row(b)]))
        np.testing.assert_array_equal(wins[0], c.wins[0])
        assert ties[0] == c.ties[0, 0]
        wins, ties = shipped_table.lookup(np.array([_row(b)]), np.array([_row(a)]))
        np.testing.assert_array_equal(wins[0], c.wins[0, ::-1])


@pytest.mark.parametrize("hand", ["Js7h", "4d4c"])
def test_combo_against_a_random_hand(monkeypatch, hand):
    """From the table, against every one of the 1,225 hands left; by the rank-class engine
    on each actual matchup (not its class representative)."""
    table = equity([hand, "random"])
    assert table.method == "exact (table): 1,225 matchups x 1,712,304 boards"
    monkeypatch.setattr(shipped_table, "USE_TABLE", False)
    monkeypatch.setattr(numpy_engine, "PREFLOP_CLASS_WORK", 0)  # one matchup at a time
    direct = equity([hand, "random"], exact=True, progress=False)
    assert direct.method == "exact: 1,225 matchups x 1,712,304 boards"
    np.testing.assert_array_equal(table.wins, direct.wins)
    np.testing.assert_array_equal(table.ties, direct.ties)
    np.testing.assert_allclose(table.equity, direct.equity, rtol=0, atol=1e-12)


def test_published_equities_against_a_random_hand():
    # PokerStove / Equilab: AA 85.20%, KK 82.40%, AKs 67.04%, 72o 34.58% against any hand.
    for hand, pct in (("AA", 85.20), ("KK", 82.40), ("AKs", 67.04), ("72o", 34.58)):
        got = float(equity([hand, "random"]).equity[0]) * 100
        assert abs(got - pct) < 0.006, (hand, got)


def _random_range(rng, size):
    """Text of a range of ``size`` random combos with random weights."""
    combos = shipped_table._combo_cards()[rng.choice(1326, size, replace=False)]
    text = ["".join(cards.RANKS[c // 4] + cards.SUITS[c % 4] for c in pair) for pair in combos]
    return ", ".join(f"{w:.3f}({h})" for w, h in zip(rng.uniform(0.1, 1, size), text))


def test_table_path_equals_engines_for_weighted_ranges(monkeypatch):
    rng = np.random.default_rng(5)
    cases = [(_random_range(rng, 5), _random_range(rng, 4)) for _ in range(3)]
    cases.append(("AhKh", _random_range(rng, 6)))
    got = [equity(list(c)) for c in cases]
    monkeypatch.setattr(shipped_table, "USE_TABLE", False)
    monkeypatch.setattr(numpy_engine, "PREFLOP_CLASS_WORK", 0)
    for c, t in zip(cases, got):
        assert t.method.startswith("exact (table): ")
        ref = equity(list(c), exact=True, progress=False)
        assert t.method == ref.method.replace("exact:", "exact (table):")
        np.testing.assert_array_equal(t.wins, ref.wins)
        np.testing.assert_array_equal(t.ties, ref.ties)
        np.testing.assert_allclose(t.equity, ref.equity, rtol=0, atol=1e-12)
        np.testing.assert_allclose(t.win, ref.win, rtol=0, atol=1e-12)


def test_matrix_and_preflop_table_from_table_equal_engines(monkeypatch):
    m = equity_matrix("0.5(AKs), QQ", "AA, 0.3(JTs)")
    cell = preflop_table(cells=[("AKs", "QQ"), ("72o", "T9s")])
    assert m.method == "exact (table): 88 pairs x 1,712,304 boards"
    assert cell.method == "exact (table): 2,598,960 boards"
    monkeypatch.setattr(shipped_table, "USE_TABLE", False)
    ref = equity_matrix("0.5(AKs), QQ", "AA, 0.3(JTs)", exact=True, progress=False)
    np.testing.assert_allclose(m.matrix, ref.matrix, rtol=0, atol=1e-12, equal_nan=True)
    np.testing.assert_allclose(m.equity_a, ref.equity_a, rtol=0, atol=1e-12)
    assert abs(m.equity - ref.equity) < 1e-12
    ref_cell = preflop_table(cells=[("AKs", "QQ"), ("72o", "T9s")], exact=True,
                             progress=False)
    np.testing.assert_allclose(cell.table, ref_cell.table, rtol=0, atol=1e-12, equal_nan=True)


def test_monte_carlo_and_other_spots_keep_their_engines():
    assert equity(["AhKh", "QsQd"], exact=False, samples=1000, seed=1).method.startswith(
        "monte carlo")
    assert equity(["AhKh", "QsQd"], dead="2c").method == "exact: 1,533,939 boards"
    assert equity(["AhKh", "QsQd", "JJ"]).method.startswith("exact: ")
    assert equity(["AhKh", "QsQd"], board="2c7d9h").method == "exact: 990 boards"


def test_bad_input_on_the_table_path():
    with pytest.raises(ValueError, match="backend='tpu'"):
        equity(["AhKh", "QsQd"], backend="tpu")
    with pytest.raises(TypeError, match="progress must be"):
        equity(["AhKh", "QsQd"], progress="yes")
    with pytest.raises(ValueError, match="no matchup"):
        equity(["AhKh, AhQh", "AhKh, AhQh"])
    with pytest.raises(ValueError, match="exactly two cards"):
        shipped_table.counts_of_masks(cards.to_mask(["AhKhQh", "2c2d"]), np.array([[0, 1]]))
