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
from gpu_eval.evaluator import inputs

__all__ = ["DeviceHands", "device_hands", "evaluate_device_fused", "finish_device_rows",
           "first_flagged", "popcount_masks"]

_DH_PLACEHOLDER = (1 << 14) | 1  # 2c: stands in for a bad DeadHorse card (its row reads 0)


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
    return DeviceHands(masks, counts, k, bad, label, scalar)


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
        rows = cupy.ascontiguousarray(a.reshape(-1), dtype=cupy.uint64)
        host = _HostRows(rows)
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
        if rows.dtype != cupy.uint8:  # other integer dtypes: out of range -> 255 (bad too)
            rows = cupy.where((rows < 0) | (rows > 51), 255, rows)
        rows = cupy.ascontiguousarray(rows, dtype=cupy.uint8)
    else:
        return None
    if callable(kernels):
        kernels = kernels()
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
            row = host[bad_range]
            v = int(row[(row < 0) | (row > 51)][0])
            raise inputs.row_error(label, bad_range, f"card id {v} is out of range 0..51")
        if bad_forbidden != none:
            assert forbidden_reason is not None
            raise inputs.row_error(label, bad_forbidden, forbidden_reason(label, bad_forbidden))
        if bad_count != none:
            if k is None:
                c = bin(int(host[bad_count]) & cards.VALID_MASK_BITS).count("1")
            else:
                c = len(np.unique(host[bad_count]))  # ids 0..51 here: distinct cards
            reason = ("a card is used twice" if k is not None and c < k
                      else f"{c} cards; this game takes {lo} to {hi}")
            raise inputs.row_error(label, bad_count, reason)
    return out[0] if scalar else out


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
