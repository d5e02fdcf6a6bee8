"""The API reference a user reads (the Sphinx site built from ``docs/``): whole summaries,
user words, every parameter's values and every constant's value on the page itself, and the
user pages first in the contents. Read from the docstrings and the pages; Sphinx itself is
only needed for the one check that compares with its own summary extraction.
"""

from __future__ import annotations

import ast
import inspect
import re
from functools import cache
from pathlib import Path

import pytest
from numpydoc.docscrape import ClassDoc, FunctionDoc

import gpu_eval as ge
import gpu_eval.distributed as ged
from gpu_eval import cards
from gpu_eval.games import registry

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
#: Abbreviations autosummary does not cut a summary at.
ABBREVIATIONS = ("e.g.", "i.e.", "et al.")


def public_objects() -> list[tuple[str, object]]:
    """Everything with a page or an entry on the site: ``gpu_eval.__all__`` (and the public
    members of its classes), the ``cards`` and ``distributed`` modules and their members."""
    out: list[tuple[str, object]] = []

    def add(name: str, obj: object) -> None:
        out.append((name, obj))
        if inspect.isclass(obj):
            for m, v in vars(obj).items():
                if not m.startswith("_") and (callable(v) or isinstance(v, property)):
                    out.append((f"{name}.{m}", v))

    for n in ge.__all__:
        obj = getattr(ge, n)
        if callable(obj) or inspect.ismodule(obj):
            add(f"gpu_eval.{n}", obj)
    for module, names in ((cards, cards.__all__), (ged, ged.__all__)):
        add(module.__name__, module)
        for n in names:
            obj = getattr(module, n)
            if callable(obj):
                add(f"{module.__name__}.{n}", obj)
    return out


OBJECTS = public_objects()
IDS = [n for n, _ in OBJECTS]


def doc_of(obj) -> str:
    return inspect.cleandoc(obj.__doc__ or "") if isinstance(obj, property) \
        else (inspect.getdoc(obj) or "")


def first_stanza(doc: str) -> str:
    """The first paragraph, joined: what autosummary takes a summary from."""
    lines = []
    for line in doc.strip().splitlines():
        if not line.strip():
            break
        lines.append(line.strip())
    return " ".join(lines)


def cut_at(stanza: str) -> str | None:
    """Where autosummary would cut ``stanza`` (its first period followed by a space that is
    not an abbreviation's), or None when the summary is the whole first paragraph."""
    for m in re.finditer(r"\.\s", stanza):
        if not stanza[:m.end() - 1].endswith(ABBREVIATIONS):
            return stanza[:m.start() + 1]
    return None


@pytest.mark.parametrize("name, obj", OBJECTS, ids=IDS)
def test_summary_is_whole(name, obj):
    stanza = first_stanza(doc_of(obj))
    assert stanza, f"{name} has no docstring"
    cut = cut_at(stanza)
    assert cut is None, (f"{name}: the site's summary would stop at {cut!r}: say the first "
                         f"sentence without a period followed by a space ({stanza!r})")


def test_the_cut_check_matches_sphinx():
    """``cut_at`` against Sphinx's own extraction, on the summaries the issue found cut and on
    every public summary."""
    autosummary = pytest.importorskip("sphinx.ext.autosummary",
                                      reason="Sphinx is in the docs extra")
    from docutils.frontend import get_default_settings
    from docutils.parsers.rst import Parser

    settings = get_default_settings(Parser)
    settings.report_level = 5  # quiet
    cut = ["Strength from a Cactus Kev rank (1 best .. 7462 worst).",
           "Hands per category, ``int64[9]``: 0 high card .. 8 straight flush."]
    for stanza in cut:
        assert cut_at(stanza) is not None
        assert autosummary.extract_summary([stanza], settings) != stanza
    for name, obj in OBJECTS:
        stanza = first_stanza(doc_of(obj))
        if stanza and cut_at(stanza) is None:
            got = autosummary.extract_summary(doc_of(obj).splitlines(), settings)
            assert got.rstrip(".") == stanza.rstrip(".").rstrip(":"), name


