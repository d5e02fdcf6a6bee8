"""CUDA kernel throughput: device-resident evaluation, exhaustive enumeration, host streaming.

Usage: python benchmarks/bench_cuda.py [--n 268435456] [--repeats 5]

Device-resident figures are timed with CUDA events around the kernel launch alone (after a
warm-up that compiles the module and uploads the tables), median of ``--repeats``; beside
each, the public ``gpu_eval.evaluate`` on the same device array (validation included), timed
on the wall clock (it synchronises). Each row
also gives the bandwidth the kernel achieved (bytes read + written per second) and that as a
share of the device's copy bandwidth, measured here with a device-to-device memcpy. Streamed
rows time the whole call, NumPy array in to NumPy array out, against a plain pinned
host-to-device copy. Exits 0 with a message when no GPU is present.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from math import comb

import numpy as np

import gpu_eval
from gpu_eval.bench import median_event_seconds
from gpu_eval.cards import ID_TO_MASK
from gpu_eval.cuda import availability, holdem


def _random_ids(n: int, k: int, seed: int = 0) -> np.ndarray:
    """``n`` random ``k``-card hands as ``(n, k)`` uint8 ids, distinct cards in a row."""
    rng = np.random.default_rng(seed)
    out = np.empty((n, k), dtype=np.uint8)
    for s in range(0, n, 1 << 18):
        e = min(n, s + (1 << 18))
        out[s:e] = np.argpartition(rng.random((e - s, 52)), k, axis=1)[:, :k]
    return out


def _event_ms(cupy, fn, repeats: int) -> float:
    """Median milliseconds of ``fn()`` between two CUDA events, after one warm-up call."""
    return median_event_seconds(fn, repeats) * 1e3


def _wall_s(fn, repeats: int) -> float:
    fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1 << 28, help="hands per device-resident run")
    parser.add_argument("--host-n", type=int, default=1 << 26, help="hands per streamed run")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)

    ok, reason = availability.cuda_available()
    if not ok:
        print(f"bench_cuda: no GPU benchmark on this machine: {reason}")
        return 0
    import cupy

    state = holdem.get_module()
    props = cupy.cuda.runtime.getDeviceProperties(state.device_id)
    name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
    print(f"device {state.device_id}: {name}, {state.sm_count} SMs, CuPy {cupy.__version__}, "
          f"CUDA runtime {cupy.cuda.runtime.runtimeGetVersion()}")

    # Copy bandwidth of the device: a device-to-device memcpy reads and writes every byte.
    nbytes = 1 << 30
    a = cupy.empty(nbytes, dtype=cupy.uint8)
    b = cupy.empty_like(a)
    ms = _event_ms(cupy, lambda: b.data.copy_from_device_async(a.data, nbytes),  # noqa: F821 (del below)
                   args.repeats)
    d2d = 2 * nbytes / (ms * 1e-3)
    pinned = cupy.cuda.alloc_pinned_memory(nbytes // 4)
    ms = _event_ms(cupy, lambda: a.data.copy_from_host_async(pinned.ptr, nbytes // 4),  # noqa: F821
                   args.repeats)
    h2d = (nbytes // 4) / (ms * 1e-3)
    del a, b, pinned
    print(f"device-to-device copy: {d2d / 1e9:8.1f} GB/s (read + write); "
          f"pinned host-to-device: {h2d / 1e9:6.1f} GB/s\n")

    header = (f"{'what':<44} {'cards':>5} {'G hands/s':>10} {'GB/s':>8} {'of D2D':>7}"
              f"  {'time':>9}")
    print(header)
    print("-" * len(header))

    def row(what: str, k: int, hands: int, seconds: float, moved: float | None,
            ref_bw: float = d2d) -> None:
        bw = f"{moved / seconds / 1e9:8.1f} {moved / seconds / ref_bw:7.1%}" if moved else \
            f"{'':>8} {'':>7}"
        print(f"{what:<44} {k:>5} {hands / seconds / 1e9:10.2f} {bw}  {seconds * 1e3:7.1f}ms",
              flush=True)

    n = args.n
    for k in (5, 7):
        base = _random_ids(1 << 21, k, seed=k)
        reps = -(-n // len(base))
        d_ids = cupy.tile(cupy.asarray(base), (reps, 1))[:n]
        table = cupy.asarray(ID_TO_MASK)
        d_masks = table[d_ids[:, 0]]
        for j in range(1, k):
            d_masks |= table[d_ids[:, j]]
        for algorithm in ("bitmask", "perfect-hash"):
            def public(arr, algorithm=algorithm, **kw):
                """What users call: gpu_eval.evaluate validates too (one fused pass, 24 bytes
                read back); wall clock, synchronised, so the whole call is timed."""
                def run():
                    gpu_eval.evaluate(arr, backend="cuda", algorithm=algorithm, **kw)
                    cupy.cuda.Device().synchronize()
                return run

            for what, arr, nbytes in (("masks", d_masks, 8), ("ids", d_ids, k)):
                raw = (holdem.evaluate_masks_cuda if what == "masks" else holdem.evaluate_ids_cuda)
                ms = _event_ms(cupy, lambda: raw(arr, algorithm=algorithm), args.repeats)
                row(f"device {what} ({algorithm}), raw kernel", k, n, ms * 1e-3, n * (nbytes + 2))
                s_pub = _wall_s(public(arr), args.repeats)
                row(f"  public evaluate(), {ms * 1e-3 / s_pub:.0%} of raw", k, n, s_pub,
                    n * (nbytes + 2))
                s_pub = _wall_s(public(arr, invalid="mask"), args.repeats)
                row(f"  public evaluate(invalid='mask'), {ms * 1e-3 / s_pub:.0%} of raw", k, n,
                    s_pub, n * (nbytes + 2))
        del d_ids, d_masks
        cupy.get_default_memory_pool().free_all_blocks()

    for k in (5, 7, 9):
        total = comb(52, k)
        reps = args.repeats if k < 9 else 1
        ms = _event_ms(cupy, lambda: holdem.enumerate_counts_cuda(k), reps)
        row(f"enumerate all C(52,{k}) = {total:,}", k, total, ms * 1e-3, None)

    host_n = args.host_n
    masks = np.bitwise_or.reduce(ID_TO_MASK[_random_ids(1 << 20, 7, seed=1)], axis=1)
    host_masks = np.tile(masks, -(-host_n // len(masks)))[:host_n]
    s = _wall_s(lambda: holdem.evaluate_masks_cuda(host_masks), min(3, args.repeats))
    row("NumPy masks streamed (in -> out)", 7, host_n, s, host_n * (8 + 2), h2d)
    host_ids = np.tile(_random_ids(1 << 20, 7, seed=2), (-(-host_n // (1 << 20)), 1))[:host_n]
    s = _wall_s(lambda: holdem.evaluate_ids_cuda(host_ids), min(3, args.repeats))
    row("NumPy ids streamed (in -> out)", 7, host_n, s, host_n * (7 + 2), h2d)
    print("\n(streamed rows: 'of D2D' is against the pinned host-to-device copy instead)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
