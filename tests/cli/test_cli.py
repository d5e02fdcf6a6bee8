"""The ``gpu-eval`` command line: every subcommand's output, and one clean error line for
every kind of bad input (never a traceback).

Most tests call ``gpu_eval.cli.main`` in-process; a few run the installed console script
(``gpu-eval`` next to ``sys.executable``), including the README's main job.
"""

from __future__ import annotations

import inspect
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import gpu_eval as ge
from gpu_eval import backend_choice, progress
from gpu_eval.cli import main

CUDA_OK = backend_choice.cuda_status()[0]


def run(capsys, *argv):
    """``(status, stdout, stderr)`` of ``gpu-eval argv...`` run in-process."""
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def assert_one_error_line(status, out, err, command):
    assert status != 0
    assert "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1, err
    prefix = f"gpu-eval {command}: error: " if command else "gpu-eval: error: "
    assert lines[0].startswith(prefix), err
    assert len(lines[0]) > len(prefix) + 5  # says what went wrong
    return lines[0]


# ---------------------------------------------------------------------------------------------
# eval
# ---------------------------------------------------------------------------------------------

def test_eval_from_args(capsys):
    status, out, err = run(capsys, "eval", "AsKsQsJsTs", "As Ks Qs Js Ts 2c 3d", "7c5d4h3s2c",
                           "AhAd5c5s2h")
    assert status == 0 and err == ""
    lines = out.splitlines()
    assert len(lines) == 4
    assert lines[0].split() == ["AsKsQsJsTs", "7462", "Royal", "Flush"]
    assert "7462" in lines[1] and "Royal Flush" in lines[1]
    assert re.search(r"\b1\s+High Card, Seven high", lines[2])
    assert "4897" in lines[3] and "Two Pair, Aces and Fives, Two kicker" in lines[3]


def test_eval_from_file(capsys, tmp_path):
    f = tmp_path / "hands.txt"
    f.write_text("# my hands\nAhKhQhJhTh\n\n  7c 5d 4h 3s 2c  \n# done\n", encoding="utf-8")
    status, out, err = run(capsys, "eval", "2c2d2h2s3c", "--file", f)
    assert status == 0 and err == ""
    lines = out.splitlines()
    assert [ln.split()[0] for ln in lines] == ["2c2d2h2s3c", "AhKhQhJhTh", "7c"]
    # one column for the arguments and the file: as wide as the longest hand
    for ln in lines:  # hand padded to 14, two spaces, strength right-aligned in 5
        assert ln[14:16] == "  " and ln[16:21].strip().isdigit() and ln[21:23] == "  "
    assert "Four of a Kind" in lines[0] and "Royal Flush" in lines[1]
    assert "Seven high" in lines[2]


def test_eval_json(capsys):
    status, out, err = run(capsys, "eval", "AhAd5c5s2h", "7c5d4h3s2c", "--json",
                           "--backend", "numpy")
    assert status == 0 and err == ""
    rows = [json.loads(line) for line in out.splitlines()]  # JSON Lines: one object a line
    assert rows == [
        {"hand": "AhAd5c5s2h", "strength": 4897, "category": 2,
         "description": "Two Pair, Aces and Fives, Two kicker"},
        {"hand": "7c5d4h3s2c", "strength": 1, "category": 0,
         "description": "High Card, Seven high, Five Four Three Two kickers"}]


def test_eval_shortdeck(capsys):
    status, out, err = run(capsys, "eval", "--game", "shortdeck", "9s8s7s6sAd", "--json")
    if status != 0 and "not supported" in err:
        pytest.skip("short deck is not in this build")
    assert status == 0, err
    row = json.loads(out)
    assert out.count("\n") == 1
    assert row["description"] == "Straight, Nine high"
    assert row["category"] == 4


def test_eval_omaha_board(capsys):
    pytest.importorskip("gpu_eval.games.omaha")
    status, out, err = run(capsys, "eval", "--game", "omaha", "AsKsQdJd", "--board", "Ts9s2s")
    assert status == 0, err
    assert "Flush, Ace high" in out  # As Ks + Ts 9s 2s, exactly two from the hand
    status, out, err = run(capsys, "eval", "--game", "omaha", "AsKsQdJd")
    assert "needs --board" in assert_one_error_line(status, out, err, "eval")


