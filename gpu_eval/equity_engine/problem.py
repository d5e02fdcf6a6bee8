"""One equity problem for every game: players, board and dead cards read and checked against
the game's record, ranges with the known cards removed, the deck left, the cards to come.

The game record (:mod:`gpu_eval.games.registry`) says everything that differs: the deck (52
cards, or 36 for short deck), how many cards a player holds, the board sizes a spot may have
(none for stud and the draw games, whose players' own cards are all there is), how many
players a deal takes, and which range syntax reads a player's text (hold'em's, or Omaha's).
:func:`prepare` builds one :class:`Problem` from it, the same way for all 19 games, and every
engine works from that problem (deriving its own compact job data where it needs one).

A player is a hand, a weighted range (each hand a row), or, in the Omaha games, ``"random"``:
every hand of the cards left, not listed until an exact run needs it. In stud and the draw
games a player is the cards known (stud: up and down cards; a draw game: the cards kept) and
``need`` counts the cards still to come.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Any, cast

import numpy as np

from gpu_eval import card_input, cards
from gpu_eval.card_spelling import CARD_BIT, id_text
from gpu_eval.equity_engine import board_orbits, enumerate_boards
from gpu_eval.games import registry
from gpu_eval.games.registry import HOLDEM
from gpu_eval.ranges import Range

__all__ = ["prepare", "Problem", "Player", "card_set", "check_options", "entropy_of",
           "enumerate_matchups", "no_matchup_error", "cards_text", "card_text", "range_label",
           "board_and_dead", "as_range", "mask_of", "ids_of", "deck_of", "sizes_text",
           "DEFAULT_SAMPLES", "DEFAULT_TABLE_SAMPLES", "MAX_MATCHUPS", "MAX_PLAYERS",
           "MAX_LISTED", "MAX_DEAL_PLAYERS", "max_players", "PlayerLike", "CardsLike"]

#: Monte Carlo showdowns drawn by :func:`gpu_eval.equity` when ``samples`` is not given.
DEFAULT_SAMPLES = 1_000_000
#: Boards sampled by :func:`gpu_eval.equity_matrix` and :func:`gpu_eval.preflop_table` when
#: ``samples`` is not given (every combo pair is played on each board that avoids its cards).
DEFAULT_TABLE_SAMPLES = 20_000
#: Exact enumeration refuses more matchups than this (memory).
MAX_MATCHUPS = 5_000_000
#: Most players in a spot of a game whose record sets no limit of its own.
MAX_PLAYERS = 10
#: The same for the games without a board (stud, the draw games).
MAX_DEAL_PLAYERS = 8
#: Most hands an Omaha ``"random"`` player is listed into for an exact run (PLO6 has 20
#: million); beyond it only Monte Carlo runs.
MAX_LISTED = 2_000_000

PlayerLike = str | Range | np.ndarray | Sequence[int]
CardsLike = str | np.ndarray | Sequence[int] | Sequence[str] | None


# ---------------------------------------------------------------------------------------------
# Cards.
# ---------------------------------------------------------------------------------------------

_NAMES = tuple(r + s for r in cards.RANKS for s in cards.SUITS)


def card_text(c: int) -> str:
    return _NAMES[c]


def cards_text(ids: Sequence[int]) -> str:
    """Card ids as text separated by spaces (``"-"`` for none).

    Examples
    --------
    >>> cards_text([0, 51]), cards_text([])
    ('2c As', '-')
    """
    return " ".join([_NAMES[c] for c in ids]) if len(ids) else "-"


def mask_of(ids: Iterable[int]) -> int:
    m = 0
    for c in ids:
        m |= CARD_BIT[c]
    return m


def ids_of(mask: int) -> list[int]:
    return [c for c in range(52) if mask & CARD_BIT[c]]


def deck_of(record: registry.Game) -> int:
    """The game's full deck as a hand mask (36 cards from the six up in short deck).

    Examples
    --------
    >>> bin(deck_of(registry.get("holdem"))).count("1"), bin(deck_of(registry.get("shortdeck"))).count("1")
    (52, 36)
    """
    return _deck_from(record.lowest_rank)


@cache
def _deck_from(lowest_rank: int) -> int:
    return mask_of(range(4 * lowest_rank, 52))


#: Card ids of a board, dead-card or player argument (text, ids of any width, uint64 masks;
#: no repeats; errors naming the argument): :func:`gpu_eval.card_input.card_set`.
card_set = card_input.card_set


def sizes_text(sizes: Sequence[int]) -> str:
    """``(0, 3, 4, 5)`` as ``"0, 3, 4 or 5"`` (for messages)."""
    words = [str(s) for s in sizes]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def _game_words(record: registry.Game) -> str:
    return "hold'em" if record.name == HOLDEM else repr(record.name)


def _in_deck(ids: Sequence[int], what: str, record: registry.Game) -> None:
    low = [c for c in ids if c < 4 * record.lowest_rank]
    if low:
        raise ValueError(f"{what}: card {card_text(low[0])} is not in the "
                         f"{record.deck_size}-card short deck (ranks 6 to A)")


def board_and_dead(board: CardsLike, dead: CardsLike, game: str = HOLDEM
                   ) -> tuple[list[int], list[int]]:
    """The board and dead cards of a spot of ``game``, checked: sizes, the game's deck, no
    card twice.

    Examples
    --------
    >>> board_and_dead("Kd 7c 2h", "2c")
    ([45, 20, 2], [0])
    """
    record = registry.get(game)
    b = card_set(board, "the board")
    if not record.full_board:
        if b:
            raise ValueError(f"{game!r} has no board (every card is a player's), but a board "
                             f"was given: {''.join(id_text(c) for c in sorted(b))}; known cards "
                             f"go with their player, folded cards in dead=")
    elif len(b) not in record.board_sizes:
        raise ValueError(f"the board has {len(b)} card{'s' * (len(b) != 1)} "
                         f"({cards_text(b)}); a {_game_words(record)} board has "
                         f"{sizes_text(record.board_sizes)} cards")
    d = card_set(dead, "the dead cards")
    _in_deck(b, "the board", record)
    _in_deck(d, "the dead cards", record)
    both = sorted(set(b) & set(d))
    if both:
        raise ValueError(f"card {card_text(both[0])} is both on the board and in the dead "
                         f"cards")
    return b, d


# ---------------------------------------------------------------------------------------------
# Players.
# ---------------------------------------------------------------------------------------------

#: The hands of an Omaha ``"random"`` player until :meth:`Player.listed` lists them (too many
#: to hold before the board and dead cards are known): None at run time, so a reader that
#: forgets to list the player fails at once; typed as the arrays every reader gets after.
_UNLISTED: Any = None


@dataclass
class Player:
    """One player: a label and the hands it may hold, each a row of ``ids``, with its mask and
    weight. ``any_cards > 0``: an Omaha ``"random"`` player (every hand of that many cards the
    deck leaves, equal weights; ``ids``/``masks``/``weights`` None until :meth:`listed`).
    ``need``: cards still to come (stud and the draw games; 0 elsewhere)."""

    label: str
    ids: np.ndarray
    masks: np.ndarray
    weights: np.ndarray
    any_cards: int = 0
    need: int = 0

    @property
    def fixed(self) -> bool:
        """A known hand: one row and not ``"random"``."""
        return not self.any_cards and len(self.masks) == 1

    def without(self, mask: int) -> Player:
        """The hands sharing no card with ``mask`` (a ``"random"`` player: unchanged)."""
        if self.any_cards:
            return self
        keep = (self.masks & np.uint64(mask)) == 0
        if keep.all():
            return self
        return replace(self, ids=self.ids[keep], masks=self.masks[keep],
                       weights=self.weights[keep])

    def size(self, deck_mask: int) -> int:
        """Hands it holds (of the deck left, for ``"random"``)."""
        if self.any_cards:
            return math.comb(bin(deck_mask).count("1"), self.any_cards)
        return len(self.masks)

    def listed(self, deck_mask: int) -> Player:
        """The player with its hands listed: a ``"random"`` player's every hand of the deck
        left, in colex order of the deck's cards."""
        if not self.any_cards:
            return self
        ids, masks = board_orbits.completions(deck_mask, self.any_cards)
        return Player(self.label, ids, masks, np.ones(len(ids)))


