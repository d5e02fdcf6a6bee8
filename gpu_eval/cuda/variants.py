"""The CUDA path of the game variants: short deck, Omaha and wild cards (``kernels/variants.cu``).

``gpu_eval.evaluate(..., game="shortdeck" | "shortdeck-triton")``, ``evaluate(..., wild=...)``
and ``gpu_eval.evaluate_omaha`` come here for ``backend="cuda"`` (and for ``"auto"`` with a
CuPy input or a usable device). CuPy is imported lazily, as in :mod:`gpu_eval.cuda.holdem`.

The module: per device, ``kernels/variants.cu`` and ``kernels/convert.cu`` (the id / mask
conversions, for validating CuPy inputs on the device) are compiled once by NVRTC through
``cupy.RawModule``, in a module of their own beside :func:`gpu_eval.cuda.holdem.get_module`'s, with
the same options and the sources' hash in the code (so no cache serves a stale binary). Each
family's tables are generated on the host (the very tables the NumPy path uses) and uploaded
the first time the family runs on that device, then kept: ``ge_shortdeck_tables[2]`` (both
rule sets), ``ge_omaha_tables``, and ``ge_wild_tables`` plus the hold'em ``ge_bitmask_tables``
(wild hands without a wild card), each a ``__constant__`` struct of device pointers written in
the field order of its struct (:data:`OMAHA_TABLE_ORDER`, ``gpu_eval.games.wild.WILD_TABLE_ORDER``).

Validation is the NumPy path's, with the same messages and the same rows zeroed by
``invalid="mask"``: host inputs (NumPy arrays, text) go through the NumPy modules' own
checks, which then hand the cleaned arrays to the kernels here (streamed through pinned
buffers by :func:`gpu_eval.cuda.streaming.stream_host`; NumPy out). CuPy inputs are checked on
their device with CuPy operations that mirror those checks (:mod:`gpu_eval.cuda.device_inputs`),
fetching only the one row a message names; the result stays on the device. Rows that cannot be
evaluated (a card twice, wrong sizes) are replaced by placeholder cards before a launch, so a
kernel never reads outside its tables, and get strength 0 (or raise) afterwards.

Results: NumPy strengths carry their game in the dtype (``gpu_eval.strength``); CuPy arrays
cannot, so CuPy strengths are plain ``uint16`` and the game must be named when reading them.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from gpu_eval import cards
from gpu_eval.cuda import device_inputs, manifest, modules
from gpu_eval.cuda.availability import is_cupy_array, require_cuda
from gpu_eval.cuda.device_inputs import device_hands, finish_device_rows, first_flagged, popcount_masks
from gpu_eval.cuda.modules import BITMASK_TABLE_DTYPES, BITMASK_TABLE_ORDER
from gpu_eval.cuda.streaming import STRENGTHS, stream_host
from gpu_eval.evaluator import inputs
from gpu_eval.games.registry import OMAHA, SHORTDECK, SHORTDECK_TRITON, WILD

__all__ = ["get_module", "shortdeck_masks_cuda", "shortdeck_ids_cuda",
           "omaha_ids_cuda", "wild_masks_cuda", "evaluate", "evaluate_omaha",
           "OMAHA_TABLE_ORDER", "KERNELS"]

#: The manifest module of these launchers (gpu_eval.cuda.manifest), and its kernels.
MODULE = "variants"
KERNELS: tuple[str, ...] = manifest.module(MODULE).kernels
#: ``variant`` argument of the short-deck kernels (``ge_shortdeck_tables[variant]``).
SHORTDECK_VARIANTS: tuple[str, ...] = (SHORTDECK, SHORTDECK_TRITON)
#: Field order of ``GeOmahaTables`` in kernels/omaha.cuh, with each table's dtype.
OMAHA_TABLE_ORDER: tuple[str, ...] = ("card_weight", "board_lo", "board_hi", "noflush",
                                      "noflush_offset", "hole_info", "board_info", "covered",
                                      "sf_best", "flush5")
OMAHA_TABLE_DTYPES: dict[str, np.dtype] = {
    name: np.dtype(np.uint16 if name in ("noflush", "covered", "sf_best", "flush5")
                   else np.uint32)
    for name in OMAHA_TABLE_ORDER
}
#: Dtypes of the ``GeWildTables`` fields (kernels/wild.cuh).
WILD_TABLE_DTYPES: dict[str, np.dtype] = {
    "rank_best": np.dtype(np.uint16), "offset": np.dtype(np.uint32),
    "suit_best": np.dtype(np.uint16), "straight_best": np.dtype(np.uint16),
    "spread": np.dtype(np.uint64),
    **{f"group{g}": np.dtype(np.uint32) for g in range(4)},
}
FAMILIES = (SHORTDECK, OMAHA, WILD)
_HAND_LO, _HAND_HI = 5, 9  # cards per hand for short deck and wild cards


@dataclass
class _VariantState(modules.DeviceState):
    """One device's variant module, with the tables uploaded so far (by family)."""

    uploaded: dict[str, list[Any]] = field(default_factory=dict)
    id_masks: Any = None  # the mask bit of every card id, joker (52) included: 0