def test_eval_wild(capsys):
    if "wild" not in inspect.signature(ge.evaluate).parameters:
        pytest.skip("wild cards are not in this build")
    status, out, err = run(capsys, "eval", "AsAhAdAc Jk", "--wild", "joker", "--json")
    assert status == 0, err
    row = json.loads(out)
    assert out.count("\n") == 1
    assert row["category"] == 9 and "Five of a Kind" in row["description"]


BAD_FILE = ("AhKhQhJhTh\n"        # line 1
            "# a comment\n"       # line 2
            "AsAsKdQd2c\n"        # line 3: As twice
            "\n"                  # line 4
            "7c 5d 4h 3s 2c\n"    # line 5
            "2c3c\n"              # line 6: two cards
            "Ah Kx Qd Jc 9s\n"    # line 7: Kx
            "A♠K♦Q♥J♣9♠\n")       # line 8


def test_eval_file_bad_line_raises_naming_the_line(capsys, tmp_path):
    f = tmp_path / "hands.txt"
    f.write_text(BAD_FILE, encoding="utf-8")
    status, out, err = run(capsys, "eval", "--file", f, "--backend", "numpy")
    line = assert_one_error_line(status, out, err, "eval")
    assert status == 2 and out == ""
    assert f"card As is used twice in hand 'AsAsKdQd2c' (line 3 of {str(f)!r})" in line


@pytest.mark.parametrize("as_json", [False, True])
def test_eval_file_invalid_mask_keeps_going(capsys, tmp_path, as_json):
    f = tmp_path / "hands.txt"
    f.write_text(BAD_FILE, encoding="utf-8")
    status, out, err = run(capsys, "eval", "--file", f, "--invalid", "mask",
                           "--backend", "numpy", *(["--json"] if as_json else []))
    assert status == 0
    warn = err.splitlines()
    assert len(warn) == 3, err
    assert all(w.startswith("gpu-eval eval: warning: ") for w in warn)
    assert "(line 3 of" in warn[0] and "used twice" in warn[0]
    assert "(line 6 of" in warn[1] and "2 cards" in warn[1]
    assert "(line 7 of" in warn[2] and "'Kx'" in warn[2]
    want = [("AhKhQhJhTh", 7462), ("AsAsKdQd2c", 0), ("7c 5d 4h 3s 2c", 1), ("2c3c", 0),
            ("Ah Kx Qd Jc 9s", 0), ("A♠K♦Q♥J♣9♠", int(ge.evaluate("AsKdQhJc9s")))]
    if as_json:
        rows = [json.loads(ln) for ln in out.splitlines()]
        assert [(r["hand"], r["strength"]) for r in rows] == want
        assert rows[1] == {"hand": "AsAsKdQd2c", "strength": 0, "category": None,
                           "description": "no valid hand"}
        assert rows[0]["category"] == 8 and rows[0]["description"] == "Royal Flush"
    else:
        lines = out.splitlines()
        assert len(lines) == len(want)
        for ln, (hand, s) in zip(lines, want):
            assert ln.startswith(hand)
            assert ln[len(hand):].split()[0] == str(s)
        assert lines[1].endswith("0  no valid hand")


def test_eval_stdin(capsys, monkeypatch):
    import io

    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(
        b"AhKhQhJhTh\n# c\n7c5d4h3s2c\r\n")))
    status, out, err = run(capsys, "eval", "--file", "-", "--json")
    assert status == 0 and err == ""
    assert [json.loads(ln)["strength"] for ln in out.splitlines()] == [7462, 1]


