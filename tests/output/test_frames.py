"""to_frame() and plot() of the result classes (headless matplotlib)."""

from __future__ import annotations

import sys
from types import ModuleType

import numpy as np
import pytest

import gpu_eval as ge
import gpu_eval.distributed as ged
from gpu_eval import frames


@pytest.fixture(scope="module")
def plt() -> ModuleType:
    """``matplotlib.pyplot``, headless. Imported here (and pandas in the tests that read a
    frame's type), not at the module's import: every process that collects the suite (each
    xdist worker, the device script's collection) would otherwise pay ~0.6 s for both."""
    import matplotlib.pyplot as plt

    plt.switch_backend("Agg")
    return plt


@pytest.fixture(autouse=True)
def _close_figures(plt):
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def sweep():
    return ged.flop_sweep(None, "AKs", "QQ")


def test_equity_result_frame():
    import pandas as pd

    r = ge.equity(["AhKh", "QsQd", "7c7d"], board="2c 7h Ks")
    df = r.to_frame()
    assert isinstance(df, pd.DataFrame) and df.index.name == "player"
    assert df.index.tolist() == [1, 2, 3] and df["hand"].tolist() == list(r.labels)
    for col in ("equity", "win", "tie", "tie_share", "stderr", "wins", "ties"):
        np.testing.assert_array_equal(df[col].to_numpy(), getattr(r, col))
    np.testing.assert_allclose(df["win"] + df["tie_share"], df["equity"], atol=1e-15)
    assert "high" not in df.columns


def test_hilo_result_frame_has_the_halves():
    r = ge.equity(["4c3sKhQd", "4h5cQhKs"], board="Ac2d6cKcJs", game="omaha-hilo")
    df = r.to_frame()
    for col in ("high", "low", "scoop"):
        np.testing.assert_array_equal(df[col].to_numpy(), getattr(r, col))
    np.testing.assert_allclose(df["high"] + df["low"], df["equity"], atol=1e-15)


def test_matrix_frame_and_plot(plt):
    m = ge.equity_matrix("AA", "KK, AKs", board="Kd 7c 2h")
    df = m.to_frame()
    assert df.shape == m.matrix.shape
    assert df.index.tolist() == list(m.combos_a) and df.columns.tolist() == list(m.combos_b)
    assert (df.index.name, df.columns.name) == m.labels
    np.testing.assert_array_equal(df.to_numpy(), m.matrix)  # NaN in the same places
    np.testing.assert_array_equal(m.to_frame("tie").to_numpy(), m.tie)
    with pytest.raises(ValueError, match="values must be"):
        m.to_frame("equity")

    ax = m.plot()
    assert isinstance(ax, plt.Axes)
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("KK, AKs", "AA")
    # The picture is the matrix (in %), its combos grouped by class in the preflop table's
    # order (AA, AKs, AKo, ..., KK, ...): AKs's 3 combos (As is on A's side) before KK's.
    img = np.asarray(ax.get_images()[0].get_array())
    cols = [m.combos_b.index(c) for c in sorted(m.combos_b, key=lambda c: c[0] != "A")]
    np.testing.assert_array_equal(np.ma.filled(img, np.nan), m.matrix[:, cols] * 100)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["AKs", "KK"]
    _, own = plt.subplots()
    assert m.plot("win", ax=own) is own


def test_preflop_frame_and_plot(plt):
    t = ge.preflop_table(cells=[("AA", "KK"), ("AA", "AKs")])
    df = t.to_frame()
    assert df.shape == (169, 169) and df.index[0] == "AA" and df.columns[-1] == "22"
    assert df.loc["AA", "KK"] == t.cell("AA", "KK") and df.loc["KK", "AA"] == t.cell("KK", "AA")
    assert np.isnan(df.loc["QQ", "JJ"])
    ax = t.plot(opponent="KK")
    assert isinstance(ax, plt.Axes)
    img = np.ma.filled(np.asarray(ax.get_images()[0].get_array()), np.nan)
    assert img.shape == (13, 13) and img[0, 0] == pytest.approx(100 * t.cell("AA", "KK"))
    assert np.isnan(img[1, 1])  # KK vs KK was not computed
    texts = [x.get_text() for x in ax.texts]
    assert texts[0].startswith("AA") and texts[1] == "AKs" and texts[13] == "AKo"