_STATES: dict[tuple[int, str], _VariantState] = modules.device_cache()
_LOCK = threading.Lock()


def get_module(device_id: int | None = None, families: tuple[str, ...] = ()) -> _VariantState:
    """The variant kernels compiled for a device (once, then cached), with the tables of
    ``families`` (``"shortdeck"``, ``"omaha"``, ``"wild"``) uploaded (once per device each).

    Raises
    ------
    CudaUnavailableError
        If CuPy or a device is missing, or the kernels cannot be compiled.
    """
    state = modules.cached_device_state(_STATES, _LOCK, _build_state, device_id)
    cupy = require_cuda()
    for family in families:
        if family not in state.uploaded:
            _upload(cupy, state, family)
    return state


def _build_state(cupy, dev: int) -> _VariantState:
    module, kernels = modules.compile_module(cupy, MODULE, dev)
    from gpu_eval.games.wild import ID_OR_JOKER_TO_MASK  # noqa: PLC0415

    id_masks = cupy.asarray(np.ascontiguousarray(ID_OR_JOKER_TO_MASK, dtype=np.uint64))
    cupy.cuda.runtime.deviceSynchronize()
    props = cupy.cuda.runtime.getDeviceProperties(dev)
    blocks = {name: modules.resident_blocks_per_sm(kernels[name], props) for name in KERNELS}
    streams = [cupy.cuda.Stream(non_blocking=True) for _ in range(2)]
    return _VariantState(device_id=dev, module=module, kernels=kernels, tables=[], binom=None,
                         sm_count=int(props["multiProcessorCount"]), blocks_per_sm=blocks,
                         streams=streams, id_masks=id_masks)


def family_tables(family: str) -> list[tuple[str, dict[str, np.ndarray], tuple[str, ...],
                                             dict[str, np.dtype]]]:
    """``(symbol, tables, field order, dtypes)`` of each ``__constant__`` struct a family
    needs, from the tables the NumPy path uses."""
    if family == SHORTDECK:
        from gpu_eval.games.shortdeck import shortdeck_tables  # noqa: PLC0415

        tables, order, dtypes = {}, [], {}
        for game in SHORTDECK_VARIANTS:  # ge_shortdeck_tables[0], then [1]
            t = shortdeck_tables(game).as_dict()
            for name in BITMASK_TABLE_ORDER:
                tables[f"{game}.{name}"] = t[name]
                order.append(f"{game}.{name}")
                dtypes[f"{game}.{name}"] = BITMASK_TABLE_DTYPES[name]
        return [("ge_shortdeck_tables", tables, tuple(order), dtypes)]
    if family == OMAHA:
        from gpu_eval.games.omaha import omaha_tables  # noqa: PLC0415

        return [("ge_omaha_tables", omaha_tables().as_dict(), OMAHA_TABLE_ORDER,
                 OMAHA_TABLE_DTYPES)]
    if family == WILD:
        from gpu_eval.evaluator.tables import bitmask_tables  # noqa: PLC0415
        from gpu_eval.games.wild import WILD_TABLE_ORDER, wild_device_tables  # noqa: PLC0415

        return [("ge_bitmask_tables", bitmask_tables().as_dict(), BITMASK_TABLE_ORDER,
                 BITMASK_TABLE_DTYPES),
                ("ge_wild_tables", wild_device_tables(), WILD_TABLE_ORDER, WILD_TABLE_DTYPES)]
    raise ValueError(f"unknown table family {family!r}; known: {', '.join(FAMILIES)}")


