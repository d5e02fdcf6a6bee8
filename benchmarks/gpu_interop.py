"""Device rows of the DLPack / CUDA-array-interface path (run by benchmarks/gpu_check.sh).

For CuPy, and for PyTorch / JAX / Numba where installed: the same device pointer in (the view
the evaluator reads) and out (the caller's result is CuPy's result memory), the result's type
and device, whether the values equal NumPy's, and the median time of ``ge.evaluate`` on the
framework's array against the same call on a CuPy array (the adoption's overhead).

    python benchmarks/gpu_interop.py --n 16777216 --repeats 5
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np

import gpu_eval as ge
from gpu_eval.array_interop import adopt


def _median_s(fn, sync, repeats: int) -> float:
    fn()
    sync()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        sync()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def _row(name: str, x, to_host, sync, want, cupy_s: float, repeats: int):
    got = adopt(x)
    with got.scope():
        res = ge.evaluate(got.array)
        out = got.back(res)
    ptr_in = got.array.data.ptr
    ok = np.array_equal(to_host(ge.evaluate(x)), want)
    s = _median_s(lambda: ge.evaluate(x), sync, repeats)
    print(f"{name:8s} | in ptr {ptr_in:#x} | out {type(out).__module__}.{type(out).__name__} "
          f"| same as NumPy {ok} | {s * 1e3:8.2f} ms | {cupy_s / s:5.2f}x CuPy input's speed")
    return res, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1 << 24)
    ap.add_argument("--repeats", type=int, default=5)
    a = ap.parse_args()
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")  # leave CuPy its memory
    import cupy

    rng = np.random.default_rng(1)
    ids = np.argsort(rng.random((min(a.n, 1 << 20), 52)), axis=1)[:, :7].astype(np.uint8)
    ids = np.tile(ids, (a.n // len(ids) + 1, 1))[:a.n]
    want = ge.evaluate(ids, backend="numpy")
    d = cupy.asarray(ids)
    sync = cupy.cuda.runtime.deviceSynchronize
    cupy_s = _median_s(lambda: ge.evaluate(d), sync, a.repeats)
    print(f"interop: {a.n:,} seven-card hands; CuPy input {cupy_s * 1e3:.2f} ms median "
          f"of {a.repeats}")

    class DLPackOnly:  # an unknown producer: only the protocols, over CuPy memory
        def __init__(self, a):
            self.a = a

        def __dlpack__(self, **kwargs):
            return self.a.__dlpack__(**kwargs)

        def __dlpack_device__(self):
            return self.a.__dlpack_device__()

    class CAIOnly:
        def __init__(self, a):
            self.__cuda_array_interface__ = a.__cuda_array_interface__

    for name, x in (("dlpack", DLPackOnly(d)), ("cai", CAIOnly(d))):
        res, out = _row(name, x, lambda r: r.get(), sync, want, cupy_s, a.repeats)
        print(f"{name:8s} | in ptr == CuPy ptr {adopt(x).array.data.ptr == d.data.ptr} | "
              f"out is CuPy's result {out is res}")
    try:
        import torch
    except ImportError as exc:
        print(f"torch    | skipped: {exc}")
    else:
        t = torch.from_numpy(ids).to("cuda")
        res, out = _row("torch", t, lambda r: r.cpu().numpy(), torch.cuda.synchronize, want,
                        cupy_s, a.repeats)
        print(f"torch    | in ptr == tensor ptr {adopt(t).array.data.ptr == t.data_ptr()} | "
              f"out ptr == result ptr {out.data_ptr() == res.data.ptr} | out on {out.device}")
    try:
        import jax
        gpu = jax.devices("gpu")[0]
    except (ImportError, RuntimeError) as exc:
        print(f"jax      | skipped: {exc}")
    else:
        j = jax.device_put(ids, gpu)
        res, out = _row("jax", j, np.asarray, sync, want, cupy_s, a.repeats)
        print(f"jax      | in ptr == buffer ptr "
              f"{adopt(j).array.data.ptr == j.unsafe_buffer_pointer()} | out ptr == result "
              f"ptr {out.unsafe_buffer_pointer() == res.data.ptr} | out on {out.devices()}")
    try:
        from numba import cuda as ncuda
    except ImportError as exc:
        print(f"numba    | skipped: {exc}")
    else:
        nd = ncuda.to_device(ids)
        _row("numba", nd, lambda r: r.copy_to_host(), sync, want, cupy_s, a.repeats)


if __name__ == "__main__":
    main()
