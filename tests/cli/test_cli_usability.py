"""The command line as a newcomer meets it: help for every subcommand and option, file errors
that name the option and the path, messages in command-line words, progress bars whose total
is the count the result reports, and a note when input is read in a way a user may not expect.
"""

from __future__ import annotations

import argparse
import errno
import re
import warnings

import numpy as np
import pytest

import gpu_eval as ge
from gpu_eval import bench, cli, cli_eval, progress
from gpu_eval.cli import build_parser, main


def run(capsys, *argv):
    """``(status, stdout, stderr)`` of ``gpu-eval argv...`` run in-process."""
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def one_line(err: str, command: str, kind: str = "error") -> str:
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"gpu-eval {command}: {kind}: "), err
    return lines[0]


def final_bar(err: str) -> str:
    """The last state a text bar drew on stderr."""
    return [s for s in err.replace("\r", "\n").splitlines() if s.strip()][-1]


# ---------------------------------------------------------------------------------------------
# Help: every subcommand described, every option (and positional) explained, plain text.
# ---------------------------------------------------------------------------------------------

SUBCOMMANDS = sorted(build_parser()._subcommands)


@pytest.mark.parametrize("command", SUBCOMMANDS)
def test_every_subcommand_has_a_description_and_every_option_help(command):
    p = build_parser()._subcommands[command]
    assert p.description and len(p.description) > 40, f"gpu-eval {command} has no description"
    missing = [a.dest for a in p._actions
               if not isinstance(a, argparse._HelpAction) and not (a.help or "").strip()]
    assert not missing, f"gpu-eval {command}: no help for {missing}"


@pytest.mark.parametrize("command", SUBCOMMANDS)
def test_help_is_plain_text(command, capsys):
    status, out, err = run(capsys, command, "--help")
    assert status == 0 and err == ""
    assert not re.search(r"``|:(func|data|mod|class):`", out), out  # no reStructuredText


# ---------------------------------------------------------------------------------------------
# tables --out: errors name the option and the path, never a raw [Errno N].
# ---------------------------------------------------------------------------------------------

def test_tables_out_an_existing_file(capsys, tmp_path):
    f = tmp_path / "taken.txt"
    f.write_text("x")
    status, out, err = run(capsys, "tables", "preflop", "--game", "shortdeck", "--out", f,
                           "--no-progress")
    line = one_line(err, "tables")
    assert status == 2 and out == ""
    assert f"--out {str(f)!r} is a file, not a folder" in line and "Errno" not in line


def test_tables_out_below_a_file(capsys, tmp_path):
    f = tmp_path / "taken.txt"
    f.write_text("x")
    status, out, err = run(capsys, "tables", "preflop", "--game", "shortdeck", "--out",
                           f / "sub", "--no-progress")
    line = one_line(err, "tables")
    assert status == 2 and "Errno" not in line
    assert f"--out {str(f / 'sub')!r}: cannot create or write" in line


def test_tables_out_a_link_to_a_missing_folder(capsys, tmp_path):
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "missing" / "folder")
    status, out, err = run(capsys, "tables", "preflop", "--game", "shortdeck", "--out", link,
                           "--no-progress")
    line = one_line(err, "tables")
    assert status == 2 and "Errno" not in line
    assert f"--out {str(link)!r} is a link to" in line and "does not exist" in line


def test_tables_out_any_os_error_names_the_option_and_the_file(capsys, tmp_path, monkeypatch):
    from gpu_eval.solver_tables import build

    missing = str(tmp_path / "gone" / "shortdeck-preflop.partial" / "plan.json")

    def vanished(*args, **kwargs):  # the folder removed under the run, say
        raise FileNotFoundError(errno.ENOENT, "No such file or directory", missing)

    monkeypatch.setattr(build, "build_files", vanished)
    status, out, err = run(capsys, "tables", "preflop", "--out", tmp_path / "gone")
    line = one_line(err, "tables")
    assert "Errno" not in line and "--out " in line and repr(missing) in line
    assert line.endswith("No such file or directory")


# ---------------------------------------------------------------------------------------------
# Messages in command-line words.
# ---------------------------------------------------------------------------------------------

def test_a_joker_without_wild_says_the_option(capsys):
    status, out, err = run(capsys, "eval", "AhKhQhJh Jk")
    line = one_line(err, "eval")
    assert "--wild joker" in line and "wild=" not in line


def test_a_masked_joker_line_says_the_option(capsys, tmp_path):
    f = tmp_path / "hands.txt"
    f.write_text("AhKhQhJhTh\nAhKhQhJh Jk\n")
    status, out, err = run(capsys, "eval", "--file", f, "--invalid", "mask")
    line = one_line(err, "eval", "warning")
    assert status == 0 and "--wild joker" in line and "wild=" not in line