def _upload(cupy, state: _VariantState, family: str) -> None:
    with _LOCK:
        if family in state.uploaded:
            return
        structs = family_tables(family)  # generated on the host first (cached there)
        with cupy.cuda.Device(state.device_id):
            arrays = []
            for symbol, tables, order, dtypes in structs:
                arrays += modules.upload_tables(cupy, state.module, symbol, tables, order, dtypes)
            # Launches may run on other (non-blocking) streams: finish the uploads first.
            cupy.cuda.runtime.deviceSynchronize()
        state.uploaded[family] = arrays


def _variant(game: str) -> int:
    if game not in SHORTDECK_VARIANTS:
        raise ValueError(f"game {game!r} is not a short-deck game; known: "
                         f"{', '.join(SHORTDECK_VARIANTS)}")
    return SHORTDECK_VARIANTS.index(game)


# --- kernels on validated input (cupy in -> cupy out, numpy in -> numpy out) ---------------

def shortdeck_masks_cuda(masks: Any, game: str = SHORTDECK, *,
                         chunk_rows: int | None = None) -> Any:
    """Short-deck strengths (1..1404) of validated ``uint64`` hand masks, any shape.

    Masks must hold 5 to 9 cards of ranks 6..A for a meaningful result (others are
    evaluated without reading outside the tables; callers zero them). CuPy input stays on
    its device (current stream); NumPy input is streamed and the result is NumPy (plain
    ``uint16``: the public API adds the game tag).
    """
    variant = np.int32(_variant(game))
    cupy = require_cuda()
    if is_cupy_array(masks):
        with masks.device:
            state = get_module(masks.device.id, (SHORTDECK,))
            m = cupy.ascontiguousarray(masks, dtype=cupy.uint64).reshape(-1)
            out = cupy.empty(m.size, dtype=cupy.uint16)
            if m.size:
                state.launch("ge_shortdeck_eval_masks", m.size,
                             (m, variant, out, np.uint64(m.size)))
            return out.reshape(masks.shape)
    host = np.ascontiguousarray(masks, dtype=np.uint64)
    state = get_module(None, (SHORTDECK,))
    out, = stream_host(
        state, [host.reshape(-1)], [STRENGTHS],
        lambda st, d_in, d_out, n: st.launch("ge_shortdeck_eval_masks", n,
                                             (d_in[0], variant, d_out[0], np.uint64(n))),
        chunk_rows=chunk_rows)
    return out.reshape(host.shape)


def shortdeck_ids_cuda(ids: Any, game: str = SHORTDECK, *,
                       chunk_rows: int | None = None) -> Any:
    """Short-deck strengths of validated ``(N, k)`` card ids (k = 5..9, ranks 6..A)."""
    variant = np.int32(_variant(game))
    cupy = require_cuda()
    shape = tuple(ids.shape)
    if len(shape) != 2 or not _HAND_LO <= shape[1] <= _HAND_HI:
        raise ValueError(f"card ids must have shape (N, k) with k = 5..9, got {shape}")
    k = np.int32(shape[1])
    if is_cupy_array(ids):
        with ids.device:
            state = get_module(ids.device.id, (SHORTDECK,))
            a = cupy.ascontiguousarray(ids, dtype=cupy.uint8)
            out = cupy.empty(shape[0], dtype=cupy.uint16)
            if shape[0]:
                state.launch("ge_shortdeck_eval_ids", shape[0],
                             (a, k, variant, out, np.uint64(shape[0])))
            return out
    host = np.ascontiguousarray(ids, dtype=np.uint8)
    state = get_module(None, (SHORTDECK,))
    out, = stream_host(
        state, [host], [STRENGTHS],
        lambda st, d_in, d_out, n: st.launch("ge_shortdeck_eval_ids", n,
                                             (d_in[0], k, variant, d_out[0], np.uint64(n))),
        chunk_rows=chunk_rows)
    return out