def _is_foreign_array(x) -> bool:
    """Another library's array (DLPack, the CUDA array interface): read as card ids."""
    return hasattr(x, "__dlpack__") or hasattr(x, "__cuda_array_interface__")


def range_label(r: Range) -> str:
    if r.spec is not None:
        return r.spec
    hands = r.hands()
    return ",".join(hands) if len(hands) <= 3 else f"<{len(hands)} combos>"


def as_range(spec: PlayerLike, who: str) -> tuple[Range, str]:
    """A hold'em hand or range argument as ``(Range, label)``; errors name ``who``.

    Examples
    --------
    >>> r, label = as_range("QQ+", "player 2")
    >>> len(r), label
    (18, 'QQ+')
    """
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
    if isinstance(spec, (np.ndarray, list, tuple, np.integer, int)) or _is_foreign_array(spec):
        arr = card_input.integer_array(spec, who)  # bools, floats: a TypeError naming them
        if arr.dtype == np.uint64 and arr.ndim == 0:
            ids = card_set(arr, who)
            if len(ids) != 2:
                raise ValueError(f"{who}: hand mask holds {len(ids)} cards; a hold'em hand "
                                 f"has 2")
            arr = np.array(ids)
        if arr.ndim in (1, 2) and arr.shape[-1] == 2:
            card_input.check_range(arr.reshape(-1, 2), who, 0, 51, axes=("combo",))
            try:
                r = Range.from_combos(arr.reshape(-1, 2).astype(np.uint8))
            except ValueError as exc:
                raise ValueError(f"{who}: {exc}") from None
            return r, range_label(r)
        raise ValueError(f"{who}: card ids must have shape (2,) for a hand or (M, 2) for "
                         f"a list of combos, got {arr.shape}")
    raise TypeError(f"{who} must be a hand or range as text ('AhKh', 'QQ+,AKs'), a Range, "
                    f"or card ids of shape (2,); got {type(spec).__name__}")


