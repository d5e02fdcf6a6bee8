"""The solver tables (``gpu_eval.solver_tables``): board strengths, river strength, histograms,
files and the resumable builds, each against an independent slow reference.

Exhaustive parts use short deck (its whole river table takes about two seconds); hold'em parts
use random spots and a few chunks of the real table chunks.
"""

from __future__ import annotations

import itertools
import json
from math import comb

import numpy as np
import pytest

import gpu_eval as ge
from gpu_eval.cards import ID_TO_MASK
from gpu_eval.solver_tables import build, canonical, chunks, files
from gpu_eval.solver_tables.layout import deck_layout
from gpu_eval.solver_tables.results import ROUNDS
from gpu_eval.solver_tables.river_counts import count_columns

GAMES = ("holdem", "shortdeck", "shortdeck-triton")


def _random_boards(rng, n, k, game="holdem"):
    low = deck_layout(game).lowest_card
    return np.stack([rng.choice(np.arange(low, 52), k, replace=False) for _ in range(n)]
                    ).astype(np.uint8)


def _slow_strengths(boards, game):
    """Every pair's strength with each board through ge.evaluate, 0 where they touch."""
    pm = deck_layout(game).pair_masks
    bm = np.bitwise_or.reduce(ID_TO_MASK[boards], axis=1)
    hands = (bm[:, None] | pm[None, :]).ravel()
    ok = ((bm[:, None] & pm[None, :]) == 0).ravel()
    out = np.zeros(hands.shape, dtype=np.uint16)
    out[ok] = ge.evaluate(hands[ok], game=game, backend="numpy").view(np.uint16)
    return out.reshape(len(boards), -1)


def _slow_counts(holes, boards, game):
    """Wins and ties of hero ``holes[i]`` on ``boards[i]``: every opponent pair evaluated."""
    lay = deck_layout(game)
    s = _slow_strengths(boards, game)
    hm = np.bitwise_or.reduce(ID_TO_MASK[holes], axis=1)
    hero = ge.evaluate(np.bitwise_or.reduce(ID_TO_MASK[np.concatenate([holes, boards], 1)], 1),
                       game=game, backend="numpy").view(np.uint16)[:, None]
    opp = (s > 0) & ((lay.pair_masks[None, :] & hm[:, None]) == 0)
    assert (opp.sum(1) == comb(lay.deck_size - 7, 2)).all()
    return ((s < hero) & opp).sum(1), ((s == hero) & opp).sum(1)


def _random_spots(rng, n, game="holdem"):
    cards = _random_boards(rng, n, 7, game)
    return cards[:, :2], cards[:, 2:]


# -- hole_pairs, board_strengths -------------------------------------------------------------

