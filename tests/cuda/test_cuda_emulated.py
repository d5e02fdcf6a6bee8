"""gpu_eval.cuda.holdem against the NumPy evaluator, on the stand-in CuPy (which runs the real
kernels on the CPU) and, where one is present, on a real device: the ``gpu`` fixture runs one
test body on both (sizes a GPU gets through in the time; the exhaustive seven- and nine-card
enumerations on a real device only). Tests of what only the stand-in can show (launch counts,
table symbols, stream order) take ``fake``. A last test checks that the real CuPy offers every
attribute the emulation stands in for.
"""

from __future__ import annotations

import inspect
import sys
from math import comb

import numpy as np
import pytest

from gpu_eval.cuda import availability, holdem, manifest, modules
from gpu_eval.evaluator import bitmask

import kernel_refs as R


@pytest.fixture
def fake(stand_in_cupy):
    return stand_in_cupy

@pytest.fixture(scope="module")
def hands7():
    ids = R.random_hands(np.random.default_rng(7), 50_000, 7)
    masks = R.ids_to_masks(ids)
    return ids, masks, bitmask.evaluate_masks(masks)


def test_module_is_built_once_and_tables_uploaded(fake):
    assert availability.cuda_available() == (True, "2 CUDA device(s); device 0: Emulated")
    state = holdem.get_module()
    assert holdem.get_module(0) is state
    assert state.module.options == modules.module_options()
    assert state.module.code == manifest.module_source("evaluator")
    # The constant struct holds the addresses of the uploaded tables, in struct order.
    assert state.module.symbols["ge_bitmask_tables"].tolist() == [t.data.ptr for t in state.tables]
    assert [t.dtype for t in state.tables] == [
        modules.BITMASK_TABLE_DTYPES[n] for n in modules.BITMASK_TABLE_ORDER]
    # 2 SMs x 6 blocks: 40 registers x 256 threads x 6 fit in the 65536 registers of an SM.
    assert state.blocks_per_sm["ge_eval_masks"] == 6
    assert state.grid("ge_eval_masks", 10) == 1
    assert state.grid("ge_eval_masks", 300) == 2
    assert state.grid("ge_eval_masks", 10**9) == 12


@pytest.fixture(scope="module")
def all_five():
    from gpu_eval import combinatorics

    masks = combinatorics.subset_masks(52, 5)
    ids = combinatorics.unrank(np.arange(len(masks)), 5)
    return masks, ids, bitmask.evaluate_masks(masks)


def test_module_cached_per_device(gpu):
    state = holdem.get_module()
    assert holdem.get_module(gpu.cp.cuda.runtime.getDevice()) is state
    assert state.sm_count > 0 and all(b >= 1 for b in state.blocks_per_sm.values())


def test_all_five_card_hands_on_device(gpu, all_five):
    cp = gpu.cp
    masks, ids, ref = all_five
    got = holdem.evaluate_masks_cuda(cp.asarray(masks))
    assert isinstance(got, cp.ndarray) and got.dtype == cp.uint16
    np.testing.assert_array_equal(cp.asnumpy(got), ref)
    got = holdem.evaluate_ids_cuda(cp.asarray(ids))
    assert isinstance(got, cp.ndarray)
    np.testing.assert_array_equal(cp.asnumpy(got), ref)
    got = holdem.evaluate_deadhorse_cuda(cp.asarray(R.ids_to_deadhorse(ids)))
    np.testing.assert_array_equal(cp.asnumpy(got), ref)
    hist = np.bincount(cp.asnumpy(got), minlength=R.NUM_STRENGTHS)
    assert R.categories_from_histogram(hist) == R.FIVE_CARD_CATEGORY_COUNTS


def test_numpy_in_numpy_out(gpu, all_five, hands7):
    masks, ids, ref = all_five if gpu.real else (hands7[1], hands7[0], hands7[2])
    got = holdem.evaluate_masks_cuda(masks)
    assert isinstance(got, np.ndarray) and not isinstance(got, gpu.cp.ndarray)
    assert got.dtype == np.uint16
    np.testing.assert_array_equal(got, ref)
    np.testing.assert_array_equal(holdem.evaluate_ids_cuda(ids), ref)