def _rows(ids: np.ndarray | Sequence[Sequence[int]], weights: np.ndarray | None = None
          ) -> tuple:
    ids = np.asarray(ids, dtype=np.uint8)
    masks = np.bitwise_or.reduce(cards.ID_TO_MASK[ids], axis=1)
    return ids, masks, np.ones(len(ids)) if weights is None else np.asarray(weights, float)


def _from_range(r, label: str, who: str, record: registry.Game) -> Player:
    ids = np.asarray(r.combos, dtype=np.uint8)
    h = record.hole_cards
    if ids.ndim != 2 or ids.shape[1] != h:
        raise ValueError(f"{who} ({label!r}): a range of {ids.shape[-1]}-card hands; "
                         f"{record.name!r} deals {h}")
    p = Player(label, ids, np.asarray(r.masks, dtype=np.uint64),
               np.asarray(r.weights, dtype=np.float64))
    return p.without(mask_of(range(4 * record.lowest_rank)))


def _known_hand(ids: list[int], who: str, label: str, record: registry.Game) -> Player:
    h = record.hole_cards
    if len(ids) != h:
        raise ValueError(f"{who} ({label!r}): {len(ids)} hole card{'s' * (len(ids) != 1)}; "
                         f"{record.name!r} deals {h}")
    if len(set(ids)) != len(ids):
        dup = next(c for c in ids if ids.count(c) > 1)
        raise ValueError(f"{who} ({label!r}): card {card_text(dup)} is used twice")
    _in_deck(ids, f"{who} ({label!r})", record)
    return Player(label, *_rows([sorted(ids)]))