def test_hole_pairs_colex():
    p = ge.hole_pairs()
    assert p.shape == (1326, 2) and p.dtype == np.uint8
    assert (p[:, 0] < p[:, 1]).all()
    assert (p[:, 1].astype(int) * (p[:, 1] - 1) // 2 + p[:, 0] == np.arange(1326)).all()
    s = ge.hole_pairs("shortdeck")
    assert s.shape == (630, 2) and s.min() == 16
    assert len({tuple(r) for r in s}) == 630
    p[0] = 7  # a copy: the layout is not changed
    assert ge.hole_pairs()[0].tolist() == [0, 1]


@pytest.mark.parametrize("game", GAMES)
def test_board_strengths_equal_evaluate(game):
    rng = np.random.default_rng(21)
    for k in (3, 4, 5):
        boards = _random_boards(rng, 150, k, game)
        got = ge.board_strengths(boards, game=game, backend="numpy")
        assert got.shape == (150, deck_layout(game).columns)
        assert (got.view(np.uint16) == _slow_strengths(boards, game)).all()
        assert got.dtype == ge.evaluate("AsKsQsJsTs", game=game).dtype


def test_board_strengths_flush_boards():
    # Every board with 3, 4 or 5 cards of one suit is where suits matter: many of them.
    rng = np.random.default_rng(3)
    boards = []
    for n_suited in (3, 4, 5):
        for _ in range(60):
            s = rng.integers(4)
            suited = rng.choice(13, n_suited, replace=False) * 4 + s
            rest = [c for c in rng.permutation(52) if c % 4 != s][:5 - n_suited]
            boards.append(np.r_[suited, rest])
    boards = np.array(boards, dtype=np.uint8)
    assert (ge.board_strengths(boards, backend="numpy") == _slow_strengths(boards, "holdem")).all()


def test_board_strengths_inputs_agree():
    rng = np.random.default_rng(4)
    boards = _random_boards(rng, 20, 5)
    ref = ge.board_strengths(boards, backend="numpy")
    text = [ge.cards.format(b) for b in boards]
    masks = np.bitwise_or.reduce(ID_TO_MASK[boards], axis=1)
    assert (ge.board_strengths(text, backend="numpy") == ref).all()
    assert (ge.board_strengths(masks, backend="numpy") == ref).all()
    assert (ge.board_strengths(boards[:, ::-1].astype(np.int64), backend="numpy") == ref).all()
    one = ge.board_strengths(text[0], backend="numpy")
    assert one.shape == (1326,) and (one == ref[0]).all()
    mixed = ge.board_strengths(["AsKsQs", "AsKsQsJs", "AsKsQsJs2c"], backend="numpy")
    for row, b in zip(mixed, ["AsKsQs", "AsKsQsJs", "AsKsQsJs2c"]):
        assert (row == ge.board_strengths(b, backend="numpy")).all()
    before = boards.copy()
    ge.board_strengths(boards, backend="numpy")
    assert (boards == before).all()


@pytest.mark.parametrize("boards, game, message", [
    (["AsKsQs", "AsAsQs"], "holdem", "'AsAsQs' (row 1)"),
    (["AsKs"], "holdem", "2 cards; a board has 3 to 5"),
    (["AsKsQsJsTs9s"], "holdem", "6 cards"),
    (["AsKs5d"], "shortdeck", "card 5d is not in the 36-card deck"),
    (np.array([[0, 1, 52]]), "holdem", "card id 52 is out of range"),
    (["AsKsQs"], "omaha", "not supported"),
])
def test_board_strengths_bad_input(boards, game, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        ge.board_strengths(boards, game=game, backend="numpy")


def test_board_strengths_type_error():
    with pytest.raises(TypeError):
        ge.board_strengths(np.array([[0.0, 1.0, 2.0]]), backend="numpy")


# -- river counting ----------------------------------------------------------------------------

@pytest.mark.parametrize("game", ("holdem", "shortdeck"))
def test_count_columns_equal_every_opponent(game):
    """The sorted, card-removal counts equal comparing each hero with every opponent pair."""
    rng = np.random.default_rng(5)
    lay = deck_layout(game)
    boards = _random_boards(rng, 60, 5, game)
    s = _slow_strengths(boards, game)
    wins, ties = count_columns(s, lay, 5)
    disjoint = (lay.pair_masks[:, None] & lay.pair_masks[None, :]) == 0
    for i in range(len(boards)):
        valid = s[i] > 0
        opp = disjoint & valid[None, :]
        w = ((s[i][None, :] < s[i][:, None]) & opp).sum(1)
        t = ((s[i][None, :] == s[i][:, None]) & opp).sum(1)
        assert (wins[i] == np.where(valid, w, 0)).all()
        assert (ties[i] == np.where(valid, t, 0)).all()


def test_river_strength_equals_slow_reference():
    rng = np.random.default_rng(6)
    holes, boards = _random_spots(rng, 3000)
    ix = ge.HandIndexer((2, 5))
    idx = ix.index(np.concatenate([holes, boards], axis=1))
    r = ge.river_strength(indices=idx)
    w, t = _slow_counts(holes, boards, "holdem")
    assert (r.wins == w).all() and (r.ties == t).all()
    assert np.allclose(r.ehs, (w + t / 2) / 990)
    assert (r.indices == idx).all()


def test_river_strength_equals_equity():
    rng = np.random.default_rng(7)
    holes, boards = _random_spots(rng, 1000)
    ix = ge.HandIndexer((2, 5))
    r = ge.river_strength(indices=ix.index(np.concatenate([holes, boards], axis=1)))
    for h, b, w, t in zip(holes, boards, r.wins, r.ties):
        e = ge.equity([ge.cards.format(h), "random"], board=ge.cards.format(b), exact=True,
                      backend="numpy")
        assert e.matchups == 990 and (e.wins[0], e.ties[0]) == (w, t)


def test_river_table_chunk_equals_equity_and_covers():
    """Two chunks of the hold'em river table: every hand they set agrees with the slow way."""
    p = chunks.chunks_of("river", "holdem")
    rng = np.random.default_rng(8)
    ix = ge.HandIndexer((2, 5))
    for i in (0, p.chunks - 1):
        idx, vals = p.run(i)
        pick = rng.choice(len(idx), 400, replace=False)
        hands = ix.unindex(1, idx[pick])
        w, t = _slow_counts(hands[:, :2], hands[:, 2:], "holdem")
        assert (vals["wins"][pick] == w).all() and (vals["ties"][pick] == t).all()


@pytest.fixture(scope="module")
def shortdeck_river():
    """The whole short-deck river table, built by its chunks (as every build runs
    them), checking on the way that the chunks set every row."""
    p = chunks.chunks_of("river", "shortdeck")
    arrays = {n: np.zeros(shape, dtype=dt) for n, (dt, shape) in p.arrays().items()}
    seen = np.zeros(p.rows, dtype=bool)
    for i in range(p.chunks):
        idx, vals = p.run(i)
        seen[idx] = True
        for n, v in vals.items():
            arrays[n][idx] = v
    assert seen.all()
    return p.result(arrays)


@pytest.fixture(scope="module")
def shortdeck_preflop():
    return ge.strength_histograms("preflop", game="shortdeck", bins=10)


def test_shortdeck_river_table(shortdeck_river):
    r = shortdeck_river
    ix = ge.HandIndexer((2, 5), game="shortdeck")
    assert len(r) == ix.size(1) and r.opponents == 406
    rng = np.random.default_rng(9)
    idx = rng.integers(0, len(r), 2000)
    hands = ix.unindex(1, idx)
    w, t = _slow_counts(hands[:, :2], hands[:, 2:], "shortdeck")
    assert (r.wins[idx] == w).all() and (r.ties[idx] == t).all()
    d = ge.river_strength("shortdeck", indices=idx)
    assert (d.wins == w).all() and (d.ties == t).all()


@pytest.mark.parametrize("street, k", [("flop", 3), ("turn", 4)])
def test_canonical_boards_reach_every_index(street, k):
    """Every hand is a hole pair on one of the canonical boards: the scatter sets every row."""
    lay = deck_layout("shortdeck")
    boards = canonical.canonical_boards(k, "shortdeck")
    ix = canonical.indexer(ROUNDS[street], "shortdeck")
    # every board with every hole pair that shares no card with it, indexed in one call
    rb, cols = np.nonzero((lay.pair_masks[None, :]
                           & np.bitwise_or.reduce(ID_TO_MASK[boards], axis=1)[:, None]) == 0)
    seen = np.zeros(ix.size(1), dtype=bool)
    seen[ix.index(np.concatenate([lay.pairs[cols], boards[rb]], 1))] = True
    assert seen.all()
    sizes = canonical.orbit_sizes(k, "shortdeck")
    assert sizes.sum() == comb(36, k) and (sizes > 0).all()


def test_river_bad_indices():
    with pytest.raises(ValueError, match=r"indices, position 1: index -1 is out of range"):
        ge.river_strength(indices=[0, -1])
    with pytest.raises(ValueError, match="123,156,254"):
        ge.river_strength(indices=[123_156_254])
    with pytest.raises(TypeError):
        ge.river_strength(indices=[0.5])
    with pytest.raises(ValueError, match="unknown game"):
        ge.river_strength("pineapple", indices=[0])


# -- histograms --------------------------------------------------------------------------------

def _slow_histograms(hands, k, bins, game="holdem"):
    """Every runout's river strength through river_strength(indices=...), then binned."""
    lay = deck_layout(game)
    opp = comb(lay.deck_size - 7, 2)
    ix = ge.HandIndexer((2, 5), game=game)
    deck = np.arange(lay.lowest_card, 52, dtype=np.uint8)
    full = []
    for h in hands:
        left = deck[~np.isin(deck, h)]
        runs = np.array(list(itertools.combinations(left, 5 - k)), dtype=np.uint8)
        full.append(np.concatenate([np.broadcast_to(h, (len(runs), 2 + k)), runs], axis=1))
    # one call for every hand's runouts (as many for each hand), a row of them per hand
    r = ge.river_strength(game, indices=ix.index(np.concatenate(full)))
    t = (2 * r.wins.astype(np.int64) + r.ties).reshape(len(hands), -1)
    ehs = t / (2 * opp)
    # the float definition (exact for the bin counts used here; see the bins test)
    b = np.minimum(np.floor(ehs * bins).astype(int), bins - 1)
    counts = np.stack([np.bincount(row, minlength=bins) for row in b])
    return counts, t.sum(axis=1), (t * t).sum(axis=1)


@pytest.mark.parametrize("street, k, chunk, n", [("flop", 3, 5, 80), ("turn", 4, 7, 300)])
def test_histogram_chunks_equal_slow_way(street, k, chunk, n):
    p = chunks.chunks_of(street, "holdem", 50)
    idx, vals = p.run(chunk)
    rng = np.random.default_rng(10)
    pick = rng.choice(len(idx), n, replace=False)
    ix = ge.HandIndexer((2, k))
    hands = ix.unindex(1, idx[pick])
    c, s, sq = _slow_histograms(hands, k, 50)
    assert (vals["counts"][pick] == c).all()
    assert (vals["twice_sum"][pick] == s).all() and (vals["twice_sumsq"][pick] == sq).all()
    h = ge.strength_histograms(street, indices=idx[pick])
    assert (h.counts == c).all() and (h.twice_sum == s).all() and (h.twice_sumsq == sq).all()
    assert np.allclose(h.mean, s / (1980 * p.runouts))
    assert np.allclose(h.mean_sq, sq / (1980 ** 2 * p.runouts))
    assert (h.counts.sum(1) == p.runouts).all()


def test_histograms_by_index_random_flops():
    """strength_histograms(indices=...) on random hold'em flop hands against the slow way."""
    rng = np.random.default_rng(11)
    idx = rng.integers(0, 1_286_792, 100)
    h = ge.strength_histograms("flop", indices=idx, bins=8)
    c, s, sq = _slow_histograms(ge.HandIndexer((2, 3)).unindex(1, idx), 3, 8)
    assert (h.counts == c).all() and (h.twice_sum == s).all() and (h.twice_sumsq == sq).all()


def test_bins_are_decided_in_integers():
    t = np.arange(1981)
    for bins in (1, 7, 50, 99, 1980):
        exact = np.minimum(t * bins // 1980, bins - 1)
        assert (chunks.bin_of(t, bins, 990) == exact).all()
    # ehs = 1350 / 1980 is exactly 15 / 22: its bin is 15, where floats say 14
    assert chunks.bin_of(np.array([1350]), 22, 990)[0] == 15
    assert int(np.floor(1350 / 1980 * 22)) == 14


def test_shortdeck_preflop_equals_equity(shortdeck_preflop):
    h = shortdeck_preflop
    ix = ge.HandIndexer((2,), game="shortdeck")
    assert len(h) == 81 == ix.size(0) and (h.counts.sum(1) == h.runouts).all()
    i = int(ix.index(ge.cards.parse("AsAh").reshape(1, 2))[0])
    e = ge.equity(["AsAh", "random"], exact=True, game="shortdeck", backend="numpy")
    assert int(h.twice_sum[i]) == 2 * e.wins[0] + e.ties[0]
    assert abs(h.mean[i] - e.equity[0]) < 1e-12


def test_holdem_preflop_equals_equity_against_a_random_hand():
    # The whole hold'em preflop table (about 10 s on two cores): every one of the 169 hands'
    # rolled-out EHS is its exact equity against a random hand, integer for integer; AA's is
    # the published 0.8520 (wins 84.93%; ties 0.5436%, which the issue rounds to 0.55% and
    # the exact counts, every engine's, to 0.54%).
    h = ge.strength_histograms("preflop", bins=50, progress=False)
    ix = ge.HandIndexer((2,))
    assert len(h) == 169 == ix.size(0) and (h.counts.sum(1) == h.runouts).all()
    hands = ix.unindex(0, np.arange(169))
    for i, ids in enumerate(hands):
        e = ge.equity([ge.cards.format(ids), "random"], exact=True, backend="numpy")
        assert int(h.twice_sum[i]) == 2 * e.wins[0] + e.ties[0], i
        assert abs(h.mean[i] - e.equity[0]) < 1e-12
    aa = int(ix.index(ge.cards.parse("AsAh").reshape(1, 2))[0])
    e = ge.equity(["AsAh", "random"], exact=True, backend="numpy")
    assert f"{h.mean[aa]:.4f}" == "0.8520"
    assert (f"{e.win[0]:.2%}", f"{e.tie[0]:.4%}") == ("84.93%", "0.5436%")


def test_histograms_bad_input():
    with pytest.raises(ValueError, match="street 'river'"):
        ge.strength_histograms("river", indices=[0])
    with pytest.raises(ValueError, match="bins"):
        ge.strength_histograms("flop", bins=0, indices=[0])
    with pytest.raises(ValueError, match="1,286,792"):
        ge.strength_histograms("flop", indices=[2_000_000])


# -- files, the command line, Dask -------------------------------------------------------------

def test_save_load_round_trip(tmp_path, shortdeck_river):
    side = ge.save_table(shortdeck_river, tmp_path / "sd")
    doc = json.loads(side.read_text())
    assert doc["game"] == "shortdeck" and doc["layout"]["rounds"] == [2, 5]
    assert doc["rows"] == len(shortdeck_river) and doc["opponents"] == 406
    back = ge.load_table(tmp_path / "sd")
    assert isinstance(back.wins, np.memmap)
    assert (back.wins == shortdeck_river.wins).all() and (back.ties == shortdeck_river.ties).all()
    h = ge.strength_histograms("turn", indices=[0, 5, 9], bins=4)
    ge.save_table(h, tmp_path / "h.json")
    hb = ge.load_table(tmp_path / "h.json", mmap=False)
    assert (hb.counts == h.counts).all() and (hb.indices == h.indices).all()
    assert hb.street == "turn" and hb.bins == 4 and (hb.mean == h.mean).all()


def test_load_refuses_damage_and_mismatch(tmp_path):
    r = ge.river_strength(indices=np.arange(100))
    side = ge.save_table(r, tmp_path / "t")
    wins = tmp_path / "t.wins.npy"
    good = wins.read_bytes()
    bad = bytearray(good)
    bad[-3] ^= 0xFF
    wins.write_bytes(bytes(bad))
    with pytest.raises(ValueError, match="damaged"):
        ge.load_table(side)
    wins.write_bytes(good[:-2])
    with pytest.raises(ValueError, match="damaged"):
        ge.load_table(side)
    wins.write_bytes(good)
    ge.load_table(side)
    doc = json.loads(side.read_text())
    doc["arrays"]["wins"]["shape"] = [99]
    side.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match=r"'wins' is <u2 of shape \[99\], but the sidecar's "
                                         r"rows \(100\) need <u2 of shape \[100\]"):
        ge.load_table(side)
    doc["arrays"]["wins"]["shape"] = [100]
    doc["layout"]["rounds"] = [2, 3]
    side.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="layout"):
        ge.load_table(side)
    # a pickled object array under the right name and checksum is still refused
    np.save(wins, np.array([object()] * 100, dtype=object), allow_pickle=True)
    doc["layout"]["rounds"] = [2, 5]
    doc["arrays"]["wins"]["sha256"] = files.file_sha256(wins)
    side.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="not a readable"):
        ge.load_table(side)
    with pytest.raises(ValueError, match="no table"):
        ge.load_table(tmp_path / "missing")
    with pytest.raises(TypeError):
        ge.save_table({"wins": 1}, tmp_path / "x")


