"""The variant kernels (short deck, Omaha, wild cards) on a real GPU against the NumPy path.

Every test here is skipped, with the reason, unless CuPy imports and sees a CUDA device.
tests/cuda/test_cuda_variants_emulated.py runs the same checks without one (CuPy emulated).
"""

from __future__ import annotations

from itertools import combinations
from math import comb

import numpy as np
import pytest

import gpu_eval as ge
from gpu_eval.cuda import availability
from gpu_eval.cuda import variants as CV
from gpu_eval.games import shortdeck as SD
from gpu_eval.games import wild as W

import variant_cases as VC

OK, REASON = availability.cuda_available()
pytestmark = pytest.mark.skipif(not OK, reason=REASON)


@pytest.fixture(scope="module")
def cp():
    import cupy

    return cupy


@pytest.fixture(scope="module")
def all_five_short():
    ids = VC.SHORT_DECK[np.array(list(combinations(range(36), 5)), dtype=np.uint8)]
    return ids, VC.masks_of(ids)


def _same(cp, got, want, device: bool) -> None:
    if device:
        assert isinstance(got, cp.ndarray) and got.dtype == cp.uint16
        got = cp.asnumpy(got)
    else:
        assert isinstance(got, np.ndarray) and got.dtype.metadata == want.dtype.metadata
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want)


def test_module_cached_and_tables_uploaded_once(cp):
    state = CV.get_module(families=("shortdeck", "omaha", "wild"))
    assert CV.get_module(cp.cuda.runtime.getDevice()) is state
    assert set(state.uploaded) == {"shortdeck", "omaha", "wild"}
    uploaded = {k: list(v) for k, v in state.uploaded.items()}
    ge.evaluate("As Ks Qs Js Ts", game="shortdeck", backend="cuda")
    assert all(state.uploaded[k] == v for k, v in uploaded.items())  # nothing re-uploaded
    assert state.sm_count > 0 and all(b >= 1 for b in state.blocks_per_sm.values())


@pytest.mark.parametrize("game", SD.GAMES)
def test_all_five_card_short_deck_hands(cp, all_five_short, game):
    ids, masks = all_five_short
    assert len(ids) == comb(36, 5)
    want = ge.evaluate(ids, game=game, backend="numpy")
    assert len(np.unique(want)) == SD.NUM_CLASSES
    _same(cp, ge.evaluate(cp.asarray(ids), game=game), want, True)
    _same(cp, ge.evaluate(cp.asarray(masks), game=game), want, True)
    _same(cp, ge.evaluate(ids, game=game, backend="cuda"), want, False)
    _same(cp, ge.evaluate(masks, game=game, backend="cuda"), want, False)
    _same(cp, CV.shortdeck_ids_cuda(cp.asarray(ids), game), want.view(np.uint16), True)
    _same(cp, CV.shortdeck_masks_cuda(cp.asarray(masks), game), want.view(np.uint16), True)


@pytest.mark.parametrize("k", [6, 7, 9])
def test_random_short_deck_hands(cp, k):
    ids = VC.deal(np.random.default_rng(k), 300_000, k, VC.SHORT_DECK)
    for game in SD.GAMES:
        want = ge.evaluate(ids, game=game, backend="numpy")
        _same(cp, ge.evaluate(cp.asarray(ids), game=game), want, True)
        _same(cp, ge.evaluate(ids, game=game, backend="cuda"), want, False)


@pytest.mark.parametrize("h", [4, 5, 6])
def test_random_omaha(cp, h):
    game = {4: "omaha", 5: "omaha5", 6: "omaha6"}[h]
    rng = np.random.default_rng(100 + h)
    for k in (3, 4, 5):
        cards = VC.deal(rng, 200_000, h + k)
        hole, board = cards[:, :h], cards[:, h:]
        want = ge.evaluate_omaha(hole, board, game=game, backend="numpy")
        _same(cp, ge.evaluate_omaha(cp.asarray(hole), cp.asarray(board), game=game), want,
              True)
        _same(cp, ge.evaluate_omaha(hole, board, game=game, backend="cuda"), want, False)
    flushy = VC.deal(rng, 200_000, h + 5, np.arange(0, 52, 2))  # two suits
    want = ge.evaluate_omaha(flushy[:, :h], flushy[:, h:], game=game, backend="numpy")
    assert (ge.category(want) >= 5).mean() > 0.2
    _same(cp, ge.evaluate_omaha(cp.asarray(flushy[:, :h]), cp.asarray(flushy[:, h:]),
                                game=game), want, True)
    shared = np.array([51, 47, 43, 39, 2], dtype=np.uint8)
    holes = VC.deal(rng, 100_000, h, np.setdiff1d(np.arange(52), shared))
    want = ge.evaluate_omaha(holes, shared, game=game, backend="numpy")
    _same(cp, ge.evaluate_omaha(cp.asarray(holes), "As Ks Qs Js 2h", game=game), want, True)
    _same(cp, ge.evaluate_omaha(holes, shared, game=game, backend="cuda"), want, False)


