"""The public API is fully typed: the package ships ``py.typed``, so every user's type checker
reads its annotations. Every function, class and method that ``gpu_eval`` and
``gpu_eval.distributed`` export (``gpu_eval.cards`` with its own ``__all__``) annotates each
parameter and its return, and the annotations name real types (``typing.get_type_hints``).
mypy itself runs over the whole package in ``.ci/run``."""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable, Iterator

import numpy as np
import pytest

import gpu_eval
import gpu_eval.distributed as ged


def _methods(qual: str, cls: type) -> Iterator[tuple[str, Callable]]:
    for name, attr in vars(cls).items():
        if name.startswith("_") and name != "__init__":
            continue
        if isinstance(attr, property):
            attr = attr.fget
        elif isinstance(attr, (staticmethod, classmethod)):
            attr = attr.__func__
        if inspect.isfunction(attr):
            yield f"{qual}.{name}", attr


def public_callables() -> Iterator[tuple[str, Callable]]:
    """``(qualified name, function)`` of every exported function, class and method (decorators
    unwrapped: they keep the signature)."""
    for module in (gpu_eval, ged):
        for name in module.__all__:
            obj, qual = getattr(module, name), f"{module.__name__}.{name}"
            if inspect.ismodule(obj):
                for sub in obj.__all__:
                    fn = inspect.unwrap(getattr(obj, sub))
                    if inspect.isfunction(fn):
                        yield f"{qual}.{sub}", fn
            elif inspect.isclass(obj):
                yield from _methods(qual, obj)
            elif callable(obj):
                yield qual, inspect.unwrap(obj)


CALLABLES = dict(public_callables())


def test_the_public_api_is_found():
    assert {"gpu_eval.evaluate", "gpu_eval.equity", "gpu_eval.Range.__init__",
            "gpu_eval.cards.parse", "gpu_eval.HandIndexer.index",
            "gpu_eval.distributed.flop_sweep"} <= set(CALLABLES)
    assert len(CALLABLES) > 75


@pytest.mark.parametrize("name", sorted(CALLABLES))
def test_every_parameter_and_return_is_annotated(name):
    sig = inspect.signature(CALLABLES[name])
    missing = [p.name for p in sig.parameters.values()
               if p.name not in ("self", "cls") and p.annotation is inspect.Parameter.empty]
    if sig.return_annotation is inspect.Signature.empty:
        missing.append("return")
    assert not missing, f"{name}: no annotation on {', '.join(missing)}"


def test_the_annotations_name_real_types():
    # What the package imports for type checkers only (``if TYPE_CHECKING:``): the optional
    # libraries of the frames and distributed extras.
    only_typing = {"Client": pytest.importorskip("distributed").Client,
                   "pd": pytest.importorskip("pandas"),
                   "Axes": pytest.importorskip("matplotlib.axes").Axes}
    unresolved = []
    for name, fn in CALLABLES.items():
        try:
            typing.get_type_hints(fn, localns=only_typing)
        except Exception as exc:  # NameError, TypeError: an annotation that names nothing
            unresolved.append(f"{name}: {type(exc).__name__}: {exc}")
    assert not unresolved, "\n".join(unresolved)


def test_the_one_array_games_are_the_registry_s():
    """``evaluate``'s overloads type a literal game name's result: one array for the games of
    ``registry.OneScaleGame``, a ``(high, low)`` pair for ``registry.PairGame``. The lists are
    the records'."""
    from gpu_eval.games import registry

    one_array = {g for g in registry.names(hilo=False) if not registry.get(g).is_omaha}
    pair = {g for g in registry.names(hilo=True) if not registry.get(g).is_omaha}
    assert set(typing.get_args(registry.OneScaleGame)) == one_array
    assert set(typing.get_args(registry.PairGame)) == pair
    for game in sorted(one_array | pair):
        record = registry.get(game)
        five = ["Ah", "Kd", "9s", "8c", "7h"] if record.lowest_rank else ["Ah", "Kd", "4s", "3c",
                                                                          "2h"]
        rows = [" ".join(five[:record.evaluate_cards[0]])] * 2  # rows: arrays, never scalars
        got = gpu_eval.evaluate(rows, game=game)
        if game in pair:
            assert isinstance(got, tuple) and len(got) == 2, game
            assert all(isinstance(a, np.ndarray) and a.shape == (2,) for a in got), game
        else:
            assert isinstance(got, np.ndarray) and got.shape == (2,), game
