"""Range reports for Omaha: exactly two hole cards and three board cards make a hand.

Every *holding* (two hole cards, a column of the hold'em deck's 1,326 pairs) is read on each
three-card part of the board: its strength there (:func:`gpu_eval.board_strengths` of the
three cards), its class (the hold'em rules on those five cards, pairs placed against the
whole board), its flush and straight draws with both hole cards playing. A hand's strength
is its best holding's; its class the best class among the holdings that reach that strength;
its draws are those of any holding; its nut rank counts the distinct strengths of all
holdings above its own.

Equity counts every runout once: each hand's strength is the best of its holdings', and a
hero hand wins against the villain hands weaker than it that share none of its cards, counted
by inclusion-exclusion over the subsets of its cards (villain hands holding a given card,
pair, triple, ... of it, from one sort of subset keys per runout).
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations
from math import comb

import numpy as np

from gpu_eval.cards import ID_TO_MASK
from gpu_eval.games.registry import HOLDEM, Game
from gpu_eval.range_reports import bits
from gpu_eval.range_reports import boards as board_sets
from gpu_eval.range_reports.columns import Features, in_order
from gpu_eval.range_reports.draws import StraightParts, finish_draws, flush_bits, straight_parts
from gpu_eval.range_reports.equity import Counts
from gpu_eval.range_reports.hands import Side, column_of_pairs
from gpu_eval.range_reports.made_hands import category_table, classify_columns
from gpu_eval.range_reports.one_board import method_text, side_report
from gpu_eval.range_reports.outs import board_category
from gpu_eval.range_reports.results import RangeReport, range_equity
from gpu_eval.solver_tables.board_strengths import strengths_of_masks
from gpu_eval.solver_tables.layout import deck_layout

__all__ = ["holdings", "hand_columns", "report_one", "report_street", "hand_counts"]

_BINOM = np.array([[comb(n, k) for k in range(8)] for n in range(53)], dtype=np.int64)


def _triples(board: int) -> np.ndarray:
    ids = board_sets.mask_ids(np.uint64(board))[0]
    return np.array([int(ID_TO_MASK[list(t)].sum()) for t in combinations(ids.tolist(), 3)],
                    dtype=np.uint64)


@lru_cache(maxsize=2048)
def _holding_row(board: int, game: Game) -> tuple[np.ndarray, np.ndarray]:
    """Every holding's strength and class place on one board (before the holdings that touch
    it are cleared). Cached: a report on every turn reads each river board from both of its
    turns and for both ranges (four times), and each row costs ten three-card parts' strengths
    and classes (2,048 rows are 8 MB)."""
    lay = deck_layout(HOLDEM)
    t = _triples(board)
    st = strengths_of_masks(t, lay)
    cl = in_order(classify_columns(t, st, lay, game,
                                   position_boards=np.full(len(t), board, dtype=np.uint64)), game)
    top = st.max(axis=0)
    place = np.where(st == top, cl, 255).min(axis=0).astype(np.uint8)
    top.flags.writeable = False
    place.flags.writeable = False
    return top, place


def holdings(boards: np.ndarray, game: Game, *, with_draws: bool = True):
    """Per board (rows) and holding (the 1,326 pairs of the 52-card deck): strength, class place, and (with
    ``with_draws``) flush bits and straight parts. Holdings that touch the board are 0 / 255."""
    lay = deck_layout(HOLDEM)
    n = len(boards)
    s = np.zeros((n, lay.columns), dtype=np.uint16)
    place = np.full((n, lay.columns), 255, dtype=np.uint8)
    for i, b in enumerate(boards):
        s[i], place[i] = _holding_row(int(b), game)
    touch = (lay.pair_masks[None, :] & boards[:, None]) != 0
    s[touch] = 0
    place[touch] = 255
    if not with_draws:
        return s, place, None, None
    k = int(bits.popcount(boards[:1])[0]) if n else 3
    flush = flush_bits(lay.hole_lanes[:, None, :], bits.lanes(boards).T[:, :, None], game, k,
                       hole_needed=2)
    pr = (lay.pairs >> 2).astype(np.int8)
    used = (bits.rank_bits(pr[:, 0]) | bits.rank_bits(pr[:, 1]))[None, :]
    board_ranks = bits.rank_planes(boards)[0][:, None]
    parts = straight_parts(board_ranks | used, used, board_ranks, game, need_all=True)
    return s, place, flush, parts


def hand_columns(combos: np.ndarray) -> np.ndarray:
    """``(N, P)``: the columns of each hand's two-card holdings."""
    h = combos.shape[1]
    pairs = list(combinations(range(h), 2))
    return np.stack([column_of_pairs(combos[:, [a, b]], 0) for a, b in pairs], axis=1)


