"""Every shell line of the README and the docs' pages works from a clone, without a network.

Each ``pip install`` (in a shell block or in running text) is checked against the extras
of ``pyproject.toml``: the package is installed from a clone (``pip install -e ".[extra]"``),
since ``gpu-eval`` is not on PyPI. Each ``gpu-eval ...`` line of a shell block is parsed by the
command line's own parser and, unless it is one of the long jobs (``bench``, ``tables``), run
in-process in a folder holding the ``hands.txt`` the pages read; a ``$ gpu-eval ...`` line is
followed by what it prints, which must match. A ``gpu-eval ...`` span in running text names a
real subcommand and real options of it.
"""

from __future__ import annotations

import io
import re
import shlex
import sys
from pathlib import Path

import pytest

from gpu_eval.cli import build_parser, main

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    tomllib = pytest.importorskip("tomli")

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))
EXTRAS = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
             ["optional-dependencies"])
#: Other projects a page or a message tells the reader to install, and why.
THIRD_PARTY = {
    "jupyterlab": "the notebook front end, the reader's choice (getting-started.md)",
    "dask-cuda": "one Dask worker per GPU; from RAPIDS, CUDA-version specific (distributed.md)",
    "cupy-cuda13x": "what the cuda13 extra installs: a hint that works with or without a clone",
    "cupy-cuda12x": "what the cuda12 extra installs",
    "nvidia-cuda-nvrtc": "NVRTC, when CuPy is there but its compiler library is not",
    "pandas": "what the frames extra installs", "matplotlib": "what the frames extra installs",
    "dask": "dask[distributed], what the distributed extra installs",
    "eval7": "a peer the throughput notebook measures when it is installed",
}
#: Where messages and docstrings of the package (and the notebooks) can tell a user to install.
HINT_SOURCES = sorted((ROOT / "gpu_eval").rglob("*.py")) + sorted((ROOT / "notebooks").glob(
    "*.ipynb"))
#: Subcommands whose documented lines are long jobs (a compile of every module is half a
#: minute of CPU, a table or a benchmark minutes) or need a GPU: parsed, not run. So is
#: ``report --all-flops`` (every flop: test_report_equity.py counts that space once, and
#: test_report_outputs.py runs the command on a few flops).
LONG = {"bench", "tables", "compile"}
#: The file of hands the pages' ``--file hands.txt`` lines read.
HANDS = "AsKsQsJsTs\n# a comment\n7c 5d 4h 3s 2c\nAhAd5c5s2h\n"
SHELL_FENCES = {"", "bash", "sh", "shell", "console"}
FENCE = re.compile(r"^\s*(```+|~~~+)\s*([\w-]*)")


