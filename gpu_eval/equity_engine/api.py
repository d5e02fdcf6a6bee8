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
the shipped exact table of :mod:`gpu_eval.equity_engine.holdem.shipped_table` (the integer wins and ties of
each of
the 47,008 suit-isomorphism classes of combo pairs over all 1,712,304 boards): ``method``
then starts ``"exact (table)"``, and the counts are the same integers the engines give.

Otherwise preflop (no board card), the NumPy engine can count boards by *rank class* instead
(:mod:`gpu_eval.equity_engine.holdem.shortcuts.board_rank_classes`): a board matters through its suits
only where someone can make
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
:mod:`gpu_eval.equity_engine.holdem.numpy_engine`) from :mod:`gpu_eval.equity_engine.holdem.cuda_engine`:
identical exact counts;
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

import math
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from gpu_eval import ranges
from gpu_eval.array_interop import accepts_arrays
from gpu_eval.equity_engine import enumerate_boards
from gpu_eval.equity_engine.holdem.strategies import (
    symmetry_groups,
    table_applies,
    table_backend,
    table_counts,
    table_equity,
    table_pairs,
)
from gpu_eval.equity_engine.planner import Request, run_here
from gpu_eval.equity_engine.problem import (
    CardsLike,
    PlayerLike,
    as_range,
    board_and_dead,
    cards_text,
    check_options,
    mask_of,
)
from gpu_eval.equity_engine.results import (
    EquityResult,
    MatrixResult,
    PreflopTable,
    class_index,
    read_only,
)
from gpu_eval.equity_engine.strategies import plan
from gpu_eval.games import registry
from gpu_eval.games.registry import HOLDEM
from gpu_eval.suit_symmetry import SUIT_PERMS, canonical_pairs

__all__ = ["equity", "equity_matrix", "preflop_table", "matrix_result", "preflop_table_result",
           "symmetry_groups", "table_applies", "table_backend", "table_counts",
           "table_equity", "table_pairs", "pairs_request"]

