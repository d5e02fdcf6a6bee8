"""Low games: 2-7 lowball (``"deuce-seven"``), A-5 lowball (``"ace-five"``, razz) and badugi.

Every scale here is dense and, like every strength in the package, **higher is better**:
the best low has the highest strength, so :func:`gpu_eval.compare` and the equity engines
need no special case.

``"deuce-seven"`` (exactly five cards): aces are always high, straights and flushes count
against the hand, A-5-4-3-2 is an ace-high no-pair hand (it beats A-6-4-3-2 and every pair and
loses to every king-high). The scale runs 1..7462: 7462 is 7-5-4-3-2 unsuited (the nuts),
1 a royal flush. Its classes are the hold'em classes read the other way round, with the wheel
an ace-high hand instead of a straight.

``"ace-five"`` (best five of 5 to 7 cards): the ace is low, straights and flushes are ignored,
pairs count against; no qualifier. 1..6175 (one class per multiset of five ranks): 6175 is
5-4-3-2-A, 1 four kings with a queen. Categories (hold'em numbering): 0 no pair, 1 pair,
2 two pair, 3 trips, 6 full house, 7 quads; a full house is worse than trips here.

``"badugi"`` (four cards, ace low): the largest subset of cards with four, three, two or one
distinct suits *and* ranks plays; more cards beat fewer, then the lower highest card, and so
on. 1..1092: 1092 is the A-2-3-4 badugi, 1 a lone king. ``category`` is the number of cards
that play (1..4).

How the tables are built (first principles, no evaluator involved)
-------------------------------------------------------------------
Each class is written as a *badness key*: its category's position in the game's order, then
the ranks in the order they are compared (the largest group first, highest first; A-5 and
badugi count the ace as one), a hex digit each. Sorting the keys of all classes numbers
them; a strength is the number of classes at least as bad. 2-7 and A-5 are functions of the
rank counts (plus, for 2-7, whether the five cards are suited), so their tables are indexed
by the perfect (quinary) hash of the rank-count vector that ``gpu_eval.evaluator.phash``
defines; A-5 of six or seven cards is the best of the five-card sub-multisets. Badugi is read
from the colex number of its four sorted card ids, all C(52, 4) = 270,725 of them.
"""

from __future__ import annotations

from functools import cache
from itertools import combinations

import numpy as np

from gpu_eval import cards
from gpu_eval.evaluator import inputs, phash
from gpu_eval.evaluator.numpy_path import ids_to_masks, run_chunked
from gpu_eval.games import registry
from gpu_eval.games.registry import ACE_FIVE, BADUGI, DEUCE_SEVEN, tag

__all__ = ["GAMES", "NUM_CLASSES", "deuce_seven_tables", "ace_five_tables", "badugi_table",
           "evaluate_masks", "evaluate_hands", "evaluate_rows", "category", "describe",
           "class_table", "colex4", "rank_groups"]

#: The low evaluator games, and the classes on each scale.
GAMES = (DEUCE_SEVEN, ACE_FIVE, BADUGI)
NUM_CLASSES = {DEUCE_SEVEN: 7462, ACE_FIVE: 6175, BADUGI: 1092}

_HIGH_CARD, _PAIR, _TWO_PAIR, _TRIPS, _STRAIGHT, _FLUSH, _FULL_HOUSE, _QUADS, _SF = range(9)
#: A-5 category order, best first is the reverse: no pair .. quads (full house below trips).
_A5_ORDER = (_HIGH_CARD, _PAIR, _TWO_PAIR, _TRIPS, _FULL_HOUSE, _QUADS)
_RANK_TEXT = "23456789TJQKA"
_CATEGORY_NAMES = ("High Card", "Pair", "Two Pair", "Three of a Kind", "Straight", "Flush",
                   "Full House", "Four of a Kind", "Straight Flush")
_BADUGI_NAMES = ("One-card", "Two-card", "Three-card", "Badugi")
_STRAIGHTS_27 = tuple(0x1F << lo for lo in range(9))  # 6-5-4-3-2 .. A-K-Q-J-T, no wheel


