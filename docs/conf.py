"""Sphinx configuration of gpu_eval's documentation site.

Build it with ``python -m sphinx -W -b html docs docs/_build/html`` (``.ci/run`` does, with
warnings as errors). The API reference is generated here from ``gpu_eval.__all__`` at every
build, so a public name added to the package gets its page without an edit to the docs; every
``docs/*.md`` page is in the table of contents of ``index.md`` (user pages, then the
contributors' under their own heading), and the notebooks are rendered with
the outputs they are committed with (never re-executed).
"""

from __future__ import annotations

import inspect
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

import gpu_eval  # noqa: E402 -- after the path is set

project = "gpu_eval"
author = "gpu_eval contributors"
copyright = "gpu_eval contributors"
release = version = gpu_eval.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "myst_nb",
]

# Markdown (MyST) pages and notebooks; notebooks are shown with their committed outputs.
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
nb_execution_mode = "off"
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3
suppress_warnings = ["myst.header"]  # the notebooks' own headings may skip a level

templates_path = ["_templates"]
exclude_patterns = ["_build", "**.ipynb_checkpoints"]

html_theme = "furo"
html_title = f"gpu_eval {release}"

# The API reference: one page per public name (autosummary), docstrings read by numpydoc.
autosummary_generate = True
autosummary_imported_members = True
autodoc_default_options = {"members": True, "inherited-members": False}
autodoc_typehints = "none"  # the numpydoc Parameters sections carry the types
numpydoc_show_class_members = False  # the class template lists the members itself
numpydoc_class_members_toctree = False
# An undocumented public object is a warning, so `-W` fails the build on it.
numpydoc_validation_checks = {"GL08"}

API_DIR = HERE / "api"
NOTEBOOKS_SRC = ROOT / "notebooks"
NOTEBOOKS_DIR = HERE / "_notebooks"
#: What each public data name of ``gpu_eval.__all__`` is (data has no docstring of its own).
DATA_DOCS = {
    "__version__": "The version of this gpu_eval, as in ``pyproject.toml``; ``gpu-eval info`` "
                   "prints it, and the documentation is of this version.",
}
#: Public modules documented besides ``gpu_eval.__all__`` (scale-out has its own namespace).
EXTRA_MODULES = ["gpu_eval.distributed"]


def _api_page() -> str:
    """The API index: every name in ``gpu_eval.__all__``, grouped by kind."""
    modules, classes, functions, data = [], [], [], []
    for name in gpu_eval.__all__:
        obj = getattr(gpu_eval, name)
        if inspect.ismodule(obj):
            modules.append(name)
        elif inspect.isclass(obj):
            classes.append(name)
        elif callable(obj):
            functions.append(name)
        else:
            data.append(name)
    out = ["# API reference", "",
           "Everything here is `import gpu_eval as ge`; the list is generated from "
           "`gpu_eval.__all__` when the site is built.", ""]
    for title, names in (("Functions", functions), ("Classes", classes),
                         ("Modules", modules + [m.removeprefix("gpu_eval.") for m in EXTRA_MODULES])):
        out += [f"## {title}", "", "```{eval-rst}", ".. currentmodule:: gpu_eval", "",
                ".. autosummary::", "   :toctree: generated", "   :nosignatures:", ""]
        out += [f"   {n}" for n in names]
        out += ["```", ""]
    if data:
        out += ["## Data", ""]
        for n in data:
            if n not in DATA_DOCS:
                raise ValueError(f"gpu_eval.{n} is public data without a description: add it to "
                                 f"DATA_DOCS in docs/conf.py")
            out += ["```{eval-rst}", f".. py:data:: gpu_eval.{n}", f"   :value: {getattr(gpu_eval, n)!r}",
                    "", f"   {DATA_DOCS[n]}", "```", ""]
    return "\n".join(out)


def _write_if_changed(path: Path, text: str) -> None:
    # Unchanged sources keep their timestamps, so an incremental build stays incremental.
    if not path.is_file() or path.read_text() != text:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


#: Links in the notebooks to repository files, and the page of this site that shows each.
NOTEBOOK_LINKS = {"](../benchmarks/RESULTS.md)": "](../performance.md)"}


def _copy_notebooks() -> None:
    """The notebooks, as committed, beside the pages (Sphinx reads only its source folder)."""
    NOTEBOOKS_DIR.mkdir(exist_ok=True)
    wanted = {p.name for p in NOTEBOOKS_SRC.glob("*.ipynb")}
    for p in NOTEBOOKS_DIR.glob("*.ipynb"):
        if p.name not in wanted:
            p.unlink()
    for name in sorted(wanted):
        text = (NOTEBOOKS_SRC / name).read_text()
        for old, new in NOTEBOOK_LINKS.items():
            text = text.replace(old, new)
        _write_if_changed(NOTEBOOKS_DIR / name, text)


_write_if_changed(API_DIR / "index.md", _api_page())
_copy_notebooks()
