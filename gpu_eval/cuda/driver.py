"""Is an NVIDIA driver here at all? Decided from files, before paying for ``import cupy``.

Importing CuPy takes about 0.2 s, and on a machine without the NVIDIA driver it can only end
in "no device". The driver leaves cheap traces: its device files (``/dev/nvidiactl``,
``/dev/nvidia0``, ...; ``/dev/dxg`` under WSL 2) and its user-space library (``libcuda.so.1``,
``nvcuda.dll`` on Windows). :func:`missing_reason` looks for them; when none is found, the
CUDA backend reports itself unavailable without importing CuPy. Set the environment variable
``GPU_EVAL_PROBE_CUDA=1`` to skip this check and always ask CuPy (for an unusual install), and
CuPy is always asked when it is already imported.
"""

from __future__ import annotations

import ctypes.util
import os
import sys
from collections.abc import Sequence

__all__ = ["missing_reason", "driver_files_missing", "LIB_DIRS"]

#: Where distributions and the NVIDIA installers put ``libcuda.so.1`` (and LD_LIBRARY_PATH).
LIB_DIRS = ("/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib",
            "/usr/local/cuda/lib64", "/usr/local/cuda/compat", "/usr/lib/wsl/lib",
            "/usr/local/nvidia/lib64", "/usr/local/nvidia/lib")
_DEVICE_FILES = ("nvidiactl", "nvidia0", "dxg")


def missing_reason(dev_dir: str = "/dev", lib_dirs: Sequence[str] | None = None,
                   platform: str | None = None) -> str | None:
    """Why no NVIDIA driver can be present, or None when one may be (then ask CuPy).

    None as well when CuPy is already imported or ``GPU_EVAL_PROBE_CUDA`` is set; otherwise
    :func:`driver_files_missing`.

    Examples
    --------
    >>> isinstance(missing_reason(), (str, type(None)))
    True
    """
    if "cupy" in sys.modules or os.environ.get("GPU_EVAL_PROBE_CUDA", "") not in ("", "0"):
        return None
    return driver_files_missing(dev_dir, lib_dirs, platform)


def driver_files_missing(dev_dir: str = "/dev", lib_dirs: Sequence[str] | None = None,
                         platform: str | None = None) -> str | None:
    """Why the driver's files show no NVIDIA driver, or None when they may.

    Parameters
    ----------
    dev_dir : str
        Where device files live (a parameter for the tests).
    lib_dirs : sequence of str, optional
        Where to look for ``libcuda.so.1`` (default :data:`LIB_DIRS` and ``LD_LIBRARY_PATH``).
    platform : str, optional
        ``sys.platform`` (default: this one).

    Examples
    --------
    >>> driver_files_missing(dev_dir="/nonexistent", lib_dirs=[], platform="linux")
    'no NVIDIA driver found (no /nonexistent/nvidia* device files, no libcuda.so.1)'
    """
    platform = sys.platform if platform is None else platform
    if not platform.startswith("linux"):
        if platform == "darwin":
            return "no NVIDIA driver on macOS"
        name = "nvcuda" if platform.startswith("win") else "cuda"
        return None if ctypes.util.find_library(name) else f"no NVIDIA driver found (no {name})"
    if any(os.path.exists(os.path.join(dev_dir, f)) for f in _DEVICE_FILES):
        return None
    try:
        if any(f.startswith("nvidia") and f[6:].isdigit() for f in os.listdir(dev_dir)):
            return None
    except OSError:
        pass
    if lib_dirs is None:
        extra = [d for d in os.environ.get("LD_LIBRARY_PATH", "").split(os.pathsep) if d]
        lib_dirs = [*extra, *LIB_DIRS]
    if any(os.path.exists(os.path.join(d, "libcuda.so.1")) for d in lib_dirs):
        return None
    return f"no NVIDIA driver found (no {dev_dir}/nvidia* device files, no libcuda.so.1)"