def _rel(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


def shell_lines(page: Path) -> list[tuple[int, str, list[str]]]:
    """``(line number, command, lines it prints)`` for each line of the page's shell blocks
    (unlabelled fences too: they hold commands or output, and output is skipped). A
    ``$ command`` line is followed by its output, up to the next command or the fence."""
    out: list[tuple[int, str, list[str]]] = []
    fence, lang = None, ""
    for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
        m = FENCE.match(line)
        if m and fence is None:
            fence, lang = m.group(1), m.group(2)
            continue
        if m and line.strip() == fence:
            fence = None
            continue
        if fence is None or lang not in SHELL_FENCES:
            continue
        text = line.strip()
        prompt = text.startswith("$ ")
        text = text[2:] if prompt else text
        if re.search(r"(^|[|&;]\s*)(\.venv/bin/)?(gpu-eval|pip|python3?) ", text) and not \
                re.match(r"gpu-eval( \w+)?: ", text):  # "gpu-eval equity: error: ...": output
            out.append((number, text, [] if prompt else None))
        elif out and out[-1][2] is not None and text:
            out[-1][2].append(text)
    return out


def inline_commands(page: Path) -> list[str]:
    """The ``pip install ...`` and ``gpu-eval ...`` code spans of the running text."""
    text = re.sub(r"^\s*(```|~~~).*?^\s*(```|~~~)", "", page.read_text(encoding="utf-8"),
                  flags=re.M | re.S)
    spans = (" ".join(s.split()) for s in re.findall(r"`([^`]+)`", text))
    return [s for s in spans if re.match(r"(\.venv/bin/)?(pip install|gpu-eval [a-z]+( |$))", s)]


def commands(line: str) -> list[list[str]]:
    """The simple commands of a shell line (split at ``&&``, ``;``, ``|``; redirections and
    comments dropped)."""
    lex = shlex.shlex(line, posix=True, punctuation_chars=True)
    lex.whitespace_split = True
    out: list[list[str]] = [[]]
    skip = False
    for tok in lex:
        if tok in ("&&", ";", "|", "||"):
            out.append([])
        elif tok in (">", ">>", "<", "2>"):
            skip = True
        elif skip:
            skip = False
        else:
            out[-1].append(tok)
    return [c for c in out if c]


def check_pip(argv: list[str], where: str) -> None:
    """A ``pip install`` line installs this clone with real extras, or a named third party."""
    assert argv[:2] == ["pip", "install"], where
    args = argv[2:]
    assert args, f"{where}: pip install of nothing"
    for a in args:
        if a.startswith("-"):
            assert a in ("-e", "--editable", "-q", "-U", "--upgrade"), f"{where}: option {a}"
            continue
        m = re.fullmatch(r"\.(?:\[([\w,-]+)\])?", a)
        if m:
            unknown = set(filter(None, (m.group(1) or "").split(","))) - EXTRAS
            assert not unknown, (f"{where}: {a!r} names extras that pyproject.toml does not "
                                 f"define: {sorted(unknown)} (it has {sorted(EXTRAS)})")
            continue
        name = re.split(r"[\[<>=!~ ]", a, maxsplit=1)[0].lower().replace("_", "-")
        assert name not in ("gpu-eval", "gpu_eval"), (
            f"{where}: {a!r} installs from PyPI, where gpu-eval is not published; from a clone "
            f"it is pip install -e \".[...]\"")
        assert name in THIRD_PARTY, f"{where}: pip install {a!r}: not an extra of ours"


def _subparsers() -> dict:
    return build_parser()._subcommands


def check_inline_gpu_eval(argv: list[str], where: str) -> None:
    """A span of running text names a real subcommand and only that subcommand's options."""
    subs = _subparsers()
    assert argv[1] in subs, f"{where}: no subcommand {argv[1]!r} (there are {sorted(subs)})"
    known = {o for a in subs[argv[1]]._actions for o in a.option_strings}
    unknown = [a.split("=")[0] for a in argv[2:] if a.startswith("--")
               and a.split("=")[0] not in known]
    assert not unknown, f"{where}: gpu-eval {argv[1]} has no option {unknown}"


def _cases():
    for page in PAGES:
        for number, line, printed in shell_lines(page):
            yield pytest.param(page, number, line, printed, id=f"{_rel(page)}:{number}")


@pytest.mark.parametrize("page, number, line, printed", list(_cases()))
def test_shell_line_works_from_a_clone(page, number, line, printed, capsys, tmp_path,
                                       monkeypatch):
    where = f"{_rel(page)}:{number}: {line}"
    monkeypatch.chdir(tmp_path)
    (tmp_path / "hands.txt").write_text(HANDS, encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", io.StringIO(HANDS))  # what `zcat hands.txt.gz |` gives
    for argv in commands(line):
        prog = argv[0].removeprefix(".venv/bin/")
        if prog == "pip":
            check_pip(["pip", *argv[1:]], where)
        elif prog == "gpu-eval":
            args = argv[1:]
            try:
                build_parser().parse_args(args)
            except SystemExit as exc:  # --help, or the parser's own error exit
                assert exc.code == 0, f"{where}: the parser refuses it"
            if args[0] in LONG or "--all-flops" in args:
                continue  # parsed above; what it runs is tested where it lives
            status = main(args)
            out, err = capsys.readouterr()
            if printed is not None:  # "$ gpu-eval ..." then what it prints (stderr alone
                shown = err if re.search(r"\s>\s*\S+\s*$", line) else out + err  # if > file)
                assert shown.splitlines() == printed, where
            else:
                assert status == 0, f"{where}: exit status {status}: {err}"
        # other programs (python3 -m venv, ruff, zcat) are not ours to check


@pytest.mark.parametrize("page", PAGES, ids=_rel)
def test_inline_commands_work_from_a_clone(page):
    for span in inline_commands(page):
        where = f"{_rel(page)}: `{span}`"
        for argv in commands(span.replace("|", "/")):  # `river|turn|flop` is a choice, no pipe
            prog = argv[0].removeprefix(".venv/bin/")
            if prog == "pip":
                check_pip(["pip", *argv[1:]], where)
            elif prog == "gpu-eval":
                check_inline_gpu_eval(argv, where)


def test_the_pages_have_shell_lines():
    """The extraction finds the lines it is meant to check (a changed fence style would
    otherwise make every test above pass on nothing)."""
    found = {_rel(p): [line for _, line, _ in shell_lines(p)] for p in PAGES}
    assert any("pip install -e" in line for line in found["README.md"])
    assert sum(line.startswith("gpu-eval ") for line in found["docs/command-line.md"]) >= 10
    assert any(line.startswith("pip") or ".venv/bin/pip" in line
               for line in found["docs/distributed.md"])
    spans = inline_commands(ROOT / "README.md")
    assert any(s.startswith((".venv/bin/pip install", "pip install")) for s in spans)


def install_hints(path: Path) -> list[str]:
    """The first requirement of every ``pip install`` a source file or notebook writes (in a
    message, a docstring or a cell), with its ``-e``."""
    text = path.read_text(encoding="utf-8").replace('\\"', '"')
    return [m.group(1) for m in re.finditer(
        r"pip install ((?:-e\s+)?(?:'[^']*'|\"[^\"]*\"|[\w.\[\],-]+))", text)]


@pytest.mark.parametrize("path", HINT_SOURCES, ids=_rel)
def test_install_hints_in_messages_work(path):
    for hint in install_hints(path):
        check_pip(["pip", "install", *shlex.split(hint)], f"{_rel(path)}: pip install {hint}")


def test_install_hints_are_found():
    hints = [h for p in HINT_SOURCES for h in install_hints(p)]
    assert any(h.startswith("cupy-cuda13x") for h in hints) and len(hints) >= 6, hints


@pytest.mark.parametrize("bad", ['pip install "gpu-eval[distributed]"', "pip install gpu_eval",
                                 'pip install -e ".[distributd]"', "pip install requests"])
def test_pip_check_refuses_what_fails_from_a_clone(bad):
    with pytest.raises(AssertionError):
        for argv in commands(bad):
            check_pip(argv, bad)
