"""The CUDA hand indexer without a GPU: kernels/hand_index.cu built as host C++ and run against
the NumPy indexer (way 2 of docs/architecture.md), and the launcher (gpu_eval/solver_tables/cuda_indexer.py)
driven through the stand-in CuPy (way 3's stand-in). NVRTC compilation for sm_90 and the spill
check are tests/cuda/test_kernels_compile.py and tests/cuda/test_kernel_resources.py (which list every
kernel source and module).
"""

from __future__ import annotations

import numpy as np
import pytest

import gpu_eval as ge
from gpu_eval.solver_tables import cuda_indexer
from gpu_eval.solver_tables.indexer import HandIndexer, layout_tables

from emulation import hostbuild

LAYOUTS = [((2,), "holdem"), ((7,), "holdem"), ((2, 3), "holdem"), ((2, 4), "holdem"),
           ((2, 5), "holdem"), ((2, 3, 1, 1), "holdem"), ((1, 1, 1, 1), "holdem"),
           ((3, 3), "holdem"), ((10, 10), "holdem"), ((2, 5), "shortdeck"),
           ((2, 3, 1, 1), "shortdeck")]


@pytest.fixture(scope="module")
def host():
    from emulation import indexer_host

    try:
        return indexer_host.load()
    except hostbuild.HostBuildUnavailableError as exc:
        pytest.skip(f"cannot build the kernel for the CPU: {exc}")


@pytest.fixture
def cupy(stand_in_cupy, monkeypatch):
    monkeypatch.setattr(cuda_indexer, "_STATES", {})
    return stand_in_cupy


