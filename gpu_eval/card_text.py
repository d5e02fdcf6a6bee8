"""Card text at array speed: many hands of text parsed and formatted without a Python loop
per hand.

Parsing joins the rows into one buffer (``"\\x00".join(rows)``), reads it as bytes (or as
UTF-32 code points when a row has a Unicode suit) and maps it through lookup tables:

* **uniform rows** (every row the same length, two-character cards with no separator or with
  exactly one separator character between cards, e.g. ``"AsKdQh..."`` or ``"As Kd Qh"``): one
  65,536-entry table maps each two-byte card to its id;
* **every other row** (mixed or repeated separators, ``10``, rows of different lengths,
  leading or trailing blanks), by row groups: bytes operations turn each ``10`` into ``T`` and
  delete the separators (where each stands between two cards), then the same pair table reads
  each group of rows of one length; rows with jokers (where a game allows them) go through a
  tokenizer that walks all rows in lock step, one card per step for every row at once;
* **anything the tables do not know** (a character outside ASCII other than the eight suit
  symbols, a NUL inside a row, a bad or repeated card): that row alone goes through the
  reference parser of :mod:`gpu_eval.cards`, so results and error messages are exactly the
  reference's.

Nothing here is public API; :func:`gpu_eval.cards.parse`, :func:`gpu_eval.cards.format` and the
evaluators' text inputs call it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from gpu_eval import card_spelling as spelling

__all__ = ["PAD", "ParsedRows", "format_ids", "format_masks", "parse_rows", "rows_of_size",
           "rows_with_jokers"]

#: Filler after a row's last card in :attr:`ParsedRows.ids`.
PAD = 255
_JOKER = 52
_OTHER = 136  # class of a code point the tables do not know (goes to the reference parser)
_SUIT_SYMBOLS = "♠♡♢♣♤♥♦♧"  # U+2660..U+2667, classes 128..135
_ROWS_PER_BLOCK = 1 << 18  # rows the uniform tables do not take are read in blocks this big


def _tables():
    rank = np.full(256, -1, dtype=np.int16)
    suit = np.full(256, -1, dtype=np.int16)
    for i, ch in enumerate(spelling.RANKS):
        rank[ord(ch)] = rank[ord(ch.lower())] = i
    for i, ch in enumerate(spelling.SUITS):
        suit[ord(ch)] = suit[ord(ch.upper())] = i
    for j, ch in enumerate(_SUIT_SYMBOLS):
        suit[128 + j] = {"♣": 0, "♧": 0, "♦": 1, "♢": 1, "♥": 2, "♡": 2, "♠": 3, "♤": 3}[ch]
    # Separators are exactly what the reference splits on ([\s,]+), restricted to ASCII.
    sep = np.array([c < 128 and re.fullmatch(r"[\s,]", chr(c)) is not None
                    for c in range(256)])
    # Two-character cards, indexed by first | second << 8: the id, or PAD (jokers included:
    # rows with jokers go to the lock-step tokenizer, which reads them with _IS_JOKER).
    first, second = np.divmod(np.arange(65536), 256)[::-1]
    r, s = rank[first], suit[second]
    pair = np.where((r >= 0) & (s >= 0), 4 * r + s, PAD).astype(np.uint8)
    jk = (np.isin(first, [ord("j"), ord("J")]) & np.isin(second, [ord("k"), ord("K")])) | (
        np.isin(first, [ord("x"), ord("X")]) & np.isin(second, [ord("x"), ord("X")]))
    return rank, suit, sep, pair, jk.reshape(256, 256).T


_RANK, _SUIT, _SEP, _PAIR, _IS_JOKER = _tables()
# For bytes.translate: a rank char (and the "0" of "10") reads "r", a separator " ", NUL
# stays NUL, the rest "o".
_CLASS_OF_BYTE = bytes(ord("r") if _RANK[c] >= 0 or c == ord("0") else ord(" ") if _SEP[c]
                       else 0 if c == 0 else ord("o") for c in range(256))
_ONE_IS_T = bytes(ord("T") if c == ord("1") else c for c in range(256))
_SEP_BYTES = bytes(np.flatnonzero(_SEP).tolist())
# Card id (or joker / PAD) to mask bit; a joker and PAD add no bit.
_BIT = np.zeros(256, dtype=np.uint64)
_BIT[:52] = spelling.ID_TO_MASK  # ids past 51 map to 0 (not a card)
_PAIR_BIT = _BIT[_PAIR]  # two-character card straight to its mask bit (0: not a card)


@dataclass
class ParsedRows:
    """Many rows of card text, parsed.

    ``ids[r, :counts[r]]`` are row ``r``'s card ids (``PAD`` after them), ``masks[r]`` its hand
    mask (jokers add no bit). ``bad[r]`` marks a row the reference parser rejects (or that is
    not text); ``errors[r]`` is then the exception it raised (a ``TypeError`` for a row that is
    not a string). With ``stop_at_first_bad`` rows from ``stop`` on were not looked at.
    """

    ids: np.ndarray
    counts: np.ndarray
    masks: np.ndarray
    bad: np.ndarray
    errors: dict = field(default_factory=dict)
    stop: int = 0


def _codes(joined: str) -> np.ndarray:
    """One ``uint8`` class per code point: ASCII as itself, suit symbols 128..135, else 136."""
    try:
        return np.frombuffer(joined.encode("ascii"), dtype=np.uint8)
    except UnicodeEncodeError:
        pass
    u = np.frombuffer(joined.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    out = u.astype(np.uint8)
    hi = np.flatnonzero(u >= 128)
    v = u[hi]
    out[hi] = np.where((v >= 0x2660) & (v <= 0x2667), v - 0x2660 + 128, _OTHER)
    return out


def _or_columns(bits: np.ndarray) -> np.ndarray:
    """OR of the columns of an ``(n, k)`` ``uint64`` array (faster than ``reduce(axis=1)``)."""
    out = np.zeros(len(bits), dtype=np.uint64)
    for j in range(bits.shape[1]):
        out |= bits[:, j]
    return out


def _masks_ok(ids: np.ndarray, counts: np.ndarray):
    """``(masks, ok)``: ok where no card repeats (jokers may repeat)."""
    masks = _or_columns(_BIT[ids])
    jokers = ids == _JOKER
    real = counts - jokers.sum(axis=1) if jokers.any() else counts
    return masks, np.bitwise_count(masks) == real


def _uniform(codes: np.ndarray, n: int):
    """``(ids, masks, ok)`` for rows that all have the same length, or ``None`` if they do not
    or their layout is not two-character cards with zero or one separator between them.
    ``ok`` is False for a row with anything but k distinct cards (a joker included: the
    tokenizer takes those)."""
    if n == 0 or len(codes) % n:
        return None
    width = len(codes) // n  # row length + its terminator
    grid = codes.reshape(n, width)
    if (grid[:, -1] != 0).any():
        return None
    length = width - 1
    if length >= 5 and length % 3 == 2 and _SEP[grid[0, 2]]:
        k, step = (length + 1) // 3, 3
        seps = grid.reshape(n, k, 3)[:, :-1, 2]
        seps_ok = None if (seps == grid[0, 2]).all() else _SEP[seps].all(axis=1)
    elif length % 2 == 0 and length > 0:
        k, step, seps_ok = length // 2, 2, None
    else:
        return None
    # Card j of row r is the two bytes at r * width + step * j: read them as one
    # little-endian uint16 through a strided (unaligned) view, no copy.
    pairs = np.ndarray(shape=(n, k), dtype="<u2", buffer=codes, strides=(width, step)
                       ).astype(np.intp)
    ids = _PAIR[pairs]
    masks = _or_columns(_PAIR_BIT[pairs])
    ok = np.bitwise_count(masks) == k  # a bad card or a joker adds no bit, a repeat none
    if seps_ok is not None:
        ok &= seps_ok
    return ids, masks, ok


def _tokenize(codes: np.ndarray, starts: np.ndarray, allow_joker: bool):
    """Lock-step tokenizer: ``(ids (n, kmax) PAD-filled, counts, ok)`` for rows starting at
    ``starts`` in ``codes`` (each row ends at a 0, and ``codes`` has 3 zeros of slack)."""
    n = len(starts)
    pos = starts.astype(np.intp)
    cap = 9
    ids = np.full((n, cap), PAD, dtype=np.uint8)
    counts = np.zeros(n, dtype=np.int64)
    ok = np.ones(n, dtype=bool)
    live = np.arange(n)
    t = 0
    while live.size:
        p = pos[live]
        while True:  # skip separators (runs are short; each pass moves every row on one)
            s = _SEP[codes[p]]
            if not s.any():
                break
            p = p + s
        c0 = codes[p]
        going = c0 != 0
        live, p, c0 = live[going], p[going], c0[going]
        if not live.size:
            break
        c1, c2 = codes[p + 1], codes[p + 2]
        r0, s1, s2 = _RANK[c0], _SUIT[c1], _SUIT[c2]
        two = (r0 >= 0) & (s1 >= 0)
        ten = (c0 == ord("1")) & (c1 == ord("0")) & (s2 >= 0)
        joker = _IS_JOKER[c0, c1] if allow_joker else np.zeros(len(live), bool)
        good = two | ten | joker
        if not good.all():
            ok[live[~good]] = False
            live, p, two, ten, r0, s1, s2 = (a[good] for a in (live, p, two, ten, r0, s1, s2))
        if t == cap:
            cap *= 2
            ids = np.concatenate([ids, np.full((n, cap - t), PAD, np.uint8)], axis=1)
        ids[live, t] = np.where(two, 4 * r0 + s1, np.where(ten, 32 + s2, _JOKER))
        counts[live] += 1
        pos[live] = p + np.where(ten, 3, 2)
        t += 1
    ids[~ok] = PAD
    counts[~ok] = 0
    return ids[:, :t], counts, ok


def _lock_step(rows: list, allow_joker: bool):
    """``(ids, counts, masks, ok)`` by the lock-step tokenizer (any rows, jokers too)."""
    codes = _codes("\x00".join(rows) + "\x00\x00\x00\x00")
    ends = np.flatnonzero(codes == 0)[:len(rows)]
    starts = np.concatenate([[0], ends[:-1] + 1])
    ids, counts, ok = _tokenize(codes, starts, allow_joker)
    masks, no_dup = _masks_ok(ids, counts)
    return ids, counts, masks, ok & no_dup


def _normalised(rows: list, raw: bytes | None = None):
    """``(ids, counts, masks, ok)`` for rows without jokers, read by row groups.

    Every "10" becomes "T" (in a valid row a "10" can only be the ten of a card, and a
    leftover "1" or "0" is no card), then the separators are deleted. Deleting them is
    sound only where each one stands between cards: a separator right after a rank char
    marks its row not ok. What is left is two-character cards, read through the pair table
    one group of rows of the same length at a time.
    """
    n = len(rows)
    if raw is None:  # else the caller's codes of these rows, each ended by a NUL
        raw = _codes("\x00".join(rows) + "\x00").tobytes()
    # Bytes operations throughout: C speed, no per-row work, no large temporaries.
    ten = b"1" in raw or b"0" in raw
    if ten and not raw.count(b"1") == raw.count(b"10") == raw.count(b"0"):
        raw, ten = raw.replace(b"10", b"T"), False  # a stray "1" or "0" somewhere
    # else every "1" is followed by a "0" and every "0" follows a "1": "1" -> "T" and
    # "0" deleted below is the same as replacing each "10" by "T".
    ok = np.ones(n, dtype=bool)
    classes = raw.translate(_CLASS_OF_BYTE)
    if b" " in classes:
        if b"r " in classes:  # a separator right after a rank: "A s", a card split in two
            c = np.frombuffer(classes, dtype=np.uint8)
            split = np.flatnonzero((c[:-1] == ord("r")) & (c[1:] == ord(" ")))
            ok[np.searchsorted(np.flatnonzero(c == 0), split)] = False
        raw = raw.translate(_ONE_IS_T if ten else None, _SEP_BYTES + b"0" * ten)
    elif ten:
        raw = raw.translate(_ONE_IS_T, b"0")
    codes = np.frombuffer(raw, dtype=np.uint8)
    counts = np.zeros(n, dtype=np.int64)
    masks = np.zeros(n, dtype=np.uint64)
    ends = np.flatnonzero(codes == 0)
    starts = np.concatenate([[0], ends[:-1] + 1])
    lengths = ends - starts
    odd = (lengths % 2).astype(bool)
    ok &= ~odd
    sizes = np.bincount(lengths[~odd] // 2) if (~odd).any() else np.zeros(1, np.int64)
    kmax = len(sizes) - 1
    ids = np.full((n, kmax), PAD, dtype=np.uint8)
    for k in np.flatnonzero(sizes).tolist():
        if k == 0:
            continue
        group: slice | np.ndarray
        if sizes[k] == n:  # one group: read the buffer in place
            group = slice(None)
            pairs = np.ndarray(shape=(n, k), dtype="<u2", buffer=codes,
                               strides=(2 * k + 1, 2)).astype(np.intp)
        else:
            group = np.flatnonzero(lengths == 2 * k)
            at = starts[group, None] + np.arange(0, 2 * k, 2)
            pairs = codes[at].astype(np.intp) | codes[at + 1].astype(np.intp) << 8
        ids[group, :k] = _PAIR[pairs]
        m = _or_columns(_PAIR_BIT[pairs])
        masks[group] = m
        counts[group] = k
        ok[group] &= np.bitwise_count(m) == k  # a bad card adds no bit, a repeat none
    return ids, counts, masks, ok


def _general(rows: list, allow_joker: bool, codes: np.ndarray | None = None):
    """``(ids, counts, masks, ok)`` for any rows, block by block (``ok`` False: leave the
    row to the reference). ``codes``: the rows' codes, each row ended by a NUL, if the caller
    has them already."""
    n = len(rows)
    if allow_joker:
        parts = [_lock_step(rows[a:a + _ROWS_PER_BLOCK], True)
                 for a in range(0, n, _ROWS_PER_BLOCK)]
    elif codes is None:
        parts = [_normalised(rows[a:a + _ROWS_PER_BLOCK]) for a in range(0, n, _ROWS_PER_BLOCK)]
    else:
        raw = codes.tobytes()
        ends = np.flatnonzero(codes == 0)  # one NUL after each row
        starts = list(range(0, n, _ROWS_PER_BLOCK))
        bounds = [0] + [int(ends[min(a + _ROWS_PER_BLOCK, n) - 1]) + 1 for a in starts]
        parts = [_normalised(rows[a:a + _ROWS_PER_BLOCK], raw[bounds[i]:bounds[i + 1]])
                 for i, a in enumerate(starts)]
    if len(parts) == 1:
        return parts[0]
    k = max(x[0].shape[1] for x in parts)
    ids = np.concatenate([np.pad(x[0], ((0, 0), (0, k - x[0].shape[1])), constant_values=PAD)
                          for x in parts])
    return (ids, *(np.concatenate([x[i] for x in parts]) for i in (1, 2, 3)))


def _reference(text: str, row: int, allow_joker: bool) -> list[int]:
    """The reference parser of :mod:`gpu_eval.cards` on one row (raises its errors)."""
    ids = spelling.parse_hand_text(text, allow_joker=allow_joker, where=f" (row {row})")
    spelling.check_no_duplicates(ids, f"{text!r} (row {row})")
    return ids


def parse_rows(rows, *, allow_joker: bool = False,
               stop_at_first_bad: bool = False) -> ParsedRows:
    """Parse many rows of card text (rows may hold different numbers of cards).

    Parameters
    ----------
    rows : sequence of str
        One hand per row, in any spelling :func:`gpu_eval.cards.parse` accepts.
    allow_joker : bool
        Accept jokers (id 52).
    stop_at_first_bad : bool
        Stop at the first bad row (for callers that raise on it); rows after it are left
        unparsed.

    Returns
    -------
    ParsedRows

    Examples
    --------
    >>> p = parse_rows(["AsKd", "2c 3c 4c", "AsAs"])
    >>> p.counts.tolist(), p.bad.tolist(), p.ids[1, :3].tolist()
    ([2, 3, 0], [False, False, True], [0, 4, 8])
    >>> str(p.errors[2])
    "card As is used twice in hand 'AsAs' (row 2)"
    """
    rows = rows if isinstance(rows, list) else list(rows)
    n = len(rows)
    errors: dict = {}
    try:
        joined = "\x00".join(rows)
    except TypeError:
        for i, r in enumerate(rows):
            if not isinstance(r, str):
                errors[i] = TypeError(f"row {i}: expected card text, got {type(r).__name__}")
        rows = [r if isinstance(r, str) else "" for r in rows]
        joined = "\x00".join(rows)
    todo = np.zeros(n, dtype=bool)  # rows for the reference parser
    if n and joined.count("\x00") != n - 1:  # a NUL inside a row: the buffer cannot show it
        nul = [i for i, r in enumerate(rows) if "\x00" in r]
        todo[nul] = True
        rows_fast = list(rows)
        for i in nul:
            rows_fast[i] = ""
        joined = "\x00".join(rows_fast)
    else:
        rows_fast = rows
    codes = _codes(joined + "\x00") if n else np.zeros(0, np.uint8)
    uni = _uniform(codes, n)
    if uni is not None:
        ids, masks, ok = uni
        counts = np.full(n, ids.shape[1], dtype=np.int64)
        rest = np.flatnonzero(~ok)
    else:
        ids = np.full((n, 0), PAD, dtype=np.uint8)
        counts = np.zeros(n, dtype=np.int64)
        masks = np.zeros(n, dtype=np.uint64)
        ok = np.zeros(n, dtype=bool)
        rest = np.arange(n)
    if rest.size:  # every row the uniform tables did not take, by row groups
        if rest.size == n:  # all of them: reuse the buffer
            gids, gcounts, gmasks, gok = _general(rows_fast, allow_joker, codes)
        else:
            gids, gcounts, gmasks, gok = _general(
                list(map(rows_fast.__getitem__, rest.tolist())), allow_joker)
        if rest.size == n:
            ids, counts, masks, ok = gids, gcounts, gmasks, gok
        else:
            if gids.shape[1] > ids.shape[1]:
                ids = np.pad(ids, ((0, 0), (0, gids.shape[1] - ids.shape[1])),
                             constant_values=PAD)
            ids[rest] = PAD
            ids[rest, :gids.shape[1]] = gids
            counts[rest] = gcounts
            ok[rest] = gok
            masks[rest] = gmasks
    ok &= ~todo
    for i in errors:
        ok[i] = False
    bad = np.zeros(n, dtype=bool)
    stop = n
    for i in np.flatnonzero(~ok).tolist():  # the reference parser, row by row, in row order
        if i in errors:
            bad[i] = True
        else:
            try:
                got = _reference(rows[i], i, allow_joker)
            except ValueError as exc:
                bad[i] = True
                errors[i] = exc
            else:
                if len(got) > ids.shape[1]:
                    ids = np.pad(ids, ((0, 0), (0, len(got) - ids.shape[1])),
                                 constant_values=PAD)
                ids[i] = PAD
                ids[i, :len(got)] = got
                counts[i] = len(got)
                masks[i] = np.bitwise_or.reduce(_BIT[np.array(got, dtype=np.intp)]) \
                    if got else 0
        if bad[i] and stop_at_first_bad:
            stop = i
            break
    if bad.any():
        ids[bad] = PAD
        counts[bad] = 0
        masks[bad] = 0
    return ParsedRows(ids=ids, counts=counts, masks=masks, bad=bad, errors=errors, stop=stop)


# --------------------------------------------------------------------------- formatting

# The two bytes of each card's text (and the joker's) as one little-endian uint16.
_CARD_TEXT16 = np.array([(r + s).encode() for r in spelling.RANKS for s in spelling.SUITS] + [b"Jk"],
                        dtype="S2").view("<u2")


def format_ids(ids: np.ndarray, sep: str = "") -> list[str]:
    """Format an ``(N, k)`` array of ids (0..52, already range-checked) to one string per row.

    Examples
    --------
    >>> format_ids(np.array([[51, 45], [0, 52]], dtype=np.uint8), sep=" ")
    ['As Kd', '2c Jk']
    """
    n, k = ids.shape
    if n == 0:
        return []
    if k == 0:
        return [""] * n
    sep_b = sep.encode("utf-8", "surrogatepass")
    # A row terminator that cannot occur in the text: the first ASCII byte not in sep.
    end = next((c for c in range(128) if c not in sep_b), None)
    if end is None:  # pragma: no cover - a separator holding every ASCII character
        return [sep.join(row) for row in _CARD_TEXT_STR[ids].tolist()]
    s = len(sep_b)
    w = 2 + s
    row_len = (k - 1) * w + 3  # cards and separators, then the terminator
    buf = np.empty(n * row_len, dtype=np.uint8)
    # Card j of row r is the two bytes at r * row_len + w * j: write each as one uint16
    # through a strided (unaligned) view.
    np.ndarray(shape=(n, k), dtype="<u2", buffer=buf, strides=(row_len, w))[...] = \
        _CARD_TEXT16[ids]
    rows = buf.reshape(n, row_len)
    if s and k > 1:
        seps = np.lib.stride_tricks.as_strided(buf[2:], shape=(n, k - 1, s),
                                               strides=(row_len, w, 1), writeable=True)
        seps[...] = np.frombuffer(sep_b, dtype=np.uint8)
    rows[:, -1] = end
    out = buf.tobytes().decode("utf-8", "surrogatepass").split(chr(end))
    out.pop()  # the empty text after the last terminator
    return out


_BYTE_TO_ID_BITS = np.zeros((8, 256), dtype=np.uint64)
for _pos in range(64):  # mask bit 16 * suit + rank -> bit 4 * rank + suit
    _suit, _rank = divmod(_pos, 16)
    if _rank < 13:
        _v = np.arange(256)
        _BYTE_TO_ID_BITS[_pos // 8][(_v >> (_pos % 8)) & 1 == 1] |= np.uint64(1 << (4 * _rank
                                                                                  + _suit))
del _pos, _suit, _rank, _v
_CARD_TEXT_STR = np.array([r + s for r in spelling.RANKS for s in spelling.SUITS] + ["Jk"],
                          dtype=object)


def format_masks(masks: np.ndarray, sep: str = "") -> list[str]:
    """Format ``uint64`` hand masks (52 valid bits) to one string per mask, cards from the
    lowest id up, grouping the masks by their number of cards.

    Examples
    --------
    >>> from gpu_eval import cards
    >>> format_masks(cards.to_mask(["2c3d", "AhKhQh"]), sep=" ")
    ['2c 3d', 'Qh Kh Ah']
    """
    # Only the 52 card bits are cards (the reference ignores any other bit).
    flat = np.asarray(masks, dtype=np.uint64).reshape(-1) & spelling.VALID_MASK_BITS
    out = np.full(len(flat), "", dtype=object)
    if not len(flat):
        return []
    counts = np.bitwise_count(flat)
    # The same cards with bit "id" set (id order, 4 * rank + suit), byte by byte.
    octets = np.ascontiguousarray(flat, dtype="<u8").view(np.uint8).reshape(-1, 8)
    by_id = _BYTE_TO_ID_BITS[0][octets[:, 0]]
    for j in range(1, 8):
        by_id |= _BYTE_TO_ID_BITS[j][octets[:, j]]
    sizes = np.bincount(counts)
    one = np.uint64(1)
    for k in np.flatnonzero(sizes).tolist():
        if k == 0:
            continue
        rows = slice(None) if sizes[k] == len(flat) else np.flatnonzero(counts == k)
        x = by_id[rows]
        ids = np.empty((len(x), k), dtype=np.uint8)
        for j in range(k):  # lowest set bit first: ids come out in increasing order
            low = x & (~x + one)
            ids[:, j] = np.bitwise_count(low - one)
            x ^= low
        if isinstance(rows, slice):  # every mask holds k cards
            return format_ids(ids, sep)
        out[rows] = format_ids(ids, sep)
    return out.tolist()


# --------------------------------------------------------------------------- fixed-size rows


def rows_of_size(rows, *, what: str, sizes: tuple[int, int], want: str, invalid: str):
    """Rows of card text that must all hold the same number of cards, ``lo..hi`` of them
    (hole cards, boards): ``(ids (N, k) uint8, bad rows or None)``.

    The checks and messages, in row order, are those of the row-by-row readers: a bad or
    repeated card; ``"{what} 'AsKs' (row 3): 2 cards; this game takes {want}"``; and a row
    whose size differs from the first good row's. With ``invalid="mask"`` bad rows are
    marked instead and read as cards ``0..k-1``.

    Examples
    --------
    >>> ids, bad = rows_of_size(["AsKsQsJs", "2c3c4c5c"], what="hole cards", sizes=(4, 4),
    ...                         want="4", invalid="raise")
    >>> ids.tolist(), bad
    ([[51, 47, 43, 39], [0, 4, 8, 12]], None)
    """
    lo, hi = sizes
    n = len(rows)
    p = parse_rows(rows, stop_at_first_bad=invalid == "raise")
    stop = p.stop
    counts = p.counts[:stop]
    parsed = ~p.bad[:stop]
    wrong_size = parsed & ((counts < lo) | (counts > hi))
    good = parsed & ~wrong_size
    k = int(counts[np.argmax(good)]) if good.any() else lo
    other_size = good & (counts != k)
    late = wrong_size | other_size
    if invalid == "raise":
        first = int(np.argmax(late)) if late.any() else stop
        if first < stop:
            text = rows[first]
            if wrong_size[first]:
                raise ValueError(f"{what} {text!r} (row {first}): {counts[first]} cards; "
                                 f"this game takes {want}")
            raise ValueError(f"{what} {text!r} (row {first}) has {counts[first]} cards but "
                             f"earlier rows have {k}; evaluate boards of different sizes in "
                             f"separate calls")
        if stop < n:
            raise p.errors[stop]
    bad = p.bad.copy()
    bad[:stop] |= late
    ids = p.ids[:, :k] if p.ids.shape[1] >= k else np.pad(
        p.ids, ((0, 0), (0, k - p.ids.shape[1])), constant_values=PAD)
    ids = np.ascontiguousarray(ids)
    if bad.any():
        ids[bad] = np.arange(k, dtype=np.uint8)
    return ids.reshape(n, k), (bad if bad.any() else None)


def rows_with_jokers(rows, *, allow_joker: bool, max_jokers: int, invalid: str):
    """Rows of card text for wild-card games: ``(masks, jokers, counts, bad)`` (jokers add no
    mask bit; bad rows read 0), with the row-by-row reader's checks and messages in row order
    (a bad or repeated card; ``"hand 'JkJkJk...' (row 3): 3 jokers; a deck has 2"``).

    Examples
    --------
    >>> m, j, c, bad = rows_with_jokers(["AsJk", "2c3c"], allow_joker=True, max_jokers=2,
    ...                                 invalid="raise")
    >>> j.tolist(), c.tolist(), bad.tolist()
    ([1, 0], [2, 2], [False, False])
    """
    n = len(rows)
    p = parse_rows(rows, allow_joker=allow_joker, stop_at_first_bad=invalid == "raise")
    jokers = (p.ids == _JOKER).sum(axis=1).astype(np.uint8)
    too_many = np.zeros(n, dtype=bool)
    too_many[:p.stop] = ~p.bad[:p.stop] & (jokers[:p.stop] > max_jokers)
    if invalid == "raise":
        if too_many.any():
            i = int(np.argmax(too_many))
            raise ValueError(f"hand {rows[i]!r} (row {i}): {jokers[i]} jokers; a deck has "
                             f"{max_jokers}")
        if p.stop < n:
            raise p.errors[p.stop]
    bad = p.bad | too_many
    masks, counts = p.masks, p.counts
    if too_many.any():
        masks[too_many] = 0
        counts[too_many] = 0
    jokers[bad] = 0
    return masks, jokers, counts, bad
