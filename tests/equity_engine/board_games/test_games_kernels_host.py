"""kernels/equity_games.cu, compiled as host C++, against gpu_eval.equity_engine.board_games.numpy_engine
(NumPy).

The exact counts of every matchup (wins, ties, tie units, valid boards, and the high and low
pot units of hi/lo) must be the same integers as the NumPy engine's, on random spots of every
game: heads-up and multiway, known hands and ranges, flop, turn and river; and the strength
and low arrays themselves must match the NumPy evaluators.
"""

from __future__ import annotations

import numpy as np
import pytest
from equity_jobs import job_of

from gpu_eval import cards
from gpu_eval.equity_engine import board_orbits
from gpu_eval.equity_engine.board_games import numpy_engine as EG
from gpu_eval.games import registry

from emulation import hostbuild

HOLE = {g: registry.get(g).hole_cards for g in EG.GAMES}


@pytest.fixture(scope="module")
def kern():
    try:
        from emulation import games_host

        return games_host.load()
    except hostbuild.HostBuildUnavailableError as exc:
        pytest.skip(f"cannot build the kernels for the CPU: {exc}")


def _spot(rng, game, n, board_size):
    low = 16 if game.startswith("shortdeck") else 0
    h = HOLE[game]
    ids = rng.choice(np.arange(low, 52), size=h * n + board_size, replace=False)
    hands = [cards.format(ids[i * h:(i + 1) * h].astype(np.uint8)) for i in range(n)]
    board = cards.format(ids[h * n:].astype(np.uint8)) if board_size else ""
    return hands, board


def _check(kern, job):
    comp_ids, comp_masks = board_orbits.completions(job.deck_mask, job.k)
    known = np.array(job.board, dtype=np.uint8)
    boards = np.concatenate([np.broadcast_to(known, (len(comp_ids), len(known))), comp_ids],
                            axis=1)
    hilo = job.game in EG.HILO_GAMES
    variant = EG.SHORTDECK_GAMES.index(job.game) if job.game in EG.SHORTDECK_GAMES else 0
    S, L = kern.strengths(job.pool_ids, boards, variant, hilo)
    # Strengths and lows, cell by cell, against the NumPy evaluators.
    b_masks = comp_masks | np.uint64(job.board_mask)
    for p in range(len(job.pool)):
        hi = EG._high(job.game, np.broadcast_to(job.pool_ids[p], (len(boards), HOLE[job.game])),
                      np.broadcast_to(job.pool[p], (len(boards),)), boards, b_masks)
        np.testing.assert_array_equal(S[:, p], hi)
        if hilo:
            lo = EG._low(np.broadcast_to(job.pool[p], (len(boards),)), b_masks)
            np.testing.assert_array_equal(L[:, p], np.where(hi == 0, 0, lo))
    want = EG._tally(job, comp_ids, comp_masks)
    got = kern.showdown(S, L, job.pool_idx, job.scale)
    for name, a, b in zip(("wins", "ties", "units", "valid", "high", "low"), want, got):
        np.testing.assert_array_equal(a, b.astype(np.int64), err_msg=name)


@pytest.mark.parametrize("game", EG.GAMES)
@pytest.mark.parametrize("n, board_size", [(2, 3), (3, 4), (4, 5), (2, 5)])
def test_kernel_counts_equal_numpy(kern, game, n, board_size):
    rng = np.random.default_rng(abs(hash((game, n, board_size))) % 2**32)
    for _ in range(2):
        hands, board = _spot(rng, game, n, board_size)
        job = job_of(hands, board=board, game=game, exact=True)
        assert isinstance(job, EG.ExactJob)
        _check(kern, job)


@pytest.mark.parametrize("game, players, board", [
    ("omaha", ["AsAhKdQc", "KK$ds"], "Kc7d2s"),
    ("omaha-hilo", ["AsAh2d3c", "KsKhQd4c", "A2$ds"], "7h8h9c5d"),
    ("omaha5", ["AsAhKdQcJc", "KK$ss"], "Kc7d2s9h"),
    ("shortdeck-triton", ["AhAd", "KK,QQ,AKs"], "Tc7d6s"),
])
def test_kernel_counts_equal_numpy_with_ranges(kern, game, players, board):
    job = job_of(players, board=board, game=game, exact=True)
    assert len(job.weights) > 1
    _check(kern, job)


def _sampler_args(ranges: list[list[str]]):
    """Each player's range of Omaha hands packed as the launcher packs them (equal weights),
    and the deck of the cards no range holds."""
    from gpu_eval.equity_engine.holdem import cuda_engine as CE

    holes = [cards.to_mask(r) for r in ranges]
    cums = [np.arange(1.0, len(m) + 1.0) for m in holes]
    combos, offsets, cum = CE._pack(holes, cums)
    deck = cards.ID_TO_MASK[np.arange(52)]
    return holes, cums, combos, offsets, cum, CE.player_modes(cums, None), deck


def test_sampler_stops_on_the_device_flag(kern):
    """Three players who each need two of the four aces: no sample can be dealt (the host
    check is bypassed here). Without a flag every one of the 3,000 samples redraws max_tries
    times; with it the first failure stops the others at their next check, and nothing is
    counted."""
    from gpu_eval.equity_engine.deal_check import can_deal

    aces = [["AsAhKdQc", "AdAcKhQh"], ["AsAdKsQs", "AhAcKcQd"], ["AsAcJcTc", "AhAdJdTd"]]
    holes, cums, combos, offsets, cum, modes, deck = _sampler_args(aces)
    assert can_deal(holes, cums, [False] * 3, len(deck), 5, hole_cards=4) is False
    totals, failures = kern.sample(3, combos, offsets, cum, modes, deck, 0, 5, 4, 0, False,
                                   6, (1, 2), 0, 3_000, 1 << 14)
    assert 1 <= failures < 3_000 // 10
    assert totals.sum() == 0
    # Ranges that fit: the flag stays down and every sample hands out its pot.
    holes, cums, combos, offsets, cum, modes, deck = _sampler_args([aces[0],
                                                                    ["KsKcQsQd", "JsJhTsTh"]])
    totals, failures = kern.sample(2, combos, offsets, cum, modes, deck, 0, 5, 4, 0, False,
                                   2, (1, 2), 0, 3_000, 1 << 14)
    assert failures == 0 and totals[2].sum() == 3_000 * 2