@pytest.mark.parametrize("wild", ["joker", ["joker", "2"], "bug", "2"])
def test_random_wild_hands(cp, wild):
    rng = np.random.default_rng(7)
    for k in (5, 7, 9):
        ids = VC.deal(rng, 200_000, k)
        if W.parse_wild(wild).jokers != "none":
            ids[::3, 0] = VC.JOKER
            ids[::5, k - 1] = VC.JOKER
        want = ge.evaluate(ids, wild=wild, backend="numpy")
        _same(cp, ge.evaluate(cp.asarray(ids), wild=wild), want, True)
        _same(cp, ge.evaluate(ids, wild=wild, backend="cuda"), want, False)


def _outcome(fn):
    try:
        return fn(), None
    except (ValueError, TypeError) as exc:
        return None, exc


def _check(cp, want, exc, fn, device):
    if exc is not None:
        with pytest.raises(type(exc)) as got:
            fn()
        assert str(got.value) == str(exc)
    else:
        got = fn()
        if device:
            assert isinstance(got, cp.ndarray) and got.dtype == cp.uint16
            got = cp.asnumpy(got)
        else:
            assert got.dtype.metadata == want.dtype.metadata
        assert got.shape == np.shape(want)
        np.testing.assert_array_equal(got, want)


def _dev(cp, x):
    return cp.asarray(x) if isinstance(x, (np.ndarray, np.generic)) else x


@pytest.mark.parametrize("invalid", ["raise", "mask"])
def test_bad_input_same_errors_and_masked_rows(cp, invalid):
    """Every case of tests/variant_cases.py: the NumPy path's result or error, exactly."""
    for _name, (hands, kw) in VC.shortdeck_cases().items():
        for game in SD.GAMES:
            want, exc = _outcome(lambda: ge.evaluate(hands, game=game, backend="numpy",
                                                     invalid=invalid, **kw))
            for device in (False, True):
                arg = _dev(cp, hands) if device else hands
                _check(cp, want, exc, lambda: ge.evaluate(arg, game=game, backend="cuda",
                                                          invalid=invalid, **kw), device)
    for _name, (hands, kw) in VC.wild_cases().items():
        want, exc = _outcome(lambda: ge.evaluate(hands, backend="numpy", invalid=invalid, **kw))
        for device in (False, True):
            arg = _dev(cp, hands) if device else hands
            _check(cp, want, exc, lambda: ge.evaluate(arg, backend="cuda", invalid=invalid,
                                                      **kw), device)
    for _name, (hole, board, kw) in VC.omaha_cases().items():
        want, exc = _outcome(lambda: ge.evaluate_omaha(hole, board, backend="numpy",
                                                       invalid=invalid, **kw))
        for on_dev in ((False, False), (True, True), (True, False), (False, True)):
            h = _dev(cp, hole) if on_dev[0] else hole
            b = _dev(cp, board) if on_dev[1] else board
            device = any(isinstance(x, cp.ndarray) for x in (h, b))
            if any(on_dev) and not device:
                continue
            _check(cp, want, exc, lambda: ge.evaluate_omaha(h, b, backend="cuda",
                                                            invalid=invalid, **kw), device)


@pytest.mark.parametrize("chunk_rows", [10_000, 99_999])
def test_streamed_through_pinned_buffers(cp, chunk_rows):
    rng = np.random.default_rng(11)
    n = 250_000
    ids = VC.deal(rng, n, 7, VC.SHORT_DECK)
    want = ge.evaluate(ids, game="shortdeck", backend="numpy").view(np.uint16)
    np.testing.assert_array_equal(
        CV.shortdeck_masks_cuda(VC.masks_of(ids), chunk_rows=chunk_rows), want)
    np.testing.assert_array_equal(CV.shortdeck_ids_cuda(ids, chunk_rows=chunk_rows), want)
    cards = VC.deal(rng, n, 11)
    hole, board = cards[:, :6], cards[:, 6:]
    np.testing.assert_array_equal(
        CV.omaha_ids_cuda(hole, board, chunk_rows=chunk_rows),
        ge.evaluate_omaha(hole, board, game="omaha6", backend="numpy"))
    ok = ~np.isin(hole, board[0]).any(axis=1)
    np.testing.assert_array_equal(
        CV.omaha_ids_cuda(hole[ok], board[0], chunk_rows=chunk_rows),
        ge.evaluate_omaha(hole[ok], board[0], game="omaha6", backend="numpy"))
    ids = VC.deal(rng, n, 7)
    ids[::2, 1] = VC.JOKER
    masks = np.bitwise_or.reduce(W.ID_OR_JOKER_TO_MASK[ids], axis=1)
    jokers = (ids == VC.JOKER).sum(axis=1).astype(np.uint8)
    np.testing.assert_array_equal(
        CV.wild_masks_cuda(masks, jokers, "joker", chunk_rows=chunk_rows),
        ge.evaluate(ids, wild="joker", backend="numpy").view(np.uint16))


def test_cupy_results_are_plain_and_readable_with_game(cp):
    s = ge.evaluate(cp.asarray(ge.cards.parse(["As Ks Qs Js Ts", "6c 7d 8h 9s Ac"])),
                    game="shortdeck")
    assert s.dtype == cp.uint16
    assert ge.describe(cp.asnumpy(s), game="shortdeck") == ["Royal Flush", "Straight, Nine high"]
    one = ge.evaluate(cp.asarray(ge.cards.parse("Ac Ad Ah As Jk", allow_joker=True)),
                      wild="joker")
    assert one.shape == () and int(one) == 7475
