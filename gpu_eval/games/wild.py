"""Wild cards: jokers, wild ranks (deuces wild, ...) and the bug.

``gpu_eval.evaluate(hands, wild=...)`` with

* ``wild="joker"``: up to two jokers (id 52, text ``Jk`` or ``Xx``; a 54-card deck) per hand,
  each standing for any card;
* ``wild="2"`` (any rank ``"2"``..``"A"``, ``"10"`` too): every card of that rank is wild;
  ``["joker", "2"]`` combines them;
* ``wild="bug"``: a joker that counts only as an ace, or as any card that completes a
  straight, a flush or a straight flush (draw poker's "bug").

**Rules.** A wild card takes any rank and any suit, and it may duplicate a card already in the
hand (the usual house rule: it is what makes five of a kind possible, e.g. four aces and a
joker). The hand is then the best five cards as usual, with **five of a kind** (category 9)
above a straight flush. A flush still means five different ranks of one suit (a wild card
completing a flush takes the best rank that suit is missing). The bug makes five aces with
four aces (or three aces and two bugs).

**Scale** (``game="wild"`` for :func:`gpu_eval.describe` / :func:`gpu_eval.category`): the
hold'em scale 1..7462 unchanged, plus the 13 five-of-a-kind classes on top: 7463 five twos
.. 7475 five aces (``NUM_CLASSES = 7475``). A hand without wild cards gets its hold'em
strength, so a wild-card strength is comparable with another wild-card strength, and equals
the hold'em strength when no wild card is involved; never compare it with another game's.

**Method.** Exact, and without trying substitutions one by one at evaluation time. With ``w``
wild cards and the natural (non-wild) cards' rank counts ``c``:

* five of a kind exists when some rank has ``c[r] + w >= 5``; it is the best hand, and its
  rank is the highest such ``r`` (any rank, i.e. aces, when ``w >= 5``);
* otherwise the best hand not made of one suit depends only on ``c`` and ``w``:
  ``rank_best[w][c] = max over r of rank_best[w - 1][c + e_r]`` with ``rank_best[0]`` the
  hold'em non-flush strength of the counts (the bitmask evaluator on the counts dealt out in
  rotating suits, so that no flush forms). The tables, indexed by
  the perfect hash of ``c`` (``gpu_eval.evaluator.phash``), hold every count vector of 0..8 natural
  cards and are built once (about 1 s);
* the best flush-type hand of a suit holding the natural ranks ``m`` is
  ``suit_best[w][m]``: the best straight flush window missing at most ``w`` of its ranks, or
  else the flush of ``m`` plus its ``w`` best missing ranks (0 when ``m`` has fewer than
  ``5 - w`` ranks);
* the answer is the largest of the three. This is the maximum over every substitution of the
  wild cards (the tests check it against that brute force), because a flush-type and a
  rank-type reading never need the same wild card twice.

The bug: the best of five aces (as above), the hold'em strength of the hand with the bugs
turned into aces (an ace may also complete a flush), the best straight missing at most ``b``
ranks (``straight_best[b][ranks]``), and ``suit_best[b]`` per suit.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

import numpy as np

from gpu_eval import card_input, cards
from gpu_eval import scale as S
from gpu_eval.cards import ID_TO_MASK, JOKER
from gpu_eval.evaluator import inputs, phash
from gpu_eval.evaluator.bitmask import evaluate_masks
from gpu_eval.evaluator.numpy_path import run_chunked
from gpu_eval.games.registry import WILD, tag

__all__ = ["NUM_CLASSES", "FIVE_OF_A_KIND_BASE", "WildSpec", "parse_wild", "wild_tables",
           "wild_device_tables", "evaluate_hands", "MAX_JOKERS"]

#: Strengths 1..7475: hold'em's 7462 classes, then five of a kind (twos .. aces).
NUM_CLASSES = S.NUM_CLASSES + 13
FIVE_OF_A_KIND_BASE = S.NUM_CLASSES  # five of rank r is FIVE_OF_A_KIND_BASE + r + 1
#: Jokers a hand may hold (a 54-card deck).
MAX_JOKERS = 2
MAX_WILD_TABLE = 4  # with 5+ wild cards the hand is always five aces

_RANK_NAMES = {**{ch: i for i, ch in enumerate(cards.RANKS)}, "10": 8}
ID_OR_JOKER_TO_MASK = np.concatenate([ID_TO_MASK, [np.uint64(0)]])  # a joker adds no bit
_ACE_BITS = np.uint64(sum(1 << (16 * s + 12) for s in range(4)))


@dataclass(frozen=True)
class WildSpec:
    """What is wild: ``jokers`` is ``"none"``, ``"wild"`` or ``"bug"``; ``ranks`` a 13-bit
    mask of wild ranks."""

    jokers: str
    ranks: int

    @property
    def rank_bits(self) -> np.uint64:
        """Hand-mask bits of the wild ranks (all four suits)."""
        return np.uint64(sum(self.ranks << (16 * s) for s in range(4)))


def parse_wild(wild) -> WildSpec:
    """Read ``wild=``: ``"joker"``, ``"bug"``, a rank (``"2"``, ``"T"``, ``"10"``, ...) or a
    list of jokers and ranks.

    Examples
    --------
    >>> parse_wild(["joker", "2"])
    WildSpec(jokers='wild', ranks=1)
    >>> parse_wild("bug")
    WildSpec(jokers='bug', ranks=0)
    """
    items = [wild] if isinstance(wild, str) else list(wild) if wild is not None else []
    if not items:
        raise ValueError("wild= needs 'joker', 'bug', a rank such as '2', or a list of them")
    jokers, ranks = "none", 0
    for item in items:
        if not isinstance(item, str):
            raise TypeError(f"wild= takes strings such as 'joker' or '2', got {item!r}")
        key = item.strip().lower()
        if key in ("joker", "jokers", "jk", "xx"):
            jokers = "wild" if jokers != "bug" else _conflict(wild)
        elif key == "bug":
            jokers = "bug" if jokers != "wild" else _conflict(wild)
        elif key.upper() in _RANK_NAMES:
            ranks |= 1 << _RANK_NAMES[key.upper()]
        else:
            raise ValueError(f"wild={item!r}: expected 'joker', 'bug' or a rank from "
                             f"23456789TJQKA")
    if jokers == "bug" and ranks:
        raise ValueError("wild='bug' cannot be combined with wild ranks; use 'joker' for a "
                         "fully wild joker")
    return WildSpec(jokers, ranks)


def _conflict(wild):
    raise ValueError(f"wild={wild!r}: a joker is either fully wild ('joker') or a bug ('bug')")


# ------------------------------------------------------------------------------- tables


@dataclass(frozen=True)
class WildTables:
    """Tables of the wild-card evaluator (read-only NumPy arrays); see the module docstring."""

    rank_best: np.ndarray     # uint16[sum]: [offset[w * 10 + n] + hash_n(counts)], w = 1..4
    offset: np.ndarray        # uint32[50]: block start for w wild cards and n natural cards
    suit_best: np.ndarray     # uint16[5 * 8192]: [w * 8192 + suit rank mask], w = 0..4
    straight_best: np.ndarray  # uint16[3 * 8192]: [b * 8192 + rank mask], b = 0..2 (the bug)

    def as_dict(self) -> dict[str, np.ndarray]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def _hash_plus_one(vectors: np.ndarray, total: int, dp: np.ndarray) -> np.ndarray:
    """``hash(c + e_r)`` for every count vector ``c`` (rows, summing to ``total``) and rank r.

    Adding a card of rank r raises the cards left to place at every position up to r, so
    ``hash(c + e_r) = sum_{i<r} DP[c_i, 12-i, left_i + 1] + DP[c_r + 1, 12-r, left_r + 1]
    + sum_{i>r} DP[c_i, 12-i, left_i]`` with ``left_i`` the cards at positions >= i.
    """
    c = vectors.astype(np.int64)
    pos = 12 - np.arange(13)
    left = total - np.concatenate([np.zeros((len(c), 1), np.int64), np.cumsum(c, axis=1)[:, :-1]],
                                  axis=1)
    plus = dp[c, pos, np.minimum(left + 1, dp.shape[2] - 1)]
    same = dp[c, pos, left]
    before = np.cumsum(plus, axis=1) - plus               # sum over i < r
    after = np.cumsum(same[:, ::-1], axis=1)[:, ::-1] - same  # sum over i > r
    bumped = dp[np.minimum(c + 1, 4), pos, np.minimum(left + 1, dp.shape[2] - 1)]
    return before + bumped + after


def _noflush(vectors: np.ndarray) -> np.ndarray:
    """Hold'em non-flush strength of rank-count vectors (rows with one sum, 5..9)."""
    n = int(vectors[0].sum())
    ranks = np.repeat(np.tile(np.arange(13), len(vectors)), vectors.ravel()).reshape(-1, n)
    # Suits by position in the sorted ranks (0, 1, 2, 3, 0, ...): equal ranks sit side by side
    # and get different suits, and no suit gets five cards: a rank-only hand.
    bits = ranks + 16 * (np.arange(n) % 4)
    masks = np.bitwise_or.reduce(np.uint64(1) << bits.astype(np.uint64), axis=1)
    return evaluate_masks(masks).astype(np.int64)


