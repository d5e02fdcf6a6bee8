"""Every manifest module's kernels built as host C++ and launched on the CPU with their real grid
and block (for the tests: the stand-in CuPy, the direct kernel checks, the sanitizer job).

The C++ wrapper of a module is derived from its records in :mod:`gpu_eval.cuda.manifest`,
never written by hand: the module's ``.cu`` files (through ``kernels/host_shim.h``, with every
barrier routed to the block emulator), the emulator itself (``block_emulator.h``: each thread
a fiber), one ``emu_<kernel>`` per kernel taking the launch geometry and the kernel's own
parameters, and a setter and size per ``__constant__`` table struct. A kernel added to the
manifest is therefore built and launchable here with no edit to this file.

Libraries are cached on disk like :mod:`emulation.hostbuild`'s (keyed on the kernel sources,
the generated wrapper, the compiler and the flags) and loaded once per process. The table
structs of a library are process-wide globals, so :meth:`KernelLibrary.launch` writes the
caller's table pointers into them before each launch, under a lock.
"""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Mapping
from functools import cache
from pathlib import Path

import numpy as np

from gpu_eval.cuda import manifest

from emulation import hostbuild, sanitizers

__all__ = ["wrapper", "build", "load", "forget", "KernelLibrary", "launch", "table_pointers",
           "SANITIZE_FLAGS", "SANITIZE", "Host"]

_EMULATOR = (Path(__file__).with_name("block_emulator.h")).read_text()
# No _FORTIFY_SOURCE: its checked longjmp refuses the emulator's jumps between fiber stacks.
# -O1: g++ takes 60-75% of -O2's time on the large modules (a fresh machine's builds 19 -> 12 s
# on two cores) and the tests that run the builds measured no slower in the whole suite.
_FLAGS = ("-O1", "-std=c++17", "-shared", "-fPIC", "-Wall", "-Wno-unknown-pragmas",
          "-fno-strict-aliasing", "-U_FORTIFY_SOURCE")
#: The sanitized build (run with libasan preloaded: emulation.sanitizers).
SANITIZE_FLAGS = sanitizers.FLAGS
_HEAD = "unsigned ge_gx, unsigned ge_gy, unsigned ge_bx, int ge_nt"


def wrapper(module: manifest.Module) -> str:
    """The C++ source of ``module``'s host build, derived from its manifest records.

    Examples
    --------
    >>> src = wrapper(manifest.module("lows"))
    >>> 'extern "C" void emu_ge_low_eval_masks(' in src and "emu_set_ge_low_tables" in src
    True
    """
    parts = ['#include "ge_common.cuh"',
             "// Barriers and shuffles go to the block emulator below.",
             "void ge_eq_emu_sync();",
             "ge_u64 ge_eq_emu_shfl_xor(ge_u64 v, int lane_mask);",
             "#define __syncthreads() ge_eq_emu_sync()",
             *(f'#include "{f}"' for f in module.files),
             _EMULATOR]
    for name in module.kernels:
        k = manifest.kernel(name)
        params = ", ".join(f"{a.ctype} a{i}" for i, a in enumerate(k.args))
        call = ", ".join(f"a{i}" for i in range(len(k.args)))
        parts.append(f'extern "C" void emu_{name}({_HEAD}, {params}) {{\n'
                     f"    ge_emu_launch(ge_gx, ge_gy, ge_bx, ge_nt, [=]() {{ {name}({call}); }});\n"
                     f"}}")
    for sym in module.symbols:
        parts.append(f'extern "C" unsigned long long emu_sizeof_{sym}(void) '
                     f"{{ return sizeof({sym}); }}\n"
                     f'extern "C" void emu_set_{sym}(const void* p) '
                     f"{{ std::memcpy((void*)&{sym}, p, sizeof({sym})); }}")
    return "\n".join(parts) + "\n"


@cache
def build(name: str, sanitize: bool = False) -> Path:
    """Compile (or find in the cache) manifest module ``name``'s host library.

    Raises
    ------
    emulation.hostbuild.HostBuildUnavailableError
        If there is no C++ compiler, or it cannot build the module.
    """
    module = manifest.module(name)
    flags = [SANITIZE_FLAGS] if sanitize else [(*_FLAGS, "-fopenmp"), _FLAGS]
    return hostbuild.compile_cached(wrapper(module), f"ge_emu_{name}{'_san' if sanitize else ''}",
                                    flags, f"the {module.title} ({', '.join(module.files)})")