def omaha_ids_cuda(hole: Any, board: Any, *, chunk_rows: int | None = None) -> Any:
    """Omaha strengths (hold'em scale) of validated ids: ``hole`` ``(N, h)`` with h = 4..6,
    ``board`` ``(N, b)`` with b = 3..5, or ``(b,)`` shared by every row; no card twice in a
    row. CuPy out when either input is a CuPy array, else NumPy (streamed)."""
    cupy = require_cuda()
    if len(hole.shape) != 2 or not 4 <= hole.shape[1] <= 6:
        raise ValueError(f"hole cards must have shape (N, h) with h = 4..6, got {hole.shape}")
    n, h = hole.shape
    shared = len(board.shape) == 1
    b = board.shape[-1]
    if not 3 <= b <= 5 or (not shared and tuple(board.shape) != (n, b)):
        raise ValueError(f"the board must have shape ({n}, b) or (b,) with b = 3..5, got "
                         f"{board.shape}")
    args = (np.int32(h), np.int32(b), np.int32(shared))
    on_device = [x for x in (hole, board) if is_cupy_array(x)]
    if on_device:
        with on_device[0].device:
            state = get_module(on_device[0].device.id, (OMAHA,))
            hd = cupy.ascontiguousarray(cupy.asarray(hole), dtype=cupy.uint8)
            bd = cupy.ascontiguousarray(cupy.asarray(board), dtype=cupy.uint8)
            out = cupy.empty(n, dtype=cupy.uint16)
            if n:
                _launch_omaha(state, hd, bd, args, out, n)
            return out
    state = get_module(None, (OMAHA,))
    hole = np.ascontiguousarray(hole, dtype=np.uint8)
    board = np.ascontiguousarray(board, dtype=np.uint8)
    if shared:
        with cupy.cuda.Device(state.device_id):
            bd = cupy.asarray(board)
        out, = stream_host(
            state, [hole], [STRENGTHS],
            lambda st, d_in, d_out, m: _launch_omaha(st, d_in[0], bd, args, d_out[0], m),
            chunk_rows=chunk_rows)
        return out
    out, = stream_host(
        state, [hole, board], [STRENGTHS],
        lambda st, d_in, d_out, m: _launch_omaha(st, d_in[0], d_in[1], args, d_out[0], m),
        chunk_rows=chunk_rows)
    return out


def _launch_omaha(state, hole, board, args, out, n: int) -> None:
    h, b, shared = args
    state.launch("ge_omaha_eval_ids", n, (hole, h, board, b, shared, out, np.uint64(n)))


def wild_masks_cuda(masks: Any, jokers: Any, spec, *, chunk_rows: int | None = None) -> Any:
    """Wild-card strengths (1..7475) of validated hand masks ``(N,)`` with ``jokers``
    ``(N,)`` (0..2 each; 5..9 cards in all). ``spec`` is a ``gpu_eval.games.wild.WildSpec`` or
    anything ``parse_wild`` reads. CuPy out for CuPy masks, else NumPy (streamed)."""
    from gpu_eval.games.wild import WildSpec, parse_wild  # noqa: PLC0415

    spec = spec if isinstance(spec, WildSpec) else parse_wild(spec)
    ranks, bug = np.uint32(spec.ranks), np.int32(spec.jokers == "bug")
    cupy = require_cuda()
    n = int(masks.shape[0]) if len(masks.shape) else 1
    if len(masks.shape) != 1 or tuple(jokers.shape) != (n,):
        raise ValueError(f"masks and jokers must both have shape (N,), got {masks.shape} and "
                         f"{jokers.shape}")
    if is_cupy_array(masks):
        with masks.device:
            state = get_module(masks.device.id, (WILD,))
            m = cupy.ascontiguousarray(masks, dtype=cupy.uint64)
            j = cupy.ascontiguousarray(cupy.asarray(jokers), dtype=cupy.uint8)
            out = cupy.empty(n, dtype=cupy.uint16)
            if n:
                state.launch("ge_wild_eval_masks", n, (m, j, ranks, bug, out, np.uint64(n)))
            return out
    state = get_module(None, (WILD,))
    out, = stream_host(
        state, [np.ascontiguousarray(masks, dtype=np.uint64),
                np.ascontiguousarray(jokers, dtype=np.uint8)], [STRENGTHS],
        lambda st, d_in, d_out, rows: st.launch(
            "ge_wild_eval_masks", rows, (d_in[0], d_in[1], ranks, bug, d_out[0],
                                         np.uint64(rows))),
        chunk_rows=chunk_rows)
    return out