def _board_game_player(spec: PlayerLike, who: str, record: registry.Game) -> Player:
    """A player of a board game other than hold'em (Omaha, short deck, Courchevel)."""
    h = record.hole_cards
    range_game = record.name if record.is_omaha else HOLDEM
    if hasattr(spec, "combos") and hasattr(spec, "weights") and hasattr(spec, "masks"):
        return _checked_range(spec, range_label(cast(Range, spec)), who, record)
    if isinstance(spec, str):
        text = spec.strip()
        if not text:
            raise ValueError(f"{who}: empty hand or range text")
        if record.is_omaha and text.lower() in ("random", "any"):
            return Player(text, _UNLISTED, _UNLISTED, _UNLISTED, any_cards=h)
        ids = card_input.plain_text_ids(text)
        if ids is None:
            try:
                ids = [int(c) for c in np.atleast_1d(cards.parse(text)).reshape(-1)]
            except ValueError:
                ids = None
        if ids is not None and (len(ids) >= h or not record.is_omaha):
            return _known_hand(ids, who, text, record)
        try:
            r = Range(text, game=range_game)
        except ValueError as exc:
            raise ValueError(f"{who} ({text!r}): {exc}") from None
        return _checked_range(r, text, who, record)
    if isinstance(spec, (np.ndarray, list, tuple, np.integer, int)) or _is_foreign_array(spec):
        arr = card_input.integer_array(spec, who)  # bools, floats: a TypeError naming them
        if arr.dtype == np.uint64 and arr.ndim == 0:
            return _known_hand(card_set(arr, who), who, cast(str, cards.format(arr)), record)
        if arr.ndim in (1, 2):
            card_input.check_range(arr, who, 0, 51, axes=("hand",))
            arr = arr.astype(np.uint8)
            if arr.ndim == 1:
                return _known_hand([int(c) for c in arr], who,
                                   cards_text([int(c) for c in arr]).replace(" ", ""), record)
            if arr.shape[1] != h:
                raise ValueError(f"{who}: hands of {arr.shape[1]} cards; {record.name!r} "
                                 f"deals {h}")
            rows = np.sort(arr.astype(np.uint8), axis=1)
            _, m, _ = _rows(rows)
            bad = np.flatnonzero(np.bitwise_count(m) != h)
            if bad.size:
                raise ValueError(f"{who}: hand row {int(bad[0])} uses a card twice")
            m, first = np.unique(m, return_index=True)
            label = cards_text(rows[0].tolist()).replace(" ", "") if len(m) == 1 \
                else f"<{len(m)} hands>"
            return _checked_range_rows(rows[first], label, who, record)
    raise TypeError(f"{who} must be a hand or range as text, a Range, or card ids of shape "
                    f"({h},); got {type(spec).__name__}")


def _checked_range(r, label: str, who: str, record: registry.Game) -> Player:
    p = _from_range(r, label, who, record)
    if len(p.masks) == 0:
        raise ValueError(f"{who}: range {label!r} holds no {record.name!r} hands")
    return p


def _checked_range_rows(rows: np.ndarray, label: str, who: str,
                        record: registry.Game) -> Player:
    p = Player(label, *_rows(rows)).without(mask_of(range(4 * record.lowest_rank)))
    if len(p.masks) == 0:
        raise ValueError(f"{who}: range {label!r} holds no {record.name!r} hands")
    return p


