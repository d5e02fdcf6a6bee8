"""Compiled kernels kept on disk, so that only the first process on a machine compiles them.

A launcher's module is the code of :func:`gpu_eval.cuda.nvrtc.module_code` (its first line
carries the hash of every kernel source). Here it is compiled by NVRTC for the device's
architecture into a cubin, stored under :func:`cache_dir` keyed by the code, the
architecture, the options and the NVRTC version, and loaded with ``cupy.RawModule(path=...)``.
Compiling needs no GPU and no driver (:func:`build` takes a named architecture, such as
``"sm_90"``), so ``gpu-eval compile --arch sm_90`` can fill the cache on a machine without
one: a container image built on a CPU host, a shared cache directory for a cluster.

Why not CuPy's own cache (``CUPY_CACHE_DIR``, which ``RawModule(code=...)`` does use): it
can only be filled through a device (CuPy asks the driver for the architecture before it
compiles) and its key is CuPy's private business. Why not fatbins shipped in the wheel: a
few MB per architecture per release, tied to the NVRTC that built them, and no use for an
architecture not shipped; NVRTC stays the way every binary is made, here or ahead of time.
``docs/gpu.md`` ("Compiled kernels") has the trade-offs and the figures.

``GPU_EVAL_KERNEL_CACHE=0`` turns the cache off: launchers then hand the source to
``cupy.RawModule`` as before (CuPy compiles and keeps its own cache). A module passed as
``cupy`` that is not CuPy itself (the test suite's stand-in, which runs host builds of the
kernels) is handed the source too.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import Any

from gpu_eval.cuda import nvrtc

__all__ = ["CACHE_DIR_ENV", "SWITCH_ENV", "enabled", "cache_dir", "source_options",
           "device_options", "device_arch", "arch_for", "supported_archs", "binary_path",
           "lookup", "build", "persists", "load_kernels", "whole_module_cached"]

#: Where the binaries go: ``$GPU_EVAL_CACHE_DIR/kernels`` (the host builds of the tests use
#: ``$GPU_EVAL_CACHE_DIR/host``), else ``$XDG_CACHE_HOME/gpu_eval/kernels`` or
#: ``~/.cache/gpu_eval/kernels``.
CACHE_DIR_ENV = "GPU_EVAL_CACHE_DIR"
#: ``0`` turns the cache off (CuPy compiles, as ``cupy.RawModule(code=...)`` always does).
SWITCH_ENV = "GPU_EVAL_KERNEL_CACHE"
#: Bumped whenever the layout of the cache or the meaning of its key changes.
FORMAT = 1


def enabled() -> bool:
    """Whether launchers load their modules through the cache (``GPU_EVAL_KERNEL_CACHE``).

    Examples
    --------
    >>> isinstance(enabled(), bool)
    True
    """
    return os.environ.get(SWITCH_ENV, "1").strip().lower() not in ("0", "false", "no", "off")


def cache_dir() -> Path:
    """The directory of the compiled kernels (it may not exist yet).

    Examples
    --------
    >>> cache_dir().name
    'kernels'
    """
    root = os.environ.get(CACHE_DIR_ENV)
    if root:
        return Path(root).expanduser() / "kernels"
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "gpu_eval" / "kernels"


def _writable_dir(arch: str) -> Path:
    """``cache_dir()/arch``, created; a per-user temporary directory where that cannot be
    written (a read-only home), so a call still works, only without persistence."""
    user = getattr(os, "getuid", lambda: "user")()
    for d in (cache_dir(), Path(tempfile.gettempdir()) / f"gpu_eval-{user}" / "kernels"):
        try:
            (d / arch).mkdir(parents=True, exist_ok=True)
            if os.access(d / arch, os.W_OK):
                return d / arch
        except OSError:
            continue
    raise OSError(f"no writable directory for compiled kernels ({cache_dir()} or the temp dir)")


def source_options() -> tuple[str, ...]:
    """The options a launcher hands to ``cupy.RawModule`` with its code (CuPy adds the
    architecture and :data:`gpu_eval.cuda.nvrtc.CUPY_EXTRA_OPTIONS`).

    Examples
    --------
    >>> source_options()[-1].startswith("-I") and source_options()[-1].endswith("kernels")
    True
    """
    return (*nvrtc.BASE_OPTIONS, f"-I{nvrtc.kernel_dir()}")


def device_options() -> tuple[str, ...]:
    """NVRTC options of every module, as CuPy's ``RawModule`` would compile it (the
    architecture is added per device).

    Examples
    --------
    >>> device_options()[0], device_options()[-1]
    ('-std=c++17', '--device-as-default-execution-space')
    """
    return (*source_options(), *nvrtc.CUPY_EXTRA_OPTIONS)


def arch_for(capability: int, supported) -> str:
    """The NVRTC target of a device of compute ``capability`` (e.g. 90): its own machine
    code where NVRTC knows it, else machine code of the newest known architecture of the same
    major version (it runs there), else PTX of the newest known one below it, which the driver
    compiles when it loads the module (a device newer than this NVRTC).

    Examples
    --------
    >>> arch_for(90, [75, 80, 86, 89, 90]), arch_for(87, [80, 86, 90]), arch_for(120, [80, 90])
    ('sm_90', 'sm_86', 'compute_90')
    """
    if capability in supported:
        return f"sm_{capability}"
    below = [a for a in supported if a <= capability]
    if not below:
        raise ValueError(f"NVRTC supports no architecture up to compute capability "
                         f"{capability} (it knows {sorted(supported)})")
    best = max(below)
    return f"sm_{best}" if best // 10 == capability // 10 else f"compute_{best}"


@lru_cache(maxsize=1)
def supported_archs() -> tuple[int, ...]:
    """The real architectures this NVRTC compiles for, as compute capabilities.

    Examples
    --------
    >>> 90 in supported_archs()  # doctest: +SKIP
    True
    """
    return tuple(int(a) for a in nvrtc.load_nvrtc().getSupportedArchs())


def device_arch(cupy, device_id: int) -> str:
    """:func:`arch_for` the device ``device_id``.

    Examples
    --------
    >>> device_arch(cupy, 0)  # an H200  # doctest: +SKIP
    'sm_90'
    """
    capability = int(cupy.cuda.Device(device_id).compute_capability)
    return arch_for(capability, supported_archs())


def _key(code: str, arch: str) -> str:
    opts = [o for o in device_options() if not o.startswith("-I")]  # where the sources live
    # does not change the binary; their contents are hashed into the code's first line
    h = hashlib.sha256()
    for part in (f"format {FORMAT}", code, arch, " ".join(opts),
                 ".".join(map(str, nvrtc.nvrtc_version()))):
        h.update(part.encode() + b"\0")
    return h.hexdigest()[:32]


def _label(code: str) -> str:
    """A readable file-name prefix from the code's first line ("equity-kernels-3-players")."""
    first = code.split("\n", 1)[0].split(", sources sha256")[0].removeprefix("// gpu_eval ")
    return re.sub(r"[^a-z0-9]+", "-", first.lower()).strip("-")[:48] or "module"


