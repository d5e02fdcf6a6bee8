"""What a range report gives back: tables and their arithmetic, distributions and buckets,
frames, plots, text, the ``gpu-eval report`` command, and every docstring example."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
import subprocess
import sys

import numpy as np
import pytest

import gpu_eval as ge
import gpu_eval.range_reports
from gpu_eval import cli
from gpu_eval.range_reports.api import range_report

H, V, BOARD = "QQ+, AKs, 0.5(A5s-A4s), KQo:0.3", "JJ-99, AQs, KJs, T9s, 98s", "Kd7c2h"


@pytest.fixture(scope="module")
def rep():
    return range_report(H, V, board=BOARD)


def test_ge_range_report_stays_the_function_after_the_subpackage_is_imported():
    importlib.import_module("gpu_eval.range_reports.boards")
    assert callable(ge.range_report)
    assert "range_report" in ge.__all__


def test_tables_add_up(rep):
    for side in (rep.hero, rep.villain):
        for t in (side.class_table(), side.draw_table()):
            key = "class" if "class" in t else "draw"
            sel = [side.select(made=n) if key == "class" else side.has(n) for n in t[key]]
            for i, s in enumerate(sel):
                w = np.asarray(side.weights)[s]
                assert t["combos"][i] == s.sum()
                assert abs(t["weight"][i] - w.sum()) < 1e-12
                assert abs(t["share"][i] - w.sum() / side.total_weight) < 1e-12
                if s.any():   # matchup-weighted, as gpu_eval.equity weighs a range
                    ww = w * np.asarray(side.opp_weight)[s]
                    want = (ww @ np.asarray(side.equity)[s]) / ww.sum()
                    assert abs(t["equity"][i] - want) < 1e-12
                else:
                    assert np.isnan(t["equity"][i])
    sub = rep.hero.select(made=["set", "overpair"])
    e = ge.equity([", ".join(np.array(rep.hero.hands)[sub].tolist()), V], board=BOARD,
                  exact=True)
    t = rep.hero.class_table()
    w = t["weight"][[list(t["class"]).index("set"), list(t["class"]).index("overpair")]]
    eq = t["equity"][[list(t["class"]).index("set"), list(t["class"]).index("overpair")]]
    # pooled by matchup weight, the class equities are the range equity of those combos
    mw = [rep.hero.opp_weight[rep.hero.select(made=n)].sum() for n in ("set", "overpair")]
    assert abs((np.array(mw) * eq).sum() / sum(mw) - float(e.equity[0])) < 1e-10


def test_distribution_and_buckets(rep):
    e, p = rep.hero.distribution()
    assert np.all(np.diff(e) <= 0) and abs(p[-1] - 1) < 1e-12 and np.all(np.diff(p) > 0)
    b = rep.hero.buckets((0, 0.5, 1))
    w = np.asarray(rep.hero.weights)
    eq = np.asarray(rep.hero.equity)
    assert abs(b["share"][0] - w[eq < 0.5].sum() / w.sum()) < 1e-12
    assert b["combos"].sum() == len(w)


def test_frames(rep):
    pytest.importorskip("pandas")
    df = rep.to_frame()
    assert list(df.index) == rep.hero.hands
    assert df["wins"].tolist() == np.asarray(rep.hero.wins).tolist()
    assert df["flush_draw"].dtype == bool
    c = rep.to_frame("classes")
    assert c.index.name == "class" and c["hero_combos"].sum() == len(rep.hero.combos)
    assert rep.to_frame("draws", side="villain").index.name == "draw"
    assert len(rep.to_frame(side="villain")) == len(rep.villain.combos)
    with pytest.raises(ValueError, match="kind"):
        rep.to_frame("everything")
    with pytest.raises(ValueError, match="side"):
        rep.to_frame(side="both")


def test_plots(rep):
    pytest.importorskip("matplotlib")
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    for kind in ("classes", "draws", "distribution"):
        ax = rep.plot(kind)
        assert ax.get_title()
        plt.close(ax.figure)
    with pytest.raises(ValueError, match="kind"):
        rep.plot("pie")
    s = range_report("QQ+", "JJ", board=BOARD, street="turn")
    plt.close(s.plot().figure)
    b = range_report("AKs", "QQ", boards=["AsKd7h", "7c7d2h", "9s8s7s", "Qs5s2d"])
    ax = b.plot("high card", "suits")
    assert ax.get_xlabel() == "suits"
    plt.close(ax.figure)
    plt.close(b.plot("pairing", "suits", value="overpair").figure)
    with pytest.raises(ValueError, match="value"):
        b.plot(value="monster")


def test_text(rep):
    text = str(rep)
    assert text.splitlines()[0].startswith("board Kd7c2h (holdem): exact")
    assert "overpair" in text and "backdoor flush draw" in text
    s = str(range_report("QQ+", "JJ", board=BOARD, street="turn"))
    assert len(s.splitlines()) == 2 + 49
    b = str(range_report("AKs", "QQ", boards=["AsKd7h", "7c7d2h"]))
    assert "hero equity over every board" in b


def test_street_and_boards_frames():
    pytest.importorskip("pandas")
    s = range_report("QQ+", "JJ", board=BOARD, street="turn")
    df = s.to_frame()
    assert list(df.index) == list(s.cards) and "set" in df.columns
    b = range_report("AKs", "QQ", boards=["AsKd7h", "7c7d2h"])
    d = b.to_frame()
    assert d["flops"].tolist() == [1, 1] and d.loc["AsKd7h", "suits"] == "rainbow"


def test_cli_report(tmp_path, capsys):
    out = tmp_path / "r.csv"
    assert cli.main(["report", H, "--vs", V, "--board", BOARD, "--out", str(out)]) == 0
    text = capsys.readouterr().out
    r = range_report(H, V, board=BOARD)
    assert "made hand" in text and f"wrote {len(r.hero.combos) + len(r.villain.combos)} rows" in text
    pytest.importorskip("pandas")
    import pandas as pd

    df = pd.read_csv(out)
    assert set(df["range"]) == {"hero", "villain"}
    assert cli.main(["report", "QQ+", "--vs", "JJ", "--board", BOARD, "--street", "turn"]) == 0
    assert "every turn of Kd7c2h" in capsys.readouterr().out


def test_cli_report_all_flops_writes_a_row_per_board(tmp_path, capsys, monkeypatch):
    # The command's plumbing on three flops: every flop itself (the space) is counted once,
    # against flop_sweep, in test_report_equity.py.
    from gpu_eval.range_reports import api

    asked = []

    def few_flops(*args, boards=None, **kwargs):
        asked.append(boards)
        return range_report(*args, boards=["AsKd7h", "7c7d2h", "9h8h2h"], **kwargs)

    monkeypatch.setattr(api, "range_report", few_flops)
    out = tmp_path / "flops.csv"
    assert cli.main(["report", "AKs", "--vs", "QQ", "--all-flops", "--out", str(out)]) == 0
    assert asked == ["flops"]
    assert "wrote 3 rows" in capsys.readouterr().out
    pytest.importorskip("pandas")
    import pandas as pd

    df = pd.read_csv(out, index_col=0)
    assert df.index.tolist() == ["AsKd7h", "7d7c2h", "9h8h2h"] and "suits" in df.columns


@pytest.mark.parametrize("argv,words", [
    (["report", "QQ+"], "--board"),
    (["report", "QQ+", "--board", "Kd7c"], "2 cards"),
    (["report", "QQ+", "--all-flops", "--board", BOARD], "--all-flops"),
    (["report", "QQ+", "--board", BOARD, "--game", "stud"], "invalid choice"),
    (["report", "QQ+", "--board", BOARD, "--street", "flop"], "invalid choice"),
])
def test_cli_report_errors_are_one_line(argv, words, capsys):
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and words in err


def test_import_stays_light():
    code = ("import sys, gpu_eval as ge; ge.range_report('QQ+', board='Kd7c2h');"
            "print(sorted({'cupy', 'pandas', 'matplotlib'} & set(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=300)
    assert out.stdout.strip() == "[]"


MODULES = ["gpu_eval.cli_report"] + [
    f"gpu_eval.range_reports.{m.name}" for m in pkgutil.iter_modules(gpu_eval.range_reports.__path__)]


@pytest.mark.parametrize("module", MODULES)
def test_docstring_examples_run(module):
    mod = importlib.import_module(module)
    failures, _ = doctest.testmod(mod, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert failures == 0
