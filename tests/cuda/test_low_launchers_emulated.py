"""The low launchers on the stand-in CuPy (tests/emulation/fake_cupy/): the 8-or-better lows
of ``evaluate_low`` (gpu_eval/cuda/games_module.py, ``ge_games_low``) and the 2-7, A-5 and
badugi evaluator of CuPy input (gpu_eval/cuda/lowball.py), against the NumPy path.
"""

from __future__ import annotations

import numpy as np
import pytest

import gpu_eval as ge
from gpu_eval import cards


@pytest.fixture
def games_cupy(stand_in_cupy):
    return stand_in_cupy


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


@pytest.fixture
def low_cupy(stand_in_cupy, monkeypatch):
    from gpu_eval.cuda import lowball as cuda_lows

    monkeypatch.setattr(cuda_lows, "_STATES", {})
    return stand_in_cupy


def _deals(k: int, n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.argsort(rng.random((n, 52)), axis=1)[:, :k].astype(np.uint8)


@pytest.mark.parametrize("game, k", [("deuce-seven", 5), ("ace-five", 6), ("ace-five", 7),
                                     ("badugi", 4)])
def test_low_games_check_and_evaluate_in_one_launch(low_cupy, game, k):
    """CuPy ids and masks of 2-7, A-5 and badugi: one fused check-and-evaluate launch and at
    most one read back (the first bad rows), as hold'em; it took about 11 launches and 2 host
    syncs step by step."""
    cp = low_cupy
    ids = _deals(k, 600, k)
    want = ge.evaluate(ids, game=game, backend="numpy")
    for name, arr in (("ids", cp.asarray(ids)), ("masks", cp.asarray(cards.to_mask(ids)))):
        cp.launches.clear()
        syncs = cp.cuda.Stream.null.synchronized
        got = ge.evaluate(arr, game=game, backend="cuda")
        assert isinstance(got, cp.ndarray)
        np.testing.assert_array_equal(got.get(), want)
        assert [n for n, _, _ in cp.launches] == [f"ge_low_check_eval_{name}"]
        assert cp.cuda.Stream.null.synchronized - syncs <= 2  # the error check, and our .get()
    assert not cp.races


@pytest.mark.parametrize("game, bad", [
    ("deuce-seven", [[0, 4, 8, 12, 12]]),        # a card twice
    ("deuce-seven", [[0, 4, 8, 12, 60]]),        # an id out of range
    ("ace-five", [[0, 4, 8, 12, 16, 20, 24, 28]]),  # eight cards: no room for them in A-5's 5-7
    ("badugi", [[0, 5, 10, 15], [0, 5, 10, 10]]),
])
def test_fused_lows_name_the_bad_row_as_numpy_does(low_cupy, game, bad):
    cp = low_cupy
    rows = np.array(bad, dtype=np.uint8)
    with pytest.raises(ValueError) as numpy_error:
        ge.evaluate(rows, game=game, backend="numpy")
    with pytest.raises(ValueError) as device_error:
        ge.evaluate(cp.asarray(rows), game=game, backend="cuda")
    assert str(device_error.value) == str(numpy_error.value)
    masked = ge.evaluate(cp.asarray(rows), game=game, backend="cuda", invalid="mask").get()
    np.testing.assert_array_equal(masked, ge.evaluate(rows, game=game, backend="numpy",
                                                      invalid="mask"))
