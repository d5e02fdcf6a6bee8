"""What every CUDA launcher module shares: the per-device module cache, kernels checked against
their manifest records, table upload and launch geometry.

Each launcher module (:mod:`gpu_eval.cuda.holdem`, :mod:`gpu_eval.cuda.variants`,
:mod:`gpu_eval.equity_engine.holdem.cuda_engine`, :mod:`gpu_eval.cuda.games_module` and the state-machine
kernel of
:mod:`gpu_eval.cuda.fsm`) compiles its own kernels once per device with NVRTC
(:func:`compile_module`: its manifest record's code, loaded from the kernel cache of
:mod:`gpu_eval.cuda.kernel_cache` where an earlier process compiled it), keeps them in its own
dictionary through :func:`cached_device_state` or, for a module with per-player-count kernels,
:func:`cached_part_state` (keyed by device and the kernel sources' hash, so no cache serves a
binary built from older headers), uploads its tables with :func:`upload_tables` and sizes its
grids with :func:`resident_blocks_per_sm` (:class:`DeviceState` holds the result). NumPy inputs
go through the device with :func:`gpu_eval.cuda.streaming.stream_host`.

CuPy is imported lazily, inside the functions here, never at import time.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np

from gpu_eval.cuda import kernel_cache, manifest
from gpu_eval.cuda.availability import CudaUnavailableError, import_cupy, require_cuda
from gpu_eval.cuda.nvrtc import source_hash

__all__ = [
    "compile_module",
    "CheckedKernel",
    "BITMASK_TABLE_ORDER",
    "BITMASK_TABLE_DTYPES",
    "THREADS_PER_BLOCK",
    "module_options",
    "DeviceState",
    "cached_device_state",
    "cached_part_state",
    "PlayerKernels",
    "device_cache",
    "clear_device_caches",
    "upload_tables",
    "upload_bitmask_tables",
    "resident_blocks_per_sm",
]


#: Field order of ``GeBitmaskTables`` in kernels/bitmask.cuh, with each table's dtype (the
#: hold'em, equity, short-deck and wild modules all upload it).
BITMASK_TABLE_ORDER: tuple[str, ...] = (
    "flush", "dup_row", "dup", "row", "trips", "full_house", "quads",
)
BITMASK_TABLE_DTYPES: dict[str, np.dtype] = {
    name: np.dtype(np.uint32 if name in ("row", "dup_row") else np.uint16)
    for name in BITMASK_TABLE_ORDER
}

#: Threads per block of every launch (occupancy and grids are sized for it).
THREADS_PER_BLOCK = manifest.THREADS


def module_options() -> tuple[str, ...]:
    """NVRTC options for every per-device module (CuPy adds ``-arch=sm_XY`` itself).

    Returns
    -------
    tuple of str
        The package's base options and the include path of the kernel sources.

    Examples
    --------
    >>> module_options()[-1].startswith("-I") and module_options()[-1].endswith("kernels")
    True
    """
    return kernel_cache.source_options()


@dataclass
class DeviceState:
    """One device's compiled module, uploaded tables and launch configuration (launcher
    modules subclass it for what else they keep per device)."""

    device_id: int
    module: Any
    kernels: dict[str, Any]
    tables: list[Any]            # keeps the device tables alive
    binom: Any
    sm_count: int
    blocks_per_sm: dict[str, int]
    streams: list[Any] = field(default_factory=list)

    def grid(self, name: str, n: int) -> int:
        """Blocks for ``n`` items: enough to fill the device, no more than needed."""
        full = self.sm_count * self.blocks_per_sm[name]
        return max(1, min(full, -(-n // THREADS_PER_BLOCK)))

    def launch(self, name: str, n: int, args: tuple) -> None:
        """Launch kernel ``name`` over ``n`` items on the current stream."""
        self.kernels[name]((self.grid(name, n),), (THREADS_PER_BLOCK,), args)



class CheckedKernel:
    """A compiled kernel whose every launch is checked against its manifest record first
    (:func:`gpu_eval.cuda.manifest.check_launch`: argument count and types, block shape, the
    arrays' device) and made on the device its module lives on; other attributes are the
    raw kernel's (``num_regs``, ...)."""

    def __init__(self, cupy, raw: Any, record: manifest.Kernel, device_id: int) -> None:
        self.raw, self.record, self.device_id, self._cupy = raw, record, device_id, cupy

    def __call__(self, grid: tuple, block: tuple, args: tuple, **kwargs) -> Any:
        manifest.check_launch(self.record, grid, block, args, self.device_id)
        current = self._cupy.cuda.runtime.getDevice()
        if current != self.device_id:
            raise manifest.LaunchError(f"{self.record.name}: launched with device {current} "
                                       f"current; its module is on device {self.device_id}")
        return self.raw(grid, block, args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.raw, name)


def compile_module(cupy, name: str, dev: int, players: int | None = None
                   ) -> tuple[Any, dict[str, CheckedKernel]]:
    """``(module, {kernel name: kernel})`` of manifest module ``name`` on device ``dev`` (the
    current one): its code (:func:`gpu_eval.cuda.manifest.module_source`) compiled by NVRTC,
    or loaded from the kernel cache where an earlier process compiled it
    (:mod:`gpu_eval.cuda.kernel_cache`), each of its kernels fetched and wrapped in a
    :class:`CheckedKernel`; a failure becomes :class:`CudaUnavailableError` naming the
    module and the device.

    ``players`` compiles the part of a module with per-player-count kernels that a call of
    that many players launches (0: the base kernels alone; see
    :meth:`gpu_eval.cuda.manifest.PlayerKernels.names`); None, the whole module.

    Examples
    --------
    >>> module, kernels = compile_module(cupy, "equity", 0)  # doctest: +SKIP
    >>> kernels["ge_eq_pairs"].record.launch.dims  # doctest: +SKIP
    2
    """
    record = manifest.module(name)
    names = record.players.names(players)
    try:
        module, raw = kernel_cache.load_kernels(
            cupy, manifest.module_source(name, players), names, dev)
    except Exception as exc:
        raise CudaUnavailableError(
            f"compiling gpu_eval's {record.title} for device {dev} failed "
            f"({type(exc).__name__}): {exc}") from exc
    return module, {k: CheckedKernel(cupy, raw[k], manifest.kernel(k), dev) for k in names}


#: A module's kernels, the base ones and those per player count (derived from the manifest:
#: :attr:`gpu_eval.cuda.manifest.Module.players`).
PlayerKernels = manifest.PlayerKernels


_DEVICE_CACHES: list[Any] = []


def device_cache(container: Any = None) -> Any:
    """A per-device cache of a launcher module (compiled modules, uploaded tables, device
    copies), registered so that :func:`clear_device_caches` empties it.

    Examples
    --------
    >>> _STATES = device_cache()
    >>> _STATES[(0, "hash")] = "state"; clear_device_caches(); _STATES
    {}
    """
    container = {} if container is None else container
    _DEVICE_CACHES.append(container)
    return container


def clear_device_caches() -> None:
    """Forget every module, table and device copy the launchers keep (after a device reset,
    or between tests that swap the CuPy they run on)."""
    for cache in _DEVICE_CACHES:
        cache.clear()


def cached_device_state(states: dict, lock: threading.Lock, build: Callable[[Any, int], Any],
                        device_id: int | None = None) -> Any:
    """``states[(device, source hash)]``, built once by ``build(cupy, device)`` under ``lock``.

    Every CUDA module of the package (hold'em, variants, equity, game equity, the state
    machine) is cached this way, each in its own ``states``: once per device, and again
    whenever a kernel source changes (the hash covers all of them).

    Parameters
    ----------
    states : dict
        The launcher module's cache, ``(device, sources hash) -> state``.
    lock : threading.Lock
        Guards ``states`` (a state is built once even with several threads asking).
    build : callable
        ``build(cupy, device) -> state``, run with that device current.
    device_id : int, optional
        CUDA device; default: CuPy's current device.

    Returns
    -------
    object
        What ``build`` returned for this device and these sources.

    Raises
    ------
    CudaUnavailableError
        If CuPy or a device is missing (or ``build`` raises it).

    Examples
    --------
    >>> _STATES, _LOCK = {}, threading.Lock()
    >>> state = cached_device_state(_STATES, _LOCK, lambda cupy, dev: dev)  # doctest: +SKIP
    >>> cached_device_state(_STATES, _LOCK, lambda cupy, dev: 1 / 0) == state  # doctest: +SKIP
    True
    """
    cupy = require_cuda()
    dev = cupy.cuda.runtime.getDevice() if device_id is None else int(device_id)
    key = (dev, _process_source_hash())
    state = states.get(key)
    if state is not None:
        return state
    with lock:
        state = states.get(key)
        if state is None:
            with cupy.cuda.Device(dev):
                state = build(cupy, dev)
            states[key] = state
    return state


def cached_part_state(states: dict, lock: threading.Lock,
                      build: Callable[[Any, int, int | None], Any],
                      module: str, players: int | None = None,
                      device_id: int | None = None) -> Any:
    """The state of a manifest module with per-player-count kernels
    (:attr:`gpu_eval.cuda.manifest.Module.players`) that holds ``players``' kernels, built
    once per device and sources like :func:`cached_device_state`.

    That is the whole module's state (every count) when it is built already or its binary is
    in the kernel cache (``gpu-eval compile`` put it there), else the state of the part for
    ``players`` alone (0: the base kernels), so that a first call compiles only what it
    launches. ``players=None`` asks for the whole module.

    Parameters
    ----------
    states : dict
        The launcher's cache, ``(device, sources hash, part) -> state`` (part None: whole).
    lock : threading.Lock
        Guards ``states``.
    build : callable
        ``build(cupy, device, part) -> state``, run with that device current.
    module : str
        The manifest module (its whole code, :func:`gpu_eval.cuda.manifest.module_source`, is
        looked up in the kernel cache).
    players : int, optional
        The player count whose kernels the caller launches; 0 for the base kernels alone.
    device_id : int, optional
        CUDA device; default: CuPy's current device.

    Examples
    --------
    >>> state = cached_part_state(_STATES, _LOCK, _build_state, "equity", players=2)  # doctest: +SKIP
    >>> "ge_eq_showdown_2" in state.kernels  # doctest: +SKIP
    True
    """
    cupy = require_cuda()
    dev = cupy.cuda.runtime.getDevice() if device_id is None else int(device_id)
    sources = _process_source_hash()
    for part in (None, players):
        state = states.get((dev, sources, part))
        if state is not None:
            return state
    with lock:
        for part in (None, players):
            state = states.get((dev, sources, part))
            if state is not None:
                return state
        with cupy.cuda.Device(dev):
            part = players
            whole = manifest.module_source(module)
            if part is not None and kernel_cache.whole_module_cached(cupy, whole, dev):
                part = None  # loading every count costs less than compiling one
            state = build(cupy, dev, part)
        states[(dev, sources, part)] = state
    return state


@lru_cache(maxsize=1)
def _process_source_hash() -> str:
    """The kernel sources' hash, computed once per process: every launch path looks its
    module up by it, and re-reading each kernel file's metadata per call costs more than
    a small launch."""
    return source_hash()


def upload_tables(cupy, module, symbol: str, tables: dict[str, np.ndarray],
                   order: tuple[str, ...], dtypes: dict[str, np.dtype]) -> list[Any]:
    """Copy tables to the device and write their addresses into the ``__constant__`` struct
    ``symbol`` (one pointer per field, in ``order``).

    Parameters
    ----------
    cupy : module
        CuPy.
    module : cupy.RawModule
        The compiled module that declares ``symbol``.
    symbol : str
        The ``__constant__`` struct of device pointers (``ge_bitmask_tables``, ...).
    tables : dict of str to numpy.ndarray
        The host tables, by field name.
    order : tuple of str
        The struct's field order.
    dtypes : dict of str to numpy.dtype
        The dtype the kernels read each table as.

    Returns
    -------
    list of cupy.ndarray
        The device tables, which must be kept alive as long as the module.

    Raises
    ------
    AssertionError
        A table whose dtype is not the kernels' (a contract broken in the package).

    Examples
    --------
    >>> upload_tables(cupy, module, "ge_bitmask_tables", bitmask_tables().as_dict(),
    ...               BITMASK_TABLE_ORDER, BITMASK_TABLE_DTYPES)  # doctest: +SKIP
    """
    device_tables = []
    for name in order:
        host = np.ascontiguousarray(tables[name])
        if host.dtype != dtypes[name]:
            raise AssertionError(f"table {name} is {host.dtype}, kernels expect {dtypes[name]}")
        device_tables.append(cupy.asarray(host))
    pointers = np.array([t.data.ptr for t in device_tables], dtype=np.uint64)
    memptr = module.get_global(symbol)
    cupy.ndarray((len(pointers),), dtype=cupy.uint64, memptr=memptr).set(pointers)
    return device_tables


def upload_bitmask_tables(cupy, module, tables: Any = None) -> list[Any]:
    """:func:`upload_tables` of the bitmask evaluator's tables into ``ge_bitmask_tables``:
    the full deck's (default), or a game's (``deck_layout(game).tables``, short deck).

    Examples
    --------
    >>> upload_bitmask_tables(cupy, module)  # doctest: +SKIP
    """
    from gpu_eval.evaluator.tables import bitmask_tables  # noqa: PLC0415 -- built on first use

    tables = bitmask_tables() if tables is None else tables
    return upload_tables(cupy, module, "ge_bitmask_tables", tables.as_dict(),
                         BITMASK_TABLE_ORDER, BITMASK_TABLE_DTYPES)


def resident_blocks_per_sm(kernel, props: dict) -> int:
    """Resident blocks of THREADS_PER_BLOCK threads per SM; a grid of SMs x this fills the
    device once (one wave) and grid-stride loops do the rest.

    Asks the driver (``cuOccupancyMaxActiveBlocksPerMultiprocessor``, which knows the
    kernel's registers, shared memory and the device's limits exactly); where that is not
    available, :func:`_blocks_per_sm_estimate` computes it from the kernel's attributes.

    Parameters
    ----------
    kernel : cupy.RawKernel
        A compiled kernel (its ``num_regs`` and ``shared_size_bytes`` feed the estimate).
    props : dict
        ``cupy.cuda.runtime.getDeviceProperties(device)``.

    Returns
    -------
    int
        Blocks per SM, at least 1.

    Examples
    --------
    >>> props = cupy.cuda.runtime.getDeviceProperties(0)  # doctest: +SKIP
    >>> resident_blocks_per_sm(module.get_function("ge_eval_masks"), props)  # doctest: +SKIP
    6
    """
    try:
        cupy = import_cupy()
        n = int(cupy.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor(
            kernel.kernel.ptr, THREADS_PER_BLOCK, 0))
        if n > 0:
            return n
    except Exception:  # no driver API in this CuPy, or a stand-in kernel: estimate
        pass
    return _blocks_per_sm_estimate(kernel, props)


def _blocks_per_sm_estimate(kernel, props: dict) -> int:
    """The occupancy calculator's arithmetic: threads, registers (allocated per warp in
    units of 256), shared memory (plus 1 KiB reserved per block) and the per-SM block limit.

    Examples
    --------
    >>> class K: num_regs, shared_size_bytes = 41, 0
    >>> props = {"maxThreadsPerMultiProcessor": 2048, "regsPerMultiprocessor": 65536,
    ...          "sharedMemPerMultiprocessor": 233472, "maxBlocksPerMultiProcessor": 32}
    >>> _blocks_per_sm_estimate(K, props)  # 41 registers round up to 48 a thread
    5
    """
    try:
        by_threads = int(props["maxThreadsPerMultiProcessor"]) // THREADS_PER_BLOCK
        warps = -(-THREADS_PER_BLOCK // 32)
        regs_per_warp = -(-max(1, int(kernel.num_regs)) * 32 // 256) * 256
        by_regs = int(props["regsPerMultiprocessor"]) // (regs_per_warp * warps)
        smem = int(kernel.shared_size_bytes)
        by_smem = (int(props["sharedMemPerMultiprocessor"]) // (smem + 1024)) if smem else 64
        by_blocks = int(props.get("maxBlocksPerMultiProcessor", 32))
        return max(1, min(by_threads, by_regs, by_smem, by_blocks))
    except Exception:  # attributes missing in some CuPy version: a safe default
        return 4
