"""The stand-in CuPy's device memory and second device (tests/emulation/fake_cupy/): what the
streaming and multi-device tests rely on, checked on the stand-in itself, and the same names
on the real CuPy.
"""

from __future__ import annotations

import gc

import numpy as np
import pytest

from gpu_eval.cuda import holdem, manifest


@pytest.fixture
def fake(stand_in_cupy):
    # Earlier tests' device buffers caught in reference cycles stay counted until collected;
    # collected in the middle of a test (a gc.collect() there, or an automatic one) they would
    # move the exact memory figures these tests check, so they go first.
    gc.collect()
    return stand_in_cupy


def test_allocations_past_the_capacity_raise_cupys_error(fake):
    used = fake.get_default_memory_pool().used_bytes()
    fake.set_device_memory(used + (1 << 20))
    free, total = fake.cuda.Device().mem_info
    assert (free, total) == (1 << 20, used + (1 << 20))
    assert fake.cuda.runtime.memGetInfo() == (free, total)
    a = fake.empty(1 << 19, dtype=fake.uint8)
    assert fake.cuda.Device().mem_info[0] == 1 << 19
    with pytest.raises(fake.cuda.memory.OutOfMemoryError) as err:
        fake.zeros(1 << 20, dtype=fake.uint8)
    assert type(err.value).__module__ == "cupy.cuda.memory"
    assert type(err.value).__name__ == "OutOfMemoryError"
    assert isinstance(err.value, MemoryError)
    assert "Out of memory allocating 1,048,576 bytes" in str(err.value)
    with pytest.raises(fake.cuda.memory.OutOfMemoryError):
        (a.astype(np.uint16) + 1).astype(np.uint32)   # results count too
    del a
    gc.collect()
    b = fake.ones(1 << 20, dtype=fake.uint8)             # freed memory is free again
    assert fake.cuda.Device().mem_info[0] == 0 and int(b.sum()) == 1 << 20


def test_the_pool_limit_caps_like_cupys(fake):
    pool = fake.get_default_memory_pool()
    pool.set_limit(size=pool.used_bytes() + 4096)
    assert pool.get_limit() == pool.used_bytes() + 4096
    fake.empty(4096, dtype=fake.uint8)
    with pytest.raises(fake.cuda.memory.OutOfMemoryError, match="limit set to"):
        fake.empty(4097, dtype=fake.uint8)
    with fake.cuda.Device(1):
        fake.empty(1 << 20, dtype=fake.uint8)  # the limit is device 0's


def test_arrays_remember_their_device_and_operations_stay_there(fake):
    with fake.cuda.Device(1):
        assert fake.cuda.runtime.getDevice() == 1 and fake.cuda.Device().id == 1
        a = fake.asarray(np.arange(10, dtype=np.uint32))
        b = a * 2
        view = a[2:5].reshape(3)
        assert a.device.id == b.device.id == view.device.id == a.astype(np.int64).device.id == 1
    assert fake.cuda.runtime.getDevice() == 0
    assert fake.asarray(a) is a and a.device.id == 1  # CuPy moves nothing
    with pytest.raises(ValueError, match=r"array resides \(1\) is different from the current "
                                         r"device \(0\)"):
        a + 1
    assert (a.get() == np.arange(10)).all()  # reading back works from any device
    with pytest.raises(RuntimeError, match="invalid device ordinal 2"):
        fake.cuda.Device(2)


def test_memory_is_counted_per_device(fake):
    before = fake.cuda.Device(1).mem_info[0]
    with fake.cuda.Device(1):
        x = fake.empty(1 << 16, dtype=fake.uint8)
        assert fake.cuda.Device().mem_info[0] == before - (1 << 16)
    assert fake.cuda.Device(0).mem_info[0] > fake.cuda.Device(1).mem_info[0] - (1 << 30)
    del x


def test_a_launch_with_another_devices_array_fails(fake):
    """Device 0's module given an array of device 1: an illegal address on a GPU, an error
    here (and the launchers' own check, before the stand-in, names the argument)."""
    state = holdem.get_module(0)
    masks = np.array([0x1F00], dtype=np.uint64)
    with fake.cuda.Device(1):
        d_masks = fake.asarray(masks)
        out = fake.empty(1, dtype=fake.uint16)
    with pytest.raises(manifest.LaunchError, match=r"argument 0 \(masks\): an array on device 1"):
        state.launch("ge_eval_masks", 1, (d_masks, out, np.uint64(1)))
    raw = state.kernels["ge_eval_masks"].raw
    with pytest.raises(RuntimeError, match="cudaErrorIllegalAddress"):
        raw((1,), (256,), (d_masks, out, np.uint64(1)))
    on_zero = (fake.asarray(masks), fake.empty(1, dtype=fake.uint16), np.uint64(1))
    with fake.cuda.Device(1), pytest.raises(manifest.LaunchError, match="launched with device 1"):
        state.launch("ge_eval_masks", 1, on_zero)


def test_each_device_has_its_own_module_and_tables(fake):
    with fake.cuda.Device(1):
        one = holdem.get_module()
        ids = fake.asarray(np.array([[48, 44, 40, 36, 32]], dtype=np.uint8))
        got = holdem.evaluate_ids_cuda(ids)
    zero = holdem.get_module()
    assert (one.device_id, zero.device_id) == (1, 0) and one is not zero
    assert all(t.device.id == 1 for t in one.tables)
    assert got.device.id == 1 and int(got.get()[0]) == 7462


def test_real_cupy_has_the_memory_and_device_calls_used():
    cupy = pytest.importorskip("cupy")
    assert cupy.cuda.memory.OutOfMemoryError.__module__ == "cupy.cuda.memory"
    assert issubclass(cupy.cuda.memory.OutOfMemoryError, MemoryError)
    for name in ("used_bytes", "free_bytes", "total_bytes", "set_limit", "get_limit",
                 "free_all_blocks"):
        assert hasattr(cupy.cuda.memory.MemoryPool, name), name
    assert hasattr(cupy, "get_default_memory_pool") and hasattr(cupy.cuda.Device, "mem_info")
    for name in ("memGetInfo", "setDevice", "getDevice", "getDeviceCount"):
        assert hasattr(cupy.cuda.runtime, name), name
    assert hasattr(cupy.ndarray, "device") and hasattr(cupy.cuda.MemoryPointer, "device_id")
    assert hasattr(cupy, "minimum") and hasattr(cupy.ndarray, "flags")


def test_the_current_stream_is_per_host_thread(fake):
    # As CuPy's: a stream made current in one thread is not another thread's current stream
    # (a Dask worker runs tasks in threads; one task's stream must not take another's work).
    import threading

    mine = fake.cuda.Stream(non_blocking=True)
    seen = []
    with mine:
        t = threading.Thread(target=lambda: seen.append(fake.cuda.get_current_stream()))
        t.start()
        t.join()
        assert fake.cuda.get_current_stream() is mine
    assert seen == [fake.cuda.Stream.null]

