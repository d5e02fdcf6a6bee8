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

Heads-up preflop without dead cards (and not Monte Carlo) is answered on every backend from
the shipped exact table of :mod:`gpu_eval.equity_engine.preflop_data` (the integer wins and ties of each of
the 47,008 suit-isomorphism classes of combo pairs over all 1,712,304 boards): ``method``
then starts ``"exact (table)"``, and the counts are the same integers the engines give.

Otherwise preflop (no board card), the NumPy engine can count boards by *rank class* instead
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

import dataclasses
import math
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from gpu_eval import backend_choice, ranges
from gpu_eval.equity_engine import (
    enumerate_boards,
    fast_spot,
    matchup_orbits,
    numpy_engine,
    preflop_data,
    range_spot,
)
from gpu_eval.equity_engine.results import (
    EquityResult,
    MatrixResult,
    PreflopTable,
    class_index,
    exact_result,
    read_only,
    sampled_result,
    spot_result,
)
from gpu_eval.equity_engine.setup import (
    MAX_MATCHUPS,
    CardsLike,
    PlayerLike,
    Problem,
    as_range,
    board_and_dead,
    cards_text,
    check_equity_game,
    check_options,
    engine_for,
    engine_setting,
    entropy_of,
    enumerate_matchups,
    expected_seconds,
    mask_of,
    no_matchup_error,
    prepare,
    warn_long,
)
from gpu_eval.games import registry
from gpu_eval.games.registry import HOLDEM
from gpu_eval.progress import Progress, wanted

