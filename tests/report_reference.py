"""A slow, obviously right reading of the range-report definitions (docs/range_report.md), in
plain Python over cards: no code shared with the package.

Cards are ``(rank, suit)`` with rank 0 = deuce .. 12 = ace. Hands are compared by a key
``(place of the category in the game's order, ranks that break ties)``; the best hand of a
set of cards is the best key over its five-card subsets (Omaha: two hole cards and three
board cards).
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache, lru_cache
from itertools import combinations

RANKS = "23456789TJQKA"
SUITS = "cdhs"
ACE = 12

# Category numbers (the evaluator's): 0 high card .. 8 straight flush.
HIGH, PAIR, TWO_PAIR, TRIPS, STRAIGHT, FLUSH, FULL_HOUSE, QUADS, STRAIGHT_FLUSH = range(9)

CLASS_ORDER = {
    # place of each class, best first, for a game whose categories rank in the usual order
    "holdem": ["straight_flush", "quads", "full_house", "flush", "straight", "set", "trips"],
    "shortdeck": ["straight_flush", "quads", "flush", "full_house", "straight", "set", "trips"],
    "shortdeck-triton": ["straight_flush", "quads", "flush", "full_house", "set", "trips",
                         "straight"],
}
REST = ["two_pair", "overpair", "top_pair_top_kicker", "top_pair_good_kicker",
        "top_pair_weak_kicker", "pocket_pair_below_top_pair", "middle_pair", "weak_pair",
        "pocket_pair_board_pair", "pair_board_pair", "ace_high", "board_trips",
        "board_two_pair", "nothing"]


def card(text: str) -> tuple[int, int]:
    return RANKS.index(text[0].upper()), SUITS.index(text[1].lower())


def cards_of(text: str) -> list[tuple[int, int]]:
    return [card(text[i:i + 2]) for i in range(0, len(text), 2)]


def card_id(c) -> int:
    return 4 * c[0] + c[1]


def from_id(i: int) -> tuple[int, int]:
    return i // 4, i % 4


class Game:
    """The rules the reference needs: deck, straights, category order, hole cards."""

    def __init__(self, name: str, hole: int = 2, omaha: bool = False):
        self.name = name
        self.omaha = omaha
        self.hole = hole
        short = name.startswith("shortdeck")
        self.low = 4 if short else 0
        self.ranks = list(range(self.low, 13))
        self.deck = [(r, s) for r in self.ranks for s in range(4)]
        low4 = list(range(self.low, self.low + 4))
        wheel = frozenset([ACE] + low4)
        self.straights = [wheel] + [frozenset(range(a, a + 5)) for a in range(self.low, ACE - 3)]
        if short:
            order = [STRAIGHT_FLUSH, QUADS, FLUSH, FULL_HOUSE, STRAIGHT, TRIPS, TWO_PAIR, PAIR,
                     HIGH]
            if name == "shortdeck-triton":
                order = [STRAIGHT_FLUSH, QUADS, FLUSH, FULL_HOUSE, TRIPS, STRAIGHT, TWO_PAIR,
                         PAIR, HIGH]
        else:
            order = [STRAIGHT_FLUSH, QUADS, FULL_HOUSE, FLUSH, STRAIGHT, TRIPS, TWO_PAIR,
                     PAIR, HIGH]
        self.cat_place = {c: len(order) - i for i, c in enumerate(order)}  # higher is better
        top = CLASS_ORDER.get(name, CLASS_ORDER["holdem"])
        self.classes = top + REST

    def straight_high(self, ranks: set) -> int:
        """The top rank of the best straight in ``ranks`` (-1: none); the wheel is its
        lowest straight."""
        best = -1
        for i, s in enumerate(self.straights):
            if s <= ranks:
                best = i
        return best


@lru_cache(maxsize=1 << 20)
def _five(game: Game, hand: tuple) -> tuple:
    # a five-card key depends only on the ranks and on whether the suits all match, so the
    # (few thousand) rank patterns are classified once each, not once per set of cards
    return _ranks_key(game, tuple(sorted((c[0] for c in hand), reverse=True)),
                      len({c[1] for c in hand}) == 1)


@cache
def _ranks_key(game: Game, ranks: tuple, flush: bool) -> tuple:
    counts = {r: ranks.count(r) for r in set(ranks)}
    by = sorted(counts, key=lambda r: (counts[r], r), reverse=True)
    st = game.straight_high(set(ranks)) if len(counts) == 5 else -1
    if st >= 0 and flush:
        cat, tie = STRAIGHT_FLUSH, (st,)
    elif counts[by[0]] == 4:
        cat, tie = QUADS, tuple(by)
    elif counts[by[0]] == 3 and counts[by[1]] == 2:
        cat, tie = FULL_HOUSE, tuple(by)
    elif flush:
        cat, tie = FLUSH, tuple(ranks)
    elif st >= 0:
        cat, tie = STRAIGHT, (st,)
    elif counts[by[0]] == 3:
        cat, tie = TRIPS, tuple(by)
    elif counts[by[0]] == 2 and counts[by[1]] == 2:
        cat, tie = TWO_PAIR, tuple(by)
    elif counts[by[0]] == 2:
        cat, tie = PAIR, tuple(by)
    else:
        cat, tie = HIGH, tuple(ranks)
    return (game.cat_place[cat], tie, cat)


def five(game: Game, hand) -> tuple:
    """``(place, tie-break, category)`` of five cards."""
    return _five(game, tuple(sorted(hand)))


def fives(cards) -> Iterator[tuple]:
    """Every five-card subset of ``cards``, each a sorted tuple (``_five``'s cache key)."""
    # combinations keep the input's order, so sorting once here spares a sort per subset
    return combinations(sorted(cards), 5)


def best(game: Game, hole, board) -> tuple[tuple, list]:
    """The best key of a hand and the five-card choices ``(hole cards used, five cards)``
    that reach it."""
    if game.omaha:
        choices = [(list(h), list(h) + list(b)) for h in combinations(hole, 2)
                   for b in combinations(board, 3)]
        keys = [five(game, f) for _, f in choices]
    else:
        choices = list(fives(list(hole) + list(board)))
        keys = [_five(game, f) for f in choices]
    top = max(k[:2] for k in keys)
    tops = [(c, k) for c, k in zip(choices, keys) if k[:2] == top]
    if not game.omaha:  # the hole cards used, worked out for the best choices only
        tops = [(([x for x in f if x in hole], list(f)), k) for f, k in tops]
    return (top[0], top[1], tops[0][1][2]), [c for c, _ in tops]


def _class_of_choice(game: Game, used, five_cards, board, category: int, hole) -> str:
    """The class of one best five-card choice: ``used`` the hole cards in it (hold'em: those
    of the combo among the five; the pair ranks count every hole card of the combo)."""
    if category == STRAIGHT_FLUSH:
        return "straight_flush"
    if category == QUADS:
        return "quads"
    if category == FULL_HOUSE:
        return "full_house"
    if category == FLUSH:
        return "flush"
    if category == STRAIGHT:
        return "straight"
    ranks = [c[0] for c in five_cards]
    hole_ranks = [c[0] for c in (hole if not game.omaha else used)]
    board_ranks = sorted({c[0] for c in board}, reverse=True)
    ace = ACE in [c[0] for c in hole]
    if category == TRIPS:
        t = next(r for r in ranks if ranks.count(r) == 3)
        n = hole_ranks.count(t)
        return {2: "set", 1: "trips", 0: "board_trips"}[n]
    if category == TWO_PAIR:
        pairs = sorted({r for r in ranks if ranks.count(r) == 2}, reverse=True)
        n = [hole_ranks.count(p) for p in pairs]
        if n == [1, 1]:
            return "two_pair"
        if 2 in n:
            return "pocket_pair_board_pair"
        if sum(n) == 1:
            return "pair_board_pair"
        return "board_two_pair"
    if category == PAIR:
        p = next(r for r in ranks if ranks.count(r) == 2)
        n = hole_ranks.count(p)
        above = len([r for r in board_ranks if r > p])
        if n == 2:
            return ["overpair", "pocket_pair_below_top_pair"][above] if above < 2 else "weak_pair"
        if n == 1:
            if above == 0:
                kicker = [r for r in hole_ranks if r != p][0]
                better = [r for r in game.ranks if r > kicker and r not in board_ranks]
                if not better:
                    return "top_pair_top_kicker"
                return "top_pair_good_kicker" if len(better) <= 2 else "top_pair_weak_kicker"
            return "middle_pair" if above == 1 else "weak_pair"
    return "ace_high" if ace else "nothing"


def made_class(game: Game, hole, board) -> tuple[str, tuple]:
    """The combo's class name and its best key."""
    key, choices = best(game, hole, board)
    names = [_class_of_choice(game, used, f, board, key[2], hole) for used, f in choices]
    return min(names, key=game.classes.index), key


def straight_ranks(game: Game, hole, board) -> tuple[bool, set, list]:
    """``(has a straight, ranks completing one, [(rank, straight) pairs])``."""
    hr = [c[0] for c in hole]
    br = {c[0] for c in board}
    if game.omaha:
        pairs = [(a, b) for a, b in combinations(hole, 2) if a[0] != b[0]]
        made = any({a[0], b[0]} <= s and (s - {a[0], b[0]}) <= br for a, b in pairs
                   for s in game.straights)
        found = []
        for r in game.ranks:
            for s in game.straights:
                for a, b in pairs:
                    rest = s - {a[0], b[0]}
                    if {a[0], b[0]} <= s and len(rest) == 3 and rest <= br | {r} and not rest <= br:
                        found.append((r, s))
        return made, {r for r, _ in found}, found
    held = set(hr) | br
    made = any(s <= held for s in game.straights)
    found = [(r, s) for r in game.ranks for s in game.straights
             if s <= held | {r} and not s <= held and not s <= br | {r}]
    return made, {r for r, _ in found}, found


def backdoor_straight(game: Game, hole, board) -> bool:
    """Two more cards (their ranks: the two a straight lacks) give a straight that needs a
    hole card (Omaha: two hole cards and three board cards)."""
    br = {c[0] for c in board}
    for s in game.straights:
        if game.omaha:
            for a, b in combinations(hole, 2):
                if a[0] != b[0] and {a[0], b[0]} <= s and len(s - {a[0], b[0]} - br) == 2:
                    return True
        else:
            held = {c[0] for c in hole} | br
            need = s - held
            if len(need) == 2 and not s <= br | need:
                return True
    return False


def draws(game: Game, hole, board) -> set[str]:
    """The draw names of a combo (empty on the river)."""
    if len(board) >= 5:
        return set()
    out = set()
    for s in range(4):
        hs = [c for c in hole if c[1] == s]
        nb = len([c for c in board if c[1] == s])
        top_missing = max(r for r in game.ranks if (r, s) not in board)
        if game.omaha:
            fd, bd = len(hs) >= 2 and nb == 2, len(hs) >= 2 and nb == 1
        else:
            fd, bd = len(hs) >= 1 and len(hs) + nb == 4, len(hs) >= 1 and len(hs) + nb == 3
        if fd:
            out.add("flush_draw")
            if (top_missing, s) in hs:
                out.add("nut_flush_draw")
        if bd and len(board) == 3:
            out.add("backdoor_flush_draw")
    made, ranks, found = straight_ranks(game, hole, board)
    if not made:
        n = len(ranks)
        if n == 1:
            out.add("gutshot")
        elif n == 2:
            r1, r2 = sorted(ranks)
            oe = any(len(s1 & s2) == 4 and (s1 ^ s2) == {r1, r2}
                     for (_, s1) in found for (_, s2) in found)
            out.add("open_ended" if oe else "double_gutshot")
        elif n >= 3:
            out.add("wrap")
        if n == 0 and len(board) == 3 and backdoor_straight(game, hole, board):
            out.add("backdoor_straight_draw")
    top = max(c[0] for c in board)
    over = {c[0] for c in hole if c[0] > top}
    if len(over) >= 2 and (game.omaha or hole[0][0] != hole[1][0]):
        out.add("two_overcards")
    if "flush_draw" in out and out & {"gutshot", "open_ended", "double_gutshot", "wrap"}:
        out.add("combo_draw")
    return out


def holdings(game: Game, board) -> list:
    """Every two-card holding of the deck that misses the board."""
    rest = [c for c in game.deck if c not in board]
    return list(combinations(rest, 2))


def two_card_key(game: Game, pair, board) -> tuple:
    """The best key of two hole cards with the board (Omaha: with three board cards)."""
    if game.omaha:
        return max(five(game, list(pair) + list(b))[:2] for b in combinations(board, 3))
    return max(_five(game, f)[:2] for f in fives(list(pair) + list(board)))


@lru_cache(maxsize=4096)
def _keys(game: Game, board: tuple) -> tuple:
    return tuple(sorted({two_card_key(game, p, board) for p in holdings(game, list(board))}))


def nut_rank(game: Game, key: tuple, board) -> int:
    """Distinct two-card strengths on the board above ``key``."""
    return len([k for k in _keys(game, tuple(sorted(board))) if k > key[:2]])


def board_category4(board) -> int:
    """The category of the board's own pairs and sets (no straight or flush)."""
    ranks = [c[0] for c in board]
    counts = sorted((ranks.count(r) for r in set(ranks)), reverse=True) + [0]
    if counts[0] == 4:
        return QUADS
    if counts[0] == 3 and counts[1] >= 2:
        return FULL_HOUSE
    if counts[0] == 3:
        return TRIPS
    if counts[:2] == [2, 2]:
        return TWO_PAIR
    if counts[0] == 2:
        return PAIR
    return HIGH


def outs(game: Game, hole, board, dead=()) -> tuple[int, int]:
    """``(outs, nut outs)`` of a combo (0, 0 on the river)."""
    if len(board) >= 5:
        return 0, 0
    now, _ = made_class(game, hole, board)
    n_out = n_nut = 0
    for c in game.deck:
        if c in board or c in hole or c in dead:
            continue
        nb = list(board) + [c]
        cls, key = made_class(game, hole, nb)
        if game.classes.index(cls) >= game.classes.index(now):
            continue
        if len(nb) == 4 or game.omaha:
            if key[2] <= board_category4(nb):
                continue
        elif key[:2] <= five(game, nb)[:2]:
            continue
        n_out += 1
        if nut_rank(game, key, nb) == 0:
            n_nut += 1
    return n_out, n_nut
