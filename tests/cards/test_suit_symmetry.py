"""gpu_eval.suit_symmetry.keeping_range against the definition, done the slow way: a suit
permutation keeps a weighted range when every combo goes to a combo of the range with the
same weight."""

from __future__ import annotations

import numpy as np
import pytest

from gpu_eval import cards
from gpu_eval.suit_symmetry import SUIT_PERMS, keeping_range, permute_suits, stabilizer


def slow_keeping(group, masks, weights):
    held = {int(m): float(w) for m, w in zip(masks, weights)}
    return tuple(p for p in group
                 if all(held.get(int(permute_suits(np.uint64(m), p)), None) == w
                        for m, w in held.items()))


def _ranges(rng):
    """Whole classes (symmetric in every suit), classes with one suit removed, weighted
    classes, a class with one combo reweighted, random sets, Omaha-sized random hands."""
    classes = ["AKs", "QQ", "AKo", "JTs, 98s", "KK, AQo", "random"]
    for text in classes:
        r = cards.to_mask([cards.format(c) for c in _combos(text)])
        yield text, r, np.ones(len(r))
        w = rng.choice([0.25, 0.5, 1.0], len(r))
        yield text + " weighted", r, w
        yield text + " less one", r[1:], np.ones(len(r) - 1)
        w1 = np.ones(len(r))
        w1[0] = 0.5
        yield text + " one reweighted", r, w1
    for n in (1, 5, 40):
        ids = np.argsort(rng.random((n, 52)), axis=1)[:, :2].astype(np.uint8)
        r = np.unique(cards.to_mask(ids))
        yield f"random {n}", r, np.ones(len(r))
    ids = np.argsort(rng.random((3000, 52)), axis=1)[:, :4].astype(np.uint8)
    r = np.unique(cards.to_mask(ids))
    yield "omaha random", r, np.ones(len(r))
    # The image of a range under a permutation, joined to it: symmetric under that one.
    p = SUIT_PERMS[7]
    both = np.unique(np.concatenate([r[:500], permute_suits(r[:500], p)]))
    yield "omaha closed under one permutation", both, np.ones(len(both))


def _combos(text):
    from gpu_eval.ranges import Range

    return Range(text).combos


@pytest.mark.parametrize("group_of", ["every permutation", "a board's"])
def test_keeping_range_is_the_definition(group_of):
    rng = np.random.default_rng(4)
    board = [] if group_of == "every permutation" else [int(cards.to_mask("Kd7c2d"))]
    group = stabilizer(board)
    seen = set()
    for name, masks, weights in _ranges(rng):
        got = keeping_range(group, masks, weights)
        assert got == slow_keeping(group, masks, weights), name
        seen.add(len(got))
    # Ranges kept by the identity alone, by the whole group and (of 24) by some between.
    assert {1, len(group)} <= seen and (len(group) < 24 or len(seen) >= 3)
