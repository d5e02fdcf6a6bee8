"""Every made-hand class, draw, outs count and nut rank of ``range_report`` against the slow
reference classifier (``tests/report_reference.py``), on every combo of random boards."""

from __future__ import annotations

import numpy as np
import pytest

import gpu_eval as ge
from gpu_eval.range_reports.api import range_report

import report_reference as ref

GAMES = {"holdem": ref.Game("holdem"), "shortdeck": ref.Game("shortdeck"),
         "shortdeck-triton": ref.Game("shortdeck-triton")}


def _boards(game: ref.Game, k: int, n: int, seed: int) -> list[str]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        idx = rng.choice(len(game.deck), k, replace=False)
        out.append("".join(ref.RANKS[game.deck[i][0]] + ref.SUITS[game.deck[i][1]] for i in idx))
    return out


def _check_board(gname: str, board: str, with_outs: int, seed: int) -> None:
    game = GAMES[gname]
    r = range_report("random", board=board, game=gname)
    side = r.hero
    names = [k.name for k in side.classes]
    assert names == game.classes, "the class order"
    bcards = ref.cards_of(board)
    draw_names = [k.name for k in side.draw_kinds]
    cats = ge.category(np.asarray(side.strength), game=gname)
    rng = np.random.default_rng(seed)
    outs_rows = set(rng.choice(len(side.combos), min(with_outs, len(side.combos)),
                               replace=False).tolist())
    n_combos = len(ref.holdings(game, bcards))
    assert len(side.combos) == n_combos, "a row per combo that fits the board"
    hands = side.hands  # a property that formats every combo: once, not once a row
    for i, ids in enumerate(np.asarray(side.combos)):
        hole = [ref.from_id(int(c)) for c in ids]
        cls, key = ref.made_class(game, hole, bcards)
        where = f"{gname} {board} {hands[i]}"
        assert names[side.made[i]] == cls, where
        want_cat = side.classes[side.made[i]].category
        if want_cat is not None:
            assert cats[i] == want_cat == key[2], where
        else:
            assert cats[i] <= 1, where
        got = {draw_names[b] for b in range(len(draw_names)) if (int(side.draws[i]) >> b) & 1}
        assert got == ref.draws(game, hole, bcards), where
        assert side.nut_rank[i] == ref.nut_rank(game, key, bcards), where
        if i in outs_rows:
            assert (side.outs[i], side.nut_outs[i]) == ref.outs(game, hole, bcards), where


@pytest.mark.parametrize("gname", sorted(GAMES))
@pytest.mark.parametrize("k", [3, 4, 5])
def test_classes_draws_nut_rank_match_the_reference(gname, k):
    seed = 100 * k + len(gname)
    for j, board in enumerate(_boards(GAMES[gname], k, 2 if k < 5 else 3, seed)):
        _check_board(gname, board, with_outs=12 if (k < 5 and j == 0) else 0, seed=seed + j)


@pytest.mark.parametrize("board", ["Ts9s8d", "5h4h3c2d"])
def test_outs_of_every_combo_on_chosen_boards(board):
    _check_board("holdem", board, with_outs=10_000, seed=0)


def test_classes_partition_every_range():
    r = range_report("QQ+, AKs, 0.4(A5s-A2s), 76s, KQo:0.5", "22+, A2s+", board="Ac7d7h")
    for side in (r.hero, r.villain):
        t = side.class_table()
        assert int(t["combos"].sum()) == len(side.combos)
        assert abs(float(t["weight"].sum()) - float(np.sum(side.weights))) < 1e-12
        assert abs(float(t["share"].sum()) - 1) < 1e-12
        member = np.stack([side.select(made=name) for name in t["class"]])
        assert (member.sum(axis=0) == 1).all()


OMAHA = {"omaha": ref.Game("omaha", hole=4, omaha=True),
         "omaha5": ref.Game("omaha5", hole=5, omaha=True)}


def _omaha_range(game: ref.Game, board: str, n: int, seed: int) -> str:
    """``n`` random hands that miss the board, as range text (one token per hand)."""
    rng = np.random.default_rng(seed)
    bc = ref.cards_of(board)
    deck = [c for c in game.deck if c not in bc]
    hands = {tuple(sorted(rng.choice(len(deck), game.hole, replace=False).tolist()))
             for _ in range(n)}
    return ", ".join("".join(ref.RANKS[deck[i][0]] + ref.SUITS[deck[i][1]] for i in h)
                     for h in sorted(hands))


@pytest.mark.parametrize("gname", sorted(OMAHA))
@pytest.mark.parametrize("k", [3, 4, 5])
def test_omaha_classes_draws_nut_rank_outs_match_the_reference(gname, k):
    game = OMAHA[gname]
    board = _boards(game, k, 1, 7 * k + game.hole)[0]
    spec = _omaha_range(game, board, 120, k)
    side = range_report(spec, board=board, game=gname).hero
    names = [k.name for k in side.classes]
    draw_names = [k.name for k in side.draw_kinds]
    bcards = ref.cards_of(board)
    cats = ge.category(np.asarray(side.strength), game=gname)
    hands = side.hands
    for i, ids in enumerate(np.asarray(side.combos)):
        hole = [ref.from_id(int(c)) for c in ids]
        cls, key = ref.made_class(game, hole, bcards)
        where = f"{gname} {board} {hands[i]}"
        assert names[side.made[i]] == cls, where
        want = side.classes[side.made[i]].category
        assert cats[i] == key[2] and (want is None or want == cats[i]), where
        got = {draw_names[b] for b in range(len(draw_names)) if (int(side.draws[i]) >> b) & 1}
        assert got == ref.draws(game, hole, bcards), where
        assert side.nut_rank[i] == ref.nut_rank(game, key, bcards), where
        if i < (6 if k < 5 else 0):
            assert (side.outs[i], side.nut_outs[i]) == ref.outs(game, hole, bcards), where
