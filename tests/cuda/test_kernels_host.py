"""The kernels' device code, built as host C++, against the NumPy path (docs/architecture.md: testing, way 2).

emulation.hostbuild compiles kernels/*.cu with g++ through kernels/host_shim.h and runs the
kernels themselves on the CPU; every figure here must equal the NumPy evaluator's, which
shares the tables but not the code.
"""

from __future__ import annotations

from math import comb

import numpy as np
import pytest

from gpu_eval import combinatorics
from gpu_eval.evaluator import bitmask, phash

import kernel_refs as R
from emulation import hostbuild


@pytest.fixture(scope="module")
def host() -> hostbuild.HostKernels:
    try:
        return hostbuild.load()
    except hostbuild.HostBuildUnavailableError as exc:
        pytest.skip(f"cannot build the kernels for the CPU: {exc}")


@pytest.fixture(scope="module")
def all_five():
    masks = combinatorics.subset_masks(52, 5)
    ids = combinatorics.unrank(np.arange(len(masks)), 5)
    return masks, ids, bitmask.evaluate_masks(masks)


def test_all_five_card_hands(host, all_five):
    masks, ids, ref = all_five
    assert len(masks) == 2_598_960
    got = host.evaluate_masks(masks)
    assert got.dtype == np.uint16
    np.testing.assert_array_equal(got, ref)
    np.testing.assert_array_equal(host.evaluate_ids(ids), ref)
    # Card order within a row must not matter.
    np.testing.assert_array_equal(host.evaluate_ids(ids[:, ::-1]), ref)
    np.testing.assert_array_equal(host.evaluate_deadhorse(R.ids_to_deadhorse(ids)), ref)
    assert np.unique(got).size == 7462
    hist = np.bincount(got, minlength=R.NUM_STRENGTHS)
    assert R.categories_from_histogram(hist) == R.FIVE_CARD_CATEGORY_COUNTS


@pytest.mark.parametrize("k", [5, 6, 7])
def test_card_encodings_give_the_same_masks(host, k):
    """Every card, in every position, becomes the bit the NumPy side gives it."""
    ids = R.random_hands(np.random.default_rng(20 + k), 20_000, k)
    ids[:52, 0] = np.arange(52)  # each card at least once
    ids[:52, 1:] = (ids[:52, :1] + np.arange(1, k) * 4 + 1) % 52
    ref = R.ids_to_masks(ids)
    dh = R.ids_to_deadhorse(ids)
    np.testing.assert_array_equal(host.eval_kernel_masks(ids, "ids"), ref)
    np.testing.assert_array_equal(host.eval_kernel_masks(dh, "deadhorse"), ref)
    for masks, counts in (host.ids_to_masks(ids), host.deadhorse_to_masks(dh)):
        np.testing.assert_array_equal(masks, ref)
        np.testing.assert_array_equal(counts, np.full(len(ids), k))
    np.testing.assert_array_equal(host.mask_counts(ref | np.uint64(0xE000)), counts)


def test_conversion_counts_reveal_repeated_cards(host):
    ids = np.array([[0, 1, 2, 3, 4], [0, 0, 2, 3, 4], [51, 51, 51, 51, 51]], dtype=np.uint8)
    masks, counts = host.ids_to_masks(ids)
    assert counts.tolist() == [5, 4, 1]
    _, counts = host.deadhorse_to_masks(R.ids_to_deadhorse(ids))
    assert counts.tolist() == [5, 4, 1]
    masks, counts = host.ids_to_masks(np.zeros((2, 12), np.uint8) + np.arange(12, dtype=np.uint8))
    assert counts.tolist() == [12, 12]


def test_five_card_enumeration(host, all_five):
    ref = np.bincount(all_five[2], minlength=R.NUM_STRENGTHS)
    np.testing.assert_array_equal(host.enumerate_counts(5), ref)
    # Odd run lengths and grids: every index is still counted exactly once.
    np.testing.assert_array_equal(host.enumerate_counts(5, run=1, blocks=3), ref)
    np.testing.assert_array_equal(host.enumerate_counts(5, run=1000, blocks=7), ref)