_SCALAR_CTYPES = {np.dtype(np.uint8): ctypes.c_uint8, np.dtype(np.uint16): ctypes.c_uint16,
                  np.dtype(np.uint32): ctypes.c_uint32, np.dtype(np.uint64): ctypes.c_uint64,
                  np.dtype(np.int32): ctypes.c_int32, np.dtype(np.int64): ctypes.c_int64,
                  np.dtype(np.float64): ctypes.c_double}


class KernelLibrary:
    """One manifest module's kernels on the CPU.

    Parameters
    ----------
    name : str
        The manifest module.
    sanitize : bool
        The AddressSanitizer / UBSan build (its process must have libasan loaded first).
    threads : int
        OS threads a launch spreads its blocks over (1 in the sanitized build).
    """

    def __init__(self, name: str, sanitize: bool = False, threads: int = 2) -> None:
        self.module = manifest.module(name)
        self.lib = ctypes.CDLL(str(build(name, sanitize)))
        self.threads = 1 if sanitize else threads
        self.lock = threading.Lock()
        head = [ctypes.c_uint, ctypes.c_uint, ctypes.c_uint, ctypes.c_int]
        self._fns = {}
        for kname in self.module.kernels:
            fn = getattr(self.lib, f"emu_{kname}")
            fn.argtypes = head + [ctypes.c_void_p if a.pointer else _SCALAR_CTYPES[a.dtype]
                                  for a in manifest.kernel(kname).args]
            fn.restype = None
            self._fns[kname] = fn
        self._setters = {}
        for sym in self.module.symbols:
            getattr(self.lib, f"emu_sizeof_{sym}").restype = ctypes.c_uint64
            setter = getattr(self.lib, f"emu_set_{sym}")
            setter.argtypes, setter.restype = [ctypes.c_void_p], None
            self._setters[sym] = setter

    def symbol_size(self, symbol: str) -> int:
        """Bytes of the ``__constant__`` struct ``symbol`` (pointers, 8 bytes each)."""
        return int(getattr(self.lib, f"emu_sizeof_{symbol}")())

    def launch(self, name: str, grid: tuple, block: tuple, args: tuple,
               symbols: Mapping[str, np.ndarray]) -> None:
        """Run kernel ``name`` over ``grid`` blocks of ``block`` threads, now.

        Parameters
        ----------
        name : str
            A kernel of this module.
        grid, block : tuple of int
            The launch geometry (``block`` a multiple of 32: any size the kernel allows).
        args : tuple
            NumPy arrays (or the stand-in's device arrays) for pointers, ``numpy.uint64(0)``
            for a null one, NumPy scalars of the exact parameter type otherwise: checked
            against the kernel's manifest record.
        symbols : mapping of str to numpy.ndarray
            For each of the module's table structs, the array of table addresses to write
            into it first (see :func:`table_pointers`).
        """
        record = manifest.kernel(name)
        if name not in self._fns:
            raise AssertionError(f"kernel {name} is not in module {self.module.name}")
        manifest.check_launch(record, grid, block, args, host=True)
        c_args = []
        for a, p in zip(args, record.args):
            if p.pointer:
                c_args.append(ctypes.c_void_p(a.ctypes.data if isinstance(a, np.ndarray) else 0))
            else:
                c_args.append(_SCALAR_CTYPES[p.dtype](a.item()))
        grid = tuple(grid) + (1,) * (2 - len(tuple(grid)))
        with self.lock:
            for sym, setter in self._setters.items():
                ptrs = symbols.get(sym)
                if ptrs is None:
                    ptrs = table_pointers(sym)
                if ptrs.nbytes != self.symbol_size(sym):
                    raise AssertionError(f"{sym}: {ptrs.nbytes} bytes of pointers for a "
                                         f"{self.symbol_size(sym)}-byte struct")
                setter(ctypes.c_void_p(np.ascontiguousarray(ptrs).ctypes.data))
            self._fns[name](grid[0], grid[1], block[0], self.threads, *c_args)


#: Whether :func:`load` gives the sanitized builds (the sanitizer job sets it).
SANITIZE = False


