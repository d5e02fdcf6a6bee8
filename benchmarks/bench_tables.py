"""Throughput of the solver-table machinery (gpu_eval.solver_tables), NumPy and CUDA.

Row ``index``: :class:`gpu_eval.HandIndexer` on random hands, NumPy (wall clock and the
process's CPU time, medians of several repeats), beside a naive per-hand Python canonicaliser
(the least of a hand's 24 suit relabellings, each round's cards sorted) timed on a sample and
scaled, in the same run; and ``unindex``. With ``--gpu`` (a CUDA device), the call on
device-resident hands (CUDA events around it; each launch reads an 8-byte flag of the first
bad row back to the host, a synchronisation inside the timed span) and NumPy input through the
device (wall clock, in -> out).

Row ``strengths``: ``board_strengths`` in M hand strengths a second on random river and flop
boards, beside ``ge.evaluate`` of the same (board, pair) 7-card masks (the package's bulk
evaluator) in the same run.

Row ``river``: the whole river table (``river_strength()``, 123,156,254 hands), timed once,
beside the naive way: a loop of ``ge.equity([hole, "random"], board=river, exact=True)`` over
a sample of spots, scaled to the table.

Row ``streets``: the flop and turn histogram tables, ``--chunks`` chunks of each table's plan
timed and scaled to the whole table (``--full``: the whole tables, timed once), beside a loop of
``ge.equity([hole, "random"], board=flop or turn, exact=True)`` scaled (that gives only the
hand's EHS; its histogram would take one river call per runout on top); and the whole preflop
table with AA's EHS.

With ``--gpu --gpu-tables``, also ``ge_tables_board_strengths`` on device-resident board masks
(CUDA events around the kernel's launches alone, no validation), the public ``board_strengths``
on CuPy boards (wall clock: it validates the boards on the host, a copy each way) and the whole
river table with ``backend="cuda"``.

Usage: python benchmarks/bench_tables.py [--rows index,unindex,strengths,river,streets]
       [--n 4000000] [--naive-n 20000] [--repeats 5] [--gpu] [--gpu-n 67108864]
       [--boards 20000] [--chunks 12] [--naive-spots 200] [--full]
"""

from __future__ import annotations

import argparse
import itertools
import os
import platform
import statistics
import time

import numpy as np

import gpu_eval as ge
from gpu_eval.bench import median_event_seconds, median_rate, random_hands

LAYOUTS = ((2, 5), (2, 4), (2, 3), (2, 3, 1, 1), (7,))
PERMS = list(itertools.permutations(range(4)))


def row(name: str, rate: float, n: int, peer: float | None = None, unit: str = "hands",
        extra: str = "") -> None:
    ratio = f"{rate / peer:9.1f}x" if peer else " " * 10
    print(f"  {name:<52} {rate / 1e6:9.3f} M {unit}/s {ratio}  (n={n:,}){extra}")


def cpu_rate(fn, n: int, repeats: int) -> float:
    """Hands per second of CPU time (all threads of this process), median of ``repeats``."""
    fn()
    times = []
    for _ in range(repeats):
        t0 = time.process_time()
        fn()
        times.append(time.process_time() - t0)
    return n / statistics.median(times)


def naive_canonical(hand: list[int], rounds: tuple[int, ...]) -> tuple:
    """The obvious per-hand way: every suit relabelling, each round's cards sorted, the least."""
    best = None
    for perm in PERMS:
        relabelled = [(c & ~3) | perm[c & 3] for c in hand]
        form, at = [], 0
        for k in rounds:
            form.append(tuple(sorted(relabelled[at:at + k])))
            at += k
        form = tuple(form)
        if best is None or form < best:
            best = form
    return best


def bench_index(n: int, naive_n: int, repeats: int) -> None:
    print("\nindex: HandIndexer.index, NumPy (ratio vs the naive per-hand canonicaliser, scaled;"
          " CPU rate = hands per second of process CPU time)")
    for layout in LAYOUTS:
        total = sum(layout)
        hands = random_hands(n, total, seed=total)
        idx = ge.HandIndexer(layout)
        sample = hands[:naive_n].tolist()
        t0 = time.perf_counter()
        for h in sample:
            naive_canonical(h, layout)
        naive = naive_n / (time.perf_counter() - t0)
        row(f"naive Python canonicaliser {layout}", naive, naive_n)
        wall = median_rate(lambda: idx.index(hands, backend="numpy"), n, repeats)
        cpu = cpu_rate(lambda: idx.index(hands, backend="numpy"), n, repeats)
        row(f"gpu_eval numpy index {layout}", wall, n, naive,
            extra=f"  CPU rate {cpu / 1e6:.1f} M/s")