@accepts_arrays("players", "board", "dead", host_only=True)
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
        ``None`` enumerates when that takes a few seconds at most, else samples: hold'em
        when the work (evaluations plus comparisons, divided by the number of suit
        permutations that leave the problem unchanged) is at most 3e8 on NumPy or 4e10 on a
        GPU, the other games by their own estimate of the same few seconds; ``result.method``
        says which ran. ``True`` always enumerates (with a warning when that is very long);
        ``False`` always samples.
    samples : int, optional
        Monte Carlo showdowns (default 1,000,000).
    seed : int, optional
        Seed for Monte Carlo; the same seed gives the same result on the same backend.
    game : str
        Every game with equity: ``"holdem"`` (default), ``"shortdeck"``, ``"shortdeck-triton"``,
        ``"omaha"``, ``"omaha5"``, ``"omaha6"``, ``"omaha-hilo"``, ``"omaha5-hilo"``,
        ``"courchevel"``, ``"courchevel-hilo"`` (a shared board), ``"stud"``,
        ``"stud-hilo"``, ``"razz"`` (each player's known cards, no board),
        ``"deuce-seven-draw"``, ``"badugi-draw"``, ``"five-card-draw"`` (the cards each
        player keeps). Hi/lo results add ``high``, ``low`` and ``scoop``. (The low hand
        evaluators ``"deuce-seven"``, ``"ace-five"`` and ``"badugi"`` are games of
        :func:`evaluate`; their equity is that of the draw games.)
    backend : {"auto", "numpy", "cuda"}
        ``"auto"`` (default): the GPU when CuPy imports and a CUDA device is present, else
        NumPy on every core; ``"numpy"`` or ``"cuda"`` force one (``"cuda"`` without a device
        raises ``RuntimeError``). Exact counts are the same integers on both; Monte Carlo
        draws differ between them.
    progress : bool or None
        Progress bar on stderr: ``None`` only for runs expected to take more than a few
        seconds, ``True`` always, ``False`` never.

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
    return run_here(plan(Request("equity", players, board, dead, exact, samples, seed, game,
                                 backend, progress)))


@accepts_arrays("range_a", "range_b", "board", "dead", host_only=True)
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
        Monte Carlo: boards sampled (default 20,000); every pair is played on those that
        avoid its cards (about 85% preflop).
    seed : int, optional
        Seed for Monte Carlo.
    backend : {"auto", "numpy", "cuda"}
        As for :func:`equity`: ``"auto"`` the GPU when one is usable, else NumPy.
    progress : bool or None
        Progress bar on stderr: ``None`` only for long runs, ``True`` always, ``False``
        never.

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

    def count_pairs(pool, pairs, deck, k, base, work):  # after validation: the planner's step
        return run_here(plan(pairs_request("equity_matrix", (pool, pairs, deck, k, base, work),
                                           exact, samples, seed, backend, progress)))

    return matrix_result(range_a, range_b, board, dead, count_pairs)


def pairs_request(what: str, pairs: tuple, exact: bool | None, samples: int | None,
                  seed: int | None, backend: str, progress: bool | None, *,
                  here: bool = True) -> Request:
    """The planner's request for one pair-counting step of :func:`equity_matrix` or
    :func:`preflop_table` (``pairs = (pool, pairs, deck, k, base, work)``).

    Examples
    --------
    >>> from gpu_eval.equity_engine.strategies import choose
    >>> empty = (np.zeros(0, np.uint64), np.zeros((0, 2), int), enumerate_boards.FULL_DECK,
    ...          5, 0, 0.0)
    >>> choose(pairs_request("preflop_table", empty, None, None, None, "auto", None)).name
    'shipped table'
    """
    return Request("pairs", exact=exact, samples=samples, seed=seed, backend=backend,
                   progress=progress, here=here, pairs=pairs, what=what)


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
    k = registry.get(HOLDEM).cards_to_come(len(b))
    n_boards = enumerate_boards.count(deck, k)
    per_pair = math.comb(bin(deck).count("1") - 4, k)
    work = (len(pool) + len(pairs)) * n_boards
    counts, n_used, method, entropy, backend_name, strategy = count_pairs(pool, pairs, deck, k,
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
        tie=read_only(tie), strategy=strategy)


# ---------------------------------------------------------------------------------------------
# preflop_table()
# ---------------------------------------------------------------------------------------------

_N_COMBOS = len(ranges.ALL_COMBOS)


@lru_cache(maxsize=1)
def _perm_table() -> np.ndarray:
    """``(24, 1326)``: combo row -> the row of the same combo with its suits permuted."""
    out = np.empty((len(SUIT_PERMS), _N_COMBOS), dtype=np.int32)
    cards_ = ranges.ALL_COMBOS.astype(np.int64)
    for i, perm in enumerate(SUIT_PERMS):
        p = np.array(perm)
        moved = 4 * (cards_ // 4) + p[cards_ % 4]
        out[i] = ranges.COMBO_INDEX[moved[:, 0], moved[:, 1]]
    out.flags.writeable = False
    return out


def preflop_table(exact: bool | None = None, samples: int | None = None,
                  seed: int | None = None, backend: str = "auto",
                  progress: bool | None = None,
                  cells: Sequence[tuple[str, str]] | None = None) -> PreflopTable:
    """The 169 x 169 heads-up preflop equity table of hand classes.

    Each cell is the mean equity over the compatible combo pairs of its two classes (every
    pair counted once: a cell is what ``equity([a, b])`` gives for the two class ranges).
    Pairs equal up to a permutation of suits have equal equity, and a pair and its swap have
    equities ``e`` and ``1 - e``, so only one pair per class is played (about 47k classes for
    the whole table, instead of 1.6 million ordered pairs); the lower triangle is one minus
    the upper one and the diagonal is 1/2 by symmetry.

    Parameters
    ----------
    exact : bool or None
        ``None`` or ``True``: exact, read from the table of every heads-up preflop matchup
        shipped in the package (well under a second for the whole table). ``False``: Monte
        Carlo.
    samples : int, optional
        Monte Carlo: boards sampled, shared by all pairs (default 20,000; each pair plays the
        ~85% that avoid its cards).
    seed : int, optional
        Seed for Monte Carlo.
    backend : {"auto", "numpy", "cuda"}
        As for :func:`equity`: ``"auto"`` the GPU when one is usable, else NumPy.
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

    def count_pairs(pool, pairs, deck, k, base, work):  # after the cells are validated
        return run_here(plan(pairs_request("preflop_table", (pool, pairs, deck, k, base, work),
                                           exact, samples, seed, backend, progress)))

    return preflop_table_result(cells, count_pairs, lambda pairs: plan(pairs_request(
        "preflop_table", pairs, exact, samples, seed, backend, progress)))


def preflop_table_result(cells: Sequence[tuple[str, str]] | None, count_pairs,
                         idle_plan) -> PreflopTable:
    """Select the cells, reduce combo pairs to suit-isomorphism classes, run one
    pair-counting step on the classes that must be played, and average back into cells.

    ``count_pairs`` is as for :func:`matrix_result`: an engine here, a cluster in
    ``gpu_eval.distributed``; when nothing needs playing, ``idle_plan(pairs)`` (the plan of
    no pair, not run) names the backend and strategy to report.
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
    n_used = method = entropy = backend_name = strategy = None
    if wanted_cells:
        key, flipped, symmetric = canonical_pairs(_perm_table(), ia, ib)
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
            counts, n_used, method, entropy, backend_name, strategy = count_pairs(
                pool, pairs, deck, 5, 0, work)
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
    if backend_name is None:  # nothing played
        idle = idle_plan((masks[:0], np.zeros((0, 2), np.intp), enumerate_boards.FULL_DECK, 5,
                          0, 0.0))
        backend_name, strategy = idle.backend, idle.strategy
    return PreflopTable(tuple(names), read_only(table), n_classes, n_used is None,
                        None if n_used is not None else 2_598_960, n_used, backend_name,
                        method, entropy, strategy=strategy)
