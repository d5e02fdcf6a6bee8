"""gpu_eval.cuda.variants (short deck, Omaha, wild cards on CUDA), on the stand-in CuPy and, where
one is present, on a real device (the ``gpu`` fixture: one test body for both).

On the stand-in (tests/emulation/fake_cupy/) device arrays are NumPy arrays and each launch
runs the variants module's host build, with the tables uploaded through the module's
``__constant__`` symbols exactly as on a device. Every public path
(``evaluate(game="shortdeck")``, ``evaluate(wild=...)``, ``evaluate_omaha``) must give the
NumPy path's strengths, dtype (game tag included for NumPy out) and errors, for NumPy input
and for device input alike.
"""

from __future__ import annotations

from math import comb

import numpy as np
import pytest

import gpu_eval as ge
from gpu_eval.cuda import manifest, modules
from gpu_eval.cuda import variants as CV
from gpu_eval.games import shortdeck as SD
from gpu_eval.games import wild as W

import variant_cases as VC


@pytest.fixture
def fake(stand_in_cupy):
    return stand_in_cupy

def _to_device(fake, x):
    return fake.asarray(x) if isinstance(x, (np.ndarray, np.generic)) else x


def _outcome(fn):
    try:
        return fn(), None
    except (ValueError, TypeError) as exc:
        return None, exc


def _check_same(fake, want, want_exc, got_fn, device: bool):
    """``got_fn()`` gives ``want`` (values, shape, dtype; NumPy out carries the same dtype
    metadata, device out is plain uint16), or raises ``want_exc``'s type and message."""
    if want_exc is not None:
        with pytest.raises(type(want_exc)) as got:
            got_fn()
        assert str(got.value) == str(want_exc)
        return
    got = got_fn()
    if device:
        assert isinstance(got, fake.ndarray), type(got)
        assert got.dtype == np.uint16 and got.shape == np.shape(want)
        assert got.dtype.metadata is None  # CuPy arrays carry no game tag
        np.testing.assert_array_equal(got.get(), want)
    else:
        assert isinstance(got, (np.ndarray, np.generic)) and not isinstance(got, fake.ndarray)
        assert got.dtype == want.dtype and got.dtype.metadata == want.dtype.metadata
        assert got.shape == np.shape(want)
        np.testing.assert_array_equal(got, want)


# --- the module: built once, tables uploaded once per family, in struct order ----------------

def test_module_built_once_and_tables_uploaded_per_family(fake):
    state = CV.get_module()
    assert CV.get_module(0) is state and state.uploaded == {}
    assert state.module.code == manifest.module_source("variants")
    assert state.module.options == modules.module_options()
    ge.evaluate("As Ks Qs Js Ts", game="shortdeck", backend="cuda")
    assert set(state.uploaded) == {"shortdeck"}
    sd = state.uploaded["shortdeck"]
    ge.evaluate("As Ks Qs Js Ts", game="shortdeck-triton", backend="cuda")
    assert state.uploaded["shortdeck"] is sd  # not uploaded again
    symbols = state.module.symbols
    assert symbols["ge_shortdeck_tables"].tolist() == [t.data.ptr for t in sd]
    assert len(sd) == 2 * len(modules.BITMASK_TABLE_ORDER)
    per_game = len(modules.BITMASK_TABLE_ORDER)
    for v, game in enumerate(CV.SHORTDECK_VARIANTS):
        tables = SD.shortdeck_tables(game).as_dict()
        for i, name in enumerate(modules.BITMASK_TABLE_ORDER):
            np.testing.assert_array_equal(sd[v * per_game + i].get(), tables[name])
    ge.evaluate_omaha("AsKs2c3d", "Qs Js Ts", backend="cuda")
    assert symbols["ge_omaha_tables"].tolist() == [t.data.ptr for t in state.uploaded["omaha"]]
    assert [t.dtype for t in state.uploaded["omaha"]] == [
        CV.OMAHA_TABLE_DTYPES[n] for n in CV.OMAHA_TABLE_ORDER]
    ge.evaluate("Ac Ad Ah As Jk", wild="joker", backend="cuda")
    wild = state.uploaded["wild"]
    nb = len(modules.BITMASK_TABLE_ORDER)
    assert symbols["ge_bitmask_tables"].tolist() == [t.data.ptr for t in wild[:nb]]
    assert symbols["ge_wild_tables"].tolist() == [t.data.ptr for t in wild[nb:]]
    assert [t.dtype for t in wild[nb:]] == [CV.WILD_TABLE_DTYPES[n] for n in W.WILD_TABLE_ORDER]
    assert CV.get_module(families=("omaha", "wild", "shortdeck")) is state
    assert len(state.uploaded) == 3
    with pytest.raises(ValueError, match="unknown table family"):
        CV.get_module(families=("razz",))


