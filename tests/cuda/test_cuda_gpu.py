"""The CUDA kernels on a real GPU against the NumPy path (docs/architecture.md: testing, way 3).

Every test here is skipped, with the reason, unless CuPy imports and sees a CUDA device.
"""

from __future__ import annotations

from math import comb

import numpy as np
import pytest

from gpu_eval import combinatorics
from gpu_eval.cuda import availability, holdem
from gpu_eval.evaluator import bitmask

import kernel_refs as R

OK, REASON = availability.cuda_available()
pytestmark = pytest.mark.skipif(not OK, reason=REASON)


@pytest.fixture(scope="module")
def cp():
    import cupy

    return cupy


@pytest.fixture(scope="module")
def all_five():
    masks = combinatorics.subset_masks(52, 5)
    ids = combinatorics.unrank(np.arange(len(masks)), 5)
    return masks, ids, bitmask.evaluate_masks(masks)


def test_module_cached_per_device(cp):
    state = holdem.get_module()
    assert holdem.get_module(cp.cuda.runtime.getDevice()) is state
    assert state.sm_count > 0 and all(b >= 1 for b in state.blocks_per_sm.values())


def test_all_five_card_hands_on_device(cp, all_five):
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


def test_numpy_in_numpy_out(all_five):
    masks, ids, ref = all_five
    got = holdem.evaluate_masks_cuda(masks)
    assert isinstance(got, np.ndarray) and got.dtype == np.uint16
    np.testing.assert_array_equal(got, ref)
    np.testing.assert_array_equal(holdem.evaluate_ids_cuda(ids), ref)


@pytest.mark.parametrize("k", [6, 7, 8, 9])
def test_random_hands_on_device(cp, k):
    ids = R.random_hands(np.random.default_rng(k), 300_000, k)
    masks = R.ids_to_masks(ids)
    ref = bitmask.evaluate_masks(masks)
    np.testing.assert_array_equal(cp.asnumpy(holdem.evaluate_masks_cuda(cp.asarray(masks))), ref)
    np.testing.assert_array_equal(cp.asnumpy(holdem.evaluate_ids_cuda(cp.asarray(ids))), ref)
    np.testing.assert_array_equal(
        cp.asnumpy(holdem.evaluate_deadhorse_cuda(cp.asarray(R.ids_to_deadhorse(ids)))), ref)


def test_perfect_hash_kernels(cp, all_five):
    masks, ids, ref = all_five
    got = holdem.evaluate_masks_cuda(cp.asarray(masks), algorithm="perfect-hash")
    np.testing.assert_array_equal(cp.asnumpy(got), ref)
    np.testing.assert_array_equal(holdem.evaluate_ids_cuda(ids, algorithm="perfect-hash"), ref)
    ids7 = R.random_hands(np.random.default_rng(77), 500_000, 7)
    ref7 = bitmask.evaluate_masks(R.ids_to_masks(ids7))
    got7 = holdem.evaluate_deadhorse_cuda(cp.asarray(R.ids_to_deadhorse(ids7)),
                                         algorithm="perfect-hash")
    np.testing.assert_array_equal(cp.asnumpy(got7), ref7)


def test_streaming_larger_than_a_chunk():
    ids = R.random_hands(np.random.default_rng(1), 1_000_003, 7)
    masks = R.ids_to_masks(ids)
    ref = bitmask.evaluate_masks(masks)
    for chunk in (65_536, 333_333):
        got = holdem.evaluate_masks_cuda(masks, chunk_rows=chunk)
        assert isinstance(got, np.ndarray)
        np.testing.assert_array_equal(got, ref)
        np.testing.assert_array_equal(holdem.evaluate_ids_cuda(ids, chunk_rows=chunk), ref)


def test_shapes_and_empty(cp):
    m = R.ids_to_masks(R.random_hands(np.random.default_rng(2), 600, 7)).reshape(20, 30)
    got = holdem.evaluate_masks_cuda(cp.asarray(m))
    assert got.shape == (20, 30)
    np.testing.assert_array_equal(cp.asnumpy(got), bitmask.evaluate_masks(m).reshape(20, 30))
    assert holdem.evaluate_masks_cuda(cp.zeros(0, cp.uint64)).shape == (0,)
    assert holdem.evaluate_ids_cuda(np.zeros((0, 7), np.uint8)).shape == (0,)


def test_enumerate_all_five_card_hands(all_five):
    got = holdem.enumerate_counts_cuda(5)
    np.testing.assert_array_equal(got, np.bincount(all_five[2], minlength=R.NUM_STRENGTHS))


def test_enumerate_all_seven_card_hands():
    got = holdem.enumerate_counts_cuda(7)
    assert got.sum() == comb(52, 7)
    assert np.count_nonzero(got) == R.SEVEN_CARD_DISTINCT
    assert got[7462] == R.SEVEN_CARD_ROYALS
    assert R.categories_from_histogram(got) == R.SEVEN_CARD_CATEGORY_COUNTS


@pytest.mark.parametrize("k", [6, 8, 9])
def test_enumerate_slices(k):
    total = comb(52, k)
    for start, stop in [(0, 1_000_000), (total - 777_777, total), (total // 3, total // 3 + 5)]:
        ref = np.bincount(bitmask.evaluate_masks(R.slice_masks(k, start, stop)),
                          minlength=R.NUM_STRENGTHS)
        np.testing.assert_array_equal(holdem.enumerate_counts_cuda(k, start, stop), ref)


def test_enumerate_all_nine_card_hands_sums():
    """C(52, 9) > 2^31: several launches, 64-bit indices; every hand counted once."""
    got = holdem.enumerate_counts_cuda(9)
    assert got.sum() == comb(52, 9)
    assert got[0] == 0


@pytest.mark.parametrize("invalid", ["raise", "mask"])
@pytest.mark.parametrize("device", [True, False], ids=["cupy", "numpy"])
@pytest.mark.parametrize("case", list(R.bad_batches()))
def test_evaluate_backend_cuda_matches_numpy(cp, case, device, invalid):
    """gpu_eval.evaluate(backend="cuda"): same strengths or the same error as NumPy."""
    import gpu_eval as ge

    hands, kw = R.bad_batches()[case]
    try:
        want = ge.evaluate(hands, backend="numpy", invalid=invalid, **kw)
    except (ValueError, TypeError) as exc:
        with pytest.raises(type(exc)) as got:
            ge.evaluate(cp.asarray(hands) if device else hands, backend="cuda",
                        invalid=invalid, **kw)
        assert str(got.value) == str(exc)
        return
    got = ge.evaluate(cp.asarray(hands) if device else hands, backend="cuda", invalid=invalid,
                      **kw)
    assert isinstance(got, cp.ndarray) == device
    np.testing.assert_array_equal(cp.asnumpy(got) if device else got, want)
