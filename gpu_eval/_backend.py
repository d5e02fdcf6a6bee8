"""Choosing the backend: ``"auto" | "numpy" | "cuda"``, without importing CuPy needlessly."""

from __future__ import annotations

import sys
from functools import lru_cache

BACKENDS = ("auto", "numpy", "cuda")


def is_cupy_array(x) -> bool:
    """True for a CuPy array; never imports CuPy (if it is not imported, x can't be one)."""
    cp = sys.modules.get("cupy")
    return cp is not None and isinstance(x, cp.ndarray)


@lru_cache(maxsize=1)
def cuda_status() -> tuple[bool, str]:
    """``(available, reason)``: whether CuPy imports and sees a CUDA device, and why not."""
    try:
        import cupy  # noqa: F401  (imported here only, on demand)
    except Exception as exc:  # ImportError, or a broken CUDA install raising something else
        return False, (f"CuPy is not importable ({type(exc).__name__}: {exc}); install "
                       f"gpu-eval[cuda12] or gpu-eval[cuda13]")
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:
        return False, f"CuPy is installed but no CUDA device is usable ({exc})"
    if count < 1:
        return False, "CuPy is installed but no CUDA device is visible"
    return True, f"{count} CUDA device(s)"


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
