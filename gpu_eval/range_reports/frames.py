"""pandas DataFrames and matplotlib pictures of range reports (the ``frames`` extra:
``pip install -e ".[frames]"`` in a clone); imported by the reports' ``to_frame()`` and ``plot()``
only, so ``import gpu_eval`` never needs pandas or matplotlib. Every ``plot`` draws on ``ax``
when given (else on a new figure) and returns the Axes; none calls ``plt.show()``."""

from __future__ import annotations

from typing import Any

import numpy as np

from gpu_eval.frames import axes, pandas_module

__all__ = ["side_frame", "report_frame", "street_frame", "boards_frame", "plot_report",
           "plot_street", "plot_boards"]

def side_frame(side) -> Any:
    """A row per combo of a :class:`~gpu_eval.range_reports.results.SideReport` (index: the
    combo): ``weight``, ``class``, one bool column per draw, ``straight_ranks``, ``outs``,
    ``nut_outs``, ``nut_rank``, ``strength`` and, against a range, ``equity``, ``win``,
    ``tie``, ``wins``, ``ties``, ``matchups``.

    Examples
    --------
    >>> import gpu_eval as ge
    >>> df = ge.range_report("QQ+", "AK", board="Kd7c2h").hero.to_frame()
    >>> df.loc["QsQh", "class"], int(df.loc["QsQh", "matchups"])
    ('pocket_pair_below_top_pair', 12)
    """
    pd = pandas_module()
    cols: dict[str, Any] = {"weight": np.asarray(side.weights), "class": side.class_names}
    for k in side.draw_kinds:
        cols[k.name] = side.has(k.name)
    for name in ("straight_ranks", "outs", "nut_outs", "nut_rank", "strength"):
        cols[name] = np.asarray(getattr(side, name))
    if side.equity is not None:
        for name in ("equity", "win", "tie", "wins", "ties", "matchups"):
            cols[name] = np.asarray(getattr(side, name))
    return pd.DataFrame(cols, index=pd.Index(side.hands, name="combo"))


def report_frame(r, kind: str, side: str) -> Any:
    """A :class:`~gpu_eval.range_reports.results.RangeReport` as a DataFrame (see its
    ``to_frame``)."""
    if side not in ("hero", "villain"):
        raise ValueError(f"side must be 'hero' or 'villain', got {side!r}")
    if kind == "combos":
        s = r.hero if side == "hero" else r.villain
        if s is None:
            raise ValueError("no villain range in this report")
        return side_frame(s)
    if kind not in ("classes", "draws"):
        raise ValueError(f"kind must be 'combos', 'classes' or 'draws', got {kind!r}")
    pd = pandas_module()
    t = r.class_table() if kind == "classes" else r.draw_table()
    key = "class" if kind == "classes" else "draw"
    names = t.pop(key)
    return pd.DataFrame(t, index=pd.Index(list(names), name=key))


def street_frame(s) -> Any:
    """A row per next card of a :class:`~gpu_eval.range_reports.results.StreetReport`: each
    range's equity and the hero's share of each class."""
    pd = pandas_module()
    cols: dict[str, Any] = {}
    if s.hero_equity is not None:
        cols["hero_equity"] = np.asarray(s.hero_equity)
        cols["villain_equity"] = np.asarray(s.villain_equity)
    if s.reports:
        names = [k.name for k in s.reports[0].hero.classes]
        shares = np.array([r.hero.class_table()["share"] for r in s.reports])
        for j, n in enumerate(names):
            cols[n] = shares[:, j]
    return pd.DataFrame(cols, index=pd.Index(list(s.cards), name="card"))


def boards_frame(b) -> Any:
    """A row per board of a :class:`~gpu_eval.range_reports.results.BoardsReport`: ``flops``,
    each range's equity and nut share, the textures, the hero's share of every class."""
    pd = pandas_module()
    cols: dict[str, Any] = {"flops": np.asarray(b.flops)}
    if b.hero_equity is not None:
        cols["hero_equity"] = np.asarray(b.hero_equity)
        cols["villain_equity"] = np.asarray(b.villain_equity)
        cols["matchup_weight"] = np.asarray(b.matchup_weight)
    cols["hero_nuts"] = np.asarray(b.hero_nuts)
    if b.villain_nuts is not None:
        cols["villain_nuts"] = np.asarray(b.villain_nuts)
    if len(b.boards):
        cols.update(b.texture())
    share = np.asarray(b.hero_share)
    for j, k in enumerate(b.classes):
        cols[k.name] = share[:, j]
    return pd.DataFrame(cols, index=pd.Index(list(b.boards), name="board"))


