"""Equity problem set-up: players, board and dead cards read and checked, ranges with the
known cards removed, the options (exact or sampled), the matchups of ranged players and the
engine (NumPy or CUDA). Shared by every equity entry point (:mod:`gpu_eval.equity_engine.api`,
the other games' engine, :mod:`gpu_eval.distributed`).
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from gpu_eval import backend_choice, cards
from gpu_eval.equity_engine import enumerate_boards
from gpu_eval.equity_engine.holdem import numpy_engine
from gpu_eval.games import registry
from gpu_eval.games.registry import HOLDEM
from gpu_eval.ranges import Range

__all__ = ["prepare", "Problem", "card_set", "check_options", "check_equity_game", "engine_for",
           "engine_setting", "entropy_of", "enumerate_matchups", "no_matchup_error", "cards_text",
           "range_label", "EXACT_WORK_LIMIT", "DEFAULT_SAMPLES", "DEFAULT_TABLE_SAMPLES",
           "MAX_MATCHUPS", "MAX_PLAYERS", "GAMES", "PlayerLike", "CardsLike"]

#: Exact enumeration is chosen by ``exact=None`` up to this much work (evaluations plus
#: comparisons, over the suit symmetry); a few seconds with NumPy on two cores.
EXACT_WORK_LIMIT = 3e8
#: Monte Carlo showdowns drawn by :func:`equity` when ``samples`` is not given.
DEFAULT_SAMPLES = 1_000_000
#: Boards sampled by :func:`equity_matrix` and :func:`preflop_table` when ``samples`` is not
#: given (every combo pair is played on each board that avoids its cards).
DEFAULT_TABLE_SAMPLES = 20_000
#: Exact enumeration refuses more matchups than this (memory).
MAX_MATCHUPS = 5_000_000
MAX_PLAYERS = 10
#: Games the equity engine plays so far (the registry knows the others).
GAMES = (HOLDEM,)

PlayerLike = str | Range | np.ndarray | Sequence[int]
CardsLike = str | np.ndarray | Sequence[int] | Sequence[str] | None


# ---------------------------------------------------------------------------------------------
# Inputs.
# ---------------------------------------------------------------------------------------------

def card_text(c: int) -> str:
    return cards.RANKS[c // 4] + cards.SUITS[c % 4]


def cards_text(ids: Sequence[int]) -> str:
    return " ".join(card_text(c) for c in ids) if len(ids) else "-"


def mask_of(ids: Sequence[int]) -> int:
    m = 0
    for c in ids:
        m |= int(cards.ID_TO_MASK[c])
    return m


def ids_of(mask: int) -> list[int]:
    return [c for c in range(52) if mask & int(cards.ID_TO_MASK[c])]


def card_set(x: CardsLike, what: str) -> list[int]:
    """Card ids of a board or dead-card argument (text, ids or uint64 masks); no repeats."""
    if x is None:
        return []
    if isinstance(x, str):
        if not x.strip():
            return []
        try:
            ids = [int(c) for c in cards.parse(x).reshape(-1)]
        except ValueError as exc:
            raise ValueError(f"{what}: {exc}") from None
    elif isinstance(x, (list, tuple)) and x and all(isinstance(t, str) for t in x):
        ids = [c for t in x for c in card_set(t, what)]
    else:
        if isinstance(x, bool):
            raise TypeError(f"{what} must be card text, card ids or uint64 masks, got {x!r}")
        arr = np.asarray(x)
        if arr.size == 0:
            return []
        if arr.dtype == np.uint64:  # uint64 is always the hand-mask encoding
            flat = arr.reshape(-1)
            try:
                cards.check_mask_bits(flat)
            except ValueError as exc:
                raise ValueError(f"{what}: {exc}") from None
            ids = [c for m in flat for c in ids_of(int(m))]
        elif arr.dtype.kind in "iu":
            ids = [int(v) for v in arr.reshape(-1)]
            bad = [v for v in ids if not 0 <= v <= 51]
            if bad:
                raise ValueError(f"{what}: card id {bad[0]} is out of range 0..51")
        else:
            raise TypeError(f"{what} must be card text, card ids or uint64 masks, got "
                            f"{type(x).__name__} of dtype {arr.dtype}")
    seen: set[int] = set()
    for c in ids:
        if c in seen:
            raise ValueError(f"card {card_text(c)} appears twice in {what}")
        seen.add(c)
    return ids


@dataclass
class Player:
    label: str
    range: Range

    @property
    def fixed(self) -> bool:
        return len(self.range) == 1


def range_label(r: Range) -> str:
    if r.spec is not None:
        return r.spec
    hands = r.hands()
    return ",".join(hands) if len(hands) <= 3 else f"<{len(hands)} combos>"


def as_range(spec: PlayerLike, who: str) -> tuple[Range, str]:
    """A hand or range argument as ``(Range, label)``; errors name ``who``."""
    if isinstance(spec, Range):
        return spec, range_label(spec)
    if isinstance(spec, str):
        text = spec.strip()
        if not text:
            raise ValueError(f"{who}: empty hand or range text")
        try:
            return Range(text), text
        except ValueError as exc:
            raise ValueError(f"{who} ({text!r}): {exc}") from None
    if isinstance(spec, (list, tuple)) and spec and all(isinstance(t, str) for t in spec):
        try:
            r = Range(list(spec))
        except ValueError as exc:
            raise ValueError(f"{who} ({spec!r}): {exc}") from None
        return r, ", ".join(spec)
    if isinstance(spec, (np.ndarray, list, tuple, np.integer)):
        arr = np.asarray(spec)
        if arr.dtype == np.uint64 and arr.ndim == 0:
            ids = card_set(arr, who)
            if len(ids) != 2:
                raise ValueError(f"{who}: hand mask holds {len(ids)} cards; a hold'em hand "
                                 f"has 2")
            arr = np.array(ids)
        if arr.dtype.kind in "iu" and arr.ndim in (1, 2) and arr.shape[-1] == 2:
            try:
                r = Range.from_combos(arr.reshape(-1, 2))
            except ValueError as exc:
                raise ValueError(f"{who}: {exc}") from None
            return r, range_label(r)
        if arr.dtype.kind in "iu":
            raise ValueError(f"{who}: card ids must have shape (2,) for a hand or (M, 2) for "
                             f"a list of combos, got {arr.shape}")
    raise TypeError(f"{who} must be a hand or range as text ('AhKh', 'QQ+,AKs'), a Range, "
                    f"or card ids of shape (2,); got {type(spec).__name__}")


@dataclass
class Problem:
    """Validated input: players after card removal, the known cards and the remaining deck."""

    players: list[Player]
    board: list[int]
    dead: list[int]
    board_mask: int
    dead_mask: int
    deck_mask: int  # cards left for board completions (known hands removed)
    k: int  # cards to complete the board

    @property
    def ranged(self) -> list[int]:
        return [i for i, p in enumerate(self.players) if not p.fixed]


def check_equity_game(game: str) -> None:
    registry.get(game, where="equity()")  # an unknown name raises, listing the known ones
    if game not in GAMES:
        raise NotImplementedError(f"equity for game {game!r} is not implemented yet; only "
                                  f"{', '.join(map(repr, GAMES))} is supported")


def sizes_text(sizes: Sequence[int]) -> str:
    """``(0, 3, 4, 5)`` as ``"0, 3, 4 or 5"`` (for messages)."""
    words = [str(s) for s in sizes]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


#: Hold'em's record: its board sizes and hole cards are read from it.
_HOLDEM = registry.get(HOLDEM)


def board_and_dead(board: CardsLike, dead: CardsLike) -> tuple[list[int], list[int]]:
    b = card_set(board, "the board")
    if len(b) not in _HOLDEM.board_sizes:
        raise ValueError(f"the board has {len(b)} card{'s' * (len(b) != 1)} "
                         f"({cards_text(b)}); a hold'em board has "
                         f"{sizes_text(_HOLDEM.board_sizes)} cards")
    d = card_set(dead, "the dead cards")
    both = sorted(set(b) & set(d))
    if both:
        raise ValueError(f"card {card_text(both[0])} is both on the board and in the dead "
                         f"cards")
    return b, d


def prepare(players: Sequence[PlayerLike], board: CardsLike, dead: CardsLike) -> Problem:
    if isinstance(players, (str, Range, np.ndarray)) or not isinstance(players, Sequence):
        raise TypeError("players must be a list of hands or ranges, such as "
                        "['AhKh', 'QQ+,AKs']")
    n = len(players)
    if not 2 <= n <= MAX_PLAYERS:
        raise ValueError(f"equity needs 2 to {MAX_PLAYERS} players, got {n}")
    b, d = board_and_dead(board, dead)
    h, full = _HOLDEM.hole_cards, _HOLDEM.full_board
    need = h * n + full + len(d)
    if need > _HOLDEM.deck_size:
        raise ValueError(f"too many players for the deck: {n} players need {h * n} hole cards, "
                         f"plus {full} board cards and {len(d)} dead cards: {need} > "
                         f"{_HOLDEM.deck_size}")
    plist = []
    for i, spec in enumerate(players):
        r, label = as_range(spec, f"player {i + 1}")
        if len(r) == 0:
            raise ValueError(f"player {i + 1}: range {label!r} holds no hands")
        plist.append(Player(label, r))

    # Who holds each known card, to name both places when a card is used twice.
    owner = {c: "the board" for c in b}
    owner.update({c: "the dead cards" for c in d})
    for i, p in enumerate(plist):
        if p.fixed:
            for c in p.range.combos[0].tolist():
                if c in owner:
                    raise ValueError(f"card {card_text(c)} is used twice: by player {i + 1} "
                                     f"({p.label}) and {owner[c]}")
                owner[c] = f"player {i + 1} ({p.label})"
    known = mask_of(list(owner))
    # Remove the known cards from the ranges. A range left with one combo is a known hand
    # too, whose cards then leave the other ranges: repeat until nothing changes.
    changed = True
    while changed:
        changed = False
        for i, p in enumerate(plist):
            if p.fixed:
                continue
            r = p.range.without(np.uint64(known), allow_empty=True)
            if len(r) == 0:
                raise ValueError(f"player {i + 1}'s range {p.label!r} is empty after removing "
                                 f"the board, dead cards and other players' known hands "
                                 f"({cards_text(ids_of(known))})")
            p.range = r
            if p.fixed:
                known |= int(r.masks[0])
                changed = True
    bm, dm = mask_of(b), mask_of(d)
    fixed_mask = 0
    for p in plist:
        if p.fixed:
            fixed_mask |= int(p.range.masks[0])
    deck = enumerate_boards.FULL_DECK & ~(bm | dm | fixed_mask)
    return Problem(plist, b, d, bm, dm, deck, _HOLDEM.cards_to_come(len(b)))


def engine_for(backend: str):
    """``(kernel module, backend name)``: NumPy, or the CUDA engine when there is one."""
    where = backend_choice.resolve(backend)
    if where == "cuda":
        try:  # deferred: imports CuPy
            cuda_engine = importlib.import_module("gpu_eval.equity_engine.holdem.cuda_engine")
        except ModuleNotFoundError as exc:
            if exc.name != "gpu_eval.equity_engine.holdem.cuda_engine":
                raise
            if backend == "auto":  # a GPU is present but the install lacks the CUDA engine
                return numpy_engine, "numpy"
            raise NotImplementedError(
                "backend='cuda': the CUDA equity engine (gpu_eval.equity_engine.holdem.cuda_engine) is not "
                "available yet; use backend='numpy' (or 'auto')") from None
        return cuda_engine, "cuda"
    return numpy_engine, "numpy"


def engine_setting(eng, name: str):
    """A tuning constant: the engine's own (the CUDA engine is far faster) or this module's."""
    return getattr(eng, name, globals()[name])


def check_options(exact: bool | None, samples: int | None, seed: int | None
                   ) -> int | None:
    if exact not in (None, True, False):
        raise TypeError(f"exact must be True, False or None, got {exact!r}")
    if samples is not None:
        if isinstance(samples, bool) or not isinstance(samples, (int, float, np.integer)) \
                or samples != int(samples) or samples < 1:
            raise ValueError(f"samples must be a positive whole number, got {samples!r}")
        if exact is True:
            raise ValueError("samples= applies to Monte Carlo; exact=True enumerates every "
                             "board (drop samples or pass exact=False)")
        samples = int(samples)
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer))
                             or seed < 0):
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    return samples


def entropy_of(seed: int | None) -> int:
    return int(seed) if seed is not None else int(np.random.SeedSequence().entropy)


def warn_long(work: float, what: str, eng) -> None:
    minutes = work / getattr(eng, "RATE", numpy_engine.RATE) / 60
    if minutes > 1:
        warnings.warn(f"exact {what} needs about {work:.3g} evaluations and comparisons, "
                      f"roughly {minutes:.0f} minutes on this backend; pass exact=False for "
                      f"Monte Carlo", RuntimeWarning, stacklevel=3)


def expected_seconds(work: float, eng) -> float:
    """Expected run time, to decide whether to show a progress bar."""
    return work / getattr(eng, "RATE", numpy_engine.RATE)


def enumerate_matchups(masks: Sequence[np.ndarray], weights: Sequence[np.ndarray], cap: int
                        ) -> tuple[np.ndarray, np.ndarray] | None:
    """Every compatible matchup (one combo per player, no shared card) and its weight.

    Returns ``(index (M, n), weight (M,))`` or None when there would be more than ``cap``.
    """
    if len(masks) == 2 and len(masks[0]) <= cap and len(masks[0]) * len(masks[1]) <= 2 * cap:
        # Heads-up: one step.
        rows, cols = np.nonzero((masks[0][:, None] & masks[1][None, :]) == 0)
        if len(rows) > cap:
            return None
        # The same values as the loop below gives: its first step multiplies by 1.0.
        return (np.column_stack([rows.astype(np.int32), cols.astype(np.int32)]),
                weights[0][rows] * weights[1][cols])
    idx = np.zeros((1, 0), dtype=np.int32)
    acc = np.zeros(1, dtype=np.uint64)
    w = np.ones(1)
    for m, wt in zip(masks, weights):
        if len(idx) * len(m) > 2 * cap:  # bounds the temporary below
            return None
        rows, cols = np.nonzero((acc[:, None] & m[None, :]) == 0)
        if len(rows) > cap:
            return None
        idx = np.column_stack([idx[rows], cols.astype(np.int32)])
        acc = acc[rows] | m[cols]
        w = w[rows] * wt[cols]
    return idx, w


def no_matchup_error(prob: Problem) -> ValueError:
    labels = ", ".join(repr(p.label) for p in prob.players)
    return ValueError(f"no matchup is possible: the players' hands ({labels}) cannot all be "
                      f"dealt at once without sharing a card")


# ---------------------------------------------------------------------------------------------
# equity()
# ---------------------------------------------------------------------------------------------
