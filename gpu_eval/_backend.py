"""Choosing the backend: ``"auto" | "numpy" | "cuda"``, without importing CuPy needlessly."""

from __future__ import annotations

import sys

BACKENDS = ("auto", "numpy", "cuda")


def is_cupy_array(x) -> bool:
    """True for a CuPy array; never imports CuPy (if it is not imported, x can't be one)."""
    cp = sys.modules.get("cupy")
    return cp is not None and isinstance(x, cp.ndarray)


def cuda_status() -> tuple[bool, str]:
    """``(available, reason)``: whether CuPy imports and sees a CUDA device, and why not.

    One answer for the whole package (cached by ``_cuda.cuda_available``).
    """
    from ._cuda import cuda_available  # _cuda imports CuPy only inside its functions

    return cuda_available()


def resolve(backend: str, *inputs) -> str:
    """The backend to run on: ``"numpy"`` or ``"cuda"``.

    ``auto`` picks CUDA for CuPy inputs, and for other inputs when a device is usable.
    ``cuda`` without a usable device raises ``RuntimeError`` saying what is missing.
    """
    if backend not in BACKENDS:
        raise ValueError(f"backend={backend!r}: expected one of {', '.join(BACKENDS)}")
    if backend == "numpy":
        return "numpy"
    if backend == "auto" and any(is_cupy_array(x) for x in inputs):
        return "cuda"
    ok, why = cuda_status()
    if backend == "cuda" and not ok:
        raise RuntimeError(f"backend='cuda' is not available: {why}")
    return "cuda" if ok else "numpy"