def test_preflop_grid_weights_by_opponent_and_compatible_pairs():
    t = ge.preflop_table(cells=[("AA", "KK"), ("AA", "AKs")])
    kk, aks = t.cell("AA", "KK"), t.cell("AA", "AKs")
    # AA vs KK: 6 x 6 = 36 combo pairs; AA vs AKs: each of the 4 AKs combos meets 3 of the
    # 6 AA combos without sharing its ace -> 12 pairs.
    assert frames.preflop_grid(t, "KK, AKs")[0, 0] == pytest.approx((36 * kk + 12 * aks) / 48,
                                                                   abs=1e-15)
    assert frames.preflop_grid(t, "KK, 0.5(AKs)")[0, 0] == pytest.approx(
        (36 * kk + 0.5 * 12 * aks) / 42, abs=1e-15)
    assert frames.preflop_grid(t, "AKs")[0, 1] == pytest.approx(t.cell("AKs", "AKs"), nan_ok=True)
    assert np.isnan(frames.preflop_grid(t)[0, 0])   # vs a random hand needs AA's whole row
    n = frames._pair_counts(tuple(t.labels))
    assert n.sum() == 1326 * 1225 and (n == n.T).all()  # every hand meets C(50, 2) others
    with pytest.raises(ValueError, match="whole hand classes.*1 of the 4 AKs"):
        frames.preflop_grid(t, "AhKh")
    with pytest.raises(ValueError, match="different weights"):
        frames.preflop_grid(t, "AsKs:0.5, AhKh, AdKd, AcKc")
    with pytest.raises(ValueError, match="AKx"):
        frames.preflop_grid(t, "AKx")


def test_preflop_grid_against_a_range_is_equity_of_the_class():
    villain = "QQ+, AKs"
    t = ge.preflop_table(cells=[("AKo", c) for c in ("AA", "KK", "QQ", "AKs")], exact=True)
    want = ge.equity(["AKo", villain], exact=True).equity[0]
    g = frames.preflop_grid(t, villain)
    assert frames.GRID[1][0] == "AKo"                   # offsuit below the diagonal
    assert g[1, 0] == pytest.approx(want, abs=1e-12)    # exact, as equity() counts it
    assert np.isnan(g).sum() == 168                     # nothing else was computed


def test_preflop_grid_against_a_random_hand_on_a_whole_table():
    t = ge.preflop_table(exact=False, samples=2000, seed=1)
    g = frames.preflop_grid(t)
    assert not np.isnan(g).any()
    size = np.array([[6 if i == j else 4 if i < j else 12 for j in range(13)]
                     for i in range(13)])
    # Every showdown has a winner's share and a loser's: over all hands the mean is 1/2.
    assert (size * g).sum() / 1326 == pytest.approx(0.5, abs=1e-12)
    assert abs(g[0, 0] - 0.8520) < 0.02 and abs(g[12, 11] - 0.3230) < 0.03  # AA, 32o
    ax = t.plot()
    assert ax.get_title().startswith("each class vs 'a random hand'")


def test_flop_sweep_frame_and_plot(sweep):
    df = sweep.to_frame()
    assert len(df) == 1755 and df.index.name == "flop" and int(df["flops"].sum()) == 22_100
    np.testing.assert_array_equal(df["equity"].to_numpy(), sweep.equity)
    assert df.loc[sweep.flops[0], "texture"] == sweep.texture[0]
    w = df["matchup_weight"]
    assert (w * df["equity"]).sum() / w.sum() == pytest.approx(sweep.overall, abs=1e-12)
    ax = sweep.plot()
    img = np.ma.filled(np.asarray(ax.get_images()[0].get_array()), np.nan)
    np.testing.assert_array_equal(img, sweep.by_top_two()[::-1, ::-1])


def test_missing_extra_is_named(monkeypatch):
    r = ge.equity(["AhKh", "QsQd"], board="2c 7h Ks")
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas -> ImportError
    with pytest.raises(ImportError, match=r'gpu-eval\[frames\]'):
        r.to_frame()
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(ImportError, match=r'gpu-eval\[frames\]'):
        ge.preflop_table(cells=[("AA", "KK")]).plot()


def test_docstring_examples_run():
    import doctest

    failures, tried = doctest.testmod(frames)
    assert tried > 0 and failures == 0
