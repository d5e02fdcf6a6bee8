"""pandas DataFrames and matplotlib pictures of results, for notebooks.

The result classes call these from their ``to_frame()`` and ``plot()`` methods
(:class:`gpu_eval.EquityResult`, :class:`gpu_eval.MatrixResult`,
:class:`gpu_eval.PreflopTable`, :class:`gpu_eval.distributed.FlopSweep`). pandas and
matplotlib are an optional extra, ``pip install -e ".[frames]"`` in a clone; they are imported
here on first use only, so ``import gpu_eval`` never needs them.

Every ``plot`` draws on ``ax`` when given (else on a new figure) and returns the matplotlib
``Axes``; it never calls ``plt.show()``.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

__all__ = ["EXTRA", "GRID", "equity_frame", "matrix_frame", "plot_grid", "plot_matrix",
           "plot_preflop", "plot_sweep", "preflop_frame", "preflop_grid", "sweep_frame"]

#: The extra that installs what this module needs.
EXTRA = "frames"
RANKS_HIGH_FIRST = "AKQJT98765432"


def pandas_module():
    """pandas, imported on first use; a clear error naming the extra without it."""
    try:
        import pandas  # noqa: PLC0415 -- optional, imported on first use
    except ImportError as e:
        raise ImportError(f"to_frame() needs pandas, which is not installed: "
                          f"pip install pandas (part of the extra gpu-eval[{EXTRA}])") from e
    return pandas


def axes(ax, figsize: tuple[float, float]):
    """``ax``, or the axes of a new figure; a clear error without matplotlib."""
    try:
        import matplotlib  # noqa: PLC0415, F401 -- optional, imported on first use
    except ImportError as e:
        raise ImportError(f"plot() needs matplotlib, which is not installed: "
                          f"pip install matplotlib (part of the extra gpu-eval[{EXTRA}])") from e
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt  # noqa: PLC0415
    return plt.subplots(figsize=figsize)[1]


# --- DataFrames ------------------------------------------------------------------------------

def equity_frame(r) -> Any:
    """A row per player of an :class:`~gpu_eval.EquityResult` (index ``player``, from 1).

    Columns: ``hand``, ``equity``, ``win``, ``tie``, ``tie_share``, ``stderr``, ``wins``,
    ``ties``; for hi/lo games also ``high``, ``low`` and ``scoop``.

    Examples
    --------
    >>> import gpu_eval as ge
    >>> df = ge.equity(["AhKh", "QsQd"]).to_frame()
    >>> df.columns.tolist()
    ['hand', 'equity', 'win', 'tie', 'tie_share', 'stderr', 'wins', 'ties']
    >>> int(df.loc[1, "wins"]), round(float(df.loc[2, "tie"]), 6)
    (787966, 0.003932)
    """
    pd = pandas_module()
    index = pd.RangeIndex(1, len(r.labels) + 1, name="player")
    columns = {"hand": list(r.labels), "equity": r.equity, "win": r.win, "tie": r.tie,
               "tie_share": r.tie_share, "stderr": r.stderr, "wins": r.wins, "ties": r.ties}
    if getattr(r, "high", None) is not None:  # hi/lo: the pot won through each half
        columns.update(high=r.high, low=r.low, scoop=r.scoop)
    return pd.DataFrame(columns, index=index)


def matrix_frame(m, values: str = "matrix") -> Any:
    """Combos of A (rows) by combos of B (columns) of a :class:`~gpu_eval.MatrixResult`.

    ``values`` is ``"matrix"`` (equity, the default), ``"win"`` or ``"tie"``; NaN where
    two combos share a card. The axes are named after the two ranges.

    Examples
    --------
    >>> import gpu_eval as ge
    >>> df = ge.equity_matrix("AhKh", "QQ", board="Qc 7d 2h").to_frame()
    >>> df.shape, df.columns.tolist(), round(float(df.loc["AhKh", "QsQd"]), 4)
    ((1, 3), ['QsQh', 'QsQd', 'QhQd'], 0.0434)
    """
    if values not in ("matrix", "win", "tie"):
        raise ValueError(f"values must be 'matrix', 'win' or 'tie', got {values!r}")
    pd = pandas_module()
    index = pd.Index(list(m.combos_a), name=m.labels[0])
    columns = pd.Index(list(m.combos_b), name=m.labels[1])
    return pd.DataFrame(np.array(getattr(m, values)), index=index, columns=columns)


def preflop_frame(t) -> Any:
    """The 169 x 169 table of a :class:`~gpu_eval.PreflopTable`, rows and columns labelled by
    class (``"AA"``, ``"AKs"``, ...): ``df.loc["AKs", "QQ"]`` is AKs's equity against QQ.

    Examples
    --------
    >>> import gpu_eval as ge
    >>> df = ge.preflop_table(cells=[("AA", "KK")]).to_frame()
    >>> df.shape, round(float(df.loc["AA", "KK"]), 4)
    ((169, 169), 0.8195)
    """
    pd = pandas_module()
    labels = list(t.labels)
    return pd.DataFrame(np.array(t.table), index=pd.Index(labels, name="class"),
                        columns=pd.Index(labels, name="opponent"))


def sweep_frame(s) -> Any:
    """A row per flop class of a :class:`~gpu_eval.distributed.FlopSweep` (index ``flop``).

    Columns: ``equity``, ``flops`` (flops in the class), ``matchup_weight``, ``units``,
    ``showdowns``, ``texture``, ``high`` and ``second`` (the two highest flop ranks as text).

    Examples
    --------
    >>> import gpu_eval.distributed as ged
    >>> df = ged.flop_sweep(None, "AKs", "QQ").to_frame()   # doctest: +SKIP
    >>> len(df), int(df["flops"].sum())                        # doctest: +SKIP
    (1755, 22100)
    """
    pd = pandas_module()
    names = np.array(list("23456789TJQKA"))
    r = s.ranks
    return pd.DataFrame({"equity": s.equity, "flops": s.weights,
                         "matchup_weight": s.matchup_weight, "units": s.units,
                         "showdowns": s.showdowns, "texture": s.texture,
                         "high": names[r[:, 0]], "second": names[r[:, 1]]},
                        index=pd.Index(list(s.flops), name="flop"))


# --- the 13 x 13 grid of hand classes --------------------------------------------------------

def _grid_name(i: int, j: int) -> str:
    """Row i, column j of the grid (aces first): pairs on the diagonal, suited above it."""
    if i == j:
        return RANKS_HIGH_FIRST[i] * 2
    hi, lo = min(i, j), max(i, j)
    return RANKS_HIGH_FIRST[hi] + RANKS_HIGH_FIRST[lo] + ("s" if i < j else "o")


GRID = tuple(tuple(_grid_name(i, j) for j in range(13)) for i in range(13))


@cache
def _pair_counts(labels: tuple[str, ...]) -> np.ndarray:
    """``n[i, j]``: combo pairs of classes ``labels[i]``, ``labels[j]`` sharing no card."""
    from gpu_eval.ranges import Range  # noqa: PLC0415 -- keeps this module's import light
    masks = [Range(name).masks for name in labels]  # a class has 4, 6 or 12 combos: none empty
    allm = np.concatenate(masks)
    fits = ((allm[:, None] & allm[None, :]) == 0).astype(np.int64)
    # The combos come class by class: summing each class's block of rows, then of columns,
    # gives the counts (an integer matmul with a one-hot matrix did the same, 100x slower).
    starts = np.cumsum([0] + [len(m) for m in masks[:-1]])
    out = np.add.reduceat(np.add.reduceat(fits, starts, axis=0), starts, axis=1)
    out.flags.writeable = False
    return out


def _opponent_weights(labels: tuple[str, ...], opponent: str | None) -> np.ndarray:
    """Weight of each class in ``opponent`` (None: every class, i.e. a random hand)."""
    if opponent is None:
        return np.ones(len(labels))
    from gpu_eval.ranges import Range  # noqa: PLC0415 -- keeps this module's import light
    r = Range(opponent)
    index = {name: k for k, name in enumerate(labels)}
    per_combo: dict[str, list[float]] = {}
    for hand, w in zip(r.hands(), r.weights.tolist()):
        per_combo.setdefault(_class_of(hand), []).append(w)
    out = np.zeros(len(labels))
    for name, ws in per_combo.items():
        full = 6 if name[0] == name[1] else 4 if name.endswith("s") else 12
        if len(ws) != full or min(ws) != max(ws):
            raise ValueError(f"opponent {opponent!r}: the table holds whole hand classes, but "
                             f"this range has {len(ws)} of the {full} {name} combos"
                             f"{'' if len(ws) != full else ' with different weights'}; use "
                             f"classes such as 'QQ+, AKs' (or gpu_eval.equity for this range)")
        out[index[name]] = ws[0]
    return out


def preflop_grid(t, opponent: str | None = None) -> np.ndarray:
    """``(13, 13)`` equities of the hand classes of a :class:`~gpu_eval.PreflopTable`, laid
    out as the usual grid (aces first; pairs on the diagonal, suited above, offsuit below).

    ``opponent`` is a class (``"QQ"``), a range of whole classes (``"QQ+, AKs"``, weights
    allowed: ``"KK, 0.5(AKs)"``) or ``None`` for a random hand. A class's equity against it
    is the mean of the class's cells over the opponent's classes, weighted by their weights
    and by the combo pairs that share no card: what :func:`gpu_eval.equity` gives for the
    class against that range (exactly, for an exact table). A class missing any of the
    cells it needs is NaN.

    Examples
    --------
    >>> import gpu_eval as ge
    >>> t = ge.preflop_table(cells=[("AA", "KK"), ("KK", "AA")])
    >>> g = preflop_grid(t, opponent="KK")
    >>> round(float(g[0, 0]), 4), bool(np.isnan(g[1, 1]))   # AA vs KK; KK vs KK not computed
    (0.8195, True)
    """
    labels = tuple(t.labels)
    table = np.asarray(t.table)
    w = _opponent_weights(labels, opponent)[None, :] * _pair_counts(labels)
    with np.errstate(invalid="ignore", divide="ignore"):
        per_class = (w * np.nan_to_num(table)).sum(axis=1) / w.sum(axis=1)
    per_class[((w > 0) & np.isnan(table)).any(axis=1)] = np.nan
    index = {name: k for k, name in enumerate(labels)}
    return np.array([[per_class[index[name]] for name in row] for row in GRID])


# --- pictures --------------------------------------------------------------------------------

def plot_grid(grid, *, ax=None, title: str = "", annotate: bool = True, cmap: str = "RdYlGn",
              vmin: float | None = None, vmax: float | None = None, label: str = "equity (%)"):
    """Draw 13 x 13 values of the hand classes (fractions, shown in %) as the usual grid:
    aces first, pairs on the diagonal, suited above, offsuit below (:data:`GRID` names the
    cells). ``vmin`` / ``vmax``: the colour scale in %; by default the data's range, widened
    to multiples of 5. Returns the Axes.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> ax = plot_grid(np.full((13, 13), 0.5), title="even")
    >>> ax.texts[0].get_text()
    'AA\\n50.0'
    """
    grid = np.asarray(grid, dtype=np.float64)
    if grid.shape != (13, 13):
        raise ValueError(f"grid must have shape (13, 13), got {grid.shape}")
    ax = axes(ax, (9.5, 8.5))
    if np.isfinite(grid).any():
        vmin = np.floor(np.nanmin(grid) * 20) * 5 if vmin is None else vmin
        vmax = np.ceil(np.nanmax(grid) * 20) * 5 if vmax is None else vmax
    im = ax.imshow(grid * 100, cmap=cmap, vmin=vmin, vmax=vmax)
    if annotate:
        for i, j in np.ndindex(13, 13):
            value = "" if np.isnan(grid[i, j]) else f"\n{grid[i, j] * 100:.1f}"
            ax.text(j, i, GRID[i][j] + value, ha="center", va="center", fontsize=7)
    ax.set_xticks(range(13), list(RANKS_HIGH_FIRST))
    ax.set_yticks(range(13), list(RANKS_HIGH_FIRST))
    ax.tick_params(top=True, labeltop=True, bottom=False, labelbottom=False)
    ax.set_title(title)
    ax.figure.colorbar(im, ax=ax, shrink=0.8, label=label)
    return ax


def plot_preflop(t, opponent: str | None = None, *, ax=None, **kwargs):
    """The 13 x 13 grid of :func:`preflop_grid` as a heatmap (equity in %); returns the Axes.
    ``kwargs`` go to :func:`plot_grid` (``title``, ``cmap``, ``annotate``, ``vmin``, ...).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import gpu_eval as ge
    >>> ax = ge.preflop_table(cells=[("AA", "KK")]).plot(opponent="KK")
    >>> ax.get_title()
    "each class vs 'KK' (exact (table): 2,598,960 boards)"
    """
    kwargs.setdefault("title", f"each class vs {opponent or 'a random hand'!r} ({t.method})")
    return plot_grid(preflop_grid(t, opponent), ax=ax, **kwargs)


def _class_of(combo: str) -> str:
    """'AhKh' -> 'AKs', 'QsQd' -> 'QQ', 'Kd9c' -> 'K9o'."""
    r1, s1, r2, s2 = list(combo)
    if r1 == r2:
        return r1 + r2
    hi, lo = sorted((r1, r2), key=RANKS_HIGH_FIRST.index)
    return hi + lo + ("s" if s1 == s2 else "o")


@cache
def _class_rank() -> dict[str, int]:
    """Class order of :class:`~gpu_eval.PreflopTable`: AA, AKs, AKo, AQs, ..., 32o, 22."""
    names = (a + b + s for a in RANKS_HIGH_FIRST for b in RANKS_HIGH_FIRST for s in ("", "s", "o"))
    return {name: k for k, name in enumerate(names)}


def _by_class(combos) -> tuple[np.ndarray, list[str]]:
    """Combo order grouping each hand class (grid order), and the class of each position."""
    classes = [_class_of(c) for c in combos]
    rank = _class_rank()
    order = sorted(range(len(combos)), key=lambda k: (rank[classes[k]], k))
    return np.array(order, dtype=np.int64), [classes[k] for k in order]


def _class_ticks(ax, axis: str, classes: list[str]) -> None:
    starts = [k for k in range(len(classes)) if k == 0 or classes[k] != classes[k - 1]]
    mids = [(a + b - 1) / 2 for a, b in zip(starts, starts[1:] + [len(classes)])]
    names = [classes[a] for a in starts]
    line = ax.axvline if axis == "x" else ax.axhline
    if axis == "x":
        ax.set_xticks(mids, names, rotation=90)
    else:
        ax.set_yticks(mids, names)
    for a in starts[1:]:
        line(a - 0.5, color="k", lw=0.6)


def plot_matrix(m, values: str = "matrix", *, ax=None, cmap: str = "RdBu"):
    """A :class:`~gpu_eval.MatrixResult` as a heatmap, combos grouped by hand class (ticks
    name the classes); ``values`` as in :func:`matrix_frame`. Returns the Axes.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import gpu_eval as ge
    >>> ax = ge.equity_matrix("AA", "KK, AKs", board="Kd 7c 2h").plot()
    >>> ax.get_xlabel(), ax.get_ylabel()
    ('KK, AKs', 'AA')
    """
    if values not in ("matrix", "win", "tie"):
        raise ValueError(f"values must be 'matrix', 'win' or 'tie', got {values!r}")
    data = getattr(m, values)
    ra, ca = _by_class(m.combos_a)
    rb, cb = _by_class(m.combos_b)
    ax = axes(ax, (10, 6))
    im = ax.imshow(np.asarray(data)[np.ix_(ra, rb)] * 100, cmap=cmap, vmin=0, vmax=100,
                   aspect="auto", interpolation="nearest")
    _class_ticks(ax, "x", cb)
    _class_ticks(ax, "y", ca)
    ax.set_xlabel(m.labels[1])
    ax.set_ylabel(m.labels[0])
    what = {"matrix": "equity", "win": "win", "tie": "tie"}[values]
    ax.set_title(f"{m.labels[0]!r} vs {m.labels[1]!r}\n{what} (%), {m.method}", fontsize=10)
    ax.figure.colorbar(im, ax=ax, label=f"row combo's {what} (%)")
    return ax


def plot_sweep(s, *, ax=None, annotate: bool = True, cmap: str = "RdYlGn"):
    """A :class:`~gpu_eval.distributed.FlopSweep` as a 13 x 13 heatmap of A's equity by the
    flop's highest (rows) and second-highest (columns) rank, aces first. Returns the Axes.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import gpu_eval.distributed as ged
    >>> ax = ged.flop_sweep(None, "AKs", "QQ").plot()   # doctest: +SKIP
    """
    grid = s.by_top_two()[::-1, ::-1]
    ax = axes(ax, (7.5, 6.5))
    im = ax.imshow(grid, cmap=cmap, vmin=0, vmax=1)
    if annotate:
        for i, j in np.ndindex(13, 13):
            if not np.isnan(grid[i, j]):
                ax.text(j, i, f"{100 * grid[i, j]:.0f}", ha="center", va="center", fontsize=7)
    ax.set_xticks(range(13), list(RANKS_HIGH_FIRST))
    ax.set_yticks(range(13), list(RANKS_HIGH_FIRST))
    ax.set_xlabel("second-highest flop card")
    ax.set_ylabel("highest flop card")
    ax.set_title(f"{s.labels[0]!r} vs {s.labels[1]!r}: equity (%) of {s.labels[0]!r} by flop")
    ax.figure.colorbar(im, ax=ax, shrink=0.8, label="equity")
    return ax
