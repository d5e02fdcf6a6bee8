"""The CUDA path of the solver tables (kernels/solver_tables.cu): every column's strength on
many boards, and the river counting of whole boards.

:func:`board_strengths_cuda` is ``board_strengths`` on the GPU (CuPy boards in, CuPy strengths
out; NumPy in, NumPy out). :func:`river_counts_cuda` counts the wins and ties of every column on
5-card boards, a block per board, the integers of ``gpu_eval.solver_tables.river_counts``. One
module per device and game (the game's bitmask tables sit in its ``ge_bitmask_tables``), built
once by NVRTC and cached like the other CUDA modules. The callers validate the boards (CuPy
boards on the host: 8 bytes a board against the 2.6 KB of strengths each one gives) and pass
the game's ``DeckLayout``; strengths asked for as CuPy never leave the device. CuPy is imported
only when a function here runs.
"""

from __future__ import annotations

import threading

import numpy as np

from gpu_eval.cuda import availability, manifest, modules, streaming

__all__ = ["board_strengths_cuda", "river_counts_cuda", "get_state", "KERNELS", "MODULE",
           "BOARDS_PER_LAUNCH"]

#: The manifest module of these launchers (gpu_eval.cuda.manifest), and its kernels.
MODULE = "solver_tables"
KERNELS: tuple[str, ...] = manifest.module(MODULE).kernels
THREADS = modules.THREADS_PER_BLOCK
#: Boards per launch at most (fewer where free device memory says so): keeps each launch
#: short.
BOARDS_PER_LAUNCH = 1 << 16

_STATES: dict[str, dict] = modules.device_cache()
_LOCK = threading.Lock()


def get_state(lay, device_id: int | None = None) -> modules.DeviceState:
    """The kernels compiled for a device with the tables and columns of ``lay`` (a
    ``gpu_eval.solver_tables.layout.DeckLayout``) uploaded (cached per game).

    Examples
    --------
    >>> get_state(deck_layout("shortdeck")).kernels["ge_tables_river_counts"]  # doctest: +SKIP
    """
    with _LOCK:
        states = _STATES.setdefault(lay.game, {})

    def build(cupy, dev):
        module, kernels = modules.compile_module(cupy, MODULE, dev)
        tables = modules.upload_bitmask_tables(cupy, module, lay.tables)
        low = lay.lowest_card
        cards = ((lay.pairs[:, 0].astype(np.uint16) - low)
                 | ((lay.pairs[:, 1].astype(np.uint16) - low) << 8)).astype(np.uint16)
        tables += [cupy.asarray(lay.pair_masks), cupy.asarray(cards)]
        cupy.cuda.runtime.deviceSynchronize()
        props = cupy.cuda.runtime.getDeviceProperties(dev)
        blocks = {name: modules.resident_blocks_per_sm(kernels[name], props) for name in KERNELS}
        return modules.DeviceState(dev, module, kernels, tables, None,
                                   int(props["multiProcessorCount"]), blocks)

    return modules.cached_device_state(states, _LOCK, build, device_id)


def board_strengths_cuda(masks: np.ndarray, lay, *, cupy_out: bool = False):
    """``board_strengths`` on the GPU: validated board masks (3 to 5 cards, NumPy ``uint64``)
    of ``lay``'s game, the same ``(N, C)`` uint16 strengths as the NumPy path, computed on
    the current device.

    NumPy out streams: a chunk of boards at a time (sized from free device memory), its
    strengths copied back while the next chunk runs, so no more than two chunks' strengths
    are ever on the device. With ``cupy_out`` the whole result is a CuPy array there.

    Examples
    --------
    >>> board_strengths_cuda(ge.cards.to_mask(["AhKhQhJh2c"]), deck_layout())  # doctest: +SKIP
    """
    cupy = availability.require_cuda()
    state = get_state(lay)
    masks = np.ascontiguousarray(masks, dtype=np.uint64).reshape(-1)
    n, c = int(masks.shape[0]), lay.columns
    d_pairs = state.tables[-2]

    def launch(st, d_in, d_out, m: int) -> None:
        st.launch("ge_tables_board_strengths", m * c,
                  (d_in[0], np.uint32(m), d_pairs, np.uint32(c), d_out[0]))

    if not cupy_out:
        out, = streaming.stream_host(state, [masks], [((c,), np.uint16, np.uint16)], launch,
                                     max_rows=BOARDS_PER_LAUNCH)
        return out
    with cupy.cuda.Device(state.device_id):
        out = cupy.empty((n, c), dtype=cupy.uint16)

        def work(lo: int, hi: int) -> None:
            launch(state, [cupy.asarray(masks[lo:hi])], [out[lo:hi]], hi - lo)

        streaming.for_chunks(cupy, n, 8, work, max_rows=BOARDS_PER_LAUNCH)
        return out


def river_counts_cuda(masks, lay, *, device_out: bool = False):
    """``(wins, ties)``, each ``(B, C)`` uint16, of every column on validated 5-card board
    masks (NumPy or CuPy ``uint64``) of ``lay``'s game: ``river_counts.count_columns``'
    integers, on the device that holds CuPy masks (else the current one).

    NumPy out streams a chunk of boards at a time, as :func:`board_strengths_cuda` does;
    ``device_out`` keeps both arrays on the device.

    Examples
    --------
    >>> w, t = river_counts_cuda(ge.cards.to_mask(["AhKhQhJh2c"]), deck_layout())  # doctest: +SKIP
    """
    cupy = availability.require_cuda()
    if availability.is_cupy_array(masks):
        with masks.device:
            return _river_counts(cupy, masks, lay, device_out)
    return _river_counts(cupy, np.ascontiguousarray(masks, dtype=np.uint64), lay, device_out)


def _river_counts(cupy, masks, lay, device_out: bool):
    state = get_state(lay)
    n_strengths = _scale_top(lay.game) + 1
    n, c = int(masks.shape[0]), lay.columns
    d_pairs, d_cards = state.tables[-2], state.tables[-1]
    name = "ge_tables_river_counts"

    def launch(st, d_in, d_out, m: int) -> None:
        grid = max(1, min(m, st.sm_count * st.blocks_per_sm[name]))
        st.kernels[name]((grid,), (THREADS,), (
            d_in[0], np.uint32(m), d_pairs, d_cards, np.uint32(c), np.uint32(lay.deck_size),
            np.uint32(n_strengths), d_out[0], d_out[1]))

    if not device_out:
        host = masks.get() if availability.is_cupy_array(masks) else masks
        wins, ties = streaming.stream_host(state, [host.reshape(-1)],
                                           [((c,), np.uint16, np.uint16)] * 2, launch,
                                           max_rows=BOARDS_PER_LAUNCH)
        return wins, ties
    with cupy.cuda.Device(state.device_id):
        d_masks = cupy.asarray(masks, dtype=cupy.uint64).reshape(-1)
        wins = cupy.empty((n, c), dtype=cupy.uint16)
        ties = cupy.empty((n, c), dtype=cupy.uint16)

        def work(lo: int, hi: int) -> None:
            launch(state, [cupy.ascontiguousarray(d_masks[lo:hi])],
                   [wins[lo:hi], ties[lo:hi]], hi - lo)

        streaming.for_chunks(cupy, n, 8, work, max_rows=BOARDS_PER_LAUNCH)
        return wins, ties


def _scale_top(game: str) -> int:
    from gpu_eval.games import registry

    return registry.SCALES[registry.check_scale(game)]