def _best(s_pairs: np.ndarray, place_pairs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    top = s_pairs.max(axis=-1)
    place = np.where(s_pairs == top[..., None], place_pairs, 255).min(axis=-1)
    return top, place.astype(np.uint8)


def _features(board: int, dead: int, game: Game, combos: np.ndarray) -> Features:
    """The features of hands (``(N, h)`` ids) on one board."""
    b = np.array([board], dtype=np.uint64)
    s, place, flush, parts = holdings(b, game)
    cols = hand_columns(combos)
    hs, hp = _best(s[0][cols], place[0][cols])
    k = bin(board).count("1")
    f_hand = np.bitwise_or.reduce(flush[0][cols], axis=-1)
    p_hand = StraightParts(parts.made[0][cols], parts.ranks[0][cols], parts.windows[0][cols],
                           parts.backdoor[0][cols]).reduce(axis=-1)
    top = bits.high_bit(bits.rank_planes(b)[0])[0]
    ranks = combos >> 2
    distinct_over = np.zeros(len(combos), dtype=np.int64)
    seen = np.zeros(len(combos), dtype=np.uint16)
    for j in range(combos.shape[1]):
        bit = bits.rank_bits(ranks[:, j])
        new = (ranks[:, j] > top) & ((seen & bit) == 0)
        distinct_over += new
        seen |= np.where(ranks[:, j] > top, bit, 0).astype(np.uint16)
    over = distinct_over >= 2
    draws, n = finish_draws(f_hand, p_hand, over, k, game)
    nr = _nut_rank(s[0], hs)
    outs, nuts = _outs(board, dead, game, combos, cols, hp)
    return Features(hs, hp, draws, n, nr, outs, nuts)


def _nut_rank(pair_s: np.ndarray, hand_s: np.ndarray) -> np.ndarray:
    u = np.unique(pair_s[pair_s > 0])
    return (len(u) - np.searchsorted(u, hand_s, side="right")).astype(np.int16)


def _outs(board: int, dead: int, game: Game, combos: np.ndarray, cols: np.ndarray,
          place_now: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    k = bin(board).count("1")
    n_out = np.zeros(len(combos), dtype=np.int16)
    n_nut = np.zeros(len(combos), dtype=np.int16)
    if k >= game.full_board:
        return n_out, n_nut
    ids, nxt = board_sets.next_boards(board, dead, game)
    s, place, _, _ = holdings(nxt, game, with_draws=False)
    hmask = np.bitwise_or.reduce(ID_TO_MASK[combos.astype(np.intp)], axis=1)
    cat = category_table(game.scale)
    own = board_category(nxt)        # the board never plays alone: above its own pairs
    # Each next board: the hand's best holding; the card must be unseen by the hand.
    for i, c in enumerate(ids):
        hs, hp = _best(s[i][cols], place[i][cols])
        ok = (hmask & ID_TO_MASK[c]) == 0
        better = ok & (hp < place_now) & (cat[hs] > own[i])
        n_out += better
        n_nut += better & (hs == s[i].max())
    return n_out, n_nut


def _subset_keys(combos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(keys, signs)``, ``(N, 2**h - 1)``: a number for every nonempty subset of each
    hand's cards (one numbering per size, offset so sizes never collide) and the
    inclusion-exclusion sign of its size."""
    h = combos.shape[1]
    c = np.sort(combos.astype(np.int64), axis=1)
    keys, signs = [], []
    offset = 0
    for size in range(1, h + 1):
        for sub in combinations(range(h), size):
            key = np.zeros(len(c), dtype=np.int64)
            for j, col in enumerate(sub):      # colex rank of the sorted subset
                key += _BINOM[c[:, col], j + 1]
            keys.append(key + offset)
            signs.append(1 if size % 2 else -1)
        offset += comb(52, size)
    return np.stack(keys, axis=1), np.array(signs, dtype=np.int64)


def _pair_strengths(runouts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(strengths, parts)``: every holding's strength on each three-card part met in the
    runouts (each part once), and the ten parts of each runout (rows of ``strengths``)."""
    lay = deck_layout(HOLDEM)
    parts: dict[int, int] = {}
    tri_of = np.empty((len(runouts), 10), dtype=np.intp)
    for r, b in enumerate(runouts):
        for j, t in enumerate(_triples(int(b))):
            tri_of[r, j] = parts.setdefault(int(t), len(parts))
    tri = np.array(list(parts), dtype=np.uint64)
    st = np.empty((len(tri), lay.columns), dtype=np.uint16)
    for a in range(0, len(tri), 512):
        st[a:a + 512] = strengths_of_masks(tri[a:a + 512], lay)
    return st, tri_of


def _count_against(r_ids, q_s, q_keys, q_sign, q_ok, e_s, e_keys, e_w, width):
    """For query hands (strengths ``q_s`` ``(n, Q)`` on ``n`` runouts, subset keys
    ``q_keys``) the weight of the entry hands (``e_s``, ``e_keys``, weights ``e_w`` ``(m, n,
    E)``, 0 where blocked) below and at their strength that share no card with them."""
    n = len(r_ids)
    rr = r_ids[:, None].astype(np.int64)
    m = e_w.shape[0]
    # All entries: one sorted list of (runout, strength).
    g = (rr * 8192 + e_s).ravel()
    go = np.argsort(g, kind="stable")
    gs = g[go]
    grun = np.zeros((m, len(g) + 1))
    np.cumsum(e_w.reshape(m, -1)[:, go], axis=1, out=grun[:, 1:])
    qg = (rr * 8192 + q_s).ravel()
    lo = np.searchsorted(gs, qg, "left")
    hi = np.searchsorted(gs, qg, "right")
    less = grun[:, lo] - grun[:, np.searchsorted(gs, (rr * 8192).repeat(q_s.shape[1]), "left")]
    equal = grun[:, hi] - grun[:, lo]
    # Entries sharing a card with the query: (runout, subset, strength), inclusion-exclusion.
    subsets = e_keys.shape[1]
    k = ((rr[:, :, None] * width + e_keys[None, :, :]) * 8192 + e_s[:, :, None]).ravel()
    ko = np.argsort(k, kind="stable")
    ks = k[ko]
    krun = np.zeros((m, len(k) + 1))
    np.cumsum(np.repeat(e_w.reshape(m, -1), subsets, axis=1)[:, ko], axis=1, out=krun[:, 1:])
    base = (rr[:, :, None] * width + q_keys[None, :, :]) * 8192                # (n, Q, S)
    at = (base + q_s[:, :, None]).ravel()
    a0 = np.searchsorted(ks, at, "left")
    a1 = np.searchsorted(ks, at, "right")
    z = np.searchsorted(ks, base.ravel(), "left")
    shape = (m, n, q_s.shape[1], q_keys.shape[1])
    less -= ((krun[:, a0] - krun[:, z]).reshape(shape) @ q_sign).reshape(m, -1)
    equal -= ((krun[:, a1] - krun[:, a0]).reshape(shape) @ q_sign).reshape(m, -1)
    ok = q_ok.ravel()
    return (less * ok).reshape(m, n, -1), (equal * ok).reshape(m, n, -1)


def hand_counts(runouts: np.ndarray, game: Game, hero: np.ndarray, hero_w: np.ndarray,
                villain: np.ndarray, villain_w: np.ndarray, reduce: str = "sum", bar=None,
                cards: np.ndarray | None = None):
    """Both sides' ``(less, equal)`` over ``runouts``: the hero hands against the villain's
    weights and their 0/1 indicator, and the villain hands against the hero's; each
    ``(2, H)`` / ``(2, V)`` summed over the runouts, ``(2, R, H)`` / ``(2, R, V)`` per runout
    (``reduce="none"``), or ``(2, N, H)`` / ``(2, N, V)`` summed over the runouts holding each
    of the ``N`` card ids ``cards`` (``reduce="cards"``)."""
    hc, vc = hand_columns(hero), hand_columns(villain)
    hm = np.bitwise_or.reduce(ID_TO_MASK[hero.astype(np.intp)], axis=1)
    vm = np.bitwise_or.reduce(ID_TO_MASK[villain.astype(np.intp)], axis=1)
    hk, hsign = _subset_keys(hero)
    vk, vsign = _subset_keys(villain)
    width = int(sum(comb(52, j) for j in range(1, hero.shape[1] + 1)))
    pm = deck_layout(HOLDEM).pair_masks
    st, tri_of = _pair_strengths(runouts)
    nr = len(runouts)
    lead = {"none": (nr,), "cards": (0 if cards is None else len(cards),)}.get(reduce, ())
    shape_h = (2, *lead, len(hero))
    shape_v = (2, *lead, len(villain))
    out = [np.zeros(shape_h), np.zeros(shape_h), np.zeros(shape_v), np.zeros(shape_v)]
    step = max(1, 400_000 // (max(len(hero), len(villain)) * hk.shape[1]))
    for a in range(0, nr, step):
        r_ids = np.arange(a, min(a + step, nr))
        b = runouts[r_ids]
        ps = st[tri_of[r_ids]].max(axis=1)                                   # (n, 1326)
        ps[(pm[None, :] & b[:, None]) != 0] = 0
        sh = ps[:, hc].max(axis=2).astype(np.int64)
        sv = ps[:, vc].max(axis=2).astype(np.int64)
        hok = (hm[None, :] & b[:, None]) == 0
        vok = (vm[None, :] & b[:, None]) == 0
        wv = np.stack([villain_w[None, :] * vok, vok.astype(float)])
        wh = np.stack([hero_w[None, :] * hok, hok.astype(float)])
        parts = (_count_against(r_ids, sh, hk, hsign, hok, sv, vk, wv, width)
                 + _count_against(r_ids, sv, vk, vsign, vok, sh, hk, wh, width))
        if reduce == "cards":
            run, card = np.nonzero((b[:, None] & ID_TO_MASK[cards][None, :]) != 0)
        for o, p in zip(out, parts):
            if reduce == "none":
                o[:, r_ids] = p
            elif reduce == "cards":
                # o[:, card] += p[:, run], repeated cards summed: through a (card, ...) view
                np.add.at(np.moveaxis(o, 1, 0), card, np.moveaxis(p[:, run], 1, 0))
            else:
                o += p.sum(axis=1)
        if bar is not None:
            bar.update(len(r_ids))
    return out


def _opponents(hero: np.ndarray, villain_masks: np.ndarray, villain_w: np.ndarray):
    """Per hero hand: the villain hands sharing no card with it, counted and weighed."""
    hm = np.bitwise_or.reduce(ID_TO_MASK[hero.astype(np.intp)], axis=1)
    n = np.zeros(len(hero), dtype=np.int64)
    w = np.zeros(len(hero))
    for a in range(0, len(hero), 256):
        fit = (hm[a:a + 256, None] & villain_masks[None, :]) == 0
        n[a:a + 256] = fit.sum(axis=1)
        w[a:a + 256] = fit @ villain_w
    return n, w


def _counts(less, equal, a: Side, b: Side, per: int) -> Counts:
    """The :class:`Counts` of ``a``'s hands against ``b`` from their ``(less, equal)``."""
    n, w = _opponents(a.combos, b.masks, b.weights)
    shape = less[0].shape
    return Counts(wins=np.rint(less[1]).astype(np.int64), ties=np.rint(equal[1]).astype(np.int64),
                  matchups=np.broadcast_to(n, shape), win_weight=less[0], tie_weight=equal[0],
                  weight=np.broadcast_to(w, shape), boards=per)


def report_one(game: Game, board: int, dead: int, hero: Side, villain: Side | None,
               backend: str = "numpy", bar=None, counted: list | None = None) -> RangeReport:
    """Both Omaha ranges on one board (``counted``: :func:`hand_counts` of the hands over the
    board's runouts, when they are known already)."""
    k = bin(board).count("1")
    per = hc = vc = None
    if villain is not None:
        per = comb(game.deck_size - k - bin(dead).count("1") - 2 * game.hole_cards,
                   game.full_board - k)
        if counted is None:
            runouts = board_sets.completions(board, dead, game, game.full_board - k)
            counted = hand_counts(runouts, game, hero.combos, hero.weights, villain.combos,
                                  villain.weights, bar=bar)
        lh, eh, lv, ev = counted
        hc = _counts(lh, eh, hero, villain, per)
        vc = _counts(lv, ev, villain, hero, per)
    hs = side_report(hero, game, _features(board, dead, game, hero.combos), hc)
    vs = None if villain is None else side_report(
        villain, game, _features(board, dead, game, villain.combos), vc)
    eq = None if hs.equity is None else range_equity(np.asarray(hs.weights), np.asarray(hs.equity),
                                                     np.asarray(hs.opp_weight))
    return RangeReport(game=game.name, board=board_sets.board_text(board),
                       dead=board_sets.board_text(dead), hero=hs, villain=vs, equity=eq,
                       method=method_text(len(hero), None if villain is None else len(villain),
                                          per), backend=backend)


def report_street(game: Game, board: int, dead: int, hero: Side, villain: Side | None,
                  backend: str = "numpy", bar=None) -> tuple[list[str], list[RangeReport]]:
    """An Omaha report on each next card."""
    ids, _ = board_sets.next_boards(board, dead, game)
    counts = None
    if villain is not None:
        # Each runout of the board holds next cards (two from a flop): a hand's counts on it
        # are the same in each of their reports (the hands through any of its cards count
        # nothing on it), so every runout is counted once, for all of them.
        runouts = board_sets.completions(board, dead, game,
                                         game.full_board - bin(board).count("1"))
        counts = hand_counts(runouts, game, hero.combos, hero.weights, villain.combos,
                             villain.weights, reduce="cards", cards=ids)
    texts, reports = [], []
    for i, c in enumerate(ids):
        nb = board | int(ID_TO_MASK[c])
        keep_h = (hero.masks & ID_TO_MASK[c]) == 0
        h = Side(hero.label, hero.combos[keep_h], hero.masks[keep_h], hero.weights[keep_h])
        v = None
        counted = None
        if villain is not None and counts is not None:
            keep_v = (villain.masks & ID_TO_MASK[c]) == 0
            v = Side(villain.label, villain.combos[keep_v], villain.masks[keep_v],
                     villain.weights[keep_v])
            counted = [x[:, i][:, keep] for x, keep in zip(counts, (keep_h, keep_h, keep_v,
                                                                    keep_v))]
        rep = report_one(game, nb, dead, h, v, backend, counted=counted)
        texts.append(board_sets.board_text(int(ID_TO_MASK[c])))
        reports.append(_renamed(rep, board_sets.board_text(board) + texts[-1]))
    return texts, reports


def _renamed(rep: RangeReport, board: str) -> RangeReport:
    from dataclasses import replace  # noqa: PLC0415

    return replace(rep, board=board)
