"""The state-machine (FSM) table evaluator: a k-card hand in k dependent table loads.

A table is one flat ``uint32`` array. Each state of the machine owns 52 consecutive slots
starting at its *base*; the slot for card id ``c`` holds the base of the next state, or, for
the last card of a hand, the hand's ``strength``. Evaluating a hand is a walk from the root::

    s = ROOT
    for c in hand:
        s = table[s + c]
    strength = s

Slots 0..51 are the *dead* state (every slot 0) and the root sits at base :data:`ROOT` = 52 in
every layout, so a repeated card that the machine can see (see below) sends the walk to the
dead state and the hand comes out with strength 0 ("no valid hand"). Cards may come in any
order: the states are sets of cards, not sequences.

How the machine is generated (from first principles, with our own evaluator)
---------------------------------------------------------------------------
States are partial hands, merged when no future can tell them apart:

* A suit can still make a flush only while ``its count + cards still to come >= 5``. Once that
  fails the suit is *dropped*: its cards keep their ranks but lose their suits (a dropped suit
  never comes back, because adding a card never raises ``count + remaining``).
* The canonical key of a partial hand is one ``uint64``: bits ``0..51`` a card set in id
  order (bit ``4 * rank + suit``) in which the cards of still-tracked suits are the real ones
  and, for each rank, the suit-less cards fill that rank's lowest untracked suits; bits
  ``52..55`` the set of tracked suits. This is exactly "rank counts + the rank masks of the
  still-flushable suits", packed so that NumPy can sort it.
* Generation goes one depth at a time: every state of a depth times all 52 cards at once,
  the transition and the canonicalisation done with array operations and two small lookup
  tables, then the children deduplicated (a sort plus a vectorised hash table). The last card
  makes no states, only strengths: each state one card short of a hand gets a representative
  hand, its suit-less cards spread over the untracked suits so that they cannot fake a flush,
  and its row is :func:`gpu_eval.evaluator.bitmask.evaluate_masks` of that hand plus each card.
* Finally states with identical rows are merged level by level from the bottom (the minimal
  machine for these rows; this is what merges hands whose remaining ranks no longer matter).

Suit-permutation symmetry cannot be used: the walk indexes slots by the raw card id, so the
machine must know which real suit each tracked lane is. For the same reason a repeated card is
seen only where the state still knows it: a card of a tracked suit, or a rank whose untracked
suits are all used up. A repeated card of a dropped suit cannot be told from a new one; the
raw kernel trusts its input, and :func:`evaluate_fsm` checks for repeats before the walk.

Sizes (states include the dead one; 4 bytes a slot, 52 slots a state):

====== ================================================== ========= ========== =========
cards  states per depth after merging (depth 0 .. k-1)     states    slots      size
====== ================================================== ========= ========== =========
5      1, 52, 403, 1599, 4680                             6,736     350,272    1.3 MiB
6      1, 52, 1326, 5655, 19552, 48503                    75,090    3,904,680  14.9 MiB
7      1, 52, 1326, 22100, 84448, 152607, 285548          546,083   28,396,316 108.3 MiB
====== ================================================== ========= ========== =========

The 5- and 6-card machines are already minimal after suit dropping. Before the final merge
the 7-card machine has 612,977 states (352,443 at depth 6), the state count of the well-known
124 MiB two-plus-two table; the merge removes 66,895 of them. Generating the 7-card machine
takes about 4 s on one core (each layout then about 1 s), the 5-card one 0.1 s.

Layouts (the order in which states are placed in the array; all share the root at base 52):

* ``"bfs"``: depth by depth, each depth in order of first discovery.
* ``"dfs"``: depth-first preorder from the root, children in card order, each state placed
  where it is first reached (sorting states by their lexicographically smallest card path).
* ``"veb"``: van Emde Boas order of the DFS spanning tree: the top ``floor(h/2)`` depth levels
  first (recursively), then each subtree hanging below them in DFS order (recursively). A
  state shared by several parents sits in the subtree of its first (DFS) parent.

Table files: a 128-byte little-endian header (see :func:`save_table`) then the payload.
"""

from __future__ import annotations

import hashlib
import os
import struct
import tempfile
import zlib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from gpu_eval.evaluator.bitmask import evaluate_masks

__all__ = [
    "ROOT", "DEAD", "SLOTS", "LAYOUTS", "CARD_COUNTS", "FORMAT_VERSION",
    "TableInfo", "FsmTable", "build_table", "load_table", "save_table", "read_table",
    "cache_path", "evaluate_fsm",
]

#: Slots per state (one per card id).
SLOTS = 52
#: Base of the dead state: all of its slots are 0, and strength 0 means "no valid hand".
DEAD = 0
#: Base of the root state, where every walk starts (the kernel hard-codes it as well).
ROOT = SLOTS
#: Placement orders a table can be flattened in.
LAYOUTS: tuple[str, ...] = ("bfs", "dfs", "veb")
#: Hand sizes tables are generated for.
CARD_COUNTS: tuple[int, ...] = (5, 6, 7)
#: Version of the table file format (and of the generator: a change bumps it).
FORMAT_VERSION = 1

