"""Kernels' host builds under AddressSanitizer and UBSan, for the tests and the sanitizer job.

A host library built with :data:`FLAGS` (``emulation.kernel_build.load(name, sanitize=True)``)
reports an out-of-bounds read, a bad shift or any other undefined behaviour of the kernel code
it runs, and stops the process. The ASan runtime must be the first library a process loads, so
such a library runs in a fresh interpreter started with the compiler's ``libasan`` preloaded
(:func:`environment`): :func:`run` for a test, which reads its exit status and standard
error; ``tests/emulation/sanitize.py`` re-executes itself so.
"""

from __future__ import annotations

import os
import subprocess
import sys
from functools import cache
from pathlib import Path

from emulation import hostbuild

__all__ = ["FLAGS", "runtime", "environment", "run"]

#: Compiler flags of a sanitized host library (one OS thread per launch keeps reports
#: readable: emulation.kernel_build).
FLAGS: tuple[str, ...] = ("-O1", "-g", "-std=c++17", "-shared", "-fPIC", "-Wall",
                          "-Wno-unknown-pragmas", "-fno-strict-aliasing",
                          "-fno-omit-frame-pointer", "-fsanitize=address,undefined",
                          "-fno-sanitize-recover=all")
_TESTS = Path(__file__).resolve().parents[1]


@cache
def runtime() -> str:
    """The path of the compiler's ASan runtime, to preload.

    Raises
    ------
    hostbuild.HostBuildUnavailableError
        If there is no compiler, or it has no ASan runtime.
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


def environment(**extra: str) -> dict[str, str]:
    """This process's environment for a child that loads sanitized builds: the ASan runtime
    preloaded, the first report fatal, ``tests/`` on its path, plus ``extra``."""
    return {**os.environ, "LD_PRELOAD": runtime(),
            "ASAN_OPTIONS": "detect_leaks=0:abort_on_error=1:halt_on_error=1",
            "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1",
            "PYTHONPATH": os.pathsep.join(filter(None, [str(_TESTS),
                                                        os.environ.get("PYTHONPATH")])),
            **extra}


def run(code: str, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    """Run ``code`` (with ``args`` as ``sys.argv[1:]``) in a fresh Python with the ASan
    runtime preloaded (:func:`environment`); a sanitizer report makes it exit non-zero with
    the report on standard error."""
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          env=environment(), timeout=timeout)
