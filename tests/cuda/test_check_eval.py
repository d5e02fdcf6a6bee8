"""The fused validate-and-evaluate kernels (kernels/check_eval.cu) against the step-by-step
device path they replace (stray bits, range, counts, evaluation as separate passes), through
the host build of the kernels (tests/emulation/fake_cupy/): the same strengths, the same errors and
the same ``invalid="mask"`` zeros, on all 2,598,960 five-card hands and on random 6- to
9-card hands with every kind of bad row, as masks and as ids.
"""

from __future__ import annotations

import itertools
from math import comb

import numpy as np
import pytest

from gpu_eval.cuda import device_inputs, holdem
from gpu_eval.evaluator import bitmask

import kernel_refs as R


@pytest.fixture
def fake(stand_in_cupy):
    yield stand_in_cupy
    assert stand_in_cupy.races == []  # every launch was ordered after the writes it read

def _outcome(fn):
    try:
        out = fn()
        return np.asarray(out.get()), None
    except (ValueError, TypeError) as exc:
        return None, f"{type(exc).__name__}: {exc}"


def _both(fake, monkeypatch, arr, **kw):
    """(fused outcome, step-by-step outcome, kernels the fused call launched)."""
    fake.launches.clear()
    fused = _outcome(lambda: holdem.evaluate(fake.asarray(arr), **kw))
    names = {n for n, _, _ in fake.launches}
    with monkeypatch.context() as m:
        m.setattr(device_inputs, "evaluate_device_fused", lambda *a, **k: None)
        old = _outcome(lambda: holdem.evaluate(fake.asarray(arr), **kw))
    return fused, old, names


def _same(fused, old):
    assert (fused[1], old[1]) == (old[1], fused[1])
    if old[0] is not None:
        assert fused[0].dtype == old[0].dtype and fused[0].shape == old[0].shape
        np.testing.assert_array_equal(fused[0], old[0])


@pytest.fixture(scope="module")
def all5():
    n = comb(52, 5)
    ids = np.fromiter(itertools.chain.from_iterable(itertools.combinations(range(52), 5)),
                      dtype=np.uint8, count=5 * n).reshape(n, 5)
    return ids, R.ids_to_masks(ids)


@pytest.mark.parametrize("algorithm", ["bitmask", "perfect-hash"])
def test_all_five_card_hands(fake, monkeypatch, all5, algorithm):
    ids, masks = all5
    for arr, kernel in ((masks, "check_eval_masks"), (ids, "check_eval_ids")):
        fused, old, names = _both(fake, monkeypatch, arr, algorithm=algorithm)
        assert fused[1] is None and names == {holdem._kernel_name(algorithm, "ge_" + kernel)}
        _same(fused, old)
    counts = np.bincount(fused[0], minlength=7463)
    assert (counts[1:] > 0).sum() == 7462 and counts[0] == 0


def _bad_rows(rng, k: int, n: int = 3000):
    """Random k-card rows as ids and masks, and copies with one kind of bad row each."""
    ids = R.random_hands(rng, n, k)
    masks = R.ids_to_masks(ids)
    rows = rng.choice(n, size=4, replace=False)
    cases = {"ids": ids, "masks": masks}
    dup = ids.copy()
    dup[rows, 1] = dup[rows, 0]
    oor = ids.astype(np.int16)
    oor[rows[:2], k - 1] = 52 + rows[:2] % 7
    neg = ids.astype(np.int64)
    neg[rows[1:], 0] = -3
    mixed = ids.astype(np.int32)  # a duplicate before an out-of-range id: range is reported
    mixed[rows.min(), 2] = mixed[rows.min(), 3]
    mixed[rows.max(), 0] = 99
    stray = masks.copy()
    stray[rows] |= np.uint64(1 << 47)
    short = masks.copy()
    short[rows[0]] = R.ids_to_masks(ids[rows[0]:rows[0] + 1, :4])[0]
    many = masks.copy()
    many[rows[1]] = np.uint64(R.ids_to_masks(R.random_hands(rng, 1, 10))[0])
    cases.update(dup=dup, oor=oor, neg=neg, mixed=mixed, stray=stray, short=short, many=many,
                 one_hand=ids[7], one_mask=masks[7], one_dup=dup[rows[0]],
                 one_stray=stray[rows[0]], empty=ids[:0], empty_masks=masks[:0])
    return cases


@pytest.mark.parametrize("k", [6, 7, 8, 9])
@pytest.mark.parametrize("invalid", ["raise", "mask"])
def test_random_hands_with_bad_rows(fake, monkeypatch, k, invalid):
    rng = np.random.default_rng(100 + k)
    for name, arr in _bad_rows(rng, k).items():
        fused, old, names = _both(fake, monkeypatch, arr, invalid=invalid)
        _same(fused, old)
        assert names <= {"ge_check_eval_masks", "ge_check_eval_ids"}, (name, names)
        if name in ("ids", "masks"):
            np.testing.assert_array_equal(fused[0], bitmask.evaluate_masks(
                R.ids_to_masks(arr) if name == "ids" else arr))
        elif name.startswith(("one_hand", "one_mask", "empty")):
            assert fused[1] is None, name
        elif invalid == "raise":
            assert fused[1] is not None and ("row" in fused[1] or name.startswith("one")), name
        else:  # the bad rows (and only they, as on the step-by-step path) read 0
            assert 1 <= (np.atleast_1d(fused[0]) == 0).sum() <= 4, name