@cache
def _hash_tables() -> tuple[np.ndarray, tuple[np.ndarray, ...]]:
    """The perfect hash of rank counts (``phash``'s DP and rank-group tables), without the
    perfect-hash evaluator's own (slower to build) strength tables."""
    dp = phash.dp_table()
    return dp, tuple(phash.group_tables(dp))


def _rank_best() -> tuple[np.ndarray, np.ndarray]:
    """``rank_best[w][n]`` for w = 1..4 and n + w = 5..9 (see the module docstring)."""
    dp = _hash_tables()[0]
    vectors = {n: phash.count_vectors(n) for n in range(0, phash.MAX_CARDS + 1)}
    best = {(0, n): _noflush(vectors[n]) for n in range(5, phash.MAX_CARDS + 1)}
    # Where each vector goes with one card more of each rank (0 where it holds four), and
    # whether it can: the same for every number of wild cards, so worked out once per n.
    room = {n: vectors[n] < 4 for n in range(phash.MAX_CARDS)}
    nxt = {n: np.where(room[n], _hash_plus_one(vectors[n], n, dp), 0)
           for n in range(phash.MAX_CARDS)}
    for w in range(1, MAX_WILD_TABLE + 1):
        for n in range(max(0, 5 - w), phash.MAX_CARDS + 1 - w):
            vals = best[(w - 1, n + 1)][nxt[n]]
            best[(w, n)] = np.where(room[n], vals, 0).max(axis=1)
    blocks, offset, pos = [], np.zeros(10 * (MAX_WILD_TABLE + 1), dtype=np.uint32), 0
    for (w, n), vals in sorted(best.items()):
        if w == 0:
            continue
        offset[w * 10 + n] = pos
        blocks.append(vals)
        pos += len(vals)
    return np.concatenate(blocks).astype(np.uint16), offset