def test_cli_resumes_to_identical_bytes(tmp_path, monkeypatch, capsys, shortdeck_river):
    from gpu_eval import cli

    args = ["tables", "river", "--game", "shortdeck", "--no-progress", "--out", str(tmp_path)]
    monkeypatch.setenv(build.STOP_ENV, "3")
    assert cli.main(args) != 0
    assert "stopped after 3 chunks" in capsys.readouterr().err
    stem = build.table_stem(tmp_path, "river", "shortdeck")
    assert (stem.parent / (stem.name + ".partial")).is_dir()
    with pytest.raises(ValueError, match="no table"):
        ge.load_table(stem)                                   # half a table never loads
    monkeypatch.setenv(build.STOP_ENV, "2")
    assert cli.main(args) != 0
    monkeypatch.delenv(build.STOP_ENV)
    assert cli.main(args) == 0
    ge.save_table(shortdeck_river, tmp_path / "whole")       # the table built in one go
    for name in ("wins", "ties"):
        assert (tmp_path / f"whole.{name}.npy").read_bytes() == \
            (stem.parent / f"{stem.name}.{name}.npy").read_bytes()
    assert not (stem.parent / (stem.name + ".partial")).exists()
    t = ge.load_table(stem)
    assert len(t) == ge.HandIndexer((2, 5), game="shortdeck").size(1)


