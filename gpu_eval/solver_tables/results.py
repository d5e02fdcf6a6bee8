"""The result types of the solver tables: river strength and strength histograms.

Both hold exact integers underneath (wins and ties out of the opponent pairs; per-bin runout
counts and integer sums of ``2 * opponents * ehs``) and derive the floats from them, so a
table means the same on every backend and any number of workers. ``arrays()`` / ``meta()`` are
what ``save_table`` writes; ``from_saved`` rebuilds a result from them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["RiverStrength", "StrengthHistograms", "STREETS", "ROUNDS"]

#: Streets of the histogram tables, and the indexer layout (cards per round) of every table.
STREETS = ("preflop", "flop", "turn")
ROUNDS = {"preflop": (2,), "flop": (2, 3), "turn": (2, 4), "river": (2, 5)}


@dataclass(frozen=True)
class RiverStrength:
    """Exact river strength of hands against a random opponent pair.

    Attributes
    ----------
    wins, ties : numpy.ndarray
        ``uint16`` counts out of ``opponents`` opponent pairs, one per hand (row ``i`` is
        ``HandIndexer((2, 5)).unindex(1, indices[i])``, or index ``i`` for the whole table).
    game : str
    opponents : int
        990 in hold'em, 406 in short deck.
    indices : numpy.ndarray or None
        The ``(2, 5)`` indices asked for; ``None`` for the whole table.
    """

    wins: np.ndarray
    ties: np.ndarray
    game: str
    opponents: int
    indices: np.ndarray | None = None
    street: str = field(default="river", init=False)

    @property
    def twice_ehs(self) -> np.ndarray:
        """``2 * wins + ties``: the strength in units of ``1 / (2 * opponents)``, exact."""
        return 2 * self.wins.astype(np.int32) + self.ties

    @property
    def ehs(self) -> np.ndarray:
        """``(wins + ties / 2) / opponents`` (float64)."""
        return self.twice_ehs / (2.0 * self.opponents)

    def __len__(self) -> int:
        return len(self.wins)

    def arrays(self) -> dict[str, np.ndarray]:
        out = {"wins": self.wins, "ties": self.ties}
        if self.indices is not None:
            out["indices"] = self.indices
        return out

    def meta(self) -> dict:
        return {"street": "river", "game": self.game, "opponents": self.opponents,
                "rows": len(self), "definition":
                "wins, ties: opponent pairs (out of 'opponents') beaten and tied on the river; "
                "ehs = (wins + ties / 2) / opponents"}

    @classmethod
    def from_saved(cls, meta: dict, arrays: dict[str, np.ndarray]) -> RiverStrength:
        return cls(arrays["wins"], arrays["ties"], meta["game"], meta["opponents"],
                   arrays.get("indices"))


@dataclass(frozen=True)
class StrengthHistograms:
    """Distribution of river strength over every runout of preflop, flop or turn hands.

    Attributes
    ----------
    street : str
        ``"preflop"``, ``"flop"`` or ``"turn"``.
    counts : numpy.ndarray
        ``(M, bins)``: runouts whose river ``ehs`` falls in bin ``min(floor(ehs * bins),
        bins - 1)``, counted with integer bin edges (``ehs * 2 * opponents`` is an integer,
        so no float ever decides a bin).
    twice_sum, twice_sumsq : numpy.ndarray
        ``uint64`` sums over the runouts of ``t = 2 * wins + ties`` and of ``t ** 2``.
    runouts : int
        Runouts per hand: 1,081 on the flop, 46 on the turn, 2,118,760 preflop (hold'em).
    opponents : int
    game : str
    bins : int
    indices : numpy.ndarray or None
        The indexer indices asked for (``HandIndexer(ROUNDS[street])``); ``None``: all.
    """

    street: str
    counts: np.ndarray
    twice_sum: np.ndarray
    twice_sumsq: np.ndarray
    runouts: int
    opponents: int
    game: str
    bins: int
    indices: np.ndarray | None = None

    @property
    def mean(self) -> np.ndarray:
        """The mean river ``ehs`` over the runouts: the street's EHS, rolled out (float64)."""
        return self.twice_sum / (2.0 * self.opponents * self.runouts)

    @property
    def mean_sq(self) -> np.ndarray:
        """The mean of ``ehs ** 2`` over the runouts (EHS^2, float64)."""
        return self.twice_sumsq / ((2.0 * self.opponents) ** 2 * self.runouts)

    def __len__(self) -> int:
        return len(self.counts)

    def arrays(self) -> dict[str, np.ndarray]:
        out = {"counts": self.counts, "twice_sum": self.twice_sum,
               "twice_sumsq": self.twice_sumsq}
        if self.indices is not None:
            out["indices"] = self.indices
        return out

    def meta(self) -> dict:
        return {"street": self.street, "game": self.game, "opponents": self.opponents,
                "rows": len(self), "bins": self.bins, "runouts": self.runouts,
                "definition": "counts[i, k]: runouts of hand i whose river ehs = (wins + ties / 2)"
                              " / opponents has min(floor(ehs * bins), bins - 1) == k, decided"
                              " on the integer t = 2 * wins + ties as (t * bins) // (2 * "
                              "opponents); twice_sum, twice_sumsq: sums of t and t**2 over the "
                              "runouts; mean = twice_sum / (2 * opponents * runouts)"}

    @classmethod
    def from_saved(cls, meta: dict, arrays: dict[str, np.ndarray]) -> StrengthHistograms:
        return cls(meta["street"], arrays["counts"], arrays["twice_sum"], arrays["twice_sumsq"],
                   meta["runouts"], meta["opponents"], meta["game"], meta["bins"],
                   arrays.get("indices"))
