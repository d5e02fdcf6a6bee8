"""The result types of equity work (:class:`EquityResult`, :class:`MatrixResult`,
:class:`PreflopTable`) and the two builders every engine's integer counts go through:
:func:`exact_result` and :func:`sampled_result`.
"""

from __future__ import annotations

import math
from dataclasses import MISSING, dataclass, field, fields
from typing import TYPE_CHECKING, Any

import numpy as np

from gpu_eval import ranges
from gpu_eval.equity_engine.pots import pot_units

if TYPE_CHECKING:  # pragma: no cover -- the frames extra, imported when used
    import pandas as pd
    from matplotlib.axes import Axes

__all__ = ["EquityResult", "MatrixResult", "PreflopTable", "exact_result", "sampled_result",
           "spot_result", "built", "read_only", "pct", "class_index"]

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
    high, low, scoop : numpy.ndarray or None
        Hi/lo games only (None otherwise): the pot share won through the high and the low
        half (``equity == high + low``) and the probability of scooping the whole pot.
    strategy : str
        The strategy that answered (the planner picks the cheapest that applies):
        ``"shipped table"``, ``"known hands"``, ``"two ranges"``, ``"board enumeration"``,
        ``"rank classes"``, ``"monte carlo"``, ``"game board enumeration"``,
        ``"game monte carlo"``, ``"deal enumeration"``, ``"deal monte carlo"``.
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
    # Hi/lo games only (None otherwise): see high, low, scoop above.
    high: np.ndarray | None = None
    low: np.ndarray | None = None
    scoop: np.ndarray | None = None
    strategy: str = ""

    if not TYPE_CHECKING:  # hidden from mypy, which keeps checking attribute names
        def __getattr__(self, name: str) -> Any:
            # Reached only for an attribute not set: the arrays a spot_result works out
            # from its counts on first read (once; a second thread finds them set).
            d = self.__dict__
            spot = d.get("_spot")
            if spot is not None and name in _SPOT_ARRAYS:
                d.update(_spot_arrays(*spot))
                d.pop("_spot", None)
            if name in _SPOT_ARRAYS and name in d:
                return d[name]
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __str__(self) -> str:
        """A table: one row per player with equity, win and tie (split-pot) probabilities.

        Examples
        --------
        >>> import gpu_eval as ge
        >>> print(ge.equity(["AhKh", "QsQd"]))  # doctest: +NORMALIZE_WHITESPACE
        exact (table): 1,712,304 boards (numpy)
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
        >>> import gpu_eval as ge
        >>> d = ge.equity(["AhKh", "QsQd"], board="2c7d9s").to_dict()
        >>> d["labels"], d["wins"], d["boards"]
        (['AhKh', 'QsQd'], [237, 753], 990)
        """
        out: dict[str, Any] = {}
        for name in self.__dataclass_fields__:
            v = getattr(self, name)
            out[name] = v.tolist() if isinstance(v, np.ndarray) else (
                list(v) if isinstance(v, tuple) else v)
        return out

    def to_frame(self) -> pd.DataFrame:
        """A pandas DataFrame, a row per player (needs the ``frames`` extra).

        Examples
        --------
        >>> import gpu_eval as ge
        >>> ge.equity(["AhKh", "QsQd"]).to_frame().loc[1, "wins"]   # doctest: +SKIP
        787966
        """
        from gpu_eval.frames import equity_frame  # noqa: PLC0415 -- pandas only when asked for
        return equity_frame(self)


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
                        samples=None, matchups=m, wins=read_only(_column_sums(wins)),
                        ties=read_only(_column_sums(ties)), method=method, **common)


def _column_sums(x: np.ndarray) -> np.ndarray:
    """``x.sum(axis=0)`` of a tall, narrow integer array, summed along contiguous rows of its
    transpose: a tenth of the time for thousands of matchups (integer sums: the same)."""
    return np.ascontiguousarray(np.asarray(x).T).sum(axis=1)


def spot_result(wins: Any, ties: Any, units: Any, scale: int, per_matchup: int, *,
                method: str | None = None, labels: tuple[str, ...], backend: str,
                board: str = "", dead: str = "") -> EquityResult:
    """:func:`exact_result` of a single matchup of weight 1 (every hand known), given its
    counts per player (arrays or lists of ints): the same numbers, without the matchup sums;
    ``method`` replaces the default ``"exact: N boards"``. Its arrays are worked out from the
    counts when first read (a one-spot call is over in tens of microseconds, and making seven
    small arrays would be a fifth of it; a caller that reads only ``method`` never pays).

    Examples
    --------
    >>> r = spot_result(np.array([1, 2]), np.array([1, 1]), np.array([1, 1]), 2, 4,
    ...                 labels=("a", "b"), backend="numpy")
    >>> r.equity.tolist(), r.method
    ([0.375, 0.625], 'exact: 4 boards')
    """
    if method is None:
        method = f"exact: {per_matchup:,} board{'s' * (per_matchup != 1)}"
    return built(exact=True, boards=per_matchup, samples=None, matchups=1, method=method,
                 labels=labels, backend=backend, board=board, dead=dead,
                 _spot=(wins, ties, units, scale, per_matchup))


