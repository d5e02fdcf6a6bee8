"""The hand-isomorphism indexer: Waugh's numbering of hands up to suit symmetry, vectorised.

A *layout* is the number of cards dealt in each round (``(2, 3, 1, 1)`` for hold'em's
preflop, flop, turn and river; ``(2, 5)`` for a hole pair and a full board). Two hands are
isomorphic when one suit relabelling maps each round's cards of one onto the other's; the
indexer numbers the classes of each round ``0 .. size(r) - 1`` exactly as Kevin Waugh's C
library does (kdub0/hand-isomorphism, "A Fast and Optimal Hand Isomorphism Algorithm", 2013),
so tables built with either read the same. This is an independent implementation of that
numbering, checked against fixtures printed by the C library (tests/data/).

How a hand is numbered (all of it array operations over many hands at once):

1. Per suit and round, the set of ranks dealt (a 13-bit mask: a lane of the hand mask).
2. Per suit, a *suit index*: each round's rank set, with the ranks the suit already holds
   squeezed out (``pext``), numbered in colex order; the rounds mixed-radix, round 0 lowest.
   A suit's *count tuple* is its number of cards in each round.
3. The suits sorted by count tuple (more cards in earlier rounds first), and within equal
   count tuples by suit index (a sorting network on packed keys). The sorted count tuples are
   the hand's *configuration*; the configurations, in the library's order, own consecutive
   blocks of indices.
4. Within a configuration, a group of ``k`` suits with equal count tuples is a multiset of
   ``k`` suit indices, numbered ``sum_m C(s_m + m, m + 1)`` over its sorted members; the
   groups are mixed-radix, first group lowest.

Everything a layout needs (configurations, offsets, multipliers, the per-suit key tables) is
built once per layout and deck and cached. The CUDA kernel (kernels/hand_index.cu) reads the
same tables.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from math import comb, prod

import numpy as np
import numpy.typing as npt

from gpu_eval import card_input
from gpu_eval import cards as _cards
from gpu_eval.array_interop import accepts_arrays
from gpu_eval.backend_choice import is_cupy_array, resolve
from gpu_eval.cuda.availability import import_cupy
from gpu_eval.evaluator.numpy_path import run_chunked
from gpu_eval.games import registry

__all__ = ["HandIndexer", "SUITS", "MAX_ROUNDS", "RoundTables", "LayoutTables", "layout_tables"]

SUITS = 4
#: Most rounds a layout may have (the C library's limit).
MAX_ROUNDS = 8
#: Most cards one round may deal (a count fits the library's 4-bit field).
MAX_CARDS_PER_ROUND = 15
#: The C library's bound on a suit's rank sets (plus three): its numbering exists below it.
MAX_GROUP_INDEX = 1 << 20
#: Hands per chunk of the threaded NumPy loop (keeps every temporary in cache).
CHUNK = 1 << 14
#: Indices per chunk of unindexing.
UNINDEX_CHUNK = 1 << 16
#: The largest dense code table (entries) before falling back to a sorted search.
DENSE_CODES = 1 << 20
#: The largest code table (entries) the last step reads its offsets and bases from directly.
DENSE_FINISH = 1 << 15
#: The largest pair table (entries) of the two-round fast path.
PAIR_TABLE_MAX = 1 << 22


# ---------------------------------------------------------------------------------------------
# Bit tables over 7-bit halves: pext / pdep of a rank set under a mask of free ranks.

def _half_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    x = np.arange(128, dtype=np.int64)[:, None]
    f = np.arange(128, dtype=np.int64)[None, :]
    pext = np.zeros((128, 128), dtype=np.int64)
    pdep = np.zeros((128, 128), dtype=np.int64)
    k = np.zeros((1, 128), dtype=np.int64)
    for b in range(7):
        fb = (f >> b) & 1
        pext |= (((x >> b) & 1) & fb) << k
        pdep |= (((x >> k) & 1) & fb) << b
        k = k + fb
    pop = np.array([bin(i).count("1") for i in range(128)], dtype=np.uint8)
    return pext.astype(np.uint16).ravel(), pdep.astype(np.uint16).ravel(), pop


_PEXT7, _PDEP7, _POP7 = _half_tables()


def _pext(x: np.ndarray, free: np.ndarray) -> np.ndarray:
    """``pext(x, free)`` of 14-bit values (the bits of ``x`` at ``free``'s set bits, packed)."""
    x = x.astype(np.intp)
    free = free.astype(np.intp)
    lo = _PEXT7[((x & 127) << 7) | (free & 127)]
    hi = _PEXT7[((x >> 7) << 7) | (free >> 7)]
    return lo | (hi << _POP7[free & 127])


def _pdep(x: np.ndarray, free: np.ndarray) -> np.ndarray:
    """``pdep(x, free)`` of 14-bit values (the low bits of ``x`` spread onto ``free``'s bits)."""
    x = x.astype(np.intp)
    free = free.astype(np.intp)
    lo = _PDEP7[((x & 127) << 7) | (free & 127)]
    hi = _PDEP7[(((x >> _POP7[free & 127]) & 127) << 7) | (free >> 7)]
    return lo | (hi << 7)


@lru_cache(maxsize=4)
def _rank_tables(nranks: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(colex, pop, uncolex)`` over every rank set of ``nranks`` ranks.

    ``colex[v]`` is the set's number among the sets of its size in colex order
    (``sum C(b_k, k)`` over its k-th lowest rank ``b_k``, k from 1), ``uncolex[n, i]`` the
    inverse.
    """
    v = np.arange(1 << nranks, dtype=np.int64)
    colex = np.zeros_like(v)
    k = np.zeros_like(v)
    for b in range(nranks):
        bit = (v >> b) & 1
        k += bit
        binom_b = np.array([comb(b, j) for j in range(nranks + 2)], dtype=np.int64)
        colex += bit * binom_b[k]
    pop = k.astype(np.uint8)
    uncolex = np.zeros((nranks + 1, comb(nranks, nranks // 2)), dtype=np.int64)
    uncolex[pop, colex] = v
    for a in (colex, pop, uncolex):
        a.flags.writeable = False
    return colex, pop, uncolex


# ---------------------------------------------------------------------------------------------
# Per-layout tables.

@dataclass(frozen=True)
class RoundTables:
    """Everything indexing and unindexing one round of a layout needs.

    Attributes
    ----------
    round : int
        The round (0-based).
    size : int
        Indices of this round.
    qn : int
        Count tuples a suit may have through this round (mixed radix ``prod(c_j + 1)``).
    radix : tuple of int
        ``c_j + 1`` per round through this one.
    sbits : int
        Bits of a suit index in a packed key (``key = (qn - 1 - q) << sbits | suit_index``).
    configs : tuple
        The configurations in the library's order: four count tuples each, non-increasing.
    offsets : numpy.ndarray
        ``int64[n_configs]``: each configuration's first index.
    codes : numpy.ndarray
        ``int64[n_configs]``: each configuration's code ``(r0 * qn + r1) * qn + r2`` from the
        first three suits' ``r = qn - 1 - q``.
    code_to_config : numpy.ndarray or None
        ``int16[qn**3]`` (int32 past 32,767 configurations; -1 where none): the dense lookup,
        where it is small enough.
    sorted_codes, sorted_configs : numpy.ndarray or None
        Otherwise the codes sorted, and their configurations: a search.
    mult : numpy.ndarray
        ``int64[n_configs, 4]``: the multiplier of the group each sorted position is in.
    member : numpy.ndarray
        ``int64[n_configs, 4]``: each position's place in its group (0 for the first).
    group_len : numpy.ndarray
        ``int64[n_configs, 4]``: the group length at a group's first position, else 0.
    group_size : numpy.ndarray
        ``int64[n_configs, 4]``: the group's index count at its first position, else 1.
    counts : numpy.ndarray
        ``int64[n_configs, 4, round + 1]``: cards of each sorted suit in each round.
    suit_size : numpy.ndarray
        ``int64[n_configs, 4]``: suit indices a sorted suit of the configuration may have.
    smax : int
        The largest suit-index count of any suit.
    """

    round: int
    size: int
    qn: int
    radix: tuple[int, ...]
    sbits: int
    configs: tuple
    offsets: np.ndarray
    codes: np.ndarray
    code_to_config: np.ndarray | None
    sorted_codes: np.ndarray | None
    sorted_configs: np.ndarray | None
    mult: np.ndarray
    member: np.ndarray
    group_len: np.ndarray
    group_size: np.ndarray
    counts: np.ndarray
    smax: int
    suit_size: np.ndarray

    @property
    def key_dtype(self) -> np.dtype:
        """uint32 where a packed key fits, else uint64.

        Examples
        --------
        >>> layout_tables((2, 5)).per_round[1].key_dtype
        dtype('uint32')
        """
        bits = self.sbits + max(1, (self.qn - 1).bit_length())
        return np.dtype(np.uint32 if bits <= 32 else np.uint64)

    def config_of(self, code: np.ndarray) -> np.ndarray:
        """Configuration numbers of configuration codes (valid codes only).

        Examples
        --------
        >>> rt = layout_tables((2,)).per_round[0]
        >>> rt.config_of(rt.codes).tolist()
        [0, 1]
        """
        if self.code_to_config is not None:
            return np.take(self.code_to_config, code)
        assert self.sorted_configs is not None and self.sorted_codes is not None  # no dense one
        return np.take(self.sorted_configs, np.searchsorted(self.sorted_codes, code))


@dataclass(frozen=True)
class LayoutTables:
    """The tables of a whole layout on a deck of ``nranks`` ranks."""

    rounds: tuple[int, ...]
    nranks: int
    per_round: tuple[RoundTables, ...]
    #: ``int64[nranks + 1, nranks + 1]``: ``C(nranks - used, n)``.
    binom_free: np.ndarray
    #: Round-0 key of every rank set (a suit's packed key through round 0).
    key0: np.ndarray
    #: Round-1 key of every (round-0 set code, round-1 set) of a layout whose first round
    #: deals at most two cards, ``[code0 << nranks | set1]``; else None.
    pair_key: np.ndarray | None
    #: Code of every round-0 rank set for ``pair_key`` (-1 where the set is too large).
    code0: np.ndarray | None
    #: ``code0 << nranks`` as intp (0 where the set is too large): the row in ``pair_key``.
    pair_row: np.ndarray | None
    #: A suit's multiplier after round 1 by its count code (with ``pair_key``), else None.
    mult1: np.ndarray | None
    #: The last step's tables per round (None where too large: the terms are computed).
    finish: tuple[FinishTables | None, ...]


def _suit_size(t: tuple[int, ...], nranks: int) -> int:
    size, used = 1, 0
    for n in t:
        size *= comb(nranks - used, n)
        used += n
    return size


def _configurations(cs: tuple[int, ...], nranks: int) -> list[tuple]:
    """Every configuration of the rounds ``cs``: four count tuples, non-increasing, whose
    per-round sums are ``cs`` and whose suits hold at most ``nranks`` cards."""
    tuples = sorted((t for t in _product([range(min(c, nranks) + 1) for c in cs])
                     if sum(t) <= nranks), reverse=True)
    out: list[tuple] = []

    def rec(prefix: list, remaining: tuple[int, ...]) -> None:
        if len(prefix) == SUITS - 1:
            last = remaining
            if sum(last) <= nranks and last <= prefix[-1]:
                out.append((*prefix, last))
            return
        bound = prefix[-1] if prefix else None
        for t in tuples:
            if bound is not None and t > bound:
                continue
            if all(a <= b for a, b in zip(t, remaining)):
                rec([*prefix, t], tuple(b - a for a, b in zip(t, remaining)))

    rec([], cs)
    out.sort()
    return out


def _product(ranges: list) -> list[tuple[int, ...]]:
    out: list[tuple[int, ...]] = [()]
    for r in ranges:
        out = [(*p, v) for p in out for v in r]
    return out


def _round_tables(rounds: tuple[int, ...], r: int, nranks: int) -> RoundTables:
    cs = rounds[: r + 1]
    radix = tuple(c + 1 for c in cs)
    qn = prod(radix)

    def q_of(t: tuple[int, ...]) -> int:
        q = 0
        for n, rad in zip(t, radix):
            q = q * rad + n
        return q

    configs = _configurations(cs, nranks)
    smax = max(_suit_size(t, nranks) for cfg in configs for t in cfg)
    if qn ** 3 >= 1 << 62:  # configuration codes must fit in int64
        raise ValueError(f"rounds={rounds}: too many count tuples ({qn:,}) to index")
    if smax + SUITS - 1 >= MAX_GROUP_INDEX:
        raise ValueError(f"rounds={rounds}: a suit can hold {smax:,} rank sets through round "
                         f"{r}; Waugh's indexer (whose numbering this is) stops below "
                         f"{MAX_GROUP_INDEX - SUITS + 1:,}")
    sbits = max(1, (smax - 1).bit_length())
    n_cfg = len(configs)
    offsets = np.zeros(n_cfg, dtype=np.int64)
    codes = np.zeros(n_cfg, dtype=np.int64)
    mult = np.ones((n_cfg, SUITS), dtype=np.int64)
    member = np.zeros((n_cfg, SUITS), dtype=np.int64)
    group_len = np.zeros((n_cfg, SUITS), dtype=np.int64)
    group_size = np.ones((n_cfg, SUITS), dtype=np.int64)
    counts = np.zeros((n_cfg, SUITS, r + 1), dtype=np.int64)
    suit_size = np.zeros((n_cfg, SUITS), dtype=np.int64)
    total = 0
    for c, cfg in enumerate(configs):
        if total >= 1 << 63:
            raise ValueError(f"rounds={rounds}: round {r} has more indices than int64 holds")
        offsets[c] = total
        rs = [qn - 1 - q_of(t) for t in cfg]
        codes[c] = (rs[0] * qn + rs[1]) * qn + rs[2]
        counts[c] = np.array(cfg, dtype=np.int64)
        suit_size[c] = [_suit_size(t, nranks) for t in cfg]
        size = 1
        i = 0
        while i < SUITS:
            j = i + 1
            while j < SUITS and cfg[j] == cfg[i]:
                j += 1
            k = j - i
            gsize = comb(_suit_size(cfg[i], nranks) + k - 1, k)
            group_len[c, i] = k
            group_size[c, i] = gsize
            for p in range(i, j):
                mult[c, p] = size
                member[c, p] = p - i
            size *= gsize
            i = j
        total += size
    if total >= 1 << 63:
        raise ValueError(f"rounds={rounds}: round {r} has {total:,} indices, more than int64 holds")
    code_to_config = sorted_codes = sorted_configs = None
    if qn ** 3 <= DENSE_CODES:
        small = np.int16 if n_cfg < (1 << 15) else np.int32  # a small table stays in cache
        code_to_config = np.full(qn ** 3, -1, dtype=small)
        code_to_config[codes] = np.arange(n_cfg, dtype=small)
    else:  # sparse: search the sorted codes
        sorted_configs = np.argsort(codes).astype(np.int32)
        sorted_codes = codes[sorted_configs]
    tables = RoundTables(r, total, qn, radix, sbits, tuple(configs), offsets, codes,
                         code_to_config, sorted_codes, sorted_configs, mult, member, group_len,
                         group_size, counts, smax, suit_size)
    for a in (offsets, codes, mult, member, group_len, group_size, counts, suit_size,
              code_to_config,
              sorted_codes, sorted_configs):
        if a is not None:
            a.flags.writeable = False
    return tables


@dataclass(frozen=True)
class FinishTables:
    """One round's tables for the last step of indexing, sized for speed.

    A sorted position ``i >= 1`` of configuration ``c`` contributes
    ``mult[c, i] * C(s + m, m + 1)`` (``m`` its place in its group, ``s`` its suit index):
    ``terms[base[i - 1][c] + s]``, one lookup. The tables are indexed by the configuration
    code itself where that is dense (``dense``), else by configuration number.
    """

    dense: bool
    offset: np.ndarray
    base: tuple[np.ndarray, ...]
    terms: np.ndarray
    dtype: np.dtype


#: The most entries of a round's term segments before the last step computes them instead.
TERM_TABLE_MAX = 1 << 23


def _finish_tables(rt: RoundTables) -> FinishTables | None:
    n_cfg = len(rt.configs)
    total = int(rt.suit_size[:, 1:].sum())
    if total > TERM_TABLE_MAX:
        return None
    dtype = np.dtype(np.int32 if rt.size < (1 << 31) else np.int64)
    terms = np.zeros(total, dtype=np.int64)
    base = np.zeros((SUITS - 1, n_cfg), dtype=np.int64)
    at = 0
    for c in range(n_cfg):
        for i in range(1, SUITS):
            size = int(rt.suit_size[c, i])
            s = np.arange(size, dtype=np.int64)
            m = int(rt.member[c, i])
            terms[at:at + size] = rt.mult[c, i] * np.array([comb(v + m, m + 1) for v in
                                                             range(size)], dtype=np.int64) \
                if m else rt.mult[c, i] * s
            base[i - 1, c] = at
            at += size
    offset = rt.offsets
    # By code (no configuration lookup on the way) where those tables stay small enough to
    # sit in cache; else by configuration, through the code -> configuration lookup.
    dense = rt.code_to_config is not None and len(rt.code_to_config) <= DENSE_FINISH
    if dense:
        cfg = rt.code_to_config
        assert cfg is not None  # dense: the lookup exists
        valid = cfg >= 0
        offset = np.where(valid, rt.offsets[np.maximum(cfg, 0)], 0)
        base = np.where(valid[None, :], base[:, np.maximum(cfg, 0)], 0)
    out = FinishTables(dense, np.ascontiguousarray(offset, dtype=dtype),
                       tuple(np.ascontiguousarray(b, dtype=dtype) for b in base),
                       terms.astype(dtype), dtype)
    for arr in (out.offset, out.terms, *out.base):
        arr.flags.writeable = False
    return out


@lru_cache(maxsize=32)
def layout_tables(rounds: tuple[int, ...], nranks: int = 13) -> LayoutTables:
    """The tables of layout ``rounds`` on a deck of ``nranks`` ranks (built once, cached).

    Examples
    --------
    >>> t = layout_tables((2, 3))
    >>> [r.size for r in t.per_round]
    [169, 1286792]
    >>> len(t.per_round[1].configs)
    15
    """
    per_round = tuple(_round_tables(rounds, r, nranks) for r in range(len(rounds)))
    binom_free = np.array([[comb(nranks - u, n) if u <= nranks else 0
                            for n in range(nranks + 1)] for u in range(nranks + 1)],
                          dtype=np.int64)
    colex, pop, _ = _rank_tables(nranks)
    full = (1 << nranks) - 1
    pair_key = code0 = mult1 = None
    t0 = per_round[0]
    q = pop.astype(np.int64)
    ok = q <= min(rounds[0], nranks)
    key0 = np.where(ok, ((t0.qn - 1 - np.minimum(q, t0.qn - 1)) << t0.sbits) | colex, 0)
    key0 = key0.astype(t0.key_dtype)
    if len(rounds) >= 2:
        small = np.flatnonzero(pop <= rounds[0])
        if len(small) << nranks <= PAIR_TABLE_MAX:
            t1 = per_round[1]
            code0 = np.full(1 << nranks, -1, dtype=np.int32)
            code0[small] = np.arange(len(small), dtype=np.int32)
            a1 = np.arange(1 << nranks, dtype=np.int64)
            n1 = pop.astype(np.int64)
            pair_key = np.zeros((len(small), 1 << nranks), dtype=t1.key_dtype)
            for c, a0 in enumerate(small):
                n0 = int(pop[a0])
                ok = ((a1 & a0) == 0) & (n1 <= rounds[1])
                si = colex[a0] + comb(nranks, n0) * colex[_pext(a1, np.full_like(a1, full ^ a0))]
                q = n0 * t1.radix[1] + np.minimum(n1, rounds[1])
                pair_key[c] = np.where(ok, ((t1.qn - 1 - q) << t1.sbits) | si, 0)
            pair_key = pair_key.ravel()
            # a suit's multiplier after round 1, by its count code q = n0 * radix + n1
            mult1 = np.array([comb(nranks, q // t1.radix[1]) *
                              comb(max(nranks - q // t1.radix[1], 0), q % t1.radix[1])
                              for q in range(t1.qn)], dtype=np.int64)
    finish = tuple(_finish_tables(t) for t in per_round)
    for a in (binom_free, key0, pair_key, code0, mult1):
        if a is not None:
            a.flags.writeable = False
    pair_row = None
    if code0 is not None:
        pair_row = (np.maximum(code0, 0).astype(np.intp) << nranks)
        pair_row.flags.writeable = False
    return LayoutTables(tuple(rounds), nranks, per_round, binom_free, key0, pair_key, code0,
                        pair_row, mult1, finish)


# ---------------------------------------------------------------------------------------------
# The indexer.

def _check_rounds(rounds) -> tuple[int, ...]:
    """The layout as Python ints; each round a whole number (``2.5`` and ``True`` are refused,
    and so is text: ``"25"`` is not ``(2, 5)``)."""
    if isinstance(rounds, (str, bytes)) or not hasattr(rounds, "__iter__"):
        raise TypeError(f"rounds must be a sequence of card counts such as (2, 5), got "
                        f"{'the text ' + repr(rounds) if isinstance(rounds, str) else repr(rounds)}")
    out = tuple(card_input.whole_number(c, f"rounds[{i}]", 0) for i, c in enumerate(rounds))
    if not 1 <= len(out) <= MAX_ROUNDS:
        raise ValueError(f"rounds={rounds!r}: a layout has 1 to {MAX_ROUNDS} rounds")
    if any(not 1 <= c <= MAX_CARDS_PER_ROUND for c in out):
        raise ValueError(f"rounds={rounds!r}: each round deals 1 to {MAX_CARDS_PER_ROUND} cards")
    return out


class HandIndexer:
    """Number hands up to suit isomorphism within rounds, with Waugh's numbering.

    Parameters
    ----------
    rounds : sequence of int
        Cards dealt in each round: ``(2, 3, 1, 1)`` (hold'em by street), ``(2, 5)`` (a hole
        pair and a full board), ``(4,)``, ``(7,)``, ...
    game : str
        Only its deck matters: ``"holdem"`` (default; 52 cards, as every game but short deck
        has) or ``"shortdeck"`` / ``"shortdeck-triton"`` (36 cards, ranks 6..A: Waugh's
        construction over 9 ranks).

    Examples
    --------
    >>> import gpu_eval as ge
    >>> idx = ge.HandIndexer((2, 3))
    >>> idx.size(0), idx.size(1)
    (169, 1286792)
    >>> hands = ge.cards.parse(["AsKs 2c7d9h", "AhKh 2s7c9d"])
    >>> idx.index(hands).tolist()        # isomorphic hands share an index
    [944059, 944059]
    >>> ge.cards.format(idx.unindex(1, [944059]))   # the canonical hand of that class
    ['KcAc9d7h2s']
    """

    def __init__(self, rounds: Sequence[int], game: str = registry.HOLDEM) -> None:
        self.rounds = _check_rounds(rounds)
        g = registry.get(game, where="HandIndexer()")
        self.game = g.name
        self.lowest_rank = g.lowest_rank
        self.nranks = 13 - g.lowest_rank
        if sum(self.rounds) > SUITS * self.nranks:
            raise ValueError(f"rounds={rounds!r}: {sum(self.rounds)} cards do not fit a deck of "
                             f"{SUITS * self.nranks}")
        self.tables = layout_tables(self.rounds, self.nranks)
        self.cards = sum(self.rounds)
        self.starts = tuple(sum(self.rounds[:r]) for r in range(len(self.rounds)))

    def __repr__(self) -> str:
        return f"HandIndexer({self.rounds}, game={self.game!r})"

    @property
    def n_rounds(self) -> int:
        """Rounds in the layout.

        Examples
        --------
        >>> HandIndexer((2, 3, 1, 1)).n_rounds
        4
        """
        return len(self.rounds)

    def size(self, r: int) -> int:
        """Indices of round ``r`` (0-based): the hand classes through that round.

        Examples
        --------
        >>> HandIndexer((2, 3, 1, 1)).size(3)
        2428287420
        """
        if not -self.n_rounds <= r < self.n_rounds:
            raise ValueError(f"round {r} of a {self.n_rounds}-round layout")
        return self.tables.per_round[r].size

    # -- input ------------------------------------------------------------------------------

    def _check_shape(self, cards, arr) -> None:
        if arr.dtype.kind not in "iuO":  # CuPy input; card_input has read host input (O: ints
            # beyond 64 bits, named by the range check)
            raise TypeError(f"HandIndexer: cards must be integer card ids (or card text), got "
                            f"dtype {arr.dtype}")
        if arr.ndim != 2 or arr.shape[1] != self.cards:
            rounds = "+".join(map(str, self.rounds))
            if isinstance(cards, str) or (isinstance(cards, (list, tuple)) and cards
                                          and isinstance(cards[0], str)):
                # Text: name the hand and count its cards (the array is our own parse).
                hand = cards if isinstance(cards, str) else cards[0]
                n = arr.shape[-1]
                raise ValueError(f"HandIndexer{self.rounds}: hand {hand!r} has {n} "
                                 f"card{'s' * (n != 1)} where {self.cards} are needed "
                                 f"(rounds {rounds})")
            got = f"rows of {arr.shape[1]} cards (an array of shape {arr.shape})" \
                if arr.ndim == 2 else ("a single number" if arr.ndim == 0 else
                                       f"an array of shape {tuple(np.shape(cards))}")
            raise ValueError(f"HandIndexer{self.rounds}: each row must hold {self.cards} cards "
                             f"(rounds {rounds}), got {got}")

    def _coerce(self, cards) -> tuple[np.ndarray, bool]:
        """``(ids (N, cards) uint8, single)`` on the host, checked for shape, dtype and range
        (a card twice is found while indexing)."""
        if isinstance(cards, str) or (isinstance(cards, (list, tuple)) and cards
                                      and isinstance(cards[0], str)):
            ids = _cards.parse(cards)
        else:  # any integer width, checked as given below (no bools, floats, Python objects)
            ids = card_input.integer_array(cards, f"HandIndexer{self.rounds}: cards")
        single = ids.ndim == 1
        if single:
            ids = ids[None, :]
        self._check_shape(cards, ids)
        lo = 4 * self.lowest_rank
        if ids.size:
            bad = (ids < lo) | (ids >= 52) if ids.dtype != np.uint8 or lo else None
            if bad is not None and ids.dtype == object:  # Python ints beyond 64 bits
                bad = bad.astype(bool)
            if bad is None and int(ids.max()) >= 52:
                bad = ids >= 52
            if bad is not None and bad.any():
                row = int(np.flatnonzero(bad.any(axis=1))[0])
                raise self.row_error(ids[row], row)
        return np.ascontiguousarray(ids, dtype=np.uint8), single

    def row_error(self, row_ids: Sequence[int] | np.ndarray, row: int) -> ValueError:
        """The ``ValueError`` naming what is wrong with hand ``row`` (ids ``row_ids``): an id
        out of range, a card outside the game's deck, or a card twice.

        Examples
        --------
        >>> HandIndexer((2,)).row_error([5, 5], 3)
        ValueError('row 3: card 3d appears twice')
        """
        seen = set()
        lo = 4 * self.lowest_rank
        for v in (int(x) for x in np.asarray(row_ids).tolist()):
            if not 0 <= v < 52:
                return ValueError(f"row {row}: card id {v} is out of range {lo}..51")
            if v < lo:
                return ValueError(f"row {row}: card {_cards.format([v])} (id {v}) is not in the "
                                  f"{self.game} deck")
            if v in seen:
                return ValueError(f"row {row}: card {_cards.format([v])} appears twice")
            seen.add(v)
        return ValueError(f"row {row}: invalid hand {list(row_ids)}")

    # -- indexing ---------------------------------------------------------------------------

    @accepts_arrays("cards")
    def index(self, cards: npt.ArrayLike, all_rounds: bool = False, *, backend: str = "auto"
              ) -> np.ndarray:
        """The index of each hand on its last round (or on every round).

        Parameters
        ----------
        cards : array_like
            ``(N, sum(rounds))`` card ids (``uint8``; any integer dtype is taken), the cards of
            round 0 first; any order within a round. Card text (a string or a list of
            strings) is parsed. One hand as a 1-D row gives a 0-d result.
        all_rounds : bool
            Return ``(N, n_rounds)``: the hand's index on every round.
        backend : {"auto", "numpy", "cuda"}
            Where to index: ``auto`` takes CUDA for CuPy input (and when a device is usable),
            NumPy otherwise. CuPy input gives CuPy output, computed by the kernel
            ``ge_hand_index`` (kernels/hand_index.cu), without a host copy.

        Returns
        -------
        numpy.ndarray or cupy.ndarray
            ``int64``: ``(N,)``, or ``(N, n_rounds)`` with ``all_rounds``.

        Raises
        ------
        ValueError
            A row of the wrong length, a card id out of range (or not in the game's deck), a
            card twice in a row; the message names the row.
        TypeError
            Cards that are not integers.

        Examples
        --------
        >>> from gpu_eval import cards
        >>> idx = HandIndexer((2, 3, 1, 1))
        >>> idx.index(cards.parse(["AsAh Kd7c2s 9h 3c"]), all_rounds=True).tolist()
        [[90, 264172, 15010436, 560808104]]
        """
        choice = resolve(backend, cards)
        if is_cupy_array(cards):
            if choice == "cuda":
                return self._index_device(cards, all_rounds)
            cards = cards.get()
        ids, single = self._coerce(cards)
        if choice == "cuda":
            from gpu_eval.solver_tables import cuda_indexer  # noqa: PLC0415 -- CuPy inside

            out, bad = cuda_indexer.index(ids, self.tables, lowest_rank=self.lowest_rank,
                                          all_rounds=all_rounds)
            if bad is not None:
                raise self.row_error(ids[bad], bad)
            return out[0] if single else out
        n = ids.shape[0]
        nr = self.n_rounds
        out = np.empty((n, nr) if all_rounds else n, dtype=np.int64)

        def work(lo: int, hi: int) -> None:
            res = self._index_chunk(ids[lo:hi], all_rounds)
            if res is None:
                raise self._first_duplicate(ids, lo, hi)
            out[lo:hi] = res

        run_chunked(n, work, CHUNK)
        return out[0] if single else out

    def _index_device(self, cards, all_rounds: bool):
        """The CUDA path of a CuPy array: checked and indexed on its device."""
        from gpu_eval.solver_tables import cuda_indexer  # noqa: PLC0415 -- CuPy inside

        single = cards.ndim == 1
        arr = cards.reshape(1, -1) if single else cards
        self._check_shape(cards, arr)
        if arr.dtype.kind not in "iu":
            raise TypeError(f"card ids must be integers, got dtype {arr.dtype}")
        # Range (before any cast to uint8 could hide a bad id) and indexing, a chunk at a
        # time on the array's device.
        out, bad = cuda_indexer.index(arr, self.tables, lowest_rank=self.lowest_rank,
                                      all_rounds=all_rounds)
        if bad is not None:
            raise self.row_error(arr[bad].get(), bad)
        return out[0] if single else out

    def _first_duplicate(self, ids: np.ndarray, lo: int, hi: int) -> ValueError:
        chunk = ids[lo:hi]
        total = np.zeros(hi - lo, dtype=np.uint64)
        for j in range(self.cards):
            total |= _cards.ID_TO_MASK[chunk[:, j]]
        row = lo + int(np.flatnonzero(np.bitwise_count(total) != self.cards)[0])
        return self.row_error(ids[row], row)

    def _round_masks(self, ids: np.ndarray) -> list[np.ndarray]:
        """Each round's hand mask, two cards a lookup: bytes ``j, j + 1`` of a row read as
        one little-endian uint16 index a table of card pairs (an odd round's last card
        pairs with its neighbour again, which OR ignores)."""
        n, k = ids.shape
        masks = []
        for r, c in enumerate(self.rounds):
            s = self.starts[r]
            if c == 1:
                masks.append(np.take(_ID_MASK, ids[:, s]))
                continue
            m = None
            for j in [*range(s, s + c - 1, 2), *([s + c - 2] if c % 2 else [])]:
                pair = np.ndarray((n,), dtype="<u2", buffer=ids, offset=j, strides=(k,))
                if m is None:
                    m = np.take(_PAIR_MASK, pair)
                else:
                    m |= np.take(_PAIR_MASK, pair)
            assert m is not None  # two cards or more: one pair at least
            masks.append(m)
        return masks

    def _index_chunk(self, ids: np.ndarray, all_rounds: bool) -> np.ndarray | None:
        """Indices of one chunk of validated-range ids, or None where a card repeats."""
        t = self.tables
        masks = self._round_masks(ids)
        total = masks[0].copy()
        for m in masks[1:]:
            total |= m
        if np.any(np.bitwise_count(total) != self.cards):
            return None
        shift = self.lowest_rank
        lanes: list[np.ndarray] = [m.view(np.uint16).reshape(-1, SUITS) for m in masks]
        if shift:
            lanes = [lane >> shift for lane in lanes]
        nr = self.n_rounds
        n = len(ids)
        out = np.empty((n, nr), dtype=np.int64) if all_rounds else None
        if all_rounds or nr == 1:
            keys0 = [np.take(t.key0, lanes[0][:, s]) for s in range(SUITS)]
            if nr == 1:
                res = self._finish(0, keys0)
                return res[:, None] if all_rounds else res
            assert out is not None  # all_rounds
            out[:, 0] = self._finish(0, keys0)
        if t.pair_key is None:
            return self._index_generic(ids, lanes, out, 0, None)
        assert t.pair_row is not None and t.mult1 is not None  # built with pair_key
        keys1 = []
        for s in range(SUITS):
            row = np.take(t.pair_row, lanes[0][:, s])
            row |= lanes[1][:, s]
            keys1.append(np.take(t.pair_key, row))
        if all_rounds or nr == 2:
            res = self._finish(1, keys1)
            if nr == 2:
                if not all_rounds:
                    return res
                assert out is not None  # all_rounds
                out[:, 1] = res
                return out
            assert out is not None  # all_rounds
            out[:, 1] = res
        # later rounds: each suit's state after round 1, from its key
        t1 = t.per_round[1]
        sh = t1.key_dtype.type(t1.sbits)
        smask = t1.key_dtype.type((1 << t1.sbits) - 1)
        _, pop, _ = _rank_tables(self.nranks)
        k = np.stack(keys1, axis=1)
        q = (t1.qn - 1) - (k >> sh).astype(np.int64)
        used = (lanes[0] | lanes[1]).astype(np.intp)
        state = ((k & smask).astype(np.int64), np.take(t.mult1, q), q, used,
                 pop[used].astype(np.intp))
        return self._index_generic(ids, lanes, out, 2, state)

    def _index_generic(self, ids: np.ndarray, lanes: list[np.ndarray], out: np.ndarray | None,
                       start: int, state: tuple | None) -> np.ndarray:
        """Rounds ``start..`` (``state``: each suit's suit index, multiplier, count code, used
        ranks and their number after round ``start - 1``); ``out`` holds every round's index
        (all_rounds) or is None (the last round's is returned).

        The state is ``(n, 4)`` arrays, a column a suit. A round of several cards updates
        every suit (``pext`` of its rank set under the suit's free ranks); a one-card round
        only the card's suit, through flat indices.
        """
        t = self.tables
        colex, pop, _ = _rank_tables(self.nranks)
        full = (1 << self.nranks) - 1
        n = lanes[0].shape[0]
        nr = self.n_rounds
        all_rounds = out is not None
        if state is None:
            si = np.zeros((n, SUITS), dtype=np.int64)
            mult = np.ones((n, SUITS), dtype=np.int64)
            q = np.zeros((n, SUITS), dtype=np.int64)
            used = np.zeros((n, SUITS), dtype=np.intp)
            nused = np.zeros((n, SUITS), dtype=np.intp)
        else:
            si, mult, q, used, nused = state
        flat = [a.reshape(-1) for a in (si, mult, used, nused)]
        for r in range(start, nr):
            rt = t.per_round[r]
            if self.rounds[r] == 1:
                card = ids[:, self.starts[r]].astype(np.intp)
                rank = (card >> 2) - self.lowest_rank
                at = np.arange(0, SUITS * n, SUITS, dtype=np.intp) + (card & 3)
                u = np.take(flat[2], at)
                m = np.take(flat[1], at)
                nu = np.take(flat[3], at)
                below = u & ((1 << rank) - 1)
                shifted = rank - np.bitwise_count(below).astype(np.intp)
                np.put(flat[0], at, np.take(flat[0], at) + m * shifted)
                np.put(flat[1], at, m * (self.nranks - nu))
                np.put(flat[3], at, nu + 1)
                np.put(flat[2], at, u | (1 << rank))
                q *= rt.radix[r]
                np.put(q.reshape(-1), at, np.take(q.reshape(-1), at) + 1)
            else:
                for s in range(SUITS):
                    a = lanes[r][:, s].astype(np.intp)
                    k = pop[a].astype(np.intp)
                    x = a if r == 0 else _pext(a, full ^ used[:, s])
                    si[:, s] += mult[:, s] * colex[x]
                    mult[:, s] *= t.binom_free[nused[:, s], k]
                    nused[:, s] += k
                    used[:, s] |= a
                    q[:, s] = q[:, s] * rt.radix[r] + k
            if all_rounds or r == nr - 1:
                keys = (((rt.qn - 1 - q) << rt.sbits) | si).astype(rt.key_dtype)
                res = self._finish(r, [keys[:, s] for s in range(SUITS)])
                if not all_rounds:
                    return res
                assert out is not None  # all_rounds
                out[:, r] = res
        assert out is not None  # the last round returned above without all_rounds
        return out

    def _finish(self, r: int, keys: list[np.ndarray]) -> np.ndarray:
        """The round-``r`` index from the four suits' packed keys."""
        rt = self.tables.per_round[r]
        k0, k1, k2, k3 = keys
        # A sorting network: ascending keys = count tuples descending, then suit index.
        k0, k1 = np.minimum(k0, k1), np.maximum(k0, k1)
        k2, k3 = np.minimum(k2, k3), np.maximum(k2, k3)
        k0, k2 = np.minimum(k0, k2), np.maximum(k0, k2)
        k1, k3 = np.minimum(k1, k3), np.maximum(k1, k3)
        k1, k2 = np.minimum(k1, k2), np.maximum(k1, k2)
        sh = rt.key_dtype.type(rt.sbits)
        qn = rt.qn
        code = (k0 >> sh).astype(np.intp)
        code *= qn
        code += k1 >> sh
        code *= qn
        code += k2 >> sh
        smask = rt.key_dtype.type((1 << rt.sbits) - 1)
        ft = self.tables.finish[r]
        if ft is not None:
            at = code if ft.dense else rt.config_of(code).astype(np.intp)  # converted once
            idx = np.take(ft.offset, at)
            idx += k0 & smask
            for base, k in zip(ft.base, (k1, k2, k3)):
                b = np.take(base, at)
                b += k & smask
                idx += np.take(ft.terms, b)
            return idx
        cfg = rt.config_of(code)
        idx = np.take(rt.offsets, cfg)
        idx += (k0 & smask).astype(np.int64)
        for i, k in ((1, k1), (2, k2), (3, k3)):  # the terms computed (big layouts only)
            term = _term((k & smask).astype(np.int64), np.take(rt.member[:, i], cfg))
            term *= np.take(rt.mult[:, i], cfg)
            idx += term
        return idx

    # -- unindexing -------------------------------------------------------------------------

    @accepts_arrays("indices")
    def unindex(self, r: int, indices: npt.ArrayLike, *, backend: str = "auto") -> np.ndarray:
        """The canonical hand of each round-``r`` index, as the C library writes it.

        Parameters
        ----------
        r : int
            The round (0-based).
        indices : array_like of int
            Indices ``0 <= i < size(r)``.
        backend : {"auto", "numpy", "cuda"}
            Accepted for symmetry with :meth:`index`. Unindexing always runs on the host
            (NumPy): CuPy indices are copied to the host and the hands copied back, CuPy in,
            CuPy out.

        Returns
        -------
        numpy.ndarray or cupy.ndarray
            ``uint8`` card ids, shape ``indices.shape + (cards through round r,)``: round by
            round, each round's cards by suit and then rank. ``index`` of it gives ``indices``.

        Raises
        ------
        ValueError
            An index out of range, naming its position.

        Examples
        --------
        >>> from gpu_eval import cards
        >>> idx = HandIndexer((2,))
        >>> cards.format(idx.unindex(0, [0, 1, 90, 168]))
        ['2c2d', '2c3d', 'AcAd', 'KcAc']
        """
        if not 0 <= r < self.n_rounds:
            raise ValueError(f"round {r} of a {self.n_rounds}-round layout")
        resolve(backend, indices)  # an unknown backend raises
        if is_cupy_array(indices):
            return import_cupy().asarray(self.unindex(r, indices.get(), backend="numpy"))
        rt = self.tables.per_round[r]
        arr = card_input.indices(indices, rt.size, "unindex: indices", note=f" of round {r}")
        flat = arr.reshape(-1)
        ncards = sum(self.rounds[: r + 1])
        out = np.empty((len(flat), ncards), dtype=np.uint8)

        def work(lo: int, hi: int) -> None:
            out[lo:hi] = self._unindex_chunk(r, flat[lo:hi])

        run_chunked(len(flat), work, UNINDEX_CHUNK)
        return out.reshape(*arr.shape, ncards)

    def _unindex_chunk(self, r: int, idx: np.ndarray) -> np.ndarray:
        rt = self.tables.per_round[r]
        n = len(idx)
        nb = self.nranks
        full = (1 << nb) - 1
        _, _, uncolex = _rank_tables(nb)
        cfg = np.searchsorted(rt.offsets, idx, side="right") - 1
        rem = idx - rt.offsets[cfg]
        si = np.zeros((n, SUITS), dtype=np.int64)
        rows = np.arange(n)
        for i in range(SUITS):
            gs = rt.group_size[cfg, i]
            k = rt.group_len[cfg, i]
            g = rem % gs
            rem //= gs
            # The group's members, one position at a time, as the C library decodes them.
            for kk in range(SUITS, 0, -1):
                sel = np.flatnonzero(k >= kk)
                if not len(sel):
                    continue
                gg = g[sel]
                if kk == 1:
                    val = gg
                else:
                    ssize = np.take(rt.suit_size[:, i], cfg[sel])
                    pos = i + k[sel] - kk
                    val = _waugh_member(gg, kk, pos, pos + kk, ssize, rt.smax)
                    g[sel] = gg - _comb_vec(val + kk - 1, kk)
                si[rows[sel], (i + k[sel] - kk)] = val
        # Each canonical suit's ranks, round by round, into per-round hand masks.
        round_masks = [np.zeros(n, dtype=np.uint64) for _ in range(r + 1)]
        side = nb + 1
        binom_flat = self.tables.binom_free.ravel()
        uncolex_flat = uncolex.ravel()
        width = uncolex.shape[1]
        for i in range(SUITS):
            s = si[:, i]
            used = nused = None  # set by round 0
            for j in range(r + 1):
                cnt = np.take(np.ascontiguousarray(rt.counts[:, i, j]), cfg)
                if j == 0:
                    radix = np.take(binom_flat, cnt)  # C(nranks, cnt)
                else:
                    assert used is not None and nused is not None  # set by round 0
                    radix = np.take(binom_flat, nused * side + cnt)
                s, ridx = np.divmod(s, radix)
                shifted = np.take(uncolex_flat, cnt * width + ridx)
                if j == 0:  # nothing used yet: the set as it is
                    ranks = shifted.astype(np.intp)
                    used = ranks.copy()
                    nused = cnt
                else:
                    assert used is not None  # set by round 0
                    ranks = _pdep(shifted, full ^ used)
                    used |= ranks
                    nused = nused + cnt
                round_masks[j] |= (ranks.astype(np.uint64) << np.uint64(self.lowest_rank)) << \
                    np.uint64(16 * i)
        out = np.empty((n, sum(self.rounds[: r + 1])), dtype=np.uint8)
        col = 0
        one = np.uint64(1)
        for j in range(r + 1):
            m = round_masks[j]
            for _ in range(self.rounds[j]):
                low = m & (~m + one)
                pos = np.bitwise_count(low - one).astype(np.uint8)
                out[:, col] = ((pos & 15) << 2) | (pos >> 4)
                m ^= low
                col += 1
        return out


_ID_MASK = np.ascontiguousarray(_cards.ID_TO_MASK, dtype=np.uint64)
# The mask of every pair of cards, indexed by first id + 256 * second id.
_PAIR_MASK = np.zeros(256 * 51 + 52, dtype=np.uint64)
_PAIR_MASK[(np.arange(52)[:, None] + 256 * np.arange(52)[None, :]).ravel()] = (
    _ID_MASK[:, None] | _ID_MASK[None, :]).ravel()
_PAIR_MASK.flags.writeable = False


def _term(s: np.ndarray, m: np.ndarray) -> np.ndarray:
    """``C(s + m, m + 1)`` elementwise, for ``0 <= m < 4`` (exact in int64 where it fits)."""
    out = s.copy()
    t = s.copy()
    for j in range(1, SUITS):
        t = t * (s + j) // (j + 1)
        out = np.where(m == j, t, out)
    return out


def _comb_vec(t: np.ndarray, k: int) -> np.ndarray:
    """``C(t, k)`` elementwise, ``k <= 4``, ``t >= 0``."""
    out = np.ones_like(t)
    for j in range(k):
        out = out * (t - j) // (j + 1)
    return np.where(t >= k, out, 0)


def _waugh_member(g: np.ndarray, kk: int, i: np.ndarray, j: np.ndarray, suit_size: np.ndarray,
                  smax: int) -> np.ndarray:
    """The suit index the C library's ``hand_unindex`` gives position ``i`` of a group ending
    at ``j`` (``kk = j - i`` members left, group value ``g``).

    The library searches ``[low, high)`` for the largest ``v`` with ``C(v + kk - 1, kk) <= g``
    (the multiset's top member), with the bounds estimated in floating point and clipped:
    where the estimate cuts the true top off, it returns ``high - 1``, and the members after
    it take up the rest. That quirk is part of its canonical hands, so it is reproduced: the
    bounds are computed as it computes them (libm ``exp``/``log``, through :mod:`math`,
    where a bound lands within rounding of an integer).
    """
    top = np.searchsorted(_multiset_column(kk, smax + SUITS), g, side="right") - 1 - (kk - 1)
    with np.errstate(divide="ignore"):
        lg = np.log(g.astype(np.float64)) / kk
    lo = np.exp(lg - 1 + np.log(kk)) - j - i
    hi = np.exp(lg + np.log(kk)) - j + i + 1
    for arr, upper in ((lo, False), (hi, True)):
        near = np.flatnonzero(np.abs(arr - np.rint(arr)) < 1e-9 * (1 + np.abs(arr)))
        if not len(near):
            continue
        # libm's rounding decides these: recompute each distinct case once with math (the
        # cases found as one mixed-radix key each: unique(axis=1) is many times slower)
        gn, in_, jn = g[near].astype(np.int64), i[near].astype(np.int64), j[near].astype(np.int64)
        bi, bj = int(in_.max()) + 1, int(jn.max()) + 1
        if int(gn.max()) >= np.iinfo(np.int64).max // (bi * bj):  # pragma: no cover
            raise AssertionError("hand_unindex group value out of the key's range")
        keys, inverse = np.unique((gn * bi + in_) * bj + jn, return_inverse=True)
        cases = np.stack([keys // (bi * bj), keys // bj % bi, keys % bj])
        vals = np.empty(cases.shape[1], dtype=np.float64)
        for c, (gv, iv, jv) in enumerate(cases.T.tolist()):
            lgv = math.log(float(gv)) / kk if gv > 0 else -math.inf
            vals[c] = (math.exp(lgv + math.log(kk)) - jv + iv + 1 if upper
                       else math.exp(lgv - 1 + math.log(kk)) - jv - iv)
        arr[near] = vals[inverse.reshape(-1)]
    huge = np.iinfo(np.int64).max  # a negative bound, converted to unsigned in C
    low = np.where(lo >= 0, np.floor(np.maximum(lo, 0)), 0).astype(np.int64)
    low[lo < 0] = huge
    high = np.where(hi >= 0, np.ceil(np.maximum(hi, 0)), 0).astype(np.int64)
    high[hi < 0] = huge
    high = np.minimum(high, suit_size)
    low = np.where(high <= low, 0, low)
    if np.any(top < low):  # the library would return garbage here; it never does
        raise AssertionError("hand_unindex estimate below the member")
    return np.minimum(top, high - 1)


@lru_cache(maxsize=16)
def _multiset_column(k: int, n: int) -> np.ndarray:
    """``C(t, k)`` for ``t = 0 .. n``: non-decreasing, searched to invert."""
    col = _comb_vec(np.arange(n + 1, dtype=np.int64), k)
    col.flags.writeable = False
    return col