def _dealt_player(spec: PlayerLike, who: str, record: registry.Game) -> Player:
    """A player of stud or a draw game: the cards known (stud) or kept (draw)."""
    ids: list[int] | None
    if isinstance(spec, str):
        text = spec.strip()
        if text in ("", "-") and record.draws:
            ids, label = [], text or "-"
        elif not text:
            raise ValueError(f"{who}: no cards; {record.name!r} needs "
                             f"{record.hand_cards[0]} to {record.hand_cards[1]}")
        else:
            ids, label = card_input.plain_text_ids(text), text
            if ids is None:
                try:
                    ids = [int(c) for c in np.atleast_1d(cards.parse(text)).reshape(-1)]
                except ValueError as exc:
                    raise ValueError(f"{who} ({text!r}): {exc}") from None
    else:
        if not isinstance(spec, (np.ndarray, list, tuple, np.integer, int)) \
                and not _is_foreign_array(spec):
            raise TypeError(f"{who} must be card text or card ids of shape (k,); got "
                            f"{type(spec).__name__}")
        arr = card_input.integer_array(spec, who)  # bools, floats: a TypeError naming them
        if arr.ndim > 1:
            raise ValueError(f"{who}: card ids must have shape (k,), got {arr.shape}")
        if arr.dtype == np.uint64 and arr.ndim == 0:
            ids = card_set(arr, who)
        else:
            ids = card_input.card_ids(arr, who, axes=()).reshape(-1).tolist()
        label = cast(str, cards.format(np.asarray(ids, dtype=np.uint8))) if ids else "-"
    lo, hi = record.hand_cards
    if not lo <= len(ids) <= hi:
        what = "keeps" if record.draws else "shows"
        raise ValueError(f"{who} ({label!r}): {len(ids)} card{'s' * (len(ids) != 1)}; a "
                         f"{record.name!r} player {what} {lo} to {hi}")
    if len(set(ids)) != len(ids):
        dup = next(c for c in ids if ids.count(c) > 1)
        raise ValueError(f"{who} ({label!r}): card {id_text(dup)} is used twice")
    arr = np.array([ids], dtype=np.uint8)
    return Player(label, arr, np.array([mask_of(ids)], dtype=np.uint64), np.ones(1),
                  need=record.hole_cards - len(ids))


def _player(spec: PlayerLike, who: str, record: registry.Game) -> Player:
    if record.deal == registry.OWN_CARDS:
        return _dealt_player(spec, who, record)
    if record.engine == HOLDEM:
        r, label = as_range(spec, who)
        if len(r) == 0:
            raise ValueError(f"{who}: range {label!r} holds no hands")
        return Player(label, np.asarray(r.combos), r.masks, r.weights)
    return _board_game_player(spec, who, record)


# ---------------------------------------------------------------------------------------------
# The problem.
# ---------------------------------------------------------------------------------------------

@dataclass
class Problem:
    """A validated spot: the players after card removal, the known cards, the deck left and
    the board cards to come (0 without a board)."""

    record: registry.Game
    players: list[Player]
    board: list[int]
    dead: list[int]
    board_mask: int
    dead_mask: int
    deck_mask: int  # cards left to deal (known hands, board and dead cards removed)
    k: int  # board cards to come
    labels: tuple[str, ...] = field(init=False)

    def __post_init__(self) -> None:
        self.labels = tuple(p.label for p in self.players)

    @property
    def game(self) -> str:
        return self.record.name

    @property
    def ranged(self) -> list[int]:
        """The players whose hand is not known."""
        return [i for i, p in enumerate(self.players) if not p.fixed]


def check_dealt(record: registry.Game) -> None:
    """Raise ``ValueError`` for a game that is a hand evaluator only (2-7, A-5, badugi):
    equity needs a deal, and the message names the games that deal its hands.

    Examples
    --------
    >>> check_dealt(registry.get("ace-five"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: 'ace-five' is a hand evaluator (...), not a game with a deal; its equity is ...
    """
    if not record.engine:
        dealt = registry.names(record.evaluator, deal=registry.OWN_CARDS)
        raise ValueError(f"{record.name!r} is a hand evaluator (evaluate(..., "
                         f"game={record.name!r})), not a game with a deal; its equity is that "
                         f"of {' or '.join(map(repr, dealt))}")


