"""The hold'em launchers: evaluating 5- to 9-card hands and enumerating all k-card hands on the
GPU (``kernels/evaluate.cu``, ``evaluate_phash.cu``, ``enumerate.cu``, ``convert.cu``,
``check_eval.cu``).

CuPy is imported lazily, inside the functions here, never at import time: ``import gpu_eval``
must work on machines without CuPy or without a GPU.

Per device, :func:`get_module` compiles the hold'em module once with NVRTC through
``cupy.RawModule`` (CuPy adds ``-arch=sm_XY`` for the device, capped at what its NVRTC
supports, and caches the binary on disk), uploads the bitmask tables and writes their
addresses into the kernels' ``__constant__`` table struct; the perfect-hash tables follow on
first use. The cache, the upload and the launch geometry are :mod:`gpu_eval.cuda.modules`'.

Entry points take CuPy arrays (results stay on that array's device, on the current stream) or
NumPy arrays (streamed through pinned buffers on two streams so host copies, transfers and
kernels overlap; the result is NumPy). The ``*_cuda`` entry points do not validate their
inputs: the public API checks card ids, masks and shapes before calling in. :func:`evaluate`
does, on the host (``gpu_eval.evaluator.inputs``) or, for CuPy input, on the device
(:mod:`gpu_eval.cuda.device_inputs`).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from math import comb
from typing import Any

import numpy as np

from gpu_eval import cards
from gpu_eval.combinatorics import BINOM
from gpu_eval.cuda import device_inputs, manifest
from gpu_eval.cuda.availability import (
    import_cupy,
    is_cupy_array,
    require_cuda,
)
from gpu_eval.cuda.modules import (
    THREADS_PER_BLOCK,
    DeviceState,
    cached_device_state,
    compile_module,
    device_cache,
    resident_blocks_per_sm,
    upload_bitmask_tables,
    upload_tables,
)
from gpu_eval.cuda.streaming import STRENGTHS, stream_host
from gpu_eval.evaluator import inputs
from gpu_eval.games import registry
from gpu_eval.games.registry import HOLDEM
from gpu_eval.scale import NUM_STRENGTHS

__all__ = [
    "evaluate",
    "get_module",
    "phash_device_tables",
    "evaluate_masks_cuda",
    "evaluate_ids_cuda",
    "evaluate_deadhorse_cuda",
    "enumerate_counts_cuda",
    "KERNELS",
    "ALGORITHMS",
]


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

#: The manifest module of these launchers (gpu_eval.cuda.manifest), and its kernels.
MODULE = "evaluator"
KERNELS: tuple[str, ...] = manifest.module(MODULE).kernels
#: ``algorithm=`` names and the prefix of their kernels.
ALGORITHMS = {"bitmask": "ge_", "perfect-hash": "ge_phash_"}

# The enumeration kernel's per-block counters are 32-bit: each launch covers < 2^32 hands.
_ENUM_LAUNCH_MAX = 1 << 31


@dataclass
class HoldemState(DeviceState):
    """The hold'em module of a device; the perfect-hash tables join it on first use."""

    phash_tables: list[Any] | None = None  # building them takes ~2 s: only on demand


_STATES: dict[tuple[int, str], HoldemState] = device_cache()
_LOCK = threading.Lock()


def get_module(device_id: int | None = None) -> HoldemState:
    """The compiled kernels and uploaded tables for a device (built once, then cached).

    Parameters
    ----------
    device_id : int, optional
        CUDA device; default: CuPy's current device.

    Returns
    -------
    HoldemState
        The ``cupy.RawModule``, its kernels, the device tables and launch parameters.

    Raises
    ------
    CudaUnavailableError
        If CuPy or a device is missing, or the kernels cannot be compiled (NVRTC missing).
    """
    return cached_device_state(_STATES, _LOCK, _build_state, device_id)


