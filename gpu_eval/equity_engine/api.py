"""Equity: hand vs hand, range vs range and multiway, exact or Monte Carlo.

Three entry points share one engine:

* :func:`equity` -- each player's share of the pot (win, split, total) for 2 to 10 players,
  each a known hand or a weighted range, on a board of 0, 3, 4 or 5 cards.
* :func:`equity_matrix` -- the equity of every combo of range A against every combo of
  range B, and the weighted averages.
* :func:`preflop_table` -- the 169 x 169 heads-up table of preflop hand classes.

How the exact engine works
--------------------------
The known cards (board, dead cards, and the hands of players whose hand is known) are removed
from the deck, and every completion of the board from the remaining cards is enumerated once,
as ``uint64`` masks in colex order (cached per deck, see :mod:`gpu_eval.equity_engine.enumerate_boards`).
Chunk by chunk, on all cores, each distinct hole-card combo of every player is evaluated on each
board once (``hole | board``; boards that share a card with the combo are excluded), and the
strengths are then compared per *matchup* (one combo per player, no shared cards) into integer
counts of wins, splits and split shares. Boards that a suit permutation maps onto each other
give the same totals when that permutation keeps the known hands, the board and the dead cards
and maps every range onto itself (AhKh vs QsQd: swapping spades and diamonds; AA vs KK: all
24 permutations), so only one board per orbit is evaluated, counted with its orbit's size.

Preflop (no board card), the NumPy engine can count boards by *rank class* instead
(:mod:`gpu_eval.equity_engine.rank_classes`): a board matters through its suits only where someone can make
a flush, so the boards where nobody can are grouped by their multiset of five ranks (6,175
classes), and the flush boards by suit, suited ranks and other ranks; each class is played
once, from cached rank-only strengths and the flush table, and counted with its size. That is
table lookups over about 41,000 classes per matchup instead of 1.7 million evaluations per
player, giving the same integers, and :func:`equity` takes it when it is the cheaper of the
two (few matchups; ``numpy_engine.PREFLOP_CLASS_WORK``).

A matchup's weight is the product of its combos' weights; ranges are averaged over compatible
matchups by weight. Each matchup is played on the same number of boards (the completions that
avoid its hole cards), reported as ``boards``.

When is it exact?
-----------------
``exact=None`` enumerates when the work -- evaluations (distinct combos x boards) plus
comparisons (matchups x boards), divided by the number of suit permutations that leave the
problem unchanged -- is at most :data:`EXACT_WORK_LIMIT` (a few seconds on NumPy; QQ+,AKs vs
22+,A2s+,KTs+ preflop, 2,646 matchups, is just under it), and samples otherwise; ``method``
says which. ``exact=True`` always enumerates (with a
warning when that is very long), ``exact=False`` always samples.

Monte Carlo draws a matchup by weight (redrawing when two players' combos share a card), then
a uniform board completion, in vectorised blocks; each block has its own random stream derived
from ``seed``, so a seed reproduces the result on any number of threads. The standard error is
that of the per-sample pot share.

Backends
--------
``backend="numpy"`` runs the engine above. ``"cuda"`` (and ``"auto"`` when CuPy sees a
device) runs the same two kernels (``showdown_counts`` and ``sample_counts``, see
:mod:`gpu_eval.equity_engine.numpy_engine`) from :mod:`gpu_eval.cuda.equity`: identical exact counts;
Monte Carlo with the device's own counter-based generator, so a seed reproduces a CUDA result
but not a NumPy one. Exact preflop heads-up work with many combo pairs (:func:`preflop_table`,
:func:`equity_matrix` without a board) reads the GPU's all-pairs 1326 x 1326 matrix instead.

Progress
--------
``progress=None`` shows a progress bar on stderr only when a run is expected to take more than
a few seconds (:data:`gpu_eval.progress.AUTO_SECONDS`); ``True`` always, ``False`` never.
Ctrl-C stops a run cleanly: queued chunks are dropped, no result is returned, and
``KeyboardInterrupt`` propagates.
"""

from __future__ import annotations

import importlib
import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Union

import numpy as np

from gpu_eval import backend_choice, cards, ranges
from gpu_eval.equity_engine import enumerate_boards, numpy_engine
from gpu_eval.games import registry
from gpu_eval.games.registry import HOLDEM
from gpu_eval.progress import Progress, wanted
from gpu_eval.ranges import Range

__all__ = ["equity", "equity_matrix", "preflop_table", "EquityResult", "MatrixResult",
           "PreflopTable", "EXACT_WORK_LIMIT", "DEFAULT_SAMPLES", "DEFAULT_TABLE_SAMPLES"]

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

PlayerLike = Union[str, Range, np.ndarray, Sequence[int]]
CardsLike = Union[str, np.ndarray, Sequence[int], Sequence[str], None]


# ---------------------------------------------------------------------------------------------
# Inputs.
# ---------------------------------------------------------------------------------------------

def _card_text(c: int) -> str:
    return cards.RANKS[c // 4] + cards.SUITS[c % 4]


def cards_text(ids: Sequence[int]) -> str:
    return " ".join(_card_text(c) for c in ids) if len(ids) else "-"


def _mask_of(ids: Sequence[int]) -> int:
    m = 0
    for c in ids:
        m |= int(cards.ID_TO_MASK[c])
    return m


def _ids_of(mask: int) -> list[int]:
    return [c for c in range(52) if mask & int(cards.ID_TO_MASK[c])]


def _card_set(x: CardsLike, what: str) -> list[int]:
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
        ids = [c for t in x for c in _card_set(t, what)]
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
            ids = [c for m in flat for c in _ids_of(int(m))]
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
            raise ValueError(f"card {_card_text(c)} appears twice in {what}")
        seen.add(c)
    return ids


@dataclass
class _Player:
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


def _as_range(spec: PlayerLike, who: str) -> tuple[Range, str]:
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
            ids = _card_set(arr, who)
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
class _Problem:
    """Validated input: players after card removal, the known cards and the remaining deck."""

    players: list[_Player]
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


def _board_and_dead(board: CardsLike, dead: CardsLike) -> tuple[list[int], list[int]]:
    b = _card_set(board, "the board")
    if len(b) not in (0, 3, 4, 5):
        raise ValueError(f"the board has {len(b)} card{'s' * (len(b) != 1)} "
                         f"({cards_text(b)}); a hold'em board has 0, 3, 4 or 5 cards")
    d = _card_set(dead, "the dead cards")
    both = sorted(set(b) & set(d))
    if both:
        raise ValueError(f"card {_card_text(both[0])} is both on the board and in the dead "
                         f"cards")
    return b, d


def prepare(players: Sequence[PlayerLike], board: CardsLike, dead: CardsLike) -> _Problem:
    if isinstance(players, (str, Range, np.ndarray)) or not isinstance(players, Sequence):
        raise TypeError("players must be a list of hands or ranges, such as "
                        "['AhKh', 'QQ+,AKs']")
    n = len(players)
    if not 2 <= n <= MAX_PLAYERS:
        raise ValueError(f"equity needs 2 to {MAX_PLAYERS} players, got {n}")
    b, d = _board_and_dead(board, dead)
    need = 2 * n + 5 + len(d)
    if need > 52:
        raise ValueError(f"too many players for the deck: {n} players need {2 * n} hole cards, "
                         f"plus 5 board cards and {len(d)} dead cards: {need} > 52")
    plist = []
    for i, spec in enumerate(players):
        r, label = _as_range(spec, f"player {i + 1}")
        if len(r) == 0:
            raise ValueError(f"player {i + 1}: range {label!r} holds no hands")
        plist.append(_Player(label, r))

    # Who holds each known card, to name both places when a card is used twice.
    owner = {c: "the board" for c in b}
    owner.update({c: "the dead cards" for c in d})
    for i, p in enumerate(plist):
        if p.fixed:
            for c in p.range.combos[0].tolist():
                if c in owner:
                    raise ValueError(f"card {_card_text(c)} is used twice: by player {i + 1} "
                                     f"({p.label}) and {owner[c]}")
                owner[c] = f"player {i + 1} ({p.label})"
    known = _mask_of(list(owner))
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
                                 f"({cards_text(_ids_of(known))})")
            p.range = r
            if p.fixed:
                known |= int(r.masks[0])
                changed = True
    bm, dm = _mask_of(b), _mask_of(d)
    fixed_mask = 0
    for p in plist:
        if p.fixed:
            fixed_mask |= int(p.range.masks[0])
    deck = enumerate_boards.FULL_DECK & ~(bm | dm | fixed_mask)
    return _Problem(plist, b, d, bm, dm, deck, 5 - len(b))