def _value(ace_low: bool) -> np.ndarray:
    """Digit of each rank 0..12 (2..A) in the keys: rank + 1, or with the ace low 1 and
    2..K as 2..13."""
    v = np.arange(13) + 1
    return np.where(np.arange(13) == 12, 1, v + 1) if ace_low else v


def _count_keys(counts: np.ndarray, ace_low: bool) -> tuple[np.ndarray, np.ndarray]:
    """``(category, digits)`` of five-card rank-count vectors ``(N, 13)``: the category by
    the group sizes (hold'em numbering; straights are the caller's), digits the ranks by
    group size then value, highest first, packed as five hex digits."""
    c = counts.astype(np.int64)
    val = _value(ace_low)
    order = np.argsort(-(c * 16 + val[None, :]), axis=1, kind="stable")[:, :5]
    cnt = np.take_along_axis(c, order, axis=1)
    dig = np.where(cnt > 0, val[order], 0)
    distinct = (c > 0).sum(axis=1)
    top = c.max(axis=1)
    cat = np.select([distinct == 5, distinct == 4, (distinct == 3) & (top == 2), distinct == 3,
                     top == 3], [_HIGH_CARD, _PAIR, _TWO_PAIR, _TRIPS, _FULL_HOUSE], _QUADS)
    packed = np.zeros(len(c), dtype=np.int64)
    for j in range(5):
        packed = packed * 16 + dig[:, j]
    return cat, packed


def _rank_mask(counts: np.ndarray) -> np.ndarray:
    return ((counts > 0).astype(np.int64) << np.arange(13)).sum(axis=1)