def plot_report(r, kind: str, *, ax=None, **kwargs) -> Any:
    """Class (or draw) bars of both ranges side by side, or their equity distributions."""
    if kind == "distribution":
        ax = axes(ax, (8.0, 4.5))
        for name, side in (("hero", r.hero), ("villain", r.villain)):
            if side is None or side.equity is None:
                continue
            e, p = side.distribution()
            ax.step(np.concatenate([[0], p]) * 100, np.concatenate([[e[0]], e]) * 100,
                    where="pre", label=f"{name}: {side.label}", **kwargs)
        ax.set_xlabel("share of the range (%)")
        ax.set_ylabel("equity (%)")
        ax.set_ylim(0, 100)
        ax.set_title(f"equity distribution on {r.board}")
        ax.legend()
        return ax
    if kind not in ("classes", "draws"):
        raise ValueError(f"kind must be 'classes', 'draws' or 'distribution', got {kind!r}")
    t = r.class_table() if kind == "classes" else r.draw_table()
    key = "class" if kind == "classes" else "draw"
    kinds = r.hero.classes if kind == "classes" else r.hero.draw_kinds
    labels = {k.name: k.label for k in kinds}
    shown = [i for i in range(len(t[key]))
             if t["hero_combos"][i] or ("villain_combos" in t and t["villain_combos"][i])]
    ax = axes(ax, (9.0, 4.5))
    x = np.arange(len(shown))
    sides = ["hero"] + (["villain"] if r.villain is not None else [])
    width = 0.8 / len(sides)
    for j, name in enumerate(sides):
        side = r.hero if name == "hero" else r.villain
        ax.bar(x + (j - (len(sides) - 1) / 2) * width, t[f"{name}_share"][shown] * 100, width,
               label=f"{name}: {side.label}", **kwargs)
    ax.set_xticks(x, [labels[t[key][i]] for i in shown], rotation=45, ha="right")
    ax.set_ylabel("share of the range (%)")
    ax.set_title(f"{'made hands' if kind == 'classes' else 'draws'} on {r.board}")
    ax.legend()
    return ax


def plot_street(s, *, ax=None, **kwargs) -> Any:
    """The hero's equity (or, without a villain, nut share) on each next card, as bars."""
    ax = axes(ax, (11.0, 4.0))
    x = np.arange(len(s.cards))
    if s.hero_equity is not None:
        ax.bar(x, np.asarray(s.hero_equity) * 100, **kwargs)
        ax.set_ylabel("hero equity (%)")
    else:
        nuts = [float(np.asarray(r.hero.weights)[np.asarray(r.hero.nut_rank) == 0].sum()
                      / r.hero.total_weight) for r in s.reports]
        ax.bar(x, np.array(nuts) * 100, **kwargs)
        ax.set_ylabel("hero's share holding the nuts (%)")
    ax.set_xticks(x, list(s.cards), rotation=90)
    ax.set_title(f"every {s.street} of {s.board}")
    return ax


def plot_boards(b, rows: str, columns: str, value: str, *, ax=None, **kwargs) -> Any:
    """A heat map of ``value`` by two texture keys (rows, columns)."""
    tex = b.texture()
    for k in (rows, columns):
        if k not in tex:
            raise ValueError(f"unknown texture {k!r}; known: {', '.join(tex)}")
    if value == "hero_equity":
        if b.hero_equity is None:
            raise ValueError("no equity: give a villain range")
        v, w = np.asarray(b.hero_equity), np.asarray(b.matchup_weight)
    else:
        names = [k.name for k in b.classes]
        if value not in names:
            raise ValueError(f"value must be 'hero_equity' or a class name, got {value!r}; "
                             f"classes: {', '.join(names)}")
        v, w = np.asarray(b.hero_share)[:, names.index(value)], np.asarray(b.flops, dtype=float)
    from gpu_eval.range_reports.boards import TEXTURES  # noqa: PLC0415

    rk = [x for x in TEXTURES[rows] if x in set(tex[rows])]
    ck = [x for x in TEXTURES[columns] if x in set(tex[columns])]
    if rows == "high card":
        rk = rk[::-1]
    grid = np.full((len(rk), len(ck)), np.nan)
    for i, a in enumerate(rk):
        for j, c in enumerate(ck):
            sel = (tex[rows] == a) & (tex[columns] == c) & ~np.isnan(v) & (w > 0)
            if sel.any():
                grid[i, j] = (w[sel] @ v[sel]) / w[sel].sum()
    ax = axes(ax, (6.0, 7.0))
    im = ax.imshow(grid * 100, aspect="auto", cmap=kwargs.pop("cmap", "RdYlGn"), **kwargs)
    ax.set_xticks(range(len(ck)), ck)
    ax.set_yticks(range(len(rk)), rk)
    ax.set_xlabel(columns)
    ax.set_ylabel(rows)
    for i in range(len(rk)):
        for j in range(len(ck)):
            if np.isfinite(grid[i, j]):
                ax.text(j, i, f"{100 * grid[i, j]:.0f}", ha="center", va="center", fontsize=8)
    ax.figure.colorbar(im, ax=ax, label=f"{value.replace('_', ' ')} (%)")
    ax.set_title(f"{b.labels[0]} vs {b.labels[1]}" if b.labels[1] else b.labels[0])
    return ax
