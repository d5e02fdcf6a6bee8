"""Work larger than the device, in chunks sized from its free memory: the one chooser of chunk
sizes, the loop that answers CuPy's out-of-memory error with a smaller chunk, and the pinned,
double-buffered stream of host arrays through the device and back.

Every launcher that takes an input of unbounded size goes through here:

* :func:`device_budget` is what the current device can give a call now: its free memory
  (``Device().mem_info``) plus what CuPy's pool holds free, within the pool's limit when one
  is set;
* :func:`rows_per_chunk` turns a budget into rows, from the device bytes one row needs (its
  inputs, outputs and temporaries), a share of the budget at a time;
* :func:`for_chunks` runs ``work(lo, hi)`` over ``[0, n)`` chunk by chunk, and on
  ``cupy.cuda.memory.OutOfMemoryError`` frees the pool's cached blocks and retries the same
  rows in a chunk half the size (down to one row: only then is the error the caller's);
* :func:`stream_host` streams NumPy inputs to the device and the outputs back into NumPy
  arrays, a chunk at a time, through two slots of pinned host buffers and device buffers on
  two streams, so that copies, transfers and kernels overlap; it too retries a chunk that
  ran out of memory with a smaller one.

CuPy is passed in or imported inside the functions, never at import time.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

__all__ = ["device_budget", "rows_per_chunk", "for_chunks", "allocate_rows", "stream_host",
           "oom_error",
           "BUDGET_SHARE", "MAX_CHUNK_BYTES", "STRENGTHS"]

#: Share of the device budget one chunk's buffers may take: the rest is headroom for CuPy's
#: own temporaries, the other slot of a stream and other work on the device.
BUDGET_SHARE = 0.25
#: The output spec of the evaluators (:func:`stream_host`): a ``uint16`` strength a row.
STRENGTHS = ((), np.uint16, np.uint16)
#: Bytes of one chunk's device buffers at most, however free the device: a launch stays short
#: (Ctrl-C and progress between launches) and pinned host buffers stay small.
MAX_CHUNK_BYTES = 256 << 20


def oom_error(cupy) -> type[BaseException]:
    """CuPy's out-of-memory error class (``cupy.cuda.memory.OutOfMemoryError``)."""
    return cupy.cuda.memory.OutOfMemoryError


def device_budget(cupy) -> int:
    """Bytes the current device can give a call now.

    Its free memory (``cupy.cuda.Device().mem_info``) plus the blocks CuPy's default pool
    holds free (reused before the driver is asked), and no more than the pool's limit
    leaves, when one is set.

    Parameters
    ----------
    cupy : module
        CuPy (or the tests' stand-in).

    Returns
    -------
    int
        Bytes, at least 0.

    Examples
    --------
    >>> device_budget(cupy) > 0  # doctest: +SKIP
    True
    """
    free, _ = cupy.cuda.Device().mem_info
    pool = cupy.get_default_memory_pool()
    budget = int(free) + int(pool.free_bytes())
    limit = int(pool.get_limit())
    if limit:
        budget = min(budget, limit - int(pool.used_bytes()))
    return max(0, budget)


