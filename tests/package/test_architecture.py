"""The package's layout rules, read from its source with ``ast`` (nothing but the game
registry, for the game names, is imported).

* No import cycle between the package's modules, counting deferred imports inside functions
  (only ``if TYPE_CHECKING:`` blocks are left out), and counting that importing ``a.b.c``
  first runs the packages ``a`` and ``a.b``.
* No module imports an underscore-private name from another module of the package: what one
  module uses of another is that module's declared internal API.
* Each game's name is spelled in the game registry only (docstrings aside).
* Data flows down the layers: the layer table of ``docs/architecture.md`` lists every module
  once, and no module imports (``import``, ``from``, or ``importlib.import_module("...")``,
  deferred or not) a module of a higher layer.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from gpu_eval.games import registry  # the game names only: a module that imports nothing

PACKAGE = Path(__file__).resolve().parents[2] / "gpu_eval"
LAYER_DOC = PACKAGE.parent / "docs" / "architecture.md"
#: Every game name (all 19): each is spelled in the registry alone.
GAME_NAMES = tuple(registry.GAMES)
REGISTRY = "gpu_eval.games.registry"
#: Packages whose ``__init__`` is a public API (imports its modules' public names).
PUBLIC_PACKAGES = ("gpu_eval", "gpu_eval.distributed")


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


MODULES = _modules()


def _is_package(name: str) -> bool:
    return MODULES[name].name == "__init__.py"


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _import_nodes(tree: ast.AST):
    """Every Import/ImportFrom, at any depth, outside ``if TYPE_CHECKING:`` blocks."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            stack.extend(node.orelse)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        stack.extend(ast.iter_child_nodes(node))


def _absolute(module: str, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".")
    if not _is_package(module):
        base = base[:-1]
    base = base[:len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _with_parents(name: str) -> list[str]:
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts) + 1)]


def _import_module_strings(tree: ast.AST) -> list[str]:
    """The literal module names passed to ``importlib.import_module`` / ``import_module``."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant) \
                and isinstance(node.args[0].value, str):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) \
                else ""
            if name == "import_module":
                out.append(node.args[0].value)
    return out


def _imports(module: str, source: str | None = None) -> list[tuple[str, list[str]]]:
    """``(imported module, names taken from it)`` for each import statement of ``module``
    (and each literal ``import_module("...")``); ``source`` replaces the file's text."""
    text = MODULES[module].read_text() if source is None else source
    tree = ast.parse(text, filename=str(MODULES[module]))
    found = [(name, []) for name in _import_module_strings(tree)]
    for node in _import_nodes(tree):
        if isinstance(node, ast.Import):
            found += [(a.name, []) for a in node.names]
            continue
        target = _absolute(module, node)
        plain = []
        for alias in node.names:
            if f"{target}.{alias.name}" in MODULES:   # ``from pkg import submodule``
                found.append((f"{target}.{alias.name}", []))
            else:
                plain.append(alias.name)
        found.append((target, plain))
    return [(t, names) for t, names in found if t.split(".")[0] == "gpu_eval"]


def _graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {m: set() for m in MODULES}
    for module in MODULES:
        for target, _ in _imports(module):
            for dep in _with_parents(target):
                if dep in MODULES and dep != module and not module.startswith(dep + "."):
                    graph[module].add(dep)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_checker_sees_a_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle():
    cycles = _cycles(_graph())
    assert not cycles, "import cycles: " + "; ".join(" <-> ".join(c) for c in cycles)


def test_top_package_imports_no_subpackage_cycle_through_init():
    # Subpackage __init__ files only document: importing one submodule never drags in the
    # rest of its subpackage (the root package is the public API and may import anything, and
    # so may gpu_eval.distributed, the cluster's public API at the top layer).
    for name, path in MODULES.items():
        if path.name == "__init__.py" and name not in PUBLIC_PACKAGES:
            assert not _imports(name), f"{name}/__init__.py imports code; keep it a docstring"


def test_no_private_name_crosses_modules():
    offenders = []
    for module in MODULES:
        for target, names in _imports(module):
            if target == module:
                continue
            if target.rsplit(".", 1)[-1].startswith("_") and target.rsplit(".", 1)[-1] != "__init__":
                offenders.append(f"{module} imports private module {target}")
            offenders += [f"{module} imports {target}.{n}" for n in names
                          if n.startswith("_") and not n.startswith("__")]
    assert not offenders, "\n".join(offenders)


def _module_aliases(module: str) -> dict[str, str]:
    """Local names bound to other modules of the package by ``module``'s imports."""
    tree = ast.parse(MODULES[module].read_text())
    out = {}
    for node in _import_nodes(tree):
        if isinstance(node, ast.Import):
            out.update({a.asname: a.name for a in node.names if a.asname and a.name in MODULES})
            continue
        target = _absolute(module, node)
        for a in node.names:
            if f"{target}.{a.name}" in MODULES:
                out[a.asname or a.name] = f"{target}.{a.name}"
    return out


