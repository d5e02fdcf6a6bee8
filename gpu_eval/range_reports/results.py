"""The result objects of :func:`gpu_eval.range_report`: one range on one board
(:class:`SideReport`), both ranges on one board (:class:`RangeReport`), one report per next
card (:class:`StreetReport`) and many boards (:class:`BoardsReport`).

Every array is read-only and in the range's combo order. Aggregates weigh each combo by its
range weight; a class's or draw's equity is matchup-weighted, as :func:`gpu_eval.equity` weighs
a range: ``sum(w * W * equity) / sum(w * W)`` over its combos, ``W`` the weight of the opponent
combos that fit with the combo.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from gpu_eval import cards
from gpu_eval.games import registry
from gpu_eval.range_reports.draws import DRAWS
from gpu_eval.range_reports.made_hands import Kind, classes_for, find_kind

__all__ = ["SideReport", "RangeReport", "StreetReport", "BoardsReport", "read_only",
           "range_equity", "EDGES"]

#: Default equity buckets: [0, 25%), [25%, 50%), [50%, 75%), [75%, 100%].
EDGES = (0.0, 0.25, 0.5, 0.75, 1.0)


def read_only(a):
    if a is None:
        return None
    a = np.asarray(a)
    a.flags.writeable = False
    return a


def range_equity(weights: np.ndarray, equity: np.ndarray, opp_weight: np.ndarray) -> float:
    """The matchup-weighted equity of combos: ``sum(w W e) / sum(w W)`` (NaN when no matchup)."""
    ww = weights * opp_weight
    ok = ww > 0
    tot = ww[ok].sum()
    return float((ww[ok] * equity[ok]).sum() / tot) if tot > 0 else float("nan")


@dataclass(frozen=True, eq=False)
class SideReport:
    """One range on one board: a row per combo that fits the board.

    Attributes
    ----------
    label : str
        The range as given.
    game : str
    combos : numpy.ndarray
        ``(N, h)`` uint8 card ids.
    weights : numpy.ndarray
        Each combo's weight in the range.
    strength : numpy.ndarray
        ``uint16`` strength of its best hand on the board (the game's scale).
    made : numpy.ndarray
        ``uint8`` made-hand class, an index into :attr:`classes` (0 the best).
    draws : numpy.ndarray
        ``uint16`` bits, bit ``i`` for draw ``i`` of :attr:`draw_kinds`.
    straight_ranks : numpy.ndarray
        How many ranks complete a straight (0 on the river).
    nut_rank : numpy.ndarray
        Distinct hand strengths on the board that beat the combo (0: the nuts).
    outs, nut_outs : numpy.ndarray
        Unseen cards that raise the made-hand class, and those that give the nuts (0 on the
        river).
    equity, win, tie : numpy.ndarray or None
        Against the other range: its exact equity, win and split probabilities (NaN where no
        opponent combo fits); None without an opponent.
    wins, ties, matchups : numpy.ndarray or None
        The integers of ``gpu_eval.equity([combo, other], board=..., exact=True)``: showdowns
        won and split, summed over the ``matchups`` opponent combos that fit, each on
        ``boards`` completions.
    opp_weight : numpy.ndarray or None
        The total weight of those opponent combos.
    boards : int or None
        Completions of the board each matchup is played on.

    Examples
    --------
    >>> import gpu_eval as ge
    >>> side = ge.range_report("QQ+", "AK", board="Kd7c2h").hero
    >>> side.hands[:2], side.class_names[:2], side.nut_rank[:2].tolist()
    (['AsAh', 'AsAd'], ['overpair', 'overpair'], [6, 6])
    """

    label: str
    game: str
    combos: np.ndarray
    weights: np.ndarray
    strength: np.ndarray
    made: np.ndarray
    draws: np.ndarray
    straight_ranks: np.ndarray
    nut_rank: np.ndarray
    outs: np.ndarray
    nut_outs: np.ndarray
    equity: np.ndarray | None = None
    win: np.ndarray | None = None
    tie: np.ndarray | None = None
    wins: np.ndarray | None = None
    ties: np.ndarray | None = None
    matchups: np.ndarray | None = None
    opp_weight: np.ndarray | None = None
    boards: int | None = None

    @property
    def classes(self) -> tuple[Kind, ...]:
        """The made-hand classes of the game, best first (what :attr:`made` indexes)."""
        return classes_for(registry.get(self.game))

    @property
    def draw_kinds(self) -> tuple[Kind, ...]:
        """The draws (what the bits of :attr:`draws` stand for)."""
        return DRAWS

    @property
    def hands(self) -> list[str]:
        """The combos as text."""
        if not len(self.combos):
            return []
        return cast(list[str], cards.format(np.asarray(self.combos)))  # (N, h) ids: N texts

    @property
    def class_names(self) -> list[str]:
        """Each combo's class name."""
        names = [k.name for k in self.classes]
        return [names[i] for i in np.asarray(self.made)]

    def has(self, draw: str) -> np.ndarray:
        """Whether each combo holds the draw named ``draw`` (bool array).

        Examples
        --------
        >>> import gpu_eval as ge
        >>> r = ge.range_report("AhKh, 7s6s", board="Qh7h2c")
        >>> r.hero.has("flush_draw").tolist()
        [True, False]
        """
        i = find_kind(draw, DRAWS, "draw")
        return (np.asarray(self.draws) >> i) & 1 == 1

    def select(self, made: str | list[str] | None = None, draw: str | list[str] | None = None
               ) -> np.ndarray:
        """Combos in any of the classes ``made`` and holding any of the draws ``draw``
        (bool array); ``ValueError`` naming an unknown class or draw.

        Examples
        --------
        >>> import gpu_eval as ge
        >>> r = ge.range_report("QQ+, AK", board="Kd7c2h")
        >>> int(r.hero.select(made="set").sum())
        3
        """
        keep = np.ones(len(self.combos), dtype=bool)
        if made is not None:
            names = [made] if isinstance(made, str) else _names(made, "made-hand class")
            ids = [find_kind(n, self.classes, "made-hand class") for n in names]
            keep &= np.isin(np.asarray(self.made), ids)
        if draw is not None:
            names = [draw] if isinstance(draw, str) else _names(draw, "draw")
            hit = np.zeros(len(keep), dtype=bool)
            for n in names:
                hit |= self.has(n)
            keep &= hit
        return keep

    @property
    def total_weight(self) -> float:
        return float(np.sum(self.weights))

    def _group(self, member: np.ndarray) -> tuple[int, float, float, float]:
        w = np.asarray(self.weights)
        n = int(member.sum())
        wt = float(w[member].sum())
        share = wt / self.total_weight if self.total_weight else float("nan")
        eq = float("nan")
        if self.equity is not None and n:
            eq = range_equity(w[member], np.asarray(self.equity)[member],
                              np.asarray(self.opp_weight)[member])
        return n, wt, share, eq

    def class_table(self) -> dict[str, np.ndarray]:
        """Per made-hand class (all of them, best first): ``combos``, ``weight``, ``share`` of
        the range's weight and matchup-weighted ``equity`` (NaN without an opponent).

        Examples
        --------
        >>> import gpu_eval as ge
        >>> t = ge.range_report("QQ+, AK", board="Kd7c2h").hero.class_table()
        >>> dict(zip(t["class"], t["combos"].tolist()))["overpair"]
        6
        """
        rows = [self._group(np.asarray(self.made) == i) for i in range(len(self.classes))]
        return _table("class", [k.name for k in self.classes], rows)

    def draw_table(self) -> dict[str, np.ndarray]:
        """Per draw: ``combos``, ``weight``, ``share`` and ``equity``, as :meth:`class_table`.

        Examples
        --------
        >>> import gpu_eval as ge
        >>> t = ge.range_report("AhKh, 7s6s", board="Qh7h2c").hero.draw_table()
        >>> dict(zip(t["draw"], t["combos"].tolist()))["nut_flush_draw"]
        1
        """
        rows = [self._group(self.has(k.name)) for k in DRAWS]
        return _table("draw", [k.name for k in DRAWS], rows)

    def distribution(self) -> tuple[np.ndarray, np.ndarray]:
        """The equity distribution: ``(equity, percentile)``, the combos' equities from the
        highest down and the share of the range's weight at or above each (the curve solver
        users read); combos without an opponent combo are left out.

        Examples
        --------
        >>> import gpu_eval as ge
        >>> e, p = ge.range_report("AA, 72o", "KK", board="Kd7c2h").hero.distribution()
        >>> bool(e[0] >= e[-1]), float(p[-1])
        (True, 1.0)
        """
        if self.equity is None:
            raise ValueError("no equity: give a villain range to range_report()")
        e = np.asarray(self.equity)
        ok = ~np.isnan(e)
        order = np.argsort(-e[ok], kind="stable")
        w = np.asarray(self.weights)[ok][order]
        return e[ok][order], np.cumsum(w) / w.sum()

    def buckets(self, edges=EDGES) -> dict[str, np.ndarray]:
        """Share of the range's weight (and combos) in each equity bucket ``[edges[i],
        edges[i + 1])``, the last one closed.

        Examples
        --------
        >>> import gpu_eval as ge
        >>> b = ge.range_report("AA, 72o", "KK", board="Kd7c2h").hero.buckets()
        >>> b["bucket"].tolist()[0], round(float(b["share"].sum()), 6)
        ('0-25%', 1.0)
        """
        if self.equity is None:
            raise ValueError("no equity: give a villain range to range_report()")
        edges = np.asarray(edges, dtype=np.float64)
        if edges.ndim != 1 or len(edges) < 2 or np.any(np.diff(edges) <= 0):
            raise ValueError(f"edges must be increasing, at least two of them, got {edges.tolist()}")
        e = np.asarray(self.equity)
        ok = ~np.isnan(e)
        idx = np.clip(np.searchsorted(edges, e[ok], side="right") - 1, 0, len(edges) - 2)
        inside = (e[ok] >= edges[0]) & (e[ok] <= edges[-1])
        w = np.asarray(self.weights)[ok]
        share = np.bincount(idx[inside], weights=w[inside], minlength=len(edges) - 1) / w.sum()
        combos = np.bincount(idx[inside], minlength=len(edges) - 1)
        labels = [f"{100 * a:g}-{100 * b:g}%" for a, b in zip(edges[:-1], edges[1:])]
        return {"bucket": np.array(labels, dtype=object), "combos": combos, "share": share}

    def to_frame(self):
        """A pandas DataFrame, a row per combo (needs the ``frames`` extra).

        Examples
        --------
        >>> import gpu_eval as ge
        >>> df = ge.range_report("QQ+", "AK", board="Kd7c2h").hero.to_frame()
        >>> df.loc["QsQh", "class"], int(df.loc["QsQh", "matchups"])   # doctest: +SKIP
        ('pocket_pair_below_top_pair', 12)
        """
        from gpu_eval.range_reports.frames import side_frame  # noqa: PLC0415 -- pandas on demand
        return side_frame(self)


def _names(value, what: str) -> list:
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"a {what} is named by text (or a list of names), got "
                        f"{type(value).__name__}: {value!r}")
    return list(value)


