"""The documentation: every example on the pages runs (doctest), and every game the registry
knows is in the README's game table and on the games page."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

from gpu_eval.games import registry

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
# A Markdown fence line ends an example's expected output, as a blank line does in doctest.
FENCE = re.compile(r"^\s*(```|~~~|:::).*$", re.M)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_page_examples_run(page: Path):
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    test = doctest.DocTestParser().get_doctest(text, {}, page.name, str(page), 0)
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    runner.run(test)
    assert runner.failures == 0, f"{page.name}: {runner.failures} example(s) failed (output above)"


def _table_games(text: str) -> set[str]:
    """The games named in the first column of every Markdown table row (``"name"``)."""
    names: set[str] = set()
    for line in text.splitlines():
        if line.lstrip().startswith("|"):
            first = line.strip().strip("|").split("|")[0]
            names.update(re.findall(r'"([a-z0-9-]+)"', first))
    return names


@pytest.mark.parametrize("where", ["README.md", "docs/games.md"])
def test_every_game_is_in_the_game_tables(where: str):
    present = _table_games((ROOT / where).read_text(encoding="utf-8"))
    missing = [g for g in registry.names() if g not in present]
    assert not missing, (f"{where}: the game table has no row for {', '.join(map(repr, missing))} "
                         f"(every name of gpu_eval.games.registry.names() needs one, "
                         f'as `"name"` in the first column)')


def test_ci_runs_the_readme_test_command():
    """The README's second command (install, lint, test) is, verbatim, a line of .ci/run."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    commands = re.findall(r"```bash\n(python3 -m venv .venv && .*)\n```", readme)
    assert len(commands) == 2, "the README's two commands (main job, tests) are gone"
    test_command = next(c for c in commands if "pytest" in c)
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert test_command in ci, ".ci/run no longer runs the README's test command"
