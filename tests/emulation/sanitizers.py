"""Kernels' host builds under AddressSanitizer and UBSan, for the tests.

A host library built with :data:`FLAGS` reports an out-of-bounds read, a bad shift or any
other undefined behaviour of the kernel code it runs, and stops the process. The ASan runtime
must be the first library a process loads, so such a library runs in a fresh interpreter
started by :func:`run` with the compiler's ``libasan`` preloaded; the test reads its exit status
and standard error.
"""

from __future__ import annotations

import os
import subprocess
import sys
from functools import cache
from pathlib import Path

from emulation import hostbuild

__all__ = ["FLAGS", "runtime", "run"]

#: Compiler flags of a sanitized host library (no OpenMP: one thread keeps reports readable).
FLAGS: tuple[str, ...] = ("-O1", "-g", "-std=c++17", "-shared", "-fPIC", "-Wall",
                          "-Wno-unknown-pragmas", "-fsanitize=address,undefined",
                          "-fno-sanitize-recover=all", "-fno-omit-frame-pointer")
_TESTS = Path(__file__).resolve().parents[1]


@cache
def runtime() -> str:
    """The path of the compiler's ASan runtime, to preload.

    Raises
    ------
    hostbuild.HostBuildUnavailableError
        If the compiler has no ASan runtime.
    """
    cxx = hostbuild.find_compiler()
    try:
        path = subprocess.run([cxx, "-print-file-name=libasan.so"], capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError) as exc:
        raise hostbuild.HostBuildUnavailableError(f"{cxx} has no ASan runtime: {exc}") from exc
    if not os.path.isabs(path) or not os.path.exists(path):
        raise hostbuild.HostBuildUnavailableError(f"{cxx} has no ASan runtime ({path!r})")
    return path


def run(code: str, timeout: float = 300) -> subprocess.CompletedProcess:
    """Run ``code`` in a fresh Python with the ASan runtime preloaded (``tests/`` on its
    path); a sanitizer report makes it exit non-zero with the report on standard error."""
    env = dict(os.environ, LD_PRELOAD=runtime(), ASAN_OPTIONS="detect_leaks=0",
               UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1",
               PYTHONPATH=os.pathsep.join(filter(None, [str(_TESTS),
                                                        os.environ.get("PYTHONPATH")])))
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=timeout)