def _table(key: str, names: list[str], rows) -> dict[str, np.ndarray]:
    a = np.array(rows, dtype=np.float64).reshape(len(rows), 4)
    return {key: np.array(names, dtype=object), "combos": a[:, 0].astype(np.int64),
            "weight": a[:, 1], "share": a[:, 2], "equity": a[:, 3]}


@dataclass(frozen=True, eq=False)
class RangeReport:
    """Both ranges on one board (:func:`gpu_eval.range_report`).

    Attributes
    ----------
    game, board, dead : str
        The game and the known cards, as text.
    hero, villain : SideReport
        A row per combo of each range that fits the board (``villain`` None without one).
    equity : float or None
        The hero range's equity against the villain range (matchup-weighted, as
        ``gpu_eval.equity([hero, villain], board=board)``).
    method, backend : str
        How it was counted and where.

    Examples
    --------
    >>> import gpu_eval as ge
    >>> r = ge.range_report("QQ+", "AK", board="Kd7c2h")
    >>> r.board, len(r.hero.combos), len(r.villain.combos), round(r.equity, 4)
    ('Kd7c2h', 15, 12, 0.4234)
    """

    game: str
    board: str
    dead: str
    hero: SideReport
    villain: SideReport | None
    equity: float | None
    method: str
    backend: str

    def class_table(self) -> dict[str, np.ndarray]:
        """The class table of both ranges side by side: ``class``, ``hero_combos``,
        ``hero_share``, ``hero_equity`` and the same for ``villain``.

        Examples
        --------
        >>> import gpu_eval as ge
        >>> t = ge.range_report("QQ+", "AK", board="Kd7c2h").class_table()
        >>> sorted(t)[:3]
        ['class', 'hero_combos', 'hero_equity']
        """
        return _both(self, "class_table", "class")

    def draw_table(self) -> dict[str, np.ndarray]:
        """The draw table of both ranges side by side (as :meth:`class_table`).

        Examples
        --------
        >>> import gpu_eval as ge
        >>> t = ge.range_report("AhKh", "QQ", board="Qh7h2c").draw_table()
        >>> int(dict(zip(t["draw"], t["hero_combos"]))["flush_draw"])
        1
        """
        return _both(self, "draw_table", "draw")

    def to_frame(self, kind: str = "combos", side: str = "hero"):
        """A pandas DataFrame (needs the ``frames`` extra): ``kind="combos"`` a row per combo of
        ``side`` (``"hero"`` or ``"villain"``), ``"classes"`` or ``"draws"`` the tables of both
        ranges.

        Examples
        --------
        >>> import gpu_eval as ge
        >>> ge.range_report("QQ+", "AK", board="Kd7c2h").to_frame("classes").shape  # doctest: +SKIP
        (21, 7)
        """
        from gpu_eval.range_reports.frames import report_frame  # noqa: PLC0415
        return report_frame(self, kind, side)

    def plot(self, kind: str = "classes", *, ax=None, **kwargs):
        """``kind="classes"``: bars of each range's share per made-hand class, side by side;
        ``"draws"``: the same per draw; ``"distribution"``: both ranges' equity
        distributions. Returns the matplotlib Axes (needs the ``frames`` extra).

        Examples
        --------
        >>> import gpu_eval as ge
        >>> ge.range_report("QQ+", "AK", board="Kd7c2h").plot()   # doctest: +SKIP
        <Axes: ...>
        """
        from gpu_eval.range_reports.frames import plot_report  # noqa: PLC0415
        return plot_report(self, kind, ax=ax, **kwargs)

    def __str__(self) -> str:
        """The table a Flopzilla user reads: share of each range per class and draw, and
        their equity."""
        from gpu_eval.range_reports.text import report_text  # noqa: PLC0415
        return report_text(self)


