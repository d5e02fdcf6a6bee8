"""The CUDA equity engine without a GPU: kernels/equity.cu under NVRTC, and its device code run
on the CPU (tests/emulation/kernel_build.py) against the NumPy engine and a NumPy twin of its generator.

Most tests go through gpu_eval.equity_engine.holdem.cuda_engine itself with tests/emulation/fake_cupy/
standing in for
CuPy: launches run the kernels (built as host C++) with the grid and block sizes the engine
chose, so the engine's chunking, launch arithmetic and argument types are checked too.
"""

from __future__ import annotations

import doctest
import subprocess
import sys
from math import comb

import numpy as np
import pytest
from holdem_cuda import MC_CASES, mc_setup

from gpu_eval import backend_choice, cards, ranges
from gpu_eval.cuda import nvrtc
from gpu_eval.equity_engine import api as equity_api
from gpu_eval.equity_engine import enumerate_boards as eb
from gpu_eval.equity_engine import problem as equity_problem
from gpu_eval.equity_engine.api import equity, equity_matrix, preflop_table
from gpu_eval.equity_engine.holdem import cuda_engine as ce
from gpu_eval.equity_engine.holdem import numpy_engine
from gpu_eval.evaluator import bitmask
from gpu_eval.progress import Progress

try:
    nvrtc.nvrtc_version()
    NVRTC_SKIP = ""
except nvrtc.NvrtcUnavailableError as exc:
    NVRTC_SKIP = str(exc)
needs_nvrtc = pytest.mark.skipif(bool(NVRTC_SKIP), reason=NVRTC_SKIP)


@pytest.fixture
def host(kernel_host):
    """The equity kernels' host build, on NumPy arrays (skips without a C++ compiler)."""
    return kernel_host


@pytest.fixture
def fake(stand_in_cupy):
    """The stand-in CuPy: the equity module's launches run its host build, with the grid and
    block sizes the engine launches."""
    return stand_in_cupy


def _exact_problem(players, board="", dead=""):
    """``(pool, matchups, boards, base)`` as gpu_eval.equity_engine.api's exact engine builds them."""
    prob = equity_problem.prepare(players, board, dead)
    masks = [p.masks for p in prob.players]
    idx, _ = equity_problem.enumerate_matchups(masks, [p.weights for p in prob.players],
                                         10**6)
    pool, inverse = np.unique(np.concatenate(masks), return_inverse=True)
    offsets = np.cumsum([0] + [len(m) for m in masks[:-1]])
    return pool, inverse[idx + offsets[None, :]], eb.completions(prob.deck_mask, prob.k), \
        prob.board_mask


def _same_counts(got, want):
    for name in ("wins", "ties", "units", "valid"):
        a, b = getattr(got, name), getattr(want, name)
        assert a.dtype == np.int64 and a.shape == b.shape, name
        np.testing.assert_array_equal(a, b, err_msg=name)
    assert got.scale == want.scale


# --- NVRTC -----------------------------------------------------------------------------------

def test_kernel_file_is_compiled_by_the_generic_nvrtc_test():
    """tests/cuda/test_kernels_compile.py compiles every kernels/*.cu and *.cuh."""
    assert (nvrtc.kernel_dir() / "equity.cu").is_file()
    assert (nvrtc.kernel_dir() / "equity.cuh").is_file()


# --- the generator ---------------------------------------------------------------------------

