"""Inputs for the game variants, good and bad in every way, shared by the CUDA variant tests
(emulated and on a real GPU): each case must give the same strengths, or the same error, on
NumPy and on CUDA (host input and device input)."""

from __future__ import annotations

import numpy as np

from gpu_eval.cards import _ID_TO_DEADHORSE, ID_TO_MASK

JOKER = 52
SHORT_DECK = np.arange(16, 52, dtype=np.uint8)  # 6c .. As


def deal(rng, n: int, k: int, deck: np.ndarray | None = None) -> np.ndarray:
    """``(n, k)`` uint8 ids, k distinct cards of ``deck`` (default: all 52) per row."""
    deck = np.arange(52, dtype=np.uint8) if deck is None else np.asarray(deck, np.uint8)
    return deck[np.argsort(rng.random((n, len(deck))), axis=1)[:, :k]]


def masks_of(ids: np.ndarray) -> np.ndarray:
    return np.bitwise_or.reduce(ID_TO_MASK[ids], axis=1)


def shortdeck_cases() -> dict:
    """``name -> (hands, evaluate keywords)`` for ``game="shortdeck"``-like calls."""
    rng = np.random.default_rng(36)
    ids = deal(rng, 300, 7, SHORT_DECK)
    low = ids.copy()
    low[5, 2] = 9                       # 4d: not in the short deck
    dup = ids.copy()
    dup[3, 4] = dup[3, 0]
    oor = ids.astype(np.int16)
    oor[8, 1] = 52
    neg = ids.astype(np.int8)
    neg[6, 6] = -1
    masks = masks_of(ids)
    low_masks = masks.copy()
    low_masks[4] |= ID_TO_MASK[0]      # 2c, as an 8th card
    stray = masks.copy()
    stray[7] |= np.uint64(1 << 29)
    short = masks.copy()
    short[2] = masks_of(ids[2:3, :4])[0]
    dh = _ID_TO_DEADHORSE[ids].astype(np.int32)
    dh_bad = dh.copy()
    dh_bad[4, 3] = 3
    dh_low = _ID_TO_DEADHORSE[low].astype(np.int32)
    one_low = ids[0].copy()
    one_low[4] = 14                     # 5h
    return {
        "ids": (ids, {}), "nine": (deal(rng, 200, 9, SHORT_DECK), {}),
        "five": (deal(rng, 200, 5, SHORT_DECK), {}),
        "low": (low, {}), "dup": (dup, {}), "oor": (oor, {}), "neg": (neg, {}),
        "masks": (masks, {}), "low_masks": (low_masks, {}), "stray": (stray, {}),
        "short": (short, {}), "four": (ids[:, :4], {}),
        "ten": (deal(rng, 40, 10, SHORT_DECK), {}),
        "dh": (dh, {"encoding": "deadhorse"}), "dh_bad": (dh_bad, {"encoding": "deadhorse"}),
        "dh_low": (dh_low, {"encoding": "deadhorse"}),
        "masks_as_ids": (ids.astype(np.uint64), {"encoding": "ids"}),
        "one_hand": (ids[0], {}), "one_mask": (masks[0], {}), "one_low": (one_low, {}),
        "empty": (np.zeros((0, 7), np.uint8), {}), "three_d": (ids.reshape(3, 100, 7), {}),
        "float": (ids.astype(np.float32), {}), "bool": (ids > 30, {}),
    }