def rows_per_chunk(cupy, row_bytes: int, n: int, *, fixed_bytes: int = 0,
                   max_rows: int | None = None) -> int:
    """Rows per chunk for work that needs ``row_bytes`` of device memory a row (inputs,
    outputs and temporaries together) plus ``fixed_bytes`` a chunk: a share
    (:data:`BUDGET_SHARE`) of :func:`device_budget`, at most :data:`MAX_CHUNK_BYTES`, at
    least one row, at most ``n`` (and ``max_rows``).

    Examples
    --------
    >>> rows_per_chunk(cupy, 8, 10**9) * 8 <= MAX_CHUNK_BYTES  # doctest: +SKIP
    True
    """
    row_bytes = max(1, int(row_bytes))
    room = min(int(device_budget(cupy) * BUDGET_SHARE), MAX_CHUNK_BYTES) - int(fixed_bytes)
    rows = max(1, room // row_bytes)
    rows = min(rows, max(1, int(n)))
    return min(rows, max_rows) if max_rows else rows


def for_chunks(cupy, n: int, row_bytes: int, work: Callable[[int, int], None], *,
               rows: int | None = None, fixed_bytes: int = 0,
               max_rows: int | None = None) -> int:
    """Run ``work(lo, hi)`` over ``[0, n)`` in chunks, in order.

    A chunk that raises CuPy's out-of-memory error is run again, after the pool's cached
    blocks are freed, as two chunks of half its rows (and so on, down to one row), so
    ``work`` must write only rows ``[lo, hi)`` and be safe to repeat for them.

    Parameters
    ----------
    cupy : module
        CuPy.
    n : int
        Rows.
    row_bytes : int
        Device bytes one row's work needs (sizes the chunks, :func:`rows_per_chunk`).
    work : callable
        ``work(lo, hi)``.
    rows : int, optional
        Rows of the first chunk (default: :func:`rows_per_chunk`).
    fixed_bytes, max_rows : int, optional
        As for :func:`rows_per_chunk`.

    Returns
    -------
    int
        Rows of the last chunk (smaller than the first after an out-of-memory retry).

    Raises
    ------
    cupy.cuda.memory.OutOfMemoryError
        If even one row does not fit.

    Examples
    --------
    >>> seen = []
    >>> for_chunks(cupy, 10, 8, lambda lo, hi: seen.append((lo, hi)), rows=4)  # doctest: +SKIP
    4
    >>> seen  # doctest: +SKIP
    [(0, 4), (4, 8), (8, 10)]
    """
    if n <= 0:
        return 0
    rows = rows or rows_per_chunk(cupy, row_bytes, n, fixed_bytes=fixed_bytes,
                                  max_rows=max_rows)
    oom = oom_error(cupy)
    lo = 0
    while lo < n:
        hi = min(n, lo + rows)
        try:
            work(lo, hi)
        except oom:
            if rows == 1:
                raise
            cupy.get_default_memory_pool().free_all_blocks()
            rows = max(1, rows // 2)
            continue
        lo = hi
    return rows


def allocate_rows(cupy, rows: int, make: Callable[[int], Any]) -> tuple[int, Any]:
    """``(rows, make(rows))``, halving ``rows`` while ``make`` runs out of device memory: a
    work buffer reused over many chunks (a strength table), sized before any chunk runs.

    Examples
    --------
    >>> rows, buf = allocate_rows(cupy, 1 << 20, lambda r: cupy.empty(r * 64, cupy.uint16))
    ... # doctest: +SKIP
    """
    oom = oom_error(cupy)
    while True:
        try:
            return rows, make(rows)
        except oom:
            if rows == 1:
                raise
            rows = _smaller(cupy, rows)


class _Slot:
    """One half of the double buffer: pinned host buffers, device buffers, a stream."""

    def __init__(self, cupy, stream, rows: int, inputs, outputs) -> None:
        self.stream, self.pending = stream, None
        self.pin_in, self.d_in, self.pin_out, self.d_out = [], [], [], []
        with stream:
            for a in inputs:
                tail = a.shape[1:]
                self.pin_in.append(_pinned(cupy, (rows, *tail), a.dtype))
                self.d_in.append(cupy.empty((rows, *tail), dtype=a.dtype))
            for tail, dtype, _ in outputs:
                self.pin_out.append(_pinned(cupy, (rows, *tail), dtype))
                self.d_out.append(cupy.empty((rows, *tail), dtype=dtype))


def _pinned(cupy, shape: tuple, dtype) -> np.ndarray:
    count = int(np.prod(shape))
    mem = cupy.cuda.alloc_pinned_memory(max(1, count * np.dtype(dtype).itemsize))
    return np.frombuffer(mem, dtype=dtype, count=count).reshape(shape)


def stream_host(state: Any, inputs: Sequence[np.ndarray],
                outputs: Sequence[tuple[tuple, Any, Any]],
                launch: Callable[[Any, list, list, int], None], *,
                chunk_rows: int | None = None, scratch_row_bytes: int = 0,
                max_rows: int | None = None) -> list[np.ndarray]:
    """Run ``launch`` over host arrays chunk by chunk on ``state``'s device, the outputs
    coming back into NumPy arrays a chunk at a time.

    Two slots, each with pinned host buffers, device buffers and its own stream (ordered
    after the caller's stream by an event, so what the caller wrote for these launches is
    there), alternate: while one slot's transfers and kernel run, the host fills the other's
    pinned input and empties its pinned output, so host copies, PCIe transfers and kernels
    overlap. Chunks are sized from the device's free memory (:func:`rows_per_chunk`, both
    slots counted), and a chunk that runs out of device memory is retried smaller.

    Parameters
    ----------
    state : DeviceState
        The device module the launches run on (its ``device_id`` and two ``streams``, made
        here on first use).
    inputs : sequence of numpy.ndarray
        C-contiguous arrays of ``N`` rows each (any trailing shape).
    outputs : sequence of (tuple, dtype, dtype)
        Per output: its trailing shape, the dtype the kernel writes, and the dtype of the
        NumPy array returned (cast a chunk at a time on the host: ``uint32`` counts come
        back as ``int64`` without a device copy).
    launch : callable
        ``launch(state, d_ins, d_outs, m)`` queues the work of ``m`` rows from the device
        inputs into the device outputs (row ``i`` of each is the chunk's ``i``-th) on the
        current stream.
    chunk_rows : int, optional
        Rows per chunk; default: from free device memory.
    scratch_row_bytes : int
        Device bytes a row of ``launch``'s own temporaries takes (counts in the sizing).
    max_rows : int, optional
        Rows per chunk at most (a kernel's limit per launch).

    Returns
    -------
    list of numpy.ndarray
        The outputs, ``(N, *tail)`` each.

    Examples
    --------
    >>> out, = stream_host(state, [masks], [((), np.uint16, np.uint16)],
    ...                    lambda st, d_in, d_out, m: st.launch(
    ...                        "ge_eval_masks", m, (d_in[0], d_out[0], np.uint64(m))))
    ... # doctest: +SKIP
    """
    from gpu_eval.cuda.availability import require_cuda  # noqa: PLC0415 -- CuPy on use

    cupy = require_cuda()
    n = int(inputs[0].shape[0])
    results = [np.empty((n, *tail), dtype=host) for tail, _, host in outputs]
    if n == 0:
        return results
    row_bytes = (sum(a.dtype.itemsize * int(np.prod(a.shape[1:])) for a in inputs)
                 + sum(np.dtype(d).itemsize * int(np.prod(t)) for t, d, _ in outputs))
    with cupy.cuda.Device(state.device_id):
        rows = chunk_rows or rows_per_chunk(cupy, 2 * row_bytes + scratch_row_bytes, n,
                                            max_rows=max_rows)
        rows = min(rows, n)
        if rows == n and chunk_rows is None:  # one chunk: plain (synchronous) copies
            def whole(lo: int, hi: int) -> None:
                d_out = [cupy.empty((hi - lo, *t), dtype=d) for t, d, _ in outputs]
                launch(state, [cupy.asarray(a[lo:hi]) for a in inputs], d_out, hi - lo)
                for r, d in zip(results, d_out):
                    r[lo:hi] = d.get()

            for_chunks(cupy, n, 2 * row_bytes + scratch_row_bytes, whole, rows=rows)
            return results
        # Our streams do not order themselves after the caller's: wait for an event recorded
        # there now, after whatever the caller wrote for these launches (an Omaha board, ...).
        inputs_ready = cupy.cuda.get_current_stream().record()
        if not state.streams:  # the module's two streams, made on first use
            state.streams.extend(cupy.cuda.Stream(non_blocking=True) for _ in range(2))
        oom = oom_error(cupy)
        lo = 0
        while lo < n:
            try:
                slots = [_Slot(cupy, s, rows, inputs, outputs) for s in state.streams]
            except oom:
                if rows == 1:
                    raise
                rows = _smaller(cupy, rows)
                continue
            for s in state.streams:
                s.wait_event(inputs_ready)
            lo, error = _run_slots(oom, slots, inputs, results, launch, state, lo, rows)
            del slots  # the chunks before ``lo`` are in ``results``; free the buffers
            if error is not None:
                if rows == 1:
                    raise error
                rows = _smaller(cupy, rows)
    return results


def _smaller(cupy, rows: int) -> int:
    """Half the rows, after handing CuPy's cached blocks back (an out-of-memory retry)."""
    cupy.get_default_memory_pool().free_all_blocks()
    return max(1, rows // 2)


def _run_slots(oom: type[BaseException], slots: list, inputs, results, launch, state, lo: int, rows: int
               ) -> tuple[int, BaseException | None]:
    """Stream rows ``lo`` on through ``slots``. Returns ``(N, None)``, or, when a chunk runs
    out of device memory, ``(its first row, the error)`` with every chunk before it complete
    in ``results``."""
    n = int(inputs[0].shape[0])

    def drain(slot: _Slot) -> None:
        if slot.pending is not None:
            a, b = slot.pending
            slot.stream.synchronize()
            for r, pin in zip(results, slot.pin_out):
                r[a:b] = pin[: b - a]
            slot.pending = None

    stop, error = n, None
    try:
        for i, start in enumerate(range(lo, n, rows)):
            slot = slots[i % 2]
            drain(slot)  # its previous chunk must be done before its buffers are reused
            end = min(n, start + rows)
            m = end - start
            for a, pin in zip(inputs, slot.pin_in):
                np.copyto(pin[:m], a[start:end])
            try:
                with slot.stream:
                    for pin, d in zip(slot.pin_in, slot.d_in):
                        d.data.copy_from_host_async(pin.ctypes.data, m * pin[0].nbytes,
                                                    slot.stream)
                    launch(state, slot.d_in, slot.d_out, m)
                    for pin, d in zip(slot.pin_out, slot.d_out):
                        d.data.copy_to_host_async(pin.ctypes.data, m * pin[0].nbytes,
                                                  slot.stream)
            except oom as exc:
                stop, error = start, exc
                break
            slot.pending = (start, end)
    finally:
        for slot in slots:
            slot.stream.synchronize()
    for slot in slots:
        drain(slot)
    return stop, error