def load(name: str, sanitize: bool | None = None) -> KernelLibrary:
    """Build if needed and load manifest module ``name``'s library (once per process): the
    sanitized build with ``sanitize`` (default: :data:`SANITIZE`).

    Raises
    ------
    emulation.hostbuild.HostBuildUnavailableError
        If there is no working C++ compiler.
    """
    return _load(name, SANITIZE if sanitize is None else bool(sanitize))


@cache
def _load(name: str, sanitize: bool) -> KernelLibrary:
    return KernelLibrary(name, sanitize)


def forget() -> None:
    """Forget every built and loaded library (a test that changed the manifest or sources)."""
    build.cache_clear()
    _load.cache_clear()


def launch(name: str, grid: tuple, block: tuple, args: tuple,
           symbols: Mapping[str, np.ndarray] | None = None) -> None:
    """Run kernel ``name`` (of whichever manifest module defines it) on host arrays, its
    module's tables those the NumPy path uses unless ``symbols`` says otherwise.

    Examples
    --------
    >>> out = np.empty(1, np.uint16)
    >>> launch("ge_eval_masks", (1,), (32,), (np.array([0x1F00], np.uint64), out,
    ...                                        np.uint64(1)))  # doctest: +SKIP
    """
    module = next(m for m in manifest.MODULES.values() if name in m.kernels)
    load(module.name).launch(name, grid, block, args, symbols or {})


# --- the tables a module's structs point at: the very arrays the launchers upload ---------

_KEEP: dict[str, tuple[list, np.ndarray]] = {}


def _struct_tables(symbol: str) -> list[np.ndarray]:
    from gpu_eval.cuda import holdem, modules, variants
    from gpu_eval.cuda.lowball import LOW_TABLE_ORDER, low_device_tables
    from gpu_eval.evaluator.tables import bitmask_tables

    if symbol == "ge_bitmask_tables":
        t, order = bitmask_tables().as_dict(), modules.BITMASK_TABLE_ORDER
    elif symbol == "ge_phash_tables":
        t, order = holdem.phash_device_tables(), holdem.PHASH_TABLE_ORDER
    elif symbol == "ge_low_tables":
        t, order = low_device_tables(), LOW_TABLE_ORDER
    else:
        family = symbol[len("ge_"):-len("_tables")]
        found = [(tables, order) for sym, tables, order, _ in variants.family_tables(family)
                 if sym == symbol]
        if not found:
            raise KeyError(f"no host tables for {symbol}")
        t, order = found[0]
    return [np.ascontiguousarray(t[name]) for name in order]


def table_pointers(symbol: str) -> np.ndarray:
    """The addresses of the host tables the launchers upload into ``__constant__`` struct
    ``symbol`` (kept alive for the process), in its field order.

    Examples
    --------
    >>> table_pointers("ge_low_tables").dtype
    dtype('uint64')
    """
    found = _KEEP.get(symbol)
    if found is None:
        arrays = _struct_tables(symbol)
        found = _KEEP[symbol] = (arrays, np.array([a.ctypes.data for a in arrays],
                                                  dtype=np.uint64))
    return found[1]


class Host:
    """Launches of any manifest kernel on host arrays (tests of the kernels themselves), each
    module's table structs pointing at the NumPy path's tables unless :meth:`set_tables` says
    otherwise.

    Examples
    --------
    >>> host = Host()
    >>> host.set_tables(table_pointers("ge_bitmask_tables"))
    >>> out = np.empty(1, np.uint16)
    >>> host.launch("ge_eval_masks", (1,), (32,), (np.array([0x1F00], np.uint64), out,
    ...                                            np.uint64(1)))  # doctest: +SKIP
    """

    def __init__(self) -> None:
        self.symbols: dict[str, np.ndarray] = {}

    def set_tables(self, pointers, symbol: str = "ge_bitmask_tables") -> None:
        """Point ``symbol`` at the tables whose addresses are ``pointers`` (kept alive by the
        caller)."""
        self.symbols[symbol] = np.ascontiguousarray(pointers).view(np.uint64)

    def launch(self, name: str, grid: tuple, block: tuple, args: tuple) -> None:
        """Run kernel ``name`` now (see :meth:`KernelLibrary.launch`)."""
        launch(name, grid, block, tuple(args), self.symbols)