@pytest.mark.parametrize("k", [6, 7, 8, 9])
def test_random_hands_on_device(gpu, k):
    cp = gpu.cp
    ids = R.random_hands(np.random.default_rng(k), gpu.size(300_000, 20_000), k)
    masks = R.ids_to_masks(ids)
    ref = bitmask.evaluate_masks(masks)
    got = holdem.evaluate_masks_cuda(cp.asarray(masks.reshape(-1, 50)))
    assert isinstance(got, cp.ndarray) and got.shape == (len(ids) // 50, 50)
    np.testing.assert_array_equal(cp.asnumpy(got).reshape(-1), ref)
    np.testing.assert_array_equal(cp.asnumpy(holdem.evaluate_ids_cuda(cp.asarray(ids))), ref)
    np.testing.assert_array_equal(
        cp.asnumpy(holdem.evaluate_deadhorse_cuda(cp.asarray(R.ids_to_deadhorse(ids)))), ref)


def test_perfect_hash_on_device(gpu, all_five):
    cp = gpu.cp
    masks, ids, ref = all_five
    got = holdem.evaluate_masks_cuda(cp.asarray(masks), algorithm="perfect-hash")
    np.testing.assert_array_equal(cp.asnumpy(got), ref)
    np.testing.assert_array_equal(holdem.evaluate_ids_cuda(ids, algorithm="perfect-hash"), ref)
    ids7 = R.random_hands(np.random.default_rng(77), gpu.size(500_000, 20_000), 7)
    ref7 = bitmask.evaluate_masks(R.ids_to_masks(ids7))
    got7 = holdem.evaluate_deadhorse_cuda(cp.asarray(R.ids_to_deadhorse(ids7)),
                                          algorithm="perfect-hash")
    np.testing.assert_array_equal(cp.asnumpy(got7), ref7)


def test_streaming_larger_than_a_chunk(gpu):
    n = gpu.size(1_000_003, 20_003)
    ids = R.random_hands(np.random.default_rng(1), n, 7)
    masks = R.ids_to_masks(ids)
    ref = bitmask.evaluate_masks(masks)
    for chunk in (n // 15, n // 3):
        got = holdem.evaluate_masks_cuda(masks, chunk_rows=chunk)
        assert isinstance(got, np.ndarray)
        np.testing.assert_array_equal(got, ref)
        np.testing.assert_array_equal(holdem.evaluate_ids_cuda(ids, chunk_rows=chunk), ref)


def test_shapes_and_empty(gpu):
    cp = gpu.cp
    m = R.ids_to_masks(R.random_hands(np.random.default_rng(2), 600, 7)).reshape(20, 30)
    got = holdem.evaluate_masks_cuda(cp.asarray(m))
    assert got.shape == (20, 30)
    np.testing.assert_array_equal(cp.asnumpy(got), bitmask.evaluate_masks(m).reshape(20, 30))
    assert holdem.evaluate_masks_cuda(cp.zeros(0, cp.uint64)).shape == (0,)
    assert holdem.evaluate_ids_cuda(np.zeros((0, 7), np.uint8)).shape == (0,)


def test_enumerate_all_five_card_hands(gpu, all_five):
    got = holdem.enumerate_counts_cuda(5)
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, np.bincount(all_five[2], minlength=R.NUM_STRENGTHS))
    assert R.categories_from_histogram(got) == R.FIVE_CARD_CATEGORY_COUNTS


def test_enumerate_all_seven_card_hands(gpu):
    gpu.only_real("133,784,560 hands (tests/cuda/test_kernels_host.py enumerates them on the "
                  "host build)")
    got = holdem.enumerate_counts_cuda(7)
    assert got.sum() == comb(52, 7)
    assert np.count_nonzero(got) == R.SEVEN_CARD_DISTINCT
    assert got[7462] == R.SEVEN_CARD_ROYALS
    assert R.categories_from_histogram(got) == R.SEVEN_CARD_CATEGORY_COUNTS


@pytest.mark.parametrize("k", [6, 8, 9])
def test_enumerate_slices(gpu, k):
    total = comb(52, k)
    head, tail = gpu.size(1_000_000, 30_000), gpu.size(777_777, 25_000)
    for start, stop in [(0, head), (total - tail, total), (total // 3, total // 3 + 5)]:
        ref = np.bincount(bitmask.evaluate_masks(R.slice_masks(k, start, stop)),
                          minlength=R.NUM_STRENGTHS)
        np.testing.assert_array_equal(holdem.enumerate_counts_cuda(k, start, stop), ref)


def test_enumerate_all_nine_card_hands_sums(gpu):
    """C(52, 9) > 2^31: several launches, 64-bit indices; every hand counted once."""
    gpu.only_real("3,679,075,400 hands")
    got = holdem.enumerate_counts_cuda(9)
    assert got.sum() == comb(52, 9)
    assert got[0] == 0


@pytest.mark.parametrize("chunk_rows", [None, 1, 999, 4096, 49_999])
def test_host_arrays_streamed(fake, hands7, chunk_rows):
    ids, masks, ref = hands7
    if chunk_rows == 1:  # one launch per row: keep it short
        ids, masks, ref = ids[:1001], masks[:1001], ref[:1001]
    got = holdem.evaluate_masks_cuda(masks, chunk_rows=chunk_rows)
    assert isinstance(got, np.ndarray) and got.dtype == np.uint16
    np.testing.assert_array_equal(got, ref)
    np.testing.assert_array_equal(holdem.evaluate_ids_cuda(ids, chunk_rows=chunk_rows), ref)
    np.testing.assert_array_equal(
        holdem.evaluate_deadhorse_cuda(R.ids_to_deadhorse(ids), chunk_rows=chunk_rows), ref)
    n_launch = len(fake.launches)
    expected = 3 * -(-len(ref) // (chunk_rows or len(ref)))
    assert n_launch == expected


@pytest.mark.parametrize("chunk_rows", [None, 7_777])
def test_perfect_hash_kernels(fake, hands7, chunk_rows):
    ids, masks, ref = hands7
    got = holdem.evaluate_masks_cuda(fake.asarray(masks), algorithm="perfect-hash")
    np.testing.assert_array_equal(got.get(), ref)
    np.testing.assert_array_equal(
        holdem.evaluate_ids_cuda(ids, algorithm="perfect-hash", chunk_rows=chunk_rows), ref)
    np.testing.assert_array_equal(
        holdem.evaluate_deadhorse_cuda(R.ids_to_deadhorse(ids), algorithm="perfect-hash",
                                      chunk_rows=chunk_rows), ref)
    assert {name for name, _, _ in fake.launches} == {
        "ge_phash_eval_masks", "ge_phash_eval_ids", "ge_phash_eval_deadhorse"}
    state = holdem.get_module()
    assert state.module.symbols["ge_phash_tables"].tolist() == [
        t.data.ptr for t in state.phash_tables]
    with pytest.raises(ValueError, match="algorithm="):
        holdem.evaluate_masks_cuda(masks, algorithm="fast")


def test_empty_inputs(fake):
    assert holdem.evaluate_masks_cuda(np.zeros(0, np.uint64)).shape == (0,)
    assert holdem.evaluate_ids_cuda(np.zeros((0, 5), np.uint8)).shape == (0,)
    assert holdem.evaluate_masks_cuda(fake.asarray(np.zeros(0, np.uint64))).shape == (0,)
    out = holdem.evaluate([], game="holdem", invalid="raise", encoding="auto",
                         algorithm="bitmask")
    assert out.shape == (0,) and out.dtype == np.uint16
    assert fake.launches == []


def test_bad_shapes(fake):
    with pytest.raises(ValueError, match="k = 5..9"):
        holdem.evaluate_ids_cuda(np.zeros((3, 4), np.uint8))
    with pytest.raises(ValueError, match="k = 5..9"):
        holdem.evaluate_deadhorse_cuda(np.zeros(7, np.int32))
    with pytest.raises(ValueError, match="k must be"):
        holdem.enumerate_counts_cuda(4)
    with pytest.raises(ValueError, match="start <= stop"):
        holdem.enumerate_counts_cuda(5, 10, comb(52, 5) + 1)


def test_enumeration_split_into_launches(fake, monkeypatch):
    """Slices, split into several launches (each launch's counters are 32-bit)."""
    monkeypatch.setattr(holdem, "_ENUM_LAUNCH_MAX", 10_007)
    for k in (6, 8, 9):
        total = comb(52, k)
        for start, stop in [(0, 30_000), (total - 25_000, total), (123_456, 150_001)]:
            fake.launches.clear()
            ref = np.bincount(bitmask.evaluate_masks(R.slice_masks(k, start, stop)),
                              minlength=R.NUM_STRENGTHS)
            np.testing.assert_array_equal(holdem.enumerate_counts_cuda(k, start, stop), ref)
            assert len(fake.launches) == -(-(stop - start) // 10_007)


def test_real_cupy_has_what_the_emulation_stands_in_for():
    cupy = pytest.importorskip("cupy")
    for name in ("ndarray", "asarray", "ascontiguousarray", "empty", "zeros", "RawModule",
                 "uint8", "uint16", "uint64", "int32"):
        assert hasattr(cupy, name), name
    assert "dtype" in inspect.signature(cupy.ascontiguousarray).parameters
    for name in ("get_function", "get_global"):
        assert hasattr(cupy.RawModule, name)
    for name in ("num_regs", "shared_size_bytes"):
        assert hasattr(cupy.RawKernel, name)
    for name in ("copy_from_host_async", "copy_to_host_async", "ptr"):
        assert hasattr(cupy.cuda.MemoryPointer, name)
    for name in ("Device", "Stream", "Event", "get_current_stream", "alloc_pinned_memory"):
        assert hasattr(cupy.cuda, name)
    for name in ("record", "wait_event", "synchronize"):
        assert hasattr(cupy.cuda.Stream, name)
    assert hasattr(cupy, "full") and hasattr(cupy.RawKernel, "kernel")
    assert hasattr(cupy.cuda.function.Function, "ptr")
    assert hasattr(cupy.cuda.driver, "occupancyMaxActiveBlocksPerMultiprocessor")
    for name in ("getDeviceCount", "getDevice", "getDeviceProperties", "deviceSynchronize"):
        assert hasattr(cupy.cuda.runtime, name)
    assert hasattr(cupy.ndarray, "set") and hasattr(cupy.ndarray, "get")


def test_unavailable_backend_says_why(monkeypatch):
    """Without CuPy the error names the install command; the real state is reported as is."""
    monkeypatch.setitem(sys.modules, "cupy", None)  # makes `import cupy` raise ImportError
    availability.cuda_available.cache_clear()
    try:
        ok, reason = availability.cuda_available()
        assert not ok
        assert "pip install cupy-cuda13x" in reason
        with pytest.raises(availability.CudaUnavailableError, match="needs CuPy"):
            holdem.evaluate_masks_cuda(np.zeros(1, np.uint64))
    finally:
        availability.cuda_available.cache_clear()


# --- gpu_eval.cuda.holdem.evaluate: the validated entry point, against the NumPy backend -------

def _numpy_evaluate(hands, **kw):
    import gpu_eval as ge

    return ge.evaluate(hands, backend="numpy", **kw)


def _same_outcome(fake, hands, device: bool, **kw):
    """cuda.holdem.evaluate and the NumPy backend give the same strengths, or the same error."""
    host_hands = hands
    arg = fake.asarray(hands) if device else hands
    try:
        want = _numpy_evaluate(host_hands, **kw)
    except (ValueError, TypeError) as exc:
        with pytest.raises(type(exc)) as got:
            holdem.evaluate(arg, **kw)
        assert str(got.value) == str(exc)
        return None
    got = holdem.evaluate(arg, **kw)
    if device:
        assert isinstance(got, fake.ndarray)
        got = got.get()
    else:
        assert isinstance(got, (np.ndarray, np.generic))
    assert got.dtype == np.uint16 and got.shape == np.shape(want)
    np.testing.assert_array_equal(got, want)
    return got


@pytest.mark.parametrize("invalid", ["raise", "mask"])
@pytest.mark.parametrize("device", [True, False], ids=["cupy", "numpy"])
@pytest.mark.parametrize("case", list(R.bad_batches()))
def test_evaluate_matches_numpy_backend(gpu, case, device, invalid):
    """holdem.evaluate and ge.evaluate(backend="cuda"): the NumPy backend's strengths, or its
    error (type and message)."""
    hands, kw = R.bad_batches()[case]
    got = _same_outcome(gpu.cp, hands, device, invalid=invalid, **kw)
    if got is not None:
        import gpu_eval as ge

        public = ge.evaluate(gpu.cp.asarray(hands) if device else hands, backend="cuda",
                             invalid=invalid, **kw)
        assert isinstance(public, gpu.cp.ndarray) == device
        np.testing.assert_array_equal(gpu.cp.asnumpy(public) if device else public, got)


def test_evaluate_text_and_algorithms(fake):
    hands = ["AsKsQsJsTs2c3d", "7c5d4h3s2c", "AhAd5c5s2h"]
    np.testing.assert_array_equal(holdem.evaluate(hands), _numpy_evaluate(hands))
    assert int(holdem.evaluate("As Ks Qs Js Ts 2c 3d", algorithm="perfect-hash")) == 7462
    with pytest.raises(ValueError, match="game"):
        holdem.evaluate(hands, game="razz")
    with pytest.raises(ValueError, match="encoding"):
        holdem.evaluate(fake.asarray(np.zeros((1, 5), np.uint8)), encoding="bits")


def test_public_evaluate_dispatches_here(fake, monkeypatch, hands7):
    """gpu_eval.evaluate(backend="cuda" | "auto") reaches holdem.evaluate with its keywords."""
    import gpu_eval as ge

    ids, masks, ref = hands7
    availability.cuda_available.cache_clear()  # backend_choice.cuda_status delegates to it
    try:
        got = ge.evaluate(fake.asarray(ids), backend="auto")
        assert isinstance(got, fake.ndarray)
        np.testing.assert_array_equal(got.get(), ref)
        got = ge.evaluate(masks, backend="cuda", algorithm="perfect-hash")
        assert isinstance(got, np.ndarray)
        np.testing.assert_array_equal(got, ref)
        # Device ids: one fused validate-and-evaluate launch; host masks: streamed.
        assert {n for n, _, _ in fake.launches} >= {"ge_check_eval_ids", "ge_phash_eval_masks"}
    finally:
        availability.cuda_available.cache_clear()  # backend_choice.cuda_status delegates to it