# --- the validated entry points behind the public API -------------------------------------

def evaluate(hands: Any, *, game: str = SHORTDECK, invalid: str = "raise",
             encoding: str = "auto", wild=None) -> Any:
    """``gpu_eval.evaluate`` for short deck (``game``) or wild cards (``wild``) on the GPU.

    Validation, errors and results are those of the NumPy path
    (``gpu_eval.games.shortdeck.evaluate_hands`` / ``gpu_eval.games.wild.evaluate_hands``); NumPy and
    text inputs give tagged NumPy strengths, CuPy inputs plain CuPy strengths (validated on
    their device).
    """
    if wild is not None:
        from gpu_eval.games import wild as W  # noqa: PLC0415

        spec = W.parse_wild(wild)
        if is_cupy_array(hands):
            _check_modes(invalid, encoding)
            return _wild_device(hands, spec, invalid, encoding)
        return W.evaluate_rows(hands, spec, invalid, encoding,
                           lambda m, j, s: wild_masks_cuda(m, j, s))
    from gpu_eval.games import shortdeck as SD  # noqa: PLC0415

    SD.category_order(game)
    if is_cupy_array(hands):
        _check_modes(invalid, encoding)
        return _shortdeck_device(hands, game, invalid, encoding)
    return SD.evaluate_rows(hands, game, invalid, encoding,
                        lambda m: shortdeck_masks_cuda(m, game))


def evaluate_omaha(hole: Any, board: Any, *, game: str = OMAHA, invalid: str = "raise") -> Any:
    """``gpu_eval.evaluate_omaha`` on the GPU (``game`` and ``invalid`` already checked).

    With a CuPy input (either one) everything is validated on that device and the result is
    CuPy; otherwise the NumPy path validates and the kernel evaluates (NumPy out).
    """
    from gpu_eval.games import omaha as O  # noqa: PLC0415

    if is_cupy_array(hole) or is_cupy_array(board):
        return _omaha_device(hole, board, game, invalid)
    return O.evaluate_rows(hole, board, game, invalid, lambda hl, bd: omaha_ids_cuda(hl, bd))


def _check_modes(invalid: str, encoding: str) -> None:
    inputs.check_invalid_mode(invalid)
    if encoding not in inputs.ENCODINGS:
        raise ValueError(f"encoding={encoding!r}: expected one of {', '.join(inputs.ENCODINGS)}")


# --- CuPy inputs, validated on the device ------------------------------------------------

def _or_columns(state: _VariantState, ids: Any, cupy) -> Any:
    """The hand mask of each row of an ``(n, k)`` device id array (ids 0..52; 52 adds no bit)."""
    masks = cupy.zeros(ids.shape[0], dtype=cupy.uint64)
    for j in range(ids.shape[1]):
        masks |= state.id_masks[ids[:, j]]
    return masks