__all__ = ["equity", "equity_matrix", "preflop_table", "matrix_result", "preflop_table_result",
           "symmetry_groups", "pair_counts", "table_applies", "table_backend", "table_counts",
           "table_equity", "table_pairs"]

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
    ('exact (table): 1,712,304 boards', [787966, 917606], [6732, 6732])
    >>> round(float(r.equity[0]), 4)
    0.4621
    >>> r = equity(["AhKh", "QQ+,AKs"], board="Kd 7c 2h")
    >>> r.method, round(float(r.equity[0]), 4)
    ('exact: 12 matchups x 990 boards', 0.5794)
    >>> r = equity(["AA", "KK", "random"], exact=False, samples=100_000, seed=1)
    >>> r.method, bool(abs(r.equity.sum() - 1) < 1e-12), bool(r.stderr.max() < 0.002)
    ('monte carlo: 100,000 samples', True, True)
    """
    record = registry.get(game, where="equity()")
    family = record.family
    if record.deals_only:  # no shared board: stud, razz, stud hi/lo and the draw games
        from gpu_eval.equity_engine import draw, stud  # noqa: PLC0415
        engine = stud if family == registry.STUD else draw
        return engine.equity(players, board, dead, exact=exact, samples=samples, seed=seed,
                             game=game, backend=backend, progress=progress)
    if family != HOLDEM:  # Omaha, hi/lo, short deck
        from gpu_eval.equity_engine import game_equity  # noqa: PLC0415
        return game_equity.equity(players, board, dead, exact=exact, samples=samples,
                                   seed=seed, game=game, backend=backend, progress=progress)
    check_equity_game(game)
    samples = check_options(exact, samples, seed)
    fast = fast_spot.counts(players, board, dead) if exact is not False and samples is None \
        else None  # known hands after the flop
    if fast is not None and backend_choice.resolve(backend) == "numpy":
        work = len(players) * fast[-3]
        if not wanted(progress, expected_seconds(work, numpy_engine)):
            if exact:
                warn_long(work, "equity", numpy_engine)
            wins, ties, units, _, scale, per, b, d = fast
            return spot_result(wins[0], ties[0], units[0], scale, per, labels=tuple(players),
                               backend="numpy", board=cards_text(b),
                               dead=cards_text(d) if d else "")
    pair = range_spot.counts(players, board, dead) if fast is None and exact is not False \
        and samples is None and progress is not True \
        and backend_choice.resolve(backend) == "numpy" else None  # two ranges, turn or river
    if pair is not None:  # small work: exact, no bar, no warning (range_spot.MAX_GRID)
        wins, ties, units, valid, scale, w, per, labels, b, d = pair
        return exact_result(wins, ties, units, valid, scale, w, per, labels=labels,
                            backend="numpy", board=cards_text(b),
                            dead=cards_text(d) if d else "")
    prob = prepare(players, board, dead)
    if table_applies(exact, samples, len(prob.players), prob.k, prob.dead, progress):
        return table_equity(prob, backend)
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
        cheapest = work
        if prob.k == 5 and hasattr(eng, "preflop_counts"):  # by rank class, per suit orbit
            offsets = np.cumsum([0] + [len(m) for m in masks[:-1]])
            reps, _ = matchup_orbits.orbits(np.concatenate(masks), matchups[0] + offsets,
                                            [prob.board_mask, prob.dead_mask])
            cheapest = min(work, len(reps) * eng.PREFLOP_CLASS_WORK)
        run_exact = bool(exact) or cheapest <= limit
        if exact:
            warn_long(cheapest, "equity", eng)
    common = dict(labels=tuple(p.label for p in prob.players), backend=backend_name,
                  board=cards_text(prob.board) if prob.board else "",
                  dead=cards_text(prob.dead) if prob.dead else "")
    if run_exact:
        assert matchups is not None
        return _exact_equity(prob, eng, matchups, per_matchup, work, progress, common)
    n_samples = samples if samples is not None else engine_setting(eng, "DEFAULT_SAMPLES")
    return _sampled_equity(prob, eng, n_samples, entropy_of(seed), progress, common)


def table_applies(exact: bool | None, samples: int | None, n_players: int, k: int, dead,
                  progress: bool | None) -> bool:
    """Whether the shipped exact heads-up preflop table answers a problem.

    Heads-up, no board card, no dead card, and exact (``True``, or ``None`` without
    ``samples``). :func:`equity`, :func:`equity_matrix`, :func:`preflop_table` and their
    :mod:`gpu_eval.distributed` twins decide with this one function.

    Parameters
    ----------
    exact, samples : as for :func:`equity`
    n_players : int
        Players in the problem.
    k : int
        Board cards to come (5: preflop).
    dead : object
        The dead cards (anything true when there are some).
    progress : bool or None
        Validated as for :func:`equity` (a table lookup shows no bar).

    Returns
    -------
    bool

    Examples
    --------
    >>> table_applies(None, None, 2, 5, "", False), table_applies(None, None, 2, 5, "2c", False)
    (True, False)
    """
    wanted(progress, 0.0)  # validates it: table lookups need no progress bar
    return (exact is True or (exact is None and samples is None)) and n_players == 2 \
        and k == 5 and not dead and preflop_data.USE_TABLE


def table_backend(backend: str) -> str:
    """The backend a table lookup reports: it runs on the host, but an explicit ``"cuda"``
    still checks for a device (and raises ``RuntimeError`` without one).

    Examples
    --------
    >>> table_backend("auto")
    'numpy'
    """
    return "numpy" if backend in ("auto", "numpy") else engine_for(backend)[1]


def table_counts(pool: np.ndarray, pairs: np.ndarray) -> numpy_engine.Counts:
    """Exact heads-up preflop counts of combo pairs, read from
    :mod:`gpu_eval.equity_engine.preflop_data`.

    Parameters
    ----------
    pool : numpy.ndarray of uint64
        Hole-card masks.
    pairs : numpy.ndarray of int, shape (M, 2)
        Pool indices of each pair (disjoint combos).

    Returns
    -------
    numpy_engine.Counts
        The integers the engines count over all 1,712,304 boards.

    Examples
    --------
    >>> from gpu_eval import cards
    >>> c = table_counts(cards.to_mask(["AhKh", "QsQd"]), np.array([[0, 1]]))
    >>> c.wins.tolist(), c.ties.tolist()
    ([[787966, 917606]], [[6732, 6732]])
    """
    wins, ties = preflop_data.counts_of_masks(pool, pairs)
    t = np.column_stack([ties, ties])
    return numpy_engine.Counts(wins, t, t.copy(), np.full(len(wins), preflop_data.BOARDS), 2)


def table_pairs(pool: np.ndarray, pairs: np.ndarray, backend_name: str, *,
                matrix: bool = True) -> tuple:
    """The table's answer to a pair-counting step (``count_pairs`` of :func:`matrix_result`
    and :func:`preflop_table_result`): ``(Counts, None, method, None, backend_name)``.

    Parameters
    ----------
    pool, pairs
        As for :func:`table_counts`.
    backend_name : str
        The backend to report.
    matrix : bool
        Word the method as :func:`equity_matrix` does (pairs x boards) or, ``False``, as
        :func:`preflop_table` does.

    Examples
    --------
    >>> from gpu_eval import cards
    >>> table_pairs(cards.to_mask(["AhKh", "QsQd"]), np.array([[0, 1]]), "numpy")[2]
    'exact (table): 1 pairs x 1,712,304 boards'
    """
    method = f"exact (table): {len(pairs):,} pairs x {preflop_data.BOARDS:,} boards" \
        if matrix else f"exact (table): {math.comb(52, 5):,} boards"
    return table_counts(pool, pairs), None, method, None, backend_name


def table_equity(prob: Problem, backend: str, backend_name: str | None = None
                 ) -> EquityResult:
    """:func:`equity` of a heads-up preflop problem without dead cards, from the table.

    Parameters
    ----------
    prob : Problem
        As :func:`gpu_eval.equity_engine.setup.prepare` builds it.
    backend : str
        The requested backend (see :func:`table_backend`).
    backend_name : str, optional
        The backend to report instead (a cluster client decides its own).

    Returns
    -------
    EquityResult
        Its ``method`` starts with ``"exact (table):"``.

    Examples
    --------
    >>> from gpu_eval.equity_engine.setup import prepare
    >>> r = table_equity(prepare(["AhKh", "QsQd"], "", ""), "auto")
    >>> r.method, r.wins.tolist()
    ('exact (table): 1,712,304 boards', [787966, 917606])
    """
    if backend_name is None:
        backend_name = table_backend(backend)
    masks = [p.range.masks for p in prob.players]
    idx, w = enumerate_matchups(masks, [p.range.weights for p in prob.players], MAX_MATCHUPS)
    if len(w) == 0:
        raise no_matchup_error(prob)
    c = table_counts(np.concatenate(masks), idx + np.array([0, len(masks[0])]))
    r = exact_result(c.wins, c.ties, c.units, c.valid, c.scale, w, preflop_data.BOARDS,
                     labels=tuple(p.label for p in prob.players), backend=backend_name)
    return dataclasses.replace(r, method=r.method.replace("exact:", "exact (table):", 1))


def symmetry_groups(prob: Problem) -> tuple[tuple[int, ...], ...]:
    """Suit permutations that map the problem onto itself.

    They keep every known hand, the board and the dead cards, and map every range onto
    itself with its weights. Such a permutation maps each matchup to a matchup of the same
    weight, so summed over matchups a board and its image give the same counts, and only one
    board per orbit needs to be played (per-matchup counts do change, so this is for
    :func:`equity` totals only).
    """
    cached = prob.__dict__.get("symmetry_groups")
    if cached is not None:  # equity() asks twice
        return cached
    known = [int(p.range.masks[0]) for p in prob.players if p.fixed]
    group = enumerate_boards.stabilizer(known + [prob.board_mask, prob.dead_mask])
    for i in prob.ranged:
        if len(group) == 1:  # the identity alone (a rainbow board): it keeps every range
            break
        r = prob.players[i].range
        group = enumerate_boards.keeping_range(group, r.masks, r.weights)
    prob.__dict__["symmetry_groups"] = group
    return group


def _exact_equity(prob: Problem, eng, matchups: tuple[np.ndarray, np.ndarray],
                  per_matchup: int, work: float, progress: bool | None,
                  common: dict) -> EquityResult:
    idx, w = matchups
    all_masks = np.concatenate([p.range.masks for p in prob.players])
    pool, inverse = np.unique(all_masks, return_inverse=True)
    offsets = np.cumsum([0] + [len(p.range) for p in prob.players[:-1]])
    pool_idx = inverse[idx + offsets[None, :]]
    enabled = wanted(progress, expected_seconds(work, eng))
    by_class = getattr(eng, "preflop_counts", None)
    if by_class is not None and prob.k == 5:  # one matchup per suit orbit: the same counts
        reps, orbit = matchup_orbits.orbits(pool, pool_idx, [prob.board_mask, prob.dead_mask])
    if by_class is not None and prob.k == 5 and len(reps) * eng.PREFLOP_CLASS_WORK < work:
        # No board card yet, and fewer matchups than symmetric boards would cost: boards
        # counted by rank class (the same integers).
        enabled = wanted(progress, expected_seconds(len(reps) * eng.PREFLOP_CLASS_WORK, eng))
        with Progress(len(reps), "equity (exact)", unit="matchups", enabled=enabled) as bar:
            c = by_class(pool, pool_idx[reps], prob.deck_mask, progress=bar)
        wins, ties, units, valid, scale = (c.wins[orbit], c.ties[orbit], c.units[orbit],
                                           c.valid[orbit], c.scale)
    else:
        wins, ties, units, valid, scale = _counts_by_board(prob, eng, pool, pool_idx, enabled)
    return exact_result(wins, ties, units, valid, scale, w, per_matchup, **common)


def _counts_by_board(prob: Problem, eng, pool: np.ndarray, pool_idx: np.ndarray,
                     enabled: bool) -> tuple:
    """``(wins, ties, units, valid, scale)`` of every matchup over every completion of the
    board, one board per suit-symmetry orbit, weighted by the orbit's size."""
    parts = enumerate_boards.symmetric_completions(prob.deck_mask, prob.k, symmetry_groups(prob))
    total = sum(len(b) for b, _ in parts)
    wins = ties = units = valid = 0
    with Progress(total, "equity (exact)", unit="boards", enabled=enabled) as bar:
        if len(parts) == 1 and parts[0][1] == 1:  # no symmetry: the counts as they come
            c = eng.showdown_counts(pool, pool_idx, parts[0][0], base=prob.board_mask,
                                    progress=bar)
            return c.wins, c.ties, c.units, c.valid, c.scale
        for boards, mult in parts:
            c = eng.showdown_counts(pool, pool_idx, boards, base=prob.board_mask, progress=bar)
            wins = wins + mult * c.wins
            ties = ties + mult * c.ties
            units = units + mult * c.units
            valid = valid + mult * c.valid
    return wins, ties, units, valid, c.scale