def test_all_seven_card_hands_enumerated(host, seven_card_run_dir):
    got = host.enumerate_counts(7)
    assert got.sum() == comb(52, 7)
    assert np.count_nonzero(got) == R.SEVEN_CARD_DISTINCT
    assert got[7462] == R.SEVEN_CARD_ROYALS
    assert R.categories_from_histogram(got) == R.SEVEN_CARD_CATEGORY_COUNTS
    np.testing.assert_array_equal(got, R.numpy_seven_card_histogram(seven_card_run_dir))


@pytest.mark.parametrize("k", [5, 6, 7, 8, 9])
def test_unranking_and_colex_successor_match_numpy(host, k):
    """The device unrank and the incremental successor walk the subsets NumPy numbers."""
    total = comb(52, k)
    rng = np.random.default_rng(k)
    starts = [0, total - 3000, *rng.integers(0, total - 3000, size=3).tolist()]
    for start in starts:
        stop = start + 3000
        ref = R.slice_masks(k, start, stop)
        np.testing.assert_array_equal(host.unrank_masks(k, start, stop), ref)
        np.testing.assert_array_equal(host.walk_masks(k, start, stop), ref)


@pytest.mark.parametrize("k", [6, 8, 9])
def test_enumeration_slices_match_numpy(host, k):
    total = comb(52, k)
    rng = np.random.default_rng(100 + k)
    for start, stop in [(0, 50_000), (total - 40_000, total),
                        *[(s, s + int(rng.integers(1, 60_000)))
                          for s in rng.integers(0, total - 60_000, size=2).tolist()]]:
        ref = np.bincount(bitmask.evaluate_masks(R.slice_masks(k, start, stop)),
                          minlength=R.NUM_STRENGTHS)
        np.testing.assert_array_equal(host.enumerate_counts(k, start, stop, run=97), ref)
        np.testing.assert_array_equal(host.enumerate_counts_unrank_each(k, start, stop), ref)


@pytest.mark.parametrize("k", [6, 7, 8, 9])
def test_random_hands(host, k):
    ids = R.random_hands(np.random.default_rng(k), 200_000, k)
    masks = R.ids_to_masks(ids)
    ref = bitmask.evaluate_masks(masks)
    np.testing.assert_array_equal(host.evaluate_masks(masks), ref)
    np.testing.assert_array_equal(host.evaluate_ids(ids), ref)
    np.testing.assert_array_equal(host.evaluate_deadhorse(R.ids_to_deadhorse(ids)), ref)


def test_perfect_hash_all_five_card_hands(host, all_five):
    masks, ids, ref = all_five
    np.testing.assert_array_equal(host.evaluate_masks(masks, "perfect-hash"), ref)
    np.testing.assert_array_equal(host.evaluate_ids(ids, "perfect-hash"), ref)
    np.testing.assert_array_equal(
        host.evaluate_deadhorse(R.ids_to_deadhorse(ids), "perfect-hash"), ref)


@pytest.mark.parametrize("k", [6, 7, 8, 9])
def test_perfect_hash_random_hands(host, k):
    ids = R.random_hands(np.random.default_rng(50 + k), 200_000, k)
    masks = R.ids_to_masks(ids)
    ref = phash.evaluate_masks(masks)
    np.testing.assert_array_equal(ref, bitmask.evaluate_masks(masks))
    np.testing.assert_array_equal(host.evaluate_masks(masks, "perfect-hash"), ref)
    np.testing.assert_array_equal(host.evaluate_ids(ids, "perfect-hash"), ref)


def test_empty_and_single_inputs(host):
    assert host.evaluate_masks(np.zeros(0, np.uint64)).shape == (0,)
    assert host.evaluate_ids(np.zeros((0, 7), np.uint8)).shape == (0,)
    royal = np.array([[48, 44, 40, 36, 32]], dtype=np.uint8)  # Ac Kc Qc Jc Tc
    assert host.evaluate_ids(royal).tolist() == [7462]
    assert host.enumerate_counts(7, 5, 5).sum() == 0
