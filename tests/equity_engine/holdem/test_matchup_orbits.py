"""Matchups equal up to suits (gpu_eval.equity_engine.holdem.matchup_orbits): one played per orbit, same
counts."""

import numpy as np

from gpu_eval import cards
from gpu_eval.equity_engine import enumerate_boards
from gpu_eval.equity_engine.api import equity
from gpu_eval.equity_engine.holdem import matchup_orbits, numpy_engine


def test_orbit_counts_equal_every_matchup_played():
    pool = cards.to_mask(["AhKh", "AdKd", "AsKs", "AcKc", "QhQs", "QdQh", "QcQs", "7h6h",
                          "7s6s"])
    rows = [(a, b) for a in range(4) for b in range(4, 9)
            if int(pool[a]) & int(pool[b]) == 0]
    matchups = np.array(rows)
    dead = int(cards.to_mask("2c"))
    deck = enumerate_boards.FULL_DECK & ~dead
    reps, inv = matchup_orbits.orbits(pool, matchups, [0, dead])
    assert len(reps) < len(matchups)
    every = numpy_engine.preflop_counts(pool, matchups, deck)
    once = numpy_engine.preflop_counts(pool, matchups[reps], deck)
    np.testing.assert_array_equal(once.wins[inv], every.wins)
    np.testing.assert_array_equal(once.ties[inv], every.ties)


def test_members_are_images_of_their_representative():
    pool = cards.to_mask(["AhKh", "AdKd", "AsKs", "QcQd", "QhQs", "JcTc"])
    matchups = np.array([(a, b, c) for a in range(3) for b in (3, 4) for c in (5,)
                         if not (int(pool[a]) & int(pool[b]) & int(pool[c]))])
    dead = int(cards.to_mask("9s"))
    reps, inv = matchup_orbits.orbits(pool, matchups, [dead])
    group = matchup_orbits.stabilizer([dead])
    for m, r in zip(matchups, reps[inv]):
        images = {tuple(int(x) for x in matchup_orbits._permute(pool[matchups[r]], p))
                  for p in group}
        assert tuple(int(x) for x in pool[m]) in images


def test_dead_card_range_equity_by_orbits_equals_boards(monkeypatch):
    players = ["AKs,QQ", "JJ,T9s"]
    fast = equity(players, dead="2c", exact=True, progress=False)
    monkeypatch.setattr(numpy_engine, "PREFLOP_CLASS_WORK", 10**18)  # enumerate boards
    slow = equity(players, dead="2c", exact=True, progress=False)
    np.testing.assert_array_equal(fast.wins, slow.wins)
    np.testing.assert_array_equal(fast.ties, slow.ties)
    np.testing.assert_allclose(fast.equity, slow.equity, rtol=0, atol=1e-12)


def test_auto_enumerates_dead_card_ranges_by_orbits():
    """exact=None counts what the rank-class path costs once matchups are grouped by orbit:
    2,562 matchups with a dead 2c are a few hundred orbits, well within the exact limit."""
    r = equity(["QQ+,AKs", "22+,A2s+,KTs+"], dead="2c", progress=False)
    assert r.exact and r.method == "exact: 2,562 matchups x 1,533,939 boards"
