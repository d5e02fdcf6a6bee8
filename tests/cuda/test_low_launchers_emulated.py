"""The low launchers on the stand-in CuPy (tests/emulation/fake_cupy.py): the 8-or-better lows
of ``evaluate_low`` (gpu_eval/cuda/games_module.py, ``ge_games_low``) and the 2-7, A-5 and
badugi evaluator of CuPy input (gpu_eval/cuda/lowball.py), against the NumPy path.
"""

from __future__ import annotations

import numpy as np
import pytest

import gpu_eval as ge
from gpu_eval import cards


@pytest.fixture
def games_cupy(stand_in_cuda_games):
    return stand_in_cuda_games


BOARDS = ["2c 5d 4h", "2c 5d 4h Qs Js", "7s 8s 9c Td"]


def test_one_hole_many_boards_broadcasts(games_cupy):
    """One hand against three boards gives three lows, as NumPy does (the device sized its
    output by the hole rows alone and returned one)."""
    want = ge.evaluate_low("Ah2d3cKs", BOARDS, backend="numpy")
    assert want.shape == (3,)
    got = ge.evaluate_low("Ah2d3cKs", BOARDS, backend="cuda")
    assert got.shape == (3,)
    np.testing.assert_array_equal(got, want)
    cp = games_cupy
    on_device = ge.evaluate_low(cp.asarray(cards.to_mask(["Ah2d3cKs"])),
                                cp.asarray(cards.to_mask(BOARDS)))
    assert isinstance(on_device, cp.ndarray) and on_device.shape == (3,)
    np.testing.assert_array_equal(on_device.get(), want)


def test_many_holes_one_board_broadcasts(games_cupy):
    holes = ["Ah2d3cKs", "7h8d9cTc", "AsKh6d3h"]
    want = ge.evaluate_low(holes, "2c 5d 4h Qs Js", backend="numpy")
    got = ge.evaluate_low(holes, "2c 5d 4h Qs Js", backend="cuda")
    assert got.shape == want.shape == (3,)
    np.testing.assert_array_equal(got, want)
    one = ge.evaluate_low("Ah2d3cKs", "2c 5d 4h Qs Js", backend="cuda")
    assert np.shape(one) == () and int(one) == int(ge.evaluate_low("Ah2d3cKs",
                                                                   "2c 5d 4h Qs Js"))