#: The fields of a :func:`spot_result` worked out on first read (:func:`_spot_arrays`).
_SPOT_ARRAYS = frozenset({"equity", "win", "tie", "tie_share", "stderr", "wins", "ties"})


def _spot_arrays(wins: Any, ties: Any, units: Any, scale: int, per_matchup: int
                 ) -> dict[str, np.ndarray]:
    """The arrays of a :func:`spot_result`, read-only: what :func:`exact_result` gives for
    the same counts, bit for bit."""
    total = 1.0 * per_matchup     # what exact_result's w.sum() * per_matchup is for w = [1.0]
    # A handful of players: Python floats, the same IEEE operations exact_result's arrays do
    # (a NumPy operation on a 2-element array costs more than the division itself).
    wins, ties, units = (x.tolist() if isinstance(x, np.ndarray) else list(x)
                         for x in (wins, ties, units))
    win = [w / total for w in wins]
    tie_share = [u / (scale * total) for u in units]
    # Two arrays, each row a field (views of a read-only array are read-only); the floats
    # from one flat list (a nested one costs NumPy twice the time to read).
    n = len(wins)
    floats = np.array([*(w + s for w, s in zip(win, tie_share)), *win,
                       *(t / total for t in ties), *tie_share, *[0.0] * n]).reshape(5, n)
    floats.flags.writeable = False
    ints = np.array([wins, ties], dtype=np.int64)
    ints.flags.writeable = False
    eq, win_, tie, share, stderr = floats
    return dict(equity=eq, win=win_, tie=tie, tie_share=share, stderr=stderr, wins=ints[0],
                ties=ints[1])


def built(**values: Any) -> EquityResult:
    """The :class:`EquityResult` holding ``values`` (every field without a default, or the
    counts its arrays are worked out from, ``_spot``; the others take their defaults), as its
    ``__init__`` makes it, in a fraction of the time: the generated ``__init__`` sets each of
    the 20 frozen fields through ``object.__setattr__``.

    Examples
    --------
    >>> r = built(labels=("a",), equity=None, win=None, tie=None, tie_share=None,
    ...           stderr=None, exact=True, boards=1, samples=None, matchups=1, wins=None,
    ...           ties=None, backend="numpy", method="m")
    >>> r.board, r.strategy, r.method
    ('', '', 'm')
    """
    out = object.__new__(EquityResult)
    out.__dict__.update(_RESULT_DEFAULTS, **values)
    return out


#: The defaults of :class:`EquityResult`'s fields that have one (:func:`built`).
_RESULT_DEFAULTS = {f.name: f.default for f in fields(EquityResult) if f.default is not MISSING}


def sampled_result(wins: np.ndarray, ties: np.ndarray, units: np.ndarray, units_sq: np.ndarray,
                   n: int, n_samples: int, entropy: int, *, scale: int | None = None,
                   **common: Any) -> EquityResult:
    """The :class:`EquityResult` of Monte Carlo totals over ``n_samples`` deals of ``n``
    players (``units``, ``units_sq``: each player's pot units and their squares, summed;
    ``scale`` units make a pot, ``pot_units(n)`` by default); ``common`` holds the labels,
    backend, board and dead-card text. Shared by :func:`equity`, the other games' engine and
    :func:`gpu_eval.distributed.equity`."""
    scale = pot_units(n) if scale is None else scale
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
    #: The planner's strategy that counted the pairs (see :class:`EquityResult`).
    strategy: str = ""

    def __str__(self) -> str:
        """Overall equity and each A combo's equity against range B.

        Examples
        --------
        >>> import gpu_eval as ge
        >>> print(ge.equity_matrix("AKs", "QQ", board="Qc 7d 2h"))  # doctest: +ELLIPSIS
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
        >>> import gpu_eval as ge
        >>> d = ge.equity_matrix("AhKh", "QQ", board="Qc 7d 2h").to_dict()
        >>> d["combos_b"], d["matrix"][0][:2]
        (['QsQh', 'QsQd', 'QhQd'], [0.043434343434343436, 0.043434343434343436])
        """
        out: dict[str, Any] = {}
        for name in self.__dataclass_fields__:
            v = getattr(self, name)
            if isinstance(v, np.ndarray):
                v = np.where(np.isnan(v), np.array(None), v.astype(object)).tolist() \
                    if v.dtype.kind == "f" else v.tolist()
            elif isinstance(v, tuple):
                v = list(v)
            elif isinstance(v, float) and math.isnan(v):
                v = None
            out[name] = v
        return out

    def to_frame(self, values: str = "matrix") -> pd.DataFrame:
        """Combos of A by combos of B as a labelled pandas DataFrame of ``values``
        (``"matrix"``, ``"win"`` or ``"tie"``); needs the ``frames`` extra.

        Examples
        --------
        >>> import gpu_eval as ge
        >>> ge.equity_matrix("AhKh", "QQ", board="Qc7d2h").to_frame().shape   # doctest: +SKIP
        (1, 3)
        """
        from gpu_eval.frames import matrix_frame  # noqa: PLC0415 -- pandas only when asked for
        return matrix_frame(self, values)

    def plot(self, values: str = "matrix", *, ax: Axes | None = None, **kwargs: Any) -> Axes:
        """The combo heatmap (grouped by hand class); returns the matplotlib Axes.

        Examples
        --------
        >>> import gpu_eval as ge
        >>> ge.equity_matrix("AA", "KK, AKs", board="Kd7c2h").plot()   # doctest: +SKIP
        <Axes: ...>
        """
        from gpu_eval.frames import plot_matrix  # noqa: PLC0415 -- matplotlib only when asked for
        return plot_matrix(self, values, ax=ax, **kwargs)