def max_players(record: registry.Game) -> int:
    """The most players a spot of the game takes: its record's limit, else
    :data:`MAX_PLAYERS` (:data:`MAX_DEAL_PLAYERS` without a board: the deal kernels take up
    to eight hands)."""
    return record.max_players or (MAX_PLAYERS if record.full_board else MAX_DEAL_PLAYERS)


def prepare(players: Sequence[PlayerLike], board: CardsLike = "", dead: CardsLike = "",
            game: str = HOLDEM) -> Problem:
    """Read and check a spot of any game: the one way in for every equity engine.

    Errors name the player (``"player 2"``), the card and the reason: unknown card text, an
    id out of range, a card used twice (naming both places), a board of a size the game has
    not, a card outside the game's deck, a range left empty by card removal, too many players
    for the deck.

    Examples
    --------
    >>> p = prepare(["AhKh", "QQ+"], "Kd7c2h")
    >>> [len(x.masks) for x in p.players], p.k, bin(p.deck_mask).count("1")
    ([1, 10], 2, 47)
    >>> p = prepare(["AhKh3c", "QsQd7h"], game="stud")
    >>> [x.need for x in p.players], bin(p.deck_mask).count("1")
    ([4, 4], 46)
    """
    record = registry.get(game, where="equity()")
    check_dealt(record)
    if isinstance(players, (str, Range, np.ndarray)) or not isinstance(players, Sequence):
        raise TypeError("players must be a list of hands or ranges, such as "
                        "['AhKh', 'QQ+,AKs']")
    n = len(players)
    most = max_players(record)
    if not 2 <= n <= most:
        where = "" if most == MAX_PLAYERS else f" in {game!r}"
        raise ValueError(f"equity needs 2 to {most} players{where}, got {n}")
    b, d = board_and_dead(board, dead, game)
    if record.full_board:
        h, full = record.hole_cards, record.full_board
        need = h * n + full + len(d)
        if need > record.deck_size:
            of = "" if record.name == HOLDEM else f" of {game!r}"
            raise ValueError(f"too many players for the deck: {n} players{of} need {h * n} "
                             f"hole cards, plus {full} board cards and {len(d)} dead cards: "
                             f"{need} > {record.deck_size}")
    plist = [_player(spec, f"player {i + 1}", record) for i, spec in enumerate(players)]

    # Who holds each known card, to name both places when a card is used twice.
    owner = {c: "the board" for c in b}
    owner.update({c: "the dead cards" for c in d})
    for i, p in enumerate(plist):
        if p.fixed:
            for c in p.ids[0].tolist():
                if c in owner:
                    raise ValueError(f"card {card_text(c)} is used twice: by player {i + 1} "
                                     f"({p.label}) and {owner[c]}")
                owner[c] = f"player {i + 1} ({p.label})"
    known = mask_of(owner)
    # Remove the known cards from the ranges. A range left with one hand is a known hand
    # too, whose cards then leave the other ranges: repeat until nothing changes.
    changed = True
    while changed:
        changed = False
        for i, p in enumerate(plist):
            if p.fixed or p.any_cards:
                continue
            left = p.without(known)
            if len(left.masks) == 0:
                raise ValueError(f"player {i + 1}'s range {p.label!r} is empty after removing "
                                 f"the board, dead cards and other players' known hands "
                                 f"({cards_text(ids_of(known))})")
            plist[i] = left
            if left.fixed:
                known |= int(left.masks[0])
                changed = True
    fixed = 0
    for p in plist:
        if p.fixed:
            fixed |= int(p.masks[0])
    bm, dm = mask_of(b), mask_of(d)
    deck = deck_of(record) & ~(bm | dm | fixed)
    if not record.full_board:
        to_come = sum(p.need for p in plist)
        if to_come > bin(deck).count("1"):
            raise ValueError(f"too many players for the deck: {n} players of {game!r} need "
                             f"{to_come} more cards, and {bin(deck).count('1')} are left")
    return Problem(record, plist, b, d, bm, dm, deck, record.cards_to_come(len(b)))


