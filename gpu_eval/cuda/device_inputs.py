"""CuPy inputs validated on their device, as :func:`gpu_eval.evaluator.inputs.coerce` validates
NumPy ones: the same errors (naming the row, fetched to the host only for the message) and the
same rows zeroed by ``invalid="mask"``.

Shared by the hold'em and the variant launchers (:mod:`gpu_eval.cuda.holdem`,
:mod:`gpu_eval.cuda.variants`): :func:`device_hands` turns ids, masks or DeadHorse ints into
masks and card counts step by step; :func:`evaluate_device_fused` validates, counts and
evaluates masks and ids in one launch of a game's check-and-evaluate kernels
(``kernels/check_eval.cuh``). CuPy is passed in by the caller, never imported here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from gpu_eval import cards
from gpu_eval.cuda import streaming
from gpu_eval.evaluator import inputs

__all__ = ["DeviceHands", "device_hands", "evaluate_device_fused", "finish_device_rows",
           "first_flagged", "popcount_masks"]

_DH_PLACEHOLDER = (1 << 14) | 1  # 2c: stands in for a bad DeadHorse card (its row reads 0)
#: ``first_bad`` of a kind with no bad row.
NO_ROW = (1 << 64) - 1


class _HostRows:
    """Row access to a device array for ``inputs.row_error``: fetches one row to the host."""

    def __init__(self, arr: Any, convert: Callable[[np.ndarray], np.ndarray] | None = None):
        self._arr = arr
        self._convert = convert

    def __getitem__(self, row: int) -> np.ndarray:
        host = self._arr[row].get()
        return self._convert(host) if self._convert else host


def _label(*, ids: _HostRows | None = None, masks: _HostRows | None = None,
           scalar: bool) -> inputs.Hands:
    """The ``Hands`` that names a device array's rows in messages. Its rows are fetched to the
    host one at a time (``_HostRows``), and indexing one row is all that ``inputs.row_error``
    and the games' messages do with them: read as the arrays they stand for."""
    return inputs.Hands(ids=cast("np.ndarray | None", ids),
                        masks=cast("np.ndarray | None", masks), scalar=scalar)


def first_flagged(cupy, flags: Any) -> int:
    """The index of the first true entry of a 1-D array of flags that has one.

    Parameters
    ----------
    cupy : module
        The array module of ``flags`` (CuPy; NumPy works for host arrays).
    flags : cupy.ndarray
        Booleans, at least one of them true.

    Returns
    -------
    int
        The first flagged row (one small device-to-host copy).

    Examples
    --------
    >>> import numpy as np
    >>> first_flagged(np, np.array([False, True, True]))
    1
    """
    return int(cupy.flatnonzero(flags)[0])


def popcount_masks(state: Any, masks: Any, cupy) -> Any:
    """Cards (valid bits) in each of a 1-D device array of masks, as ``uint8``.

    Parameters
    ----------
    state : DeviceState
        A device module exporting ``ge_mask_counts`` (kernels/convert.cu).
    masks : cupy.ndarray
        ``uint64`` hand masks, 1-D and contiguous, on ``state``'s device.
    cupy : module
        CuPy.

    Returns
    -------
    cupy.ndarray
        ``uint8`` card counts, one per mask.

    Examples
    --------
    >>> popcount_masks(holdem.get_module(), cupy.asarray([0x1F], cupy.uint64), cupy)
    ... # doctest: +SKIP
    array([5], dtype=uint8)
    """
    counts = cupy.empty(masks.size, dtype=cupy.uint8)
    if masks.size:
        state.launch("ge_mask_counts", masks.size, (masks, counts, np.uint64(masks.size)))
    return counts


@dataclass
class DeviceHands:
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


