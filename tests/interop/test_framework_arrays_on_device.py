"""PyTorch, JAX, Numba and CuPy arrays on a real GPU (gpu_eval.array_interop): device tests only
(``pytest -m device``), as the frameworks' CUDA arrays cannot be stood in for.

Skipped, with the reason, unless CuPy sees a CUDA device; each framework's tests skip where it
is not installed (tests/interop/test_array_interop.py checks the same paths with stand-ins).
The same device pointer goes in (the CuPy view is the caller's memory) and
comes out (the caller's result is CuPy's result memory); nothing goes through the host.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

import gpu_eval as ge
from gpu_eval.array_interop import adopt
from gpu_eval.cuda import availability

OK, REASON = availability.cuda_available()
# JAX would otherwise take 75% of the device when first used, starving the tests after these.
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
pytestmark = [pytest.mark.device, pytest.mark.skipif(not OK, reason=REASON)]

HANDS = ge.cards.parse(["AhKhQhJhTh2c3d", "7c5d4h3s2c9d8d", "AsAd5c5h2s9c8c"])
WANT = ge.evaluate(HANDS, backend="numpy")


@pytest.fixture(scope="module")
def many():
    rng = np.random.default_rng(5)
    ids = np.argsort(rng.random((200_000, 52)), axis=1)[:, :7].astype(np.uint8)
    return ids, ge.evaluate(ids, backend="numpy")


def _round_trip(x):
    """The view's pointer, the result, and the caller-kind result of evaluating ``x``."""
    got = adopt(x)
    with got.scope():
        res = ge.evaluate(got.array)
        return got, res, got.back(res)


def test_torch_cuda_in_torch_cuda_out(many):
    torch = pytest.importorskip("torch")
    ids, want = many
    t = torch.from_numpy(ids).to("cuda")
    got, res, out = _round_trip(t)
    assert got.array.data.ptr == t.data_ptr()  # the view is the tensor's memory
    assert isinstance(out, torch.Tensor) and out.device == t.device
    assert out.data_ptr() == res.data.ptr      # the result is CuPy's memory, not a copy
    np.testing.assert_array_equal(ge.evaluate(t).cpu().numpy(), want)


def test_torch_work_is_ordered_on_the_callers_stream(many):
    """Input written by a torch op on a side stream, evaluated on that stream, read there:
    right without any synchronisation between the two."""
    torch = pytest.importorskip("torch")
    ids, want = many
    src = torch.from_numpy(ids).to("cuda")
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        t = src.flip(0).flip(0)  # written on `side`, asynchronously
        assert adopt(t).stream == side.cuda_stream
        out = ge.evaluate(t)
        back = out.to(torch.int32).sum()
    side.synchronize()
    assert int(back) == int(want.astype(np.int64).sum())
    np.testing.assert_array_equal(out.cpu().numpy(), want)


def test_torch_host_only_functions_come_back_on_the_device():
    torch = pytest.importorskip("torch")
    s = torch.from_numpy(WANT.astype(np.int32)).to("cuda")
    cat = ge.category(s)
    assert isinstance(cat, torch.Tensor) and cat.device == s.device
    np.testing.assert_array_equal(cat.cpu().numpy(), ge.category(WANT))
    assert ge.describe(s) == ge.describe(WANT)


def test_jax_gpu_in_jax_gpu_out(many):
    jax = pytest.importorskip("jax")
    try:
        gpu = jax.devices("gpu")[0]
    except RuntimeError as exc:
        pytest.skip(f"JAX sees no GPU: {exc}")
    ids, want = many
    j = jax.device_put(ids, gpu)
    got, res, out = _round_trip(j)
    assert got.array.data.ptr == j.unsafe_buffer_pointer()
    assert isinstance(out, jax.Array) and out.devices() == {gpu}
    assert out.unsafe_buffer_pointer() == res.data.ptr
    np.testing.assert_array_equal(np.asarray(ge.evaluate(j)), want)


def test_numba_in_numba_out():
    cuda = pytest.importorskip("numba.cuda")
    d = cuda.to_device(HANDS)
    got, res, out = _round_trip(d)
    assert got.array.data.ptr == d.__cuda_array_interface__["data"][0]
    assert type(out).__module__.startswith("numba")
    assert out.__cuda_array_interface__["data"][0] == res.data.ptr
    np.testing.assert_array_equal(out.copy_to_host(), WANT)


def test_cuda_array_interface_of_cupy_memory():
    import cupy

    class CAIOnly:
        def __init__(self, a):
            self.a = a
            self.__cuda_array_interface__ = a.__cuda_array_interface__

    d = cupy.asarray(HANDS)
    got, res, out = _round_trip(CAIOnly(d))
    assert got.array.data.ptr == d.data.ptr and isinstance(out, cupy.ndarray)
    np.testing.assert_array_equal(out.get(), WANT)
