"""The CUDA backend: loading the kernels with CuPy and launching them.

CuPy is imported lazily, inside the functions here, never at import time: ``import gpu_eval``
must work on machines without CuPy or without a GPU.

Per device, :func:`get_module` compiles ``kernels/evaluate.cu`` and ``kernels/enumerate.cu``
once with NVRTC through ``cupy.RawModule`` (CuPy adds ``-arch=sm_XY`` for the device, capped
at what its NVRTC supports, and caches the binary on disk), uploads the bitmask tables and
writes their addresses into the kernels' ``__constant__`` table struct. The code handed to
CuPy carries a hash of every kernel source, so neither CuPy's disk cache nor ours can serve a
binary built from older headers.

Entry points take CuPy arrays (results stay on that array's device, on the current stream) or
NumPy arrays (streamed through pinned buffers on two streams so host copies, transfers and
kernels overlap; the result is NumPy). Inputs are not validated here: the public API checks
card ids, masks and shapes before calling in.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from math import comb
from typing import Any

import numpy as np

from gpu_eval import cards
from gpu_eval.combinatorics import BINOM
from gpu_eval.cuda.availability import (
    CudaUnavailableError,
    cuda_available,
    import_cupy,
    is_cupy_array,
    require_cuda,
)
from gpu_eval.cuda.nvrtc import BASE_OPTIONS, kernel_dir, source_hash
from gpu_eval.evaluator import inputs
from gpu_eval.evaluator.tables import bitmask_tables
from gpu_eval.games import registry
from gpu_eval.games.registry import HOLDEM
from gpu_eval.scale import NUM_STRENGTHS

__all__ = [
    "CudaUnavailableError",
    "evaluate",
    "cuda_available",
    "require_cuda",
    "is_cupy_array",
    "get_module",
    "module_source",
    "evaluate_masks_cuda",
    "evaluate_ids_cuda",
    "evaluate_deadhorse_cuda",
    "enumerate_counts_cuda",
]


#: Field order of ``GeBitmaskTables`` in kernels/bitmask.cuh, with each table's dtype.
BITMASK_TABLE_ORDER: tuple[str, ...] = (
    "flush", "dup_row", "dup", "row", "trips", "full_house", "quads",
)
BITMASK_TABLE_DTYPES: dict[str, np.dtype] = {
    name: np.dtype(np.uint32 if name in ("row", "dup_row") else np.uint16)
    for name in BITMASK_TABLE_ORDER
}
#: Field order of ``GePhashTables`` in kernels/phash.cuh, with each table's dtype.
PHASH_TABLE_ORDER: tuple[str, ...] = (
    "flush", "noflush", "offset", "spread", "group0", "group1", "group2", "group3",
)
PHASH_TABLE_DTYPES: dict[str, np.dtype] = {
    "flush": np.dtype(np.uint16), "noflush": np.dtype(np.uint16),
    "offset": np.dtype(np.uint32), "spread": np.dtype(np.uint64),
    **{f"group{g}": np.dtype(np.uint32) for g in range(4)},
}
#: The rank groups phash.cuh hard-codes (ge_phash_group<LO, W>).
PHASH_RANK_GROUPS = ((0, 4), (4, 7), (7, 10), (10, 13))

#: Kernel sources compiled into the per-device module, and the kernels it exports.
MODULE_FILES: tuple[str, ...] = ("evaluate.cu", "enumerate.cu", "evaluate_phash.cu",
                                 "convert.cu", "check_eval.cu")
KERNELS: tuple[str, ...] = ("ge_eval_masks", "ge_eval_ids", "ge_eval_deadhorse",
                            "ge_enumerate_counts", "ge_phash_eval_masks", "ge_phash_eval_ids",
                            "ge_phash_eval_deadhorse", "ge_ids_to_masks",
                            "ge_deadhorse_to_masks", "ge_mask_counts",
                            "ge_check_eval_masks", "ge_check_eval_ids",
                            "ge_phash_check_eval_masks", "ge_phash_check_eval_ids")
#: ``algorithm=`` names and the prefix of their kernels.
ALGORITHMS = {"bitmask": "ge_", "perfect-hash": "ge_phash_"}

#: Bytes of host input per streamed chunk (two chunks are in flight at a time).
STREAM_CHUNK_BYTES = 64 << 20
THREADS_PER_BLOCK = 256
# The enumeration kernel's per-block counters are 32-bit: each launch covers < 2^32 hands.
_ENUM_LAUNCH_MAX = 1 << 31

def module_source() -> str:
    """The code handed to ``cupy.RawModule``: the kernel files, included by name.

    The first line carries the hash of every kernel source: CuPy's on-disk cache keys on
    this text, which would otherwise not change when only an included header does.
    """
    includes = "".join(f'#include "{f}"\n' for f in MODULE_FILES)
    return f"// gpu_eval kernels, sources sha256 {source_hash()}\n{includes}"


def module_options() -> tuple[str, ...]:
    """NVRTC options for the per-device module (CuPy adds ``-arch=sm_XY`` itself)."""
    return (*BASE_OPTIONS, f"-I{kernel_dir()}")


@dataclass
class DeviceState:
    """One device's compiled module, uploaded tables and launch configuration."""

    device_id: int
    module: Any
    kernels: dict[str, Any]
    tables: list[Any]            # keeps the device tables alive
    binom: Any
    sm_count: int
    blocks_per_sm: dict[str, int]
    streams: list[Any] = field(default_factory=list)
    phash_tables: list[Any] | None = None  # uploaded on first use (building them takes ~2 s)

    def grid(self, name: str, n: int) -> int:
        """Blocks for ``n`` items: enough to fill the device, no more than needed."""
        full = self.sm_count * self.blocks_per_sm[name]
        return max(1, min(full, -(-n // THREADS_PER_BLOCK)))

    def launch(self, name: str, n: int, args: tuple) -> None:
        """Launch kernel ``name`` over ``n`` items on the current stream."""
        self.kernels[name]((self.grid(name, n),), (THREADS_PER_BLOCK,), args)


_STATES: dict[tuple[int, str], DeviceState] = {}
_LOCK = threading.Lock()


def get_module(device_id: int | None = None) -> DeviceState:
    """The compiled kernels and uploaded tables for a device (built once, then cached).

    Parameters
    ----------
    device_id : int, optional
        CUDA device; default: CuPy's current device.

    Returns
    -------
    DeviceState
        The ``cupy.RawModule``, its kernels, the device tables and launch parameters.

    Raises
    ------
    CudaUnavailableError
        If CuPy or a device is missing, or the kernels cannot be compiled (NVRTC missing).
    """
    return cached_device_state(_STATES, _LOCK, _build_state, device_id)


def cached_device_state(states: dict, lock: threading.Lock, build: Callable[[Any, int], Any],
                        device_id: int | None = None) -> Any:
    """``states[(device, source hash)]``, built once by ``build(cupy, device)`` under ``lock``.

    Every CUDA module of the package (evaluator, equity, variants) is cached this way: once
    per device, and again whenever a kernel source changes (the hash covers all of them).
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


@lru_cache(maxsize=1)
def _process_source_hash() -> str:
    """The kernel sources' hash, computed once per process: every launch path looks its
    module up by it, and re-reading each kernel file's metadata per call costs more than
    a small launch."""
    return source_hash()


def _build_state(cupy, dev: int) -> DeviceState:
    module = cupy.RawModule(code=module_source(), options=module_options())
    try:
        kernels = {name: module.get_function(name) for name in KERNELS}  # compiles here
    except Exception as exc:
        raise CudaUnavailableError(
            f"compiling gpu_eval's CUDA kernels for device {dev} failed "
            f"({type(exc).__name__}): {exc}"
        ) from exc

    device_tables = upload_tables(cupy, module, "ge_bitmask_tables", bitmask_tables().as_dict(),
                                   BITMASK_TABLE_ORDER, BITMASK_TABLE_DTYPES)
    binom = cupy.asarray(np.ascontiguousarray(BINOM, dtype=np.uint64))
    # Later launches may run on other (non-blocking) streams: finish the uploads first.
    cupy.cuda.runtime.deviceSynchronize()

    props = cupy.cuda.runtime.getDeviceProperties(dev)
    sm_count = int(props["multiProcessorCount"])
    blocks_per_sm = {name: resident_blocks_per_sm(kernels[name], props) for name in KERNELS}
    streams = [cupy.cuda.Stream(non_blocking=True) for _ in range(2)]
    return DeviceState(dev, module, kernels, device_tables, binom, sm_count,
                        blocks_per_sm, streams)


def upload_tables(cupy, module, symbol: str, tables: dict[str, np.ndarray],
                   order: tuple[str, ...], dtypes: dict[str, np.dtype]) -> list[Any]:
    """Copy tables to the device and write their addresses into the ``__constant__`` struct
    ``symbol`` (one pointer per field, in ``order``). Returns the device arrays, which must
    be kept alive as long as the module."""
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


def phash_device_tables() -> dict[str, np.ndarray]:
    """The perfect-hash evaluator's tables, named as the fields of ``GePhashTables``."""
    from gpu_eval.evaluator import phash  # noqa: PLC0415 -- its tables take ~2 s to build: only on demand

    if tuple(phash.RANK_GROUPS) != PHASH_RANK_GROUPS:
        raise AssertionError(f"phash.RANK_GROUPS {phash.RANK_GROUPS} != the kernels' "
                             f"{PHASH_RANK_GROUPS}")
    t = phash.phash_tables()
    groups = phash.rank_groups()
    return {"flush": t.flush, "noflush": t.noflush, "offset": t.offset,
            "spread": phash.SPREAD, **{f"group{g}": groups[g] for g in range(4)}}


def _ensure_phash(cupy, state: DeviceState) -> None:
    if state.phash_tables is None:
        with _LOCK, cupy.cuda.Device(state.device_id):
            if state.phash_tables is None:
                tables = upload_tables(cupy, state.module, "ge_phash_tables",
                                        phash_device_tables(), PHASH_TABLE_ORDER,
                                        PHASH_TABLE_DTYPES)
                cupy.cuda.runtime.deviceSynchronize()
                state.phash_tables = tables


def _kernel_name(algorithm: str, base: str, state: DeviceState | None = None) -> str:
    """``ge_eval_masks`` -> the kernel for ``algorithm`` (uploading its tables if needed)."""
    if algorithm not in ALGORITHMS:
        raise ValueError(f"algorithm={algorithm!r}: expected one of {', '.join(ALGORITHMS)}")
    if algorithm == "perfect-hash" and state is not None:
        _ensure_phash(import_cupy(), state)
    return ALGORITHMS[algorithm] + base[len("ge_"):]


def resident_blocks_per_sm(kernel, props: dict) -> int:
    """Resident blocks of THREADS_PER_BLOCK threads per SM; a grid of SMs x this fills the
    device once (one wave) and grid-stride loops do the rest.

    Asks the driver (``cuOccupancyMaxActiveBlocksPerMultiprocessor``, which knows the
    kernel's registers, shared memory and the device's limits exactly); where that is not
    available, :func:`_blocks_per_sm_estimate` computes it from the kernel's attributes.
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


# --- evaluation -------------------------------------------------------------------------

def evaluate_masks_cuda(masks: Any, *, algorithm: str = "bitmask",
                        chunk_rows: int | None = None) -> Any:
    """Strengths of ``uint64`` hand masks on the GPU.

    Parameters
    ----------
    masks : cupy.ndarray or numpy.ndarray
        Hand masks (5 to 9 cards each, already validated), any shape.
    algorithm : {"bitmask", "perfect-hash"}
        Which evaluator's kernel to run; both give identical strengths.
    chunk_rows : int, optional
        Masks per streamed chunk for NumPy input (default: 64 MiB of input).

    Returns
    -------
    cupy.ndarray or numpy.ndarray
        ``uint16`` strengths of the same shape, on the same side as the input: CuPy input
        stays on its device (computed on the current stream), NumPy input is streamed.

    Raises
    ------
    ValueError
        For an unknown ``algorithm``.
    CudaUnavailableError
        If CuPy or a device is missing.
    """
    _kernel_name(algorithm, "ge_eval_masks")  # validate before touching the device
    cupy = require_cuda()
    if is_cupy_array(masks):
        with masks.device:
            state = get_module(masks.device.id)
            kernel = _kernel_name(algorithm, "ge_eval_masks", state)
            m = cupy.ascontiguousarray(masks, dtype=cupy.uint64).reshape(-1)
            out = cupy.empty(m.size, dtype=cupy.uint16)
            if m.size:
                state.launch(kernel, m.size, (m, out, np.uint64(m.size)))
            return out.reshape(masks.shape)
    host = np.ascontiguousarray(masks, dtype=np.uint64)
    state = get_module()
    kernel = _kernel_name(algorithm, "ge_eval_masks", state)
    out = stream_host(
        state, host.reshape(-1, 1), chunk_rows,
        lambda st, d_in, d_out, n: st.launch(kernel, n, (d_in, d_out, np.uint64(n))),
    )
    return out.reshape(host.shape)


def _evaluate_rows(cards: Any, dtype, base: str, what: str, algorithm: str,
                   chunk_rows: int | None) -> Any:
    """Shared body of the ``(N, k)`` id and DeadHorse entry points."""
    _kernel_name(algorithm, base)
    cupy = require_cuda()
    shape = tuple(cards.shape)
    if len(shape) != 2 or not 5 <= shape[1] <= 9:
        raise ValueError(f"{what} must have shape (N, k) with k = 5..9, got {shape}")
    k = np.int32(shape[1])
    if is_cupy_array(cards):
        with cards.device:
            state = get_module(cards.device.id)
            kernel = _kernel_name(algorithm, base, state)
            a = cupy.ascontiguousarray(cards, dtype=dtype)
            out = cupy.empty(shape[0], dtype=cupy.uint16)
            if shape[0]:
                state.launch(kernel, shape[0], (a, k, out, np.uint64(shape[0])))
            return out
    host = np.ascontiguousarray(cards, dtype=dtype)
    state = get_module()
    kernel = _kernel_name(algorithm, base, state)
    return stream_host(
        state, host, chunk_rows,
        lambda st, d_in, d_out, n: st.launch(kernel, n, (d_in, k, d_out, np.uint64(n))),
    )


def evaluate_ids_cuda(ids: Any, *, algorithm: str = "bitmask",
                      chunk_rows: int | None = None) -> Any:
    """Strengths of ``(N, k)`` card ids (k = 5..9) on the GPU.

    Parameters
    ----------
    ids : cupy.ndarray or numpy.ndarray
        ``uint8`` card ids, validated (0..51, no card twice in a row); other integer dtypes
        are converted.
    algorithm : {"bitmask", "perfect-hash"}
        Which evaluator's kernel to run.
    chunk_rows : int, optional
        Rows per streamed chunk for NumPy input.

    Returns
    -------
    cupy.ndarray or numpy.ndarray
        ``uint16[N]`` strengths, CuPy for CuPy input and NumPy for NumPy input.

    Raises
    ------
    ValueError
        If the shape is not ``(N, k)`` with ``5 <= k <= 9``, or for an unknown algorithm.
    CudaUnavailableError
        If CuPy or a device is missing.
    """
    return _evaluate_rows(ids, np.uint8, "ge_eval_ids", "card ids", algorithm, chunk_rows)


def evaluate_deadhorse_cuda(cards: Any, *, algorithm: str = "bitmask",
                            chunk_rows: int | None = None) -> Any:
    """Strengths of ``(N, k)`` DeadHorse card ints (k = 5..9) on the GPU.

    Parameters
    ----------
    cards : cupy.ndarray or numpy.ndarray
        Validated seed-000 17-bit card ints, converted to ``int32``.
    algorithm : {"bitmask", "perfect-hash"}
        Which evaluator's kernel to run.
    chunk_rows : int, optional
        Rows per streamed chunk for NumPy input.

    Returns
    -------
    cupy.ndarray or numpy.ndarray
        ``uint16[N]`` strengths, CuPy for CuPy input and NumPy for NumPy input.

    Raises
    ------
    ValueError
        If the shape is not ``(N, k)`` with ``5 <= k <= 9``, or for an unknown algorithm.
    CudaUnavailableError
        If CuPy or a device is missing.
    """
    return _evaluate_rows(cards, np.int32, "ge_eval_deadhorse", "DeadHorse cards", algorithm,
                          chunk_rows)


def stream_host(state: DeviceState, host: np.ndarray, chunk_rows: int | None,
                 launch: Callable[[DeviceState, Any, Any, int], None]) -> np.ndarray:
    """Evaluate the rows of a C-contiguous 2-D host array chunk by chunk.

    Two slots, each with pinned input/output buffers, device buffers and its own stream
    (ordered after the caller's stream by an event, so the inputs the caller wrote are there),
    alternate: while one slot's transfer and kernel run, the host fills the other's pinned
    input, so host copies, PCIe transfers and kernels overlap.
    """
    cupy = require_cuda()
    n = host.shape[0]
    row_bytes = host.dtype.itemsize * host.shape[1]
    out = np.empty(n, dtype=np.uint16)
    if n == 0:
        return out
    rows = chunk_rows or max(1, STREAM_CHUNK_BYTES // row_bytes)
    rows = min(rows, n)
    with cupy.cuda.Device(state.device_id):
        if rows == n:  # one chunk: plain (synchronous) copies are just as fast
            d_in = cupy.asarray(host)
            d_out = cupy.empty(n, dtype=cupy.uint16)
            launch(state, d_in, d_out, n)
            d_out.get(out=out)
            return out
        # Our streams do not order themselves after the caller's: wait for an event recorded
        # there now, after whatever the caller wrote for these launches (an Omaha board, ...).
        inputs_ready = cupy.cuda.get_current_stream().record()
        slots = []
        for stream in state.streams:
            stream.wait_event(inputs_ready)
            with stream:
                pin_in = np.frombuffer(cupy.cuda.alloc_pinned_memory(rows * row_bytes),
                                       dtype=host.dtype, count=rows * host.shape[1])
                pin_out = np.frombuffer(cupy.cuda.alloc_pinned_memory(rows * 2),
                                        dtype=np.uint16, count=rows)
                slots.append({
                    "stream": stream,
                    "pin_in": pin_in.reshape(rows, host.shape[1]),
                    "pin_out": pin_out,
                    "d_in": cupy.empty((rows, host.shape[1]), dtype=host.dtype),
                    "d_out": cupy.empty(rows, dtype=cupy.uint16),
                    "pending": None,
                })

        def drain(slot: dict) -> None:
            if slot["pending"] is not None:
                lo, hi = slot["pending"]
                slot["stream"].synchronize()
                out[lo:hi] = slot["pin_out"][: hi - lo]
                slot["pending"] = None

        try:
            for i, lo in enumerate(range(0, n, rows)):
                slot = slots[i % 2]
                drain(slot)  # its previous chunk must be done before its buffers are reused
                hi = min(n, lo + rows)
                m = hi - lo
                np.copyto(slot["pin_in"][:m], host[lo:hi])
                stream = slot["stream"]
                with stream:
                    slot["d_in"].data.copy_from_host_async(
                        slot["pin_in"].ctypes.data, m * row_bytes, stream)
                    launch(state, slot["d_in"], slot["d_out"], m)
                    slot["d_out"].data.copy_to_host_async(
                        slot["pin_out"].ctypes.data, m * 2, stream)
                slot["pending"] = (lo, hi)
        finally:
            for slot in slots:
                slot["stream"].synchronize()
        for slot in slots:
            drain(slot)
    return out


# --- the validated entry point behind gpu_eval.evaluate(backend="cuda") -----------------

_DH_PLACEHOLDER = (1 << 14) | 1  # 2c: stands in for a bad DeadHorse card (its row reads 0)


class _HostRows:
    """Row access to a device array for ``inputs.row_error``: fetches one row to the host."""

    def __init__(self, arr: Any, convert: Callable[[np.ndarray], np.ndarray] | None = None):
        self._arr = arr
        self._convert = convert

    def __getitem__(self, row: int) -> np.ndarray:
        host = self._arr[row].get()
        return self._convert(host) if self._convert else host


def evaluate(hands: Any, *, game: str = HOLDEM, invalid: str = "raise",
             encoding: str = "auto", algorithm: str = "bitmask") -> Any:
    """``gpu_eval.evaluate`` on the GPU: validate, evaluate, apply ``invalid``.

    Parameters
    ----------
    hands : cupy.ndarray, numpy.ndarray, str or list of str
        As for :func:`gpu_eval.evaluate`. CuPy arrays are validated on their device and the
        result stays there; anything else is validated on the host (``gpu_eval.evaluator.inputs``),
        turned into masks and streamed through the device.
    game : str
        ``"holdem"``.
    invalid : {"raise", "mask"}
        Raise ``ValueError`` naming the first bad row, or give bad rows strength 0.
    encoding : {"auto", "ids", "mask", "deadhorse"}
        How to read an integer array (``auto``: ``uint64`` are masks, other dtypes ids).
    algorithm : {"bitmask", "perfect-hash"}
        Which evaluator's kernels to run.

    Returns
    -------
    numpy.ndarray or cupy.ndarray
        ``uint16`` strengths, shape ``()`` for one hand and ``(N,)`` otherwise, on the side
        the input came from.

    Raises
    ------
    ValueError
        Bad cards, rows or arguments (the message names the row and the reason).
    TypeError
        A dtype that cannot hold cards.
    CudaUnavailableError
        If CuPy or a device is missing.
    """
    lo, hi = registry.get(game, where="the CUDA backend", families=(HOLDEM,)).hand_cards
    _kernel_name(algorithm, "ge_eval_masks")
    inputs.check_invalid_mode(invalid)
    if encoding not in inputs.ENCODINGS:
        raise ValueError(f"encoding={encoding!r}: expected one of "
                         f"{', '.join(inputs.ENCODINGS)}")
    if is_cupy_array(hands):
        return _evaluate_device(hands, lo, hi, invalid, encoding, algorithm)

    from gpu_eval.evaluator import numpy_path  # noqa: PLC0415

    h = inputs.coerce(hands, encoding=encoding, invalid=invalid)
    if h.ids is not None:
        masks = np.empty(h.n, dtype=np.uint64)

        def work(start: int, stop: int) -> None:
            masks[start:stop] = numpy_path.ids_to_masks(h.ids[start:stop])

        numpy_path.run_chunked(h.n, work, chunk=1 << 18)
    else:
        masks = h.masks & cards.VALID_MASK_BITS
    counts = np.bitwise_count(masks).astype(np.uint8)
    out = evaluate_masks_cuda(masks, algorithm=algorithm)
    out[(counts < lo) | (counts > hi)] = 0
    inputs.finish(h, out, counts, lo, hi, invalid)
    return out[0] if h.scalar else out


def first_flagged(cupy, flags: Any) -> int:
    return int(cupy.flatnonzero(flags)[0])


def popcount_masks(state: Any, masks: Any, cupy) -> Any:
    """Cards (valid bits) in each of a 1-D device array of masks, as ``uint8``."""
    counts = cupy.empty(masks.size, dtype=cupy.uint8)
    if masks.size:
        state.launch("ge_mask_counts", masks.size, (masks, counts, np.uint64(masks.size)))
    return counts




@dataclass
class _DeviceHands:
    """A CuPy array of hands read like ``inputs.coerce`` reads a NumPy one."""

    masks: Any             # (n,) uint64, valid bits only
    counts: Any            # (n,) uint8: cards in each mask
    need_k: int | None     # cards per row for ids / DeadHorse input (None for masks)
    bad: Any               # (n,) bool rows already known to be bad, or None
    label: inputs.Hands   # rows as host arrays, for messages
    scalar: bool

    @property
    def n(self) -> int:
        return int(self.masks.size)


def device_hands(cupy, state: Any, a: Any, invalid: str, encoding: str
                  ) -> _DeviceHands:
    """Validate a CuPy array of hands as ``inputs.coerce`` does (same errors) and turn it
    into masks and card counts on its device (shared by the hold'em and variant CUDA paths)."""
    if a.dtype.kind not in "iu":
        raise TypeError(f"hands must be integer card ids or uint64 masks, got dtype {a.dtype}")
    if encoding == "auto":
        encoding = "mask" if a.dtype == cupy.uint64 else "ids"
    bad = None
    if encoding == "mask":
        if a.ndim > 1:
            raise ValueError(f"hand masks must have shape () or (N,), got {a.shape}")
        m = cupy.ascontiguousarray(a.reshape(-1), dtype=cupy.uint64)
        label = inputs.Hands(masks=_HostRows(m), scalar=a.ndim == 0)
        stray = (m & ~cards.VALID_MASK_BITS) != 0
        if m.size and bool(stray.any()):
            if invalid == "raise":
                raise inputs.row_error(label, first_flagged(cupy, stray),
                                        "bits set outside the 52 card positions (bits "
                                        "13-15 of each 16-bit suit lane must be 0)")
            bad = stray
        masks = m & cards.VALID_MASK_BITS
        return _DeviceHands(masks, popcount_masks(state, masks, cupy), None, bad, label,
                            a.ndim == 0)
    what = "card ids" if encoding == "ids" else "DeadHorse cards"
    if a.ndim not in (1, 2):
        raise ValueError(f"{what} must have shape (k,) or (N, k), got {a.shape}")
    scalar = a.ndim == 1
    rows = a.reshape(1, -1) if scalar else a
    n, k = rows.shape
    convert = None if encoding == "ids" else cards.from_deadhorse
    label = inputs.Hands(ids=_HostRows(rows, convert), scalar=scalar)
    if encoding == "ids":
        bad_cells = rows > 51
        if a.dtype.kind == "i":
            bad_cells |= rows < 0
        kernel, clean_dtype, placeholder = "ge_ids_to_masks", cupy.uint8, 0
    else:
        r64 = rows.astype(cupy.int64)
        rank_bits, suit_bits = r64 & 0x1FFF, r64 & ~0x1FFF
        bad_cells = ~((rank_bits != 0) & ((rank_bits & (rank_bits - 1)) == 0)
                      & ((suit_bits & (suit_bits - 1)) == 0)
                      & (suit_bits >= 1 << 13) & (suit_bits <= 1 << 16))
        kernel, clean_dtype, placeholder = ("ge_deadhorse_to_masks", cupy.int32,
                                            _DH_PLACEHOLDER)
    if n * k and bool(bad_cells.any()):
        row_bad = bad_cells.any(axis=1)
        if invalid == "raise":
            r = first_flagged(cupy, row_bad)
            v = int(rows[r][bad_cells[r]][0].get())
            if encoding == "ids":
                raise inputs.row_error(label, r, f"card id {v} is out of range 0..51")
            raise ValueError(f"row {r}: {v} is not a DeadHorse card (one rank bit 0..12 plus "
                             f"one suit bit 13..16)")
        bad = row_bad
        rows = cupy.where(bad_cells, placeholder, rows)
    clean = cupy.ascontiguousarray(rows, dtype=clean_dtype)
    masks = cupy.empty(n, dtype=cupy.uint64)
    counts = cupy.empty(n, dtype=cupy.uint8)
    if n:
        state.launch(kernel, n, (clean, np.int32(k), masks, counts, np.uint64(n)))
    return _DeviceHands(masks, counts, k, bad, label, scalar)


def evaluate_device_fused(cupy, state: Any, a: Any, lo: int, hi: int, invalid: str,
                           encoding: str, algorithm: str = "bitmask", *,
                           kernels: tuple[str, str] | None = None, param: int = 0,
                           forbidden: int = 0,
                           forbidden_reason: Callable[[Any, int], str] | None = None) -> Any:
    """Masks and card ids on the device in one pass (kernels/check_eval.cuh): validation,
    card count and evaluation in one launch, the first bad rows read back in one 24-byte
    copy (none for ``invalid="mask"``). The same results and errors as the step-by-step
    path; None when it does not apply (DeadHorse ints, k outside lo..hi, not integer).

    Shared by every game with such kernels: ``kernels`` names its (masks, ids) kernels
    (default: hold'em's for ``algorithm``), ``param`` is handed to its evaluator, cards under
    the ``forbidden`` mask bits are bad, worded by ``forbidden_reason(label, row)``.
    """
    if a.dtype.kind not in "iu":
        return None
    if encoding == "auto":
        encoding = "mask" if a.dtype == cupy.uint64 else "ids"
    if encoding == "mask":
        if a.ndim > 1:
            return None
        rows = cupy.ascontiguousarray(a.reshape(-1), dtype=cupy.uint64)
        label = inputs.Hands(masks=_HostRows(rows), scalar=a.ndim == 0)
        n, k, scalar = rows.size, None, a.ndim == 0
    elif encoding == "ids":
        if a.ndim not in (1, 2):
            return None
        scalar = a.ndim == 1
        rows = a.reshape(1, -1) if scalar else a
        n, k = rows.shape
        if not lo <= k <= hi:
            return None
        label = inputs.Hands(ids=_HostRows(rows), scalar=scalar)
        if rows.dtype != cupy.uint8:  # other integer dtypes: out of range -> 255 (bad too)
            rows = cupy.where((rows < 0) | (rows > 51), 255, rows)
        rows = cupy.ascontiguousarray(rows, dtype=cupy.uint8)
    else:
        return None
    if kernels is None:
        kernels = (_kernel_name(algorithm, "ge_check_eval_masks", state),
                   _kernel_name(algorithm, "ge_check_eval_ids", state))
    none = int(np.iinfo(np.uint64).max)
    out = cupy.empty(n, dtype=cupy.uint16)
    first_bad = cupy.full(3, np.uint64(none), dtype=cupy.uint64)
    common = (np.int32(lo), np.int32(hi), np.uint64(forbidden), np.int32(param),
              np.int32(invalid == "mask"), out, first_bad)
    if n:
        if k is None:
            state.launch(kernels[0], n, (rows, np.uint64(n), *common))
        else:
            state.launch(kernels[1], n, (rows, np.int32(k), np.uint64(n), *common))
    if n and invalid == "raise":
        bad_range, bad_forbidden, bad_count = (int(x) for x in first_bad.get())
        if bad_range != none:
            if k is None:
                raise inputs.row_error(label, bad_range,
                                        "bits set outside the 52 card positions (bits "
                                        "13-15 of each 16-bit suit lane must be 0)")
            row = label.ids[bad_range]
            v = int(row[(row < 0) | (row > 51)][0])
            raise inputs.row_error(label, bad_range, f"card id {v} is out of range 0..51")
        if bad_forbidden != none:
            assert forbidden_reason is not None
            raise inputs.row_error(label, bad_forbidden, forbidden_reason(label, bad_forbidden))
        if bad_count != none:
            if k is None:
                c = bin(int(label.masks[bad_count]) & cards.VALID_MASK_BITS).count("1")
            else:
                c = len(np.unique(label.ids[bad_count]))  # ids 0..51 here: distinct cards
            reason = ("a card is used twice" if k is not None and c < k
                      else f"{c} cards; this game takes {lo} to {hi}")
            raise inputs.row_error(label, bad_count, reason)
    return out[0] if scalar else out


def _evaluate_device(a: Any, lo: int, hi: int, invalid: str, encoding: str,
                     algorithm: str) -> Any:
    """Validate and evaluate a CuPy array on its device (see :func:`evaluate`)."""
    cupy = require_cuda()
    with a.device:
        fused = evaluate_device_fused(cupy, get_module(a.device.id), a, lo, hi, invalid,
                                       encoding, algorithm)
        if fused is not None:
            return fused
        h = device_hands(cupy, get_module(a.device.id), a, invalid, encoding)
        out = evaluate_masks_cuda(h.masks, algorithm=algorithm)
        wrong = (h.counts < lo) | (h.counts > hi)
        if h.need_k is not None:
            wrong |= h.counts != h.need_k  # a repeated card makes the mask short
        if h.bad is not None:
            wrong |= h.bad
        if out.size and bool(wrong.any()):
            if invalid == "mask":
                out[wrong] = 0
            else:
                r = first_flagged(cupy, wrong)
                c = int(h.counts[r].get())
                reason = ("a card is used twice" if h.need_k is not None and c < h.need_k
                          else f"{c} cards; this game takes {lo} to {hi}")
                raise inputs.row_error(h.label, r, reason)
        return out[0] if h.scalar else out


# --- enumeration ------------------------------------------------------------------------

def enumerate_counts_cuda(k: int, start: int = 0, stop: int | None = None, *,
                          device_id: int | None = None) -> np.ndarray:
    """Per-strength counts of the colex-ordered k-card subsets ``[start, stop)`` of the deck.

    The subsets are numbered as in ``gpu_eval.combinatorics`` (``unrank``, ``subset_masks``),
    so a slice names the same hands on every backend.

    Parameters
    ----------
    k : int
        Cards per hand, 5..9.
    start, stop : int
        The slice of subset numbers; ``stop`` defaults to ``C(52, k)``.
    device_id : int, optional
        CUDA device; default: CuPy's current device.

    Returns
    -------
    numpy.ndarray
        ``int64[7463]``: entry ``s`` counts the hands of strength ``s`` (entry 0 is 0).

    Raises
    ------
    ValueError
        If ``k`` or the slice is out of range.
    CudaUnavailableError
        If CuPy or a device is missing.

    Examples
    --------
    >>> enumerate_counts_cuda(5).sum()  # doctest: +SKIP
    2598960
    """
    if not isinstance(k, (int, np.integer)) or not 5 <= k <= 9:
        raise ValueError(f"k must be an integer 5..9, got {k!r}")
    total = comb(52, int(k))
    stop = total if stop is None else int(stop)
    start = int(start)
    if not 0 <= start <= stop <= total:
        raise ValueError(f"need 0 <= start <= stop <= C(52, {k}) = {total}, "
                         f"got start={start}, stop={stop}")
    cupy = require_cuda()
    state = get_module(device_id)
    with cupy.cuda.Device(state.device_id):
        hist = cupy.zeros(NUM_STRENGTHS, dtype=cupy.uint64)
        for lo in range(start, stop, _ENUM_LAUNCH_MAX):
            hi = min(stop, lo + _ENUM_LAUNCH_MAX)
            n = hi - lo
            blocks = state.sm_count * state.blocks_per_sm["ge_enumerate_counts"]
            threads = blocks * THREADS_PER_BLOCK
            # Runs long enough to amortise the unranking, short enough (~4 per thread) to
            # balance the load.
            run = int(min(1024, max(1, -(-n // (threads * 4)))))
            blocks = max(1, min(blocks, -(-n // (run * THREADS_PER_BLOCK))))
            state.kernels["ge_enumerate_counts"](
                (blocks,), (THREADS_PER_BLOCK,),
                (np.int32(k), np.uint64(lo), np.uint64(hi), np.uint32(run), state.binom, hist),
            )
        return hist.get().astype(np.int64)