def device_hands(cupy, state: Any, a: Any, invalid: str, encoding: str) -> DeviceHands:
    """Validate a CuPy array of hands as ``inputs.coerce`` does (same errors) and turn it
    into masks and card counts on its device (shared by the hold'em and variant CUDA paths).

    Parameters
    ----------
    cupy : module
        CuPy.
    state : DeviceState
        A device module exporting ``ge_ids_to_masks``, ``ge_deadhorse_to_masks`` and
        ``ge_mask_counts`` (kernels/convert.cu), on ``a``'s device.
    a : cupy.ndarray
        Hands: ``uint64`` masks ``()`` or ``(N,)``, card ids or DeadHorse ints ``(k,)`` or
        ``(N, k)``.
    invalid : {"raise", "mask"}
        Raise for the first bad row, or flag bad rows in ``bad``.
    encoding : {"auto", "ids", "mask", "deadhorse"}
        How to read ``a`` (``auto``: ``uint64`` are masks, other dtypes ids).

    Returns
    -------
    DeviceHands
        Masks (valid bits only) and card counts on the device, the rows found bad so far (the
        caller checks the card counts against its game), and host access to rows for messages.

    Raises
    ------
    ValueError
        A bad card or shape, naming the row (``invalid="raise"``; shapes always).
    TypeError
        A dtype that cannot hold cards.

    Examples
    --------
    >>> h = device_hands(cupy, holdem.get_module(), cupy.asarray([[0, 1, 2, 3, 4]]),
    ...                  "raise", "auto")  # doctest: +SKIP
    >>> int(h.counts[0]), h.need_k  # doctest: +SKIP
    (5, 5)
    """
    if a.dtype.kind not in "iu":
        raise TypeError(f"hands must be integer card ids or uint64 masks, got dtype {a.dtype}")
    if encoding == "auto":
        encoding = "mask" if a.dtype == cupy.uint64 else "ids"
    bad = None
    if encoding == "mask":
        if a.ndim > 1:
            raise ValueError(f"hand masks must have shape () or (N,), got {a.shape}")
        m = cupy.ascontiguousarray(a.reshape(-1), dtype=cupy.uint64)
        label = _label(masks=_HostRows(m), scalar=a.ndim == 0)
        stray = (m & ~cards.VALID_MASK_BITS) != 0
        if m.size and bool(stray.any()):
            if invalid == "raise":
                raise inputs.row_error(label, first_flagged(cupy, stray),
                                        "bits set outside the 52 card positions (bits "
                                        "13-15 of each 16-bit suit lane must be 0)")
            bad = stray
        masks = m & cards.VALID_MASK_BITS
        return DeviceHands(masks, popcount_masks(state, masks, cupy), None, bad, label,
                           a.ndim == 0)
    what = "card ids" if encoding == "ids" else "DeadHorse cards"
    if a.ndim not in (1, 2):
        raise ValueError(f"{what} must have shape (k,) or (N, k), got {a.shape}")
    scalar = a.ndim == 1
    rows = a.reshape(1, -1) if scalar else a
    n, k = rows.shape
    convert = None if encoding == "ids" else cards.from_deadhorse
    label = _label(ids=_HostRows(rows, convert), scalar=scalar)
    if encoding == "ids":
        kernel, clean_dtype, placeholder = "ge_ids_to_masks", cupy.uint8, 0
    else:
        kernel, clean_dtype, placeholder = ("ge_deadhorse_to_masks", cupy.int32,
                                            _DH_PLACEHOLDER)
    masks = cupy.empty(n, dtype=cupy.uint64)
    counts = cupy.empty(n, dtype=cupy.uint8)
    bad = cupy.zeros(n, dtype=bool) if invalid == "mask" else None
    flagged = []

    def work(lo: int, hi: int) -> None:
        # A chunk at a time: its bad cells, placeholders in them, the cast, the masks. No
        # temporary grows with the input (an int64 copy of 1e9 x 7 ids would be 56 GB).
        chunk = rows[lo:hi]
        cells = _bad_cells(cupy, chunk, encoding)
        row_bad = cells.any(axis=1)
        if bool(row_bad.any()):
            if invalid == "raise":
                r = first_flagged(cupy, row_bad)
                v = int(chunk[r][cells[r]][0].get())
                if encoding == "ids":
                    raise inputs.row_error(label, lo + r, f"card id {v} is out of range 0..51")
                raise ValueError(f"row {lo + r}: {v} is not a DeadHorse card (one rank bit "
                                 f"0..12 plus one suit bit 13..16)")
            assert bad is not None  # invalid == "mask": the rows are flagged, not raised
            bad[lo:hi] = row_bad
            flagged.append(True)
            chunk = cupy.where(cells, placeholder, chunk)
        clean = cupy.ascontiguousarray(chunk, dtype=clean_dtype)
        state.launch(kernel, hi - lo, (clean, np.int32(k), masks[lo:hi], counts[lo:hi],
                                       np.uint64(hi - lo)))

    if n:
        streaming.for_chunks(cupy, n, k * (2 * rows.dtype.itemsize + 10), work)
    return DeviceHands(masks, counts, k, bad if flagged else None, label, scalar)