@pytest.mark.parametrize("as_json", [False, True])
def test_eval_file_streams_in_chunks(capsys, tmp_path, as_json):
    """A file several chunks long: every line once, in order, the same as one call."""
    import random

    rng = random.Random(16)
    deck = [r + s for r in "23456789TJQKA" for s in "cdhs"]
    hands = [" ".join(rng.sample(deck, rng.choice([5, 7]))) for _ in range(1000)]
    text = []
    for i, h in enumerate(hands):
        if i % 97 == 0:
            text.append("# comment")
        text.append(h)
    f = tmp_path / "many.txt"
    f.write_text("\n".join(text) + "\n", encoding="utf-8")
    extra = ["--json"] if as_json else []
    status, out, err = run(capsys, "eval", "--file", f, "--chunk-lines", "64",
                           "--backend", "numpy", *extra)
    assert status == 0 and err == ""
    want = ge.evaluate(hands, backend="numpy").tolist()
    lines = out.splitlines()
    assert len(lines) == len(hands)
    if as_json:
        rows = [json.loads(ln) for ln in lines]
        assert [r["hand"] for r in rows] == hands
        assert [r["strength"] for r in rows] == want
        assert [r["description"] for r in rows] == ge.describe(want)
    else:
        width = max(len(h) for h in hands[:64])  # the first chunk sets the column
        for ln, h, s in zip(lines, hands, want):
            assert ln.startswith(h.ljust(width) + "  ") or len(h) > width
            assert ln[len(h):].split()[0] == str(s)
    # a bad line in a later chunk, masked: reported with its line number in the file
    text[700] = "AsAs 2c 3c 4c"
    f.write_text("\n".join(text) + "\n", encoding="utf-8")
    status, out, err = run(capsys, "eval", "--file", f, "--chunk-lines", "64",
                           "--invalid", "mask", "--backend", "numpy", *extra)
    assert status == 0
    assert err.splitlines() == [("gpu-eval eval: warning: card As is used twice in hand "
                                 f"'AsAs 2c 3c 4c' (line 701 of {str(f)!r})")]
    assert len(out.splitlines()) == len(hands)


def test_eval_file_auto_backend_uses_the_device(capsys, tmp_path, monkeypatch):
    """With a CUDA device (here CuPy emulated on the CPU, tests/emulation/fake_cupy/) --backend auto
    evaluates every chunk on it, with the same output as NumPy."""
    from gpu_eval.cuda import availability, holdem

    from emulation import hostbuild

    try:
        hostbuild.load()
    except hostbuild.HostBuildUnavailableError as exc:
        pytest.skip(f"cannot build the kernels for the CPU: {exc}")
    import random

    rng = random.Random(5)
    deck = [r + s for r in "23456789TJQKA" for s in "cdhs"]
    hands = ["".join(rng.sample(deck, 7)) for _ in range(300)]
    hands[200] = "AsAs" + hands[200][4:]
    f = tmp_path / "hands.txt"
    f.write_text("\n".join(hands) + "\n", encoding="utf-8")
    argv = ("eval", "--file", f, "--chunk-lines", "64", "--invalid", "mask", "--json")
    want = run(capsys, *argv, "--backend", "numpy")
    from emulation import fake_cupy

    monkeypatch.setitem(sys.modules, "cupy", fake_cupy)
    monkeypatch.setattr(holdem, "_STATES", {})
    availability.cuda_available.cache_clear()
    fake_cupy.launches.clear()
    try:
        assert run(capsys, *argv) == want
        launches = [name for name, _, _ in fake_cupy.launches]
        assert launches.count("ge_eval_masks") >= 5  # 300 lines in chunks of 64
    finally:
        availability.cuda_available.cache_clear()
    assert want[0] == 0 and "(line 201 of" in want[2]


def test_eval_file_without_hands_or_not_utf8(capsys, tmp_path):
    f = tmp_path / "empty.txt"
    f.write_text("# nothing\n\n", encoding="utf-8")
    status, out, err = run(capsys, "eval", "--file", f)
    assert "no hands given" in assert_one_error_line(status, out, err, "eval")
    f.write_bytes(b"AsKsQsJsTs\n\xff\xfe\n")
    status, out, err = run(capsys, "eval", "--file", f)
    assert "not UTF-8" in assert_one_error_line(status, out, err, "eval")