def test_cli_preflop_resume(tmp_path, monkeypatch, shortdeck_preflop):
    from gpu_eval import cli

    args = ["tables", "preflop", "--game", "shortdeck", "--bins", "10", "--no-progress"]
    monkeypatch.setenv(build.STOP_ENV, "4")
    assert cli.main(args + ["--out", str(tmp_path)]) != 0
    monkeypatch.delenv(build.STOP_ENV)
    assert cli.main(args + ["--out", str(tmp_path)]) == 0
    t = ge.load_table(build.table_stem(tmp_path, "preflop", "shortdeck"))
    h = shortdeck_preflop
    assert (t.counts == h.counts).all() and (t.twice_sumsq == h.twice_sumsq).all()
    assert t.counts.dtype == np.uint32 and t.runouts == comb(34, 5)


def test_dask_build_identical_bytes(shortdeck_river, shortdeck_preflop):
    distributed = pytest.importorskip("distributed")
    from gpu_eval.solver_tables.cluster import build_table

    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=":0") as lc, distributed.Client(lc) as c:
        r = build_table(c, "river", game="shortdeck")
        h = build_table(c, "preflop", game="shortdeck", bins=10)
    assert r.wins.tobytes() == shortdeck_river.wins.tobytes()
    assert r.ties.tobytes() == shortdeck_river.ties.tobytes()
    for name in ("counts", "twice_sum", "twice_sumsq"):
        assert getattr(h, name).tobytes() == getattr(shortdeck_preflop, name).tobytes()
    with pytest.raises(TypeError, match="distributed.Client"):
        build_table("nope", "river", game="shortdeck")


@pytest.mark.parametrize("game, street, chunk", [("holdem", "flop", 438), ("shortdeck", "flop", 0),
                                                 ("shortdeck", "turn", 0)])
def test_runouts_counted_once_per_orbit_change_nothing(game, street, chunk, monkeypatch):
    """Counting one runout per orbit of the board's stabilizer (and permuting the columns)
    gives the rows of counting every runout."""
    p = chunks.chunks_of(street, game, 50)
    monkeypatch.setattr(chunks, "SYMMETRY", False)
    want = p.run(chunk)
    monkeypatch.setattr(chunks, "SYMMETRY", True)
    got = p.run(chunk)
    assert (want[0] == got[0]).all()
    for name in want[1]:
        assert (want[1][name] == got[1][name]).all(), name
