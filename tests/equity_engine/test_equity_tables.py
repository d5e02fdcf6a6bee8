"""Tests for gpu_eval.equity.equity_matrix and preflop_table."""

import json

import numpy as np
import pytest

from gpu_eval.equity_engine.api import equity, equity_matrix, preflop_table
from gpu_eval.equity_engine.results import MatrixResult, PreflopTable
from gpu_eval.ranges import Range, preflop_order

import equity_reference as ref

# --- equity_matrix ---------------------------------------------------------------------------


def test_matrix_cells_are_pair_equities():
    board = "Kd 7c 2h"
    m = equity_matrix("AA", "KK, AKs", board=board)
    assert isinstance(m, MatrixResult) and m.exact
    assert m.matrix.shape == (6, 6) and m.boards == 990  # C(52 - 3 - 4, 2)
    assert m.combos_a == tuple(Range("AA").hands())
    assert m.combos_b == tuple(Range("KK, AKs").without("Kd").hands())
    for i, a in enumerate(m.combos_a):
        for j, b in enumerate(m.combos_b):
            if set(ref.ids(a)) & set(ref.ids(b)):
                assert np.isnan(m.matrix[i, j])
                assert np.isnan(m.win[i, j]) and np.isnan(m.tie[i, j])
            else:
                wins, ties, shares, nb = ref.showdowns([ref.ids(a), ref.ids(b)], ref.ids(board))
                assert m.matrix[i, j] == pytest.approx(float(shares[0] / nb), abs=1e-14)
                assert m.win[i, j] == wins[0] / nb and m.tie[i, j] == ties[0] / nb
    assert np.nanmax(np.abs(m.win + m.tie / 2 - m.matrix)) < 1e-14


def test_matrix_weighted_averages():
    a, b, board = "QQ, 0.5(AKs)", "JJ+:0.25, AQs", "Qs 8d 3c 2h"
    m = equity_matrix(a, b, board=board)
    ok = ~np.isnan(m.matrix)
    w = m.weights_a[:, None] * m.weights_b[None, :] * ok
    cells = np.nan_to_num(m.matrix)
    np.testing.assert_allclose(m.equity_a, (w * cells).sum(1) / w.sum(1), atol=1e-14)
    np.testing.assert_allclose(m.equity_b, 1 - (w * cells).sum(0) / w.sum(0), atol=1e-14)
    # The overall figure is what equity() gives for the two ranges.
    assert m.equity == pytest.approx(equity([a, b], board=board).equity[0], abs=1e-13)
    assert m.equity == pytest.approx(ref.range_equity([a, b], board=board)[0], abs=1e-12)


def test_matrix_monte_carlo_is_close_and_reproducible():
    exact = equity_matrix("AKs", "QQ, JTs", board="Qc 7d 2h")
    mc = equity_matrix("AKs", "QQ, JTs", board="Qc 7d 2h", exact=False, samples=4000, seed=1)
    assert not mc.exact and mc.samples == 4000 and mc.boards is None
    assert mc.method == "monte carlo: 4,000 sampled boards"
    ok = ~np.isnan(exact.matrix)
    np.testing.assert_array_equal(ok, ~np.isnan(mc.matrix))
    assert np.nanmax(np.abs(mc.matrix - exact.matrix)) < 0.04  # ~3600 boards per pair
    assert abs(mc.equity - exact.equity) < 0.01
    again = equity_matrix("AKs", "QQ, JTs", board="Qc 7d 2h", exact=False, samples=4000,
                          seed=1)
    np.testing.assert_array_equal(mc.matrix, again.matrix)


def test_matrix_result_object():
    m = equity_matrix("AhKh", "QQ", board="Qc 7d 2h")
    text = str(m)
    assert "'AhKh' vs 'QQ'" in text and "AhKh" in text
    d = json.loads(json.dumps(m.to_dict()))
    assert d["combos_b"] == ["QsQh", "QsQd", "QhQd"] and d["exact"] is True
    assert json.loads(json.dumps(equity_matrix("AA", "AsKs", board="2c3d4h").to_dict()))


