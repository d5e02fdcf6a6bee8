"""``river_strength``: exact river strength of every canonical river hand, or of given ones."""

from __future__ import annotations

import numpy as np

from gpu_eval import backend_choice, card_input
from gpu_eval.games.registry import HOLDEM
from gpu_eval.solver_tables import canonical, plans
from gpu_eval.solver_tables.direct import hero_counts
from gpu_eval.solver_tables.layout import deck_layout
from gpu_eval.solver_tables.results import RiverStrength
from gpu_eval.solver_tables.river_counts import opponents

__all__ = ["river_strength", "check_indices"]


def check_indices(indices, size: int, layout: tuple[int, ...]) -> np.ndarray:
    """``indices`` (any integer width, a list, a DLPack array; 0-d: one hand) as a 1-D int64
    array inside ``[0, size)``, read by :func:`gpu_eval.card_input.indices`: ``TypeError`` for
    anything but integers, ``ValueError`` naming the first index out of range."""
    arr = card_input.indices(indices, size,
                             note=f" (the {layout} layout has {size:,} indices)")
    if arr.ndim > 1:
        raise ValueError(f"indices must have shape (N,) or () (one hand), got {arr.shape}")
    return arr.reshape(-1)


def river_strength(game: str = HOLDEM, indices=None, *, progress: bool | None = None,
                   backend: str = "auto") -> RiverStrength:
    """Exact river strength (wins and ties against every opponent pair) of canonical hands.

    Parameters
    ----------
    game : str
        ``"holdem"`` (990 opponent pairs) or ``"shortdeck"`` / ``"shortdeck-triton"`` (406).
    indices : array_like of int, optional
        ``HandIndexer((2, 5), game=game)`` indices (round 1: two hole cards, five board
        cards): any integer width, a list, any DLPack array; one index (0-d, as
        ``HandIndexer.index`` gives for one hand) is one row. ``None`` builds the whole
        table: 123,156,254 hands in hold'em.
    progress : bool, optional
        A progress bar (``None``: when the run looks long).
    backend : {"auto", "numpy", "cuda"}
        Where the whole table's river boards are counted (``auto``: CUDA when a device is
        usable); the integers are the same. Given indices are counted with NumPy.

    Returns
    -------
    RiverStrength
        ``.wins``, ``.ties`` (``uint16``), ``.ehs = (wins + ties / 2) / opponents``.

    Raises
    ------
    ValueError
        An unknown game or backend, an index out of range (naming its position).
    TypeError
        Indices that are not integers (floats, bools, text).

    Notes
    -----
    The whole table is built board-major: one board per suit orbit (``HandIndexer((5,))``),
    its hole pairs' strengths computed once and counted with card removal
    (``gpu_eval.solver_tables.river_counts``), each hand scattered to its ``(2, 5)`` index.
    Given indices are counted directly, each hero against its own opponents.

    Examples
    --------
    >>> import gpu_eval as ge
    >>> ix = ge.HandIndexer((2, 5))
    >>> i = ix.index(ge.cards.parse("AsAh AdAc Kd 7h 2s").reshape(1, 7))
    >>> r = ge.river_strength(indices=i)
    >>> int(r.wins[0]), int(r.ties[0]), float(r.ehs[0])     # four aces lose to nothing
    (990, 0, 1.0)
    """
    backend_choice.check(backend)
    lay = deck_layout(game)
    if indices is None:
        return plans.build_in_memory(plans.plan("river", game, backend=backend), progress)
    ix = canonical.indexer((2, 5), game)
    idx = check_indices(indices, ix.size(1), (2, 5))
    hands = np.asarray(ix.unindex(1, idx), dtype=np.uint8).reshape(len(idx), 7)
    w, t = hero_counts(hands[:, :2], hands[:, 2:], lay)
    return RiverStrength(w.astype(np.uint16), t.astype(np.uint16), game, opponents(lay), idx)
