"""``cached_property`` without a lock: an attribute worked out on first read and kept.

:func:`functools.cached_property` takes a lock on every first read up to Python 3.11 (3.12
dropped it: it serialised every instance of a class). An equity call builds a few set-up
objects whose attributes are each read first once, so on 3.11 the lock is a measurable part
of a call of tens of microseconds. This descriptor is the 3.12 one: two threads reading the
same new attribute at once may both work it out, and the last one kept wins, as there.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar, overload

__all__ = ["cached_property"]

_T = TypeVar("_T")


class cached_property(Generic[_T]):  # noqa: N801 -- named as the functools one it replaces
    """A method turned into an attribute worked out on first read and then kept in the
    instance's ``__dict__`` (which must exist; frozen dataclasses are fine).

    Examples
    --------
    >>> class Spot:
    ...     @cached_property
    ...     def boards(self) -> int:
    ...         print("counting")
    ...         return 990
    >>> s = Spot()
    >>> s.boards
    counting
    990
    >>> s.boards
    990
    """

    def __init__(self, fn: Callable[[Any], _T]) -> None:
        self.fn = fn
        self.name = fn.__name__
        self.__doc__ = fn.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, obj: None, cls: type | None = None) -> cached_property[_T]: ...

    @overload
    def __get__(self, obj: object, cls: type | None = None) -> _T: ...

    def __get__(self, obj: object | None, cls: type | None = None) -> Any:
        if obj is None:
            return self
        value = obj.__dict__[self.name] = self.fn(obj)
        return value