def _shortdeck_device(a: Any, game: str, invalid: str, encoding: str) -> Any:
    """Short deck for a CuPy array: ``shortdeck.evaluate_hands`` on the device."""
    from gpu_eval.games import shortdeck as SD  # noqa: PLC0415

    cupy = require_cuda()
    with a.device:
        state = get_module(a.device.id, (SHORTDECK,))
        # Masks and ids: one pass, shared with hold'em (the low ranks are forbidden cards).
        fused = device_inputs.evaluate_device_fused(
            cupy, state, a, _HAND_LO, _HAND_HI, invalid, encoding,
            kernels=("ge_shortdeck_check_eval_masks", "ge_shortdeck_check_eval_ids"),
            param=_variant(game), forbidden=int(SD.LOW_RANK_BITS),
            forbidden_reason=lambda label, r: (f"card {SD.low_card_text(label, r)} is not in "
                                               f"the 36-card short deck (ranks 6 to A)"))
        if fused is not None:
            return fused
        d = device_hands(cupy, state, a, invalid, encoding)
        bad = d.bad
        low = (d.masks & SD.LOW_RANK_BITS) != 0
        if d.n and bool(low.any()):
            if invalid == "raise":
                r = first_flagged(cupy, low)
                raise inputs.row_error(d.label, r, f"card {SD.low_card_text(d.label, r)} is "
                                                    f"not in the 36-card short deck (ranks 6 "
                                                    f"to A)")
            bad = low if bad is None else bad | low
        out = cupy.empty(d.n, dtype=cupy.uint16)
        if d.n:
            state.launch("ge_shortdeck_eval_masks", d.n,
                         (d.masks, np.int32(_variant(game)), out, np.uint64(d.n)))
        return finish_device_rows(cupy, d, bad, out, _HAND_LO, _HAND_HI, invalid)


def _wild_device(a: Any, spec, invalid: str, encoding: str) -> Any:
    """Wild cards for a CuPy array: ``wild.evaluate_hands`` on the device."""
    from gpu_eval.games import wild as W  # noqa: PLC0415

    cupy = require_cuda()
    if a.dtype.kind not in "iu":
        raise TypeError(f"hands must be integer card ids or uint64 masks, got dtype {a.dtype}")
    with a.device:
        state = get_module(a.device.id, (WILD,))
        if spec.jokers != "none" and a.dtype != cupy.uint64 and encoding in ("auto", "ids"):
            # Ids with jokers (52): wild.coerce_ids.
            if a.ndim not in (1, 2):
                raise ValueError(f"card ids must have shape (k,) or (N, k), got {a.shape}")
            scalar = a.ndim == 1
            rows = a.reshape(1, -1) if scalar else a
            n, k = rows.shape
            bad = None
            if rows.size:
                cells = rows > W.JOKER
                if a.dtype.kind == "i":
                    cells |= rows < 0
                if bool(cells.any()):
                    row_bad = cells.any(axis=1)
                    if invalid == "raise":
                        r = first_flagged(cupy, row_bad)
                        host = rows[r].get()
                        v = int(host[cells[r].get()][0])
                        raise ValueError(f"hand {host.tolist()} (row {r}): card id {v} is out "
                                         f"of range 0..52 (52 is the joker)")
                    bad = row_bad
                    rows = cupy.where(cells, 0, rows)
            ids = cupy.ascontiguousarray(rows, dtype=cupy.uint8)
            masks = _or_columns(state, ids, cupy)
            jokers = (ids == W.JOKER).sum(axis=1).astype(cupy.uint8)
            counts = k

            def label(r: int) -> str:
                return cast(str, cards.format(ids[r].get(), sep=" "))  # one hand: its text
        else:
            d = device_hands(cupy, state, a, invalid, encoding)
            scalar, n, masks, bad = d.scalar, d.n, d.masks, d.bad
            jokers = cupy.zeros(n, dtype=cupy.uint8)
            if d.need_k is not None:
                counts = d.need_k
                dup = d.counts != d.need_k
                bad = dup if bad is None else bad | dup
                given = d.label.ids
            else:
                counts = d.counts
                given = d.label.masks
            assert given is not None, "Hands holds ids or masks"

            def label(r: int) -> str:
                return cast(str, cards.format(given[r], sep=" "))
        real = popcount_masks(state, masks, cupy).astype(cupy.int32) + jokers
        if isinstance(counts, int):
            wrong = real != counts
            if not _HAND_LO <= counts <= _HAND_HI:
                wrong = cupy.ones(n, dtype=bool)
        else:
            wrong = (real != counts) | (counts < _HAND_LO) | (counts > _HAND_HI)
        wrong |= jokers > W.MAX_JOKERS
        if bad is not None:
            wrong |= bad
        out = cupy.empty(n, dtype=cupy.uint16)
        if n and bool(wrong.any()):
            r = first_flagged(cupy, wrong)
            if invalid == "raise":
                where = "" if scalar else f" (row {r})"
                j = int(jokers[r].get())
                c = counts if isinstance(counts, int) else int(counts[r].get())
                if j > W.MAX_JOKERS:
                    reason = f"{j} jokers; a deck has {W.MAX_JOKERS}"
                elif int(real[r].get()) != c:
                    reason = "a card is used twice"
                else:
                    reason = f"{c} cards; this game takes {_HAND_LO} to {_HAND_HI}"
                raise ValueError(f"hand {label(r)}{where}: {reason}")
            masks = cupy.where(wrong, np.uint64(0x1F), masks)  # a placeholder; reads 0 below
            jokers = cupy.where(wrong, 0, jokers).astype(cupy.uint8)
        if n:
            state.launch("ge_wild_eval_masks", n,
                         (cupy.ascontiguousarray(masks), cupy.ascontiguousarray(jokers),
                          np.uint32(spec.ranks), np.int32(spec.jokers == "bug"), out,
                          np.uint64(n)))
            out[wrong] = 0
        return out[0] if scalar else out