def wild_cases() -> dict:
    """``name -> (hands, evaluate keywords)`` with ``wild=`` in the keywords."""
    rng = np.random.default_rng(54)
    base = deal(rng, 300, 7)
    jk = base.copy()
    jk[::3, 0] = JOKER
    jk[1::7, 4] = JOKER                 # some rows hold two jokers
    three = jk.copy()
    three[10, [1, 2, 3]] = JOKER
    far = jk.astype(np.int16)
    far[12, 5] = 53
    neg = jk.astype(np.int8)
    neg[13, 0] = -3
    dup = jk.copy()
    dup[14, 6] = dup[14, 5] if dup[14, 5] != JOKER else dup[14, 1]
    masks = masks_of(base)
    stray = masks.copy()
    stray[9] |= np.uint64(1 << 15)
    short_rows = jk[:, :4]
    one = np.array([48, 49, 50, 51, JOKER], dtype=np.uint8)
    one_bad = np.array([48, 49, 50, JOKER, JOKER, JOKER], dtype=np.uint8)
    dh = _ID_TO_DEADHORSE[base].astype(np.int32)
    out = {}
    for spec in ("joker", ("joker", "2"), "bug"):
        name = spec if isinstance(spec, str) else "+".join(spec)
        spec = spec if isinstance(spec, str) else list(spec)
        out.update({
            f"{name}:ids": (jk, {"wild": spec}), f"{name}:three": (three, {"wild": spec}),
            f"{name}:far": (far, {"wild": spec}), f"{name}:neg": (neg, {"wild": spec}),
            f"{name}:dup": (dup, {"wild": spec}), f"{name}:four": (short_rows, {"wild": spec}),
            f"{name}:masks": (masks, {"wild": spec}), f"{name}:one": (one, {"wild": spec}),
            f"{name}:one_bad": (one_bad, {"wild": spec}),
        })
    out.update({
        "2:ids": (base, {"wild": "2"}), "2:masks": (masks, {"wild": "2"}),
        "2:joker_id": (jk, {"wild": "2"}), "2:stray": (stray, {"wild": "2"}),
        "2:dh": (dh, {"wild": "2", "encoding": "deadhorse"}),
        "2:one_mask": (masks[0], {"wild": "2"}),
        "joker:u64_ids": (base.astype(np.uint64), {"wild": "joker", "encoding": "ids"}),
        "joker:ten": (deal(rng, 30, 10), {"wild": "joker"}),
        "joker:empty": (np.zeros((0, 6), np.uint8), {"wild": "joker"}),
        "joker:float": (jk.astype(np.float64), {"wild": "joker"}),
        "joker:three_d": (jk.reshape(3, 100, 7), {"wild": "joker"}),
    })
    return out


def omaha_cases() -> dict:
    """``name -> (hole, board, evaluate_omaha keywords)``."""
    rng = np.random.default_rng(4)
    out = {}
    for h, game in ((4, "omaha"), (5, "omaha5"), (6, "omaha6")):
        for k in (3, 4, 5):
            cards = deal(rng, 300, h + k)
            out[f"{game}:{k}"] = (cards[:, :h], cards[:, h:], {"game": game})
    cards = deal(rng, 300, 9)
    hole, board = cards[:, :4], cards[:, 4:]
    shared = np.array([51, 47, 43, 39, 2], dtype=np.uint8)   # As Ks Qs Js 2h
    free = np.setdiff1d(np.arange(52), shared).astype(np.uint8)
    holes = deal(rng, 300, 4, free)
    two_suits = np.array([c for c in range(52) if c % 4 in (0, 3)], dtype=np.uint8)
    flushy = deal(rng, 300, 9, two_suits)
    clash = hole.copy()
    clash[7, 2] = board[7, 1]            # a card in the hole and on the board
    same = board.copy()
    same[9] = 24                         # one card five times on the board
    hole_dup = hole.copy()
    hole_dup[11, 3] = hole_dup[11, 0]
    oor = hole.astype(np.int16)
    oor[5, 1] = 60
    neg = board.astype(np.int8)
    neg[6, 4] = -1
    hm, bm = masks_of(hole), masks_of(board)
    odd = bm.copy()
    odd[3] = masks_of(board[3:4, :4])[0]  # a 4-card board among 5-card ones
    stray = hm.copy()
    stray[8] |= np.uint64(1 << 14)
    big = hm.copy()
    big[2] = masks_of(cards[2:3, :6])[0]   # 6 hole cards in "omaha"
    ten = deal(rng, 50, 10)
    out.update({
        "shared": (holes, shared, {}), "shared_text": (holes, "As Ks Qs Js 2h", {}),
        "one_hole": (holes[0], board[:50], {}), "flushy": (flushy[:, :4], flushy[:, 4:], {}),
        "single": (hole[0], board[0], {}), "text": (["AsKsQdJd", "2c3c4c5c"], "Ah Kh Qh", {}),
        "clash": (clash, board, {}), "same": (hole, same, {}), "hole_dup": (hole_dup, board, {}),
        "oor": (oor, board, {}), "neg": (hole, neg, {}),
        "masks": (hm, bm, {}), "mask_shared": (hm, bm[0], {}), "odd": (hm, odd, {}),
        "stray": (stray, bm, {}), "big": (big, bm, {}),
        "five_in_omaha": (cards[:, :5], cards[:, 5:], {}),
        "six_board": (ten[:, :4], ten[:, 4:], {}),
        "rows": (hole[:10], board[:7], {}), "float": (hole.astype(np.float32), board, {}),
        "bool": (hole > 20, board, {}), "three_d": (hole.reshape(3, 100, 4), board, {}),
        "empty": (np.zeros((0, 4), np.uint8), np.zeros((0, 5), np.uint8), {}),
    })
    return out