def test_orders_match_the_structs():
    from gpu_eval.games import omaha as O

    assert CV.OMAHA_TABLE_ORDER == tuple(O.OmahaTables.__dataclass_fields__)
    assert CV.SHORTDECK_VARIANTS == SD.GAMES
    assert set(CV.WILD_TABLE_DTYPES) == set(W.WILD_TABLE_ORDER)
    tables = O.omaha_tables().as_dict()
    assert {n: tables[n].dtype for n in CV.OMAHA_TABLE_ORDER} == CV.OMAHA_TABLE_DTYPES
    wild = W.wild_device_tables()
    assert {n: wild[n].dtype for n in W.WILD_TABLE_ORDER} == CV.WILD_TABLE_DTYPES


# --- the public API against NumPy ---------------------------------------------------------

SD_CASES = VC.shortdeck_cases()


@pytest.mark.parametrize("invalid", ["raise", "mask"])
@pytest.mark.parametrize("game", SD.GAMES)
@pytest.mark.parametrize("case", list(SD_CASES))
def test_shortdeck_matches_numpy(gpu, case, game, invalid):
    fake = gpu.cp
    hands, kw = SD_CASES[case]
    want, exc = _outcome(lambda: ge.evaluate(hands, game=game, backend="numpy",
                                             invalid=invalid, **kw))
    for device in (False, True):
        arg = _to_device(fake, hands) if device else hands
        _check_same(fake, want, exc, lambda: ge.evaluate(arg, game=game, backend="cuda",
                                                         invalid=invalid, **kw), device)


WILD_CASES = VC.wild_cases()


@pytest.mark.parametrize("invalid", ["raise", "mask"])
@pytest.mark.parametrize("case", list(WILD_CASES))
def test_wild_matches_numpy(gpu, case, invalid):
    fake = gpu.cp
    hands, kw = WILD_CASES[case]
    want, exc = _outcome(lambda: ge.evaluate(hands, backend="numpy", invalid=invalid, **kw))
    for device in (False, True):
        arg = _to_device(fake, hands) if device else hands
        _check_same(fake, want, exc, lambda: ge.evaluate(arg, backend="cuda", invalid=invalid,
                                                         **kw), device)


OMAHA_CASES = VC.omaha_cases()


@pytest.mark.parametrize("invalid", ["raise", "mask"])
@pytest.mark.parametrize("case", list(OMAHA_CASES))
def test_omaha_matches_numpy(gpu, case, invalid):
    fake = gpu.cp
    hole, board, kw = OMAHA_CASES[case]
    want, exc = _outcome(lambda: ge.evaluate_omaha(hole, board, backend="numpy",
                                                   invalid=invalid, **kw))
    # host / host, device / device, and one on the device with the other on the host
    for on_dev in ((False, False), (True, True), (True, False), (False, True)):
        h = _to_device(fake, hole) if on_dev[0] else hole
        b = _to_device(fake, board) if on_dev[1] else board
        device = any(isinstance(x, fake.ndarray) for x in (h, b))
        if any(on_dev) and not device:
            continue  # both are text: nothing goes to the device
        _check_same(fake, want, exc, lambda: ge.evaluate_omaha(h, b, backend="cuda",
                                                               invalid=invalid, **kw), device)