def engine_for(backend: str):
    """``(kernel module, backend name)``: NumPy, or the CUDA engine when there is one."""
    where = backend_choice.resolve(backend)
    if where == "cuda":
        try:  # deferred: imports CuPy
            cuda_engine = importlib.import_module("gpu_eval.cuda.equity")
        except ModuleNotFoundError as exc:
            if exc.name != "gpu_eval.cuda.equity":
                raise
            if backend == "auto":  # a GPU is present but the install lacks the CUDA engine
                return numpy_engine, "numpy"
            raise NotImplementedError(
                "backend='cuda': the CUDA equity engine (gpu_eval.cuda.equity) is not "
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


def _warn_long(work: float, what: str, eng) -> None:
    minutes = work / getattr(eng, "RATE", numpy_engine.RATE) / 60
    if minutes > 1:
        warnings.warn(f"exact {what} needs about {work:.3g} evaluations and comparisons, "
                      f"roughly {minutes:.0f} minutes on this backend; pass exact=False for "
                      f"Monte Carlo", RuntimeWarning, stacklevel=3)


def _seconds(work: float, eng) -> float:
    """Expected run time, to decide whether to show a progress bar."""
    return work / getattr(eng, "RATE", numpy_engine.RATE)


def enumerate_matchups(masks: Sequence[np.ndarray], weights: Sequence[np.ndarray], cap: int
                        ) -> tuple[np.ndarray, np.ndarray] | None:
    """Every compatible matchup (one combo per player, no shared card) and its weight.

    Returns ``(index (M, n), weight (M,))`` or None when there would be more than ``cap``.
    """
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


def no_matchup_error(prob: _Problem) -> ValueError:
    labels = ", ".join(repr(p.label) for p in prob.players)
    return ValueError(f"no matchup is possible: the players' hands ({labels}) cannot all be "
                      f"dealt at once without sharing a card")


# ---------------------------------------------------------------------------------------------
# equity()
# ---------------------------------------------------------------------------------------------

def read_only(a: np.ndarray) -> np.ndarray:
    a = np.asarray(a)
    a.flags.writeable = False
    return a


def pct(x: float) -> str:
    return "nan" if not np.isfinite(x) else f"{100 * x:.4f}%"


@dataclass(frozen=True, eq=False)
class EquityResult:
    """What :func:`equity` found, per player (arrays in player order, read-only).

    Attributes
    ----------
    labels : tuple of str
        Each player's hand or range as given.
    equity : numpy.ndarray
        Expected share of the pot, ``win + tie_share``; sums to 1 over the players.
    win : numpy.ndarray
        Probability of winning the pot alone.
    tie : numpy.ndarray
        Probability of splitting the pot (with anyone, any number of ways): the "tie" of
        PokerStove, Equilab, OMPEval and poker-equity.
    tie_share : numpy.ndarray
        Share of the pot won in splits, counted fractionally (a 2-way split gives each 1/2):
        ``equity - win``.
    stderr : numpy.ndarray
        Standard error of ``equity`` (Monte Carlo); zeros when exact.
    exact : bool
        Whether every board was enumerated.
    boards : int or None
        Exact: the board completions each matchup is played on (all completions from the
        deck minus the board, dead cards and the matchup's hole cards).
    samples : int or None
        Monte Carlo: the number of sampled showdowns.
    matchups : int or None
        Exact: the number of compatible matchups (1 when every hand is known).
    wins, ties : numpy.ndarray of int64
        Showdowns won outright and split, per player, summed over matchups without weights
        (exact: matchups x ``boards`` showdowns; Monte Carlo: ``samples``). For known hands
        these are board counts: AhKh vs QsQd preflop gives AhKh 787,966 wins and 6,732 ties.
    backend : str
        ``"numpy"`` or ``"cuda"``.
    method : str
        What was done, e.g. ``"exact: 1,712,304 boards"`` or ``"monte carlo: 1,000,000
        samples"``.
    seed : int or None
        Monte Carlo: the seed used (pass it back to reproduce the run).
    board, dead : str
        The known board and dead cards, as text.
    """

    labels: tuple[str, ...]
    equity: np.ndarray
    win: np.ndarray
    tie: np.ndarray
    tie_share: np.ndarray
    stderr: np.ndarray
    exact: bool
    boards: int | None
    samples: int | None
    matchups: int | None
    wins: np.ndarray
    ties: np.ndarray
    backend: str
    method: str
    seed: int | None = None
    board: str = ""
    dead: str = ""
    #: Hi/lo games only (None otherwise): the pot share won through the high and the low
    #: half (``equity == high + low``) and the probability of scooping the whole pot.
    high: np.ndarray | None = None
    low: np.ndarray | None = None
    scoop: np.ndarray | None = None

    def __str__(self) -> str:
        """A table: one row per player with equity, win and tie (split-pot) probabilities.

        Examples
        --------
        >>> print(equity(["AhKh", "QsQd"]))  # doctest: +NORMALIZE_WHITESPACE
        exact: 1,712,304 boards (numpy)
        player  hand  equity      win        tie
        1       AhKh  46.2145%    46.0179%   0.3932%
        2       QsQd  53.7855%    53.5890%   0.3932%
        """
        head = self.method + f" ({self.backend})"
        if self.board:
            head += f", board {self.board}"
        if self.dead:
            head += f", dead {self.dead}"
        width = max(4, *(len(s) for s in self.labels))
        cols = f"{'player':<7} {'hand':<{width}}  {'equity':<10}  {'win':<9}  {'tie':<9}"
        if self.high is not None:  # hi/lo games
            cols += f"  {'high':<9}  {'low':<9}  {'scoop':<9}"
        if not self.exact:
            cols += "  stderr"
        lines = [head, cols.rstrip()]
        for i, label in enumerate(self.labels):
            row = (f"{i + 1:<7} {label:<{width}}  {pct(self.equity[i]):<10}  "
                   f"{pct(self.win[i]):<9}  {pct(self.tie[i]):<9}")
            if self.high is not None and self.low is not None and self.scoop is not None:
                row += (f"  {pct(self.high[i]):<9}  {pct(self.low[i]):<9}  "
                        f"{pct(self.scoop[i]):<9}")
            if not self.exact:
                row += f"  {pct(self.stderr[i])}"
            lines.append(row.rstrip())
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """Plain Python values, ready for ``json.dumps``.

        Examples
        --------
        >>> d = equity(["AhKh", "QsQd"], board="2c7d9s").to_dict()
        >>> d["labels"], d["wins"], d["boards"]
        (['AhKh', 'QsQd'], [237, 753], 990)
        """
        out: dict[str, Any] = {}
        for name in self.__dataclass_fields__:
            v = getattr(self, name)
            out[name] = v.tolist() if isinstance(v, np.ndarray) else (
                list(v) if isinstance(v, tuple) else v)
        return out

    def to_frame(self):
        """A pandas DataFrame, a row per player (needs the ``frames`` extra).

        Examples
        --------
        >>> equity(["AhKh", "QsQd"]).to_frame().loc[1, "wins"]   # doctest: +SKIP
        787966
        """
        from gpu_eval.frames import equity_frame  # noqa: PLC0415 -- pandas only when asked for
        return equity_frame(self)


def equity(players: Sequence[PlayerLike], board: CardsLike = "", dead: CardsLike = "",
           exact: bool | None = None, samples: int | None = None,
           seed: int | None = None, game: str = HOLDEM, backend: str = "auto",
           progress: bool | None = None) -> EquityResult:
    """Each player's share of the pot, exact or by Monte Carlo.

    Parameters
    ----------
    players : list
        2 to 10 players, each a hand (``"AhKh"``, or card ids of shape ``(2,)``), a range
        as text (anything :class:`~gpu_eval.Range` parses: ``"QQ+,AKs"``, ``"0.5(A5s-A2s)"``,
        ``"random"``), or a :class:`~gpu_eval.Range`. A range with a single combo is a hand.
    board : str, array_like or uint64, optional
        0, 3, 4 or 5 known board cards (text, ids or a hand mask).
    dead : str, array_like or uint64, optional
        Cards known to be out of play.
    exact : bool or None
        ``None`` enumerates when the work is small (see :data:`EXACT_WORK_LIMIT`), else
        samples; ``True`` always enumerates; ``False`` always samples.
    samples : int, optional
        Monte Carlo showdowns (default :data:`DEFAULT_SAMPLES`).
    seed : int, optional
        Seed for Monte Carlo; the same seed gives the same result.
    game : str
        ``"holdem"``, or ``"omaha"``, ``"omaha5"``, ``"omaha6"``, ``"omaha-hilo"``,
        ``"omaha5-hilo"``, ``"shortdeck"``, ``"shortdeck-triton"`` (run by
        :func:`gpu_eval.equity_engine.game_equity.equity`; hi/lo results add ``high``, ``low``, ``scoop``).
    backend : {"auto", "numpy", "cuda"}
        See the module docstring.
    progress : bool or None
        Progress bar on stderr: ``None`` only for long runs.

    Returns
    -------
    EquityResult
        Per player ``equity``, ``win``, ``tie``, ``stderr``; how it was computed.

    Raises
    ------
    ValueError
        Bad card or range text (naming the player), a card used twice (naming both places),
        a range left empty after card removal (naming the player and range), no possible
        matchup, a board of 1, 2 or 6+ cards, fewer than 2 or more than 10 players, or more
        cards than the deck holds.
    TypeError
        An argument of the wrong type.
    RuntimeError
        ``backend="cuda"`` without CuPy or a CUDA device.

    Notes
    -----
    Card removal: the board, the dead cards and the other players' known hands are removed
    from every range; matchups whose combos share a card are skipped. A matchup's weight is
    the product of its combos' weights.

    Examples
    --------
    >>> r = equity(["AhKh", "QsQd"])
    >>> r.method, r.wins.tolist(), r.ties.tolist()
    ('exact: 1,712,304 boards', [787966, 917606], [6732, 6732])
    >>> round(float(r.equity[0]), 4)
    0.4621
    >>> r = equity(["AhKh", "QQ+,AKs"], board="Kd 7c 2h")
    >>> r.method, round(float(r.equity[0]), 4)
    ('exact: 12 matchups x 990 boards', 0.5794)
    >>> r = equity(["AA", "KK", "random"], exact=False, samples=100_000, seed=1)
    >>> r.method, bool(abs(r.equity.sum() - 1) < 1e-12), bool(r.stderr.max() < 0.002)
    ('monte carlo: 100,000 samples', True, True)
    """
    if registry.get(game, where="equity()").family != HOLDEM:  # Omaha, hi/lo, short deck
        from gpu_eval.equity_engine import game_equity  # noqa: PLC0415
        return game_equity.equity(players, board, dead, exact=exact, samples=samples,
                                   seed=seed, game=game, backend=backend, progress=progress)
    check_equity_game(game)
    samples = check_options(exact, samples, seed)
    prob = prepare(players, board, dead)
    eng, backend_name = engine_for(backend)
    ranged = prob.ranged
    r_deck = bin(prob.deck_mask).count("1")
    n_boards = math.comb(r_deck, prob.k)
    per_matchup = math.comb(r_deck - 2 * len(ranged), prob.k)
    masks = [p.range.masks for p in prob.players]
    weights = [p.range.weights for p in prob.players]
    upper = math.prod(len(m) for m in masks)

    matchups = None
    limit = engine_setting(eng, "EXACT_WORK_LIMIT")
    if exact is not False and (exact or upper * per_matchup <= 20 * limit):
        matchups = enumerate_matchups(masks, weights, MAX_MATCHUPS)
        if matchups is None and exact:
            raise ValueError(f"exact=True: more than {MAX_MATCHUPS:,} matchups to enumerate; "
                             f"pass exact=False for Monte Carlo")
    elif upper <= 2_000_000:  # cheap to check that some matchup exists at all
        matchups = enumerate_matchups(masks, weights, MAX_MATCHUPS)
    if matchups is not None and len(matchups[0]) == 0:
        raise no_matchup_error(prob)

    run_exact = False
    if matchups is not None and exact is not False:
        n_pool = len(np.unique(np.concatenate(masks)))
        work = n_pool * n_boards + len(matchups[0]) * per_matchup
        work /= len(symmetry_groups(prob))  # only one board per suit-isomorphism orbit is played
        run_exact = bool(exact) or work <= limit
        if exact:
            _warn_long(work, "equity", eng)
    common = dict(labels=tuple(p.label for p in prob.players), backend=backend_name,
                  board=cards_text(prob.board) if prob.board else "",
                  dead=cards_text(prob.dead) if prob.dead else "")
    if run_exact:
        assert matchups is not None
        return _exact_equity(prob, eng, matchups, per_matchup, work, progress, common)
    n_samples = samples if samples is not None else engine_setting(eng, "DEFAULT_SAMPLES")
    return _sampled_equity(prob, eng, n_samples, entropy_of(seed), progress, common)


def symmetry_groups(prob: _Problem) -> tuple[tuple[int, ...], ...]:
    """Suit permutations that map the problem onto itself.

    They keep every known hand, the board and the dead cards, and map every range onto
    itself with its weights. Such a permutation maps each matchup to a matchup of the same
    weight, so summed over matchups a board and its image give the same counts, and only one
    board per orbit needs to be played (per-matchup counts do change, so this is for
    :func:`equity` totals only).
    """
    known = [int(p.range.masks[0]) for p in prob.players if p.fixed]
    group = enumerate_boards.stabilizer(known + [prob.board_mask, prob.dead_mask])
    for i in prob.ranged:
        r = prob.players[i].range
        order = np.argsort(r.masks)
        keep = []
        for perm in group:
            image = enumerate_boards.permute_suits(r.masks, perm)
            back = np.argsort(image)
            if np.array_equal(image[back], r.masks[order]) and \
                    np.array_equal(r.weights[back], r.weights[order]):
                keep.append(perm)
        group = tuple(keep)
    return group


def _exact_equity(prob: _Problem, eng, matchups: tuple[np.ndarray, np.ndarray],
                  per_matchup: int, work: float, progress: bool | None,
                  common: dict) -> EquityResult:
    idx, w = matchups
    all_masks = np.concatenate([p.range.masks for p in prob.players])
    pool, inverse = np.unique(all_masks, return_inverse=True)
    offsets = np.cumsum([0] + [len(p.range) for p in prob.players[:-1]])
    pool_idx = inverse[idx + offsets[None, :]]
    enabled = wanted(progress, _seconds(work, eng))
    by_class = getattr(eng, "preflop_counts", None)
    if by_class is not None and prob.k == 5 and len(w) * eng.PREFLOP_CLASS_WORK < work:
        # No board card yet, and fewer matchups than symmetric boards would cost: boards
        # counted by rank class (the same integers).
        with Progress(len(w), "equity (exact)", unit="matchups", enabled=enabled) as bar:
            c = by_class(pool, pool_idx, prob.deck_mask, progress=bar)
        wins, ties, units, valid, scale = c.wins, c.ties, c.units, c.valid, c.scale
    else:
        wins, ties, units, valid, scale = _counts_by_board(prob, eng, pool, pool_idx, enabled)
    return exact_result(wins, ties, units, valid, scale, w, per_matchup, **common)


def exact_result(wins: np.ndarray, ties: np.ndarray, units: np.ndarray, valid: np.ndarray,
                 scale: int, w: np.ndarray, per_matchup: int, **common: Any) -> EquityResult:
    """The :class:`EquityResult` of exact per-matchup counts ``(M, n)`` and matchup weights
    ``w``; ``common`` holds the labels, backend, board and dead-card text. Shared by
    :func:`equity` and :func:`gpu_eval.distributed.equity`."""
    # Every matchup is played on the same number of boards (with symmetric boards only the
    # total over matchups is kept, so that is what is checked).
    assert valid.sum() == len(w) * per_matchup
    # Sum the integer counts first: with whole weights the sums are exact, so every way of
    # spreading the same totals over matchups (suit symmetry, cluster slices) agrees bit for bit.
    total = w.sum() * per_matchup
    win = (w @ wins) / total
    tie = (w @ ties) / total
    tie_share = (w @ units) / (scale * total)  # units: split shares only
    m = len(w)
    what = f"{per_matchup:,} board{'s' * (per_matchup != 1)}"
    method = f"exact: {what}" if m == 1 else f"exact: {m:,} matchups x {what}"
    return EquityResult(equity=read_only(win + tie_share), win=read_only(win), tie=read_only(tie),
                        tie_share=read_only(tie_share),
                        stderr=read_only(np.zeros(wins.shape[1])), exact=True, boards=per_matchup,
                        samples=None, matchups=m, wins=read_only(wins.sum(axis=0)),
                        ties=read_only(ties.sum(axis=0)), method=method, **common)


def _counts_by_board(prob: _Problem, eng, pool: np.ndarray, pool_idx: np.ndarray,
                     enabled: bool) -> tuple:
    """``(wins, ties, units, valid, scale)`` of every matchup over every completion of the
    board, one board per suit-symmetry orbit, weighted by the orbit's size."""
    parts = enumerate_boards.symmetric_completions(prob.deck_mask, prob.k, symmetry_groups(prob))
    total = sum(len(b) for b, _ in parts)
    wins = ties = units = valid = 0
    with Progress(total, "equity (exact)", unit="boards", enabled=enabled) as bar:
        for boards, mult in parts:
            c = eng.showdown_counts(pool, pool_idx, boards, base=prob.board_mask, progress=bar)
            wins = wins + mult * c.wins
            ties = ties + mult * c.ties
            units = units + mult * c.units
            valid = valid + mult * c.valid
    return wins, ties, units, valid, c.scale


def _sampled_equity(prob: _Problem, eng, n_samples: int, entropy: int,
                    progress: bool | None, common: dict) -> EquityResult:
    n = len(prob.players)
    holes = [p.range.masks for p in prob.players]
    cum = [None if p.fixed else np.cumsum(p.range.weights) for p in prob.players]
    # A "random" player (every combo left, equal weights) is dealt from the deck instead.
    n_any = math.comb(bin(prob.deck_mask).count("1"), 2)
    dealt = [not p.fixed and len(p.range) == n_any
             and bool(np.all(p.range.weights == p.range.weights[0])) for p in prob.players]
    bar = Progress(n_samples, "equity (monte carlo)", unit="samples",
                   enabled=wanted(progress, _seconds(n_samples * n * 2, eng)))
    with bar:
        wins, ties, units, units_sq = eng.sample_counts(
            holes, cum, prob.deck_mask, prob.board_mask, prob.k, n_samples, entropy,
            dealt=dealt, progress=bar)
    return sampled_result(wins, ties, units, units_sq, n, n_samples, entropy, **common)


def sampled_result(wins: np.ndarray, ties: np.ndarray, units: np.ndarray, units_sq: np.ndarray,
                   n: int, n_samples: int, entropy: int, *, scale: int | None = None,
                   **common: Any) -> EquityResult:
    """The :class:`EquityResult` of Monte Carlo totals over ``n_samples`` deals of ``n``
    players (``units``, ``units_sq``: each player's pot units and their squares, summed;
    ``scale`` units make a pot, ``pot_units(n)`` by default); ``common`` holds the labels,
    backend, board and dead-card text. Shared by :func:`equity`, the other games' engine and
    :func:`gpu_eval.distributed.equity`."""
    scale = numpy_engine.pot_units(n) if scale is None else scale
    eq = units / (scale * n_samples)
    win = wins / n_samples
    tie = ties / n_samples  # split pots (PokerStove's "tie"); tie_share: the pot won in them
    tie_share = (units - wins * scale) / (scale * n_samples)  # integer units: never below 0
    if n_samples > 1:
        var = (units_sq / scale**2 - n_samples * eq**2) / (n_samples - 1)
        stderr = np.sqrt(np.maximum(var, 0) / n_samples)
    else:
        stderr = np.full(n, np.nan)
    return EquityResult(equity=read_only(eq), win=read_only(win), tie=read_only(tie),
                        tie_share=read_only(tie_share), stderr=read_only(stderr), exact=False,
                        boards=None, samples=n_samples, matchups=None,
                        wins=read_only(np.asarray(wins)), ties=read_only(np.asarray(ties)),
                        method=f"monte carlo: {n_samples:,} samples", seed=entropy, **common)


# ---------------------------------------------------------------------------------------------
# equity_matrix()
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class MatrixResult:
    """What :func:`equity_matrix` found (arrays read-only).

    Attributes
    ----------
    labels : tuple of str
        Range A and range B as given.
    matrix : numpy.ndarray, shape (n_a, n_b)
        Equity of each combo of A against each combo of B; NaN where they share a card.
    combos_a, combos_b : tuple of str
        The combos after card removal (rows and columns of ``matrix``).
    weights_a, weights_b : numpy.ndarray
        Their weights.
    equity_a : numpy.ndarray, shape (n_a,)
        Each A combo's weighted equity against range B (NaN if no B combo fits with it).
    equity_b : numpy.ndarray, shape (n_b,)
        Each B combo's weighted equity against range A.
    equity : float
        Range A's overall equity against range B: the matchup-weighted mean of ``matrix``.
    exact, boards, samples, backend, method
        As in :class:`EquityResult`; ``boards`` is the completions each pair is played on.
        Monte Carlo plays every pair on the sampled boards that avoid its cards.
    win, tie : numpy.ndarray, shape (n_a, n_b)
        Per pair, as in :class:`EquityResult`: the probability that combo i of A wins the pot
        alone, and that the two split it (NaN where they share a card);
        ``matrix = win + tie / 2``.
    """

    labels: tuple[str, str]
    matrix: np.ndarray
    combos_a: tuple[str, ...]
    combos_b: tuple[str, ...]
    weights_a: np.ndarray
    weights_b: np.ndarray
    equity_a: np.ndarray
    equity_b: np.ndarray
    equity: float
    exact: bool
    boards: int | None
    samples: int | None
    backend: str
    method: str
    seed: int | None = None
    board: str = ""
    dead: str = ""
    win: np.ndarray | None = None
    tie: np.ndarray | None = None

    def __str__(self) -> str:
        """Overall equity and each A combo's equity against range B.

        Examples
        --------
        >>> print(equity_matrix("AKs", "QQ", board="Qc 7d 2h"))  # doctest: +ELLIPSIS
        exact: 12 pairs x 990 boards (numpy), board Qc 7d 2h
        'AKs' vs 'QQ': 3.6616% vs 96.3384%
        AsKs  1.6162%
        AhKh  4.3434%
        ...
        """
        head = self.method + f" ({self.backend})"
        if self.board:
            head += f", board {self.board}"
        if self.dead:
            head += f", dead {self.dead}"
        lines = [head, f"{self.labels[0]!r} vs {self.labels[1]!r}: {pct(self.equity)} vs "
                       f"{pct(1 - self.equity)}"]
        lines += [f"{c}  {pct(e)}" for c, e in zip(self.combos_a, self.equity_a)]
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """Plain Python values (NaN becomes None), ready for ``json.dumps``.

        Examples
        --------
        >>> d = equity_matrix("AhKh", "QQ", board="Qc 7d 2h").to_dict()
        >>> d["combos_b"], d["matrix"][0][:2]
        (['QsQh', 'QsQd', 'QhQd'], [0.043434343434343436, 0.043434343434343436])
        """
        out: dict[str, Any] = {}
        for name in self.__dataclass_fields__:
            v = getattr(self, name)
            if isinstance(v, np.ndarray):
                v = np.where(np.isnan(v), None, v.astype(object)).tolist() \
                    if v.dtype.kind == "f" else v.tolist()
            elif isinstance(v, tuple):
                v = list(v)
            elif isinstance(v, float) and math.isnan(v):
                v = None
            out[name] = v
        return out

    def to_frame(self, values: str = "matrix"):
        """Combos of A by combos of B as a labelled pandas DataFrame of ``values``
        (``"matrix"``, ``"win"`` or ``"tie"``); needs the ``frames`` extra.

        Examples
        --------
        >>> equity_matrix("AhKh", "QQ", board="Qc7d2h").to_frame().shape   # doctest: +SKIP
        (1, 3)
        """
        from gpu_eval.frames import matrix_frame  # noqa: PLC0415 -- pandas only when asked for
        return matrix_frame(self, values)

    def plot(self, values: str = "matrix", *, ax=None, **kwargs):
        """The combo heatmap (grouped by hand class); returns the matplotlib Axes.

        Examples
        --------
        >>> equity_matrix("AA", "KK, AKs", board="Kd7c2h").plot()   # doctest: +SKIP
        <Axes: ...>
        """
        from gpu_eval.frames import plot_matrix  # noqa: PLC0415 -- matplotlib only when asked for
        return plot_matrix(self, values, ax=ax, **kwargs)


def equity_matrix(range_a: PlayerLike, range_b: PlayerLike, board: CardsLike = "",
                  dead: CardsLike = "", exact: bool | None = None,
                  samples: int | None = None, seed: int | None = None,
                  backend: str = "auto", progress: bool | None = None) -> MatrixResult:
    """Equity of every combo of range A against every combo of range B.

    Parameters
    ----------
    range_a, range_b : str, Range or card ids
        Ranges (or single hands), as for :func:`equity`.
    board, dead : optional
        Known board (0, 3, 4 or 5 cards) and dead cards, removed from both ranges.
    exact : bool or None
        As for :func:`equity`: the work is (distinct combos + compatible pairs) x boards.
    samples : int, optional
        Monte Carlo: boards sampled (default :data:`DEFAULT_TABLE_SAMPLES`); every pair is
        played on those that avoid its cards (about 85% preflop).
    seed : int, optional
        Seed for Monte Carlo.
    backend : {"auto", "numpy", "cuda"}
    progress : bool or None

    Returns
    -------
    MatrixResult
        ``matrix`` (n_a x n_b, NaN where two combos share a card), ``equity_a``,
        ``equity_b`` and the overall weighted ``equity`` of A.

    Raises
    ------
    ValueError
        Bad range text, a range empty after removing the board and dead cards, ranges with no
        compatible pair, a bad board.

    Examples
    --------
    >>> m = equity_matrix("AA", "KK, AKs", board="Kd 7c 2h")
    >>> m.matrix.shape, m.method
    ((6, 6), 'exact: 27 pairs x 990 boards')
    >>> round(m.equity, 4), round(float(m.equity_a[0]), 4)
    (0.3519, 0.2816)
    >>> m.combos_a[0], m.combos_b[0], bool(np.isnan(m.matrix[0, 0]))  # share the As
    ('AsAh', 'AsKs', True)
    """
    samples = check_options(exact, samples, seed)

    def count_pairs(pool, pairs, deck, k, base, work):
        eng, backend_name = engine_for(backend)
        return (*pair_counts(eng, pool, pairs, deck, k, base, exact, samples, seed, work,
                              progress, what="equity_matrix"), backend_name)

    return matrix_result(range_a, range_b, board, dead, count_pairs)


def matrix_result(range_a: PlayerLike, range_b: PlayerLike, board: CardsLike,
                  dead: CardsLike, count_pairs) -> MatrixResult:
    """Validate, set up and finish an equity matrix around one pair-counting step.

    ``count_pairs(pool, pairs, deck, k, base, work)`` returns ``(Counts, samples or None,
    method or None, seed or None, backend name)``; :func:`equity_matrix` runs it on an
    engine here, ``gpu_eval.distributed`` on a cluster. Everything else (card removal, the
    compatible pairs, the weighted averages) is this one function's, so both agree.
    """
    b, d = _board_and_dead(board, dead)
    known = np.uint64(_mask_of(b + d))
    ranges_ = []
    for who, spec in (("range A", range_a), ("range B", range_b)):
        r, label = _as_range(spec, who)
        left = r.without(known, allow_empty=True)
        if len(left) == 0:
            raise ValueError(f"{who} {label!r} is empty after removing the board and dead "
                             f"cards ({cards_text(b + d) if b or d else 'none'})")
        ranges_.append((left, label))
    (ra, la), (rb, lb) = ranges_
    ok = (ra.masks[:, None] & rb.masks[None, :]) == 0
    ia, ib = np.nonzero(ok)
    if len(ia) == 0:
        raise ValueError(f"no combo of range A {la!r} fits with any combo of range B {lb!r} "
                         f"(every pair shares a card)")
    pool, inverse = np.unique(np.concatenate([ra.masks, rb.masks]), return_inverse=True)
    pairs = np.column_stack([inverse[ia], inverse[len(ra) + ib]])
    deck = enumerate_boards.FULL_DECK & ~int(known)
    k = 5 - len(b)
    n_boards = enumerate_boards.count(deck, k)
    per_pair = math.comb(bin(deck).count("1") - 4, k)
    work = (len(pool) + len(pairs)) * n_boards
    counts, n_used, method, entropy, backend_name = count_pairs(pool, pairs, deck, k,
                                                               _mask_of(b), work)
    eq_pairs = counts.equity()[:, 0]
    if counts.valid.min() > 0 and n_used is None:
        assert counts.valid.min() == per_pair
    matrix = np.full(ok.shape, np.nan)
    matrix[ia, ib] = eq_pairs
    win, tie = np.full(ok.shape, np.nan), np.full(ok.shape, np.nan)
    with np.errstate(invalid="ignore", divide="ignore"):  # NaN for a pair with no board
        win[ia, ib] = counts.wins[:, 0] / counts.valid
        tie[ia, ib] = counts.ties[:, 0] / counts.valid
    # Weighted averages over compatible pairs with at least one board (NaN cells drop out).
    wmat = np.where(np.isnan(matrix), 0.0, ra.weights[:, None] * rb.weights[None, :])
    filled = np.nan_to_num(matrix)
    with np.errstate(invalid="ignore", divide="ignore"):
        eq_a = (wmat * filled).sum(axis=1) / wmat.sum(axis=1)
        eq_b = 1 - (wmat * filled).sum(axis=0) / wmat.sum(axis=0)
    overall = float((wmat * filled).sum() / wmat.sum())
    if method is None:
        method = f"exact: {len(pairs):,} pairs x {per_pair:,} boards"
    return MatrixResult(
        labels=(la, lb), matrix=read_only(matrix), combos_a=tuple(ra.hands()),
        combos_b=tuple(rb.hands()), weights_a=read_only(ra.weights.copy()),
        weights_b=read_only(rb.weights.copy()), equity_a=read_only(eq_a), equity_b=read_only(eq_b),
        equity=overall, exact=n_used is None, boards=per_pair if n_used is None else None,
        samples=n_used, backend=backend_name, method=method, seed=entropy,
        board=cards_text(b) if b else "", dead=cards_text(d) if d else "", win=read_only(win),
        tie=read_only(tie))


def pair_counts(eng, pool: np.ndarray, pairs: np.ndarray, deck: int, k: int, base: int,
                 exact: bool | None, samples: int | None, seed: int | None,
                 work: float, progress: bool | None, what: str):
    """Play heads-up pairs on every completion, or on sampled boards.

    Returns ``(counts, samples or None, method or None, seed or None)``.
    """
    run_exact = exact is True or (exact is None and work <= engine_setting(eng, "EXACT_WORK_LIMIT"))
    if run_exact:
        if exact:
            _warn_long(work, what, eng)
        boards = enumerate_boards.completions(deck, k)
        n_used, method, entropy = None, None, None
    else:
        n_used = samples if samples is not None else engine_setting(eng, "DEFAULT_TABLE_SAMPLES")
        entropy = entropy_of(seed)
        rng = np.random.default_rng(np.random.SeedSequence(entropy))
        boards = enumerate_boards.sample(rng, n_used, deck, k)
        method = f"monte carlo: {n_used:,} sampled boards"
        work = work * n_used / max(enumerate_boards.count(deck, k), 1)
    bar = Progress(len(boards), f"{what} ({'exact' if run_exact else 'monte carlo'})",
                   unit="boards", enabled=wanted(progress, _seconds(work, eng)))
    with bar:
        counts = None
        if run_exact and k == 5 and deck == enumerate_boards.FULL_DECK \
                and hasattr(eng, "preflop_pair_counts"):  # the CUDA engine's all-pairs matrix
            counts = eng.preflop_pair_counts(pool, pairs, progress=bar)
        if counts is None:
            counts = eng.showdown_counts(pool, pairs, boards, base=base, progress=bar)
    return counts, n_used, method, entropy


# ---------------------------------------------------------------------------------------------
# preflop_table()
# ---------------------------------------------------------------------------------------------

_N_COMBOS = len(ranges.ALL_COMBOS)


@lru_cache(maxsize=1)
def _perm_table() -> np.ndarray:
    """``(24, 1326)``: combo row -> the row of the same combo with its suits permuted."""
    out = np.empty((len(enumerate_boards.SUIT_PERMS), _N_COMBOS), dtype=np.int32)
    cards_ = ranges.ALL_COMBOS.astype(np.int64)
    for i, perm in enumerate(enumerate_boards.SUIT_PERMS):
        p = np.array(perm)
        moved = 4 * (cards_ // 4) + p[cards_ % 4]
        out[i] = ranges.COMBO_INDEX[moved[:, 0], moved[:, 1]]
    out.flags.writeable = False
    return out


def _canonical_pairs(ia: np.ndarray, ib: np.ndarray) -> tuple[np.ndarray, np.ndarray,
                                                                np.ndarray]:
    """Suit-isomorphism class of each ordered combo pair ``(ia, ib)``.

    The key of a pair is the smallest ``row(sigma a) * 1326 + row(sigma b)`` over the 24 suit
    permutations; a pair and its swap ``(b, a)`` have equities ``e`` and ``1 - e``, so both
    map to the smaller of their two keys. Returns ``(key, flipped, symmetric)``: ``flipped``
    when the pair is the swap of its class representative (its equity is ``1 - e``),
    ``symmetric`` when the pair is its own swap (equity exactly 1/2).

    Examples
    --------
    >>> row = {h: i for i, h in enumerate(ranges.ALL_COMBO_MASKS.tolist())}
    >>> a, b, c = (row[int(cards.to_mask(h))] for h in ("AsAh", "KsKh", "KdKc"))
    >>> key, flipped, sym = _canonical_pairs(np.array([a, a, b]), np.array([b, c, a]))
    >>> bool(key[0] == key[2]), flipped.tolist(), sym.tolist()
    (True, [False, False, True], [False, False, False])
    """
    perm = _perm_table()
    ia = np.asarray(ia, dtype=np.int32)
    ib = np.asarray(ib, dtype=np.int32)
    big = np.iinfo(np.int32).max  # keys < 1326**2 fit in int32, halving memory traffic
    key = np.full(len(ia), big, dtype=np.int32)
    swap = np.full(len(ia), big, dtype=np.int32)
    tmp = np.empty(len(ia), dtype=np.int32)
    for p in perm:
        pa, pb = p[ia], p[ib]
        np.multiply(pa, _N_COMBOS, out=tmp)
        tmp += pb
        np.minimum(key, tmp, out=key)
        np.multiply(pb, _N_COMBOS, out=tmp)
        tmp += pa
        np.minimum(swap, tmp, out=swap)
    return np.minimum(key, swap), swap < key, swap == key


def _class_index(name: str) -> int:
    """Grid-order index of a hand class name such as ``"AKs"`` (any case, ``10`` for T)."""
    try:
        return ranges.CLASS_NAMES.index(ranges.class_name(*ranges.parse_class_name(name)))
    except (ValueError, TypeError, AttributeError):
        raise ValueError(f"unknown hand class {name!r}: expected a name such as 'AA', 'AKs' "
                         f"or '72o'") from None


@dataclass(frozen=True, eq=False)
class PreflopTable:
    """Heads-up preflop equity of the 169 hand classes (:func:`preflop_table`).

    Attributes
    ----------
    labels : tuple of str
        The 169 classes in grid order: top rank from A down, then kicker from high to low,
        a pair first and then suited before offsuit (``AA, AKs, AKo, AQs, ..., 32o, 22``).
    table : numpy.ndarray, shape (169, 169)
        ``table[i, j]``: equity of class ``labels[i]`` against class ``labels[j]``, the mean
        over their compatible combo pairs; NaN for cells not computed.
        ``table[i, j] + table[j, i] == 1`` and the diagonal is 1/2.
    classes : int
        Suit-isomorphism classes of combo pairs actually played.
    exact, boards, samples, backend, method, seed
        As in :class:`MatrixResult`.
    """

    labels: tuple[str, ...]
    table: np.ndarray
    classes: int
    exact: bool
    boards: int | None
    samples: int | None
    backend: str
    method: str
    seed: int | None = None
    _index: dict = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._index.update({name: i for i, name in enumerate(self.labels)})

    def cell(self, a: str, b: str) -> float:
        """Equity of class ``a`` against class ``b`` (names such as ``"AKs"``, ``"72o"``).

        Examples
        --------
        >>> t = preflop_table(cells=[("AA", "KK")], exact=False, samples=20_000, seed=1)
        >>> abs(t.cell("AA", "KK") - 0.8195) < 0.02   # the exact equity is 0.8195
        True
        >>> round(t.cell("AA", "KK") + t.cell("KK", "AA"), 6)
        1.0
        """
        return float(self.table[self._class(a), self._class(b)])

    def _class(self, name: str) -> int:
        return self._index[ranges.CLASS_NAMES[_class_index(name)]]  # labels may be reordered

    def __str__(self) -> str:
        """What was computed and a few cells.

        Examples
        --------
        >>> print(preflop_table(cells=[("AA", "KK")]))
        preflop table, exact: 2,598,960 boards (numpy), 2 of 28,561 cells (3 pair classes)
        AA vs KK: 81.9461%
        KK vs AA: 18.0539%
        """
        done = np.argwhere(~np.isnan(self.table))
        off = [(i, j) for i, j in done if i != j]
        head = (f"preflop table, {self.method} ({self.backend}), {len(done):,} of "
                f"{self.table.size:,} cells ({self.classes:,} pair classes)")
        lines = [head]
        for i, j in off[:6]:
            lines.append(f"{self.labels[i]} vs {self.labels[j]}: {pct(self.table[i, j])}")
        if len(off) > 6:
            lines.append("...")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """Labels and table (NaN as None), ready for ``json.dumps``.

        Examples
        --------
        >>> t = preflop_table(cells=[("AA", "KK")], exact=False, samples=1000, seed=1)
        >>> sorted(t.to_dict())[:3]
        ['backend', 'boards', 'classes']
        """
        t = self.table
        return {"labels": list(self.labels),
                "table": np.where(np.isnan(t), None, t.astype(object)).tolist(),
                "classes": self.classes, "exact": self.exact, "boards": self.boards,
                "samples": self.samples, "backend": self.backend, "method": self.method,
                "seed": self.seed}

    def to_frame(self):
        """The 169 x 169 table as a pandas DataFrame labelled by class (``frames`` extra).

        Examples
        --------
        >>> preflop_table(cells=[("AA", "KK")]).to_frame().loc["AA", "KK"]   # doctest: +SKIP
        0.8194...
        """
        from gpu_eval.frames import preflop_frame  # noqa: PLC0415 -- pandas only when asked for
        return preflop_frame(self)

    def plot(self, opponent: str | None = None, *, ax=None, **kwargs):
        """The 13 x 13 grid of each class's equity against ``opponent`` (a class, a range of
        whole classes such as ``"QQ+, AKs"``) or, by default, a random hand; returns the
        matplotlib Axes (see :func:`gpu_eval.frames.preflop_grid`).

        Examples
        --------
        >>> preflop_table(cells=[("AA", "KK")]).plot(opponent="KK")   # doctest: +SKIP
        <Axes: ...>
        """
        from gpu_eval.frames import plot_preflop  # noqa: PLC0415 -- matplotlib only when asked for
        return plot_preflop(self, opponent, ax=ax, **kwargs)


def preflop_table(exact: bool | None = None, samples: int | None = None,
                  seed: int | None = None, backend: str = "auto",
                  progress: bool | None = None,
                  cells: Sequence[tuple[str, str]] | None = None) -> PreflopTable:
    """The 169 x 169 heads-up preflop equity table of hand classes.

    Each cell is the mean equity over the compatible combo pairs of its two classes (every
    pair counted once: a cell is what ``equity([a, b])`` gives for the two class ranges).
    Pairs equal up to a permutation of suits have equal equity, and a pair and its swap have
    equities ``e`` and ``1 - e``, so only one pair per class is played (about 47k classes for
    the whole table, instead of 1.6 million ordered pairs); the lower triangle is ``1 - ``
    the upper one and the diagonal is 1/2 by symmetry.

    Parameters
    ----------
    exact : bool or None
        ``None`` enumerates only when the work is small (a few cells), else samples.
        ``True`` for the whole table is a very long job on NumPy -- every combo on all
        2,598,960 boards plus about 1.2 x 10^11 comparisons, half an hour or more on two cores;
        the CUDA engine is meant for it.
    samples : int, optional
        Monte Carlo: boards sampled, shared by all pairs (default
        :data:`DEFAULT_TABLE_SAMPLES`; each pair plays the ~85% that avoid its cards).
    seed : int, optional
        Seed for Monte Carlo.
    backend : {"auto", "numpy", "cuda"}
    progress : bool or None
        Progress bar on stderr (``None``: only for long runs).
    cells : list of (str, str), optional
        Compute only these cells (and their mirror images), e.g. ``[("AA", "KK")]``; the
        others are NaN. Default: every cell.

    Returns
    -------
    PreflopTable
        ``table`` (169 x 169), ``labels`` in grid order, :meth:`PreflopTable.cell` lookup.

    Examples
    --------
    >>> t = preflop_table(cells=[("AKs", "QQ")])
    >>> t.method, round(t.cell("AKs", "QQ"), 4), round(t.cell("QQ", "AKs"), 4)
    ('exact: 2,598,960 boards', 0.4605, 0.5395)
    >>> t = preflop_table(samples=1000, seed=0)  # the whole table, Monte Carlo
    >>> t.table.shape, t.method, bool(abs(t.cell("AA", "KK") - 0.82) < 0.03)
    ((169, 169), 'monte carlo: 1,000 sampled boards', True)
    """
    samples = check_options(exact, samples, seed)
    eng, backend_name = engine_for(backend)

    def count_pairs(pool, pairs, deck, k, base, work):
        return (*pair_counts(eng, pool, pairs, deck, k, base, exact, samples, seed, work,
                              progress, what="preflop_table"), backend_name)

    return preflop_table_result(cells, count_pairs, backend_name)


def preflop_table_result(cells: Sequence[tuple[str, str]] | None, count_pairs,
                         backend_name: str) -> PreflopTable:
    """Select the cells, reduce combo pairs to suit-isomorphism classes, run one
    pair-counting step on the classes that must be played, and average back into cells.

    ``count_pairs`` is as for :func:`matrix_result`: an engine here, a cluster in
    ``gpu_eval.distributed``; ``backend_name`` is reported when nothing needs playing.
    """
    names = ranges.CLASS_NAMES
    n_cls = len(names)
    if cells is None:
        wanted_cells = [(i, j) for i in range(n_cls) for j in range(i + 1, n_cls)]
        diag = list(range(n_cls))
    else:
        if isinstance(cells, (str, tuple)) and len(cells) == 2 and isinstance(cells[0], str):
            cells = [cells]  # one cell given bare
        got = set()
        for item in cells:
            if not (isinstance(item, (tuple, list)) and len(item) == 2):
                raise ValueError(f"cells must be pairs of class names such as ('AA', 'KK'), "
                                 f"got {item!r}")
            i, j = _class_index(item[0]), _class_index(item[1])
            got.add((min(i, j), max(i, j)))
        wanted_cells = sorted(c for c in got if c[0] != c[1])
        diag = sorted(c[0] for c in got if c[0] == c[1])

    # Every ordered compatible combo pair (a, b) whose cell (class a, class b) is wanted.
    masks = ranges.ALL_COMBO_MASKS
    cls = ranges.COMBO_CLASS
    want = np.zeros((n_cls, n_cls), dtype=bool)
    if wanted_cells:
        want[tuple(np.array(wanted_cells).T)] = True
    ok = want[cls[:, None], cls[None, :]] & ((masks[:, None] & masks[None, :]) == 0)
    ia, ib = np.nonzero(ok)
    cell_idx = cls[ia] * n_cls + cls[ib]
    table = np.full((n_cls, n_cls), np.nan)
    table[diag, diag] = 0.5
    n_classes = 0
    n_used = method = entropy = None
    if wanted_cells:
        key, flipped, symmetric = _canonical_pairs(ia, ib)
        reps, rep_of = np.unique(key, return_inverse=True)
        rep_sym = np.zeros(len(reps), dtype=bool)
        rep_sym[rep_of[symmetric]] = True
        play = np.flatnonzero(~rep_sym)  # symmetric classes are 1/2 without playing
        n_classes = len(play)
        rep_eq = np.full(len(reps), 0.5)
        if len(play):
            ra_, rb_ = np.divmod(reps[play], _N_COMBOS)
            pool_rows, inverse = np.unique(np.concatenate([ra_, rb_]), return_inverse=True)
            pool = masks[pool_rows]
            pairs = inverse.reshape(2, -1).T
            deck = enumerate_boards.FULL_DECK
            work = (len(pool) + len(pairs)) * enumerate_boards.count(deck, 5)
            counts, n_used, method, entropy, backend_name = count_pairs(pool, pairs, deck, 5,
                                                                       0, work)
            rep_eq[play] = counts.equity()[:, 0]
        pair_eq = rep_eq[rep_of]
        pair_eq = np.where(flipped, 1 - pair_eq, pair_eq)
        sums = np.bincount(cell_idx, weights=pair_eq, minlength=n_cls * n_cls)
        cnt = np.bincount(cell_idx, minlength=n_cls * n_cls)
        rows, cols = np.array(wanted_cells).T
        vals = sums.reshape(n_cls, n_cls)[rows, cols] / cnt.reshape(n_cls, n_cls)[rows, cols]
        table[rows, cols] = vals
        table[cols, rows] = 1 - vals
    if method is None:
        method = "exact: 2,598,960 boards"
    return PreflopTable(tuple(names), read_only(table), n_classes, n_used is None,
                        None if n_used is not None else 2_598_960, n_used, backend_name,
                        method, entropy)
