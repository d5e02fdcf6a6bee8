"""The ``extern "C"`` kernels the sources in ``kernels/`` define, read from the preprocessed
sources (so macro-generated kernels count), for checking gpu_eval's kernel manifest.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from emulation import hostbuild

__all__ = ["defined_kernels", "normalize"]

_MARKER = re.compile(r'^# (\d+) "([^"]+)"')
_DEF = re.compile(r'extern\s+"C"\s+(?:[\w()\s,]*?\s)?void\s+(\w+)\s*\(([^)]*)\)\s*\{')


def normalize(param: str) -> tuple[str, str]:
    """``(C type, name)`` of one parameter as written, spaces and ``__restrict__`` dropped.

    Examples
    --------
    >>> normalize("const ge_u64* __restrict__  masks")
    ('const ge_u64*', 'masks')
    """
    p = " ".join(param.replace("__restrict__", " ").split())
    m = re.match(r"^(.*?)\s*(\**)\s*(\w+)$", p)
    ctype, stars, name = m.groups()
    return f"{ctype}{stars}".replace(" *", "*"), name


def defined_kernels(kernel_dir: Path) -> dict[str, tuple[str, list[tuple[str, str]]]]:
    """Every ``extern "C"`` function defined by the ``.cu`` files of ``kernel_dir`` (each
    preprocessed as host C++): name -> (the file whose text defines it, its parameters).

    A kernel whose definition comes from an included file is attributed to that file (the
    preprocessor's line markers), one expanded from a macro to the file that expands it.
    """
    cxx = hostbuild.find_compiler()
    found: dict[str, tuple[str, list[tuple[str, str]]]] = {}
    for cu in sorted(Path(kernel_dir).glob("*.cu")):
        text = subprocess.run([cxx, "-std=c++17", "-E", "-x", "c++", f"-I{kernel_dir}",
                               str(cu)], capture_output=True, text=True, check=True).stdout
        current, body = cu.name, []
        chunks: list[tuple[str, str]] = []
        for line in text.splitlines():
            m = _MARKER.match(line)
            if m:
                chunks.append((current, "\n".join(body)))
                current, body = Path(m.group(2)).name, []
            else:
                body.append(line)
        chunks.append((current, "\n".join(body)))
        # A definition may straddle a marker only inside one file's text: join per file run.
        for file, chunk in chunks:
            for m in _DEF.finditer(chunk):
                params = [normalize(p) for p in m.group(2).split(",") if p.strip()]
                found.setdefault(m.group(1), (file, params))
    return found
