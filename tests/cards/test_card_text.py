"""The vectorised card text parser and formatter (gpu_eval.card_text) against the row-by-row
reference parser of gpu_eval.cards: same ids, same masks, same rows rejected and the same
error messages, on random hands in every accepted spelling and on hand-picked edge cases."""

from __future__ import annotations

import inspect
import random

import numpy as np
import pytest

import gpu_eval as ge
from gpu_eval import card_text, cards
from gpu_eval.evaluator import inputs

RANKS, SUITS = "23456789TJQKA", "cdhs"
SYMBOLS = {"c": "♣♧", "d": "♦♢", "h": "♥♡", "s": "♠♤"}
SEPARATORS = ["", " ", ",", ", ", "  ", "\t", " ,", "\n", "\r\n", "\x1c"]


def reference_row(text, i, allow_joker):
    """What the row-by-row parser says about row ``i``: its ids, or the error it raises."""
    try:
        ids = cards.parse_hand_text(text, allow_joker=allow_joker, where=f" (row {i})")
        cards.check_no_duplicates(ids, f"{text!r} (row {i})")
    except ValueError as exc:
        return exc
    return ids


def outcome(f, *args, **kw):
    """``("ok", value)`` or ``(exception type, message)``."""
    try:
        v = f(*args, **kw)
    except (ValueError, TypeError) as exc:
        return type(exc), str(exc)
    return "ok", v.tolist() if isinstance(v, np.ndarray) else v