# ---------------------------------------------------------------------------------------------
# Options and matchups.
# ---------------------------------------------------------------------------------------------

def check_options(exact: bool | None, samples: int | None, seed: int | None
                  ) -> int | None:
    """``samples`` as an int (or None), after checking ``exact``, ``samples`` and ``seed``.

    Examples
    --------
    >>> check_options(None, 1e6, 7)
    1000000
    """
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
    """The seed, or fresh entropy when None (what a Monte Carlo result reports as its seed)."""
    return int(seed) if seed is not None else cast(int, np.random.SeedSequence().entropy)


def enumerate_matchups(masks: Sequence[np.ndarray], weights: Sequence[np.ndarray], cap: int
                       ) -> tuple[np.ndarray, np.ndarray] | None:
    """Every compatible matchup (one hand per player, no shared card) and its weight.

    Returns ``(index (M, n), weight (M,))`` or None when there would be more than ``cap``.

    Examples
    --------
    >>> idx, w = enumerate_matchups([np.array([1, 2], np.uint64), np.array([2, 4], np.uint64)],
    ...                             [np.ones(2), np.array([0.5, 1.0])], 100)
    >>> idx.tolist(), w.tolist()
    ([[0, 0], [0, 1], [1, 1]], [0.5, 1.0, 1.0])
    """
    if len(masks) == 2 and len(masks[0]) <= cap and len(masks[0]) * len(masks[1]) <= 2 * cap:
        # Heads-up: one step.
        rows, cols = np.nonzero((masks[0][:, None] & masks[1][None, :]) == 0)
        if len(rows) > cap:
            return None
        pair = np.empty((len(rows), 2), dtype=np.int32)
        pair[:, 0], pair[:, 1] = rows, cols
        # The same values as the loop below gives: its first step multiplies by 1.0.
        return pair, weights[0][rows] * weights[1][cols]
    idx = np.zeros((1, 0), dtype=np.int32)
    acc = np.zeros(1, dtype=np.uint64)
    w = np.ones(1)
    last = len(masks) - 1
    for j, (m, wt) in enumerate(zip(masks, weights)):
        if len(idx) * len(m) > 2 * cap:  # bounds the temporary below
            return None
        rows, cols = np.nonzero((acc[:, None] & m[None, :]) == 0)
        if len(rows) > cap:
            return None
        grown = np.empty((len(rows), j + 1), dtype=np.int32)
        grown[:, :j] = idx[rows]
        grown[:, j] = cols
        idx = grown
        if j < last:  # the cards held so far: not needed after the last player
            acc = acc[rows] | m[cols]
        w = w[rows] * wt[cols]
    return idx, w


def no_matchup_error(prob: Problem) -> ValueError:
    labels = ", ".join(repr(p.label) for p in prob.players)
    return ValueError(f"no matchup is possible: the players' hands ({labels}) cannot all be "
                      f"dealt at once without sharing a card")


def symmetry_group(prob: Problem) -> tuple[tuple[int, ...], ...]:
    """Suit permutations that map the problem onto itself: the one symmetry every engine
    plays its boards under.

    They keep every known hand, the board and the dead cards, and map every range onto
    itself with its weights (a ``random`` player maps onto itself), so summed over matchups
    a board and its image give the same counts, and only one board per orbit needs to be
    played.

    Examples
    --------
    >>> len(symmetry_group(prepare(["AA", "KK"], "", "")))
    24
    >>> len(symmetry_group(prepare(["AhKh", "QsQd"], "2c7d9h", "")))
    1
    """
    known = [int(p.masks[0]) for p in prob.players if p.fixed]
    group = enumerate_boards.stabilizer(known + [prob.board_mask, prob.dead_mask])
    for p in prob.players:
        if len(group) == 1:  # the identity alone (a rainbow board): it keeps every range
            break
        if not (p.fixed or p.any_cards):
            group = enumerate_boards.keeping_range(group, p.masks, p.weights)
    return group