def _omaha_device_rows(cupy, state: _VariantState, x: Any, what: str,
                       sizes: tuple[int, int], invalid: str, game: str):
    """``omaha.coerce_rows`` for a CuPy array: ``(ids (N, k) uint8, bad rows or None, single)``."""
    lo, hi = sizes
    want = f"{lo}" if lo == hi else f"{lo} to {hi}"
    if what == "hole cards":
        want += f" ({game!r})"
    if x.dtype.kind not in "iu":  # the host path's message (gpu_eval.card_input)
        raise TypeError(f"{what} must be integer card ids or uint64 masks, got dtype {x.dtype}")
    if x.dtype == cupy.uint64:
        return _omaha_device_masks(cupy, state, x, what, sizes, want, invalid)
    if x.ndim not in (1, 2):
        raise ValueError(f"{what}: card ids must have shape (k,) or (N, k), got {x.shape}")
    single, rows = x.ndim == 1, x.reshape(-1, x.shape[-1])
    k = rows.shape[1]
    if not lo <= k <= hi:
        raise ValueError(f"{what}: {k} cards per row; this game takes {want}")
    bad = None
    if rows.size:
        cells = rows > 51
        if x.dtype.kind == "i":
            cells |= rows < 0
        if bool(cells.any()):
            bad = cells.any(axis=1)
            if invalid == "raise":
                r = first_flagged(cupy, bad)
                host = rows[r].get()
                raise ValueError(f"{what} {host.tolist()} (row {r}): card id "
                                 f"{int(host[cells[r].get()][0])} is out of range 0..51")
            rows = cupy.where(cells, 0, rows)
    return cupy.ascontiguousarray(rows, dtype=cupy.uint8), bad, single


def _omaha_device_masks(cupy, state, x, what, sizes, want, invalid):
    """``omaha.mask_rows`` for a CuPy ``uint64`` array."""
    lo, hi = sizes
    if x.ndim > 1:
        raise ValueError(f"{what}: hand masks must have shape () or (N,), got {x.shape}")
    single = x.ndim == 0
    m = cupy.ascontiguousarray(x.reshape(-1), dtype=cupy.uint64)
    stray = (m & ~cards.VALID_MASK_BITS) != 0
    counts = popcount_masks(state, m, cupy).astype(cupy.int64)
    valid = ~stray & (counts >= lo) & (counts <= hi)
    k = lo
    if m.size and bool(valid.any()):  # the usual size: the commonest (smallest on a tie)
        k = int(np.argmax(cupy.bincount(counts[valid]).get()))
    wrong = ~valid | (counts != k)
    bad = None
    if m.size and bool(wrong.any()):
        r = first_flagged(cupy, wrong)
        if invalid == "raise":
            c = int(counts[r].get())
            reason = ("bits set outside the 52 card positions" if bool(stray[r].get()) else
                      f"{c} cards; this game takes {want}" if not bool(valid[r].get()) else
                      f"{c} cards but other rows have {k}")
            raise ValueError(f"{what} mask {int(m[r].get()):#x} (row {r}): {reason}")
        m = cupy.where(wrong, np.uint64(int(cards.to_mask(np.arange(k, dtype=np.uint8)))), m)
        bad = wrong
    return _mask_to_ids(cupy, m, k), bad, single