@pytest.mark.parametrize("kw", [{"game": "shortdeck", "wild": None},
                                {"game": "holdem", "wild": "joker"}])
def test_no_hands_give_an_empty_array(fake, kw):
    out = CV.evaluate([], invalid="raise", encoding="auto", **kw)
    assert out.shape == (0,) and out.dtype == np.uint16 and fake.launches == []


def test_auto_backend_routes_device_input_here(fake):
    ids = VC.deal(np.random.default_rng(1), 500, 7, VC.SHORT_DECK)
    got = ge.evaluate(fake.asarray(ids), game="shortdeck")           # backend="auto"
    assert isinstance(got, fake.ndarray)
    np.testing.assert_array_equal(got.get(), ge.evaluate(ids, game="shortdeck",
                                                         backend="numpy"))
    got = ge.evaluate(ids, game="shortdeck")   # a device is "present": auto uses CUDA
    assert got.dtype.metadata == {"game": "shortdeck"}
    assert "ge_shortdeck_eval_masks" in {n for n, _, _ in fake.launches}
    fake.launches.clear()
    assert isinstance(ge.evaluate(fake.asarray(ids), wild="joker"), fake.ndarray)
    assert isinstance(ge.evaluate_omaha(fake.asarray(ids[:, :4]), "2c 3d 4h"), fake.ndarray)
    assert {n for n, _, _ in fake.launches} >= {"ge_wild_eval_masks", "ge_omaha_eval_ids"}
    with pytest.raises(ValueError, match="algorithm="):
        ge.evaluate(ids, game="shortdeck", backend="cuda", algorithm="perfect-hash")


@pytest.fixture(scope="module")
def all_five_short():
    from itertools import combinations

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


@pytest.mark.parametrize("game", SD.GAMES)
def test_all_five_card_short_deck_hands(gpu, all_five_short, game):
    cp = gpu.cp
    ids, masks = all_five_short
    assert len(ids) == comb(36, 5)
    want = ge.evaluate(ids, game=game, backend="numpy")
    assert len(np.unique(want)) == SD.NUM_CLASSES  # every class is some 5-card hand
    _same(cp, ge.evaluate(cp.asarray(ids), game=game), want, True)
    _same(cp, ge.evaluate(cp.asarray(masks), game=game), want, True)
    _same(cp, ge.evaluate(ids, game=game, backend="cuda"), want, False)
    _same(cp, ge.evaluate(masks, game=game, backend="cuda"), want, False)
    _same(cp, CV.shortdeck_ids_cuda(cp.asarray(ids), game), want.view(np.uint16), True)
    _same(cp, CV.shortdeck_masks_cuda(cp.asarray(masks), game), want.view(np.uint16), True)


@pytest.mark.parametrize("k", [6, 7, 9])
def test_random_short_deck_hands(gpu, k):
    cp = gpu.cp
    ids = VC.deal(np.random.default_rng(k), gpu.size(300_000, 20_000), k, VC.SHORT_DECK)
    for game in SD.GAMES:
        want = ge.evaluate(ids, game=game, backend="numpy")
        _same(cp, ge.evaluate(cp.asarray(ids), game=game), want, True)
        _same(cp, ge.evaluate(ids, game=game, backend="cuda"), want, False)