def binary_path(code: str, arch: str) -> Path:
    """Where the binary of ``code`` for ``arch`` is (or would be) stored.

    Examples
    --------
    >>> from gpu_eval.cuda.nvrtc import module_code
    >>> binary_path(module_code("low kernels", ["lowball.cu"]), "sm_90").name[:15]
    'low-kernels-sm_'
    """
    suffix = ".cubin" if arch.startswith("sm_") else ".ptx"
    return cache_dir() / arch / f"{_label(code)}-{arch}-{_key(code, arch)}{suffix}"


def lookup(code: str, arch: str) -> Path | None:
    """The stored binary of ``code`` for ``arch``, or None.

    Examples
    --------
    >>> from gpu_eval.cuda.nvrtc import module_code
    >>> lookup(module_code("no such kernels", []), "sm_90") is None
    True
    """
    path = binary_path(code, arch)
    return path if path.is_file() and path.stat().st_size > 0 else None


def build(code: str, arch: str) -> Path:
    """Compile ``code`` for ``arch`` with NVRTC (no GPU needed) and store it; its path.

    The file appears whole or not at all (written aside, then renamed), so processes that
    compile the same module at once, or one that is interrupted, leave a usable cache.

    Raises
    ------
    gpu_eval.cuda.nvrtc.NvrtcUnavailableError
        If CuPy or NVRTC cannot be loaded.
    RuntimeError
        If the code does not compile (NVRTC's log in the message).

    Examples
    --------
    >>> from gpu_eval.cuda.nvrtc import module_code
    >>> build(module_code("low kernels", ["lowball.cu"]), "sm_90").suffix  # doctest: +SKIP
    '.cubin'
    """
    opts = device_options()[1:]  # compile_* add the base options themselves
    name = f"ge_{_label(code).replace('-', '_')}.cu"
    if arch.startswith("sm_"):
        binary = nvrtc.compile_cubin(code, arch, opts, name=name)
    else:
        binary = nvrtc.compile_ptx(code, arch, opts, name=name).encode()
    target = binary_path(code, arch)
    directory = _writable_dir(arch)
    if directory != target.parent:  # the cache cannot be written: a private temp copy
        target = directory / target.name
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".part-", suffix=target.suffix)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(binary)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


def persists(cupy) -> bool:
    """Whether modules load through the cache: it is :func:`enabled` and ``cupy`` is CuPy
    itself (a stand-in is handed the source: it runs host builds, not binaries).

    Examples
    --------
    >>> import types
    >>> persists(types.ModuleType("emulation.fake_cupy"))
    False
    """
    return enabled() and getattr(cupy, "__name__", None) == "cupy"


def whole_module_cached(cupy, code: str, device_id: int) -> bool:
    """Whether ``code`` (a whole module) is already compiled for the device: then a launcher
    loads it rather than compiling the part a call needs (see
    :func:`gpu_eval.cuda.modules.cached_part_state`). False when modules do not
    :func:`persists`.

    Examples
    --------
    >>> import types
    >>> whole_module_cached(types.ModuleType("emulation.fake_cupy"), "// code", 0)
    False
    """
    if not persists(cupy):
        return False
    return lookup(code, device_arch(cupy, device_id)) is not None


def load_kernels(cupy, code: str, names: tuple[str, ...], device_id: int) -> tuple[Any, dict]:
    """``(module, {name: kernel})`` of ``code`` on the current device (``device_id``): the
    cached binary, or one compiled now and cached; with the cache off, CuPy compiles.

    A stored binary that the driver refuses (a truncated file, a foreign one) is compiled
    again once.

    Examples
    --------
    >>> module, kernels = load_kernels(cupy, code, ("ge_eval_masks",), 0)  # doctest: +SKIP
    """
    if not persists(cupy):
        module = cupy.RawModule(code=code, options=source_options())
        return module, {name: module.get_function(name) for name in names}
    arch = device_arch(cupy, device_id)
    path = lookup(code, arch)
    fresh = path is None
    if fresh:
        path = build(code, arch)
    try:
        module = cupy.RawModule(path=str(path))
        return module, {name: module.get_function(name) for name in names}
    except Exception:
        if fresh:
            raise
    path.unlink(missing_ok=True)  # the stored binary was bad: compile it afresh
    module = cupy.RawModule(path=str(build(code, arch)))
    return module, {name: module.get_function(name) for name in names}
