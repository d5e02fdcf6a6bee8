"""Exhaustive checks: every 5-card and every 7-card hold'em hand, both algorithms."""

from math import comb

import numpy as np
import pytest

import gpu_eval as ge
from gpu_eval import combinatorics
from gpu_eval.evaluator import phash

import kernel_refs
import reference

FIVE_CARD_CATEGORY_COUNTS = [1302540, 1098240, 123552, 54912, 10200, 5108, 3744, 624, 40]
SEVEN_CARD_CATEGORY_COUNTS = [23294460, 58627800, 31433400, 6461620, 6180020, 4047644,
                              3473184, 224848, 41584]


@pytest.fixture(scope="module")
def all_five():
    ids = combinatorics.unrank(np.arange(comb(52, 5)), 5)
    masks = combinatorics.subset_masks(52, 5)
    return ids, masks


@pytest.fixture(scope="module")
def reference_five(all_five):
    """The slow reference's key of every five-card hand, and its dense rank (once for both
    algorithms)."""
    key = reference.key5(all_five[0])
    uniq, dense = np.unique(key, return_inverse=True)
    return key, uniq, dense


def test_five_card_masks_and_ids_agree(all_five):
    ids, masks = all_five
    assert (ge.cards.to_mask(ids) == masks).all()


@pytest.mark.parametrize("algorithm", ["bitmask", "perfect-hash"])
def test_all_five_card_hands_match_reference(all_five, reference_five, algorithm):
    ids, masks = all_five
    strength = ge.evaluate(ids, backend="numpy", algorithm=algorithm)
    assert strength.dtype == np.uint16
    assert np.unique(strength).size == 7462
    cats = ge.category(strength)
    assert np.bincount(cats, minlength=9).tolist() == FIVE_CARD_CATEGORY_COUNTS
    # Same order and the same ties as the reference: strength is the dense rank of its key.
    key, uniq, dense = reference_five
    assert len(uniq) == 7462
    assert (strength == dense + 1).all()
    assert (cats == reference.category_of_key(key)).all()
    assert (ge.evaluate(masks, backend="numpy", algorithm=algorithm) == strength).all()


def test_all_seven_card_hands_both_algorithms(seven_card_run_dir):
    """Perfect-hash equals bitmask on all 133,784,560 seven-card hands (the bitmask strengths
    are the session's shared ones, ``kernel_refs.seven_card_strengths``), so one histogram,
    bitmask's, is both algorithms'."""
    disagree = 0
    strengths = kernel_refs.seven_card_strengths(seven_card_run_dir)
    for _, masks, a in kernel_refs.seven_card_groups(strengths):
        disagree += int((phash.evaluate_masks(masks) != a).sum())
    assert disagree == 0, "the two algorithms must agree on every 7-card hand"
    h = kernel_refs.numpy_seven_card_histogram(seven_card_run_dir)
    assert h.sum() == comb(52, 7)
    assert h[0] == 0
    assert (h > 0).sum() == 4824
    cats = ge.category(np.arange(1, 7463))
    assert np.bincount(cats, weights=h[1:], minlength=9).astype(int).tolist() == \
        SEVEN_CARD_CATEGORY_COUNTS
    assert h[7462] == 4324  # royal flushes