def _both(r: RangeReport, table: str, key: str) -> dict[str, np.ndarray]:
    out: dict[str, np.ndarray] = {}
    for name, side in (("hero", r.hero), ("villain", r.villain)):
        if side is None:
            continue
        t = getattr(side, table)()
        out[key] = t[key]
        for col in ("combos", "weight", "share", "equity"):
            out[f"{name}_{col}"] = t[col]
    return out


@dataclass(frozen=True, eq=False)
class StreetReport:
    """A :class:`RangeReport` on each card that can come next (``street="turn"`` on a flop,
    ``"river"`` on a turn).

    Attributes
    ----------
    game, board, dead, street : str
        The game, the board the cards follow, the dead cards and which street.
    cards : tuple of str
        The next cards, in deck order.
    reports : tuple of RangeReport
        One per card (``report["As"]`` or ``report[i]`` reads one).
    hero_equity, villain_equity : numpy.ndarray or None
        Each range's equity on each next board.
    method, backend : str

    Examples
    --------
    >>> import gpu_eval as ge
    >>> s = ge.range_report("QQ+", "AK", board="Kd7c2hAs", street="river")
    >>> len(s), s.cards[0], s["2c"].board           # the board high cards first, then the card
    (48, '2c', 'AsKd7c2h2c')
    """

    game: str
    board: str
    dead: str
    street: str
    cards: tuple[str, ...]
    reports: tuple[RangeReport, ...]
    hero_equity: np.ndarray | None
    villain_equity: np.ndarray | None
    method: str
    backend: str

    def __len__(self) -> int:
        return len(self.cards)

    def __getitem__(self, key: int | str) -> RangeReport:
        """The report on one next card, by position or card text (``"As"``).

        Examples
        --------
        >>> import gpu_eval as ge
        >>> s = ge.range_report("QQ+", "AK", board="Kd7c2h", street="turn")
        >>> s["As"].board
        'Kd7c2hAs'
        """
        if isinstance(key, str):
            try:
                card = cards.format(cards.parse(key))
            except ValueError as e:
                raise KeyError(f"{key!r} is not a card: {e}") from None
            if card not in self.cards:
                raise KeyError(f"{card} is not a next card here (it is on the board or dead)")
            return self.reports[self.cards.index(card)]
        if isinstance(key, (bool, np.bool_)) or not isinstance(key, (int, np.integer)):
            raise TypeError(f"a street report is indexed by a position (an int) or a card's "
                            f"text such as 'As', got {type(key).__name__} {key!r}")
        n = len(self.reports)
        if not -n <= int(key) < n:
            raise IndexError(f"position {int(key)} is out of range: this report has {n} next "
                             f"cards (positions 0..{n - 1})")
        return self.reports[int(key)]

    def share(self, made: str | None = None, draw: str | None = None, side: str = "hero"
              ) -> np.ndarray:
        """Per next card, the share of ``side``'s weight in class ``made`` (or holding
        ``draw``).

        Examples
        --------
        >>> import gpu_eval as ge
        >>> s = ge.range_report("QQ+", "AK", board="Kd7c2h", street="turn")
        >>> round(float(s.share(made="set")[s.cards.index("Qc")]), 4)   # KK and QQ: 6 of 12
        0.5
        """
        if side not in ("hero", "villain"):
            raise ValueError(f"side must be 'hero' or 'villain', got {side!r}")
        out = []
        for r in self.reports:
            sd = r.hero if side == "hero" else r.villain
            if sd is None:
                raise ValueError("no villain range in this report")
            sel = sd.select(made=made, draw=draw)
            out.append(float(np.asarray(sd.weights)[sel].sum() / sd.total_weight))
        return np.array(out)

    def to_frame(self):
        """A pandas DataFrame, a row per next card: each range's equity and the hero's share
        of every class (needs the ``frames`` extra).

        Examples
        --------
        >>> import gpu_eval as ge
        >>> len(ge.range_report("QQ+", "AK", board="Kd7c2h", street="turn").to_frame())  # doctest: +SKIP
        49
        """
        from gpu_eval.range_reports.frames import street_frame  # noqa: PLC0415
        return street_frame(self)

    def plot(self, *, ax=None, **kwargs):
        """The hero's equity on each next card as bars (needs the ``frames`` extra).

        Examples
        --------
        >>> import gpu_eval as ge
        >>> ge.range_report("QQ+", "AK", board="Kd7c2h", street="turn").plot()  # doctest: +SKIP
        <Axes: ...>
        """
        from gpu_eval.range_reports.frames import plot_street  # noqa: PLC0415
        return plot_street(self, ax=ax, **kwargs)

    def __str__(self) -> str:
        from gpu_eval.range_reports.text import street_text  # noqa: PLC0415
        return street_text(self)


