"""``strength_histograms``: the distribution of river strength over every runout."""

from __future__ import annotations

import numpy as np

from gpu_eval.games.registry import HOLDEM
from gpu_eval.solver_tables import canonical, plans
from gpu_eval.solver_tables.direct import hero_counts
from gpu_eval.solver_tables.layout import deck_layout
from gpu_eval.solver_tables.results import ROUNDS, STREETS, StrengthHistograms
from gpu_eval.solver_tables.river import check_indices

__all__ = ["strength_histograms"]

#: Hands per batch of the ``indices=`` path (a flop hand has 1,081 runouts).
QUERY_BATCH = 16


def strength_histograms(street: str, game: str = HOLDEM, bins: int = 50, indices=None, *,
                        progress: bool | None = None, backend: str = "auto"
                        ) -> StrengthHistograms:
    """Histograms of river strength over every runout, with their mean (EHS) and mean square.

    Parameters
    ----------
    street : {"preflop", "flop", "turn"}
        ``HandIndexer`` layout ``(2,)`` (169 hands in hold'em), ``(2, 3)`` (1,286,792) or
        ``(2, 4)`` (13,960,050).
    game : str
        ``"holdem"``, ``"shortdeck"`` or ``"shortdeck-triton"``.
    bins : int
        Equal-width bins of ``ehs`` on ``[0, 1]``; a runout goes to bin
        ``min(floor(ehs * bins), bins - 1)``, decided in integers.
    indices : array_like of int, optional
        Indices of the street's layout (any integer width, a list, any DLPack array; one
        index, 0-d, is one row); ``None`` builds the whole table.
    progress : bool, optional
        A progress bar (``None``: when the run looks long).
    backend : {"auto", "numpy", "cuda"}
        Where whole tables count their river boards (``auto``: CUDA when a device is
        usable); the integers are the same. Flop and turn indices are counted with NumPy.

    Returns
    -------
    StrengthHistograms
        ``.counts`` ``(M, bins)``, ``.mean``, ``.mean_sq``; the integer sums underneath.

    Raises
    ------
    ValueError
        An unknown street, game or backend, a bin count outside 1..1980, an index out of
        range (naming its position).
    TypeError
        Indices that are not integers (floats, bools, text).

    Examples
    --------
    >>> import gpu_eval as ge
    >>> ix = ge.HandIndexer((2, 4))
    >>> i = ix.index(ge.cards.parse("AsAh Ad Kc 7h 2s").reshape(1, 6))
    >>> h = ge.strength_histograms("turn", indices=i, bins=10)
    >>> h.counts.tolist(), round(float(h.mean[0]), 4)
    ([[0, 0, 0, 0, 0, 0, 0, 0, 0, 46]], 0.9914)
    """
    if street not in STREETS:
        raise ValueError(f"street {street!r}: expected one of {', '.join(STREETS)} "
                         "(river strength: river_strength())")
    p = plans.plan(street, game, bins, backend)
    if indices is None:
        return plans.build_in_memory(p, progress)
    rounds = ROUNDS[street]
    ix = canonical.indexer(rounds, game)
    idx = check_indices(indices, ix.size(len(rounds) - 1), rounds)
    if street == "preflop":  # 2 million runouts a hand: the whole table is the cheap way
        full = plans.build_in_memory(p, progress)
        return StrengthHistograms(street, full.counts[idx], full.twice_sum[idx],
                                  full.twice_sumsq[idx], full.runouts, full.opponents, game,
                                  full.bins, idx)
    lay = deck_layout(game)
    k = p.board_cards
    hands = np.asarray(ix.unindex(len(rounds) - 1, idx), dtype=np.uint8).reshape(len(idx), 2 + k)
    deck = np.arange(lay.lowest_card, 52, dtype=np.uint8)
    counts = np.zeros((len(idx), p.bins), dtype=p.arrays()["counts"][0])
    sums = np.zeros(len(idx), dtype=np.uint64)
    sumsq = np.zeros(len(idx), dtype=np.uint64)
    runs = plans.runout_positions(lay.deck_size - 2 - k, 5 - k)
    for a in range(0, len(idx), QUERY_BATCH):
        hb = hands[a:a + QUERY_BATCH]
        left = np.stack([deck[~np.isin(deck, h)] for h in hb])            # (q, n - 2 - k)
        run = left[:, runs]                                                # (q, R, 5 - k)
        q, r = run.shape[:2]
        boards = np.concatenate([np.broadcast_to(hb[:, None, 2:], (q, r, k)), run], axis=2)
        holes = np.broadcast_to(hb[:, None, :2], (q, r, 2))
        w, t = hero_counts(holes.reshape(-1, 2), boards.reshape(-1, 5), lay)
        tt = (2 * w + t).reshape(q, r).astype(np.int64)
        b = plans.bin_of(tt, p.bins, p.opponents)
        for j in range(q):
            counts[a + j] = np.bincount(b[j], minlength=p.bins)
        sums[a:a + q] = tt.sum(axis=1)
        sumsq[a:a + q] = (tt * tt).sum(axis=1)
    return StrengthHistograms(street, counts, sums, sumsq, p.runouts, p.opponents, game, p.bins,
                              idx)
