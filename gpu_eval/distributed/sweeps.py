"""Range against range on every flop, by suit-isomorphism class, on a cluster
(:func:`flop_sweep`; see :mod:`gpu_eval.distributed`)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np

from gpu_eval import cards, combinatorics
from gpu_eval.distributed import runner
from gpu_eval.equity_engine import enumerate_boards
from gpu_eval.equity_engine import problem as equity_problem
from gpu_eval.equity_engine import results as equity_results
from gpu_eval.equity_engine.holdem.shortcuts import combo_pair_grid, flush_free_ranks
from gpu_eval.equity_engine.holdem.strategies import engine_for
from gpu_eval.equity_engine.planner import backend_name
from gpu_eval.equity_engine.pots import pot_units
from gpu_eval.equity_engine.problem import CardsLike, PlayerLike, symmetry_group
from gpu_eval.equity_engine.results import read_only
from gpu_eval.suit_symmetry import canonical_masks

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from distributed import Client
    from matplotlib.axes import Axes

__all__ = ["flop_sweep", "FlopSweep"]


# ---------------------------------------------------------------------------------------------
# flop_sweep()
# ---------------------------------------------------------------------------------------------

@lru_cache(maxsize=1)
def _flop_classes() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(flops, class_of, canonical)``: the 22,100 flop masks in colex order, the index of
    each one's class, and each class's canonical mask (the smallest of its 24 suit images),
    classes sorted by rank (high cards first)."""
    flops = combinatorics.subset_masks(52, 3)
    canon = canonical_masks(flops)
    reps = np.unique(canon)
    ids = np.sort(_mask_ids(reps), axis=1)[:, ::-1]  # ranks high to low
    order = np.lexsort((reps, -(ids[:, 2] // 4), -(ids[:, 1] // 4), -(ids[:, 0] // 4)))
    reps = reps[order]
    class_of = _lookup(reps, canon)
    for a in (flops, class_of, reps):
        a.flags.writeable = False
    return flops, class_of, reps


def _lookup(keys: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Index in ``keys`` (distinct, any order) of each of ``values``."""
    order = np.argsort(keys)
    return order[np.searchsorted(keys, values, sorter=order)]


def _mask_ids(masks: np.ndarray) -> np.ndarray:
    """``(N, 3)`` card ids of 3-card masks, increasing."""
    bits = (masks[:, None] & cards.ID_TO_MASK[None, :]) != 0
    return np.nonzero(bits)[1].reshape(len(masks), -1).astype(np.uint8)


@dataclass(frozen=True)
class _SweepPlan:
    mask_a: np.ndarray
    weight_a: np.ndarray
    mask_b: np.ndarray
    weight_b: np.ndarray
    pair_a: np.ndarray  # compatible pairs (indices into A and B), before the flop
    pair_b: np.ndarray
    dead_mask: int
    flops: np.ndarray  # played flops (masks), grouped by class
    flop_index: np.ndarray  # their colex index among the 22,100 flops (Monte Carlo streams)
    mult: np.ndarray  # flops of the class each one stands for
    offsets: np.ndarray  # class c plays flops[offsets[c]:offsets[c + 1]]
    samples: int | None  # None: exact over turn and river
    entropy: int | None
    backend: str


# Elements (matchups x boards) per temporary array when NumPy counts a block of flops in one
# pass: a few MB, yet hundreds of flops per pass for a few matchups.
_ELEMS = 1 << 21


def _sweep_task(plan: _SweepPlan, c0: int, c1: int) -> tuple:
    """Classes ``c0 .. c1 - 1``: ``(num, den, units, showdowns, backends)`` per class.

    For each played flop F: ``den`` = total weight of the matchups that fit with F,
    ``num`` = their weighted equity sum, ``units`` = pot units won by A (2 per pot) summed
    over matchups and turn-river boards (or samples), ``showdowns`` = their number; each
    times the number of flops F stands for.
    """
    eng, name = engine_for(plan.backend)
    nc = c1 - c0
    num, den = np.zeros(nc), np.zeros(nc)
    units, shows = np.zeros(nc, np.int64), np.zeros(nc, np.int64)
    pm = plan.mask_a[plan.pair_a] | plan.mask_b[plan.pair_b]
    pw = plan.weight_a[plan.pair_a] * plan.weight_b[plan.pair_b]
    scale = pot_units(2)
    f0 = int(plan.offsets[c0])
    cls = np.repeat(np.arange(nc), np.diff(plan.offsets[c0:c1 + 1]))  # per flop of the span
    flops = plan.flops[f0:plan.offsets[c1]]
    dead = np.uint64(plan.dead_mask)
    live = np.flatnonzero((flops & dead) == 0)  # a flop holding a dead card is never dealt

    def add(f: int, w: np.ndarray, f_num: float, u: int, s: int) -> None:
        g, c = int(plan.mult[f0 + f]), cls[f]
        num[c] += g * f_num
        den[c] += g * float(w.sum())
        units[c] += g * u
        shows[c] += g * s

    if plan.samples is None:
        two = combinatorics.subset_masks(52, 2)
        two = two[(two & dead) == 0]  # the turn-river pairs, in colex order
        # On NumPy, where the engine would compare matchup by matchup anyway (too few or too
        # sparse for its (A combos, B combos) grid), a block of flops per pass: one engine call
        # per flop costs more in call overhead than in counting for a few matchups.
        batched = name == "numpy" and combo_pair_grid.plan(
            np.stack([plan.pair_a, plan.pair_b], axis=1)) is None
        block = max(1, _ELEMS // (len(pm) * math.comb(49 - plan.dead_mask.bit_count(), 2)))
        for lo in range(0, len(live), block):
            idx = live[lo:lo + block]
            fits, won, valid = (_block_counts if batched else _engine_counts)(
                eng, plan, pm, two, flops[idx])
            with np.errstate(invalid="ignore", divide="ignore"):
                e = won / (scale * valid.astype(np.float64))  # as Counts.equity()
            u = np.where(fits, won, 0).sum(axis=1)
            s = np.where(fits, valid, 0).sum(axis=1)
            for j, f in enumerate(idx.tolist()):
                k = fits[j]
                if k.any():  # else no matchup fits with this flop: weight 0
                    w = pw[k]
                    add(f, w, float(w @ e[j, k]), int(u[j]), int(s[j]))
        return num, den, units, shows, name
    assert plan.entropy is not None  # sampled: the plan has its seed
    for f in live.tolist():
        flop = flops[f]
        keep = (pm & flop) == 0
        if not keep.any():
            continue  # no matchup fits with this flop: weight 0
        ua, ub = np.unique(plan.pair_a[keep]), np.unique(plan.pair_b[keep])
        out = eng.sample_counts(
            [plan.mask_a[ua], plan.mask_b[ub]],
            [np.cumsum(plan.weight_a[ua]), np.cumsum(plan.weight_b[ub])],
            enumerate_boards.FULL_DECK & ~(int(flop) | plan.dead_mask), int(flop), 2,
            plan.samples, runner.block_seed(plan.entropy, int(plan.flop_index[f0 + f])))
        w = pw[keep]
        u = int(out[2][0])
        add(f, w, float(w.sum()) * u / (scale * plan.samples), u, plan.samples)
    return num, den, units, shows, name


def _engine_counts(eng: Any, plan: _SweepPlan, pm: np.ndarray, two: np.ndarray,
                   flops: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every matchup on every turn and river of each of ``flops`` (none holding a dead card),
    one ``eng.showdown_counts`` call per flop: ``(fits, A's pot units, valid boards)``,
    ``(flops, matchups)`` each (zero where a matchup does not fit with the flop)."""
    fits = (pm[None, :] & flops[:, None]) == 0
    won = np.zeros(fits.shape, np.int64)
    valid = np.zeros(fits.shape, np.int64)
    for j, flop in enumerate(flops):
        k = fits[j]
        if not k.any():
            continue
        pool, inv = np.unique(np.concatenate([plan.mask_a[plan.pair_a[k]],
                                              plan.mask_b[plan.pair_b[k]]]), return_inverse=True)
        # The completions of the deck, in colex order (a filter keeps the order).
        cnt = eng.showdown_counts(pool, inv.reshape(2, -1).T, two[(two & flop) == 0],
                                  base=int(flop))
        won[j, k] = cnt.wins[:, 0] * cnt.scale + cnt.units[:, 0]
        valid[j, k] = cnt.valid
    return fits, won, valid


def _block_counts(eng: Any, plan: _SweepPlan, pm: np.ndarray, two: np.ndarray,
                  flops: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_engine_counts` in one NumPy pass over all of ``flops`` (the same integers:
    each pool combo's strength on each flop's boards, 0 where they share a card, compared
    per matchup and counted per flop)."""
    del eng  # NumPy only
    fits = (pm[None, :] & flops[:, None]) == 0
    pool, inv = np.unique(np.concatenate([plan.mask_a[plan.pair_a], plan.mask_b[plan.pair_b]]),
                          return_inverse=True)
    # Each flop's boards in colex order: the same number of turn-river pairs avoid each flop.
    boards = (two[None, :] | flops[:, None])[(two[None, :] & flops[:, None]) == 0]
    st = flush_free_ranks.strengths(pool, boards)
    st[(pool[:, None] & boards[None, :]) != 0] = 0  # a board holding a hole card: excluded
    a, b = st[inv[:len(pm)]], st[inv[len(pm):]]
    va, vb = a != 0, b != 0
    shape = (len(pm), len(flops), -1)  # matchups x flops x boards

    def count(x: np.ndarray) -> np.ndarray:  # per matchup and flop, as (flops, matchups)
        return combo_pair_grid.popcount_rows(np.packbits(x.reshape(shape), axis=-1)).T

    wins = count((a > b) & vb)  # b valid and a > b: a valid too
    ties = count((a == b) & va)
    return fits, wins * pot_units(2) + ties * (pot_units(2) // 2), count(va & vb)


@dataclass(frozen=True, eq=False)
class FlopSweep:
    """Range A's equity against range B on each of the 1,755 flop classes (:func:`flop_sweep`).

    A flop class is a set of flops that a suit permutation maps onto each other (``AcKd7h``
    and ``AsKh7c`` are one class); each is shown by its canonical member.

    Attributes
    ----------
    labels : tuple of str
        Range A and range B as given.
    flops : tuple of str
        The 1,755 canonical flops, cards high to low (``"AcKd7h"``), sorted by rank.
    flop_ids : numpy.ndarray, shape (1755, 3)
        The same as card ids (high to low).
    weights : numpy.ndarray of int64
        Flops in each class (1 .. 24); sums to C(52, 3) = 22,100.
    matchup_weight : numpy.ndarray
        Over the flops F of the class, the total weight of the matchups that fit with F
        (for ranges of weight 1: the number of compatible (A combo, B combo) pairs).
    equity : numpy.ndarray
        A's equity on the class: over its flops, the matchup-weighted mean of the equity
        over the turn and river; NaN when no matchup fits.
    units, showdowns : numpy.ndarray of int64
        Unweighted integer totals over the class: pot units A wins (2 per pot, 1 per split)
        and showdowns played (exact: matchups x 990 turn-river boards each).
    overall : float
        ``sum(matchup_weight * equity) / sum(matchup_weight)``: equal to A's exact preflop
        equity against B (see :func:`flop_sweep`).
    exact : bool
    samples : int or None
        Monte Carlo: showdowns per played flop.
    seed, backend, method, dead
        As for :class:`gpu_eval.EquityResult`.
    """

    labels: tuple[str, str]
    flops: tuple[str, ...]
    flop_ids: np.ndarray
    weights: np.ndarray
    matchup_weight: np.ndarray
    equity: np.ndarray
    units: np.ndarray
    showdowns: np.ndarray
    overall: float
    exact: bool
    samples: int | None
    backend: str
    method: str
    seed: int | None = None
    dead: str = ""

    @property
    def ranks(self) -> np.ndarray:
        """``(1755, 3)`` ranks of each canonical flop, high to low (0 = deuce up to 12 = ace)."""
        return self.flop_ids // 4

    @property
    def suits(self) -> np.ndarray:
        """Distinct suits on each flop: 1 monotone, 2 two-tone, 3 rainbow."""
        s = self.flop_ids % 4
        return 1 + (s[:, 0] != s[:, 1]) + ((s[:, 2] != s[:, 0]) & (s[:, 2] != s[:, 1]))

    @property
    def texture(self) -> np.ndarray:
        """Each flop's texture: ``"trips"``, ``"paired"``, or ``"monotone"`` / ``"two-tone"``
        / ``"rainbow"`` for unpaired flops.

        Examples
        --------
        >>> s = flop_sweep(None, "AhKh", "QsQd")  # doctest: +SKIP
        >>> sorted(set(s.texture))  # doctest: +SKIP
        ['monotone', 'paired', 'rainbow', 'trips', 'two-tone']
        """
        r = self.ranks
        distinct = 1 + (r[:, 0] != r[:, 1]) + (r[:, 1] != r[:, 2])
        out = np.array(["monotone", "two-tone", "rainbow"], dtype=object)[self.suits - 1]
        out[distinct == 2] = "paired"
        out[distinct == 1] = "trips"
        return out

    def mean_by(self, key: np.ndarray) -> dict:
        """Matchup-weighted equity of the flops grouped by ``key`` (one label per flop).

        Examples
        --------
        >>> s.mean_by(s.texture)["monotone"]  # doctest: +SKIP
        0.35...
        """
        key = np.asarray(key)
        out = {}
        for k in dict.fromkeys(key.tolist()):
            sel = (key == k) & (self.matchup_weight > 0)
            w = self.matchup_weight[sel]
            out[k] = float(w @ self.equity[sel] / w.sum()) if w.sum() > 0 else float("nan")
        return out

    def to_frame(self) -> pd.DataFrame:
        """A pandas DataFrame, a row per flop class (needs the ``frames`` extra).

        Examples
        --------
        >>> flop_sweep(None, "AKs", "QQ").to_frame()["flops"].sum()   # doctest: +SKIP
        22100
        """
        from gpu_eval.frames import sweep_frame  # noqa: PLC0415 -- pandas only when asked for
        return sweep_frame(self)

    def plot(self, *, ax: Axes | None = None, **kwargs: Any) -> Axes:
        """A's equity by the flop's two highest ranks (:meth:`by_top_two`) as a 13 x 13
        heatmap; returns the matplotlib Axes.

        Examples
        --------
        >>> flop_sweep(None, "AKs", "QQ").plot()   # doctest: +SKIP
        <Axes: ...>
        """
        from gpu_eval.frames import plot_sweep  # noqa: PLC0415 -- matplotlib only when asked for
        return plot_sweep(self, ax=ax, **kwargs)

    def by_top_two(self) -> np.ndarray:
        """``(13, 13)`` matchup-weighted equity by the flop's highest rank (row) and
        second rank (column), ranks 0 = deuce up to 12 = ace; NaN above the diagonal.

        A paired flop whose pair is on top (``KKx``) sits on the diagonal.
        """
        r = self.ranks
        num = np.zeros((13, 13))
        den = np.zeros((13, 13))
        ok = self.matchup_weight > 0
        np.add.at(num, (r[ok, 0], r[ok, 1]), self.matchup_weight[ok] * self.equity[ok])
        np.add.at(den, (r[ok, 0], r[ok, 1]), self.matchup_weight[ok])
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(den > 0, num / den, np.nan)

    def __str__(self) -> str:
        """The method, the overall equity and the best and worst flops for A."""
        head = f"flop sweep, {self.method} ({self.backend})"
        if self.dead:
            head += f", dead {self.dead}"
        lines = [head, f"{self.labels[0]!r} vs {self.labels[1]!r}: "
                       f"{equity_results.pct(self.overall)} over {int(self.weights.sum()):,} flops "
                       f"in {len(self.flops):,} classes"]
        ok = np.flatnonzero(self.matchup_weight > 0)
        if len(ok):
            order = ok[np.argsort(self.equity[ok], kind="stable")]
            for what, i in (("worst", order[0]), ("best", order[-1])):
                lines.append(f"{what}: {self.flops[i]} {equity_results.pct(self.equity[i])}")
        return "\n".join(lines)


def flop_sweep(client: Client | None, range_a: PlayerLike, range_b: PlayerLike,
               dead: CardsLike = "", exact: bool = True, samples: int | None = None,
               seed: int | None = None, block_size: int | None = None,
               backend: str = "auto", progress: bool | None = False) -> FlopSweep:
    """Equity of range A against range B on every flop, by suit-isomorphism class.

    The 22,100 flops fall into 1,755 classes under the 24 permutations of suits. On each
    flop F, A's equity is taken over the matchups (A combo, B combo) that fit with F and
    the dead cards (card removal per flop) and over the turn and river (exact, 990 boards
    per matchup, by default). The flops of one class have the same equity when both ranges
    and the dead cards are suit-symmetric (``"AK"``, ``"QQ+"``); otherwise (``"AhKh"``)
    every flop is played, except that flops equal under the permutations that do keep the
    ranges are played once.

    The invariant: dealing a flop to a matchup is uniform over the C(R, 3) flops that avoid
    its cards, the same number for every matchup, so with ``W_F`` the total weight of the
    matchups that fit with flop F, A's preflop equity is
    ``sum_F W_F * equity_F / sum_F W_F`` -- the :attr:`FlopSweep.overall` returned here.
    Counted in integers, every 5-card board is the flop-plus-turn-river of 10 flops, so
    ``units.sum() == 10 * (2 * wins + ties)`` of A in the exact single-process preflop
    :func:`gpu_eval.equity` (unweighted totals over matchups), and
    ``showdowns.sum() == 10 * matchups * boards``.

    Parameters
    ----------
    client : distributed.Client or None
        The cluster (``None``: run the tasks here, one after another).
    range_a, range_b : str, Range or card ids
        Hands or ranges, as for :func:`gpu_eval.equity_matrix`.
    dead : str or array_like, optional
        Cards out of play (removed from both ranges and from every flop).
    exact : bool
        True (default): every turn and river. False: ``samples`` Monte Carlo showdowns per
        played flop, from the stream :func:`block_seed`
        ``(seed, colex index of the flop)``, so the answer depends on ``seed`` and ``samples`` only.
    samples : int, optional
        Monte Carlo showdowns per flop (default 10,000).
    seed : int, optional
        Seed for Monte Carlo.
    block_size : int, optional
        Flop classes per task (default: four tasks per worker thread, at least 1,755 / 256
        classes each); never changes the result.
    backend : {"auto", "numpy", "cuda"}
        Resolved by each task on its worker: ``"auto"`` its GPU when it has one, else NumPy.
    progress : bool or None
        Dask's progress bar (a widget in Jupyter, text in a terminal): ``True`` shows it;
        ``False`` (the default) and ``None`` do not.

    Returns
    -------
    FlopSweep
        Per class ``equity``, ``weights`` (flops per class), ``matchup_weight``,
        integer ``units`` / ``showdowns``, and the ``overall`` equity.

    Raises
    ------
    ValueError
        Bad range or card text, a card used twice, a range emptied by the dead cards, no
        compatible matchup (before any task is submitted).

    Examples
    --------
    >>> s = flop_sweep(None, "AKs", "QQ")
    >>> len(s.flops), int(s.weights.sum()), s.method
    (1755, 22100, 'exact: 24 matchups x 990 turn-river boards per flop')
    >>> from gpu_eval.equity_engine.api import equity
    >>> r = equity(["AKs", "QQ"])
    >>> bool(abs(s.overall - r.equity[0]) < 1e-12)
    True
    >>> int(s.units.sum()) == 10 * (2 * int(r.wins[0]) + int(r.ties[0]))
    True
    """
    if not isinstance(exact, bool):
        raise TypeError(f"exact must be True or False, got {exact!r}")
    samples = equity_problem.check_options(exact, samples, seed)
    runner.check_common(backend, progress, block_size)
    runner.check_client(client)
    prob = equity_problem.prepare([range_a, range_b], "", dead)
    pa, pb = prob.players
    ia, ib = np.nonzero((pa.masks[:, None] & pb.masks[None, :]) == 0)
    if len(ia) == 0:
        raise equity_problem.no_matchup_error(prob)
    group = symmetry_group(prob)

    # Played flops: one per orbit of the group that keeps the problem, inside each class.
    flops, class_of, reps = _flop_classes()
    gcanon = canonical_masks(flops, group)
    played, first, mult = np.unique(gcanon, return_index=True, return_counts=True)
    pclass = class_of[first]
    order = np.lexsort((played, pclass))
    played, first, mult, pclass = played[order], first[order], mult[order], pclass[order]
    offsets = np.searchsorted(pclass, np.arange(len(reps) + 1))
    n_samples = None
    entropy = None
    if not exact:
        n_samples = samples if samples is not None else 10_000
        entropy = equity_problem.entropy_of(seed)
    plan = _SweepPlan(pa.masks, pa.weights, pb.masks, pb.weights,
                      ia.astype(np.int32), ib.astype(np.int32), prob.dead_mask, played,
                      first, mult, offsets, n_samples, entropy, backend)
    n_cls = len(reps)
    per_task = int(block_size) if block_size is not None else max(
        -(-n_cls // 256), -(-n_cls // (4 * runner.threads(client))))
    spans = [(c, min(c + per_task, n_cls)) for c in range(0, n_cls, per_task)]
    parts = runner.run_tasks(client, _sweep_task, plan, spans, name="flop_sweep", progress=progress,
                 reduce=False)
    num = np.concatenate([p[0] for p in parts])
    den = np.concatenate([p[1] for p in parts])
    units = np.concatenate([p[2] for p in parts])
    shows = np.concatenate([p[3] for p in parts])
    with np.errstate(invalid="ignore", divide="ignore"):
        eq = np.where(den > 0, num / den, np.nan)
    overall = float(num.sum() / den.sum())
    ids = np.sort(_mask_ids(reps), axis=1)[:, ::-1].copy()
    texts = tuple(cards.format(ids))
    if exact:
        per = math.comb(52 - 7 - len(prob.dead), 2)
        method = (f"exact: {len(ia):,} matchup{'s' * (len(ia) != 1)} x {per:,} turn-river "
                  f"boards per flop")
    else:
        method = f"monte carlo: {n_samples:,} samples per flop"
    return FlopSweep(
        labels=(pa.label, pb.label), flops=texts, flop_ids=read_only(ids),
        weights=read_only(np.bincount(class_of, minlength=n_cls).astype(np.int64)),
        matchup_weight=read_only(den), equity=read_only(eq), units=read_only(units),
        showdowns=read_only(shows),
        overall=overall, exact=exact, samples=n_samples,
        backend=backend_name(frozenset(p[4] for p in parts)), method=method, seed=entropy,
        dead=equity_problem.cards_text(prob.dead) if prob.dead else "")