def _dense(keys: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """``(sorted unique keys, strength of each key)``: the lowest badness gets ``n``."""
    uniq = np.unique(keys)
    assert len(uniq) == n, (len(uniq), n)
    return uniq, n - np.searchsorted(uniq, keys)


@cache
def deuce_seven_tables() -> dict[str, np.ndarray]:
    """2-7 tables: ``noflush`` (``uint16[6175]``, by the quinary hash of five cards' rank
    counts) and ``flush`` (``uint16[8192]``, by a suit's 13-bit rank mask; 0 unless five
    cards), read-only.

    Examples
    --------
    >>> t = deuce_seven_tables()
    >>> int(t["flush"][0x1F00]), int(t["flush"][0b1111])   # royal flush; no flush (4 cards)
    (1, 0)
    """
    vectors = phash.count_vectors(5)
    cat, dig = _count_keys(vectors, ace_low=False)
    mask = _rank_mask(vectors)
    straight = np.isin(mask, _STRAIGHTS_27)
    cat = np.where(straight, _STRAIGHT, cat)
    fmask = np.arange(1 << 13)
    fives = fmask[np.bitwise_count(fmask) == 5]
    fcounts = (fives[:, None] >> np.arange(13)) & 1
    _, fdig = _count_keys(fcounts, ace_low=False)
    fcat = np.where(np.isin(fives, _STRAIGHTS_27), _SF, _FLUSH)
    keys = np.concatenate([cat << 20 | dig, fcat << 20 | fdig])
    _, strength = _dense(keys, NUM_CLASSES[DEUCE_SEVEN])
    noflush = strength[:len(vectors)].astype(np.uint16)
    flush = np.zeros(1 << 13, dtype=np.uint16)
    flush[fives] = strength[len(vectors):]
    return _readonly({"noflush": noflush, "flush": flush, "keys": keys.astype(np.int64)})


@cache
def ace_five_tables() -> dict[str, np.ndarray]:
    """A-5 tables: ``noflush`` (``uint16``; five, six and seven cards' blocks, by the quinary
    hash of the rank counts) and ``offset`` (``uint32[10]``: where k cards' block starts).

    Examples
    --------
    >>> t = ace_five_tables()
    >>> int(t["noflush"][t["offset"][5]:t["offset"][6]].max())
    6175
    """
    dp = phash.dp_table()
    v5 = phash.count_vectors(5)
    cat, dig = _count_keys(v5, ace_low=True)
    pos = np.searchsorted(np.array(_A5_ORDER), cat)
    _, s5 = _dense(pos << 20 | dig, NUM_CLASSES[ACE_FIVE])
    blocks, offset, start = [s5], np.zeros(10, dtype=np.uint32), 0
    offset[5], start = 0, len(v5)
    for k in (6, 7):
        # The best five of k cards is the best five of k - 1 after taking one card away, over
        # every rank held: each five-card sub-multiset lies in some (k - 1)-card one, so a
        # block is 13 lookups into the last (13 for seven cards, not 91 sub-multisets of five).
        vk = phash.count_vectors(k).astype(np.int64)
        best = np.zeros(len(vk), dtype=np.int64)
        for r in range(13):
            held = np.flatnonzero(vk[:, r])
            sub = vk[held]
            sub[:, r] -= 1
            best[held] = np.maximum(best[held], blocks[-1][phash.quinary_hash(sub, k - 1, dp)])
        offset[k] = start
        start += len(vk)
        blocks.append(best)
    offset[8:] = start
    return _readonly({"noflush": np.concatenate(blocks).astype(np.uint16), "offset": offset,
                      "keys": (pos << 20 | dig).astype(np.int64)})


def colex4(ids: np.ndarray) -> np.ndarray:
    """Colex number of rows of four increasing card ids (``C(a,1)+C(b,2)+C(c,3)+C(d,4)``).

    Examples
    --------
    >>> colex4(np.array([[0, 1, 2, 3], [48, 49, 50, 51]])).tolist()
    [0, 270724]
    """
    c = np.asarray(ids, dtype=np.int64)
    a, b, cc, d = c[:, 0], c[:, 1], c[:, 2], c[:, 3]
    return a + b * (b - 1) // 2 + cc * (cc - 1) * (cc - 2) // 6 \
        + d * (d - 1) * (d - 2) * (d - 3) // 24


@cache
def _badugi_classes() -> tuple[np.ndarray, np.ndarray]:
    """``(uint16[270725] strength by colex number, sorted class keys)``."""
    from gpu_eval.combinatorics import unrank  # noqa: PLC0415

    # One contiguous int32 row per card position (int64 columns of an (N, 4) array cost
    # about four times as much per pass over the 270,725 hands).
    ids = np.ascontiguousarray(unrank(np.arange(270725), 4).T, dtype=np.int32)
    rank, suit = ids // 4, ids % 4
    val = _value(ace_low=True).astype(np.int32)[rank]  # A=1 .. K=13
    n = ids.shape[1]
    apart = {(i, j): (rank[i] != rank[j]) & (suit[i] != suit[j])
             for i, j in combinations(range(4), 2)}
    keys = np.zeros(n, dtype=np.int32)
    for size in range(1, 5):
        for sub in combinations(range(4), size):
            ok = np.ones(n, dtype=bool)
            for pair in combinations(sub, 2):
                ok &= apart[pair]
            v = [val[i] for i in sub]
            for a in range(size):  # highest first: bubble each position's largest up to it
                for b in range(size - 1, a, -1):
                    v[b - 1], v[b] = np.maximum(v[b - 1], v[b]), np.minimum(v[b - 1], v[b])
            digits = np.zeros(n, dtype=np.int32)
            for j in range(4):
                digits = digits * 16 + (v[j] if j < size else 0)
            key = size << 16 | (0xFFFF - digits)  # higher is better here
            keys = np.where(ok, np.maximum(keys, key), keys)
    uniq = np.unique(keys).astype(np.int64)
    assert len(uniq) == NUM_CLASSES[BADUGI]
    return (np.searchsorted(uniq, keys) + 1).astype(np.uint16), uniq


def badugi_table() -> np.ndarray:
    """Badugi strengths (``uint16[270725]``) by the colex number of the four sorted card ids.

    Examples
    --------
    >>> t = badugi_table()
    >>> int(t[colex4(np.array([[1, 6, 11, 48]]))[0]])   # 2d 3h 4s Ac: the best badugi
    1092
    """
    return _readonly({"t": _badugi_classes()[0]})["t"]


@cache
def rank_groups() -> tuple[np.ndarray, ...]:
    """The quinary hash's rank-group tables (``gpu_eval.evaluator.phash.group_tables``),
    built from the hash's own counts without the hold'em tables behind
    ``phash.rank_groups`` (two seconds saved on a first low evaluation).

    Examples
    --------
    >>> [len(t) for t in rank_groups()]
    [40960, 5120, 5120, 5120]
    """
    return tuple(phash.group_tables(phash.dp_table()))


def _readonly(d: dict) -> dict:
    for a in d.values():
        a.flags.writeable = False
    return d


def _packed_counts(masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    lanes = masks.view(np.uint16).reshape(-1, 4)
    packed = np.zeros(len(masks), dtype=np.uint64)
    for i in range(4):
        packed += np.take(phash.SPREAD, lanes[:, i])
    return lanes, packed


def _mask_ids4(masks: np.ndarray) -> np.ndarray:
    """The four card ids of four-card masks, increasing (``(N, 4)``)."""
    m = masks.copy()
    out = np.empty((len(m), 4), dtype=np.int64)
    for j in range(4):
        low = m & (~m + np.uint64(1))
        bit = np.bitwise_count(low - np.uint64(1)).astype(np.int64)
        out[:, j] = 4 * (bit % 16) + bit // 16
        m ^= low
    return np.sort(out, axis=1)


def evaluate_masks(masks: np.ndarray, game: str) -> np.ndarray:
    """Strengths of valid ``uint64`` hand masks (the right card count each; not checked).

    Examples
    --------
    >>> evaluate_masks(cards.to_mask(["7c5d4h3s2c", "Ah5d4h3s2c"]), "deuce-seven").tolist()
    [7462, 6678]
    """
    m = np.ascontiguousarray(masks, dtype=np.uint64).reshape(-1)
    if game == BADUGI:
        if not len(m):
            return np.zeros(0, dtype=np.uint16)
        return np.take(badugi_table(), colex4(_mask_ids4(m)))
    lanes, packed = _packed_counts(m)
    k = np.bitwise_count(m).astype(np.uint32)
    h = phash.rank_count_hash(packed, k, rank_groups())
    if game == DEUCE_SEVEN:
        t = deuce_seven_tables()
        flush = np.zeros(len(m), dtype=np.uint16)
        for i in range(4):
            flush |= np.take(t["flush"], lanes[:, i])  # at most one lane has five cards
        return np.where(flush > 0, flush, np.take(t["noflush"], h)).astype(np.uint16)
    t = ace_five_tables()
    return np.take(t["noflush"], np.take(t["offset"], k) + h)


def evaluate_hands(hands, *, game: str = DEUCE_SEVEN, invalid: str = "raise",
                   encoding: str = "auto"):
    """NumPy evaluation behind ``gpu_eval.evaluate(hands, game=...)`` for the low games.

    Examples
    --------
    >>> evaluate_hands(["7c5d4h3s2c", "Ks Kc Kd Kh Qs"], game="ace-five").tolist()
    [6165, 1]
    """
    return evaluate_rows(hands, game, invalid, encoding, None)


def evaluate_rows(hands, game: str, invalid: str, encoding: str, device=None):
    """Validate, evaluate (NumPy, or ``device(masks, game)``), apply ``invalid``, tag."""
    record = registry.get(game, evaluators=GAMES, where="the low evaluators")
    lo, hi = record.evaluate_cards
    h = inputs.coerce(hands, encoding=encoding, invalid=invalid)
    n = h.n
    out = np.zeros(n, dtype=np.uint16)
    counts = np.empty(n, dtype=np.uint8)
    masks = np.empty(n, dtype=np.uint64)

    def work(start: int, stop: int) -> None:
        if h.ids is not None:
            m = ids_to_masks(h.ids[start:stop])
        else:
            assert h.masks is not None, "Hands holds ids or masks"
            m = h.masks[start:stop] & cards.VALID_MASK_BITS
        counts[start:stop] = np.bitwise_count(m)
        masks[start:stop] = m

    run_chunked(n, work)
    ok = (counts >= lo) & (counts <= hi)
    if ok.any():
        # placeholders keep every row inside the tables; wrong rows are zeroed after
        good = np.where(ok, masks, masks[np.flatnonzero(ok)[0]])
        low = record.evaluator  # razz: the A-5 low; a draw game: its low
        out[:] = evaluate_masks(good, low) if device is None else device(good, low)
    out[~ok] = 0
    inputs.finish(h, out, counts, lo, hi, invalid)
    return tag(out, game, scalar=h.scalar)


@cache
def class_table(game: str) -> tuple[np.ndarray, tuple[str, ...]]:
    """``(category by strength, description by strength)`` of a low scale (index 0: no
    valid hand).

    Examples
    --------
    >>> cat, names = class_table("deuce-seven")
    >>> names[7462], names[1]
    ('7-5-4-3-2', 'Straight Flush, A-K-Q-J-T')
    """
    n = NUM_CLASSES[game]
    cats = np.zeros(n + 1, dtype=np.uint8)
    names = ["no valid hand"] + [""] * n
    if game == BADUGI:
        _, uniq = _badugi_classes()
        for s, key in enumerate(uniq.tolist(), start=1):
            size, digits = key >> 16, 0xFFFF - (key & 0xFFFF)
            low_ranks = [(digits >> (4 * (3 - j))) & 15 for j in range(size)]
            cats[s] = size
            names[s] = f"{_BADUGI_NAMES[size - 1]} " + "-".join("A23456789TJQK"[r - 1]
                                                                 for r in low_ranks)
        return cats, tuple(names)
    if game == DEUCE_SEVEN:
        keys, text, order = deuce_seven_tables()["keys"], _RANK_TEXT, None
    else:
        keys, text, order = ace_five_tables()["keys"], "A23456789TJQK", _A5_ORDER
    uniq = np.unique(keys)
    for i, key in enumerate(uniq.tolist()):
        s = n - i
        cat = key >> 20 if order is None else order[key >> 20]
        digits = [(key >> (4 * (4 - j))) & 15 for j in range(5)]
        group = {_PAIR: [2, 1, 1, 1], _TWO_PAIR: [2, 2, 1], _TRIPS: [3, 1, 1],
                 _FULL_HOUSE: [3, 2], _QUADS: [4, 1]}.get(cat, [1] * 5)
        ranks = "-".join(text[d - 1] for d, g in zip(digits, group) for _ in range(g))
        cats[s] = cat
        names[s] = ranks if cat == _HIGH_CARD else f"{_CATEGORY_NAMES[cat]}, {ranks}"
    return cats, tuple(names)


def _checked(strength, game: str) -> np.ndarray:
    arr = np.asarray(strength)
    if arr.dtype.kind not in "iu":
        raise TypeError(f"strengths must be integers, got dtype {arr.dtype}")
    top = NUM_CLASSES[game]
    bad = (arr < 0) | (arr > top)
    if bad.any():
        where = tuple(int(w) for w in np.argwhere(bad)[0]) if arr.ndim else ()
        at = f" at index {where}" if arr.ndim else ""  # a single strength has no index
        raise ValueError(f"strength {int(arr[where])}{at} is outside the {game!r} scale "
                         f"1..{top}")
    return arr.astype(np.int64)


def category(strength, game: str) -> np.ndarray:
    """Categories of low strengths: 2-7 and A-5 in hold'em numbering, badugi the number of
    cards that play.

    Examples
    --------
    >>> category([6175, 1], "ace-five").tolist()
    [0, 7]
    """
    return class_table(game)[0][_checked(strength, game)]


def describe(strength, game: str):
    """Low strengths in words: ``"7-5-4-3-2"``, ``"Pair, 2-2-7-5-3"``, ``"Badugi 4-3-2-A"``.

    Examples
    --------
    >>> describe(1092, "badugi"), describe([6175], "ace-five")
    ('Badugi 4-3-2-A', ['5-4-3-2-A'])
    """
    arr = _checked(strength, game)
    names = class_table(game)[1]
    if arr.ndim == 0:
        return names[int(arr)]
    return np.array(names, dtype=object)[arr].tolist()