def test_too_many_matchups_for_exact_says_the_options(capsys):
    status, out, err = run(capsys, "equity", "random", "random", "random", "random", "--exact")
    line = one_line(err, "equity")
    assert "--exact: more than" in line and "--samples N" in line and "exact=" not in line


def test_warnings_say_the_options(capsys, monkeypatch):
    def warns(args):
        warnings.warn("exact equity needs about 1e12 evaluations, roughly 200 minutes on this "
                      "backend; pass exact=False for Monte Carlo", RuntimeWarning, stacklevel=1)
        return 0

    monkeypatch.setattr(cli, "_cmd_info", warns)
    status, out, err = run(capsys, "info")
    line = one_line(err, "info", "warning")
    assert "pass --samples N for Monte Carlo" in line and "exact=" not in line


# ---------------------------------------------------------------------------------------------
# Progress: the bar's total is the count the result reports; every long command draws one.
# ---------------------------------------------------------------------------------------------

def test_equity_bar_counts_what_the_result_reports(capsys, monkeypatch):
    """Preflop by rank class works one matchup per suit orbit (8 here) but reports all 12:
    the bar shows the 12."""
    monkeypatch.setattr(progress, "AUTO_SECONDS", -1.0)  # draw the bar of this short run
    status, out, err = run(capsys, "equity", "AhKh", "QQ+", "--dead", "2c")
    assert status == 0
    assert out.startswith("exact: 12 matchups x 1,533,939 boards")
    assert " 12/12 matchups" in final_bar(err) and final_bar(err).endswith("done")


class _Bars:
    """Every Progress made while installed, to read its totals after a run."""

    def __init__(self, monkeypatch):
        self.made: list[progress.Progress] = []
        init = progress.Progress.__init__

        def record(bar, *args, **kwargs):
            init(bar, *args, **kwargs)
            self.made.append(bar)

        monkeypatch.setattr(progress.Progress, "__init__", record)

    def shown(self) -> tuple[int, str]:
        (bar,) = [b for b in self.made if b.enabled]
        assert bar._drawn == bar.shown  # the bar ended at its total
        return bar.shown, bar.unit


def _reported(method: str) -> set[tuple[int, str]]:
    """The counts a result's method names, with their units: {(12, "matchups"), ...}."""
    return {(int(n.replace(",", "")), u) for n, u in re.findall(r"([\d,]+) (\w+)", method)}


@pytest.mark.parametrize("players, kwargs", [
    (["AhKh", "QQ+"], {"dead": "2c"}),                          # rank classes: matchups
    (["AhKh", "QsQd", "JcTc"], {}),                             # rank classes, one matchup
    (["AhKh", "QQ+", "22"], {"board": "Kd7c2h"}),               # boards of each matchup
    (["AhKh", "QsQd"], {"exact": False, "samples": 20_000}),    # samples
    (["AsAhKdQc", "JhTc9s8d"], {"board": "Ac2h3s", "game": "omaha", "exact": True}),
    (["AsKd", "QhQs2d"], {"game": "deuce-seven-draw"}),         # deals, not comparisons
], ids=["rank-classes", "one-matchup", "boards", "monte-carlo", "omaha", "draw"])
def test_equity_bar_total_is_a_count_of_the_result(players, kwargs, monkeypatch, capsys):
    bars = _Bars(monkeypatch)
    r = ge.equity(players, progress=True, **kwargs)
    assert bars.shown() in _reported(r.method), (bars.shown(), r.method)
    assert final_bar(capsys.readouterr().err).endswith("done")


def test_equity_matrix_bar_counts_the_boards_of_a_pair(monkeypatch, capsys):
    bars = _Bars(monkeypatch)
    m = ge.equity_matrix("AA", "KK, AKs", board="Kd 7c 2h", progress=True)
    assert m.method == "exact: 27 pairs x 990 boards"
    assert bars.shown() == (990, "boards")


def test_bench_draws_progress_when_long(capsys, monkeypatch):
    args = ("bench", "--n", "2000", "--peer-n", "0", "--repeats", "1", "--backend", "numpy")
    monkeypatch.setattr(bench, "EXPECTED_RATE", 1.0)  # every run now looks long
    status, out, err = run(capsys, *args)
    assert status == 0 and out.startswith("machine: ")
    # 2 hand sizes x (dealing + 4 figures x (warm-up + 1 timed run))
    assert re.search(r"bench 100\.0%.* 18/18 steps .*done$", final_bar(err)), err
    assert "7-card hands" in out and "bench" not in out
    status, out, err = run(capsys, *args, "--no-progress")
    assert status == 0 and err == ""