def bench_unindex(n: int, repeats: int) -> None:
    print("\nunindex: HandIndexer.unindex, NumPy")
    rng = np.random.default_rng(1)
    for layout in LAYOUTS:
        idx = ge.HandIndexer(layout)
        r = len(layout) - 1
        m = min(n, 1_000_000)
        indices = rng.integers(0, idx.size(r), m)
        row(f"gpu_eval numpy unindex {layout}", median_rate(
            lambda: idx.unindex(r, indices, backend="numpy"), m, repeats), m)


def trow(name: str, seconds: float, note: str) -> None:
    print(f"  {name:<52} {seconds:12.3f} s  {note}", flush=True)


def _random_boards(n: int, k: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.argsort(rng.random((n, 52)), axis=1)[:, :k].astype(np.uint8)


def bench_strengths(n_boards: int, repeats: int) -> None:
    from gpu_eval.cards import ID_TO_MASK

    print("\nstrengths: board_strengths, NumPy (ratio vs ge.evaluate of the same 7-card masks)")
    pm = ge.hole_pairs()
    pm = ID_TO_MASK[pm[:, 0]] | ID_TO_MASK[pm[:, 1]]
    for k in (5, 3):
        masks = np.bitwise_or.reduce(ID_TO_MASK[_random_boards(n_boards, k, k)], axis=1)
        cut = max(1, n_boards // 8)
        hands = (masks[:cut, None] | pm[None, :]).ravel()
        hands = hands[((masks[:cut, None] & pm[None, :]) == 0).ravel()]
        peer = median_rate(lambda: ge.evaluate(hands, backend="numpy"), len(hands), repeats)
        row(f"ge.evaluate of the {k + 2}-card masks", peer, len(hands))
        rate = median_rate(lambda: ge.board_strengths(masks, backend="numpy"),
                           n_boards * 1326, repeats)
        row(f"gpu_eval numpy board_strengths, {k}-card boards", rate, n_boards * 1326, peer,
            unit="strengths")


def _naive_seconds(k: int, spots: int, seed: int) -> tuple[float, int]:
    """Seconds a hand of ge.equity([hole, "random"], board, exact=True), and failed calls."""
    cards = _random_boards(spots + 1, 2 + k, seed)
    calls = [(ge.cards.format(c[:2]), ge.cards.format(c[2:])) for c in cards]
    failed, timed = 0, 0
    ge.equity([calls[0][0], "random"], board=calls[0][1], exact=True, backend="numpy")
    t0 = time.perf_counter()
    for hole, board in calls[1:]:
        try:
            ge.equity([hole, "random"], board=board, exact=True, backend="numpy",
                      progress=False)
            timed += 1
        except Exception:  # a bug of the equity path on some spots: not counted, reported
            failed += 1
    return (time.perf_counter() - t0) / max(1, timed + failed), failed


def bench_river(naive_spots: int, backend: str = "numpy") -> None:
    print(f"\nriver: the whole river table, {backend} (timed once), and the naive way")
    t0, c0 = time.perf_counter(), time.process_time()
    r = ge.river_strength(progress=False, backend=backend)
    sec, cpu = time.perf_counter() - t0, time.process_time() - c0
    trow(f"gpu_eval {backend} river_strength() (123,156,254)", sec,
         f"{len(r) / sec / 1e6:.2f} M hands/s; CPU time {cpu:.1f} s; load average "
         f"{os.getloadavg()[0]:.1f}")
    del r
    if backend == "numpy":
        per, failed = _naive_seconds(5, naive_spots, 5)
        trow("naive: ge.equity river loop, scaled", per * 123_156_254,
             f"{per * 1e3:.2f} ms a hand, {naive_spots} timed ({failed} failed); "
             f"ratio {per * 123_156_254 / sec:,.0f}x")


def bench_streets(chunks: int, naive_spots: int, full: bool) -> None:
    from gpu_eval.solver_tables import plans

    print("\nstreets: flop and turn histogram tables (NumPy), preflop whole, naive EHS loops")
    for street, k in (("flop", 3), ("turn", 4)):
        p = plans.plan(street, "holdem", 50)
        t0, c0 = time.perf_counter(), time.process_time()
        if full:
            ge.strength_histograms(street, progress=False, backend="numpy")
            scale, how = 1.0, "whole table, timed"
        else:
            picked = list(range(0, p.chunks, max(1, p.chunks // chunks)))[:chunks]
            for _ in plans.run_chunks(p, picked):
                pass
            scale = p.chunks / len(picked)
            how = f"{len(picked)} of {p.chunks} chunks timed, scaled"
        sec = (time.perf_counter() - t0) * scale
        how += (f"; CPU time {(time.process_time() - c0) * scale:.0f} s; load average "
                f"{os.getloadavg()[0]:.1f}")
        trow(f"gpu_eval numpy {street} histograms ({p.rows:,})", sec, how)
        per, failed = _naive_seconds(k, max(3, naive_spots // (20 if k == 3 else 4)), k)
        trow(f"naive: ge.equity {street} loop (EHS only), scaled", per * p.rows,
             f"{per * 1e3:.1f} ms a hand ({failed} failed); ratio {per * p.rows / sec:,.0f}x")
    t0, c0 = time.perf_counter(), time.process_time()
    h = ge.strength_histograms("preflop", progress=False, backend="numpy")
    sec, cpu = time.perf_counter() - t0, time.process_time() - c0
    aa = int(ge.HandIndexer((2,)).index(ge.cards.parse("AsAh").reshape(1, 2))[0])
    trow("gpu_eval numpy preflop histograms (169)", sec,
         f"AA: EHS {h.mean[aa]:.4f}, EHS^2 {h.mean_sq[aa]:.4f}; CPU time {cpu:.1f} s")


def bench_gpu_tables(n_boards: int, repeats: int) -> None:
    import cupy
    from gpu_figures import board_strengths_launches  # benchmarks/, beside this script

    from gpu_eval.cards import ID_TO_MASK

    print("\nsolver tables on the GPU: ge_tables_board_strengths on device-resident board masks "
          "(CUDA events around its launches), the public call on CuPy boards (wall clock: "
          "validated on the host), the whole river table (backend='cuda')")
    boards = _random_boards(n_boards, 5, 5)
    d = cupy.asarray(np.bitwise_or.reduce(ID_TO_MASK[boards], axis=1))
    sec = median_event_seconds(board_strengths_launches(d), repeats)
    row("cuda ge_tables_board_strengths kernel, device masks", n_boards * 1326 / sec,
        n_boards * 1326, unit="strengths")
    d_ids = cupy.asarray(boards)

    def public():
        ge.board_strengths(d_ids)
        cupy.cuda.runtime.deviceSynchronize()

    row("cuda board_strengths(CuPy), host-validated", median_rate(
        public, n_boards * 1326, repeats), n_boards * 1326, unit="strengths")
    bench_river(0, "cuda")


def bench_gpu(n: int, repeats: int) -> None:
    from gpu_eval import backend_choice

    ok, why = backend_choice.cuda_status()
    if not ok:
        print(f"\nGPU rows skipped: {why}")
        return
    import cupy

    print("\nindex on the GPU: index(CuPy hands) (CUDA events; an 8-byte flag read back per "
          "launch), and NumPy in -> out")
    for layout in LAYOUTS:
        idx = ge.HandIndexer(layout)
        hands = random_hands(n, sum(layout), seed=sum(layout))
        d = cupy.asarray(hands)
        sec = median_event_seconds(lambda: idx.index(d), repeats)
        row(f"gpu_eval cuda index {layout}, CuPy in, flag read", n / sec, n)
        m = min(n, 1 << 24)
        row(f"gpu_eval cuda index {layout}, NumPy in -> out", median_rate(
            lambda: idx.index(hands[:m], backend="cuda"), m, repeats), m)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", default="index,unindex,strengths,river,streets")
    p.add_argument("--n", type=int, default=4_000_000)
    p.add_argument("--naive-n", type=int, default=20_000)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--gpu", action="store_true")
    p.add_argument("--gpu-n", type=int, default=1 << 26)
    p.add_argument("--boards", type=int, default=20_000, help="boards per strengths row")
    p.add_argument("--chunks", type=int, default=12, help="chunks timed per street")
    p.add_argument("--naive-spots", type=int, default=200, help="naive equity calls (river)")
    p.add_argument("--full", action="store_true", help="the whole flop and turn tables")
    p.add_argument("--gpu-tables", action="store_true",
                   help="with --gpu: the solver-table GPU rows too")
    a = p.parse_args(argv)
    print(f"gpu_eval {ge.__version__}, numpy {np.__version__}, {platform.processor() or 'cpu'}, "
          f"{os.cpu_count()} CPUs; load average {os.getloadavg()[0]:.1f} at the start")
    rows = set(a.rows.split(","))
    if "index" in rows:
        bench_index(a.n, a.naive_n, a.repeats)
    if "unindex" in rows:
        bench_unindex(a.n, a.repeats)
    if "strengths" in rows:
        bench_strengths(a.boards, a.repeats)
    if "river" in rows:
        bench_river(a.naive_spots)
    if "streets" in rows:
        bench_streets(a.chunks, a.naive_spots, a.full)
    if a.gpu:
        bench_gpu(a.gpu_n, a.repeats)
        from gpu_eval import backend_choice

        if a.gpu_tables and backend_choice.cuda_status()[0]:
            bench_gpu_tables(a.boards * 10, a.repeats)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