def _mask_to_ids(cupy, masks: Any, k: int) -> Any:
    """``cards.from_mask`` on the device: the k cards of each mask as sorted ``uint8`` ids."""
    rest = masks.copy()
    ids = cupy.empty((masks.size, k), dtype=cupy.uint8)
    one = np.uint64(1)
    for j in range(k):
        low = rest & (~rest + one)  # the lowest set bit
        pos = cupy.rint(cupy.log2(low.astype(cupy.float64))).astype(cupy.int32)
        ids[:, j] = ((pos & 15) * 4 + (pos >> 4)).astype(cupy.uint8)
        rest ^= low
    return cupy.sort(ids, axis=1) if k > 1 else ids


def _omaha_device(hole: Any, board: Any, game: str, invalid: str) -> Any:
    """``omaha.evaluate_rows`` with at least one CuPy input, on that input's device."""
    from gpu_eval.games import omaha as O  # noqa: PLC0415

    cupy = require_cuda()
    h = O.OMAHA_GAMES[game]
    anchor = hole if is_cupy_array(hole) else board
    with anchor.device:
        state = get_module(anchor.device.id, (OMAHA,))

        def rows(x, what, sizes):
            if is_cupy_array(x):
                return _omaha_device_rows(cupy, state, x, what, sizes, invalid, game)
            ids, bad, single = O.coerce_rows(x, what, sizes, invalid, game)
            return (cupy.asarray(np.ascontiguousarray(ids)),
                    None if bad is None else cupy.asarray(bad), single)

        hole_ids, hole_bad, hole_one = rows(hole, "hole cards", (h, h))
        board_ids, board_bad, board_one = rows(board, "board", (3, 5))
        nh, nb = int(hole_ids.shape[0]), int(board_ids.shape[0])
        n = max(nh, nb)
        if nh != nb and min(nh, nb) != 1:
            raise ValueError(f"{nh} rows of hole cards but {nb} boards; give one board per "
                             f"row, or a single board for all rows")
        if nh != n:
            hole_ids = cupy.ascontiguousarray(cupy.broadcast_to(hole_ids, (n, h)))
        k = int(board_ids.shape[1])
        shared = nb == 1 and n > 1
        out = cupy.empty(n, dtype=cupy.uint16)
        if n == 0:
            return out
        both = _or_columns(state, hole_ids, cupy) | _or_columns(state, board_ids, cupy)
        bad = popcount_masks(state, both, cupy) != h + k
        for b in (hole_bad, board_bad):
            if b is not None:
                bad |= b
        any_bad = bool(bad.any())
        if any_bad:
            if invalid == "raise":
                r = first_flagged(cupy, bad)
                raise O.row_error(hole_ids[r].get(), board_ids[r if nb > 1 else 0].get(), r)
            # Placeholder cards in bad rows: a board with a card twice can have five of a
            # rank, which has no table entry.
            hole_ids = cupy.where(bad[:, None], cupy.asarray(O.PLACEHOLDER_HOLE[:h]), hole_ids)
            place = cupy.asarray(O.PLACEHOLDER_BOARD[None, :k])
            if shared:
                if int(popcount_masks(state, _or_columns(state, board_ids, cupy), cupy)[0].get()) != k:
                    board_ids = place
            else:
                board_ids = cupy.where(bad[:, None], place, board_ids)
            hole_ids = cupy.ascontiguousarray(hole_ids, dtype=cupy.uint8)
            board_ids = cupy.ascontiguousarray(board_ids, dtype=cupy.uint8)
        _launch_omaha(state, hole_ids, board_ids,
                      (np.int32(h), np.int32(k), np.int32(shared)), out, n)
        if any_bad:
            out[bad] = 0
        return out[0] if (hole_one and board_one) else out