# ---------------------------------------------------------------------------------------------
# User words: what the layouts are, not which source document the project started from.
# ---------------------------------------------------------------------------------------------

SEED_DOC = re.compile(r"(?i)\bseed\s*\d{3}\b|\bthe seed's\b|\bseed \d+'s\b")


@pytest.mark.parametrize("name, obj", OBJECTS, ids=IDS)
def test_no_seed_documents_in_public_docstrings(name, obj):
    doc = doc_of(obj)
    assert not SEED_DOC.search(doc), f"{name}: {SEED_DOC.search(doc).group()!r}"
    summary = first_stanza(doc)
    takes_seed = callable(obj) and not isinstance(obj, property) and \
        "seed" in _parameters(obj)
    if not takes_seed:  # "seed" only as the name of the function's own random seed
        assert not re.search(r"(?i)\bseed\b", summary), f"{name}: {summary!r}"


def _parameters(obj) -> set[str]:
    try:
        return set(inspect.signature(obj).parameters)
    except (TypeError, ValueError):
        return set()


PAGES = sorted(DOCS.glob("*.md")) + [ROOT / "README.md"] + sorted(
    (ROOT / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_seed_documents_on_the_pages(page):
    found = SEED_DOC.findall(page.read_text(encoding="utf-8"))
    assert not found, f"{page.name}: {found}"


# ---------------------------------------------------------------------------------------------
# Nothing points to what the site does not show.
# ---------------------------------------------------------------------------------------------

PUBLIC_TARGETS = set(ge.__all__) | {"cards", "distributed"} | \
    {f"cards.{n}" for n in cards.__all__} | {f"distributed.{n}" for n in ged.__all__}


@pytest.mark.parametrize("name, obj", OBJECTS, ids=IDS)
def test_no_pointer_to_a_page_the_site_does_not_have(name, obj):
    doc = doc_of(obj)
    assert "module docstring" not in doc, f"{name} sends the reader to a module docstring"
    datas = re.findall(r":data:`([^`]+)`", doc)
    assert not datas, f"{name} names constants {datas} that have no page: give their values"
    for target in re.findall(r":(?:mod|func|class|meth|attr):`~?(gpu_eval\.[^`]+)`", doc):
        short = target.removeprefix("gpu_eval.")
        assert short in PUBLIC_TARGETS or short.split(".")[0] in set(ge.__all__), \
            f"{name} links to {target}, which has no page"


# ---------------------------------------------------------------------------------------------
# Values on the page: every game a function takes, every constant's value.
# ---------------------------------------------------------------------------------------------

G = registry.GAMES
LOWS = set(registry.LOW_SCALES)
HIGH_SCALES = (registry.HOLDEM, registry.SHORTDECK, registry.SHORTDECK_TRITON)


def games(pred) -> set[str]:
    return {n for n in registry.names() if pred(G[n])}


#: The games each public function's ``game`` takes, from the registry's records.
GAMES_TAKEN = {
    "equity": games(lambda g: bool(g.engine)),
    "equity_batch": games(lambda g: bool(g.engine)),
    "category": games(lambda g: True) | {registry.WILD},
    "describe": games(lambda g: True) | {registry.WILD},
    "to_value": games(lambda g: g.scale in HIGH_SCALES) | {registry.WILD},
    "from_value": games(lambda g: g.scale in HIGH_SCALES) | {registry.WILD},
    "to_cactus_kev": games(lambda g: g.scale == registry.HOLDEM),
    "to_rating": games(lambda g: g.scale in HIGH_SCALES),
    "from_rating": games(lambda g: g.scale in HIGH_SCALES),
    "hand_type": games(lambda g: g.scale in HIGH_SCALES),
    "evaluate": games(lambda g: not g.is_omaha),
    "evaluate_omaha": games(lambda g: g.is_omaha),
    "evaluate_low": games(lambda g: g.is_omaha),
    "Range": games(lambda g: True),
    "HandIndexer": games(lambda g: g.evaluator in (registry.HOLDEM, registry.SHORTDECK)
                                      and g.deal == registry.BOARD),
    "hole_pairs": games(lambda g: g.evaluator in (registry.HOLDEM, registry.SHORTDECK)
                                      and g.deal == registry.BOARD),
    "board_strengths": games(lambda g: g.evaluator in (registry.HOLDEM, registry.SHORTDECK)
                                      and g.deal == registry.BOARD),
    "river_strength": games(lambda g: g.evaluator in (registry.HOLDEM, registry.SHORTDECK)
                                      and g.deal == registry.BOARD),
    "strength_histograms": games(lambda g: g.evaluator in (registry.HOLDEM, registry.SHORTDECK)
                                      and g.deal == registry.BOARD),
    "range_report": games(lambda g: g.evaluator in (registry.HOLDEM, registry.SHORTDECK,
                                                    registry.OMAHA)
                                    and g.deal == registry.BOARD and not g.hilo),
}


def _param_doc(obj, param: str) -> str:
    doc = ClassDoc(obj) if inspect.isclass(obj) else FunctionDoc(obj)
    for p in doc["Parameters"]:
        if param in [s.strip() for s in p.name.split(",")]:
            return p.type + " " + " ".join(p.desc)
    return ""


def test_every_function_with_a_game_is_listed():
    takes = {n for n in ge.__all__ if callable(getattr(ge, n))
             and "game" in _parameters(getattr(ge, n))}
    assert takes == set(GAMES_TAKEN), f"update GAMES_TAKEN: {sorted(takes ^ set(GAMES_TAKEN))}"


@pytest.mark.parametrize("name", sorted(GAMES_TAKEN))
def test_every_game_a_function_takes_is_on_its_page(name):
    text = _param_doc(getattr(ge, name), "game")
    assert text, f"gpu_eval.{name} documents no game parameter"
    missing = sorted(g for g in GAMES_TAKEN[name] if f'"{g}"' not in text)
    assert not missing, f"gpu_eval.{name}: its game parameter does not name {missing}"


def test_the_games_listed_for_equity_are_those_it_plays():
    for g in sorted(registry.names()):
        if g in GAMES_TAKEN["equity"]:
            continue
        with pytest.raises(ValueError, match=repr(g)):
            ge.equity(["7c5d4h3s2c", "8c6d4s3h2d"], game=g)
    deck = "AsKsQsJsTs9s8s"
    for g in sorted(GAMES_TAKEN["evaluate_omaha"]):  # each takes its own hole size
        assert int(ge.evaluate_omaha(deck[:2 * G[g].hole_cards], "2h3h4h", game=g)) > 0


@cache
def _sources() -> tuple[tuple[Path, str], ...]:
    """Every module of the package and its text, read once."""
    return tuple((path, path.read_text(encoding="utf-8"))
                 for path in sorted((ROOT / "gpu_eval").rglob("*.py")))


@cache
def _body(path: Path, text: str) -> list[ast.stmt]:
    return ast.parse(text).body


def _constants(name: str) -> list[float]:
    """Every value ``name`` is set to at the top level of a module of the package (read from
    the source, wherever the module lives)."""
    found = []
    for path, text in _sources():
        if name not in text:  # cannot set it; parsing the whole package takes half a second
            continue
        for node in _body(path, text):
            if isinstance(node, ast.Assign) and any(
                    isinstance(t, ast.Name) and t.id == name for t in node.targets):
                found.append(eval(compile(ast.Expression(node.value), str(path), "eval"),
                                  {"__builtins__": {}}))
    assert found, f"no module sets {name}"
    return found


def _written(v: float) -> list[str]:
    """How a docstring may write ``v``: ``3e8``, ``1,000,000``."""
    out = [f"{int(v):,}"] if float(v).is_integer() else []
    mantissa, exp = f"{v:.0e}".split("e")
    return out + [f"{mantissa}e{int(exp)}"]


@pytest.mark.parametrize("function, constant", [
    (ge.equity, "EXACT_WORK_LIMIT"), (ge.equity, "DEFAULT_SAMPLES"),
    (ge.equity_matrix, "DEFAULT_TABLE_SAMPLES"), (ge.preflop_table, "DEFAULT_TABLE_SAMPLES"),
    (ged.equity, "TASK_WORK"), (ged.equity, "MC_BLOCK"), (ged.equity_matrix, "BOARD_BLOCK"),
    (ged.preflop_table, "BOARD_BLOCK"),
], ids=lambda x: getattr(x, "__qualname__", x))
def test_constants_have_their_values_on_the_page(function, constant):
    doc = " ".join(doc_of(function).split())
    for value in _constants(constant):  # both EXACT_WORK_LIMITs: NumPy's and the GPU's
        assert any(w in doc for w in _written(value)), \
            f"{function.__qualname__}: {constant} = {value} is not written on its page"


def test_public_data_has_a_description():
    """docs/conf.py describes every public data name (no stub line under ``__version__``)."""
    tree = ast.parse((DOCS / "conf.py").read_text(encoding="utf-8"))
    described = next(ast.literal_eval(n.value) for n in tree.body if isinstance(n, ast.Assign)
                     and any(getattr(t, "id", "") == "DATA_DOCS" for t in n.targets))
    data = [n for n in ge.__all__ if not callable(getattr(ge, n))
            and not inspect.ismodule(getattr(ge, n))]
    assert data and set(data) <= set(described)
    for n in data:
        assert len(described[n].split()) >= 5 and f"gpu_eval.{n}" not in described[n]


# ---------------------------------------------------------------------------------------------
# The contents: the user pages first, the contributors' pages under their own heading.
# ---------------------------------------------------------------------------------------------

def _toctrees(text: str) -> list[tuple[str, list[str]]]:
    out = []
    for body in re.findall(r"```\{toctree\}\n(.*?)```", text, re.S):
        caption = re.search(r"^:caption:\s*(.+)$", body, re.M)
        entries = [ln.strip() for ln in body.splitlines()
                   if ln.strip() and not ln.strip().startswith(":")]
        out.append((caption.group(1).strip() if caption else "", entries))
    return out


def test_user_pages_first_and_contributors_apart():
    trees = _toctrees((DOCS / "index.md").read_text(encoding="utf-8"))
    assert [c for c, _ in trees] == ["User guide", "Contributors"]
    user, contributors = trees[0][1], trees[1][1]
    assert contributors == ["architecture"]
    pages = {p.stem for p in DOCS.glob("*.md")} - {"index"}
    assert set(user) | set(contributors) == pages | {"api/index"}
    assert user[0] == "getting-started" and "api/index" in user
    assert not any("*" in e for e in user + contributors), "a glob would mix the two lists"


@pytest.mark.parametrize("name, obj", [(n, o) for n, o in OBJECTS
                                       if callable(o) and not isinstance(o, property)],
                         ids=[n for n, o in OBJECTS if callable(o) and not isinstance(o, property)])
def test_every_documented_parameter_says_what_it_takes(name, obj):
    """A parameter listed with neither values (``{"a", "b"}``) nor a description tells the
    reader nothing on its page."""
    doc = ClassDoc(obj) if inspect.isclass(obj) else FunctionDoc(obj)
    bare = [p.name for p in doc["Parameters"]
            if not " ".join(p.desc).strip() and not p.type.strip().startswith("{")]
    assert not bare, f"{name}: parameters {bare} have no description"
