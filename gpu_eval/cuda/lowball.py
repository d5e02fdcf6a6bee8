"""The CUDA path of the low games: 2-7, A-5 and badugi (``kernels/lowball.cu``).

``gpu_eval.evaluate(..., game="deuce-seven" | "ace-five" | "badugi")`` comes here for
``backend="cuda"`` (and for ``"auto"`` with a CuPy input or a usable device). Per device,
``kernels/lowball.cu`` and ``kernels/convert.cu`` are compiled once by NVRTC
(:func:`gpu_eval.cuda.modules.compile_module`) and the tables of ``gpu_eval.games.lowball`` (the
very arrays the NumPy path reads) are uploaded into ``ge_low_tables``.

Validation is the NumPy path's, with the same messages: host inputs go through
``gpu_eval.games.lowball.evaluate_rows``, which hands the cleaned masks to the kernel (streamed,
NumPy out, tagged with the game); CuPy masks and ids are checked and evaluated on their device
in one launch (``ge_low_check_eval_*``, :func:`gpu_eval.cuda.device_inputs.evaluate_device_fused`;
DeadHorse ints step by step) and the result stays there, a plain ``uint16`` CuPy array (CuPy
cannot carry the game tag: name the game when reading it).
CuPy is imported lazily, inside the functions.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from gpu_eval.cuda import device_inputs, manifest, modules
from gpu_eval.cuda.availability import is_cupy_array, require_cuda
from gpu_eval.cuda.device_inputs import device_hands, finish_device_rows, first_flagged
from gpu_eval.cuda.streaming import STRENGTHS, stream_host
from gpu_eval.evaluator import inputs
from gpu_eval.games import registry
from gpu_eval.games.registry import ACE_FIVE, BADUGI, DEUCE_SEVEN

__all__ = ["get_module", "low_masks_cuda", "evaluate", "low_device_tables",
           "LOW_TABLE_ORDER", "KERNELS", "GAME_CODES"]

#: The manifest module of these launchers (gpu_eval.cuda.manifest), and its kernels.
MODULE = "lows"
KERNELS: tuple[str, ...] = manifest.module(MODULE).kernels
#: ``game`` argument of ``ge_low_eval_masks`` (GE_LOW_* in kernels/lowball.cuh).
GAME_CODES: dict[str, int] = {DEUCE_SEVEN: 0, ACE_FIVE: 1, BADUGI: 2}
#: Field order of ``GeLowTables`` (kernels/lowball.cuh), with each table's dtype.
LOW_TABLE_ORDER: tuple[str, ...] = ("spread", "group0", "group1", "group2", "group3",
                                    "ds_noflush", "ds_flush", "a5_noflush", "a5_offset",
                                    BADUGI)  # the badugi table: the field is its game's name
LOW_TABLE_DTYPES: dict[str, np.dtype] = {
    "spread": np.dtype(np.uint64), **{f"group{g}": np.dtype(np.uint32) for g in range(4)},
    "ds_noflush": np.dtype(np.uint16), "ds_flush": np.dtype(np.uint16),
    "a5_noflush": np.dtype(np.uint16), "a5_offset": np.dtype(np.uint32),
    BADUGI: np.dtype(np.uint16)}


def low_device_tables() -> dict[str, np.ndarray]:
    """The tables of ``GeLowTables``, by field name (the NumPy path's own arrays).

    Examples
    --------
    >>> t = low_device_tables()
    >>> len(t) == len(LOW_TABLE_ORDER), t["badugi"].size
    (True, 270725)
    """
    from gpu_eval.evaluator import phash  # noqa: PLC0415 -- tables on demand
    from gpu_eval.games import lowball  # noqa: PLC0415

    groups = lowball.rank_groups()
    ds, a5 = lowball.deuce_seven_tables(), lowball.ace_five_tables()
    return {"spread": phash.SPREAD, **{f"group{g}": groups[g] for g in range(4)},
            "ds_noflush": ds["noflush"], "ds_flush": ds["flush"],
            "a5_noflush": a5["noflush"], "a5_offset": a5["offset"],
            BADUGI: lowball.badugi_table()}


_STATES: dict = modules.device_cache()
_LOCK = threading.Lock()


def get_module(device_id: int | None = None) -> modules.DeviceState:
    """The low kernels compiled for a device, with their tables uploaded (once, then cached).

    Raises
    ------
    CudaUnavailableError
        If CuPy or a device is missing, or the kernels cannot be compiled.
    """
    return modules.cached_device_state(_STATES, _LOCK, _build_state, device_id)


def _build_state(cupy, dev: int) -> modules.DeviceState:
    module, kernels = modules.compile_module(cupy, MODULE, dev)
    tables = modules.upload_tables(cupy, module, "ge_low_tables", low_device_tables(),
                                   LOW_TABLE_ORDER, LOW_TABLE_DTYPES)
    cupy.cuda.runtime.deviceSynchronize()
    props = cupy.cuda.runtime.getDeviceProperties(dev)
    blocks = {name: modules.resident_blocks_per_sm(kernels[name], props) for name in KERNELS}
    streams = [cupy.cuda.Stream(non_blocking=True) for _ in range(2)]
    return modules.DeviceState(device_id=dev, module=module, kernels=kernels, tables=tables,
                               binom=None, sm_count=int(props["multiProcessorCount"]),
                               blocks_per_sm=blocks, streams=streams)


def low_masks_cuda(masks: Any, game: str, *, chunk_rows: int | None = None) -> Any:
    """Low strengths of validated ``uint64`` hand masks (the game's card count each), any
    shape: CuPy in, CuPy out (current stream); NumPy in, NumPy out (streamed, untagged).

    Examples
    --------
    >>> low_masks_cuda(cupy.asarray(cards.to_mask(["7c5d4h3s2c"])), "deuce-seven")  # doctest: +SKIP
    array([7462], dtype=uint16)
    """
    code = np.int32(GAME_CODES[registry.get(game, evaluators=tuple(GAME_CODES)).evaluator])
    cupy = require_cuda()
    if is_cupy_array(masks):
        with masks.device:
            state = get_module(masks.device.id)
            m = cupy.ascontiguousarray(masks, dtype=cupy.uint64).reshape(-1)
            out = cupy.empty(m.size, dtype=cupy.uint16)
            if m.size:
                state.launch("ge_low_eval_masks", m.size, (m, code, out, np.uint64(m.size)))
            return out.reshape(masks.shape)
    host = np.ascontiguousarray(masks, dtype=np.uint64)
    state = get_module(None)
    out, = stream_host(
        state, [host.reshape(-1)], [STRENGTHS],
        lambda st, d_in, d_out, n: st.launch("ge_low_eval_masks", n,
                                             (d_in[0], code, d_out[0], np.uint64(n))),
        chunk_rows=chunk_rows)
    return out.reshape(host.shape)


def evaluate(hands: Any, *, game: str = DEUCE_SEVEN, invalid: str = "raise",
             encoding: str = "auto") -> Any:
    """``gpu_eval.evaluate`` for a low game on the GPU: the NumPy path's validation and
    errors; NumPy and text in give tagged NumPy strengths, CuPy in plain CuPy strengths.

    Examples
    --------
    >>> evaluate(cupy.asarray([[0, 4, 9, 14, 19]], dtype=cupy.uint8), game="deuce-seven")  # doctest: +SKIP
    array([7462], dtype=uint16)
    """
    from gpu_eval.games import lowball  # noqa: PLC0415

    record = registry.get(game, evaluators=tuple(GAME_CODES), where="the low evaluators")
    if not is_cupy_array(hands):
        return lowball.evaluate_rows(hands, game, invalid, encoding,
                                  lambda m, g: low_masks_cuda(m, g))
    inputs.check_invalid_mode(invalid)
    if encoding not in inputs.ENCODINGS:
        raise ValueError(f"encoding={encoding!r}: expected one of {', '.join(inputs.ENCODINGS)}")
    cupy = require_cuda()
    lo, hi = record.evaluate_cards
    with hands.device:
        state = get_module(hands.device.id)
        # Masks and ids: checked and evaluated in one launch, one small read back.
        fused = device_inputs.evaluate_device_fused(
            cupy, state, hands, lo, hi, invalid, encoding,
            kernels=("ge_low_check_eval_masks", "ge_low_check_eval_ids"),
            param=GAME_CODES[record.evaluator])
        if fused is not None:
            return fused
        d = device_hands(cupy, state, hands, invalid, encoding)
        out = cupy.zeros(d.n, dtype=cupy.uint16)
        if d.n:
            state.launch("ge_low_eval_masks", d.n,
                         (d.masks, np.int32(GAME_CODES[record.evaluator]), out,
                          np.uint64(d.n)))
        return finish_device_rows(cupy, d, d.bad, out, lo, hi, invalid)


def device_low_rows(hands: Any, board: Any = None, game: str | None = None):
    """``gpu_eval.games.eight_or_better.low_rows`` for CuPy inputs, checked on their device with the
    same messages: ``(table, hole or hand masks, board masks or None, scalar)``, the masks
    CuPy arrays (the lows are then ``gpu_eval.cuda.games_module.low_cuda``'s, CuPy out).

    Examples
    --------
    >>> table, hm, bm, one = device_low_rows(cupy.asarray([[48, 1, 6, 11, 17]]))  # doctest: +SKIP
    >>> int(hm.size), bm is None, one  # doctest: +SKIP
    (1, True, False)
    """
    from gpu_eval import cards  # noqa: PLC0415
    from gpu_eval.games import eight_or_better  # noqa: PLC0415

    cupy = require_cuda()
    dev = next(x for x in (hands, board) if is_cupy_array(x)).device
    with dev:
        state = get_module(dev.id)

        def rows(x, what: str, lo: int, hi: int):
            if not is_cupy_array(x):
                x = cupy.asarray(np.atleast_1d(cards.to_mask(x)))
            d = device_hands(cupy, state, x, "raise", "auto")
            wrong = (d.counts < lo) | (d.counts > hi)
            if d.need_k is not None:
                wrong |= d.counts != d.need_k
            if d.n and bool(wrong.any()):
                r = first_flagged(cupy, wrong)
                c = int(d.counts[r].get())
                want = f"{lo}" if lo == hi else f"{lo} to {hi}"
                reason = ("a card is used twice" if d.need_k is not None and c < d.need_k
                          else f"{c} cards; this takes {want}")
                raise inputs.row_error(d.label, r, f"{what}: {reason}")
            return d.masks, d.scalar

        t = eight_or_better.low_tables()
        if board is None:
            hm, scalar = rows(hands, "hands", 5, 9)
            return t["BEST5"], hm, None, scalar
        if game is not None and not registry.get(game, where="evaluate_low()").is_omaha:
            raise ValueError(f"game {game!r} is not an Omaha game; known: "
                             f"{', '.join(registry.names(registry.OMAHA))}")
        lo, hi = (4, 6) if game is None else (registry.GAMES[game].hole_cards,) * 2
        hm, h_one = rows(hands, "hole cards", lo, hi)
        bm, b_one = rows(board, "board", 3, 5)
        if hm.size != bm.size and min(hm.size, bm.size) != 1:
            raise ValueError(f"{hm.size} rows of hole cards but {bm.size} boards; give one "
                             f"board per row, or a single board for all rows")
        clash = (hm & bm) != 0
        if bool(clash.any()):
            r = first_flagged(cupy, clash)
            raise ValueError(f"hole cards and board (row {r}): a card is used twice")
        return t["OMAHA"], hm, bm, h_one and b_one