@dataclass(frozen=True, eq=False)
class BoardsReport:
    """Both ranges on many boards (``boards="flops"``: the 1,755 flop classes).

    Attributes
    ----------
    game, dead : str
    labels : tuple of str
        The hero and villain ranges as given.
    boards : tuple of str
        Each board (a flop class's canonical flop, cards high to low).
    board_ids : numpy.ndarray
        ``(B, k)`` the same as card ids, high to low (boards of fewer cards than the longest
        padded with 255).
    flops : numpy.ndarray
        How many boards each row stands for (a flop class: 1 .. 24; 22,100 in all).
    classes : tuple of Kind
    hero_share, villain_share : numpy.ndarray
        ``(B, classes)`` share of each range's weight (the combos that fit the board) per
        made-hand class.
    hero_draws, villain_draws : numpy.ndarray
        ``(B, draws)`` share per draw.
    hero_nuts, villain_nuts : numpy.ndarray
        Share holding the nuts (nut rank 0).
    hero_equity, villain_equity : numpy.ndarray or None
        Each range's equity on each board (matchup-weighted over the board's class).
    matchup_weight : numpy.ndarray or None
        Total weight of the (hero, villain) pairs that fit each board, times ``flops``.
    units, showdowns : numpy.ndarray or None
        Unweighted integer totals per row (times ``flops``): pot units the hero wins (2 per
        pot, 1 per split) and showdowns played, as :func:`gpu_eval.distributed.flop_sweep`.
    overall : float or None
        The hero's equity over every board, weighted by ``matchup_weight``: on every flop, the
        hero range's exact preflop equity.
    combos : dict or None
        With ``per_combo=True``: per range (``"hero"``, ``"villain"``) its combos and
        ``(B, N)`` arrays ``made``, ``draws``, ``nut_rank``, ``equity``, ``wins``, ``ties``,
        ``matchups`` (-1 / NaN where the combo touches the board).
    method, backend : str

    Examples
    --------
    >>> import gpu_eval as ge
    >>> b = ge.range_report("AKs", "QQ", boards=["AsKd7h", "7c7d2h"])
    >>> b.boards, b.flops.tolist(), [round(float(x), 4) for x in b.hero_equity]
    (('AsKd7h', '7d7c2h'), [1, 1], [0.9068, 0.2657])
    """

    game: str
    dead: str
    labels: tuple[str, str | None]
    boards: tuple[str, ...]
    board_ids: np.ndarray
    flops: np.ndarray
    hero_share: np.ndarray
    villain_share: np.ndarray | None
    hero_draws: np.ndarray
    villain_draws: np.ndarray | None
    hero_nuts: np.ndarray
    villain_nuts: np.ndarray | None
    hero_equity: np.ndarray | None
    villain_equity: np.ndarray | None
    matchup_weight: np.ndarray | None
    units: np.ndarray | None
    showdowns: np.ndarray | None
    overall: float | None
    method: str
    backend: str
    combos: dict[str, Any] | None = field(default=None)

    @property
    def classes(self) -> tuple[Kind, ...]:
        return classes_for(registry.get(self.game))

    def texture(self) -> dict[str, np.ndarray]:
        """Each board's textures: ``suits``, ``pairing``, ``connectedness``, ``high card``."""
        from gpu_eval.range_reports.boards import texture  # noqa: PLC0415
        return texture(cards.to_mask(list(self.boards)), registry.get(self.game))

    def by_texture(self, key: str | tuple[str, ...] = "suits") -> dict[str, np.ndarray]:
        """Aggregates over boards grouped by one or more texture keys: per group its boards
        (``flops`` summed), each range's equity (matchup-weighted) and hero class shares
        (board-weighted).

        Examples
        --------
        >>> import gpu_eval as ge
        >>> r = ge.range_report("AKs", "QQ", boards=["AsKd7h", "7c7d2h", "9s8s7s"])
        >>> r.by_texture("pairing")["group"].tolist()
        ['unpaired', 'paired']
        """
        keys = (key,) if isinstance(key, str) else tuple(key)
        tex = self.texture()
        for k in keys:
            if k not in tex:
                raise ValueError(f"unknown texture {k!r}; known: {', '.join(tex)}")
        labels = np.array([" / ".join(str(tex[k][i]) for k in keys) for i in range(len(self.boards))],
                          dtype=object)
        groups = list(dict.fromkeys(labels.tolist()))
        f = np.asarray(self.flops, dtype=np.float64)
        out: dict[str, list] = {"group": [], "flops": [], "hero_equity": [], "villain_equity": []}
        shares = []
        for g in groups:
            sel = labels == g
            out["group"].append(g)
            out["flops"].append(int(f[sel].sum()))
            if self.matchup_weight is not None:
                mw = np.asarray(self.matchup_weight)[sel]
                ok = mw > 0
                he = np.asarray(self.hero_equity)[sel][ok]
                out["hero_equity"].append(float(mw[ok] @ he / mw[ok].sum()) if ok.any()
                                          else float("nan"))
                out["villain_equity"].append(1.0 - out["hero_equity"][-1])
            else:
                out["hero_equity"].append(float("nan"))
                out["villain_equity"].append(float("nan"))
            shares.append(f[sel] @ np.asarray(self.hero_share)[sel] / f[sel].sum())
        res = {k: np.array(v, dtype=object if k == "group" else None) for k, v in out.items()}
        res["hero_share"] = np.array(shares)
        return res

    def to_frame(self):
        """A pandas DataFrame, a row per board: flops, each range's equity, nut share, the
        textures and the hero's share of every class (needs the ``frames`` extra).

        Examples
        --------
        >>> import gpu_eval as ge
        >>> ge.range_report("AKs", "QQ", boards="flops").to_frame()["flops"].sum()  # doctest: +SKIP
        22100
        """
        from gpu_eval.range_reports.frames import boards_frame  # noqa: PLC0415
        return boards_frame(self)

    def plot(self, rows: str = "high card", columns: str = "suits", value: str = "hero_equity",
             *, ax=None, **kwargs):
        """A heat map of ``value`` (``"hero_equity"``, or a class name for the hero's share of
        it) by two texture keys; returns the matplotlib Axes (needs the ``frames`` extra).

        Examples
        --------
        >>> import gpu_eval as ge
        >>> ge.range_report("AKs", "QQ", boards="flops").plot()   # doctest: +SKIP
        <Axes: ...>
        """
        from gpu_eval.range_reports.frames import plot_boards  # noqa: PLC0415
        return plot_boards(self, rows, columns, value, ax=ax, **kwargs)

    def __str__(self) -> str:
        from gpu_eval.range_reports.text import boards_text  # noqa: PLC0415
        return boards_text(self)