def test_eval_help_says_json_lines(capsys):
    status, out, err = run(capsys, "eval", "--help")
    assert status == 0 and "JSON Lines" in out and "--invalid" in out and err == ""


# ---------------------------------------------------------------------------------------------
# equity
# ---------------------------------------------------------------------------------------------

def test_equity_exact(capsys):
    status, out, err = run(capsys, "equity", "AhKh", "QsQd", "--exact", "--backend", "numpy")
    assert status == 0 and err == ""
    assert out.splitlines()[0] == "exact (table): 1,712,304 boards (numpy)"
    # tie: the probability of a split pot, 6,732 / 1,712,304 (PokerStove's meaning).
    assert re.search(r"AhKh\s+46\.2145%\s+46\.0179%\s+0\.3932%", out)
    assert re.search(r"QsQd\s+53\.7855%\s+53\.5890%\s+0\.3932%", out)
    status, out, err = run(capsys, "equity", "AhKh", "QsQd", "--exact", "--backend", "numpy",
                           "--json")
    d = json.loads(out)
    assert d["wins"] == [787_966, 917_606] and d["ties"] == [6_732, 6_732]
    assert d["win"][0] == 787_966 / 1_712_304 and d["tie"] == [6_732 / 1_712_304] * 2
    assert abs(d["tie_share"][0] - 6_732 / 2 / 1_712_304) < 1e-15
    assert abs(d["win"][0] + d["tie_share"][0] - d["equity"][0]) < 1e-15


def test_equity_board_and_range(capsys):
    status, out, err = run(capsys, "equity", "AhKh", "QQ+,AKs", "--board", "Kd 7c 2h")
    assert status == 0 and err == ""
    assert out.startswith("exact: 12 matchups x 990 boards (")
    assert "board Kd 7c 2h" in out.splitlines()[0]
    assert re.search(r"AhKh\s+57\.94", out)


def test_equity_samples_seed_reproducible(capsys):
    argv = ("equity", "AA", "KK", "random", "--samples", "20000", "--seed", "7",
            "--backend", "numpy")
    status, first, err = run(capsys, *argv)
    assert status == 0 and err == ""
    assert first.startswith("monte carlo: 20,000 samples (numpy)")
    assert "stderr" in first.splitlines()[1]
    assert len(first.splitlines()) == 5
    assert run(capsys, *argv)[1] == first  # the seed reproduces the run
    status, other, _ = run(capsys, *argv[:-4], "--seed", "8")
    assert other != first


def test_equity_samples_accepts_1e5(capsys):
    status, out, err = run(capsys, "equity", "AhKh", "QQ", "--samples", "1e4", "--seed", "1")
    assert status == 0, err
    assert out.startswith("monte carlo: 10,000 samples")


def test_equity_dead_and_json(capsys):
    status, out, err = run(capsys, "equity", "AhKh", "QQ", "--board", "2c7d9s",
                           "--dead", "Qs", "--json", "--backend", "numpy")
    assert status == 0 and err == ""
    d = json.loads(out)
    assert d["labels"] == ["AhKh", "QQ"]
    assert d["dead"] == "Qs" and d["board"] == "2c 7d 9s"
    assert d["backend"] == "numpy" and d["exact"] is True
    assert d["matchups"] == 3  # QQ minus Qs: three combos
    assert abs(sum(d["equity"]) - 1) < 1e-12
    assert d["seed"] is None


def test_equity_progress_bar(capsys, monkeypatch):
    argv = ("equity", "AhKh", "QsQd", "--board", "2c7d9s")
    # A short run draws no bar by default...
    status, out, err = run(capsys, *argv)
    assert status == 0 and err == ""
    # ...a long one does (made "long" here by lowering the threshold), on stderr only.
    monkeypatch.setattr(progress, "AUTO_SECONDS", -1.0)
    status, out_long, err = run(capsys, *argv)
    assert status == 0 and out_long == out
    assert "equity (exact)" in err and err.rstrip().endswith("done")
    status, out_quiet, err = run(capsys, *argv, "--no-progress")
    assert status == 0 and out_quiet == out and err == ""