_MAGIC = b"GEFSM\r\n\x1a"  # \r\n and ^Z catch text-mode transfers, as in PNG
_HEADER_SIZE = 128
_MAX_LEVELS = 10
# magic, version, header size, cards, layout, root, states, slots, states per depth, sha256,
# reserved; a CRC32 of these 124 bytes follows.
_HEADER_BODY = struct.Struct(f"<8sIIIIIIQ{_MAX_LEVELS}I32s12x")
_CRC = struct.Struct("<I")
assert _HEADER_BODY.size + _CRC.size == _HEADER_SIZE

_CARD_BITS = (1 << 52) - 1
_T_SHIFT = 52                  # the tracked-suit set sits in key bits 52..55
_ALL_TRACKED = 0xF


# --------------------------------------------------------------------------------------------
# Generation


@lru_cache(maxsize=1)
def _transition_tables() -> tuple[np.ndarray, np.ndarray]:
    """``STEP[s, T * 16 + nibble]``: a rank's 4-bit suit set after adding a card of suit ``s``
    to a state tracking suits ``T`` (255: the card is already held); ``CANON[T, byte]``: two
    rank nibbles re-canonicalised after the tracked set shrank to ``T``."""

    def lowest(untracked: int, count: int) -> int:
        # The suit-less cards of a rank fill its lowest untracked suits.
        out = 0
        for b in range(4):
            if count and untracked >> b & 1:
                out |= 1 << b
                count -= 1
        return out

    def canon(t: int, nib: int) -> int:
        u = ~t & 0xF
        return (nib & t) | lowest(u, bin(nib & u).count("1"))

    step = np.full((4, 256), 255, dtype=np.uint8)
    canon_bytes = np.zeros((16, 256), dtype=np.uint8)
    for t in range(16):
        u = ~t & 0xF
        for nib in range(16):
            for s in range(4):
                if t >> s & 1:
                    if not nib >> s & 1:
                        step[s, t * 16 + nib] = nib | 1 << s
                elif bin(nib & u).count("1") < bin(u).count("1"):
                    step[s, t * 16 + nib] = canon(t, nib | _first_free(nib, u))
        for b in range(256):
            canon_bytes[t, b] = canon(t, b & 0xF) | canon(t, b >> 4) << 4
    return step, canon_bytes


def _first_free(nib: int, untracked: int) -> int:
    free = untracked & ~nib
    return free & -free


_SUIT_BITS = np.array([sum(1 << (4 * r + s) for r in range(13)) for s in range(4)],
                      dtype=np.uint64)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_EMPTY = np.uint64(0xFFFFFFFFFFFFFFFF)   # never a key: keys use 56 bits, row hashes 63


