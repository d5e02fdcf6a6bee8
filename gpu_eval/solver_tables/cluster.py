"""The solver tables on a Dask cluster: the same chunks as one process, the same bytes.

``build_table(client, "flop")`` sends each chunk of the table's plan (``plans.py``) to the
workers as one task and writes the answers into the table on the client as they come back;
the chunks set disjoint or identical rows (preflop's partial sums add up in integers), so the
order they finish in changes nothing. ``client=None`` runs them here. Dask is imported only
when a client is given.
"""

from __future__ import annotations

from typing import Any

from gpu_eval.games.registry import HOLDEM
from gpu_eval.solver_tables import plans

__all__ = ["build_table"]


def run_chunk(street: str, game: str, bins: int, i: int, backend: str = "auto"):
    """One chunk of one table (what a worker runs; ``auto``: the worker's GPU if it has one)."""
    return plans.plan(street, game, bins, backend).run(i)


def build_table(client: Any, street: str, game: str = HOLDEM, bins: int = 50, *,
                progress: bool | None = None):
    """Build a whole table (``river``, ``turn``, ``flop`` or ``preflop``) on a Dask cluster.

    Parameters
    ----------
    client : distributed.Client or None
        The cluster's client; ``None`` runs the chunks in this process.
    street : {"river", "turn", "flop", "preflop"}
        The table: river strength, or the strength histograms of that street.
    game : str
        ``"holdem"`` (default), ``"shortdeck"`` or ``"shortdeck-triton"``.
    bins : int
        Histogram bins (the river table has none).
    progress : bool, optional
        A progress bar over the chunks.

    Returns
    -------
    RiverStrength or StrengthHistograms
        Equal, byte for byte, to ``river_strength(game)`` or ``strength_histograms(street,
        game, bins)`` in one process.

    Examples
    --------
    >>> r = build_table(None, "preflop", game="shortdeck", bins=5)
    >>> r.counts.shape, int(r.counts[0].sum()) == r.runouts
    ((81, 5), True)
    """
    p = plans.plan(street, game, bins)
    if client is None:
        return plans.build_in_memory(p, progress)
    from distributed import Client, as_completed

    if not isinstance(client, Client):
        raise TypeError(f"client must be a distributed.Client (or None to run here), got "
                        f"{type(client).__name__}")
    futures = client.map(run_chunk, [street] * p.chunks, [game] * p.chunks, [p.bins] * p.chunks,
                         range(p.chunks), pure=False)
    try:
        return plans.gather(p, (out for _, out in as_completed(futures, with_results=True)),
                            progress)
    except BaseException:
        client.cancel(futures)
        raise
