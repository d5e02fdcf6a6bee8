"""The CUDA path of exact equity for Omaha, Omaha hi/lo and short deck (kernels/equity_games.cu).

:func:`exact_task` is :func:`gpu_eval.equity_engine.board_games.numpy_engine.exact_task` on the device, with
the same
integers: the same completions in the same colex order, one board per suit-symmetry orbit
with its orbit's size, then per chunk of boards ``ge_games_strengths`` (every pool hand on
every board: high strength, and the Omaha low for hi/lo) and ``ge_games_showdown_N`` (the
per-matchup counts). :func:`sample_counts` is Monte Carlo on the device
(``ge_games_sample_N``, N players): each sample's draws come from its own Philox4x32-10 stream keyed by the
seed (kernels/equity.cuh, as for hold'em), so a seed reproduces a CUDA result exactly however
the samples are split, but not the NumPy engine's digits. CuPy is imported lazily, as in
:mod:`gpu_eval.cuda.holdem`.

The module (kernels/equity_games.cu compiled once per device, tables uploaded) is
:mod:`gpu_eval.cuda.games_module`'s, shared with the device lows of ``evaluate_low``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gpu_eval import cards
from gpu_eval.cuda import streaming
from gpu_eval.cuda.availability import require_cuda
from gpu_eval.cuda.games_module import get_module
from gpu_eval.cuda.launch_progress import LaunchPacer
from gpu_eval.equity_engine import board_orbits, device_sampling
from gpu_eval.games import registry
from gpu_eval.games.registry import SHORTDECK
from gpu_eval.progress import Progress

__all__ = ["exact_task", "sample_counts", "RATE", "EXACT_SECONDS"]

#: Work units (hold'em 7-card evaluations plus comparisons, as the NumPy engine counts them:
#: :func:`~gpu_eval.equity_engine.board_games.numpy_engine.exact_work`) per second on a
#: data-centre GPU: a paper estimate, half the hold'em engine's (an Omaha hand is several
#: table lookups), until benchmarks/gpu_check.sh measures it.
RATE = 1e10
#: ``exact=None`` enumerates on the GPU up to this many expected seconds.
EXACT_SECONDS = 2.0
#: Monte Carlo samples per launch (the host waits between launches).
SAMPLES_PER_LAUNCH = 1 << 24
#: Cells (boards x pool hands) of the strength array per launch pair.
MAX_CELLS = 1 << 25
#: Boards one showdown task (one thread) counts for its matchup.
PER_TASK = 64


def _game_args(game: str) -> tuple[bool, int, int]:
    """``(hi/lo, hole cards, short-deck rule set)`` of a game, as the kernels take them."""
    record = registry.get(game)
    short = registry.names(SHORTDECK)
    return record.hilo, record.hole_cards, short.index(game) if game in short else 0


def exact_task(job: Any, start: int, stop: int, bar: Progress | None = None
               ) -> tuple[np.ndarray, ...]:
    """:func:`gpu_eval.equity_engine.board_games.numpy_engine.exact_task` on the device:
    ``(wins, ties, units, valid, high units, low units)`` of completions ``[start, stop)``, the
    same integers. ``bar`` advances by the completions walked as each chunk's launches
    complete (a Ctrl-C stops between chunks)."""
    cupy = require_cuda()
    m_count, n = job.pool_idx.shape
    state = get_module(players=n)
    n_pool = len(job.pool)
    hilo, h, variant = _game_args(job.game)
    out = [np.zeros((m_count, n), dtype=np.int64) for _ in range(3)] + \
        [np.zeros(m_count, dtype=np.int64)] + \
        [np.zeros((m_count, n), dtype=np.int64) for _ in range(2)]
    parts = [(ids, m) for ids, _, m in board_orbits.orbit_parts(job.deck_mask, job.k, job.group,
                                                                start, stop)]
    known = np.array(job.board, dtype=np.uint8)
    d_pool = cupy.asarray(np.ascontiguousarray(job.pool_ids, dtype=np.uint8))
    d_mu = cupy.asarray(np.ascontiguousarray(job.pool_idx, dtype=np.int32))
    null = np.uint64(0)
    pacer = LaunchPacer(cupy, bar)
    for comp, mult in parts:
        # One orbit size: its chunks add into the same device counts, read once at the end.
        acc = [cupy.zeros((m_count, n), dtype=cupy.uint64) for _ in range(3)] + \
            [cupy.zeros(m_count, dtype=cupy.uint64)] + \
            [cupy.zeros((m_count, n), dtype=cupy.uint64) for _ in range(2)]

        def work(s: int, stop: int, comp=comp, acc=acc) -> None:
            # Safe to repeat after an out-of-memory error: one can only come from the
            # allocations, before this chunk's launches add to ``acc``.
            c = stop - s
            boards = np.concatenate([np.broadcast_to(known, (c, len(known))),
                                     comp[s:s + c]], axis=1)
            d_boards = cupy.asarray(np.ascontiguousarray(boards, dtype=np.uint8))
            S = cupy.empty((c, n_pool), dtype=cupy.uint16)
            L = cupy.empty((c, n_pool), dtype=cupy.uint8) if hilo else None
            state.launch("ge_games_strengths", c * n_pool,
                         (d_pool, np.int32(h), np.uint32(n_pool), d_boards, np.uint32(c),
                          np.int32(variant), state.low_table, S, null if L is None else L,
                          np.uint32(n_pool)))
            tasks = m_count * -(-c // PER_TASK)
            state.launch(f"ge_games_showdown_{n}", tasks,
                         (S, null if L is None else L, np.uint32(n_pool), np.uint32(c), d_mu,
                          np.uint32(m_count), np.uint32(PER_TASK), np.uint32(job.scale),
                          *acc))
            pacer.launched(c)  # the bar follows the device; Ctrl-C stops between chunks

        # Boards a chunk: as many as free device memory allows for their boards, strengths
        # (and lows), at most MAX_CELLS cells; a chunk that runs out of memory runs smaller.
        streaming.for_chunks(cupy, len(comp), 5 + 3 * n_pool, work,
                             max_rows=max(1, MAX_CELLS // n_pool))
        pacer.finish()
        for a, d in zip(out, acc):
            a += mult * d.get().astype(np.int64)
    return tuple(out)


def sample_counts(job: Any, start: int, stop: int, bar: Progress | None = None
                  ) -> tuple[np.ndarray, ...]:
    """Monte Carlo samples ``[start, stop)`` of a
    :class:`gpu_eval.equity_engine.board_games.numpy_engine.SamplePlan`
    on the device: ``(wins, ties, units, units squared, high units, low units)`` per player,
    as :func:`gpu_eval.equity_engine.board_games.numpy_engine.sample_task` counts them.
    ``bar`` advances by the samples of each launch as it completes (a Ctrl-C stops between
    launches).

    Raises
    ------
    ValueError
        If the ranges almost never fit (those that cannot be dealt together are refused when
        the job is built) (a sample found no compatible hands in ``MAX_TRIES`` draws: the device's stop flag
        then ends every other sample at once).
    """
    n = len(job.sides)
    hilo, h, variant = _game_args(job.game)
    # Dealt players draw from the deck: their hands need not travel.
    holes = [np.zeros(1, np.uint64) if d else s.masks for s, d in zip(job.sides, job.dealt)]
    cums = [None if (s.fixed or d) else np.cumsum(s.weights)
            for s, d in zip(job.sides, job.dealt)]
    cupy = require_cuda()
    state = get_module(players=n)
    modes = device_sampling.player_modes(cums, job.dealt)
    sizes = [len(x) for x in holes]
    combos = np.ascontiguousarray(np.concatenate(holes), dtype=np.uint64)
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.uint32)
    cum = np.ascontiguousarray(np.concatenate(
        [np.zeros(z) if c is None else c for z, c in zip(sizes, cums)]), dtype=np.float64)
    deck = np.ascontiguousarray(cards.ID_TO_MASK[job.avail], dtype=np.uint64)
    key0, key1 = device_sampling.mc_key(job.entropy)
    args = [cupy.asarray(a) for a in (combos, offsets, cum, modes)]
    d_deck = cupy.asarray(deck)
    totals = cupy.zeros(6 * n, dtype=cupy.uint64)
    failures = cupy.zeros(1, dtype=cupy.uint64)
    low = state.low_table if hilo else np.uint64(0)
    pacer = LaunchPacer(cupy, bar)
    for lo in range(start, stop, SAMPLES_PER_LAUNCH):
        hi = min(stop, lo + SAMPLES_PER_LAUNCH)
        state.launch(f"ge_games_sample_{n}", hi - lo,
                     (*args, d_deck, np.uint32(len(deck)), np.uint64(job.board_mask),
                      np.int32(job.k), np.int32(h), np.int32(variant), low,
                      np.uint32(job.scale), np.uint32(key0), np.uint32(key1), np.uint64(lo),
                      np.uint64(hi), np.uint32(device_sampling.MAX_TRIES), totals, failures))
        pacer.launched(hi - lo)
    pacer.finish()
    out = totals.get().astype(np.int64).reshape(6, n)
    if int(failures.get()[0]):
        raise ValueError("the players' ranges almost never fit together (a sample found no "
                         f"compatible hands in {device_sampling.MAX_TRIES:,} draws)")
    return tuple(out)
