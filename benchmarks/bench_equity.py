"""Equity benchmarks: gpu_eval (NumPy or CUDA) against eval7, pokerfast and poker-equity in
the same run (each peer only when it is installed: ``pip install -e ".[bench]"``).

Run from the repository root::

    python benchmarks/bench_equity.py            # median of 7 runs per case
    python benchmarks/bench_equity.py --repeat 3 --no-peers

Cases
-----
1. AhKh vs QsQd preflop, exact (1,712,304 boards). eval7 has no preflop exact equity
   (``py_hand_vs_range_exact`` needs a complete board), so its figure is the same enumeration
   done the way an eval7 user would: ``eval7.evaluate`` in a Python loop over every board.
2. AhKh vs ``QQ+,AKs`` preflop: gpu_eval exact (15 matchups x 1,712,304 boards), and both
   libraries' Monte Carlo with 1,000,000 samples (``eval7.py_hand_vs_range_monte_carlo``).
3. ``QQ+,AKs`` vs ``22+,A2s+,KTs+`` preflop: gpu_eval exact (2,646 matchups x 1,712,304
   boards; both ranges are suit-symmetric, so only one board in 24 is played), and Monte
   Carlo with 1,000,000 samples on both sides (eval7: ``py_all_hands_vs_range`` with the
   samples shared among the hero's 22 combos; eval7 has no exact range-vs-range preflop).

Peers: ``pokerfast.equity.equity`` (OMPEval compiled in; all cores) for every exact case, and
for Monte Carlo run to the standard error gpu_eval reached with its samples (its Monte Carlo
stops on a target standard error, not a sample count); ``poker_equity`` (``exact_from_text``
for cases 1 and 2, ``chunk_from_text`` with the same number of samples for Monte Carlo).

The gpu_eval timings are warm (board lists cached, thread pool started; one untimed call
first): the first, cold run of case 1 is printed separately. eval7 runs once or a few times
(it is single-threaded and slow here).

GPU rows (only when CuPy sees a device; ``--gpu-only`` skips everything else): the three cases
above on ``backend="cuda"``, the Monte Carlo rate in hand evaluations per second, and the
exact 1326 x 1326 heads-up preflop matrix, and ``equity_batch`` on ``--batch-spots`` (10
million) random heads-up flop spots (checked against the NumPy path on a sample of rows).
Each is timed twice, median of at least 3 runs: wall clock around the whole
call (which returns host results, so it includes the device synchronisation) and the span
between two CUDA events recorded around it on the current stream -- around the whole call too,
host work and transfers included: not a kernel time (benchmarks/gpu_figures.py and ncu give
those). Targets on an H200: exact
heads-up preflop in 1 ms, Monte Carlo at 50 billion evaluations/s, the matrix under 10 s.
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from gpu_eval import ranges  # noqa: E402
from gpu_eval.equity_engine.api import equity  # noqa: E402


def timed(fn, repeat: int):
    """``(median seconds, all times, last result)`` of ``repeat`` calls."""
    times, result = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), times, result


def row(case: str, engine: str, method: str, seconds: float, value: str,
        fastest: float | None = None) -> None:
    best = f"{fastest * 1000:>8.1f} ms" if fastest is not None else " " * 11
    print(f"{case:<34} {engine:<26} {method:<40} {seconds * 1000:>8.1f} ms {best}   {value}")


def eval7_exact_loop(hero: str, villain: str) -> float:
    import eval7
    h = [eval7.Card(hero[:2]), eval7.Card(hero[2:])]
    v = [eval7.Card(villain[:2]), eval7.Card(villain[2:])]
    deck = [eval7.Card(r + s) for r in "23456789TJQKA" for s in "cdhs"]
    rest = [c for c in deck if c not in h + v]
    ev = eval7.evaluate
    win = tie = n = 0
    for b in itertools.combinations(rest, 5):
        b = list(b)
        a, c = ev(h + b), ev(v + b)
        win += a > c
        tie += a == c
        n += 1
    return (win + tie / 2) / n


def _peer(name: str):
    """The peer module, or None when it is not installed (or cannot run here)."""
    try:
        if name == "pokerfast":
            from pokerfast import equity as pf_equity
            return pf_equity if pf_equity.available() else None
        if name == "poker_equity":
            import poker_equity
            return poker_equity
        if name == "eval7":
            import eval7
            return eval7
    except ImportError:
        return None
    raise ValueError(name)


def peer_rows(case: str, players: list, rep: int, n: int, stderr: float,
              exact_pe: bool) -> None:
    """pokerfast and poker-equity on one case: exact, then Monte Carlo."""
    pf, pe = _peer("pokerfast"), _peer("poker_equity")
    if pf is not None:
        med, ts, e = timed(lambda: pf.equity(players, threads=0), rep)
        row(case, "pokerfast (OMPEval)", "exact", med, f"{e[0]:.6f}", min(ts))
        med, ts, e = timed(lambda: pf.equity(players, exact=False, stdev=stderr, threads=0),
                           rep)
        row(case, "pokerfast (OMPEval)", f"monte carlo to stderr {stderr:.6f}", med,
            f"{e[0]:.6f}", min(ts))
    if pe is not None:
        if exact_pe:
            med, ts, r = timed(lambda: pe.exact_from_text("holdem", players), 1)
            row(case, "poker-equity", "exact", med, f"{r['players'][0]['equity']:.6f}",
                min(ts))
        med, ts, r = timed(lambda: pe.chunk_from_text("holdem", players, samples=n), rep)
        p0 = r["players"][0]
        row(case, "poker-equity", f"monte carlo: {n:,} samples", med,
            f"{p0['equity']:.6f} +- {p0['std_error']:.6f}", min(ts))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7, help="runs per gpu_eval case (median)")
    ap.add_argument("--samples", type=int, default=1_000_000, help="Monte Carlo samples")
    ap.add_argument("--backend", default="numpy", help="gpu_eval backend")
    ap.add_argument("--no-peers", action="store_true", help="skip the peer libraries")
    ap.add_argument("--gpu-only", action="store_true", help="only the CUDA rows")
    ap.add_argument("--exact-only", action="store_true",
                    help="only the exact-work rows against pokerfast (exact_rows)")
    ap.add_argument("--spots", type=int, default=20_000, help="equity_batch spots")
    ap.add_argument("--batch-spots", type=int, default=10_000_000,
                    help="equity_batch spots of the GPU row")
    args = ap.parse_args()
    rep, n, be = args.repeat, args.samples, args.backend
    if args.exact_only:
        exact_rows(rep, args.spots)
        return
    if not args.gpu_only:
        exact_rows(rep, args.spots)
        cpu_rows(args, rep, n, be)
    gpu_rows(rep, n, batch_spots=args.batch_spots)


def cpu_rows(args, rep: int, n: int, be: str) -> None:
    peers = not args.no_peers
    eval7 = _peer("eval7") if peers else None
    prep = min(rep, 3)  # peers' runs per case (the eval7 loop is slow)
    print(f"# {os.cpu_count()} CPU cores, gpu_eval backend={be}, median of {rep} runs "
          f"(peers: median of {prep}; installed: "
          f"{', '.join(p for p in ('eval7', 'pokerfast', 'poker_equity') if _peer(p)) or 'none'})")
    print(f"{'case':<34} {'engine':<26} {'method':<40} {'median':>11} {'fastest':>11}   "
          f"equity of player 1")
    print("(gpu_eval's exact runs of cases 2 and 3 take the median of repeat // 2 and // 3)")

    # 1. Hand vs hand, exact.
    case = "AhKh vs QsQd preflop"
    t0 = time.perf_counter()
    r = equity(["AhKh", "QsQd"], backend=be, progress=False)
    row(case, "gpu_eval (cold)", r.method, time.perf_counter() - t0, f"{r.equity[0]:.6f}")
    med, ts, r = timed(lambda: equity(["AhKh", "QsQd"], backend=be, progress=False), rep)
    row(case, "gpu_eval", r.method, med, f"{r.equity[0]:.6f} (wins {r.wins[0]:,}, "
                                         f"ties {r.ties[0]:,})", min(ts))
    if eval7 is not None:
        med, ts, e = timed(lambda: eval7_exact_loop("AhKh", "QsQd"), prep)
        row(case, "eval7 evaluate() loop", "exact: 1,712,304 boards", med, f"{e:.6f}", min(ts))
    med, ts, r = timed(lambda: equity(["AhKh", "QsQd"], exact=False, samples=n, seed=1,
                                     backend=be, progress=False), rep)
    row(case, "gpu_eval", r.method, med, f"{r.equity[0]:.6f} +- {r.stderr[0]:.6f}", min(ts))
    if peers:
        peer_rows(case, ["AhKh", "QsQd"], prep, n, r.stderr[0], exact_pe=True)

    # 2. Hand vs range.
    case = "AhKh vs QQ+,AKs preflop"
    equity(["AhKh", "QQ+,AKs"], exact=True, backend=be, progress=False)  # warm: board lists
    med, ts, r = timed(lambda: equity(["AhKh", "QQ+,AKs"], exact=True, backend=be,
                                     progress=False), max(1, rep // 2))
    row(case, "gpu_eval", r.method, med, f"{r.equity[0]:.6f}", min(ts))
    med, ts, r = timed(lambda: equity(["AhKh", "QQ+,AKs"], exact=False, samples=n, seed=1,
                                     backend=be, progress=False), rep)
    row(case, "gpu_eval", r.method, med, f"{r.equity[0]:.6f} +- {r.stderr[0]:.6f}", min(ts))
    if eval7 is not None:
        hero = [eval7.Card("Ah"), eval7.Card("Kh")]
        villain = eval7.HandRange("QQ+,AKs").hands
        med, ts, e = timed(lambda: eval7.py_hand_vs_range_monte_carlo(hero, villain, [], n),
                          prep)
        row(case, "eval7 hand_vs_range_mc", f"monte carlo: {n:,} samples", med, f"{e:.6f}",
            min(ts))
    if peers:
        peer_rows(case, ["AhKh", "QQ+,AKs"], prep, n, r.stderr[0], exact_pe=True)

    # 3. Range vs range.
    case = "QQ+,AKs vs 22+,A2s+,KTs+ preflop"
    a, b = "QQ+,AKs", "22+,A2s+,KTs+"
    equity([a, b], exact=True, backend=be, progress=False)  # warm: symmetric board lists
    med, ts, r = timed(lambda: equity([a, b], exact=True, backend=be, progress=False),
                      max(1, rep // 3))
    row(case, "gpu_eval", r.method, med, f"{r.equity[0]:.6f}", min(ts))
    med, ts, r = timed(lambda: equity([a, b], exact=False, samples=n, seed=1, backend=be,
                                     progress=False), rep)
    row(case, "gpu_eval", r.method, med, f"{r.equity[0]:.6f} +- {r.stderr[0]:.6f}", min(ts))
    if peers:  # poker-equity's exact range vs range would take minutes: Monte Carlo only
        peer_rows(case, [a, b], prep, n, r.stderr[0], exact_pe=False)
    if eval7 is not None:
        hero_r, vill_r = eval7.HandRange(a), eval7.HandRange(b)
        per_hand = max(1, n // len(hero_r.hands))

        def eval7_range_vs_range() -> float:
            eq = eval7.py_all_hands_vs_range(hero_r, vill_r, [], per_hand)
            return sum(eq.values()) / len(eq)  # unweighted mean over hero combos

        med, ts, e = timed(eval7_range_vs_range, prep)
        row(case, "eval7 all_hands_vs_range", f"monte carlo: {per_hand * len(hero_r.hands):,}"
            f" samples", med, f"{e:.6f} (mean over hero combos)", min(ts))


def _spots(n: int, seed: int = 14):
    """``n`` random heads-up flop spots: ids ``(n, 2, 2)``, boards ``(n, 3)`` and as text."""
    rng = np.random.default_rng(seed)
    deals = np.array([rng.permutation(52)[:7] for _ in range(n)])
    text = lambda c: "23456789TJQKA"[c // 4] + "cdhs"[c % 4]  # noqa: E731
    hands, boards = deals[:, :4].reshape(n, 2, 2), deals[:, 4:]
    as_text = [([text(a) + text(b) for a, b in h], "".join(text(c) for c in bd))
               for h, bd in zip(hands.tolist(), boards.tolist())]
    return hands, boards, as_text


def _random_flop_spots(n: int, seed: int = 14, chunk: int = 1 << 20):
    """``n`` random heads-up flop spots, vectorised (for millions): ids ``(n, 2, 2)`` and
    ``(n, 3)``, int8. Each row's 7 cards are the first of a random permutation of the deck."""
    rng = np.random.default_rng(seed)
    deals = np.empty((n, 7), dtype=np.int8)
    for lo in range(0, n, chunk):
        m = min(chunk, n - lo)
        deals[lo:lo + m] = np.argpartition(rng.random((m, 52)), 7, axis=1)[:, :7]
    return deals[:, :4].reshape(n, 2, 2), deals[:, 4:]


