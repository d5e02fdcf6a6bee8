"""The device figures of benchmarks/gpu_check.sh: each row says exactly what its clock covers.

Two clocks, never mixed in a row:

* ``events``: CUDA events recorded on the current stream around launches whose inputs and
  outputs already live on the device; nothing in between copies to or from the host or waits
  for the device (the calls timed are listed in each row's ``timed``).
* ``wall``: the host clock around a public call with NumPy input and NumPy output, the device
  synchronised before and after: transfers, host work and launches together.

Every row is the median of ``--repeats`` (at least 3) runs after one warm-up run, and keeps
every run's seconds. Usage:

    python benchmarks/gpu_figures.py --json figures.json [--repeats 5] [--small]

``--small`` shrinks every size (gpu_check.sh --dry-run, on the stand-in device). Exits 0 with
a message and no rows where no GPU is present.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import gpu_eval as ge
from gpu_eval import cards
from gpu_eval.bench import event_seconds
from gpu_eval.cuda import availability


def wall_seconds(fn: Callable[[], Any], repeats: int) -> list[float]:
    """Host seconds of each of ``repeats`` runs of ``fn``, the device synchronised before and
    after each, after one warm-up run."""
    import cupy

    out = []
    for i in range(repeats + 1):
        cupy.cuda.runtime.deviceSynchronize()
        t = time.perf_counter()
        fn()
        cupy.cuda.runtime.deviceSynchronize()
        if i:
            out.append(time.perf_counter() - t)
    return out


def board_strengths_launches(d_masks: Any, game: str = "holdem") -> Callable[[], Any]:
    """``ge_tables_board_strengths`` over device board masks, launched as the solver tables'
    launcher does but without its host-side validation (which copies the boards to the host
    and back): returns a function that queues the launches and returns the device output."""
    import cupy

    from gpu_eval.solver_tables import cuda_engine
    from gpu_eval.solver_tables.layout import deck_layout

    lay = deck_layout(game)
    state = cuda_engine.get_state(lay)
    n, c = int(d_masks.shape[0]), lay.columns
    out = cupy.empty((n, c), dtype=cupy.uint16)

    def launch():
        for lo in range(0, n, cuda_engine.BOARDS_PER_LAUNCH):
            hi = min(n, lo + cuda_engine.BOARDS_PER_LAUNCH)
            state.launch("ge_tables_board_strengths", (hi - lo) * c,
                         (d_masks[lo:hi], np.uint32(hi - lo), state.tables[-2], np.uint32(c),
                          out[lo:hi]))
        return out

    return launch


def _ids(n: int, k: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    base = np.argsort(rng.random((min(n, 1 << 16), 52)), axis=1)[:, :k].astype(np.uint8)
    return np.tile(base, (-(-n // len(base)), 1))[:n]


def rows(small: bool, repeats: int) -> list[dict]:
    """Measure every row; sizes shrink with ``small``."""
    import cupy

    from gpu_eval.cuda import holdem
    from gpu_eval.cuda import lowball as cuda_lows
    from gpu_eval.solver_tables.cuda_engine import river_counts_cuda
    from gpu_eval.solver_tables.layout import deck_layout

    out: list[dict] = []

    def row(name: str, clock: str, timed: str, items: float, unit: str, secs: list[float],
            check: bool | None) -> None:
        """One row; ``check``: the result equals NumPy's (None: not compared, too slow)."""
        med = statistics.median(secs)
        out.append({"name": name, "clock": clock, "timed": timed, "repeats": len(secs),
                    "median_s": med, "seconds": secs, "items": items, "unit": unit,
                    "rate_per_s": items / med if med > 0 else None,
                    "checked": None if check is None else bool(check)})
        print(f"{name:<46} {clock:<6} {med * 1e3:10.3f} ms  {items / max(med, 1e-12):12.4g} "
              f"{unit}/s  {'not compared' if check is None else 'ok' if check else 'MISMATCH'}",
              flush=True)

    n = 1 << (10 if small else 26)
    ids = _ids(n, 7, 1)
    d_ids = cupy.asarray(ids)
    d_masks = cupy.asarray(cards.to_mask(ids))
    want = ge.evaluate(ids[:1024], backend="numpy")
    r = holdem.evaluate_masks_cuda(d_masks)
    row("ge_eval_masks, 7-card masks", "events", "holdem.evaluate_masks_cuda(device masks): "
        "one launch, output allocated on the device", n, "hands",
        event_seconds(lambda: holdem.evaluate_masks_cuda(d_masks), repeats),
        np.array_equal(r[:1024].get(), want))
    r = holdem.evaluate_ids_cuda(d_ids)
    row("ge_eval_ids, 7-card ids", "events", "holdem.evaluate_ids_cuda(device ids): one "
        "launch, output allocated on the device", n, "hands",
        event_seconds(lambda: holdem.evaluate_ids_cuda(d_ids), repeats),
        np.array_equal(r[:1024].get(), want))
    lows = _ids(n, 5, 2)
    five = cupy.asarray(cards.to_mask(lows))
    r = cuda_lows.low_masks_cuda(five, "deuce-seven")
    row("ge_low_eval_masks, 2-7 lows", "events", "lowball.low_masks_cuda(device masks, "
        "'deuce-seven'): one launch", n, "hands",
        event_seconds(lambda: cuda_lows.low_masks_cuda(five, "deuce-seven"), repeats),
        np.array_equal(r[:1024].get(), ge.evaluate(lows[:1024], game="deuce-seven",
                                                   backend="numpy")))
    nb = 1 << (4 if small else 16)
    boards = _ids(nb, 5, 3)
    d_boards = cupy.asarray(np.bitwise_or.reduce(cards.ID_TO_MASK[boards], axis=1))
    launch = board_strengths_launches(d_boards)
    row("ge_tables_board_strengths, 5-card boards", "events", "the kernel's launches on "
        "device board masks (no validation, no host copy)", nb * 1326, "strengths",
        event_seconds(launch, repeats),
        np.array_equal(launch()[:16].get(), ge.board_strengths(boards[:16], backend="numpy")))
    nr = 1 << (3 if small else 12)
    lay = deck_layout()
    w, _ = river_counts_cuda(d_boards[:nr], lay, device_out=True)
    from gpu_eval.solver_tables.river_counts import count_columns

    ref = count_columns(ge.board_strengths(boards[:8], backend="numpy"), lay, 5)[0]
    row("ge_tables_river_counts, river boards", "events", "river_counts_cuda(device masks, "
        "device_out=True): launches and device-side slicing", nr * 1326, "hands",
        event_seconds(lambda: river_counts_cuda(d_boards[:nr], lay, device_out=True), repeats),
        np.array_equal(w[:8].get(), ref))

    # Public calls, NumPy in and out (wall clock).
    def equity_row(name, players, check, **kw):
        res = ge.equity(players, backend="cuda", **kw)
        want = ge.equity(players, backend="numpy", **kw) if check else None
        secs = wall_seconds(lambda: ge.equity(players, backend="cuda", **kw), repeats)
        row(name, "wall", f"ge.equity({players}, {kw}, backend='cuda'): {res.method}, ran "
            f"on {res.backend}",
            res.boards or 1, "deals" if kw.get("game") in ("stud", "razz") else "boards", secs,
            None if want is None else res.wins.tolist() == want.wins.tolist())

    # A dead card keeps the shipped heads-up table out: the device enumerates the boards.
    equity_row("hold'em AhKh vs QsQd, 2c dead, exact" + (" (turn)" if small else " (preflop)"),
               ["AhKh", "QsQd"], small, exact=True, dead="2c", board="Jc7d9h3s" if small else "")
    equity_row("Omaha heads-up on the flop, exact", ["AsAhKdQc", "JhTc9s8d"], True,
               board="Ac2h3s", game="omaha", exact=True)
    equity_row("stud heads-up, exact" + (" (seventh street)" if small else " (third street)"),
               ["AhKh3c2d5s6cTc", "QsQd7h8h9d4cJd"] if small else ["AhKh3c", "QsQd7h"], small,
               game="stud", exact=True)
    spots = 1 << (5 if small else 18)
    deals = np.argsort(np.random.default_rng(5).random((min(spots, 1 << 16), 52)),
                       axis=1)[:, :7]
    deals = np.tile(deals, (-(-spots // len(deals)), 1))[:spots]
    hands, flops = deals[:, :4].reshape(-1, 2, 2), deals[:, 4:]
    res = ge.equity_batch(hands, flops, backend="cuda")
    ref = ge.equity_batch(hands[:64], flops[:64], backend="numpy")
    row("equity_batch, heads-up flop spots", "wall", "ge.equity_batch(NumPy spots, "
        "backend='cuda'): validation, transfers, ge_batch_2 launches", spots, "spots",
        wall_seconds(lambda: ge.equity_batch(hands, flops, backend="cuda"), repeats),
        np.array_equal(np.asarray(res.wins)[:64], ref.wins))
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--json", help="write the rows here")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--small", action="store_true")
    a = p.parse_args(argv)
    if a.repeats < 3:
        p.error("--repeats must be at least 3 (figures are medians)")
    ok, why = availability.cuda_available()
    if not ok:
        print(f"gpu_figures: no GPU on this machine: {why}")
        return 0
    result = rows(a.small, a.repeats)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"rows": result}, f, indent=1)
    bad = [r["name"] for r in result if r["checked"] is False]
    if bad:
        print(f"gpu_figures: results differ from NumPy's: {bad}", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