def _build_state(cupy, dev: int) -> HoldemState:
    module, kernels = compile_module(cupy, MODULE, dev)

    device_tables = upload_bitmask_tables(cupy, module)
    binom = cupy.asarray(np.ascontiguousarray(BINOM, dtype=np.uint64))
    # Later launches may run on other (non-blocking) streams: finish the uploads first.
    cupy.cuda.runtime.deviceSynchronize()

    props = cupy.cuda.runtime.getDeviceProperties(dev)
    sm_count = int(props["multiProcessorCount"])
    blocks_per_sm = {name: resident_blocks_per_sm(kernels[name], props) for name in KERNELS}
    streams = [cupy.cuda.Stream(non_blocking=True) for _ in range(2)]
    return HoldemState(dev, module, kernels, device_tables, binom, sm_count,
                       blocks_per_sm, streams)


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


def _ensure_phash(cupy, state: HoldemState) -> None:
    if state.phash_tables is None:
        with _LOCK, cupy.cuda.Device(state.device_id):
            if state.phash_tables is None:
                tables = upload_tables(cupy, state.module, "ge_phash_tables",
                                        phash_device_tables(), PHASH_TABLE_ORDER,
                                        PHASH_TABLE_DTYPES)
                cupy.cuda.runtime.deviceSynchronize()
                state.phash_tables = tables


def _kernel_name(algorithm: str, base: str, state: HoldemState | None = None) -> str:
    """``ge_eval_masks`` -> the kernel for ``algorithm`` (uploading its tables if needed)."""
    if algorithm not in ALGORITHMS:
        raise ValueError(f"algorithm={algorithm!r}: expected one of {', '.join(ALGORITHMS)}")
    if algorithm == "perfect-hash" and state is not None:
        _ensure_phash(import_cupy(), state)
    return ALGORITHMS[algorithm] + base[len("ge_"):]


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
    out, = stream_host(
        state, [host.reshape(-1)], [STRENGTHS],
        lambda st, d_in, d_out, n: st.launch(kernel, n, (d_in[0], d_out[0], np.uint64(n))),
        chunk_rows=chunk_rows)
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
    out, = stream_host(
        state, [host], [STRENGTHS],
        lambda st, d_in, d_out, n: st.launch(kernel, n, (d_in[0], k, d_out[0], np.uint64(n))),
        chunk_rows=chunk_rows)
    return out


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


# --- the validated entry point behind gpu_eval.evaluate(backend="cuda") -----------------

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
    lo, hi = registry.get(game, where="the CUDA backend", evaluators=(HOLDEM,)).evaluate_cards
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
        ids = h.ids

        def work(start: int, stop: int) -> None:
            masks[start:stop] = numpy_path.ids_to_masks(ids[start:stop])

        numpy_path.run_chunked(h.n, work, chunk=1 << 18)
    else:
        masks = h.masks & cards.VALID_MASK_BITS
    counts = np.bitwise_count(masks).astype(np.uint8)
    out = evaluate_masks_cuda(masks, algorithm=algorithm)
    out[(counts < lo) | (counts > hi)] = 0
    inputs.finish(h, out, counts, lo, hi, invalid)
    return out[0] if h.scalar else out


def _evaluate_device(a: Any, lo: int, hi: int, invalid: str, encoding: str,
                     algorithm: str) -> Any:
    """Validate and evaluate a CuPy array on its device (see :func:`evaluate`)."""
    cupy = require_cuda()
    with a.device:
        state = get_module(a.device.id)
        fused = device_inputs.evaluate_device_fused(
            cupy, state, a, lo, hi, invalid, encoding,
            kernels=lambda: (_kernel_name(algorithm, "ge_check_eval_masks", state),
                             _kernel_name(algorithm, "ge_check_eval_ids", state)))
        if fused is not None:
            return fused
        h = device_inputs.device_hands(cupy, state, a, invalid, encoding)
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
                r = device_inputs.first_flagged(cupy, wrong)
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