def _process_seconds(cmd: list[str], repeat: int, env: dict) -> float:
    """Median wall time of a whole process (start, imports, work, exit)."""
    import subprocess

    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True, env=env)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def exact_rows(rep: int, n_spots: int = 20_000) -> None:
    """Exact work against pokerfast (OMPEval) in the same run: the shipped heads-up preflop
    table, dead cards, the flop and turn, one known-hands spot, equity_batch, and the main
    job as a whole process. Each line: gpu_eval median, pokerfast median, their ratio."""
    import gpu_eval as ge
    from gpu_eval.equity_engine.api import equity_matrix, preflop_table

    pf = _peer("pokerfast")
    print(f"# exact work, NumPy, {os.cpu_count()} CPU cores; median of {rep} runs "
          f"(pokerfast: {'yes' if pf else 'not installed'})")
    print(f"{'case':<44} {'gpu_eval':>11} {'pokerfast':>11} {'speed-up':>9}   gpu_eval method")

    def ms(seconds):  # three decimals below 1 ms: the one-spot row is tens of microseconds
        return f"{seconds * 1000:>8.3f} ms" if seconds < 1e-3 else f"{seconds * 1000:>8.2f} ms"

    def line(case, ours, theirs, method):
        ratio = f"{theirs / ours:>8.2f}x" if theirs is not None else " " * 9
        peer = ms(theirs) if theirs is not None else " " * 11
        print(f"{case:<44} {ms(ours)} {peer} {ratio}   {method}")

    a, b = "QQ+,AKs", "22+,A2s+,KTs+"
    cases = [("QQ+,AKs vs 22+,A2s+,KTs+ preflop", {}, rep),
             ("QQ+,AKs vs 22+,A2s+,KTs+ dead 2c", {"dead": "2c"}, max(3, rep // 3)),
             ("QQ+,AKs vs 22+,A2s+,KTs+ flop 2c7d9h", {"board": "2c7d9h"}, 3 * rep),
             ("QQ+,AKs vs 22+,A2s+,KTs+ turn 2c7d9hKs", {"board": "2c7d9hKs"}, 3 * rep)]
    for case, kw, n in cases:
        equity([a, b], exact=True, progress=False, **kw)  # warm
        ours, _, r = timed(lambda: equity([a, b], exact=True, progress=False, **kw), n)
        theirs = None
        if pf is not None:
            pkw = {"board": kw.get("board", ""), "dead": kw.get("dead", "")}
            theirs, _, e = timed(lambda: pf.equity([a, b], **pkw), n)
            assert abs(e[0] - r.equity[0]) < 1e-9, (case, e, r.equity)
        line(case, ours, theirs, r.method)

    one = ["AhKh", "QsQd"]
    equity(one, board="2c7d9h")
    ours, _, r = timed(lambda: equity(one, board="2c7d9h"), 200 * rep)
    theirs = timed(lambda: pf.equity(one, board="2c7d9h"), 200 * rep)[0] if pf else None
    line("AhKh vs QsQd on 2c7d9h, one call", ours, theirs, r.method)

    preflop_table()
    ours, _, t = timed(preflop_table, max(3, rep // 2))
    line("169 x 169 preflop table, exact", ours, None, t.method)
    ours, _, m = timed(lambda: equity_matrix("random", "random"), max(3, rep // 2))
    line("1326 x 1326 preflop matrix, exact", ours, None, m.method)

    hands, boards, as_text = _spots(n_spots)
    ge.equity_batch(hands[:100], boards[:100], backend="numpy")
    ours, _, res = timed(lambda: ge.equity_batch(hands, boards, backend="numpy"),
                         max(3, rep // 2))  # the CPU row even where a GPU is present
    theirs = None
    if pf is not None:
        loop = lambda: [pf.equity(h, board=bd) for h, bd in as_text]  # noqa: E731
        theirs, _, got = timed(loop, max(3, rep // 2))
        assert np.allclose([g[0] for g in got], res.equity[:, 0], atol=1e-9)
    line(f"equity_batch, {n_spots:,} heads-up flop spots", ours, theirs,
         f"{res.method} (peer: a loop of calls)")

    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    job = [sys.executable, "-c", "import sys; from gpu_eval.cli import main; "
           "sys.exit(main(sys.argv[1:]))", "equity", "AhKh", "QQ+,AKs", "--exact"]
    ours = _process_seconds(job, rep, env)
    theirs = None
    if pf is not None:
        theirs = _process_seconds([sys.executable, "-c", "from pokerfast import equity as e; "
                                   "print(e.equity(['AhKh', 'QQ+,AKs']))"], rep, env)
    line("main job as a process (gpu-eval equity ...)", ours, theirs,
         "whole process; peer: python -c one-liner")


def cuda_timed(fn, repeat: int):
    """``(median wall seconds, median event seconds, last result)`` of ``repeat`` calls, each
    bracketed by a device synchronisation and two CUDA events on the current stream."""
    import cupy

    walls, spans, result = [], [], None
    for _ in range(repeat):
        start, stop = cupy.cuda.Event(), cupy.cuda.Event()
        cupy.cuda.runtime.deviceSynchronize()
        t = time.perf_counter()
        start.record()
        result = fn()
        stop.record()
        stop.synchronize()
        walls.append(time.perf_counter() - t)
        spans.append(cupy.cuda.get_elapsed_time(start, stop) / 1000)
    return statistics.median(walls), statistics.median(spans), result


def gpu_row(case: str, method: str, wall: float, span: float, value: str) -> None:
    print(f"{case:<34} {'gpu_eval cuda':<26} {method:<40} {wall * 1000:>8.2f} ms "
          f"{span * 1000:>8.2f} ms   {value}")


def gpu_rows(rep: int, n: int, big: int = 1 << 29, heavy: bool = True,
             batch_spots: int = 10_000_000) -> None:
    """The CUDA engine's rows (skipped with a message when there is no device).

    ``big``: samples of the Monte Carlo rate rows; ``heavy=False`` leaves out the range vs
    range exact case and the matrix (for a smoke run on an emulated device);
    ``batch_spots``: spots of the ``equity_batch`` row.
    """
    from gpu_eval import cards
    from gpu_eval.cuda import availability
    from gpu_eval.equity_engine import enumerate_boards as eb
    from gpu_eval.equity_engine.holdem import cuda_engine as ce

    ok, why = availability.cuda_available()
    if not ok:
        print(f"# no CUDA rows: {why}")
        return
    t0 = time.perf_counter()
    ce.get_state()  # compile (or load from CuPy's cache) and upload the tables
    print(f"# CUDA: {why}; equity module ready in {time.perf_counter() - t0:.1f} s")
    print(f"{'case':<34} {'engine':<26} {'method':<40} {'wall':>11} {'events':>11}   value")
    run = lambda *a, **k: equity(*a, backend="cuda", progress=False, **k)  # noqa: E731

    case = "AhKh vs QsQd preflop"
    run(["AhKh", "QsQd"])  # warm: board lists cached on host and device
    wall, span, r = cuda_timed(lambda: run(["AhKh", "QsQd"]), max(rep, 5))
    gpu_row(case, r.method, wall, span, f"{r.equity[0]:.6f} (wins {r.wins[0]:,}, ties "
                                        f"{r.ties[0]:,})")
    pool = cards.to_mask(["AhKh", "QsQd"])
    boards = eb.completions(eb.FULL_DECK & ~int(pool[0] | pool[1]), 5)
    ce.showdown_counts(pool, np.array([[0, 1]]), boards)
    wall, span, c = cuda_timed(lambda: ce.showdown_counts(pool, np.array([[0, 1]]), boards),
                               max(rep, 5))
    gpu_row(case, "showdown_counts, all 1,712,304 boards", wall, span,
            f"wins {c.wins[0, 0]:,}, ties {c.ties[0, 0]:,}")

    case = "AhKh vs QQ+,AKs preflop"
    wall, span, r = cuda_timed(lambda: run(["AhKh", "QQ+,AKs"], exact=True), rep)
    gpu_row(case, r.method, wall, span, f"{r.equity[0]:.6f}")
    wall, span, r = cuda_timed(lambda: run(["AhKh", "QQ+,AKs"], exact=False, samples=n,
                                           seed=1), rep)
    gpu_row(case, r.method, wall, span, f"{r.equity[0]:.6f} +- {r.stderr[0]:.6f}")

    case = "QQ+,AKs vs 22+,A2s+,KTs+ preflop"
    a, b = "QQ+,AKs", "22+,A2s+,KTs+"
    if heavy:
        run([a, b], exact=True)
        wall, span, r = cuda_timed(lambda: run([a, b], exact=True), rep)
        gpu_row(case, r.method, wall, span, f"{r.equity[0]:.6f}")
    wall, span, r = cuda_timed(lambda: run([a, b], exact=False, samples=n, seed=1), rep)
    gpu_row(case, r.method, wall, span, f"{r.equity[0]:.6f} +- {r.stderr[0]:.6f}")

    # Monte Carlo rate: 2^29 heads-up showdowns (2 evaluations each), and a 3-way range case.
    holes = [cards.to_mask(["AhKh"]), cards.to_mask(["QsQd"])]
    deck = eb.FULL_DECK & ~int(holes[0][0] | holes[1][0])
    ce.sample_counts(holes, [None, None], deck, 0, 5, 1 << 20, 1)
    wall, span, _ = cuda_timed(
        lambda: ce.sample_counts(holes, [None, None], deck, 0, 5, big, 1), max(3, rep // 2))
    gpu_row("Monte Carlo rate, AhKh vs QsQd", f"{big:,} samples", wall, span,
            f"{2 * big / span / 1e9:.1f} billion evaluations/s (events)")
    wall, span, r = cuda_timed(lambda: run(["QQ+,AKs", "JJ+,AQs+", "random"], exact=False,
                                           samples=big // 4, seed=1), max(3, rep // 2))
    gpu_row("Monte Carlo rate, 3-way ranges", r.method, wall, span,
            f"{3 * (big // 4) / span / 1e9:.1f} billion evaluations/s (events)")

    # The all-pairs preflop matrix, computed afresh each time (it is cached after a call).
    if heavy:
        def fresh_matrix():
            ce._MATRIX.clear()
            return ce.preflop_matrix_cuda()

        wall, span, (w, t, per_pair) = cuda_timed(fresh_matrix, 3)
        i, j = (int(ranges.COMBO_INDEX[tuple(int(x) for x in cards.parse(h))])
                for h in ("AhKh", "QsQd"))
        gpu_row("1326 x 1326 preflop matrix", "exact: 2,598,960 boards, 879,801 pairs", wall,
                span, f"AhKh vs QsQd: wins {w[i, j]:,}, ties {t[i, j]:,} of {per_pair:,}")

    # Last, as the longest to set up (10 million random spots, validated on the host).
    batch_gpu_row(rep, batch_spots)


def batch_gpu_row(rep: int, batch_spots: int) -> None:
    """``equity_batch`` on ``batch_spots`` random heads-up flop spots on the device (a warp
    per spot, 990 completions each), checked against the NumPy path on 2,000 rows."""
    import gpu_eval as ge

    hands, flops = _random_flop_spots(batch_spots)
    ge.equity_batch(hands[:1000], flops[:1000], backend="cuda")  # compile, warm
    wall, span, r = cuda_timed(lambda: ge.equity_batch(hands, flops, backend="cuda"),
                               max(3, rep // 2))
    rows = np.random.default_rng(1).choice(batch_spots, size=min(batch_spots, 2000),
                                           replace=False)
    ref = ge.equity_batch(hands[rows], flops[rows], backend="numpy")
    assert np.array_equal(np.asarray(r.wins)[rows], ref.wins), "CUDA != NumPy"
    assert np.array_equal(np.asarray(r.ties)[rows], ref.ties), "CUDA != NumPy"
    gpu_row(f"equity_batch, {batch_spots:,} flop spots", r.method, wall, span,
            f"{batch_spots / wall / 1e6:.2f} M spots/s (wall), "
            f"{2 * 990 * batch_spots / span / 1e9:.1f} billion evaluations/s (events)")


if __name__ == "__main__":
    main()
