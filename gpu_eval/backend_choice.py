"""Choosing the backend: ``"auto" | "numpy" | "cuda"``, without importing CuPy needlessly."""

from __future__ import annotations

from gpu_eval.cuda.availability import cuda_available, is_cupy_array

__all__ = ["BACKENDS", "check", "resolve", "cuda_status", "is_cupy_array"]

BACKENDS = ("auto", "numpy", "cuda")


def cuda_status() -> tuple[bool, str]:
    """``(available, reason)``: whether CuPy imports and sees a CUDA device, and why not.

    One answer for the whole package (cached by :func:`gpu_eval.cuda.availability.cuda_available`).

    Examples
    --------
    >>> ok, reason = cuda_status()
    >>> isinstance(ok, bool) and isinstance(reason, str)
    True
    """
    return cuda_available()


def check(backend: str) -> str:
    """``backend`` itself when it names a backend; ``ValueError`` otherwise (before any work,
    also where the work would not look at it).

    Examples
    --------
    >>> check("cuda")
    'cuda'
    >>> check("x")
    Traceback (most recent call last):
    ...
    ValueError: backend='x': expected one of auto, numpy, cuda
    """
    if not isinstance(backend, str) or backend not in BACKENDS:
        raise ValueError(f"backend={backend!r}: expected one of {', '.join(BACKENDS)}")
    return backend


def resolve(backend: str, *inputs) -> str:
    """The backend to run on: ``"numpy"`` or ``"cuda"``.

    ``auto`` picks CUDA for CuPy inputs, and for other inputs when a device is usable.
    ``cuda`` without a usable device raises ``RuntimeError`` saying what is missing.

    Examples
    --------
    >>> resolve("numpy")
    'numpy'
    """
    if check(backend) == "numpy":
        return "numpy"
    if backend == "auto" and any(is_cupy_array(x) for x in inputs):
        return "cuda"
    ok, why = cuda_status()
    if backend == "cuda" and not ok:
        raise RuntimeError(f"backend='cuda' is not available: {why}")
    return "cuda" if ok else "numpy"
