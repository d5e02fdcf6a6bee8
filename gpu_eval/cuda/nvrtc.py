"""Finding the kernel sources and compiling them with NVRTC, with or without a GPU.

The kernels live in the repository's top-level ``kernels/`` directory, which the wheel ships
as ``gpu_eval/kernels/``. :func:`compile_ptx` calls NVRTC directly through
``cupy.cuda.nvrtc`` with an explicit virtual architecture (``-arch=compute_90``), which needs
no driver and no device: CuPy's higher-level helpers ask the driver for the current device
and fail on a machine without one. CI uses it to check that every kernel compiles.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from functools import lru_cache
from pathlib import Path

__all__ = [
    "NvrtcUnavailableError",
    "kernel_dir",
    "kernel_files",
    "source_hash",
    "nvrtc_version",
    "compile_ptx",
    "compile_cubin",
    "module_code",
    "load_nvrtc",
    "BASE_OPTIONS",
    "CUPY_EXTRA_OPTIONS",
]

#: Options every gpu_eval kernel is compiled with (the arch and include path are added).
BASE_OPTIONS: tuple[str, ...] = ("-std=c++17",)
#: What CuPy's RawModule adds to the options when it compiles for a device (so a binary built
#: here, for the kernel cache or the ptxas report, is the one CuPy would build).
CUPY_EXTRA_OPTIONS: tuple[str, ...] = ("-ftz=true", "--device-as-default-execution-space")

_SOURCE_SUFFIXES = (".cu", ".cuh", ".h")


class NvrtcUnavailableError(RuntimeError):
    """CuPy or its NVRTC library cannot be loaded, so kernels cannot be compiled here."""


def kernel_dir() -> Path:
    """The directory holding the CUDA kernel sources.

    Returns
    -------
    pathlib.Path
        ``gpu_eval/kernels`` inside the installed package when present (a wheel install),
        otherwise the repository's top-level ``kernels/`` (a source checkout or editable
        install).

    Raises
    ------
    FileNotFoundError
        If neither directory exists (a broken install).
    """
    here = Path(__file__).resolve().parents[1]  # the gpu_eval package
    for candidate in (here / "kernels", here.parent / "kernels"):
        if (candidate / "bitmask.cuh").is_file():
            return candidate
    raise FileNotFoundError(
        f"gpu_eval's CUDA kernel sources were not found in {here / 'kernels'} or "
        f"{here.parent / 'kernels'}; the installation is incomplete"
    )


def kernel_files(directory: Path | None = None) -> list[Path]:
    """Every kernel source file (``.cu``, ``.cuh``, ``.h``), sorted by name."""
    d = kernel_dir() if directory is None else Path(directory)
    return sorted(p for p in d.iterdir() if p.suffix in _SOURCE_SUFFIXES and p.is_file())


def source_hash(extra: Iterable[str] = ()) -> str:
    """SHA-256 over the names and contents of every kernel source, plus ``extra`` strings.

    Compiled-code caches key on this, because the code handed to a compiler only
    ``#include``\\ s the headers: a cache keyed on that text alone would go stale when a
    header changes.
    """
    return _source_hash(kernel_dir(), tuple(extra), _mtimes(kernel_dir()))


def module_code(title: str, files: Iterable[str], players: int | None = None) -> str:
    """The code a launcher module hands to ``cupy.RawModule``: a first line carrying
    :func:`source_hash` (CuPy's on-disk cache keys on this text, which would otherwise not
    change when only an included header does), then an ``#include`` of each of ``files``.

    ``players`` compiles the per-player-count kernels for that count alone (0: none of them;
    ``GE_PLAYERS`` in ``kernels/ge_common.cuh``); None, the default, compiles every count.

    Examples
    --------
    >>> module_code("batch equity kernels", ["equity_batch.cu"]).splitlines()[1]
    '#include "equity_batch.cu"'
    >>> module_code("batch equity kernels", ["equity_batch.cu"], players=3).splitlines()[1]
    '#define GE_PLAYERS 3'
    """
    includes = "".join(f'#include "{f}"\n' for f in files)
    if players is None:
        return f"// gpu_eval {title}, sources sha256 {source_hash()}\n{includes}"
    return (f"// gpu_eval {title} ({players} players), sources sha256 {source_hash()}\n"
            f"#define GE_PLAYERS {int(players)}\n{includes}")


def _mtimes(d: Path) -> tuple:
    return tuple((p.name, p.stat().st_mtime_ns, p.stat().st_size) for p in kernel_files(d))


@lru_cache(maxsize=8)
def _source_hash(d: Path, extra: tuple[str, ...], _stamp: tuple) -> str:
    h = hashlib.sha256()
    for p in kernel_files(d):
        h.update(p.name.encode() + b"\0" + p.read_bytes() + b"\0")
    for e in extra:
        h.update(e.encode() + b"\0")
    return h.hexdigest()


def load_nvrtc():
    """CuPy's NVRTC binding (``cupy.cuda.nvrtc``), its library checked to load.

    Raises
    ------
    NvrtcUnavailableError
        If CuPy or the NVRTC library cannot be loaded.
    """
    try:
        from cupy.cuda import nvrtc  # noqa: PLC0415 -- CuPy is optional
    except Exception as exc:  # ImportError, or a CuPy that fails to initialise
        raise NvrtcUnavailableError(
            f"compiling the CUDA kernels needs CuPy with NVRTC "
            f"(pip install cupy-cuda13x nvidia-cuda-nvrtc, or cupy-cuda12x for a CUDA 12 "
            f"driver); importing cupy.cuda.nvrtc failed: {exc}"
        ) from exc
    try:
        nvrtc.getVersion()
    except Exception as exc:  # the NVRTC shared library itself is missing
        raise NvrtcUnavailableError(
            f"CuPy is installed but the NVRTC library could not be loaded "
            f"(pip install nvidia-cuda-nvrtc matching CuPy's CUDA version): {exc}"
        ) from exc
    return nvrtc


def nvrtc_version() -> tuple[int, int]:
    """The (major, minor) version of the NVRTC library CuPy loads.

    Raises
    ------
    NvrtcUnavailableError
        If CuPy or NVRTC cannot be loaded.
    """
    return tuple(load_nvrtc().getVersion())


def _compile(source: str | Path, arch: str, options: Sequence[str], name: str | None,
             cubin: bool) -> bytes:
    nvrtc = load_nvrtc()
    if isinstance(source, Path):
        name = name or source.name
        source = source.read_text()
    name = name or "kernel.cu"
    opts = [*BASE_OPTIONS, f"-arch={arch}", f"-I{kernel_dir()}", *options]
    prog = nvrtc.createProgram(source, name, [], [])
    try:
        try:
            nvrtc.compileProgram(prog, opts)
        except nvrtc.NVRTCError as exc:
            log = nvrtc.getProgramLog(prog)
            raise RuntimeError(
                f"NVRTC failed to compile {name} for {arch} ({exc}):\n{log}"
            ) from None
        out = nvrtc.getCUBIN(prog) if cubin else nvrtc.getPTX(prog)
    finally:
        nvrtc.destroyProgram(prog)
    return out


def compile_ptx(
    source: str | Path,
    arch: str = "compute_90",
    options: Sequence[str] = (),
    name: str | None = None,
) -> str:
    """Compile CUDA source to PTX with NVRTC, without needing a GPU or a driver.

    Parameters
    ----------
    source : str or pathlib.Path
        Source text, or a path to a ``.cu`` file (read as text).
    arch : str
        Architecture for ``-arch=``, e.g. ``"compute_90"`` or ``"compute_80"``.
    options : sequence of str
        Extra NVRTC options, after :data:`BASE_OPTIONS` and ``-I<kernel_dir()>``.
    name : str, optional
        The program's file name in diagnostics; defaults to the path's name or ``"kernel.cu"``.

    Returns
    -------
    str
        The PTX text.

    Raises
    ------
    NvrtcUnavailableError
        If CuPy or NVRTC cannot be loaded.
    RuntimeError
        If compilation fails; the message carries NVRTC's log.

    Examples
    --------
    >>> ptx = compile_ptx('extern "C" __global__ void f() {}')  # doctest: +SKIP
    >>> ".target sm_90" in ptx  # doctest: +SKIP
    True
    """
    ptx = _compile(source, arch, options, name, cubin=False)
    return ptx.decode() if isinstance(ptx, bytes) else ptx


def compile_cubin(
    source: str | Path,
    arch: str = "sm_90",
    options: Sequence[str] = (),
    name: str | None = None,
) -> bytes:
    """Compile CUDA source all the way to machine code (a cubin) for a real architecture.

    Like :func:`compile_ptx`, needs no GPU; with ``arch="sm_XY"`` NVRTC also runs the
    assembler (ptxas), so resource errors (registers, shared memory) show up here too.

    Returns
    -------
    bytes
        The cubin (an ELF image).

    Raises
    ------
    NvrtcUnavailableError
        If CuPy or NVRTC cannot be loaded.
    RuntimeError
        If compilation fails; the message carries NVRTC's log.
    """
    if not arch.startswith("sm_"):
        raise ValueError(f"a cubin needs a real architecture such as 'sm_90', got {arch!r}")
    return bytes(_compile(source, arch, options, name, cubin=True))