@pytest.mark.parametrize("h", [4, 5, 6])
def test_random_omaha(gpu, h):
    cp = gpu.cp
    game = {4: "omaha", 5: "omaha5", 6: "omaha6"}[h]
    rng = np.random.default_rng(100 + h)
    n = gpu.size(200_000, 20_000)
    for k in (3, 4, 5):
        cards = VC.deal(rng, n, h + k)
        hole, board = cards[:, :h], cards[:, h:]
        want = ge.evaluate_omaha(hole, board, game=game, backend="numpy")
        _same(cp, ge.evaluate_omaha(cp.asarray(hole), cp.asarray(board), game=game), want,
              True)
        _same(cp, ge.evaluate_omaha(hole, board, game=game, backend="cuda"), want, False)
    flushy = VC.deal(rng, n, h + 5, np.arange(0, 52, 2))  # two suits
    want = ge.evaluate_omaha(flushy[:, :h], flushy[:, h:], game=game, backend="numpy")
    assert (ge.category(want) >= 5).mean() > 0.2
    _same(cp, ge.evaluate_omaha(cp.asarray(flushy[:, :h]), cp.asarray(flushy[:, h:]),
                                game=game), want, True)
    _same(cp, ge.evaluate_omaha(flushy[:, :h], flushy[:, h:], game=game, backend="cuda"),
          want, False)
    shared = np.array([51, 47, 43, 39, 2], dtype=np.uint8)
    holes = VC.deal(rng, n // 2, h, np.setdiff1d(np.arange(52), shared))
    want = ge.evaluate_omaha(holes, shared, game=game, backend="numpy")
    _same(cp, ge.evaluate_omaha(cp.asarray(holes), "As Ks Qs Js 2h", game=game), want, True)
    _same(cp, ge.evaluate_omaha(holes, shared, game=game, backend="cuda"), want, False)


@pytest.mark.parametrize("wild", ["joker", ["joker", "2"], "bug", "2", ["3", "K"]])
def test_random_wild_hands(gpu, wild):
    cp = gpu.cp
    rng = np.random.default_rng(7)
    for k in (5, 7, 9):
        ids = VC.deal(rng, gpu.size(200_000, 20_000), k)
        if W.parse_wild(wild).jokers != "none":
            ids[::3, 0] = VC.JOKER
            ids[::5, k - 1] = VC.JOKER
        want = ge.evaluate(ids, wild=wild, backend="numpy")
        _same(cp, ge.evaluate(cp.asarray(ids), wild=wild), want, True)
        _same(cp, ge.evaluate(ids, wild=wild, backend="cuda"), want, False)


def test_module_cached_and_tables_uploaded_once(gpu):
    cp = gpu.cp
    state = CV.get_module(families=("shortdeck", "omaha", "wild"))
    assert CV.get_module(cp.cuda.runtime.getDevice()) is state
    assert set(state.uploaded) == {"shortdeck", "omaha", "wild"}
    uploaded = {k: list(v) for k, v in state.uploaded.items()}
    ge.evaluate("As Ks Qs Js Ts", game="shortdeck", backend="cuda")
    assert all(state.uploaded[k] == v for k, v in uploaded.items())  # nothing re-uploaded
    assert state.sm_count > 0 and all(b >= 1 for b in state.blocks_per_sm.values())


def test_cupy_results_are_plain_and_readable_with_game(gpu):
    cp = gpu.cp
    s = ge.evaluate(cp.asarray(ge.cards.parse(["As Ks Qs Js Ts", "6c 7d 8h 9s Ac"])),
                    game="shortdeck")
    assert s.dtype == cp.uint16
    assert ge.describe(cp.asnumpy(s), game="shortdeck") == ["Royal Flush", "Straight, Nine high"]
    one = ge.evaluate(cp.asarray(ge.cards.parse("Ac Ad Ah As Jk", allow_joker=True)),
                      wild="joker")
    assert one.shape == () and int(one) == 7475


def _forget_launches(gpu) -> None:
    if not gpu.real:
        gpu.cp.launches.clear()


# --- streaming of host arrays -----------------------------------------------------------

@pytest.mark.parametrize("chunks", [1, 5, 25])
def test_streamed_in_chunks(gpu, chunks):
    """Host arrays in chunks of a given size: the NumPy path's strengths, a launch a chunk."""
    fake = gpu.cp
    rng = np.random.default_rng(9)
    n = gpu.size(250_000, 5_000)
    chunk_rows = None if chunks == 1 else -(-n // chunks)
    chunks = -(-n // (chunk_rows or n))
    ids = VC.deal(rng, n, 7, VC.SHORT_DECK)
    want = ge.evaluate(ids, game="shortdeck-triton", backend="numpy")
    _forget_launches(gpu)
    np.testing.assert_array_equal(
        CV.shortdeck_masks_cuda(VC.masks_of(ids), "shortdeck-triton", chunk_rows=chunk_rows),
        want)
    np.testing.assert_array_equal(
        CV.shortdeck_ids_cuda(ids, "shortdeck-triton", chunk_rows=chunk_rows), want)
    assert gpu.real or len(fake.launches) == 2 * chunks

    cards = VC.deal(rng, n, 10)
    hole, board = cards[:, :5], cards[:, 5:]
    want = ge.evaluate_omaha(hole, board, game="omaha5", backend="numpy")
    _forget_launches(gpu)
    got = CV.omaha_ids_cuda(hole, board, chunk_rows=chunk_rows)
    assert isinstance(got, np.ndarray) and not isinstance(got, fake.ndarray)
    np.testing.assert_array_equal(got, want)
    assert gpu.real or len(fake.launches) == chunks
    shared = cards[0, 5:]
    ok = ~np.isin(hole, shared).any(axis=1)
    want = ge.evaluate_omaha(hole[ok], shared, game="omaha5", backend="numpy")
    np.testing.assert_array_equal(CV.omaha_ids_cuda(hole[ok], shared, chunk_rows=chunk_rows),
                                  want)

    ids = VC.deal(rng, n, 7)
    ids[::2, 3] = VC.JOKER
    spec = W.parse_wild(["joker", "5"])
    masks = np.bitwise_or.reduce(W.ID_OR_JOKER_TO_MASK[ids], axis=1)
    jokers = (ids == VC.JOKER).sum(axis=1).astype(np.uint8)
    want = ge.evaluate(ids, wild=["joker", "5"], backend="numpy")
    _forget_launches(gpu)
    np.testing.assert_array_equal(CV.wild_masks_cuda(masks, jokers, spec,
                                                     chunk_rows=chunk_rows), want)
    assert gpu.real or len(fake.launches) == chunks


def test_low_level_entry_points(fake):
    assert CV.shortdeck_masks_cuda(np.zeros(0, np.uint64)).shape == (0,)
    assert CV.omaha_ids_cuda(np.zeros((0, 4), np.uint8), np.zeros((0, 3), np.uint8)).shape == (0,)
    assert fake.launches == []
    masks = VC.masks_of(VC.deal(np.random.default_rng(2), 60, 6, VC.SHORT_DECK))
    got = CV.shortdeck_masks_cuda(fake.asarray(masks.reshape(6, 10)))
    assert isinstance(got, fake.ndarray) and got.shape == (6, 10)
    np.testing.assert_array_equal(got.get().ravel(),
                                  ge.evaluate(masks, game="shortdeck", backend="numpy"))
    with pytest.raises(ValueError, match="not a short-deck game"):
        CV.shortdeck_masks_cuda(masks, "holdem")
    with pytest.raises(ValueError, match="k = 5..9"):
        CV.shortdeck_ids_cuda(np.zeros((3, 4), np.uint8))
    with pytest.raises(ValueError, match="h = 4..6"):
        CV.omaha_ids_cuda(np.zeros((3, 3), np.uint8), np.zeros((3, 3), np.uint8))
    with pytest.raises(ValueError, match="b = 3..5"):
        CV.omaha_ids_cuda(np.zeros((3, 4), np.uint8), np.zeros((2, 3), np.uint8))
    with pytest.raises(ValueError, match="shape"):
        CV.wild_masks_cuda(masks, np.zeros(3, np.uint8), "joker")


def test_real_cupy_has_what_the_variant_path_uses():
    import inspect

    cupy = pytest.importorskip("cupy")
    for name in ("broadcast_to", "sort", "bincount", "log2", "rint", "ones", "where",
                 "flatnonzero", "float64", "int64", "uint32"):
        assert hasattr(cupy, name), name
    for name in ("view", "sum", "any", "astype", "copy", "reshape", "get"):
        assert hasattr(cupy.ndarray, name), name
    assert "axis" in inspect.signature(cupy.sort).parameters