def _sampled_equity(prob: Problem, eng, n_samples: int, entropy: int,
                    progress: bool | None, common: dict) -> EquityResult:
    n = len(prob.players)
    holes = [p.range.masks for p in prob.players]
    cum = [None if p.fixed else np.cumsum(p.range.weights) for p in prob.players]
    # A "random" player (every combo left, equal weights) is dealt from the deck instead.
    n_any = math.comb(bin(prob.deck_mask).count("1"), 2)
    dealt = [not p.fixed and len(p.range) == n_any
             and bool(np.all(p.range.weights == p.range.weights[0])) for p in prob.players]
    bar = Progress(n_samples, "equity (monte carlo)", unit="samples",
                   enabled=wanted(progress, expected_seconds(n_samples * n * 2, eng)))
    with bar:
        wins, ties, units, units_sq = eng.sample_counts(
            holes, cum, prob.deck_mask, prob.board_mask, prob.k, n_samples, entropy,
            dealt=dealt, progress=bar)
    return sampled_result(wins, ties, units, units_sq, n, n_samples, entropy, **common)


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
        if table_applies(exact, samples, 2, k, deck != enumerate_boards.FULL_DECK, progress):
            return table_pairs(pool, pairs, table_backend(backend))
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
    b, d = board_and_dead(board, dead)
    known = np.uint64(mask_of(b + d))
    ranges_ = []
    for who, spec in (("range A", range_a), ("range B", range_b)):
        r, label = as_range(spec, who)
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
                                                               mask_of(b), work)
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
            warn_long(work, what, eng)
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
                   unit="boards", enabled=wanted(progress, expected_seconds(work, eng)))
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
    >>> from gpu_eval import cards
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
        ``None`` or ``True``: exact, read from the shipped table of every heads-up preflop
        matchup (:mod:`gpu_eval.equity_engine.preflop_data`; well under a second for the whole table).
        ``False``: Monte Carlo.
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
    ('exact (table): 2,598,960 boards', 0.4605, 0.5395)
    >>> t = preflop_table(samples=1000, seed=0)  # the whole table, Monte Carlo
    >>> t.table.shape, t.method, bool(abs(t.cell("AA", "KK") - 0.82) < 0.03)
    ((169, 169), 'monte carlo: 1,000 sampled boards', True)
    """
    samples = check_options(exact, samples, seed)
    if table_applies(exact, samples, 2, 5, False, progress):  # cells from the shipped table
        backend_name = table_backend(backend)
        return preflop_table_result(cells, lambda pool, pairs, *_: table_pairs(
            pool, pairs, backend_name, matrix=False), backend_name)
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
            i, j = class_index(item[0]), class_index(item[1])
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