def _unique_inverse(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(sorted unique values, index of each x in them)`` for ``uint64`` ``x``.

    ``np.unique(return_inverse=True)`` argsorts, which is several times slower than a plain
    sort here; a vectorised open-addressing hash table maps each value to its index instead.
    """
    s = np.sort(x)
    keep = np.empty(len(s), dtype=bool)
    keep[:1] = True
    np.not_equal(s[1:], s[:-1], out=keep[1:])
    u = s[keep]
    del s, keep
    bits = max(4, int(np.ceil(np.log2(max(len(u), 1) * 4))))  # load factor <= 1/4
    mask = (1 << bits) - 1
    shift = np.uint64(64 - bits)
    tkey = np.full(1 << bits, _EMPTY, dtype=np.uint64)
    tval = np.full(1 << bits, -1, dtype=np.int64)
    pos = ((u * _GOLDEN) >> shift).astype(np.intp)
    pending = np.arange(len(u))
    while len(pending):  # insert: each round, one winner per free slot; the rest probe on
        p = pos[pending]
        free = tval[p] < 0
        tval[p[free]] = pending[free]
        won = np.zeros(len(pending), dtype=bool)
        won[free] = tval[p[free]] == pending[free]
        tkey[p[won]] = u[pending[won]]
        pending = pending[~won]
        pos[pending] = (pos[pending] + 1) & mask
    p = ((x * _GOLDEN) >> shift).astype(np.intp)
    inv = tval[p]
    todo = np.flatnonzero(tkey[p] != x)
    p = p[todo]
    while len(todo):
        p = (p + 1) & mask
        hit = tkey[p] == x[todo]
        inv[todo[hit]] = tval[p[hit]]
        todo, p = todo[~hit], p[~hit]
    return u, inv


def _children(keys: np.ndarray, remaining: int) -> np.ndarray:
    """Canonical keys of every state in ``keys`` plus every card: ``(n, 52)``, 0 where the
    card is already held. ``remaining``: cards still to come after this one."""
    step, canon = _transition_tables()
    n = len(keys)
    tracked = (keys >> np.uint64(_T_SHIFT)).astype(np.intp)
    t16 = tracked * 16
    counts = [np.bitwise_count(keys & _SUIT_BITS[s]).astype(np.intp) for s in range(4)]
    out = np.empty((n, SLOTS), dtype=np.uint64)
    dead = np.empty((n, SLOTS), dtype=bool)
    for s in range(4):
        # Suits dropped by this step: tracked ones whose count (plus one for the new card's
        # own suit) can no longer reach five with the cards still to come.
        drop = np.zeros(n, dtype=np.intp)
        for q in range(4):
            cnt = counts[q] + 1 if q == s else counts[q]
            drop |= ((tracked >> q) & 1 & (cnt + remaining < 5)) << q
        new_t = tracked & ~drop
        t_bits = new_t.astype(np.uint64) << np.uint64(_T_SHIFT)
        for r in range(13):
            c = 4 * r + s
            sh = np.uint64(4 * r)
            nib = ((keys >> sh) & np.uint64(0xF)).astype(np.intp)
            nxt = step[s, t16 + nib]
            dead[:, c] = nxt == 255
            out[:, c] = ((keys & ~(np.uint64(0xF) << sh) & np.uint64(_CARD_BITS))
                         | (nxt.astype(np.uint64) << sh) | t_bits)
        rows = np.flatnonzero(drop)
        if len(rows):  # re-canonicalise the rank nibbles for the smaller tracked set
            # Bytes hold two whole rank nibbles (in either byte order): one table lookup each.
            sub = np.ascontiguousarray(out[rows, s::4])            # (m, 13)
            t_part = sub & ~np.uint64(_CARD_BITS)
            b = (sub & np.uint64(_CARD_BITS)).view(np.uint8).reshape(len(rows), 13, 8)
            b = canon[new_t[rows][:, None, None], b]
            out[rows, s::4] = b.reshape(len(rows), 13 * 8).view(np.uint64) | t_part
    out[dead] = 0
    return out


def _unique_children(cand: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_unique_inverse` of the ``(n, 52)`` children of :func:`_children`, flattened.

    The four cards of one rank often lead to one child (a suit-less card of any untracked
    suit): each repeat within a state's rank is pointed at its first copy and only the firsts
    (about half the children, deep in the machine) are sorted and hashed.
    """
    by_rank = cand.reshape(-1, 13, 4)
    src = np.empty(by_rank.shape, dtype=np.intp)   # the suit of each child's first copy
    src[...] = np.arange(4)
    for s in range(3, 0, -1):
        for first in range(s - 1, -1, -1):     # the lowest equal suit is written last
            src[..., s] = np.where(by_rank[..., s] == by_rank[..., first], first, src[..., s])
    own = src == np.arange(4)
    u, inv_own = _unique_inverse(by_rank[own])
    inv = np.empty(by_rank.shape, dtype=inv_own.dtype)
    inv[own] = inv_own
    return u, np.take_along_axis(inv, src, axis=-1).reshape(-1)


def _representatives(keys: np.ndarray, cards: int) -> np.ndarray:
    """Hand masks of ``cards`` cards equivalent to canonical keys with one card to come (so
    only suits with four or more cards are tracked). The suit-less cards are dealt round-robin
    over the untracked suits in rank order, which keeps each rank's cards in distinct suits
    and every untracked suit at two cards or fewer (six cards, none or one suit tracked)."""
    tracked = (keys >> np.uint64(_T_SHIFT)).astype(np.intp)
    untracked = ~tracked & 0xF
    n_untracked = np.maximum(np.bitwise_count(untracked.astype(np.uint8)).astype(np.intp), 1)
    suit_of = np.zeros((16, 4), dtype=np.intp)    # i-th untracked suit of each tracked set
    for t in range(16):
        us = [s for s in range(4) if not t >> s & 1] or [0]
        suit_of[t] = [us[i % len(us)] for i in range(4)]
    masks = np.zeros(len(keys), dtype=np.uint64)
    dealt = np.zeros(len(keys), dtype=np.intp)
    for r in range(13):
        nib = ((keys >> np.uint64(4 * r)) & np.uint64(0xF)).astype(np.intp)
        for s in range(4):
            masks |= ((nib & tracked) >> s & 1).astype(np.uint64) << np.uint64(16 * s + r)
        loose = np.bitwise_count((nib & untracked).astype(np.uint8)).astype(np.intp)
        for j in range(4):
            on = j < loose
            suit = suit_of[tracked[on], (dealt[on] + j) % n_untracked[on]]
            masks[on] |= np.uint64(1) << (suit.astype(np.uint64) * np.uint64(16) + np.uint64(r))
        dealt += loose
    if not (np.bitwise_count(masks) == cards).all():
        raise AssertionError("state-machine generator: a representative lost a card")
    return masks


# _CARD_MASK[r, 1 << s]: the hand-mask bit of rank r in suit s; 0 for "no card" (nibble 0).
_CARD_MASK = np.zeros((13, 16), dtype=np.uint64)
for _s in range(4):
    _CARD_MASK[:, 1 << _s] = np.uint64(1) << np.arange(16 * _s, 16 * _s + 13, dtype=np.uint64)


def _last_card_strengths(keys: np.ndarray, cards: int) -> np.ndarray:
    """``(n, 52)`` uint32: the strength of each state in ``keys`` (one card short of a
    ``cards``-card hand) plus each card, 0 where the state sees that the card is held.

    The strength of a hand depends only on its canonical key, so one representative hand of
    the state plus the card stands for every hand that reaches that slot (the canonical keys
    of whole hands, 18 million for seven cards, are never formed nor deduplicated). A card
    of a tracked suit is itself; one of an untracked suit stands for the rank's lowest
    untracked suit that the representative leaves free, as the transition does. At most two
    suit-less cards share a suit in the representative, so the last one makes no flush.
    """
    n = len(keys)
    rep = _representatives(keys, cards - 1)
    tracked = (keys >> np.uint64(_T_SHIFT)).astype(np.uint8)[:, None]      # (n, 1)
    lanes = rep.view(np.uint16).reshape(n, 4)                              # one per suit
    held = np.zeros((n, 13), dtype=np.uint8)                               # suits per rank
    for s in range(4):
        held |= (((lanes[:, s:s + 1] >> np.arange(13, dtype=np.uint16)) & 1) << s).astype(
            np.uint8)
    free = ~tracked & ~held & np.uint8(0xF)           # untracked suits the rank has left
    lowest_free = free & (~free + np.uint8(1))        # its lowest one (0: none, dead)
    suit = np.empty((n, 13, 4), dtype=np.uint8)       # the one-suit nibble of card 4 r + s
    for s in range(4):
        bit = np.uint8(1 << s)
        suit[:, :, s] = np.where(tracked & bit, bit & ~held, lowest_free)
    card = _CARD_MASK[np.arange(13)[:, None], suit].reshape(n, SLOTS)
    out = evaluate_masks(card | rep[:, None]).astype(np.uint32).reshape(n, SLOTS)
    out[card == 0] = 0
    return out


def _row_hash(rows: np.ndarray) -> np.ndarray:
    h = np.zeros(len(rows), dtype=np.uint64)
    for j in range(rows.shape[1]):
        h ^= rows[:, j].astype(np.uint64)
        h *= _GOLDEN
    return h >> np.uint64(1)  # never equal to _EMPTY


def _merge_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(unique rows, index of each row in them)``; equal rows only (hash, then verify)."""
    _, inv = _unique_inverse(_row_hash(rows))
    rep = np.empty(inv.max() + 1 if len(inv) else 0, dtype=np.intp)
    rep[inv] = np.arange(len(inv))
    uniq = rows[rep]
    if not np.array_equal(uniq[inv], rows):  # a hash collision: fall back to exact sorting
        uniq, inv = np.unique(rows, axis=0, return_inverse=True)
    return uniq, inv.reshape(-1)


@dataclass
class _Machine:
    """The layout-free minimal machine: ``levels[d]`` is ``(n_d, 52)`` uint32 rows, holding
    1-based state numbers of depth ``d + 1`` (0 = dead) or, at the last depth, strengths."""

    cards: int
    levels: list[np.ndarray]
    forward_states: tuple[int, ...]   # states per depth before the final merge


@lru_cache(maxsize=1)
def _machine(cards: int) -> _Machine:
    keys = np.array([_ALL_TRACKED << _T_SHIFT], dtype=np.uint64)
    kids: list[np.ndarray] = []
    forward = [1]
    for depth in range(cards - 1):
        u, inv = _unique_children(_children(keys, cards - depth - 1))
        if u[0] != 0:  # no dead child at this depth: keep 0 for "dead" anyway
            u = np.concatenate([np.zeros(1, np.uint64), u])
            inv += 1
        kids.append(inv.astype(np.uint32).reshape(len(keys), SLOTS))
        keys = u[1:]
        forward.append(len(keys))
    # Bottom-up merge of identical rows: renumber each depth, then rewrite its parents.
    levels: list[np.ndarray] = [None] * cards  # type: ignore[list-item]
    rows = _last_card_strengths(keys, cards)
    for depth in range(cards - 1, -1, -1):
        uniq, inv = _merge_rows(rows)
        levels[depth] = np.ascontiguousarray(uniq, dtype=np.uint32)
        if depth:
            renumber = np.concatenate([[0], inv + 1]).astype(np.uint32)
            rows = renumber[kids[depth - 1]]
    return _Machine(cards, levels, tuple(forward))


# --------------------------------------------------------------------------------------------
# Layouts


def _spanning_tree(m: _Machine) -> tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray]]:
    """Per depth: each state's rank in first-discovery order, its tree parent (index at the
    depth above) and the card leading to it. Discovery order = smallest (parent rank, card),
    which is also the lexicographically smallest card path from the root."""
    ranks = [np.zeros(1, dtype=np.int64)]
    parents = [np.full(1, -1, dtype=np.int64)]
    cards = [np.full(1, -1, dtype=np.int64)]
    for depth in range(m.cards - 1):
        order = np.argsort(ranks[depth])
        flat = m.levels[depth][order].reshape(-1)   # edges in increasing (rank, card)
        n_next = len(m.levels[depth + 1])
        first = np.full(n_next + 1, np.iinfo(np.int64).max, dtype=np.int64)
        np.minimum.at(first, flat, np.arange(flat.size, dtype=np.int64))
        first = first[1:]
        if (first == np.iinfo(np.int64).max).any():
            raise AssertionError("state-machine generator: an unreachable state")
        rank = np.empty(n_next, dtype=np.int64)
        rank[np.argsort(first)] = np.arange(n_next)
        ranks.append(rank)
        parents.append(order[first // SLOTS])
        cards.append(first % SLOTS)
    return ranks, parents, cards


def _positions(m: _Machine, layout: str) -> list[np.ndarray]:
    """Slot-block number (base / 52) of every state, per depth; block 0 is the dead state."""
    ranks, parents, cards = _spanning_tree(m)
    sizes = [len(lv) for lv in m.levels]
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    if layout == "bfs":
        return [1 + offsets[d] + ranks[d] for d in range(m.cards)]
    # Card paths of the spanning tree, -1 padded: sorting them gives the DFS preorder.
    k = m.cards
    paths = [np.full((1, max(k - 1, 1)), -1, dtype=np.int8)]
    for d in range(1, k):
        p = paths[d - 1][parents[d]].copy()
        p[:, d - 1] = cards[d]
        paths.append(p)
    allp = np.concatenate(paths)
    pre = np.empty(len(allp), dtype=np.int64)
    pre[np.lexsort(allp.T[::-1])] = np.arange(len(allp))
    dfs = [pre[offsets[d]:offsets[d + 1]] for d in range(k)]
    if layout == "dfs":
        return [1 + x for x in dfs]
    if layout != "veb":
        raise ValueError(f"layout={layout!r}: expected one of {', '.join(LAYOUTS)}")
    # Ancestors of each state at every shallower depth (in the spanning tree).
    anc: list[dict[int, np.ndarray]] = [{0: np.zeros(1, dtype=np.int64)}]
    for d in range(1, k):
        a = {j: anc[d - 1][j][parents[d]] for j in range(d)}
        a[d] = np.arange(sizes[d])
        anc.append(a)

    def template(lo: int, hi: int, d: int) -> list[tuple[str, int]]:
        if hi - lo <= 1:
            return []
        mid = lo + (hi - lo) // 2
        if d < mid:
            return [("c", 0)] + template(lo, mid, d)
        return [("c", 1), ("a", mid)] + template(mid, hi, d)

    templates = [template(0, k, d) for d in range(k)]
    width = max(len(t) for t in templates)
    key = np.zeros((offsets[-1], width), dtype=np.int64)
    for d in range(k):
        block = key[offsets[d]:offsets[d + 1]]
        for col, (kind, v) in enumerate(templates[d]):
            block[:, col] = v if kind == "c" else dfs[v][anc[d][v]]
    veb = np.empty(offsets[-1], dtype=np.int64)
    veb[np.lexsort(key.T[::-1])] = np.arange(offsets[-1])
    return [1 + veb[offsets[d]:offsets[d + 1]] for d in range(k)]


def _flatten(m: _Machine, pos: list[np.ndarray]) -> np.ndarray:
    total = 1 + sum(len(lv) for lv in m.levels)
    table = np.zeros((total, SLOTS), dtype=np.uint32)  # a state's slots: one row, placed whole
    for d, rows in enumerate(m.levels):
        if d == m.cards - 1:
            table[pos[d]] = rows
        else:
            base = np.concatenate([[0], pos[d + 1] * SLOTS]).astype(np.uint32)
            table[pos[d]] = base[rows]
    return table.reshape(-1)


# --------------------------------------------------------------------------------------------
# Tables, files, cache


@dataclass(frozen=True)
class TableInfo:
    """What a table file's header records.

    Attributes
    ----------
    cards : int
        Hand size the table evaluates (5, 6 or 7).
    layout : str
        ``"bfs"``, ``"dfs"`` or ``"veb"``.
    states_per_depth : tuple of int
        States at depths ``0 .. cards-1`` (depth = cards already walked).
    num_states : int
        All states, including the dead one: ``1 + sum(states_per_depth)``.
    slots : int
        Length of the ``uint32`` array, ``52 * num_states``.
    root : int
        Base of the root state (always :data:`ROOT`).
    sha256 : str
        Hex digest of the payload (the array's bytes, little-endian).
    version : int
        File format version.
    """

    cards: int
    layout: str
    states_per_depth: tuple[int, ...]
    num_states: int
    slots: int
    root: int
    sha256: str
    version: int = FORMAT_VERSION

    @property
    def nbytes(self) -> int:
        """Payload size in bytes."""
        return 4 * self.slots


@dataclass
class FsmTable:
    """A flattened state-machine table and its :class:`TableInfo`.

    Attributes
    ----------
    data : numpy.ndarray
        The flat ``uint32`` array (read-only).
    info : TableInfo
        Card count, layout, state counts, checksum.
    """

    data: np.ndarray
    info: TableInfo
    _device: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def cards(self) -> int:
        """Hand size the table evaluates."""
        return self.info.cards

    @property
    def layout(self) -> str:
        """Placement order of the states."""
        return self.info.layout

    def __repr__(self) -> str:
        i = self.info
        return (f"FsmTable(cards={i.cards}, layout={i.layout!r}, states={i.num_states:,}, "
                f"size={i.nbytes / 2**20:.1f} MiB)")

    def device_array(self) -> Any:
        """The table on the current CUDA device (a CuPy array, uploaded once per device)."""
        from gpu_eval.cuda.availability import require_cuda  # noqa: PLC0415 -- CuPy only when asked for

        cupy = require_cuda()
        dev = cupy.cuda.runtime.getDevice()
        if dev not in self._device:
            self._device[dev] = cupy.asarray(self.data)
        return self._device[dev]


def _check_cards(cards: int) -> int:
    if isinstance(cards, bool) or not isinstance(cards, (int, np.integer)):
        raise TypeError(f"cards must be an int, got {type(cards).__name__}")
    if int(cards) not in CARD_COUNTS:
        raise ValueError(f"cards={cards}: state-machine tables exist for "
                         f"{', '.join(map(str, CARD_COUNTS))}-card hands")
    return int(cards)


def _check_layout(layout: str) -> str:
    if layout not in LAYOUTS:
        raise ValueError(f"layout={layout!r}: expected one of {', '.join(map(repr, LAYOUTS))}")
    return layout


def _make_table(data: np.ndarray, cards: int, layout: str,
                states_per_depth: tuple[int, ...]) -> FsmTable:
    data = np.ascontiguousarray(data, dtype="<u4")
    data.flags.writeable = False
    info = TableInfo(cards=cards, layout=layout, states_per_depth=tuple(states_per_depth),
                     num_states=1 + sum(states_per_depth), slots=len(data), root=ROOT,
                     sha256=hashlib.sha256(data.data).hexdigest())
    return FsmTable(data, info)


def build_table(cards: int = 7, layout: str = "bfs") -> FsmTable:
    """Generate a state-machine table from scratch (no files involved).

    Parameters
    ----------
    cards : {5, 6, 7}
        Hand size the table evaluates.
    layout : {"bfs", "dfs", "veb"}
        Order in which states are placed in the array (see the module docstring).

    Returns
    -------
    FsmTable
        The table; the layout-free machine behind it is kept for the next call, so the
        three layouts of one card count cost one generation.

    Raises
    ------
    ValueError
        For an unsupported card count or layout.

    Examples
    --------
    >>> t = build_table(5, "bfs")
    >>> t.info.num_states, t.info.states_per_depth
    (6736, (1, 52, 403, 1599, 4680))
    >>> from gpu_eval import cards
    >>> int(evaluate_fsm(cards.parse(["AsKsQsJsTs"]), t)[0])
    7462
    """
    cards, layout = _check_cards(cards), _check_layout(layout)
    m = _machine(cards)
    data = _flatten(m, _positions(m, layout))
    return _make_table(data, cards, layout, tuple(len(lv) for lv in m.levels))


def save_table(table: FsmTable, path: str | os.PathLike) -> Path:
    """Write a table file, atomically (a temporary file renamed into place).

    The 128-byte header, little-endian: magic ``b"GEFSM\\r\\n\\x1a"``, format version (u32),
    header size (u32), cards (u32), layout (u32: 0 bfs, 1 dfs, 2 veb), root base (u32),
    number of states with the dead one (u32), number of slots (u64), states per depth
    (10 x u32, zero padded), SHA-256 of the payload (32 bytes), 12 reserved zero bytes and a
    CRC32 of the 124 bytes before it. The payload (``slots`` little-endian u32) follows.

    Parameters
    ----------
    table : FsmTable
        The table.
    path : str or os.PathLike
        Destination file (its directory must exist).

    Returns
    -------
    pathlib.Path
        ``path``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> p = save_table(build_table(5), d / "fsm5.gefsm")
    >>> read_table(p, cards=5).info.num_states
    6736
    """
    i = table.info
    levels = list(i.states_per_depth) + [0] * (_MAX_LEVELS - len(i.states_per_depth))
    body = _HEADER_BODY.pack(_MAGIC, FORMAT_VERSION, _HEADER_SIZE, i.cards,
                             LAYOUTS.index(i.layout), i.root, i.num_states, i.slots, *levels,
                             bytes.fromhex(i.sha256))
    header = body + _CRC.pack(zlib.crc32(body))
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(header)
            f.write(np.ascontiguousarray(table.data, dtype="<u4").tobytes())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def read_table(path: str | os.PathLike, *, cards: int | None = None,
               layout: str | None = None, verify: bool = True) -> FsmTable:
    """Read and check a table file written by :func:`save_table`.

    Parameters
    ----------
    path : str or os.PathLike
        The file.
    cards, layout : optional
        What the caller expects; a file holding anything else is refused.
    verify : bool
        Check the payload's SHA-256 (about 0.3 s for the 7-card table).

    Returns
    -------
    FsmTable

    Raises
    ------
    ValueError
        Saying exactly what is wrong: not a table file, truncated, corrupt header or
        payload, another format version, or another card count or layout than asked for.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = save_table(build_table(5), pathlib.Path(tempfile.mkdtemp()) / "t.gefsm")
    >>> read_table(p, cards=7)
    Traceback (most recent call last):
    ...
    ValueError: FSM table file ...: holds a 5-card table, expected a 7-card one
    """
    path = Path(path)
    where = f"FSM table file {path}"
    with open(path, "rb") as f:
        head = f.read(_HEADER_SIZE)
        size = os.fstat(f.fileno()).st_size
    if len(head) < 8 or head[:8] != _MAGIC:
        raise ValueError(f"{where}: not a gpu_eval state-machine table (bad magic "
                         f"{head[:8]!r}, expected {_MAGIC!r})")
    if len(head) < _HEADER_SIZE:
        raise ValueError(f"{where}: truncated header ({len(head)} of {_HEADER_SIZE} bytes)")
    body, (crc,) = head[:_HEADER_BODY.size], _CRC.unpack(head[_HEADER_BODY.size:])
    if zlib.crc32(body) != crc:
        raise ValueError(f"{where}: corrupt header (CRC32 {zlib.crc32(body):08x}, "
                         f"recorded {crc:08x})")
    (_, version, hsize, n_cards, layout_id, root, n_states, slots, *rest) = \
        _HEADER_BODY.unpack(body)
    levels, digest = rest[:_MAX_LEVELS], rest[_MAX_LEVELS]
    if version != FORMAT_VERSION:
        raise ValueError(f"{where}: format version {version}, this gpu_eval reads version "
                         f"{FORMAT_VERSION} (delete the file to regenerate it)")
    if hsize != _HEADER_SIZE or n_cards not in CARD_COUNTS or layout_id >= len(LAYOUTS) \
            or root != ROOT or slots != SLOTS * n_states \
            or 1 + sum(levels[:n_cards]) != n_states or not all(levels[:n_cards]) \
            or any(levels[n_cards:]):
        raise ValueError(f"{where}: inconsistent header (header size {hsize}, cards "
                         f"{n_cards}, layout {layout_id}, root {root}, states {n_states}, "
                         f"slots {slots}, states per depth {levels})")
    file_layout = LAYOUTS[layout_id]
    if cards is not None and n_cards != _check_cards(cards):
        raise ValueError(f"{where}: holds a {n_cards}-card table, expected a {cards}-card one")
    if layout is not None and file_layout != _check_layout(layout):
        raise ValueError(f"{where}: holds layout {file_layout!r}, expected {layout!r}")
    expected = _HEADER_SIZE + 4 * slots
    if size < expected:
        raise ValueError(f"{where}: truncated ({size:,} bytes, the header says {expected:,})")
    if size > expected:
        raise ValueError(f"{where}: {size - expected:,} unexpected bytes after the table")
    data = np.fromfile(path, dtype="<u4", offset=_HEADER_SIZE, count=slots)
    if len(data) != slots:
        raise ValueError(f"{where}: truncated while reading ({len(data):,} of {slots:,} slots)")
    if verify:
        got = hashlib.sha256(data.data).hexdigest()
        if got != digest.hex():
            raise ValueError(f"{where}: corrupt payload (SHA-256 {got[:16]}..., recorded "
                             f"{digest.hex()[:16]}...)")
    data.flags.writeable = False
    info = TableInfo(cards=n_cards, layout=file_layout,
                     states_per_depth=tuple(levels[:n_cards]), num_states=n_states,
                     slots=slots, root=root, sha256=digest.hex(), version=version)
    return FsmTable(data, info)


def _cache_root() -> Path:
    for var in ("GPU_EVAL_CACHE", "GPU_EVAL_CACHE_DIR"):
        if os.environ.get(var):
            return Path(os.environ[var])
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "gpu_eval"


def cache_path(cards: int = 7, layout: str = "bfs",
               cache_dir: str | os.PathLike | None = None) -> Path:
    """Where :func:`load_table` keeps a table: ``<cache_dir>/fsm<cards>_<layout>_v<N>.gefsm``.

    ``cache_dir`` defaults to ``$GPU_EVAL_CACHE/fsm`` (or ``$GPU_EVAL_CACHE_DIR/fsm``),
    else ``$XDG_CACHE_HOME/gpu_eval/fsm``, else ``~/.cache/gpu_eval/fsm``.

    Examples
    --------
    >>> cache_path(7, "veb", "/tmp/x").as_posix()
    '/tmp/x/fsm7_veb_v1.gefsm'
    """
    d = Path(cache_dir) if cache_dir is not None else _cache_root() / "fsm"
    return d / f"fsm{_check_cards(cards)}_{_check_layout(layout)}_v{FORMAT_VERSION}.gefsm"


def load_table(cards: int = 7, layout: str = "bfs",
               cache_dir: str | os.PathLike | None = None) -> FsmTable:
    """The table for ``cards``/``layout`` from the cache, generated there on first use.

    Tables are never downloaded: the first call generates one (about 5 s for 7 cards) and
    writes it to :func:`cache_path`; later calls read and checksum it (well under a second).

    Parameters
    ----------
    cards : {5, 6, 7}
        Hand size.
    layout : {"bfs", "dfs", "veb"}
        State placement order.
    cache_dir : str or os.PathLike, optional
        Directory for the table files (see :func:`cache_path` for the default).

    Returns
    -------
    FsmTable

    Raises
    ------
    ValueError
        If the cached file is corrupt or not the table asked for (the message names the
        file; delete it and it is regenerated on the next call).

    Examples
    --------
    >>> import tempfile
    >>> t = load_table(5, "dfs", cache_dir=tempfile.mkdtemp())
    >>> t
    FsmTable(cards=5, layout='dfs', states=6,736, size=1.3 MiB)
    """
    path = cache_path(cards, layout, cache_dir)
    if path.is_file():
        try:
            return read_table(path, cards=cards, layout=layout)
        except ValueError as exc:
            raise ValueError(f"{exc}; delete it and it will be regenerated") from None
    table = build_table(cards, layout)
    path.parent.mkdir(parents=True, exist_ok=True)
    save_table(table, path)
    return table


# --------------------------------------------------------------------------------------------
# Lookup

_CHUNK = 1 << 15


def evaluate_fsm(ids: Any, table: FsmTable, *, check: bool = True) -> Any:
    """Strengths of ``(N, k)`` card-id hands by walking a state-machine table.

    Parameters
    ----------
    ids : array_like of int, shape (N, k)
        Card ids (``4 * rank + suit``), ``k`` = the table's card count, any card order.
        A CuPy array runs the CUDA kernel ``kernels/fsm.cu`` on its device (the table is
        uploaded once per device) and returns a CuPy array.
    table : FsmTable
        From :func:`load_table` or :func:`build_table`.
    check : bool
        Check every id is in ``0..51`` and no row repeats a card. With ``check=False`` a
        repeated card gives strength 0 where the table can see it and an arbitrary
        strength where it cannot (a repeat within a suit that can no longer flush), and
        an id above 51 gives an arbitrary result or reads out of bounds.

    Returns
    -------
    numpy.ndarray or cupy.ndarray
        ``uint16`` strengths, shape ``(N,)``, higher is better.

    Raises
    ------
    ValueError
        Wrong shape or card count for the table, an id out of range, a repeated card.
    TypeError
        ``table`` is not an :class:`FsmTable` or ``ids`` are not integers.

    Examples
    --------
    >>> from gpu_eval import cards
    >>> t = build_table(5)
    >>> evaluate_fsm(cards.parse(["AsKsQsJsTs", "7c5d4h3s2c"]), t).tolist()
    [7462, 1]
    """
    if not isinstance(table, FsmTable):
        raise TypeError(f"table must be an FsmTable (load_table / build_table), got "
                        f"{type(table).__name__}")
    from gpu_eval.cuda.availability import is_cupy_array  # noqa: PLC0415 -- no CuPy import happens here

    if is_cupy_array(ids):
        with ids.device:  # checked, and the table walked, on the device that holds the ids
            return _evaluate_cuda(ids, table, check)
    arr = np.asarray(ids)
    k = table.cards
    if arr.ndim != 2 or arr.shape[1] != k:
        raise ValueError(f"ids must have shape (N, {k}) for a {k}-card table, got "
                         f"{arr.shape}")
    if arr.dtype != np.uint8:
        if arr.dtype.kind not in "iu":
            raise TypeError(f"ids must be integers, got dtype {arr.dtype}")
        if arr.size and (arr.min() < 0 or arr.max() >= SLOTS):
            row = int(np.flatnonzero(((arr < 0) | (arr >= SLOTS)).any(axis=1))[0])
            raise ValueError(f"row {row}: card id out of range 0..51 ({arr[row].tolist()})")
        arr = arr.astype(np.uint8)
    return _walk_numpy(arr, table.data, check)


def _walk_numpy(ids: np.ndarray, data: np.ndarray, check: bool) -> np.ndarray:
    from gpu_eval.evaluator.numpy_path import ids_to_masks, run_chunked  # noqa: PLC0415

    n, k = ids.shape
    out = np.empty(n, dtype=np.uint16)
    bad: list[tuple[int, str]] = []  # (row, reason), at most one per chunk

    def work(start: int, stop: int) -> None:
        block = ids[start:stop]
        if check:  # in the chunk, while it is in cache, and on the thread pool
            if block.size and block.max() >= SLOTS:
                row = start + int(np.flatnonzero((block >= SLOTS).any(axis=1))[0])
                bad.append((row, f"card id {int(ids[row].max())} is out of range 0..51"))
                return
            short = np.flatnonzero(np.bitwise_count(ids_to_masks(block)) != k)
            if len(short):
                row = start + int(short[0])
                bad.append((row, f"a card is repeated ({ids[row].tolist()})"))
        s = np.take(data, block[:, 0].astype(np.uint32) + np.uint32(ROOT))
        for j in range(1, k):
            s += block[:, j]
            s = np.take(data, s)
        out[start:stop] = s

    run_chunked(n, work, chunk=_CHUNK)
    if bad:
        row, why = min(bad)
        raise ValueError(f"row {row}: {why}")
    return out


def _evaluate_cuda(ids: Any, table: FsmTable, check: bool) -> Any:
    from gpu_eval.cuda.availability import require_cuda  # noqa: PLC0415

    cupy = require_cuda()
    k = table.cards
    if ids.ndim != 2 or ids.shape[1] != k:
        raise ValueError(f"ids must have shape (N, {k}) for a {k}-card table, got "
                         f"{tuple(ids.shape)}")
    if ids.dtype.kind not in "iu":
        raise TypeError(f"ids must be integers, got dtype {ids.dtype}")
    if check and ids.size:
        bad = (ids < 0) | (ids >= SLOTS) if ids.dtype.kind == "i" else ids >= SLOTS
        rows = cupy.flatnonzero(bad.any(axis=1))
        if rows.size:
            row = int(rows[0])
            raise ValueError(f"row {row}: card id out of range 0..51 "
                             f"({cupy.asnumpy(ids[row]).tolist()})")
        srt = cupy.sort(ids, axis=1)
        rows = cupy.flatnonzero((srt[:, 1:] == srt[:, :-1]).any(axis=1))
        if rows.size:
            row = int(rows[0])
            raise ValueError(f"row {row}: a card is repeated "
                             f"({cupy.asnumpy(ids[row]).tolist()})")
    ids8 = cupy.ascontiguousarray(ids, dtype=cupy.uint8)
    n = ids8.shape[0]
    out = cupy.empty(n, dtype=cupy.uint16)
    if n == 0:
        return out
    from gpu_eval.cuda import fsm  # noqa: PLC0415 -- the launcher; CuPy only when asked for

    fsm.launch(table.device_array(), ids8, k, out)
    return out