def test_no_private_attribute_of_another_module_is_used():
    offenders = []
    for module in MODULES:
        aliases = _module_aliases(module)
        tree = ast.parse(MODULES[module].read_text())
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id in aliases and node.attr.startswith("_")
                    and not node.attr.startswith("__")):
                offenders.append(f"{module}:{node.lineno} uses "
                                 f"{aliases[node.value.id]}.{node.attr}")
    assert not offenders, "\n".join(offenders)


def _string_constants(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            doc = node.body[0] if node.body else None
            if (isinstance(doc, ast.Expr) and isinstance(doc.value, ast.Constant)
                    and isinstance(doc.value.value, str)):
                docstrings.add(id(doc.value))
    return {n.value for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str)
            and id(n) not in docstrings}


@pytest.mark.parametrize("game", GAME_NAMES)
def test_game_name_lives_in_the_registry(game):
    users = sorted(m for m, p in MODULES.items() if game in _string_constants(p))
    assert REGISTRY in users, f"{game!r} is not a record of {REGISTRY}"
    others = [m for m in users if m != REGISTRY]  # the CLI reads the registry too
    assert not others, f"{game!r} is spelled out in {others}; read it from {REGISTRY}"


# --- layers ------------------------------------------------------------------------------------

def _layers() -> dict[str, int]:
    """Module -> layer number (0 top), read from the table under ``## Layers`` in
    docs/architecture.md: a row ``| n | `a.py`, `pkg/` ... | job |`` per layer, top first;
    a folder entry stands for every module in it."""
    text = LAYER_DOC.read_text()
    section = text[text.index("## Layers"):]
    section = section[:section.index("\n## ", 3)]
    out: dict[str, int] = {}
    for line in section.splitlines():
        m = re.match(r"\|\s*(\d+)\s*\|(.*?)\|", line)
        if not m:
            continue
        layer = int(m.group(1))
        for entry in re.findall(r"`([^`]+)`", m.group(2)):
            if entry.endswith("/"):
                prefix = "gpu_eval." + entry.rstrip("/").replace("/", ".")
                names = [n for n in MODULES if n == prefix or n.startswith(prefix + ".")]
            else:
                names = [_module_name(PACKAGE / entry)]
            for name in names:
                assert name in MODULES, f"the layer table names {entry}, which does not exist"
                assert name not in out, f"{entry} is in two layers"
                out[name] = layer
    return out


def _layered() -> set[str]:
    """Modules the layer rule applies to: all but docstring-only subpackage ``__init__``s."""
    return {m for m in MODULES if not _is_package(m) or m in PUBLIC_PACKAGES}


def _upward(layers: dict[str, int], sources: dict[str, str] | None = None) -> list[str]:
    """Every import of a module from a higher layer (``sources`` replaces some files)."""
    sources = sources or {}
    out = []
    for module in sorted(_layered()):
        if module == "gpu_eval":  # the public names: above every layer
            continue
        for target, _ in _imports(module, sources.get(module)):
            for dep in _with_parents(target):
                if dep in layers and dep != module and not module.startswith(dep + ".") \
                        and dep != "gpu_eval" and layers[dep] < layers[module]:
                    out.append(f"{module} (layer {layers[module]}) imports {dep} "
                               f"(layer {layers[dep]})")
    return sorted(set(out))


def test_every_module_has_one_layer():
    layers = _layers()
    missing = sorted(_layered() - set(layers))
    assert not missing, f"add these modules to the layer table of {LAYER_DOC.name}: {missing}"


def test_no_upward_import():
    bad = _upward(_layers())
    assert not bad, "imports against the layer order:\n" + "\n".join(bad)


@pytest.mark.parametrize("injected", [
    "from gpu_eval import cli\n",
    "def f():\n    from gpu_eval.equity_engine import api  # noqa\n",
    "import importlib\nimportlib.import_module('gpu_eval.distributed.runner')\n",
    "from importlib import import_module\ndef f():\n    return import_module('gpu_eval.frames')\n",
])
def test_checker_sees_an_upward_import(injected):
    layers = _layers()
    victim = "gpu_eval.combinatorics"  # a foundation: everything is above it
    source = MODULES[victim].read_text() + "\n" + injected
    before = set(_upward(layers))
    seen = sorted(set(_upward(layers, {victim: source})) - before)
    bottom = f"{victim} (layer {layers[victim]}) imports "
    assert seen and all(b.startswith(bottom) for b in seen), seen