def _bad_cells(cupy, chunk: Any, encoding: str) -> Any:
    """Which ids (or DeadHorse ints) of a chunk are not cards."""
    if encoding == "ids":
        cells = chunk > 51
        return cells | (chunk < 0) if chunk.dtype.kind == "i" else cells
    r64 = chunk.astype(cupy.int64)
    rank_bits, suit_bits = r64 & 0x1FFF, r64 & ~0x1FFF
    return ~((rank_bits != 0) & ((rank_bits & (rank_bits - 1)) == 0)
             & ((suit_bits & (suit_bits - 1)) == 0)
             & (suit_bits >= 1 << 13) & (suit_bits <= 1 << 16))


def evaluate_device_fused(cupy, state: Any, a: Any, lo: int, hi: int, invalid: str,
                          encoding: str, *,
                          kernels: tuple[str, str] | Callable[[], tuple[str, str]],
                          param: int = 0, forbidden: int = 0,
                          forbidden_reason: Callable[[Any, int], str] | None = None) -> Any:
    """Masks and card ids on the device in one pass (kernels/check_eval.cuh): validation,
    card count and evaluation in one launch, the first bad rows read back in one 24-byte
    copy (none for ``invalid="mask"``). The same results and errors as the step-by-step
    path; None when it does not apply (DeadHorse ints, k outside lo..hi, not integer).

    Shared by every game with such kernels.

    Parameters
    ----------
    cupy : module
        CuPy.
    state : DeviceState
        The device module exporting the game's check-and-evaluate kernels, on ``a``'s device.
    a : cupy.ndarray
        Hands, as for :func:`device_hands`.
    lo, hi : int
        The hand sizes the game takes.
    invalid : {"raise", "mask"}
        Raise ``ValueError`` naming the first bad row, or give bad rows strength 0.
    encoding : {"auto", "ids", "mask", "deadhorse"}
        How to read ``a``.
    kernels : (str, str) or callable
        The game's (masks, ids) kernels, or a function naming them, called only when the
        fused path applies (hold'em's perfect-hash tables are uploaded on first use).
    param : int
        Handed to the game's evaluator (its rule set).
    forbidden : int
        Mask bits of cards the game does not have (bad cards).
    forbidden_reason : callable, optional
        ``forbidden_reason(label, row)``: the message for a row with a forbidden card.

    Returns
    -------
    cupy.ndarray or None
        ``uint16`` strengths, shape ``()`` for one hand and ``(N,)`` otherwise; None where the
        fused kernels do not apply (the caller takes the step-by-step path).

    Raises
    ------
    ValueError
        A bad row (``invalid="raise"``), with the step-by-step path's message.

    Examples
    --------
    >>> evaluate_device_fused(cupy, holdem.get_module(), cupy.asarray([[0, 1, 2, 3, 4]]), 5, 9,
    ...                       "raise", "auto", kernels=("ge_check_eval_masks",
    ...                       "ge_check_eval_ids"))  # doctest: +SKIP
    array([7297], dtype=uint16)
    """
    if a.dtype.kind not in "iu":
        return None
    if encoding == "auto":
        encoding = "mask" if a.dtype == cupy.uint64 else "ids"
    if encoding == "mask":
        if a.ndim > 1:
            return None
        rows = a.reshape(-1)
        host = _HostRows(rows, _as_mask)
        label = _label(masks=host, scalar=a.ndim == 0)
        n, k, scalar = rows.size, None, a.ndim == 0
    elif encoding == "ids":
        if a.ndim not in (1, 2):
            return None
        scalar = a.ndim == 1
        rows = a.reshape(1, -1) if scalar else a
        n, k = rows.shape
        if not lo <= k <= hi:
            return None
        host = _HostRows(rows)
        label = _label(ids=host, scalar=scalar)
    else:
        return None
    if callable(kernels):
        kernels = kernels()
    out = cupy.empty(n, dtype=cupy.uint16)
    first_bad = cupy.full(3, np.uint64(NO_ROW), dtype=cupy.uint64)
    if n:
        _check_and_evaluate(cupy, state, kernels, rows, k, out, first_bad,
                            (np.int32(lo), np.int32(hi), np.uint64(forbidden), np.int32(param),
                             np.int32(invalid == "mask")))
    if n and invalid == "raise":
        bad_range, bad_forbidden, bad_count = (int(x) for x in first_bad.get())
        if bad_range != NO_ROW:
            if k is None:
                raise inputs.row_error(label, bad_range,
                                        "bits set outside the 52 card positions (bits "
                                        "13-15 of each 16-bit suit lane must be 0)")
            row = host[bad_range]
            v = int(row[(row < 0) | (row > 51)][0])
            raise inputs.row_error(label, bad_range, f"card id {v} is out of range 0..51")
        if bad_forbidden != NO_ROW:
            assert forbidden_reason is not None
            raise inputs.row_error(label, bad_forbidden, forbidden_reason(label, bad_forbidden))
        if bad_count != NO_ROW:
            if k is None:
                c = bin(int(host[bad_count]) & cards.VALID_MASK_BITS).count("1")
            else:
                c = len(np.unique(host[bad_count]))  # ids 0..51 here: distinct cards
            reason = ("a card is used twice" if k is not None and c < k
                      else f"{c} cards; this game takes {lo} to {hi}")
            raise inputs.row_error(label, bad_count, reason)
    return out[0] if scalar else out