def class_index(name: str) -> int:
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
    #: The planner's strategy that counted the pairs (see :class:`EquityResult`).
    strategy: str = ""

    def __post_init__(self) -> None:
        self._index.update({name: i for i, name in enumerate(self.labels)})

    def cell(self, a: str, b: str) -> float:
        """Equity of class ``a`` against class ``b`` (names such as ``"AKs"``, ``"72o"``).

        Examples
        --------
        >>> import gpu_eval as ge
        >>> t = ge.preflop_table(cells=[("AA", "KK")], exact=False, samples=20_000, seed=1)
        >>> abs(t.cell("AA", "KK") - 0.8195) < 0.02   # the exact equity is 0.8195
        True
        >>> round(t.cell("AA", "KK") + t.cell("KK", "AA"), 6)
        1.0
        """
        return float(self.table[self._class(a), self._class(b)])

    def _class(self, name: str) -> int:
        return self._index[ranges.CLASS_NAMES[class_index(name)]]  # labels may be reordered

    def __str__(self) -> str:
        """What was computed and a few cells.

        Examples
        --------
        >>> import gpu_eval as ge
        >>> print(ge.preflop_table(cells=[("AA", "KK")]))
        preflop table, exact (table): 2,598,960 boards (numpy), 2 of 28,561 cells (3 pair classes)
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
        >>> import gpu_eval as ge
        >>> t = ge.preflop_table(cells=[("AA", "KK")], exact=False, samples=1000, seed=1)
        >>> sorted(t.to_dict())[:3]
        ['backend', 'boards', 'classes']
        """
        t = self.table
        return {"labels": list(self.labels),
                "table": np.where(np.isnan(t), np.array(None), t.astype(object)).tolist(),
                "classes": self.classes, "exact": self.exact, "boards": self.boards,
                "samples": self.samples, "backend": self.backend, "method": self.method,
                "seed": self.seed}

    def to_frame(self) -> pd.DataFrame:
        """The 169 x 169 table as a pandas DataFrame labelled by class (``frames`` extra).

        Examples
        --------
        >>> import gpu_eval as ge
        >>> ge.preflop_table(cells=[("AA", "KK")]).to_frame().loc["AA", "KK"]   # doctest: +SKIP
        0.8194...
        """
        from gpu_eval.frames import preflop_frame  # noqa: PLC0415 -- pandas only when asked for
        return preflop_frame(self)

    def plot(self, opponent: str | None = None, *, ax: Axes | None = None,
             **kwargs: Any) -> Axes:
        """The 13 x 13 grid of each class's equity against ``opponent`` (a class, a range of
        whole classes such as ``"QQ+, AKs"``) or, by default, a random hand; returns the
        matplotlib Axes (the grid: pairs on the diagonal, suited above, offsuit below).

        Examples
        --------
        >>> import gpu_eval as ge
        >>> ge.preflop_table(cells=[("AA", "KK")]).plot(opponent="KK")   # doctest: +SKIP
        <Axes: ...>
        """
        from gpu_eval.frames import plot_preflop  # noqa: PLC0415 -- matplotlib only when asked for
        return plot_preflop(self, opponent, ax=ax, **kwargs)
