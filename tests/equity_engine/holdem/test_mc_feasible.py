"""Monte Carlo on ranges that cannot be dealt together: the host rejects them before any
launch (gpu_eval.equity_engine.deal_check.can_deal, checked against brute force), and the sampling kernel
stops early through its device flag when a sample fails (run on the CPU, tests/emulation/kernel_build.py).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from gpu_eval import cards
from gpu_eval.equity_engine import enumerate_boards as eb
from gpu_eval.equity_engine.deal_check import can_deal
from gpu_eval.equity_engine.holdem import cuda_engine as ce


def _brute(holes, cum, dealt, deck_cards, k) -> bool:
    ranged = [np.asarray(h).reshape(-1)[np.diff(c, prepend=0.0) > 0]
              for h, c, d in zip(holes, cum, dealt) if c is not None and not d]
    if deck_cards - 2 * len(ranged) < 2 * sum(dealt) + k:
        return False
    for pick in itertools.product(*ranged):
        acc = 0
        for m in pick:
            if acc & int(m):
                break
            acc |= int(m)
        else:
            return True
    return False


def test_can_deal_agrees_with_brute_force():
    rng = np.random.default_rng(4)
    small = cards.to_mask(["AsAh", "AsKs", "AhKh", "KsKh", "AdKd", "QsQh", "AsQs", "KhQh"])
    for _ in range(300):
        n = int(rng.integers(2, 5))
        holes, cum = [], []
        for _p in range(n):
            m = rng.choice(small, size=int(rng.integers(1, 4)), replace=False)
            w = rng.choice([0.0, 1.0, 0.5], size=len(m))
            holes.append(m)
            cum.append(np.cumsum(w))
        dealt = [False] * n
        deck_cards = int(rng.integers(2 * n + 3, 2 * n + 8))
        assert can_deal(holes, cum, dealt, deck_cards, 5) == _brute(holes, cum, dealt,
                                                                     deck_cards, 5)


def test_can_deal_cases():
    aa = cards.to_mask(["AcAd", "AcAh", "AcAs", "AdAh", "AdAs", "AhAs"])
    w6 = np.arange(1.0, 7.0)
    assert can_deal([aa] * 3, [w6] * 3, [False] * 3, 52, 5) is False
    assert can_deal([aa] * 2, [w6] * 2, [False] * 2, 52, 5) is True
    # Known hands and dealt players are not searched; a dealt player needs two more cards.
    assert can_deal([aa[:1], aa, aa], [None, w6, w6], [False, False, True], 50, 5) is True
    assert can_deal([aa, aa], [w6, w6], [False, True], 8, 5) is False
    assert can_deal([aa, aa], [w6, w6], [False, True], 9, 5) is True
    # Weight 0 combos are never drawn.
    assert can_deal([aa[:2], aa[:2]], [np.array([1.0, 1.0]), w6[:2]], [False] * 2, 52, 5) \
        is False
    # Out of budget: unknown.
    every = np.array([1 << (16 * (i % 4) + i // 4) | 1 << (16 * ((i + 1) % 4) + (i + 1) // 4)
                      for i in range(40)], dtype=np.uint64)
    assert can_deal([every] * 10, [np.arange(1.0, 41.0)] * 10, [False] * 10, 52, 5,
                    budget=3) is None


@pytest.fixture
def host(kernel_host):
    return kernel_host


def _launch_sample(host, holes, cum, deck_mask, n_samples, max_tries, grid=(3,), block=(64,)):
    combos, offsets, cw = ce._pack(holes, cum)
    modes = ce.player_modes(cum, None)
    deck = eb.deck_values(deck_mask)
    totals = np.zeros(4 * len(holes), dtype=np.uint64)
    failures = np.zeros(1, dtype=np.uint64)
    host.launch(f"ge_eq_sample_{len(holes)}", grid, block,
                (combos, offsets, cw, modes, deck, np.uint32(len(deck)), np.uint64(0),
                 np.int32(5), np.uint32(1), np.uint32(2), np.uint64(0), np.uint64(n_samples),
                 np.uint32(max_tries), totals, failures))
    return totals.reshape(4, -1), int(failures[0])


def test_sampling_kernel_stops_early_on_the_device_flag(host):
    """Ranges that never fit (the host check is bypassed here): without the flag every one of
    the 3,000 samples would redraw 2^20 times; with it the first failure stops the others at
    their next check, and nothing is counted after it."""
    holes = [cards.to_mask(["AsKs", "AhKh"]), cards.to_mask(["KsAh", "KhAs"])]  # all clash
    cum = [np.array([1.0, 2.0]), np.array([1.0, 2.0])]
    assert can_deal(holes, cum, [False, False], 48, 5) is False
    deck = eb.FULL_DECK & ~int(cards.to_mask("AsAhKsKh"))
    totals, failures = _launch_sample(host, holes, cum, deck, 3_000, 1 << 20)
    assert 1 <= failures < 3_000 // 10  # a few threads fail; the others stop on the flag
    assert totals.sum() == 0  # no sample was ever dealt
    # Possible ranges: the flag stays down and every sample counts.
    ok = [cards.to_mask(["AsKs", "AhKh"]), cards.to_mask(["QsQh", "QdQc"])]
    deck = eb.FULL_DECK & ~int(cards.to_mask("AsAhKsKhQsQhQdQc"))
    totals, failures = _launch_sample(host, ok, cum, deck, 3_000, 1 << 20)
    assert failures == 0
    assert totals[2].sum() == 3_000 * 2  # pot units: lcm(1, 2) = 2 per sample