def _as_mask(row: np.ndarray) -> np.ndarray:
    return np.asarray(row).astype(np.uint64)


def _check_and_evaluate(cupy, state: Any, kernels: tuple[str, str], rows: Any, k: int | None,
                        out: Any, first_bad: Any, flags: tuple) -> None:
    """The fused kernels over ``rows`` (uint64 masks, or ``(n, k)`` ids of any integer
    dtype) into ``out``: rows already in the kernel's dtype and contiguous go in one launch;
    others are converted a chunk at a time (ids out of 0..51 become 255, which the kernel
    rejects as out of range, so no cast can wrap a bad id into a card), each chunk's first
    bad rows folded into ``first_bad`` on the device: no temporary grows with the input."""
    n = int(rows.shape[0])
    dtype = cupy.uint64 if k is None else cupy.uint8
    kernel = kernels[0] if k is None else kernels[1]

    def launch(chunk: Any, lo: int, hi: int, fb: Any) -> None:
        head = (chunk,) if k is None else (chunk, np.int32(k))
        state.launch(kernel, hi - lo, (*head, np.uint64(hi - lo), *flags, out[lo:hi], fb))

    if rows.dtype == dtype and rows.flags.c_contiguous:
        launch(rows, 0, n, first_bad)
        return
    width = 1 if k is None else k
    temps = width * (rows.dtype.itemsize + 2) + 24 if k is not None else 16

    def work(lo: int, hi: int) -> None:
        chunk = rows[lo:hi]
        if k is not None and rows.dtype.kind in "iu":
            chunk = cupy.where((chunk < 0) | (chunk > 51), 255, chunk)
        chunk = cupy.ascontiguousarray(chunk, dtype=dtype)
        fb = cupy.full(3, np.uint64(NO_ROW), dtype=cupy.uint64)
        launch(chunk, lo, hi, fb)
        shifted = cupy.where(fb == np.uint64(NO_ROW), fb, fb + np.uint64(lo))
        first_bad[...] = cupy.minimum(first_bad, shifted)

    streaming.for_chunks(cupy, n, temps, work)


def finish_device_rows(cupy, d: DeviceHands, bad: Any, out: Any, lo: int, hi: int,
                       invalid: str) -> Any:
    """The end of a device evaluation of ``d``'s rows: rows of the wrong size (or with a
    repeated card, which makes the mask short) or flagged in ``bad`` are zeroed with
    ``invalid="mask"``, else the first raises the host path's error naming its row.

    Returns ``out`` (its first element for a single hand).
    """
    wrong = (d.counts < lo) | (d.counts > hi)
    if d.need_k is not None:
        wrong |= d.counts != d.need_k  # a repeated card makes the mask short
    if bad is not None:
        wrong |= bad
    if d.n and bool(wrong.any()):
        if invalid == "mask":
            out[wrong] = 0
        else:
            r = first_flagged(cupy, wrong)
            c = int(d.counts[r].get())
            reason = ("a card is used twice" if d.need_k is not None and c < d.need_k
                      else f"{c} cards; this game takes {lo} to {hi}")
            raise inputs.row_error(d.label, r, reason)
    return out[0] if d.scalar else out