KAT = [((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
       ((0xFFFFFFFF,) * 4, (0xFFFFFFFF,) * 2, (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
       ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0),
        (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1))]


def test_philox_known_answers_numpy_twin():
    for ctr, key, want in KAT:
        assert ce.philox4x32([ctr], key)[0].tolist() == list(want)


def test_device_philox_equals_numpy_twin(host):
    rng = np.random.default_rng(5)
    ctr = rng.integers(0, 2**32, size=(3000, 4), dtype=np.uint32)
    ctr[:3] = [k[0] for k in KAT]
    key = rng.integers(0, 2**32, size=(3000, 2), dtype=np.uint32)
    key[:3] = [k[1] for k in KAT]
    out = np.zeros((3000, 4), dtype=np.uint32)
    host.launch("ge_eq_philox", (3,), (64,), (ctr, key, out, np.uint64(3000)))
    np.testing.assert_array_equal(out, ce.philox4x32(ctr, key))
    assert out[:3].tolist() == [list(k[2]) for k in KAT]


def _device_draws(host, holes, cum, deck_mask, k, start, count, key, dealt, max_tries=ce.MAX_TRIES,
                  grid=(5,), block=(64,)):
    n = len(holes)
    combos, offsets, cw = ce._pack(holes, cum)
    modes = ce.player_modes(cum, dealt)
    deck = eb.deck_values(deck_mask)
    out_h = np.zeros(count * n, dtype=np.uint64)
    out_b = np.zeros(count, dtype=np.uint64)
    ok = np.zeros(count, dtype=np.uint8)
    host.launch("ge_eq_mc_draws", grid, block,
                (np.int32(n), combos, offsets, cw, modes, deck, np.uint32(len(deck)), np.int32(k),
                 np.uint32(key[0]), np.uint32(key[1]), np.uint64(start), np.uint64(count),
                 np.uint32(max_tries), out_h, out_b, ok))
    return out_h.reshape(count, n), out_b, ok.astype(bool)




@pytest.mark.parametrize("case", list(MC_CASES))
def test_device_draws_equal_numpy_twin(host, case):
    players, board = MC_CASES[case]
    holes, cum, deck, base, k, dealt = mc_setup(players, board)
    key = ce.mc_key(2024)
    start = 2**32 - 1000  # samples past 2^32 use the counter's high word
    got = _device_draws(host, holes, cum, deck, k, start, 2500, key, dealt)
    want = ce.mc_draws(holes, cum, deck, k, start, 2500, key, dealt=dealt)
    for a, b, what in zip(got, want, ("holes", "boards", "ok")):
        np.testing.assert_array_equal(a, b, err_msg=what)
    holes_, boards, ok = want
    assert ok.all()
    used = np.bitwise_or.reduce(holes_, axis=1)
    assert np.all(cards.mask_popcount(used) == 2 * len(players))  # no card twice
    assert np.all((boards & used) == 0) and np.all(cards.mask_popcount(boards) == k)
    assert np.all((boards & ~np.uint64(deck)) == 0)


def test_draws_that_never_fit_are_flagged(host):
    holes = [cards.to_mask(["AsAh"]), cards.to_mask(["AsKs", "AhKh"])]
    cum = [np.array([1.0]), np.array([1.0, 2.0])]  # two "ranges" that always clash
    deck = eb.FULL_DECK & ~int(cards.to_mask("AsAhKsKh"))
    key = ce.mc_key(1)
    got = _device_draws(host, holes, cum, deck, 5, 0, 50, key, None, max_tries=7)
    want = ce.mc_draws(holes, cum, deck, 5, 0, 50, key, max_tries=7)
    assert not got[2].any() and not want[2].any()
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)


def test_weighted_picks_follow_the_weights():
    holes = [cards.to_mask(["AsAh", "KsKh", "QsQh"]), cards.to_mask(["2c2d"])]
    cum = [np.cumsum([0.1, 0.6, 0.3]), None]
    deck = eb.FULL_DECK & ~int(cards.to_mask("2c2d"))
    h, _, _ = ce.mc_draws(holes, cum, deck, 0, 0, 30_000, ce.mc_key(3))
    freq = [(h[:, 0] == m).mean() for m in holes[0]]
    np.testing.assert_allclose(freq, [0.1, 0.6, 0.3], atol=0.01)


# --- Monte Carlo counts ----------------------------------------------------------------------

def _numpy_counts_from_draws(holes, boards, base):
    """Per-player (wins, ties, units, units_sq) of given deals, with the NumPy evaluator."""
    n = holes.shape[1]
    scale = numpy_engine.pot_units(n)
    st = np.stack([bitmask.evaluate_masks(holes[:, p] | boards | np.uint64(base))
                   for p in range(n)])
    win = st == st.max(axis=0)
    cnt = win.sum(axis=0)
    share = np.where(win, scale // cnt, 0)
    return (np.count_nonzero(win & (cnt == 1), axis=1), np.count_nonzero(win & (cnt > 1), axis=1),
            share.sum(axis=1), (share * share).sum(axis=1))


@pytest.mark.parametrize("case", ["weighted ranges, flop", "uniform + weighted + random, turn",
                                  "clashing ranges, 4 players"])
def test_sample_counts_are_those_of_the_twin_draws(fake, case):
    players, board = MC_CASES[case]
    holes, cum, deck, base, k, dealt = mc_setup(players, board)
    n_samples, seed = 20_000, 99
    got = ce.sample_counts(holes, cum, deck, base, k, n_samples, seed, dealt=dealt)
    h, b, ok = ce.mc_draws(holes, cum, deck, k, 0, n_samples, ce.mc_key(seed), dealt=dealt)
    assert ok.all()
    want = _numpy_counts_from_draws(h, b, base)
    for g, w in zip(got, want):
        assert g.dtype == np.int64
        np.testing.assert_array_equal(g, w)
    assert got[2].sum() == n_samples * numpy_engine.pot_units(len(players))


def test_sample_counts_do_not_depend_on_the_launch(fake, monkeypatch, host):
    holes, cum, deck, base, k, dealt = mc_setup(*MC_CASES["weighted ranges, flop"])
    a = ce.sample_counts(holes, cum, deck, base, k, 5000, 7, dealt=dealt)
    monkeypatch.setattr(ce, "SAMPLES_PER_LAUNCH", 777)  # 7 launches of other grid sizes
    fake.launches.clear()
    bar = Progress(5000, "test", enabled=False)
    b = ce.sample_counts(holes, cum, deck, base, k, 5000, 7, dealt=dealt, progress=bar)
    assert len(fake.launches) == 7 and bar.done == 0  # disabled bars count nothing
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    c = ce.sample_counts(holes, cum, deck, base, k, 5000, 8, dealt=dealt)
    assert any((x != y).any() for x, y in zip(a, c))  # another seed, other draws


def test_sample_counts_raise_when_ranges_never_fit(fake, monkeypatch):
    monkeypatch.setattr(ce, "MAX_TRIES", 5)
    holes = [cards.to_mask(["AsAh"]), cards.to_mask(["AsKs", "AhKh"])]
    cum = [np.array([1.0]), np.array([1.0, 2.0])]
    deck = eb.FULL_DECK & ~int(cards.to_mask("AsAhKsKh"))
    fake.launches.clear()
    with pytest.raises(ValueError, match="cannot be dealt together"):  # the host's check
        ce.sample_counts(holes, cum, deck, 0, 5, 100, 1)
    assert fake.launches == []  # rejected before any launch
    # Possible, but a fitting draw has probability 1e-12: the device gives up.
    holes[0] = cards.to_mask(["AsAh", "KdKc"])
    cum[0] = np.array([1.0, 1.0 + 1e-12])
    deck = eb.FULL_DECK & ~int(cards.to_mask("AsAhKsKhKdKc"))
    with pytest.raises(ValueError, match="almost never fit"):
        ce.sample_counts(holes, cum, deck, 0, 5, 100, 1)


@pytest.mark.parametrize("players, board", [
    (["AhKh", "QQ+,AKs"], "Kd 7c 2h"),
    (["AA", "KK", "random"], "2c 7d 9s Jh"),
])
def test_monte_carlo_lands_within_four_standard_errors(fake, players, board):
    exact = equity_api.equity(players, board=board, exact=True, backend="numpy")
    mc = equity_api.equity(players, board=board, exact=False, samples=200_000, seed=11,
                        backend="cuda")
    assert mc.backend == "cuda" and not mc.exact and mc.samples == 200_000
    assert np.all(np.abs(mc.equity - exact.equity) < 4 * mc.stderr)
    assert np.all(mc.stderr > 0) and abs(mc.equity.sum() - 1) < 1e-12
    again = equity_api.equity(players, board=board, exact=False, samples=200_000, seed=11,
                           backend="cuda")
    np.testing.assert_array_equal(again.equity, mc.equity)


# --- exact showdowns -------------------------------------------------------------------------

EXACT_CASES = {
    "AhKh vs QsQd, flop": (["AhKh", "QsQd"], "2c 7d 9s"),
    "3-way turn with split pots": (["AhKh", "AdKd", "7c7s"], "2h 5d 9c Qs"),
    "ranges vs ranges, flop": (["QQ+,AKs,0.5(AQo)", "JJ+,AQs+,KQs"], "Kd 7c 2h"),
    "5 players, ranges, flop": (["AA", "KK", "AKs", "QQ,JJ", "KQs,QJs"], "2c 3c 8d"),
    "10 players, turn": (["AhKh", "QsQd", "2c2d", "Jc9c", "8s7s", "AcTd", "6h6d", "KsJd",
                          "5c4c", "Th9h"], "2h 7c 8d Qh"),
}


@pytest.mark.parametrize("case", list(EXACT_CASES))
def test_showdown_counts_equal_the_numpy_engine(fake, case):
    players, board = EXACT_CASES[case]
    pool, mu, boards, base = _exact_problem(players, board)
    want = numpy_engine.showdown_counts(pool, mu, boards, base=base)
    got = ce.showdown_counts(pool, mu, boards, base=base)
    _same_counts(got, want)
    assert want.wins.sum() > 0
    if "split" in case or "ranges" in case:
        assert want.ties.sum() > 0 and want.units.sum() > 0


def test_acceptance_figure_preflop(fake):
    """The published exact AhKh vs QsQd preflop figure (README) through the whole CUDA engine."""
    r = equity_api.equity(["AhKh", "QsQd"], backend="cuda")
    assert r.backend == "cuda" and r.boards == 1_712_304
    assert r.wins.tolist() == [787_966, 917_606] and r.ties.tolist() == [6_732, 6_732]


def test_showdown_counts_in_chunks_with_progress(fake, monkeypatch):
    players, board = EXACT_CASES["ranges vs ranges, flop"]
    pool, mu, boards, base = _exact_problem(players, board)
    want = numpy_engine.showdown_counts(pool, mu, boards, base=base)
    ld = len(pool) + (len(pool) & 1)
    monkeypatch.setattr(ce, "STRENGTH_BYTES", 2 * ld * 300)  # 300 boards per chunk
    fake.launches.clear()
    bar = Progress(len(boards), "test", enabled=True, stream=__import__("io").StringIO())
    got = ce.showdown_counts(pool, mu, boards, base=base, progress=bar)
    _same_counts(got, want)
    chunks = -(-len(boards) // 300)
    assert [n for n, _, _ in fake.launches].count("ge_eq_strengths") == chunks
    assert bar.done == len(boards)


def test_showdown_counts_on_sampled_boards_with_collisions(fake):
    """Boards that hit a pool hand (the matrix Monte Carlo passes such boards) are skipped."""
    pool = cards.to_mask(["AsAh", "KsKh", "QdJd", "7c2d", "AdKd"])
    mu = np.array([[0, 1], [0, 2], [1, 3], [2, 4], [3, 4], [1, 0]])
    boards = eb.sample(np.random.default_rng(3), 3000, eb.FULL_DECK, 5)
    want = numpy_engine.showdown_counts(pool, mu, boards)
    _same_counts(ce.showdown_counts(pool, mu, boards), want)
    assert (want.valid < 3000).all()


def test_colex_boards_equal_board_arrays(fake, host):
    """ge_eq_strengths unranks colex boards on the device exactly as completions() lists them."""
    state = ce.get_state()
    pool = cards.to_mask(["AhKh", "QsQd", "7c2d"])
    for k, known in ((1, "2c 3d 4h 9s"), (2, "2c 3d 9s"), (5, "")):
        base = int(cards.to_mask(known)) if known else 0
        deck = eb.FULL_DECK & ~(int(np.bitwise_or.reduce(pool)) | base)
        boards = eb.completions(deck, k)
        first = len(boards) // 3 if k == 5 else 0
        nb = min(3000, len(boards) - first)
        ld = 4
        s_arr = np.zeros(nb * ld, np.uint16).view(fake.ndarray)
        s_col = np.zeros(nb * ld, np.uint16).view(fake.ndarray)
        d_pool = fake.asarray(pool)
        ce._launch_strengths(state, d_pool, 3, fake.asarray(boards[first:first + nb]), None, 0,
                             0, base, nb, s_arr, ld)
        ce._launch_strengths(state, d_pool, 3, None, fake.asarray(eb.deck_ids(deck)), k, first,
                             base, nb, s_col, ld)
        np.testing.assert_array_equal(s_arr, s_col)
        full = boards[first:first + nb, None] | np.uint64(base)
        want = bitmask.evaluate_masks((pool[None, :] | full).reshape(-1)).reshape(nb, 3)
        np.testing.assert_array_equal(np.asarray(s_arr).reshape(nb, ld)[:, :3], want)


def test_public_equity_on_the_cuda_engine(fake):
    cases = [(["AhKh", "QsQd"], "2c 7d 9s", ""), (["AA", "KK, AKs"], "Kd 7c 2h", ""),
             (["AhKh", "QQ+,AKs", "JTs"], "Qc 7d 2h 3s", "4c")]
    for players, board, dead in cases:
        want = equity_api.equity(players, board=board, dead=dead, backend="numpy")
        got = equity_api.equity(players, board=board, dead=dead, backend="cuda")
        assert got.backend == "cuda" and got.exact and got.method == want.method
        np.testing.assert_array_equal(got.wins, want.wins)
        np.testing.assert_array_equal(got.ties, want.ties)
        np.testing.assert_allclose(got.equity, want.equity, rtol=0, atol=1e-15)
    auto = equity_api.equity(["AhKh", "QsQd"], board="2c 7d 9s", backend="auto")
    assert auto.backend == "cuda"


def test_equity_matrix_and_table_on_the_cuda_engine(fake):
    want = equity_api.equity_matrix("AKs", "QQ, JTs", board="Qc 7d 2h", backend="numpy")
    got = equity_api.equity_matrix("AKs", "QQ, JTs", board="Qc 7d 2h", backend="cuda")
    np.testing.assert_array_equal(np.isnan(got.matrix), np.isnan(want.matrix))
    np.testing.assert_allclose(got.matrix, want.matrix, rtol=0, atol=1e-15, equal_nan=True)
    mc = equity_api.equity_matrix("AKs", "QQ, JTs", board="Qc 7d 2h", exact=False, samples=3000,
                               seed=2, backend="cuda")
    mc_np = equity_api.equity_matrix("AKs", "QQ, JTs", board="Qc 7d 2h", exact=False,
                                  samples=3000, seed=2, backend="numpy")
    np.testing.assert_allclose(mc.matrix, mc_np.matrix, rtol=0, atol=1e-15, equal_nan=True)


# --- the all-pairs matrix --------------------------------------------------------------------

def test_pair_matrix_equals_brute_force_on_a_small_deck(fake):
    """All 91 hands of a 14-card deck (two pair tiles) over its 2,002 five-card boards."""
    deck_ids = [0, 1, 5, 9, 12, 16, 20, 24, 30, 33, 40, 45, 48, 51]
    deck = int(np.bitwise_or.reduce(cards.ID_TO_MASK[deck_ids]))
    ids = eb.deck_ids(deck)
    hands = np.array([int(cards.ID_TO_MASK[a] | cards.ID_TO_MASK[b])
                      for i, a in enumerate(ids) for b in ids[:i]], dtype=np.uint64)
    fake.launches.clear()
    bar = Progress(comb(14, 5), "test", enabled=True, stream=__import__("io").StringIO())
    w, t, per_pair = ce.pair_matrix_cuda(hands, deck, 5, progress=bar)
    assert per_pair == comb(10, 5) and bar.done == comb(14, 5)
    assert {n for n, _, _ in fake.launches} == {"ge_eq_strengths", "ge_eq_pairs"}
    assert w.dtype == t.dtype == np.uint32 and w.shape == (91, 91)
    ok = (hands[:, None] & hands[None, :]) == 0
    ia, ib = np.nonzero(ok)
    ref = numpy_engine.showdown_counts(hands, np.column_stack([ia, ib]), eb.completions(deck, 5))
    assert (ref.valid == per_pair).all()
    np.testing.assert_array_equal(w[ia, ib], ref.wins[:, 0])
    np.testing.assert_array_equal(t[ia, ib], ref.ties[:, 0])
    assert (w[~ok] == 0).all() and (t[~ok] == 0).all()


def test_pair_kernel_upper_tiles_on_sampled_boards(host):
    """ge_eq_pairs itself: 130 hands (3 tiles, a ragged last one), 1,000 random boards split
    over 7 board slices, against brute force; pairs that share a card count as if apart."""
    rng = np.random.default_rng(8)
    hands = np.unique(ranges.ALL_COMBO_MASKS[rng.choice(1326, 130, replace=False)])
    n_hands, ld = len(hands), 192
    boards = eb.sample(rng, 1000, eb.FULL_DECK, 5)
    st = bitmask.evaluate_masks((hands[None, :] | boards[:, None]).reshape(-1))
    st = st.reshape(len(boards), n_hands)
    st[(hands[None, :] & boards[:, None]) != 0] = 0
    s = np.zeros((len(boards), ld), np.uint16)
    s[:, :n_hands] = st
    w = np.zeros(n_hands * n_hands, np.uint32)
    t = np.zeros(n_hands * n_hands, np.uint32)
    host.launch("ge_eq_pairs", (6 + 1, 7), (256,),  # one block too many: it must do nothing
                (s.reshape(-1), np.uint32(ld), np.uint32(len(boards)), np.uint32(n_hands), w, t))
    a, b = st[:, :, None].astype(np.int32), st[:, None, :].astype(np.int32)
    valid = (a != 0) & (b != 0)
    want_w = ((a > b) & valid).sum(axis=0)
    want_t = ((a == b) & valid).sum(axis=0)
    tile = np.arange(n_hands) // 64
    upper = tile[:, None] <= tile[None, :]
    w, t = w.reshape(n_hands, n_hands), t.reshape(n_hands, n_hands)
    np.testing.assert_array_equal(w[upper], want_w[upper])
    np.testing.assert_array_equal(t[upper], want_t[upper])
    assert (w[~upper] == 0).all() and (t[~upper] == 0).all()


def test_preflop_pair_counts_come_from_the_matrix(fake, monkeypatch):
    """equity_matrix preflop on CUDA reads the all-pairs matrix (stubbed here: the real one
    is 2.6 million boards, a GPU job) when there are enough pairs."""
    pool = np.unique(cards.to_mask(["AhAs", "KsKh", "KsKd", "KsKc", "KhKd", "KhKc", "KdKc"]))
    pairs = np.array([[i, j] for i in range(len(pool)) for j in range(len(pool))
                      if not pool[i] & pool[j]])
    ref = numpy_engine.showdown_counts(pool, pairs, eb.completions(eb.FULL_DECK, 5))
    rows = ce._combo_rows(pool)
    w = np.zeros((1326, 1326), np.uint32)
    t = np.zeros((1326, 1326), np.uint32)
    w[rows[pairs[:, 0]], rows[pairs[:, 1]]] = ref.wins[:, 0]
    t[rows[pairs[:, 0]], rows[pairs[:, 1]]] = ref.ties[:, 0]
    monkeypatch.setattr(ce, "preflop_matrix_cuda", lambda progress=None: (w, t, 1_712_304))
    assert ce.preflop_pair_counts(pool, pairs) is None  # too few pairs for the matrix
    monkeypatch.setattr(ce, "PREFLOP_MATRIX_MIN_PAIRS", 1)
    _same_counts(ce.preflop_pair_counts(pool, pairs), ref)
    got = equity_api.equity_matrix("AhAs", "KK", backend="cuda")
    want = equity_api.equity_matrix("AhAs", "KK", backend="numpy")
    assert got.backend == "cuda" and got.exact
    np.testing.assert_allclose(got.matrix, want.matrix, rtol=0, atol=1e-15)
    assert not any(n == "ge_eq_showdown_2" for n, _, _ in fake.launches)


def test_finish_pair_matrix_fills_the_lower_tiles():
    hands = ranges.ALL_COMBO_MASKS[:200]
    rng = np.random.default_rng(1)
    w = rng.integers(0, 1000, (200, 200))
    t = rng.integers(0, 50, (200, 200))
    w2, t2 = ce.finish_pair_matrix(w, t, hands, 5000)
    apart = (hands[:, None] & hands[None, :]) == 0
    i, j = 150, 10  # tile 2 > tile 0: from (j, i)
    assert apart[i, j] and w2[i, j] == 5000 - w[j, i] - t[j, i] and t2[i, j] == t[j, i]
    i, j = 64, 101  # both in tile 1: as computed
    assert apart[i, j] and w2[i, j] == w[i, j]
    assert (w2[~apart] == 0).all() and (t2[~apart] == 0).all()


def test_combo_rows():
    rows = ce._combo_rows(cards.to_mask(["AsAh", "3c2c"]))
    assert rows.tolist() == [int(ranges.COMBO_INDEX[51, 50]), int(ranges.COMBO_INDEX[4, 0])]
    with pytest.raises(ValueError, match="two-card"):
        ce._combo_rows(cards.to_mask(["AsAhKs"]))


def test_engine_is_picked_for_cuda(monkeypatch):
    monkeypatch.setattr(backend_choice, "resolve", lambda backend, *inputs: "cuda")
    from gpu_eval.equity_engine.holdem import strategies

    eng, name = strategies.engine_for("cuda")
    assert eng is ce and name == "cuda"
    assert strategies.ENGINE.exact_limit("cuda") == ce.EXACT_WORK_LIMIT / ce.RATE


def test_importing_the_engine_does_not_import_cupy():
    code = ("import sys, gpu_eval.equity_engine.holdem.cuda_engine, gpu_eval.equity_engine.api; "
            "assert 'cupy' not in sys.modules, 'cupy was imported'")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_docstring_examples_run():
    failures, tried = doctest.testmod(ce, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert tried > 0 and failures == 0


# --- one body for the stand-in and a real device (the ``gpu`` fixture) ----------------------

def test_ahkh_vs_qsqd_preflop_exact(gpu):
    gpu.only_real("1,712,304 boards twice over (the exact preflop references)")
    r = equity(["AhKh", "QsQd"], backend="cuda")
    assert r.backend == "cuda" and r.exact and r.boards == 1_712_304
    assert r.wins.tolist() == [787_966, 917_606] and r.ties.tolist() == [6_732, 6_732]
    # Every board, without the suit symmetry.
    pool = cards.to_mask(["AhKh", "QsQd"])
    deck = eb.FULL_DECK & ~int(pool[0] | pool[1])
    c = ce.showdown_counts(pool, np.array([[0, 1]]), eb.completions(deck, 5))
    assert c.wins.tolist() == [[787_966, 917_606]] and c.ties.tolist() == [[6_732, 6_732]]
    assert c.valid.tolist() == [1_712_304]


@pytest.mark.parametrize("players, board, dead", [
    (["AhKh", "QsQd"], "2c 7d 9s", ""),
    (["AhKh", "AdKd", "7c7s"], "2h 5d 9c Qs", ""),
    (["QQ+,AKs,0.5(AQo)", "JJ+,AQs+,KQs"], "Kd 7c 2h", ""),
    (["AA", "KK", "AKs", "QQ,JJ", "KQs,QJs"], "2c 3c 8d", "4h"),
    (["AhKh", "QQ+,AKs"], "", ""),
])
def test_exact_equity_equals_numpy(gpu, players, board, dead):
    want = equity(players, board=board, dead=dead, exact=True, backend="numpy")
    got = equity(players, board=board, dead=dead, exact=True, backend="cuda")
    assert got.backend == "cuda" and got.method == want.method
    np.testing.assert_array_equal(got.wins, want.wins)
    np.testing.assert_array_equal(got.ties, want.ties)
    np.testing.assert_allclose(got.equity, want.equity, rtol=0, atol=1e-15)


def test_showdown_counts_on_sampled_boards_equal_numpy(gpu):
    rng = np.random.default_rng(4)
    pool = np.unique(ranges.ALL_COMBO_MASKS[rng.choice(1326, gpu.size(150, 40), replace=False)])
    pairs = np.argwhere((pool[:, None] & pool[None, :]) == 0)  # ~19,000 pairs on a GPU
    boards = eb.sample(rng, gpu.size(10_000, 500), eb.FULL_DECK, 5)
    want = numpy_engine.showdown_counts(pool, pairs, boards)
    got = ce.showdown_counts(pool, pairs, boards)
    for name in ("wins", "ties", "units", "valid"):
        np.testing.assert_array_equal(getattr(got, name), getattr(want, name), err_msg=name)


def test_device_generator_and_draws_equal_the_numpy_twin(gpu):
    cupy = gpu.cp
    state = ce.get_state()
    rng = np.random.default_rng(5)
    ctr = rng.integers(0, 2**32, size=(4000, 4), dtype=np.uint32)
    key = rng.integers(0, 2**32, size=(4000, 2), dtype=np.uint32)
    out = cupy.zeros((4000, 4), dtype=cupy.uint32)
    state.kernels["ge_eq_philox"]((16,), (256,), (cupy.asarray(ctr), cupy.asarray(key), out,
                                                  np.uint64(4000)))
    np.testing.assert_array_equal(out.get(), ce.philox4x32(ctr, key))
    for case, (players, board) in MC_CASES.items():
        holes, cum, deck_mask, _, k, dealt = mc_setup(players, board)
        combos, offsets, cw = ce._pack(holes, cum)
        deck = eb.deck_values(deck_mask)
        n, count, start, mkey = len(holes), 3000, 2**32 - 7, ce.mc_key(5)
        d_h = cupy.zeros(count * n, dtype=cupy.uint64)
        d_b = cupy.zeros(count, dtype=cupy.uint64)
        d_ok = cupy.zeros(count, dtype=cupy.uint8)
        state.kernels["ge_eq_mc_draws"](
            (12,), (256,),
            (np.int32(n), cupy.asarray(combos), cupy.asarray(offsets), cupy.asarray(cw),
             cupy.asarray(ce.player_modes(cum, dealt)), cupy.asarray(deck),
             np.uint32(len(deck)), np.int32(k), np.uint32(mkey[0]), np.uint32(mkey[1]),
             np.uint64(start), np.uint64(count), np.uint32(ce.MAX_TRIES), d_h, d_b, d_ok))
        h, b, ok = ce.mc_draws(holes, cum, deck_mask, k, start, count, mkey, dealt=dealt)
        np.testing.assert_array_equal(d_h.get().reshape(count, n), h, err_msg=case)
        np.testing.assert_array_equal(d_b.get(), b, err_msg=case)
        np.testing.assert_array_equal(d_ok.get().astype(bool), ok, err_msg=case)


@pytest.mark.parametrize("players, board, samples", [
    (["AhKh", "QQ+,AKs"], "", 4_000_000),
    (["AA", "KK", "random"], "2c 7d 9s", 2_000_000),
    (["QQ+:0.5,AKs", "JJ+,AQs+", "random"], "Kd 7c 2h 3s", 2_000_000),
])
def test_monte_carlo_within_four_standard_errors(gpu, players, board, samples):
    gpu.only_real("millions of samples and exact references on the device")
    exact = equity(players, board=board, exact=True, backend="cuda")
    mc = equity(players, board=board, exact=False, samples=samples, seed=3, backend="cuda")
    assert mc.backend == "cuda" and mc.samples == samples
    assert np.all(np.abs(mc.equity - exact.equity) < 4 * mc.stderr), (mc.equity, exact.equity)
    again = equity(players, board=board, exact=False, samples=samples, seed=3, backend="cuda")
    np.testing.assert_array_equal(again.wins, mc.wins)


def _numpy_pair(a: str, b: str) -> tuple[int, int, int]:
    pool = cards.to_mask([a, b])
    deck = eb.FULL_DECK & ~int(pool[0] | pool[1])
    c = numpy_engine.showdown_counts(pool, np.array([[0, 1]]), eb.completions(deck, 5))
    return int(c.wins[0, 0]), int(c.wins[0, 1]), int(c.ties[0, 0])


def test_preflop_matrix_cells_equal_numpy(gpu):
    gpu.only_real("every pair of 1,326 combos on every board")
    w, t, per_pair = ce.preflop_matrix_cuda()
    assert per_pair == 1_712_304 and w.shape == t.shape == (1326, 1326)
    row = {h: int(ranges.COMBO_INDEX[tuple(int(c) for c in cards.parse(h))])
           for h in ("AhKh", "QsQd", "AsAh", "KsKh", "7c2d", "AhKd", "5s4s", "AdAc", "Td9d",
                     "9c8c")}
    assert (int(w[row["AhKh"], row["QsQd"]]), int(t[row["AhKh"], row["QsQd"]])) == (787_966,
                                                                                    6_732)
    for a, b in [("AsAh", "KsKh"), ("7c2d", "AhKd"), ("5s4s", "AdAc"), ("Td9d", "9c8c")]:
        wa, wb, tie = _numpy_pair(a, b)
        i, j = row[a], row[b]
        assert (int(w[i, j]), int(w[j, i]), int(t[i, j]), int(t[j, i])) == (wa, wb, tie, tie)
    apart = (ranges.ALL_COMBO_MASKS[:, None] & ranges.ALL_COMBO_MASKS[None, :]) == 0
    total = w.astype(np.int64) + w.T + t
    assert (total[apart] == per_pair).all() and (w[~apart] == 0).all()


def test_preflop_table_and_matrix_on_cuda(gpu):
    gpu.only_real("exact preflop cells on the device")
    want = preflop_table(cells=[("AKs", "QQ"), ("72o", "AA")], exact=True, backend="numpy")
    got = preflop_table(cells=[("AKs", "QQ"), ("72o", "AA")], exact=True, backend="cuda")
    assert got.backend == "cuda" and got.exact
    np.testing.assert_allclose(got.table, want.table, rtol=0, atol=1e-12, equal_nan=True)
    m_want = equity_matrix("AA", "KK, AKs", backend="numpy")
    m_got = equity_matrix("AA", "KK, AKs", backend="cuda")
    np.testing.assert_allclose(m_got.matrix, m_want.matrix, rtol=0, atol=1e-12,
                               equal_nan=True)