def test_eval_file_draws_progress_over_its_bytes(capsys, tmp_path, monkeypatch):
    f = tmp_path / "hands.txt"
    f.write_text("AsKsQsJsTs\n# a comment\nA♠K♦Q♥J♣9♠\n", encoding="utf-8")
    size = f.stat().st_size
    monkeypatch.setattr(cli_eval, "BYTES_PER_SECOND", 1.0)  # this file now looks long
    status, out, err = run(capsys, "eval", "--file", f)
    assert status == 0 and len(out.splitlines()) == 2
    assert f" {size}/{size} B" in final_bar(err) and final_bar(err).endswith("done")
    status, out, err = run(capsys, "eval", "--file", f, "--no-progress")
    assert status == 0 and err == ""


# ---------------------------------------------------------------------------------------------
# Notes: input read in a way a user may not expect says so, in one line.
# ---------------------------------------------------------------------------------------------

def test_two_card_hands_in_omaha_are_noted_as_ranges(capsys):
    status, out, err = run(capsys, "equity", "AhKh", "QsQd", "--game", "omaha", "--board",
                           "Kd7c2h", "--samples", "2000", "--seed", "1")
    line = one_line(err, "equity", "note")
    assert status == 0 and out.startswith("monte carlo: 2,000 samples")
    assert "players 1 (AhKh), 2 (QsQd)" in line and "read as a range" in line
    assert "(1,225 hands each)" in line


def test_a_whole_omaha_hand_has_no_note(capsys):
    status, out, err = run(capsys, "equity", "AhKhQdJd", "QsQcTc9c", "--game", "omaha",
                           "--board", "Kd7c2h", "--exact")
    assert status == 0 and err == ""


def test_a_default_run_answered_by_sampling_says_why(capsys):
    status, out, err = run(capsys, "equity", "AhKh", "QsQd", "--game", "omaha", "--board",
                           "Kd7c2h", "--no-progress")
    lines = err.splitlines()
    assert status == 0 and out.startswith("monte carlo: 1,000,000 samples")
    assert len(lines) == 2 and all(s.startswith("gpu-eval equity: note: ") for s in lines)
    assert "1,000,000 samples" in lines[1] and "without --exact" in lines[1]


@pytest.mark.parametrize("extra", [["--samples", "2000", "--seed", "1"], ["--exact"], []])
def test_no_sampling_note_when_asked_or_exact(capsys, extra):
    status, out, err = run(capsys, "equity", "AhKh", "QQ", "--board", "Kd7c2h", *extra)
    assert status == 0 and err == ""


# ---------------------------------------------------------------------------------------------
# Library messages a newcomer meets first.
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("text", ["AsAh Kd7c", ["AsAh Kd7c"]])
def test_hand_indexer_counts_the_cards_of_a_short_hand(text):
    with pytest.raises(ValueError) as info:
        ge.HandIndexer((2, 3)).index(text)
    msg = str(info.value)
    assert "hand 'AsAh Kd7c' has 4 cards where 5 are needed" in msg and "shape" not in msg


@pytest.mark.parametrize("call, words", [
    (lambda: ge.describe(9999), "strength 9999 is outside"),
    (lambda: ge.category(np.uint16(9999)), "strength 9999 is outside"),
    (lambda: ge.to_cactus_kev(0), "strength 0 is outside"),
    (lambda: ge.from_cactus_kev(9999), "Cactus Kev rank 9999 is outside"),
    (lambda: ge.from_value(5), "5 is not the value"),
    (lambda: ge.from_rating(0), "rating 0x0000 is not the 16-bit HandRating"),
    (lambda: ge.describe(9999, game="ace-five"), "strength 9999 is outside"),
    (lambda: ge.cards.from_deadhorse(3), "3 is not a DeadHorse card"),
    (lambda: ge.describe_low(99), "low strength 99 is outside 0..56"),
], ids=["describe", "category", "to_cactus_kev", "from_cactus_kev", "from_value",
        "from_rating", "describe-low-game", "from_deadhorse", "describe_low"])
def test_a_single_bad_value_names_no_index(call, words):
    with pytest.raises(ValueError) as info:
        call()
    assert words in str(info.value) and "index" not in str(info.value)
    assert "seed" not in str(info.value)


def test_an_array_still_names_the_index():
    with pytest.raises(ValueError, match=r"strength 9999 at index \(1,\) is outside"):
        ge.describe([1, 9999])
    with pytest.raises(ValueError, match=r"low strength 99 at index \(1,\) is outside"):
        ge.describe_low([1, 99])
    with pytest.raises(TypeError, match="integers"):
        ge.describe_low(1.5)