@pytest.mark.parametrize("a, b, kw, match", [
    ("AA", "KK", {"board": "As Ah Ad"}, r"range A 'AA' is empty after removing"),
    ("KK", "AA", {"dead": "As Ah Ad"}, r"range B 'AA' is empty after removing"),
    ("AsAh", "AsAh, AhAd", {}, r"no combo of range A 'AsAh' fits"),
    ("QQ++", "AA", {}, r"range A"),
    ("AA", "KK", {"board": "2c 3c"}, r"board has 2 cards"),
    ("AA", "KK", {"exact": True, "samples": 5}, r"samples= applies"),
])
def test_matrix_bad_input(a, b, kw, match):
    with pytest.raises(ValueError, match=match):
        equity_matrix(a, b, **kw)


# --- preflop_table ---------------------------------------------------------------------------

def test_preflop_cells_exact_match_range_vs_range():
    t = preflop_table(cells=[("AA", "KK"), ("AQs", "AKs")])
    assert isinstance(t, PreflopTable) and t.exact and t.boards == 2_598_960
    # 36 AA-vs-KK pairs fall into 3 suit classes, AKs-vs-AQs into 2 (+ symmetric ones).
    assert t.cell("AA", "KK") == pytest.approx(equity(["AA", "KK"]).equity[0], abs=1e-12)
    assert t.cell("AKs", "AQs") == pytest.approx(equity(["AKs", "AQs"]).equity[0], abs=1e-12)
    assert t.cell("KK", "AA") == pytest.approx(1 - t.cell("AA", "KK"), abs=1e-15)
    assert round(t.cell("AA", "KK"), 4) == 0.8195
    assert np.isnan(t.cell("AA", "QQ"))


def test_preflop_diagonal_is_one_half():
    t = preflop_table(cells=[("AKo", "AKo"), ("22", "22")])
    assert t.cell("AKo", "AKo") == 0.5 and t.cell("22", "22") == 0.5
    assert t.classes == 0  # nothing had to be played


def test_preflop_whole_table_monte_carlo():
    t = preflop_table(samples=1500, seed=7)
    assert not t.exact and t.samples == 1500
    assert t.table.shape == (169, 169) and not np.isnan(t.table).any()
    assert t.labels[:3] == ("AA", "AKs", "AKo") and t.labels[-1] == "22"
    assert sorted(t.labels) == sorted(preflop_order())
    np.testing.assert_allclose(t.table + t.table.T, 1.0, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(np.diag(t.table), 0.5)
    assert 40_000 < t.classes < 50_000
    assert abs(t.cell("AA", "KK") - 0.8195) < 0.03
    assert 0.10 < t.cell("72o", "AA") < 0.14
    assert t.cell("AA", "72o") > t.cell("KK", "72o") > t.cell("T9s", "72o")
    d = json.loads(json.dumps(t.to_dict()))
    assert len(d["table"]) == 169 and "preflop table" in str(t)


def test_preflop_monte_carlo_is_reproducible():
    a = preflop_table(cells=[("AKs", "QQ"), ("T9s", "22")], exact=False, samples=3000, seed=3)
    b = preflop_table(cells=[("AKs", "QQ"), ("T9s", "22")], exact=False, samples=3000, seed=3)
    np.testing.assert_array_equal(a.table, b.table)
    assert abs(a.cell("AKs", "QQ") - 0.4605) < 0.03


@pytest.mark.parametrize("cells, match", [
    ([("AA", "KX")], r"unknown hand class 'KX'"),
    ([("AKx", "QQ")], r"unknown hand class"),
    ([("AA",)], r"cells must be pairs"),
])
def test_preflop_bad_cells(cells, match):
    with pytest.raises(ValueError, match=match):
        preflop_table(cells=cells)
