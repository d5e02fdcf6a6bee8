"""The committed notebooks as files (not run: ``tests/test_notebooks.py`` runs them): every
cell has an id, no saved output shows a developer's machine path, and the docs' notebooks page
lists every notebook."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
#: An absolute path of a machine: a POSIX home, work or temporary folder, or a Windows drive.
MACHINE_PATH = re.compile(r"(?<![\w.~])/(?:home|root|Users|work|tmp|mnt|opt|srv|var|private)/"
                          r"[^\s\"'<>]*|\b[A-Za-z]:\\\\[^\s\"'<>]+")


def test_there_are_notebooks():
    assert len(NOTEBOOKS) >= 8


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_every_cell_has_an_id(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    assert (nb["nbformat"], nb["nbformat_minor"]) >= (4, 5), "cell ids need nbformat 4.5"
    ids = [c.get("id") for c in nb["cells"]]
    missing = [i for i, c in enumerate(ids) if not c]
    assert not missing, f"{path.name}: cells {missing} have no id"
    assert len(set(ids)) == len(ids), f"{path.name}: cell ids repeat"
    assert all(re.fullmatch(r"[A-Za-z0-9_-]{1,64}", c) for c in ids)


def _outputs_text(cell: dict) -> str:
    """Everything a saved output shows as text (streams, results, errors; not images)."""
    parts = []
    for out in cell.get("outputs", []):
        parts += out.get("text", [])
        parts += out.get("traceback", [])
        for kind, value in out.get("data", {}).items():
            if kind.startswith("text/") or kind == "application/json":
                parts += value if isinstance(value, list) else [str(value)]
    return "".join(parts)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_no_machine_path_in_saved_outputs(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    found = [(i, m) for i, c in enumerate(nb["cells"])
             for m in MACHINE_PATH.findall(_outputs_text(c))]
    assert not found, f"{path.name}: outputs show machine paths (cell, path): {found}"


def test_the_path_check_finds_paths():
    cell = {"outputs": [{"output_type": "stream", "text": [
        "gpu_eval 0.1.0 from /work/wt-notebooks/gpu_eval/__init__.py\n"]},
        {"output_type": "execute_result", "data": {"text/plain": ["'C:\\\\Users\\\\me\\\\x'"]}}]}
    assert len(MACHINE_PATH.findall(_outputs_text(cell))) == 2
    fine = {"outputs": [{"output_type": "stream", "text": ["../gpu_eval/__init__.py 1/2\n"]}]}
    assert not MACHINE_PATH.findall(_outputs_text(fine))


def test_the_notebooks_page_lists_every_notebook():
    page = (ROOT / "docs" / "notebooks.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\|\s*\[`([\w.-]+\.ipynb)`\]\(_notebooks/([\w.-]+\.ipynb)\)", page, re.M)
    listed = {a for a, b in rows if a == b}
    missing = sorted(p.name for p in NOTEBOOKS if p.name not in listed)
    assert not missing, f"docs/notebooks.md has no row for {missing}"
    assert listed <= {p.name for p in NOTEBOOKS}, "docs/notebooks.md lists a missing notebook"