# ---------------------------------------------------------------------------------------------
# bench, info
# ---------------------------------------------------------------------------------------------

def test_bench_tiny(capsys):
    status, out, err = run(capsys, "bench", "--n", "2000", "--peer-n", "0", "--repeats", "1",
                           "--backend", "numpy")
    assert status == 0 and err == ""
    assert out.startswith("machine: ") and "backends: numpy" in out
    for k in (5, 7):
        assert f"{k}-card hands" in out
    for what in ("bitmask (ids)", "bitmask (masks)", "perfect-hash (ids)",
                 "perfect-hash (masks)"):
        assert re.search(rf"gpu_eval numpy {re.escape(what)}\s+\d\s+[\d.]+ M/s", out)
    assert not re.search(r"^peer: ", out, re.M)


def test_info(capsys):
    status, out, err = run(capsys, "info")
    assert status == 0 and err == ""
    assert re.search(rf"gpu_eval: {re.escape(ge.__version__)}$", out, re.M)
    assert re.search(r"default_backend: (numpy|cuda)$", out, re.M)
    assert "numpy: " in out and "cuda: " in out


def test_info_json(capsys):
    status, out, err = run(capsys, "info", "--json")
    assert status == 0 and err == ""
    info = json.loads(out)
    assert info["gpu_eval"] == ge.__version__
    assert info["default_backend"] == ("cuda" if CUDA_OK else "numpy")
    assert {"python", "numpy", "cuda", "cupy"} <= set(info)


# ---------------------------------------------------------------------------------------------
# Bad input: one line on stderr, "gpu-eval <cmd>: error: ...", status 2, nothing on stdout.
# ---------------------------------------------------------------------------------------------

BAD = [
    # eval
    (["eval", "AsKsQsJsXs"], "unknown card text 'Xs'"),
    (["eval", "AsAsQsJsTs"], "used twice"),
    (["eval", "AsKs"], "2 cards"),
    (["eval", "AsKsQsJsTs9s8s7s6s5s"], "10 cards"),
    (["eval"], "no hands given"),
    (["eval", "--file", "/nonexistent/hands.txt"], "cannot read --file"),
    (["eval", "AsKsQsJsTs", "--invalid", "skip"], "invalid choice: 'skip'"),
    (["eval", "AsKsQsJsTs", "--file", "-", "--chunk-lines", "0"], "--chunk-lines"),
    (["eval", "AsKsQsJsTs", "--backend", "gpu"], "invalid choice: 'gpu'"),
    (["eval", "AsKsQsJsTs", "--game", "stud-hilo"], "invalid choice: 'stud-hilo'"),
    (["eval", "AsKsQsJsTs", "--board", "2c3c4c"], "Omaha games only"),
    (["eval", "AsKsQsJsTs", "--bogus"], "unrecognized arguments: --bogus"),
    # equity
    (["equity", "AhKh"], "2 to 10 players"),
    (["equity", *["random"] * 11], "2 to 10 players"),
    (["equity", "AhKx", "QQ"], "player 1"),
    (["equity", "AhKh", "AhQh"], "card Ah is used twice"),
    (["equity", "AhKh", "QQ", "--board", "AhQsQd"], "used twice"),
    (["equity", "AhKh", "QQ", "--board", "2c"], "0, 3, 4 or 5 cards"),
    (["equity", "AhKh", "QQ", "--board", "2c3c4c5c6c7c"], "0, 3, 4 or 5 cards"),
    (["equity", "AhKh", "QQ", "--board", "2c3c4c", "--dead", "2c"], "card 2c is both"),
    (["equity", "AhKh", "QQ", "--dead", "Qs Qh Qd Qc"], "empty after removing"),
    (["equity", "AhKh", ""], "empty hand or range"),
    (["equity", "AhKh", "ZZ"], "bad range token 'ZZ'"),
    (["equity", "AhKh", "QQ", "--samples", "0"], "argument --samples: must be at least 1"),
    (["equity", "AhKh", "QQ", "--samples", "lots"], "argument --samples"),
    (["equity", "AhKh", "QQ", "--seed", "-1"], "argument --seed"),
    (["equity", "AhKh", "QQ", "--exact", "--samples", "10"], "not allowed with"),
    (["equity", "AhKh", "QQ", "--backend", "tpu"], "invalid choice: 'tpu'"),
    # bench
    (["bench", "--n", "0"], "argument --n: must be at least 1"),
    (["bench", "--n", "many"], "argument --n"),
    (["bench", "--repeats", "0"], "argument --repeats"),
    (["bench", "--peer-n", "-1"], "argument --peer-n"),
    (["bench", "--backend", "fpga"], "invalid choice: 'fpga'"),
    # info
    (["info", "--verbose"], "unrecognized arguments: --verbose"),
]
if not CUDA_OK:
    BAD += [(["eval", "AsKsQsJsTs", "--backend", "cuda"], "--backend cuda is not available"),
            (["equity", "AhKh", "QQ", "--backend", "cuda"], "--backend cuda is not available"),
            (["bench", "--n", "10", "--backend", "cuda"], "--backend cuda is not available")]


