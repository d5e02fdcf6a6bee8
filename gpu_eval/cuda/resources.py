"""What the assembler (ptxas) reports for every kernel: registers, stack, spills, shared memory.

NVRTC runs ptxas itself when it compiles to a cubin for a real architecture, and with
``-Xptxas=-v`` its log carries ptxas's resource lines, per kernel, as ``nvcc -Xptxas -v``
prints them. That needs no GPU and no CUDA toolkit, only the NVRTC library that CuPy loads
(pip ``nvidia-cuda-nvrtc``), so CI checks from it that no kernel spills to local memory at
its launch bounds (tests/cuda/test_kernel_resources.py), and ``python -m
gpu_eval.cuda.resources`` prints the table.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass

from gpu_eval.cuda import manifest
from gpu_eval.cuda import nvrtc as _nvrtc

__all__ = ["KernelResources", "module_sources", "ptxas_report", "report_and_ptx", "report_all"]

CUPY_EXTRA_OPTIONS = _nvrtc.CUPY_EXTRA_OPTIONS  # what CuPy's RawModule adds for a device


@dataclass(frozen=True)
class KernelResources:
    """ptxas's figures for one kernel (bytes unless said otherwise)."""

    module: str
    kernel: str
    registers: int
    stack: int
    spill_stores: int
    spill_loads: int
    shared: int
    barriers: int

    @property
    def spills(self) -> bool:
        """Whether the kernel touches local memory for spilled registers."""
        return bool(self.spill_stores or self.spill_loads)


def module_sources() -> dict[str, str]:
    """The code of every CUDA module the package builds, as handed to ``cupy.RawModule``
    (every module of :data:`gpu_eval.cuda.manifest.MODULES`).

    Returns
    -------
    dict
        Module name -> source text.

    Examples
    --------
    >>> sorted(module_sources())  # doctest: +NORMALIZE_WHITESPACE
    ['batch', 'deals', 'equity', 'evaluator', 'fsm', 'games', 'indexer', 'lows', 'range_report',
     'solver_tables', 'variants']
    """
    return {name: manifest.module_source(name) for name in manifest.MODULES}


_ENTRY = re.compile(r"Compiling entry function '(\w+)' for '(\w+)'")
_FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_USED = re.compile(r"Used (\d+) registers(?:, used (\d+) barriers)?(?:, (\d+) bytes smem)?")


def parse_ptxas_log(log: str, module: str = "") -> list[KernelResources]:
    """The per-kernel figures in a ``ptxas -v`` log.

    Examples
    --------
    >>> log = '''ptxas info    : Compiling entry function 'ge_x' for 'sm_90'
    ... ptxas info    : Function properties for ge_x
    ... ptxas         .     8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads
    ... ptxas info    : Used 40 registers, used 1 barriers, 512 bytes smem'''
    >>> r = parse_ptxas_log(log)[0]
    >>> (r.kernel, r.registers, r.spill_stores, r.shared, r.barriers, r.spills)
    ('ge_x', 40, 4, 512, 1, True)
    """
    out, current, frame = [], None, (0, 0, 0)
    for line in log.splitlines():
        m = _ENTRY.search(line)
        if m:
            current, frame = m.group(1), (0, 0, 0)
            continue
        m = _FRAME.search(line)
        if m and current:
            frame = (int(m.group(1)), int(m.group(2)), int(m.group(3)))
            continue
        m = _USED.search(line)
        if m and current:
            regs, bars, smem = (int(x) if x else 0 for x in m.groups())
            out.append(KernelResources(module, current, regs, frame[0], frame[1], frame[2],
                                       smem, bars))
            current = None
    return out


def ptxas_report(source: str, arch: str = "sm_90", module: str = "",
                 options: tuple[str, ...] = CUPY_EXTRA_OPTIONS) -> list[KernelResources]:
    """Compile ``source`` to a cubin with NVRTC and ``-Xptxas=-v``; ptxas's per-kernel figures
    (raising as :func:`report_and_ptx` does).

    Examples
    --------
    >>> rows = ptxas_report('extern "C" __global__ void ge_x() {}')  # doctest: +SKIP
    >>> (rows[0].kernel, rows[0].spills)  # doctest: +SKIP
    ('ge_x', False)
    """
    return report_and_ptx(source, arch, module, options)[0]


def report_and_ptx(source: str, arch: str = "sm_90", module: str = "",
                   options: tuple[str, ...] = CUPY_EXTRA_OPTIONS
                   ) -> tuple[list[KernelResources], str]:
    """:func:`ptxas_report` and the PTX of the same compile (NVRTC keeps the PTX it hands
    ptxas), so a check of the generated code needs no second compile.

    Raises
    ------
    gpu_eval.cuda.nvrtc.NvrtcUnavailableError
        If CuPy or NVRTC cannot be loaded.
    RuntimeError
        If the source does not compile (the message carries NVRTC's log).

    Examples
    --------
    >>> rows, ptx = report_and_ptx('extern "C" __global__ void ge_x() {}')  # doctest: +SKIP
    >>> ".entry ge_x" in ptx  # doctest: +SKIP
    True
    """
    try:
        from cupy.cuda import nvrtc  # noqa: PLC0415 -- optional dependency
    except Exception as exc:
        raise _nvrtc.NvrtcUnavailableError(f"importing cupy.cuda.nvrtc failed: {exc}") from exc
    _nvrtc.nvrtc_version()  # raises NvrtcUnavailableError where the library is missing
    opts = [*_nvrtc.BASE_OPTIONS, f"-arch={arch}", f"-I{_nvrtc.kernel_dir()}", *options,
            "-Xptxas=-v"]
    prog = nvrtc.createProgram(source, f"ge_{module or 'kernel'}_module.cu", [], [])
    try:
        try:
            nvrtc.compileProgram(prog, opts)
        except nvrtc.NVRTCError as exc:
            raise RuntimeError(f"NVRTC failed ({exc}):\n{nvrtc.getProgramLog(prog)}") from None
        log = nvrtc.getProgramLog(prog)
        ptx = nvrtc.getPTX(prog)
    finally:
        nvrtc.destroyProgram(prog)
    ptx = ptx.decode() if isinstance(ptx, bytes) else ptx
    return parse_ptxas_log(log, module), ptx


def report_all(arch: str = "sm_90") -> list[KernelResources]:
    """:func:`ptxas_report` of every module of :func:`module_sources`.

    Examples
    --------
    >>> rows = report_all("sm_90")  # doctest: +SKIP
    >>> sorted({r.module for r in rows})[:2]  # doctest: +SKIP
    ['batch', 'deals']
    """
    return [r for name, src in module_sources().items()
            for r in ptxas_report(src, arch, module=name)]


def main(argv: list[str] | None = None) -> int:
    arch = (argv if argv is not None else sys.argv[1:] or ["sm_90"])[0]
    rows = report_all(arch)
    print(f"ptxas figures for {arch} (NVRTC {'.'.join(map(str, _nvrtc.nvrtc_version()))})")
    print(f"{'module':<10} {'kernel':<30} {'regs':>4} {'stack':>5} {'spill st':>8} "
          f"{'spill ld':>8} {'smem':>6} {'bar':>3}")
    for r in sorted(rows, key=lambda r: (r.module, r.kernel)):
        print(f"{r.module:<10} {r.kernel:<30} {r.registers:>4} {r.stack:>5} "
              f"{r.spill_stores:>8} {r.spill_loads:>8} {r.shared:>6} {r.barriers:>3}")
    return 1 if any(r.spills for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
