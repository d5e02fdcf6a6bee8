"""win / tie / equity as poker-equity (PokerStove's meaning) computes them, in the same run.

poker-equity's ``exact_from_text`` walks every deal; ``tie`` there is the probability of a
split pot, exactly what ``EquityResult.tie`` is.
"""

from __future__ import annotations

import numpy as np
import pytest

import gpu_eval as ge

pe = pytest.importorskip("poker_equity", reason="poker-equity is not installed (it is in the "
                         "test extra: pip install -e '.[test]')")


@pytest.mark.parametrize("players, board", [
    (["AhKh", "QsQd"], ""),                                   # preflop, 1,712,304 boards
    (["AhKh", "QsQd", "7c7d"], "Kd 7h 2c"),                   # three-way
    (["2c3d", "4h5s", "6c7d"], "As Ks Qs Js"),                # splits among two or three
    (["AhAd", "KcKd", "QsJs", "7h6h"], "8h 5c 2h Kh"),        # four-way
    (["AhKh", "QQ+,AKs"], "Kd 7c 2h"),                        # a range
    (["AsKs", "AK, 22"], "Ts 9s 2d"),                          # a range, chopped aces
])
def test_win_tie_equity_match_poker_equity(players, board):
    ours = ge.equity(players, board=board, exact=True)
    theirs = pe.exact_from_text("holdem", players, board.replace(" ", ""), "")
    assert theirs is not None and theirs["exact"]
    for key, got in (("win", ours.win), ("tie", ours.tie), ("equity", ours.equity)):
        want = np.array([p[key] for p in theirs["players"]])
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12, err_msg=key)
