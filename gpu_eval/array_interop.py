"""Arrays of other libraries in, the caller's kind of array out, without a copy.

Any object with ``__dlpack__`` (PyTorch, JAX, CuPy, NumPy, ...) or
``__cuda_array_interface__`` (Numba, CuPy, ...) is *adopted*: on the host it is viewed as a
NumPy array through ``numpy.from_dlpack``, on a CUDA device as a CuPy array through
``cupy.from_dlpack`` (``cupy.asarray`` for the CUDA array interface); neither copies. The
library then runs its NumPy or CuPy path on the view, so results and errors are exactly those
of NumPy (or CuPy) input, and the result goes back to the caller's kind of array, again
through DLPack: torch in, torch out; JAX in, JAX out; Numba in, Numba out; an unknown
producer gets NumPy (host) or CuPy (device) arrays, which every DLPack consumer reads back
without a copy.

Which library made an array is read from ``type(x).__module__``; a framework is imported only
when the input is its own, and CuPy only for device input.

**Streams.** Device work runs on the caller's stream when the input names one, so it is ordered
after the work that produced the input and before the caller's next work, without blocking
the host: a PyTorch tensor's current stream (``torch.cuda.current_stream``), or the
``"stream"`` entry of a ``__cuda_array_interface__``, becomes the CuPy stream through
``cupy.cuda.ExternalStream``. Other DLPack producers (JAX, an unknown one) do not publish a
stream: the work runs on CuPy's current stream, and DLPack's own rule orders it, since
``cupy.from_dlpack`` passes that stream to the producer's ``__dlpack__(stream=...)`` (the
producer makes its data ready there) and the consumer of the result passes its stream to
CuPy's ``__dlpack__``, which makes that stream wait for ours.

Functions that only run on the host (the strength readers, the card conversions) read a device
input to the host once, on the same stream, and put their result back on the caller's device.

Examples
--------
>>> import numpy as np
>>> class Ids:  # any object that speaks DLPack, here one wrapping NumPy ids
...     def __init__(self, a): self.a = a
...     def __dlpack__(self, **kw): return self.a.__dlpack__()
...     def __dlpack_device__(self): return self.a.__dlpack_device__()
>>> ids = np.array([[51, 47, 43, 39, 35]], dtype=np.uint8)
>>> got = adopt(Ids(ids))
>>> np.shares_memory(got.array, ids), got.kind, got.on_device
(True, 'dlpack', False)
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import inspect
import sys
from collections.abc import Callable
from importlib import import_module
from typing import Any, TypeVar, cast

import numpy as np

__all__ = ["Adopted", "adopt", "accepts_arrays", "is_foreign", "CUPY_NEEDED"]

_F = TypeVar("_F", bound=Callable[..., Any])

# DLPack device types (dlpack.h DLDeviceType).
_KDL_CUDA = 2
_KDL_CUDA_MANAGED = 13
_DEVICE_TYPES = (_KDL_CUDA, _KDL_CUDA_MANAGED)
_HOST_TYPES = (1, 3, 11)  # CPU, CUDA pinned host memory, ROCm pinned host memory
_NATIVE = (str, bytes, list, tuple, int, float, np.ndarray, np.generic)

CUPY_NEEDED = ("an array on a CUDA device needs CuPy to be read without a copy: "
               "pip install cupy-cuda13x (cupy-cuda12x for a CUDA 12 driver)")


def _library(x) -> str:
    """The top-level package of the library whose type ``x`` is (``"torch"``, ``"jaxlib"``)."""
    return type(x).__module__.partition(".")[0]


def is_foreign(x) -> bool:
    """Whether ``x`` is another library's array: neither NumPy nor CuPy, but it speaks DLPack or
    the CUDA array interface.

    Examples
    --------
    >>> import numpy as np
    >>> is_foreign(np.zeros(3)), is_foreign([1, 2]), is_foreign("AsKs")
    (False, False, False)
    """
    if x is None or isinstance(x, _NATIVE) or _library(x) == "cupy":
        return False
    return hasattr(x, "__dlpack__") or hasattr(x, "__cuda_array_interface__")


def _is_cupy(x) -> bool:
    cp = sys.modules.get("cupy")
    return cp is not None and isinstance(x, cp.ndarray)


def _cupy():
    try:
        return import_module("cupy")
    except ImportError as exc:
        raise TypeError(f"{CUPY_NEEDED} ({exc})") from exc


def _kind(x) -> str:
    lib = _library(x)
    if lib == "torch":
        return "torch"
    if lib in ("jax", "jaxlib"):
        return "jax"
    if lib == "numba":
        return "numba"
    if lib == "cupy":
        return "cupy"
    if isinstance(x, (np.ndarray, np.generic)):
        return "numpy"
    return "dlpack" if hasattr(x, "__dlpack__") else "cai"


@dataclasses.dataclass(frozen=True, eq=False)
class Adopted:
    """An input taken over: its NumPy or CuPy view, and how to give results back.

    Attributes
    ----------
    array : numpy.ndarray, cupy.ndarray or the input itself
        What the library's NumPy or CuPy path reads: a view of the input (a host copy of a
        device input for host-only functions); non-array inputs are passed through.
    kind : str
        The caller's kind of array: ``"numpy"``, ``"cupy"``, ``"torch"``, ``"jax"``,
        ``"numba"``, ``"dlpack"`` (an unknown DLPack producer) or ``"cai"`` (an unknown
        ``__cuda_array_interface__`` producer); ``"other"`` for what is no array.
    on_device : bool
        Whether the input lies on a CUDA device.
    device_id : int or None
        Its device, where known.
    stream : int or None
        The caller's CUDA stream handle the work runs on (None: CuPy's current stream).
    """

    array: Any
    kind: str
    on_device: bool = False
    device_id: int | None = None
    stream: int | None = None

    def scope(self) -> contextlib.AbstractContextManager:
        """The device and stream the work on this input runs in (nothing on the host)."""
        if not self.on_device:
            return contextlib.nullcontext()
        cp = _cupy()
        stack = contextlib.ExitStack()
        if self.device_id is not None:
            stack.enter_context(cp.cuda.Device(self.device_id))
        if self.stream is not None:
            stack.enter_context(cp.cuda.ExternalStream(self.stream))
        return stack

    def back(self, result):
        """``result`` (arrays, a dataclass or tuple of them, or anything else) as the caller's
        kind of array, on the caller's device; strings and lists of them are left alone.
        Call it inside :meth:`scope`."""
        if isinstance(result, (np.ndarray, np.generic)) or _is_cupy(result):
            return self._one(result)
        if isinstance(result, tuple):  # Showdown and other named tuples keep their type
            items = [self.back(r) for r in result]
            return type(result)(*items) if hasattr(result, "_fields") else tuple(items)
        if dataclasses.is_dataclass(result) and not isinstance(result, type):
            changes = {f.name: self._one(v) for f in dataclasses.fields(result)
                       if isinstance(v := getattr(result, f.name), (np.ndarray, np.generic))
                       or _is_cupy(v)}
            return dataclasses.replace(result, **changes)
        return result

    def _one(self, a):
        if isinstance(a, np.generic):
            a = np.asarray(a)  # a NumPy scalar becomes a 0-d array of the caller's kind
        if self.on_device and isinstance(a, np.ndarray):
            a = _cupy().asarray(a)  # a host-only function's result, back on the device
        if self.kind in ("numpy", "cupy", "dlpack", "cai", "other"):
            return a
        if self.kind == "numba":
            return import_module("numba.cuda").as_cuda_array(a)
        if self.kind == "jax":
            return _to_jax(a)
        if isinstance(a, np.ndarray) and not a.flags.writeable:
            a = a.copy()  # PyTorch has no read-only tensors: never hand out a writable alias
        return import_module("torch").from_dlpack(a)


def _to_jax(a):
    jax = import_module("jax")
    if a.dtype == np.uint64 and not jax.config.jax_enable_x64:
        raise TypeError("these results are uint64 (hand masks), which JAX holds only in "
                        "64-bit mode: jax.config.update('jax_enable_x64', True), or pass "
                        "NumPy input")
    try:
        return import_module("jax.dlpack").from_dlpack(a)
    except BufferError:  # NumPy exports a read-only result only to DLPack 1.0 consumers
        return import_module("jax.dlpack").from_dlpack(a.copy())


def _torch_stream(x) -> tuple[int | None, int | None]:
    """``(device index, current stream handle)`` of a CUDA tensor."""
    torch = import_module("torch")
    return x.device.index, torch.cuda.current_stream(x.device).cuda_stream


def adopt(x, *, host_only: bool = False) -> Adopted:
    """Take over an input: a zero-copy NumPy or CuPy view of it and the caller's kind.

    Parameters
    ----------
    x : object
        Anything a public function takes. NumPy and CuPy arrays, text, lists and numbers
        pass through as they are; another library's array (``__dlpack__`` or
        ``__cuda_array_interface__``) is viewed without a copy: as NumPy on the host, as
        CuPy on a CUDA device.
    host_only : bool
        The function runs on the host only: a device input (CuPy arrays included) is read
        to the host on the caller's stream, and :meth:`Adopted.back` returns the result to
        the device.

    Returns
    -------
    Adopted
        The view (``.array``), the caller's kind, device and stream, ``.scope()`` (run the
        work inside it) and ``.back(result)``.

    Raises
    ------
    TypeError
        A device array without CuPy installed, or memory neither NumPy nor CUDA can read.

    Examples
    --------
    >>> import numpy as np
    >>> a = np.arange(3)
    >>> adopt(a).array is a, adopt(a).kind, adopt("AsKs").kind
    (True, 'numpy', 'other')
    """
    if _is_cupy(x):
        got = Adopted(x, "cupy", on_device=True, device_id=x.device.id)
        if host_only:
            with got.scope():
                return dataclasses.replace(got, array=x.get())
        return got
    if not is_foreign(x):
        return Adopted(x, "numpy" if isinstance(x, (np.ndarray, np.generic)) else "other")
    kind = _kind(x)
    if hasattr(x, "__dlpack_device__") and hasattr(x, "__dlpack__"):
        device_type, device_id = (int(v) for v in x.__dlpack_device__())
        if device_type in _HOST_TYPES:
            return Adopted(np.from_dlpack(x), kind)
        if device_type not in _DEVICE_TYPES:
            raise TypeError(f"a {type(x).__name__} on DLPack device type {device_type}: only "
                            f"host memory and CUDA devices can be read")
        stream: int | None = None
        device: int | None = device_id
        if kind == "torch":
            device, stream = _torch_stream(x)
        got = Adopted(None, kind, on_device=True, device_id=device, stream=stream)
        with got.scope():  # the producer makes its data ready on the stream we run on
            view = _cupy().from_dlpack(x)
            return dataclasses.replace(got, array=view.get() if host_only else view)
    if hasattr(x, "__cuda_array_interface__"):
        stream = x.__cuda_array_interface__.get("stream")
        got = Adopted(None, kind, on_device=True, stream=stream)
        with got.scope():
            view = _cupy().asarray(x)
            return dataclasses.replace(got, array=view.get() if host_only else view,
                                       device_id=view.device.id)
    return Adopted(np.from_dlpack(x), kind)  # __dlpack__ without __dlpack_device__: host


def accepts_arrays(*names: str, host_only: bool = False) -> Callable[[_F], _F]:
    """Decorator: the parameters ``names`` of a public function take any array.

    Each named argument that is another library's array (or, with ``host_only``, a CuPy
    array), or a list or tuple of them, is adopted (:func:`adopt`); the first such array in
    ``names`` order decides the kind, device and stream of the result. Calls without one go
    straight through.

    Examples
    --------
    >>> import numpy as np
    >>> @accepts_arrays("x")
    ... def double(x):
    ...     return np.asarray(x) * 2
    >>> double([1, 2]).tolist()
    [2, 4]
    """
    def wanted(v) -> bool:
        if type(v) is str:  # card text, the commonest argument
            return False
        return is_foreign(v) or (host_only and _is_cupy(v))

    def decorate(fn: _F) -> _F:
        params = list(inspect.signature(fn).parameters)
        where = [(n, params.index(n)) for n in names]

        @functools.wraps(fn)
        def call(*args, **kwargs):
            found = []
            for name, i in where:
                v = args[i] if i < len(args) else kwargs.get(name)
                t = type(v)
                if t is str or v is None:  # card text, the commonest argument
                    continue
                if t is list or t is tuple:  # one array per player, or text per player
                    if v and wanted(v[0]):
                        found.append((name, i, v))
                elif wanted(v) or (isinstance(v, (list, tuple)) and v and wanted(v[0])):
                    found.append((name, i, v))
            if not found:
                return fn(*args, **kwargs)
            args = list(args)
            lead = None
            for name, i, v in found:
                if isinstance(v, (list, tuple)):  # a list of arrays, e.g. one per player
                    got = [adopt(e, host_only=host_only) for e in v]
                    lead, view = lead or got[0], type(v)(g.array for g in got)
                else:
                    got = adopt(v, host_only=host_only)
                    lead, view = lead or got, got.array
                if i < len(args):
                    args[i] = view
                else:
                    kwargs[name] = view
            with lead.scope():
                return lead.back(fn(*args, **kwargs))

        return cast(_F, call)  # functools.wraps: fn's own signature

    return decorate