def _top_missing(masks: np.ndarray, w: int) -> np.ndarray:
    return S.top_bits(~masks & 0x1FFF, w) if w else np.zeros_like(masks)


def _suit_best(w: int) -> np.ndarray:
    m = S.ALL_RANK_MASKS
    flush = S.five_distinct_strength(m | _top_missing(m, w), flush=True)
    sf = S.five_distinct_strength(np.array(S.STRAIGHT_MASKS), flush=True)
    for window, value in zip(S.STRAIGHT_MASKS, sf):
        flush = np.where(np.bitwise_count(window & ~m) <= w, np.maximum(flush, value), flush)
    return np.where(np.bitwise_count(m) + w >= 5, flush, 0)


def _straight_best(b: int) -> np.ndarray:
    m = S.ALL_RANK_MASKS
    st = S.five_distinct_strength(np.array(S.STRAIGHT_MASKS), flush=False)
    out = np.zeros(len(m), dtype=np.int64)
    for window, value in zip(S.STRAIGHT_MASKS, st):
        out = np.where(np.bitwise_count(window & ~m) <= b, value, out)  # ascending windows
    return out


@cache
def wild_tables() -> WildTables:
    """Generate (once, about 1 s) and return the wild-card tables.

    Examples
    --------
    >>> t = wild_tables()
    >>> int(t.suit_best[1 * 8192 + 0b1111000000000])   # K-Q-J-T suited + a wild card
    7462
    """
    rank_best, offset = _rank_best()
    tables = WildTables(
        rank_best=rank_best, offset=offset,
        suit_best=np.concatenate([_suit_best(w) for w in range(MAX_WILD_TABLE + 1)]
                                 ).astype(np.uint16),
        straight_best=np.concatenate([_straight_best(b) for b in range(MAX_JOKERS + 1)]
                                     ).astype(np.uint16),
    )
    for a in tables.as_dict().values():
        a.flags.writeable = False
    return tables


# ---------------------------------------------------------------------------- evaluation


def _highest_rank(masks: np.ndarray) -> np.ndarray:
    """Rank of the highest set bit of each 13-bit mask, -1 for 0."""
    return np.where(masks > 0, np.log2(np.maximum(masks, 1).astype(np.float64)).astype(np.int64),
                    -1)