def deals(n: int, total: int, lowest_rank: int = 0, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    deck = 52 - 4 * lowest_rank
    return (np.argsort(rng.random((n, deck)), axis=1)[:, :total] + 4 * lowest_rank).astype(
        np.uint8)


@pytest.mark.parametrize("layout, game", LAYOUTS)
def test_host_kernel_matches_numpy(host, layout, game):
    idx = HandIndexer(layout, game)
    hands = deals(40_000, sum(layout), idx.lowest_rank, seed=len(layout))
    want = idx.index(hands, all_rounds=True)
    got, bad = host.index(hands, idx.tables, idx.lowest_rank, all_rounds=True)
    assert bad == cuda_indexer.NO_BAD_ROW
    np.testing.assert_array_equal(got, want)
    last, bad = host.index(hands, idx.tables, idx.lowest_rank)
    np.testing.assert_array_equal(last, want[:, -1])


@pytest.mark.parametrize("layout, game", [((2,), "holdem"), ((4,), "holdem"),
                                          ((2, 3), "shortdeck")])
def test_host_kernel_on_every_canonical_hand(host, layout, game):
    idx = HandIndexer(layout, game)
    every = np.arange(idx.size(len(layout) - 1))
    got, bad = host.index(idx.unindex(len(layout) - 1, every), idx.tables, idx.lowest_rank)
    np.testing.assert_array_equal(got, every)


def test_host_kernel_marks_the_lowest_bad_row(host):
    t = layout_tables((2, 5))
    hands = deals(5000, 7)
    hands[4000, 3] = hands[4000, 1]       # a card twice
    hands[1234, 6] = 52                   # out of range
    got, bad = host.index(hands, t, 0)
    assert bad == 1234
    assert got[1234] == -1 and got[4000] == -1
    assert (got[np.r_[0:1234, 1235:4000, 4001:5000]] >= 0).all()
    sd = deals(10, 7, 4)
    sd[7, 0] = 3                          # a deuce in the short deck
    got, bad = host.index(sd, layout_tables((2, 5), 9), 4, all_rounds=True)
    assert bad == 7 and (got[7] == -1).all()


_BAD_IDS = r"""
import json
import numpy as np
from emulation import indexer_host
from gpu_eval.solver_tables.indexer import layout_tables

host = indexer_host.IndexerHost(sanitize=True)
rng = np.random.default_rng(5)
hands = np.argsort(rng.random((300, 52)), axis=1)[:, :7].astype(np.uint8)
hands[10, 2] = 64          # uint8 ids 52..255 reach the kernel unchecked from CuPy
hands[20, 6] = 127
hands[30:42, 0] = np.arange(52, 256, 17)
sd = np.argsort(rng.random((100, 36)), axis=1)[:, :7].astype(np.uint8) + 16
sd[7, 3] = 0               # ids below the short deck: a negative shift
sd[50, 6] = 15
out = []
for ids, rounds, lowest in ((hands, (2, 5), 0), (hands, (2, 3, 1, 1), 0), (sd, (2, 5), 4)):
    t = layout_tables(rounds, 13 - lowest)
    for every in (False, True):
        got, bad = host.index(ids, t, lowest, all_rounds=every)
        out.append([bad, np.flatnonzero((got.reshape(len(ids), -1) < 0).any(axis=1)).tolist()])
print(json.dumps(out))
"""


def test_host_kernel_checks_ids_under_sanitizers():
    """Card ids the deck does not hold (a CuPy uint8 of 52..255, an id below the short
    deck) mark their row bad without reading past the binomial table or shifting by a
    negative amount: the kernel's host build under AddressSanitizer and UBSan stays quiet."""
    import json

    from emulation import kernel_build, sanitizers

    try:
        kernel_build.build("indexer", sanitize=True)  # here, not under the preloaded runtime
        proc = sanitizers.run(_BAD_IDS)
    except hostbuild.HostBuildUnavailableError as exc:
        pytest.skip(f"no sanitized host build: {exc}")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "runtime error" not in proc.stderr and "AddressSanitizer" not in proc.stderr
    results = json.loads(proc.stdout.strip().splitlines()[-1])
    holdem_rows = [10, 20, *range(30, 42)]
    for bad, rows in results[:4]:
        assert (bad, rows) == (10, holdem_rows)
    for bad, rows in results[4:]:
        assert (bad, rows) == (7, [7, 50])


def test_kernel_tables_layout():
    t = cuda_indexer.kernel_tables(layout_tables((2, 3, 1, 1)))
    rinfo = t["rinfo"].reshape(-1, cuda_indexer.RINFO_FIELDS)
    assert rinfo[:, 1].tolist() == [3, 4, 2, 2]            # radix: cards + 1
    rt = layout_tables((2, 3, 1, 1)).per_round
    assert t["cfgdata"].size == cuda_indexer.CFG_FIELDS * sum(len(r.configs) for r in rt)
    assert t["binom"].reshape(17, 17)[13, 6] == 1716


# -- the launcher through the stand-in CuPy ---------------------------------------------------

@pytest.mark.parametrize("layout, game", [((2, 5), "holdem"), ((2, 3, 1, 1), "holdem"),
                                          ((2, 3, 1, 1), "shortdeck"), ((4,), "holdem"),
                                          ((7,), "holdem")])
def test_cupy_in_cupy_out(gpu, layout, game):
    cupy = gpu.cp
    idx = ge.HandIndexer(layout, game=game)
    n = gpu.size(1_000_000, 20_000)
    hands = deals(n, sum(layout), idx.lowest_rank, seed=3)
    want = idx.index(hands, all_rounds=True, backend="numpy")
    got = idx.index(cupy.asarray(hands), all_rounds=True)
    assert isinstance(got, cupy.ndarray) and got.dtype == np.int64
    np.testing.assert_array_equal(got.get(), want)
    last = idx.index(cupy.asarray(hands))
    assert isinstance(last, cupy.ndarray) and last.shape == (n,)
    np.testing.assert_array_equal(last.get(), want[:, -1])
    np.testing.assert_array_equal(idx.index(hands, backend="cuda"), want[:, -1])
    if not gpu.real:
        assert [name for name, _, _ in cupy.launches] == ["ge_hand_index"] * 3
        assert not cupy.races


def test_every_flop_class_round_trips(gpu):
    idx = ge.HandIndexer((2, 3))
    every = np.arange(idx.size(1))
    got = idx.index(gpu.cp.asarray(idx.unindex(1, every)))
    np.testing.assert_array_equal(got.get(), every)


def test_numpy_in_cuda_backend_numpy_out(cupy, monkeypatch):
    monkeypatch.setattr(cuda_indexer, "ROWS_PER_LAUNCH", 3000)  # several launches
    idx = ge.HandIndexer((2, 5))
    hands = deals(10_000, 7, seed=4)
    got = idx.index(hands, backend="cuda")
    assert type(got) is np.ndarray
    np.testing.assert_array_equal(got, idx.index(hands, backend="numpy"))
    assert len(cupy.launches) == 4
    hands[7777, 0] = hands[7777, 5]
    with pytest.raises(ValueError, match=r"row 7777: card .. appears twice"):
        idx.index(hands, backend="cuda")


def test_device_errors_name_the_row(gpu):
    cupy = gpu.cp
    idx = ge.HandIndexer((2, 3))
    hands = ge.cards.parse(["AsKs 2c7d9h"] * 4)
    bad = hands.copy()
    bad[2, 4] = bad[2, 1]
    with pytest.raises(ValueError, match=r"row 2: card Ks appears twice"):
        idx.index(cupy.asarray(bad))
    wide = hands.astype(np.int64)
    wide[3, 0] = 300                        # would wrap to a valid uint8 id
    with pytest.raises(ValueError, match=r"row 3: card id 300 is out of range"):
        idx.index(cupy.asarray(wide))
    with pytest.raises(ValueError, match="each row must hold 5 cards"):
        idx.index(cupy.asarray(hands[:, :4]))
    sd = ge.HandIndexer((2, 3), game="shortdeck")
    with pytest.raises(ValueError, match=r"row 0: card 2c \(id 0\) is not in the shortdeck"):
        sd.index(cupy.asarray(np.array([[0, 20, 24, 28, 32]], dtype=np.uint8)))
    for deck_idx, row in ((idx, [12, 64, 24, 28, 32]), (sd, [16, 20, 24, 200, 32]),
                          (sd, [16, 20, 15, 28, 32])):
        hands_u8 = np.array([[16, 20, 24, 28, 33], row], dtype=np.uint8)
        with pytest.raises(ValueError) as numpy_error:
            deck_idx.index(hands_u8, backend="numpy")
        with pytest.raises(ValueError) as device_error:  # checked by the kernel itself
            deck_idx.index(cupy.asarray(hands_u8))
        assert str(device_error.value) == str(numpy_error.value)
        assert str(device_error.value).startswith("row 1: card ")
    one = idx.index(cupy.asarray(hands[0]))
    assert one.shape == () and int(one) == idx.index(hands[0])
    many = ge.cards.parse(["AsKs 2c7d9hTs3c"] * 100)
    many[42, 6] = many[42, 0]
    with pytest.raises(ValueError, match="row 42: card As appears twice"):
        ge.HandIndexer((2, 5)).index(cupy.asarray(many))


def test_unindex_cupy_in_cupy_out(gpu):
    cupy = gpu.cp
    idx = ge.HandIndexer((2, 5))
    i = np.array([0, 5, 123156253])
    got = idx.unindex(1, cupy.asarray(i))
    assert isinstance(got, cupy.ndarray)
    np.testing.assert_array_equal(got.get(), idx.unindex(1, i))