def assert_rows_match(rows, allow_joker=False):
    p = card_text.parse_rows(rows, allow_joker=allow_joker)
    assert p.ids.dtype == np.uint8 and p.ids.shape[0] == len(rows)
    for i, text in enumerate(rows):
        want = reference_row(text, i, allow_joker)
        if isinstance(want, ValueError):
            assert p.bad[i], (text, want)
            assert str(p.errors[i]) == str(want)
            assert p.counts[i] == 0 and int(p.masks[i]) == 0
        else:
            assert not p.bad[i], (text, p.errors.get(i))
            assert p.counts[i] == len(want)
            assert p.ids[i, :len(want)].tolist() == want, text
            assert (p.ids[i, len(want):] == card_text.PAD).all()
            assert int(p.masks[i]) == sum(1 << (16 * (c % 4) + c // 4) for c in want
                                          if c != cards.JOKER)
    return p


def spell(card, rng, ten=True):
    r, s = RANKS[card // 4], SUITS[card % 4]
    if r == "T" and ten and rng.random() < 0.3:
        r = "10"
    if rng.random() < 0.3:
        r = r.lower()
    x = rng.random()
    if x < 0.2:
        s = rng.choice(SYMBOLS[s])
    elif x < 0.4:
        s = s.upper()
    return r + s


def random_hand(rng, k, allow_joker=False):
    ids = rng.sample(range(52), k)
    if allow_joker and rng.random() < 0.3:
        ids[rng.randrange(k)] = cards.JOKER
    words = [rng.choice(["Jk", "jk", "XX", "xX"]) if c == cards.JOKER else spell(c, rng)
             for c in ids]
    if rng.random() < 0.5:
        text = rng.choice(SEPARATORS).join(words)
    else:
        text = "".join(w + rng.choice(SEPARATORS) for w in words)
    if rng.random() < 0.1:
        text = rng.choice([" ", ",", "\t"]) + text + rng.choice(["", " ", ","])
    return text


def spoil(text, rng):
    """Sometimes make a hand bad: an unknown card, a repeat, a joker, a lone rank..."""
    x = rng.random()
    if x < 0.04:
        return "Z" + text[1:]
    if x < 0.08:
        return text + " " + text[:2]
    if x < 0.11:
        return text + "Jk"
    if x < 0.13:
        return text + "A"
    if x < 0.15:
        return text + "1h"
    return text


@pytest.mark.parametrize("allow_joker", [False, True])
def test_random_hands_every_spelling(allow_joker):
    rng = random.Random(16 + allow_joker)
    for _ in range(200):
        rows = [spoil(random_hand(rng, rng.randint(5, 9), allow_joker), rng)
                for _ in range(rng.randint(1, 12))]
        assert_rows_match(rows, allow_joker)
        assert outcome(cards.parse, rows, allow_joker=allow_joker) == \
            outcome(cards._parse_rows_slow, rows, allow_joker=allow_joker)


@pytest.mark.parametrize("sep", ["", " ", ",", "\t", "|"])
@pytest.mark.parametrize("k", [5, 7, 9])
def test_uniform_rows_with_bad_rows_anywhere(sep, k):
    """The lookup-table path (same length, two-character cards, one separator or none)."""
    rng = random.Random(k)
    rows = [sep.join(spell(c, rng, ten=False) for c in rng.sample(range(52), k))
            for _ in range(300)]
    p = assert_rows_match(rows)
    if sep != "|":  # "|" is not a separator: every row is an unknown card
        assert not p.bad.any()
        assert (cards.parse(rows) == cards._parse_rows_slow(rows)).all()
    for bad in ("Zs", "1s", "Jk", rows[0][:2], "  "):  # same length, spoiled in place
        spoilt = list(rows)
        spoilt[137] = spoilt[137][:3 * (1 + len(sep) // 2)] + bad + spoilt[137][
            3 * (1 + len(sep) // 2) + 2:]
        assert_rows_match(spoilt)
        assert outcome(cards.parse, spoilt) == outcome(cards._parse_rows_slow, spoilt)


def test_every_two_and_three_character_string():
    """All two-character ASCII strings, and every three-character one over the characters
    that matter, read exactly as the reference reads them (the tables are right)."""
    two = [chr(a) + chr(b) for a in range(1, 128) for b in range(1, 128)]
    assert_rows_match(two)
    assert_rows_match(two, allow_joker=True)
    alphabet = "1023TtJjKkXxAacCdhHsS ,\t♠♣♡é#"
    three = [a + b + c for a in alphabet for b in alphabet for c in alphabet]
    assert_rows_match(three)
    assert_rows_match(three, allow_joker=True)


EDGE = [
    [""], ["", "  "], [" ", "As"], ["As"], ["AsKd", ""], ["10h10s"], ["10h 10s", "ThTs"],
    ["As,,,Kd"], [",As Kd,"], ["As\u00a0Kd"],       # a non-breaking space (Unicode \s)
    ["As\u2003Kd", "AsKd"],                           # an em space
    ["AsKd\x00"], ["As\x00Kd", "AsKd"],               # a NUL is not a separator
    ["\u212ac2c"],                                    # the Kelvin sign is not a "K"
    ["A\u017f"],                                      # nor is a long s an "s"
    ["AsKd", "AsKdQh"], ["AsKdQh", "AsKd", "Zz"], ["AsKd", "Zz", "AsKdQh"],
    ["jk", "JK"], ["JkJk2c3c4c"], ["XxJk", "AsKs"], ["Jkh"], ["KJkc"],
    ["10"], ["1"], ["0s"], ["100s"], ["10♠"], ["10 s"], ["10,h 2c"], ["As 10 h"],
    ["1 0s"], ["10s", "0"], ["10s", "1"], ["1010s"], ["T0s"], ["10s 10h", "Ts Th"],
    ["A s"], ["As K d"], ["As, K,d"], ["A♠K♠", "a♤k♤"], ["As Kd \ud800"],
    ["AsKdQhJcTs9s8s7s6s5s4s3s2s"],                   # longer than nine cards
    ["A" * 40], ["As" * 3],
]


@pytest.mark.parametrize("rows", EDGE, ids=[ascii(r)[:40] for r in EDGE])
def test_edge_cases(rows):
    for allow_joker in (False, True):
        assert_rows_match(rows, allow_joker)
        assert outcome(cards.parse, rows, allow_joker=allow_joker) == \
            outcome(cards._parse_rows_slow, rows, allow_joker=allow_joker)


def test_rows_that_are_not_text():
    for rows in (["AsKd", 5], [None, "AsKd"], ["Zz", b"AsKd"], ["AsKd", "AsKdQh", 1.5]):
        assert outcome(cards.parse, rows) == outcome(cards._parse_rows_slow, rows)
        for invalid in ("raise", "mask"):
            assert outcome(inputs._from_text_rows, rows, invalid, False) == \
                outcome(inputs._from_text_rows, rows, invalid, False, fast=False)


def test_to_mask_of_many_rows():
    rng = random.Random(11)
    rows = [random_hand(rng, rng.randint(0, 9)) for _ in range(300)]
    want = [sum(1 << (16 * (c % 4) + c // 4) for c in cards.parse(t).tolist()) for t in rows]
    assert cards.to_mask(rows).tolist() == want
    assert cards.to_mask(rows).dtype == np.uint64
    with pytest.raises(ValueError, match=r"card As is used twice in hand 'AsAs' \(row 2\)"):
        cards.to_mask(["AsKd", "2c", "AsAs", "Zz"])
    with pytest.raises(TypeError, match="row 1"):
        cards.to_mask(["AsKd", 5])


def test_kelvin_sign_is_a_clean_error():
    with pytest.raises(ValueError, match="unknown card"):
        cards.parse("\u212ac 2c")


def test_blocks_of_the_tokenizer(monkeypatch):
    """Rows split across the tokenizer's blocks come back in order."""
    monkeypatch.setattr(card_text, "_ROWS_PER_BLOCK", 7)
    rng = random.Random(3)
    rows = [spoil(random_hand(rng, rng.randint(5, 9)), rng) for _ in range(100)]
    assert_rows_match(rows)


@pytest.mark.parametrize("invalid", ["raise", "mask"])
def test_evaluate_text_same_as_reference_rows(invalid):
    """evaluate()'s bulk text (through inputs) equals the row-by-row path."""
    rng = random.Random(7)
    rows = [spoil(random_hand(rng, rng.randint(5, 9)), rng) for _ in range(400)]
    fast = outcome(lambda r: inputs._from_text_rows(r, invalid, False), rows)
    slow = outcome(lambda r: inputs._from_text_rows(r, invalid, False, fast=False), rows)
    if fast[0] == "ok":
        h = inputs._from_text_rows(rows, invalid, False)
        r = inputs._from_text_rows(rows, invalid, False, fast=False)
        assert (h.masks == r.masks).all()
        assert (h.bad is None) == (r.bad is None)
        if h.bad is not None:
            assert (h.bad == r.bad).all()
    else:
        assert fast == slow
    good = [t for i, t in enumerate(rows) if not isinstance(reference_row(t, i, False),
                                                            ValueError)]
    assert (ge.evaluate(good, backend="numpy")
            == ge.evaluate(cards.to_mask([cards.format(cards.parse(t)) for t in good]),
                           backend="numpy")).all()


# ------------------------------------------------------------------------------- format


def format_reference(ids, sep):
    names = [RANKS[c // 4] + SUITS[c % 4] if c < 52 else "Jk" for c in range(53)]
    return [sep.join(names[c] for c in row) for row in np.asarray(ids).tolist()]


@pytest.mark.parametrize("sep", ["", " ", ", ", "·", "\x00", "\x00\x01"])
def test_format_ids(sep):
    rng = np.random.default_rng(1)
    for k in (0, 1, 2, 5, 7, 9):
        ids = rng.integers(0, 53, size=(50, k)).astype(np.uint8)
        assert card_text.format_ids(ids, sep) == format_reference(ids, sep)
        assert cards.format(ids.astype(np.int64), sep=sep) == format_reference(ids, sep)
    assert cards.format(np.zeros((0, 7), np.uint8)) == []


def test_format_masks_mixed_sizes_and_stray_bits():
    rng = random.Random(2)
    hands = [rng.sample(range(52), rng.randint(0, 9)) for _ in range(300)]
    masks = np.array([sum(1 << (16 * (c % 4) + c // 4) for c in h) for h in hands],
                     dtype=np.uint64)
    want = format_reference([sorted(h) for h in hands][:0], "")  # (no rows: [])
    assert want == []
    for sep in ("", " "):
        want = [sep.join(RANKS[c // 4] + SUITS[c % 4] for c in sorted(h)) for h in hands]
        assert cards.format(masks, sep=sep) == want
        stray = masks | np.uint64(1 << 13)  # bits outside the 52 cards are not cards
        assert cards.format(stray, sep=sep) == want
    assert cards.format(np.zeros(0, np.uint64)) == []


def test_round_trip_many():
    rng = np.random.default_rng(5)
    ids = np.argsort(rng.random((2000, 52)), axis=1)[:, :7].astype(np.uint8)
    for sep in ("", " ", ","):
        assert (cards.parse(cards.format(ids, sep=sep)) == ids).all()


@pytest.mark.parametrize("invalid", ["raise", "mask"])
def test_rows_of_size_same_as_omaha_rows(invalid):
    """Fixed-size rows (hole cards, boards) as omaha's row-by-row reader reads them."""
    omaha = pytest.importorskip("gpu_eval.games.omaha")
    # omaha._text_rows is the row-by-row reader (fast=False once it is hooked to card_text)
    hooked = "fast" in inspect.signature(omaha._text_rows).parameters

    def reference(*args):
        return omaha._text_rows(*args, fast=False) if hooked else omaha._text_rows(*args)
    rng = random.Random(21)
    for _ in range(300):
        what, sizes, want = rng.choice([("hole cards", (4, 4), "4 ('omaha')"),
                                        ("board", (3, 5), "3 to 5")])
        size = rng.choice([4, 4, 4, 5, 3])
        rows = [spoil(random_hand(rng, size if rng.random() < 0.9 else rng.randint(2, 6)), rng)
                for _ in range(rng.randint(1, 8))]
        args = {"what": what, "sizes": sizes, "want": want, "invalid": invalid}
        fast = outcome(card_text.rows_of_size, rows, **args)
        slow = outcome(lambda r, a=(what, sizes, want, invalid): reference(r, *a)[:2], rows)
        if fast[0] == "ok":
            ids, bad = card_text.rows_of_size(rows, **args)
            want_ids, want_bad, _ = reference(rows, what, sizes, want, invalid)
            assert ids.tolist() == want_ids.tolist()
            assert (bad is None and want_bad is None) or bad.tolist() == want_bad.tolist()
        else:
            assert fast == slow, rows


@pytest.mark.parametrize("invalid", ["raise", "mask"])
def test_rows_with_jokers_same_as_wild_rows(invalid):
    """Wild-card text rows as wild's row-by-row reader reads them (jokers, at most two)."""
    wild = pytest.importorskip("gpu_eval.games.wild")
    hooked = "fast" in inspect.signature(wild._coerce).parameters
    rng = random.Random(31)
    for spec_text in ("joker", "2"):
        spec = wild.parse_wild(spec_text)
        allow = spec.jokers != "none"
        for _ in range(200):
            rows = [spoil(random_hand(rng, rng.randint(5, 9), allow_joker=True), rng)
                    for _ in range(rng.randint(1, 8))]
            if rng.random() < 0.2:
                rows.append("Jk Jk xx As Kd")
            kw = {"fast": False} if hooked else {}
            slow = outcome(lambda r, s=spec, k=kw: wild._coerce(r, s, "auto", invalid, **k)[4],
                           rows)
            fast = outcome(lambda r, a=allow: card_text.rows_with_jokers(
                r, allow_joker=a, max_jokers=wild.MAX_JOKERS, invalid=invalid)[3], rows)
            assert fast == slow, rows
            if fast[0] == "ok":
                got = card_text.rows_with_jokers(rows, allow_joker=allow,
                                                 max_jokers=wild.MAX_JOKERS, invalid=invalid)
                want = wild._coerce(rows, spec, "auto", invalid, **kw)
                for g, w in zip(got[:3], want[:3]):
                    assert g.tolist() == w.tolist()