@pytest.mark.parametrize("argv, reason", BAD, ids=[" ".join(a)[:60] for a, _ in BAD])
def test_bad_input_one_line(capsys, argv, reason):
    status, out, err = run(capsys, *argv)
    line = assert_one_error_line(status, out, err, argv[0])
    assert status == 2
    assert out == ""
    assert reason in line


@pytest.mark.parametrize("argv", [[], ["play"]])
def test_bad_command(capsys, argv):
    status, out, err = run(capsys, *argv)
    assert_one_error_line(status, out, err, None)


def test_help_is_not_an_error(capsys):
    status, out, err = run(capsys, "equity", "--help")
    assert status == 0 and "--no-progress" in out and err == ""


def test_long_exact_warning_is_one_line(capsys, monkeypatch):
    """A warning that an exact run is long prints as one 'warning:' line, not a traceback
    of warnings' source lines."""
    import dataclasses

    from gpu_eval.equity_engine.holdem import strategies

    slow = dataclasses.replace(strategies.ENGINE, rates={"numpy": 1.0, "cuda": 1.0})
    monkeypatch.setattr(strategies, "ENGINE", slow)  # every run now "takes minutes"
    status, out, err = run(capsys, "equity", "AhKh", "QsQd", "--board", "2c7d9s", "--exact",
                           "--no-progress")
    assert status == 0 and out.startswith("exact: 990 boards")
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("gpu-eval equity: warning: exact equity")


# ---------------------------------------------------------------------------------------------
# The installed console script.
# ---------------------------------------------------------------------------------------------

def _script() -> Path:
    name = "gpu-eval.exe" if os.name == "nt" else "gpu-eval"
    path = Path(sys.executable).parent / name
    if not path.exists():
        pytest.skip(f"the console script is not installed next to {sys.executable}")
    return path


def test_console_script_main_job():
    """The README's main job: gpu-eval equity AhKh "QQ+,AKs" --exact."""
    proc = subprocess.run([str(_script()), "equity", "AhKh", "QQ+,AKs", "--exact"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    head = proc.stdout.splitlines()[0]
    assert re.fullmatch(r"exact \(table\): 15 matchups x 1,712,304 boards \((numpy|cuda)\)",
                        head), head
    assert re.search(r"AhKh\s+37\.6688%\s+28\.8055%\s+17\.7265%", proc.stdout)
    assert re.search(r"QQ\+,AKs\s+62\.3312%\s+53\.4679%\s+17\.7265%", proc.stdout)


def test_console_script_bad_input():
    proc = subprocess.run([str(_script()), "equity", "AhKh", "AhQh"], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.splitlines() == [
        "gpu-eval equity: error: card Ah is used twice: by player 2 (AhQh) and player 1 (AhKh)"]
    proc = subprocess.run([str(_script()), "eval", "--backend"], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 2 and len(proc.stderr.splitlines()) == 1
    assert proc.stderr.startswith("gpu-eval eval: error: argument --backend")
