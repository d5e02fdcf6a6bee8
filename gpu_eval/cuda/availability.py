"""Whether the CUDA backend can run here: the one answer for the whole package.

CuPy is imported only inside these functions, never when this module is imported, and
:func:`is_cupy_array` never imports it at all.
"""

from __future__ import annotations

import sys
from functools import cache
from typing import Any

from gpu_eval.cuda import driver

__all__ = ["CudaUnavailableError", "cuda_available", "require_cuda", "import_cupy",
           "is_cupy_array", "CUPY_MISSING", "NO_DEVICE"]

CUPY_MISSING = ("backend='cuda' needs CuPy: pip install cupy-cuda13x (cupy-cuda12x for a "
                "CUDA 12 driver), the cuda13 / cuda12 extra of gpu-eval")
NO_DEVICE = "CuPy is installed but no CUDA device is visible: {}"


class CudaUnavailableError(RuntimeError):
    """The CUDA backend was requested but CuPy or a CUDA device is missing."""


def import_cupy():
    """Import CuPy, or raise :class:`CudaUnavailableError` saying why it cannot be."""
    try:
        import cupy  # noqa: PLC0415 -- optional dependency, imported on first use
    except ModuleNotFoundError as exc:
        raise CudaUnavailableError(f"{CUPY_MISSING} ({exc})") from exc
    except Exception as exc:  # CuPy present but broken (e.g. mismatched CUDA libraries)
        raise CudaUnavailableError(
            f"CuPy is installed but failed to import: {type(exc).__name__}: {exc}"
        ) from exc
    return cupy


@cache
def cuda_available() -> tuple[bool, str]:
    """Whether the CUDA backend can run here, and why (not).

    Returns
    -------
    (bool, str)
        ``(True, description of the devices)`` or ``(False, reason)``; the reason says
        whether CuPy is missing or no device is visible. The answer is cached.

    Examples
    --------
    >>> ok, reason = cuda_available()
    >>> isinstance(ok, bool) and isinstance(reason, str)
    True
    """
    no_driver = driver.missing_reason()  # spares the 0.2 s of importing CuPy for nothing
    if no_driver is not None:
        return False, f"{no_driver}; CuPy was not imported (GPU_EVAL_PROBE_CUDA=1 asks it anyway)"
    try:
        cupy = import_cupy()
    except CudaUnavailableError as exc:
        return False, str(exc)
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:  # CUDARuntimeError: no driver, no device, ...
        return False, NO_DEVICE.format(f"{type(exc).__name__}: {exc}")
    if count <= 0:
        return False, NO_DEVICE.format("the CUDA runtime reports 0 devices")
    try:
        name = cupy.cuda.runtime.getDeviceProperties(0)["name"]
        name = name.decode() if isinstance(name, bytes) else str(name)
    except Exception:  # the name is only informative
        name = "?"
    return True, f"{count} CUDA device(s); device 0: {name}"


def require_cuda():
    """Return the ``cupy`` module, or raise :class:`CudaUnavailableError` saying why not.

    Examples
    --------
    >>> ok, _ = cuda_available()
    >>> try:
    ...     cupy = require_cuda()
    ... except CudaUnavailableError:
    ...     cupy = None
    >>> (cupy is not None) == ok
    True
    """
    ok, reason = cuda_available()
    if not ok:
        raise CudaUnavailableError(reason)
    return import_cupy()


def is_cupy_array(x: Any) -> bool:
    """Whether ``x`` is a CuPy array, decided without importing CuPy: if CuPy has not been
    imported, nothing can be one of its arrays.

    Examples
    --------
    >>> import numpy as np
    >>> is_cupy_array(np.zeros(3))
    False
    """
    cp = sys.modules.get("cupy")
    return cp is not None and isinstance(x, cp.ndarray)
