"""equity() of two ranges on the turn or river (gpu_eval.equity_engine.holdem.shortcuts.two_ranges) equals the
general path, and per matchup equals the evaluator."""

import numpy as np
import pytest

from gpu_eval import cards
from gpu_eval.equity_engine.api import equity
from gpu_eval.equity_engine.holdem.shortcuts import two_ranges
from gpu_eval.evaluator.bitmask import evaluate_masks
from gpu_eval.ranges import Range

_CLASSES = [a + b + s for i, a in enumerate("AKQJT98765432") for b in "AKQJT98765432"[i + 1:]
            for s in "so"] + [r + r for r in "AKQJT98765432"]


def _text(ids):
    return "".join(cards.RANKS[c // 4] + cards.SUITS[c % 4] for c in ids)


def _random_range(rng) -> str:
    """A few hand classes, some weighted (dyadic weights: exact sums in any order), and a
    few single combos."""
    parts = []
    for cls in rng.choice(_CLASSES, size=int(rng.integers(1, 12)), replace=False):
        w = rng.choice([1.0, 1.0, 0.5, 0.25, 0.75])
        parts.append(str(cls) if w == 1.0 else f"{w}({cls})")
    for _ in range(int(rng.integers(0, 4))):
        parts.append(_text(rng.choice(52, size=2, replace=False)))
    return ",".join(parts)


def _spots(seed: int, n_board: int, n: int):
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        if rng.random() < 0.4:  # a suit-heavy board: flushes decide many rivers
            suit = int(rng.integers(4))
            same = rng.choice(13, size=n_board + 2, replace=False) * 4 + suit
            deal = np.concatenate([same, rng.permutation(np.setdiff1d(np.arange(52), same))])
        else:
            deal = rng.permutation(52)
        board, dead = _text(deal[:n_board]), _text(deal[n_board:n_board + int(rng.integers(3))])
        players = [_random_range(rng), _random_range(rng)]
        if two_ranges.counts(players, board, dead) is not None:
            out.append((players, board, dead))
    return out


@pytest.mark.parametrize("n_board,seed", [(4, 1), (4, 2), (5, 3), (5, 4)])
def test_range_spot_equals_general(monkeypatch, n_board, seed):
    spots = _spots(seed, n_board, 6)
    fast = [equity(p, board=b, dead=d, exact=True) for p, b, d in spots]
    monkeypatch.setattr(two_ranges, "counts", lambda *a: None)  # the general path
    for (p, b, d), f in zip(spots, fast):
        ref = equity(p, board=b, dead=d, exact=True)
        assert f.method == ref.method and f.board == ref.board and f.dead == ref.dead
        assert f.labels == ref.labels and f.boards == ref.boards and f.matchups == ref.matchups
        np.testing.assert_array_equal(f.wins, ref.wins)
        np.testing.assert_array_equal(f.ties, ref.ties)
        # tie_share is the weighted units over scale * total: the units agree.
        np.testing.assert_allclose(f.tie_share, ref.tie_share, rtol=0, atol=1e-12)
        np.testing.assert_allclose(f.equity, ref.equity, rtol=0, atol=1e-12)
        np.testing.assert_allclose(f.win, ref.win, rtol=0, atol=1e-12)


@pytest.mark.parametrize("n_board", [4, 5])
def test_range_spot_matchups_equal_the_evaluator(n_board):
    # Every matchup's counts against evaluate_masks on every remaining board, flush board.
    (players, board, dead), = _spots(10 + n_board, n_board, 1)
    wins, ties, units, valid, scale, w, per, labels, b, d = two_ranges.counts(players, board,
                                                                              dead)
    bm = int(cards.to_mask(board))
    known = bm | (int(cards.to_mask(dead)) if dead else 0)
    ra = Range(players[0]).without(np.uint64(known), allow_empty=True)
    rb = Range(players[1]).without(np.uint64(known), allow_empty=True)
    rows, cols = np.nonzero((ra.masks[:, None] & rb.masks[None, :]) == 0)
    np.testing.assert_array_equal(w, ra.weights[rows] * rb.weights[cols])
    rivers = [1 << (16 * (c % 4) + c // 4) for c in range(52)] if n_board == 4 else [0]
    for m, (i, j) in enumerate(zip(rows, cols)):
        ma, mb = int(ra.masks[i]), int(rb.masks[j])
        rs = np.array([r for r in rivers if not r & (known | ma | mb)], dtype=np.uint64)
        sa = evaluate_masks(np.uint64(ma | bm) | rs)
        sb = evaluate_masks(np.uint64(mb | bm) | rs)
        assert valid[m] == per == len(rs)
        assert wins[m].tolist() == [int((sa > sb).sum()), int((sa < sb).sum())]
        assert ties[m].tolist() == [int((sa == sb).sum())] * 2
        assert units[m].tolist() == ties[m].tolist()
    assert scale == 2


def test_range_spot_declines():
    board = "2c7d9hKs"
    assert two_ranges.counts(["AhKh", "QQ+"], board, "") is None        # a known hand
    assert two_ranges.counts(["AA", "QQ+"], "2c7d9h", "") is None        # the flop
    assert two_ranges.counts(["AA", "QQ+", "KK"], board, "") is None     # three players
    assert two_ranges.counts(["AA", "QQ+"], board, "2c") is None         # 2c on the board too
    assert two_ranges.counts(["AA", "QX+"], board, "") is None           # bad text
    with pytest.raises(ValueError, match="player 2"):                    # named by the general path
        equity(["AA", "QX+"], board=board, exact=True)
    with pytest.raises(ValueError, match="both on the board"):
        equity(["AA", "QQ+"], board=board, dead="2c", exact=True)


def test_range_spot_only_for_exact_numpy_work():
    p, board = ["QQ+,AKs", "22+,A2s+,KTs+"], "2c7d9hKs"
    r = equity(p, board=board, exact=False, samples=1000, seed=1)
    assert r.method.startswith("monte carlo")
    r = equity(p, board=board)
    assert r.method == "exact: 1,839 matchups x 44 boards" and r.wins.tolist() == [65496, 14628]


def test_trips_on_the_turn_and_a_fourth_of_its_rank(monkeypatch):
    # A river that is one of a combo's cards made a fifth ace (a rank key past the end of the
    # flush-free table): the shortcut raised IndexError, even where it then declined (a hand
    # against "random"). Now it answers, with the general path's counts.
    board = "AsAdAhJd"
    spots = [["QQ,Td4c", "AcKs,AcQh,77"], ["Td4c", "random"]]
    assert two_ranges.counts(spots[0], board, "") is not None
    got = [equity(p, board=board, exact=True) for p in spots]
    monkeypatch.setattr(two_ranges, "counts", lambda *a, **k: None)
    for p, g in zip(spots, got):
        w = equity(p, board=board, exact=True)
        assert g.wins.tolist() == w.wins.tolist() and g.ties.tolist() == w.ties.tolist()