def _quinary_hash(lanes: np.ndarray, n: np.ndarray) -> np.ndarray:
    """Perfect hash of the rank counts of ``(m, 4)`` uint16 suit lanes holding ``n`` cards."""
    groups = _hash_tables()[1]
    packed = np.take(phash.SPREAD, lanes[:, 0])
    for i in range(1, 4):
        packed += np.take(phash.SPREAD, lanes[:, i])
    return phash.rank_count_hash(packed, n, groups)


def _five_of_a_kind(lanes: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Five-of-a-kind strength (0 if none) from natural suit lanes and wild counts."""
    c, d, h, s = (lanes[:, i].astype(np.int64) for i in range(4))
    present = c | d | h | s
    two = (c & d) | (h & s) | ((c | d) & (h | s))
    three = (c & d & (h | s)) | (h & s & (c | d))
    four = c & d & h & s
    need = np.select([w >= 5, w == 4, w == 3, w == 2, w == 1],
                     [np.full_like(present, 0x1FFF), present, two, three, four], 0)
    r = _highest_rank(need)
    return np.where(r >= 0, FIVE_OF_A_KIND_BASE + r + 1, 0)


def _suits_best(t: WildTables, lanes: np.ndarray, w: np.ndarray) -> np.ndarray:
    row = np.minimum(w, MAX_WILD_TABLE).astype(np.intp) * 8192
    best = np.take(t.suit_best, row + lanes[:, 0])
    for i in range(1, 4):
        np.maximum(best, np.take(t.suit_best, row + lanes[:, i]), out=best)
    return best


def _eval_wild(naturals: np.ndarray, w: np.ndarray, out: np.ndarray) -> None:
    """Fully wild cards: ``w`` (1..9) wild cards besides the natural cards' mask."""
    t = wild_tables()
    lanes = naturals.view(np.uint16).reshape(-1, 4)
    best = _five_of_a_kind(lanes, w)
    np.maximum(best, _suits_best(t, lanes, w), out=best)
    few = np.flatnonzero(w <= MAX_WILD_TABLE)  # 5+ wild cards always make five aces
    if few.size:
        n = np.bitwise_count(naturals[few])
        wf = w[few].astype(np.intp)
        h = _quinary_hash(lanes[few], n)
        rank = np.take(t.rank_best, np.take(t.offset, wf * 10 + n) + h)
        best[few] = np.maximum(best[few], rank)
    out[:] = best


def _eval_bug(naturals: np.ndarray, b: np.ndarray, out: np.ndarray) -> None:
    """Bugs: ``b`` (1..2) jokers that are aces or complete a straight or flush."""
    t = wild_tables()
    lanes = naturals.view(np.uint16).reshape(-1, 4)
    aces = np.bitwise_count(naturals & _ACE_BITS).astype(np.int64)
    best = np.where(aces + b >= 5, FIVE_OF_A_KIND_BASE + 13, 0)
    np.maximum(best, _suits_best(t, lanes, b), out=best)
    present = lanes[:, 0] | lanes[:, 1] | lanes[:, 2] | lanes[:, 3]
    np.maximum(best, np.take(t.straight_best, b.astype(np.intp) * 8192 + present), out=best)
    # The bugs as aces, in suits the hand lacks (a flush they make is a legal bug flush too).
    ok = np.flatnonzero(aces + b <= 4)
    if ok.size:
        m = naturals[ok]
        free = ~m & _ACE_BITS
        for j in range(2):
            add = free & (~free + np.uint64(1))  # lowest free ace
            m = np.where(b[ok] > j, m | add, m)
            free &= ~add
        best[ok] = np.maximum(best[ok], evaluate_masks(m))
    out[:] = best


def evaluate_core(masks: np.ndarray, jokers: np.ndarray, spec: WildSpec) -> np.ndarray:
    """Strengths (wild scale) of hand masks with ``jokers`` jokers each (validated input)."""
    n = len(masks)
    out = np.empty(n, dtype=np.uint16)
    wild_bits = spec.rank_bits

    def work(start: int, stop: int) -> None:
        m = masks[start:stop]
        jk = jokers[start:stop].astype(np.int64)
        naturals = m & ~wild_bits
        w = jk + np.bitwise_count(m & wild_bits) if spec.ranks else jk
        res = out[start:stop]
        plain = np.flatnonzero(w == 0)
        if plain.size == len(m):
            evaluate_masks(m, res)
            return
        if plain.size:
            res[plain] = evaluate_masks(naturals[plain])
        wild = np.flatnonzero(w)
        sub = np.empty(len(wild), dtype=np.uint16)
        if spec.jokers == "bug":
            _eval_bug(np.ascontiguousarray(naturals[wild]), w[wild], sub)
        else:
            _eval_wild(np.ascontiguousarray(naturals[wild]), w[wild], sub)
        res[wild] = sub

    run_chunked(n, work)
    return out


# ------------------------------------------------------------------------------- inputs


def _coerce(hands, spec: WildSpec, encoding: str, invalid: str, fast: bool = True):
    """``(masks, jokers, scalar, bad, label_rows)`` for the wild evaluator; ``label_rows(r)``
    gives the text of row r for messages."""
    allow = spec.jokers != "none"
    if isinstance(hands, str) or (isinstance(hands, (list, tuple)) and hands
                                  and all(isinstance(x, str) for x in hands)):
        rows = [hands] if isinstance(hands, str) else list(hands)
        if fast and not isinstance(hands, str):  # vectorised; the loop below: its reference
            from gpu_eval.card_text import rows_with_jokers

            m, j, c, b = rows_with_jokers(rows, allow_joker=allow, max_jokers=MAX_JOKERS,
                                          invalid=invalid)
            return m, j, c, False, b, lambda r: rows[r]
        masks = np.zeros(len(rows), dtype=np.uint64)
        jokers = np.zeros(len(rows), dtype=np.uint8)
        counts = np.zeros(len(rows), dtype=np.int64)
        bad = np.zeros(len(rows), dtype=bool)
        for i, text in enumerate(rows):
            where = "" if isinstance(hands, str) else f" (row {i})"
            try:
                ids = cards.parse_hand_text(text, allow_joker=allow, where=where)
                cards.check_no_duplicates(ids, f"{text!r}{where}")
                jk = ids.count(JOKER)
                if jk > MAX_JOKERS:
                    raise ValueError(f"hand {text!r}{where}: {jk} jokers; a deck has "
                                     f"{MAX_JOKERS}")
            except ValueError:
                if invalid == "raise" or isinstance(hands, str):
                    raise
                bad[i] = True
                continue
            masks[i] = int(ID_OR_JOKER_TO_MASK[np.array(ids, dtype=np.intp)].sum()) if ids else 0
            jokers[i], counts[i] = jk, len(ids)
        return masks, jokers, counts, isinstance(hands, str), bad, lambda r: rows[r]
    arr: np.ndarray | list | tuple
    if isinstance(hands, (list, tuple)) and not hands:
        arr = hands
    else:  # integers as given (card_input: no bools, floats or objects, no cast yet)
        arr = card_input.integer_array(hands, "hands", noun="integer card ids or uint64 masks")
    if allow and not isinstance(arr, (list, tuple)) and arr.dtype != np.uint64 \
            and encoding in ("auto", "ids"):
        return coerce_ids(arr, invalid)
    h = inputs.coerce(arr, encoding=encoding, invalid=invalid)
    if h.ids is not None:
        from gpu_eval.evaluator.numpy_path import ids_to_masks  # noqa: PLC0415
        masks = ids_to_masks(h.ids) if h.ids.size else np.zeros(len(h.ids), np.uint64)
        counts = np.full(len(masks), h.ids.shape[1], dtype=np.int64)
        bad = np.bitwise_count(masks) != counts
        label = lambda r: cards.format(h.ids[r], sep=" ")  # noqa: E731
    else:
        given = h.masks
        assert given is not None, "Hands holds ids or masks"
        masks = given & cards.VALID_MASK_BITS
        counts = np.bitwise_count(masks).astype(np.int64)
        bad = np.zeros(len(masks), dtype=bool)
        label = lambda r: cards.format(given[r], sep=" ")  # noqa: E731
    if h.bad is not None:
        bad |= h.bad
    return masks, np.zeros(len(masks), np.uint8), counts, h.scalar, bad, label


def coerce_ids(arr: np.ndarray, invalid: str):
    if arr.ndim not in (1, 2):
        raise ValueError(f"card ids must have shape (k,) or (N, k), got {arr.shape}")
    scalar = arr.ndim == 1
    ids = arr.reshape(1, -1) if scalar else arr
    bad = np.zeros(len(ids), dtype=bool)
    if ids.size and (ids.max() > JOKER or (ids.dtype.kind != "u" and ids.min() < 0)):
        cells = (ids < 0) | (ids > JOKER)
        bad = np.any(cells, axis=1)
        r = int(np.flatnonzero(bad)[0])
        if invalid == "raise":
            raise ValueError(f"hand {ids[r].tolist()} (row {r}): card id "
                             f"{int(ids[r][cells[r]][0])} is out of range 0..52 "
                             f"(52 is the joker)")
        ids = np.where(cells, 0, ids)
    ids = ids.astype(np.uint8, copy=False)
    masks = np.zeros(len(ids), dtype=np.uint64)
    jokers = np.zeros(len(ids), dtype=np.uint8)
    for j in range(ids.shape[1]):  # column by column: faster than reducing along rows
        col = ids[:, j]
        masks |= np.take(ID_OR_JOKER_TO_MASK, col)
        jokers += col == JOKER
    counts = np.full(len(ids), ids.shape[1], dtype=np.int64)
    return masks, jokers, counts, scalar, bad, lambda r: cards.format(ids[r], sep=" ")


def evaluate_hands(hands, *, wild, invalid: str = "raise", encoding: str = "auto"):
    """NumPy evaluation behind ``gpu_eval.evaluate(hands, wild=...)``.

    Parameters
    ----------
    hands : str, list of str, array_like
        As for :func:`gpu_eval.evaluate`; with jokers allowed, id arrays may hold 52 and text
        ``Jk``/``Xx``. ``uint64`` masks cannot hold jokers (only wild ranks apply to them).
    wild : str or list of str
        See :func:`parse_wild`.
    invalid : {"raise", "mask"}
        As for :func:`gpu_eval.evaluate`.

    Returns
    -------
    numpy.ndarray
        ``uint16`` strengths on the wild scale (1..7475) tagged ``"wild"`` in their dtype
        (``gpu_eval.strength.strength_dtype``), shape ``()`` for one hand.

    Examples
    --------
    >>> evaluate_hands(["Ac Ad Ah As Jk", "2c 7d 7h Kc Ks"], wild=["joker", "2"]).tolist()
    [7475, 7278]
    """
    return evaluate_rows(hands, parse_wild(wild), invalid, encoding, evaluate_core)


def evaluate_rows(hands, spec: WildSpec, invalid: str, encoding: str,
              core: Callable[[np.ndarray, np.ndarray, WildSpec], np.ndarray]):
    """Validate, evaluate with ``core(masks, jokers, spec)`` (NumPy's :func:`evaluate_core`
    or the CUDA path's), apply ``invalid`` and tag the result ``"wild"``."""
    inputs.check_invalid_mode(invalid)
    masks, jokers, counts, scalar, bad, label = _coerce(hands, spec, encoding, invalid)
    # Cards per row: duplicates show as a short mask; jokers are counted apart.
    real = np.bitwise_count(masks).astype(np.int64) + jokers
    wrong = bad | (real != counts) | (counts < 5) | (counts > 9) | (jokers > MAX_JOKERS)
    if wrong.any():
        r = int(np.flatnonzero(wrong)[0])
        if invalid == "raise":
            where = "" if scalar else f" (row {r})"
            if jokers[r] > MAX_JOKERS:
                reason = f"{int(jokers[r])} jokers; a deck has {MAX_JOKERS}"
            elif real[r] != counts[r]:
                reason = "a card is used twice"
            else:
                reason = f"{int(counts[r])} cards; this game takes 5 to 9"
            raise ValueError(f"hand {label(r)}{where}: {reason}")
        masks = np.where(wrong, np.uint64(0x1F), masks)  # a placeholder hand; reads 0 below
        jokers = np.where(wrong, 0, jokers).astype(np.uint8)
    out = np.asarray(core(masks, jokers, spec)) if len(masks) else np.zeros(0, np.uint16)
    out[wrong] = 0
    return tag(out, WILD, scalar=scalar)


#: Field order of ``GeWildTables`` in kernels/wild.cuh.
WILD_TABLE_ORDER = ("rank_best", "offset", "suit_best", "straight_best", "spread",
                    "group0", "group1", "group2", "group3")


def wild_device_tables() -> dict[str, np.ndarray]:
    """The wild-card tables named as the fields of ``GeWildTables`` (kernels/wild.cuh): the
    tables of :func:`wild_tables` plus the rank-count hash's ``SPREAD`` and group tables."""
    groups = _hash_tables()[1]
    return {**wild_tables().as_dict(), "spread": phash.SPREAD,
            **{f"group{g}": groups[g] for g in range(4)}}