def test_one_small_copy_and_none_when_masking(fake, monkeypatch):
    """The fused path reads back 24 bytes to raise, nothing to mask."""
    ids = R.random_hands(np.random.default_rng(1), 1000, 7)
    gets = []
    real_get = fake.ndarray.get

    def counting_get(self, *a, **kw):
        gets.append(self.nbytes)
        return real_get(self, *a, **kw)

    monkeypatch.setattr(fake.ndarray, "get", counting_get)
    out = holdem.evaluate(fake.asarray(ids))
    assert gets == [24]
    gets.clear()
    holdem.evaluate(fake.asarray(ids), invalid="mask")
    assert gets == []
    np.testing.assert_array_equal(real_get(out), bitmask.evaluate_masks(R.ids_to_masks(ids)))


def test_other_paths_unchanged(fake, monkeypatch):
    """DeadHorse ints, k outside 5..9 and wrong dtypes keep the step-by-step path."""
    for name, (arr, kw) in R.bad_batches().items():
        if name == "float":
            continue
        fused, old, _names = _both(fake, monkeypatch, arr, **kw)
        _same(fused, old)


@pytest.fixture
def blocks(kernel_host):
    """The kernels' host build in the block emulator (real blocks of threads and barriers)."""
    return kernel_host


@pytest.mark.parametrize("k", [5, 7, 9])
@pytest.mark.parametrize("grid, block", [((3,), (256,)), ((2,), (64,)), ((1,), (32,))])
def test_ids_tile_with_real_blocks(blocks, k, grid, block):
    """The shared-memory tile of ge_check_eval_ids with whole blocks of threads: several tiles
    per block (grid-stride), a ragged last tile, bad rows of both kinds, and first_bad."""
    rng = np.random.default_rng(k)
    n = grid[0] * block[0] * 2 + 77
    ids = R.random_hands(rng, n, k)
    want = bitmask.evaluate_masks(R.ids_to_masks(ids))
    for mi in (0, 1):
        bad = ids.copy()
        bad[n - 5, 1] = bad[n - 5, 0]    # a duplicate late (count)
        bad[n - 40, 0] = 60              # out of range (range)
        bad[n - 3, k - 1] = 200
        expect = want.copy()
        expect[[n - 40, n - 5, n - 3]] = 0
        none = 2**64 - 1
        for arr, exp, fb in ((ids, want, [none] * 3),
                             (bad, expect, [n - 40, none, n - 5] if not mi else [none] * 3)):
            out = np.full(n, 0xBEEF, dtype=np.uint16)
            first_bad = np.full(3, none, dtype=np.uint64)
            blocks.launch("ge_check_eval_ids", grid, block,
                          (arr, np.int32(k), np.uint64(n), np.int32(5), np.int32(9),
                           np.uint64(0), np.int32(0), np.int32(mi), out, first_bad))
            np.testing.assert_array_equal(out, exp)
            assert first_bad.tolist() == fb
    masks = R.ids_to_masks(ids)
    masks[10] |= np.uint64(1 << 63)
    masks[20] = R.ids_to_masks(ids[20:21, :4])[0]  # 4 cards
    out = np.zeros(n, dtype=np.uint16)
    first_bad = np.full(3, 2**64 - 1, dtype=np.uint64)
    blocks.launch("ge_check_eval_masks", grid, block,
                  (masks, np.uint64(n), np.int32(5), np.int32(9), np.uint64(0), np.int32(0),
                   np.int32(0), out, first_bad))
    want[[10, 20]] = 0
    np.testing.assert_array_equal(out, want)
    assert first_bad.tolist() == [10, 2**64 - 1, 20]


@pytest.mark.parametrize("k", [5, 6, 7, 8, 9])
def test_raw_ids_kernel_tile_with_real_blocks(blocks, k):
    """ge_eval_ids stages its rows through the same kind of tile (eval_entries.cuh)."""
    rng = np.random.default_rng(20 + k)
    for grid, block in (((3,), (256,)), ((2,), (96,))):
        n = grid[0] * block[0] * 3 + 45
        ids = R.random_hands(rng, n, k)
        out = np.zeros(n, dtype=np.uint16)
        blocks.launch("ge_eval_ids", grid, block, (ids, np.int32(k), out, np.uint64(n)))
        np.testing.assert_array_equal(out, bitmask.evaluate_masks(R.ids_to_masks(ids)))


def test_short_deck_shares_the_fused_kernels(fake, monkeypatch):
    """Short deck on the device takes the same one-pass validation (its low ranks as forbidden
    cards): the same outcomes as its step-by-step path, bad rows of every kind included."""
    from gpu_eval.cuda import variants as CV

    import variant_cases as VC

    for name, (arr, kw) in VC.shortdeck_cases().items():
        if kw or np.asarray(arr).dtype.kind not in "iu" or np.ndim(arr) > 2:
            continue
        for invalid in ("raise", "mask"):
            fake.launches.clear()
            fused = _outcome(lambda: CV._shortdeck_device(
                fake.asarray(arr), "shortdeck-triton", invalid, "auto"))
            names = {n for n, _, _ in fake.launches}
            with monkeypatch.context() as m:
                m.setattr(device_inputs, "evaluate_device_fused", lambda *a, **k: None)
                old = _outcome(lambda: CV._shortdeck_device(
                    fake.asarray(arr), "shortdeck-triton", invalid, "auto"))
            _same(fused, old)
            a = np.asarray(arr)
            applies = (a.ndim <= 1 if a.dtype == np.uint64
                       else a.ndim in (1, 2) and 5 <= a.shape[-1] <= 9)
            if applies:
                assert names <= {"ge_shortdeck_check_eval_masks",
                                 "ge_shortdeck_check_eval_ids"}, (name, names)
                assert names or not a.size, name
