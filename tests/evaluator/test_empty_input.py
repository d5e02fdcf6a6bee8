"""No hands in, no strengths out: an empty ``uint16`` array (not a dtype error)."""

from __future__ import annotations

import numpy as np
import pytest

import gpu_eval as ge


@pytest.mark.parametrize("kw, game", [
    ({}, None), ({"algorithm": "perfect-hash"}, None), ({"invalid": "mask"}, None),
    ({"game": "shortdeck"}, "shortdeck"), ({"game": "shortdeck-triton"}, "shortdeck-triton"),
    ({"wild": "joker"}, "wild"), ({"wild": "2"}, "wild"),
])
@pytest.mark.parametrize("empty", [[], ()])
def test_evaluate_nothing(empty, kw, game):
    out = ge.evaluate(empty, backend="numpy", **kw)
    assert isinstance(out, np.ndarray) and out.shape == (0,) and out.dtype == np.uint16
    assert (out.dtype.metadata or {}).get("game") == game
    assert ge.describe(out) == [] and ge.category(out).shape == (0,)


def test_empty_arrays_still_follow_their_dtype():
    assert ge.evaluate(np.zeros((0, 7), np.uint8)).shape == (0,)
    assert ge.evaluate(np.zeros(0, np.uint64)).shape == (0,)
    with pytest.raises(TypeError, match="float64"):   # an explicit float array is still wrong
        ge.evaluate(np.zeros((0, 7)))

