"""Equity, equity matrices and the preflop table on a cluster: the planner's plans, run by
:func:`gpu_eval.distributed.runner.run_plan` (see :mod:`gpu_eval.distributed`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from gpu_eval.distributed import runner
from gpu_eval.equity_engine import api as equity_api
from gpu_eval.equity_engine.planner import Request
from gpu_eval.equity_engine.problem import CardsLike, PlayerLike, check_options
from gpu_eval.equity_engine.results import EquityResult, MatrixResult, PreflopTable
from gpu_eval.equity_engine.strategies import plan
from gpu_eval.games.registry import HOLDEM

if TYPE_CHECKING:  # pragma: no cover
    from distributed import Client

__all__ = ["equity", "equity_matrix", "preflop_table"]


def equity(client: Client | None, players: Sequence[PlayerLike], board: CardsLike = "",
           dead: CardsLike = "", exact: bool | None = None, samples: int | None = None,
           seed: int | None = None, block_size: int | None = None,
           game: str = HOLDEM, backend: str = "auto", progress: bool | None = False
           ) -> EquityResult:
    """:func:`gpu_eval.equity` on a Dask cluster.

    Parameters
    ----------
    client : distributed.Client or None
        The cluster to run on; ``None`` runs the same tasks here, one after another.
    players, board, dead, exact, samples, seed, game
        As for :func:`gpu_eval.equity` (validated by the same code, before anything is
        submitted; the planner makes the same choice as in a single process, for every
        game).
    block_size : int, optional
        Exact: items per task of the chosen strategy (board completions, or matchups for
        rank classes; default: about 2e8 evaluations and comparisons (``TASK_WORK``)
        per task, at least two tasks per worker thread). Monte Carlo: showdowns per task
        (default 262,144, ``MC_BLOCK``, rounded up to the engine's
        random block); never changes the answer.
    backend : {"auto", "numpy", "cuda"}
        Resolved by each task on its worker.
    progress : bool or None
        Show Dask's progress bar.

    Returns
    -------
    EquityResult
        Equal, field for field, to the single-process result, Monte Carlo included
        (``backend`` says which engines the workers used, e.g. ``"cuda"`` or
        ``"cuda+numpy"``; ``strategy`` which strategy ran).

    Raises
    ------
    ValueError, TypeError, NotImplementedError
        Bad input, as :func:`gpu_eval.equity` (raised before any task is submitted).
    KeyboardInterrupt
        After cancelling the submitted tasks.

    Examples
    --------
    >>> from distributed import Client, LocalCluster  # doctest: +SKIP
    >>> client = Client(LocalCluster(n_workers=2))  # doctest: +SKIP
    >>> r = equity(client, ["AhKh", "QsQd"])  # doctest: +SKIP
    >>> r.wins.tolist(), r.ties.tolist()  # doctest: +SKIP
    ([787966, 917606], [6732, 6732])
    >>> r = equity(None, ["AhKh", "QsQd"], board="2c7d9s")  # no cluster: runs here
    >>> r.wins.tolist(), r.boards
    ([237, 753], 990)
    """
    runner.check_common(backend, progress, block_size)
    runner.check_client(client)
    req = Request("equity", players, board, dead, exact, samples, seed, game, backend, False,
                  here=False)
    job = plan(req)  # validates everything before anything is submitted
    return runner.run_plan(client, job, block_size=block_size,
                           name="equity" if req.engine == HOLDEM else "games", progress=progress)


def equity_matrix(client: Client | None, range_a: PlayerLike, range_b: PlayerLike,
                  board: CardsLike = "", dead: CardsLike = "", exact: bool | None = None,
                  samples: int | None = None, seed: int | None = None,
                  block_size: int | None = None, backend: str = "auto",
                  progress: bool | None = False) -> MatrixResult:
    """:func:`gpu_eval.equity_matrix` on a Dask cluster.

    Parameters
    ----------
    client : distributed.Client or None
        The cluster (``None``: run the tasks here).
    range_a, range_b, board, dead, exact, samples, seed
        As for :func:`gpu_eval.equity_matrix`.
    block_size : int, optional
        Exact: completions per task. Monte Carlo: sampled boards per task (default
        4,096, ``BOARD_BLOCK``).
    backend : {"auto", "numpy", "cuda"}
        Resolved by each task on its worker: ``"auto"`` its GPU when it has one, else NumPy.
    progress : bool or None
        Dask's progress bar (a widget in Jupyter, text in a terminal): ``True`` shows it;
        ``False`` (the default) and ``None`` do not.

    Returns
    -------
    MatrixResult
        Equal to the single-process result (Monte Carlo too: the same boards).

    Examples
    --------
    >>> m = equity_matrix(None, "AA", "KK, AKs", board="Kd 7c 2h")
    >>> m.method, round(m.equity, 4)
    ('exact: 27 pairs x 990 boards', 0.3519)
    >>> m = equity_matrix(client, "QQ+", "AK", exact=True)  # doctest: +SKIP
    """
    samples = check_options(exact, samples, seed)
    runner.check_common(backend, progress, block_size)
    runner.check_client(client)

    def count_pairs(pool, pairs, deck, k, base, work):  # after validation: nothing submitted
        req = equity_api.pairs_request("equity_matrix", (pool, pairs, deck, k, base, work),
                                       exact, samples, seed, backend, False, here=False)
        return runner.run_plan(client, plan(req), block_size=block_size, name="equity_matrix",
                               progress=progress)

    return equity_api.matrix_result(range_a, range_b, board, dead, count_pairs)


def preflop_table(client: Client | None, exact: bool | None = None,
                  samples: int | None = None, seed: int | None = None,
                  cells: Sequence[tuple[str, str]] | None = None,
                  block_size: int | None = None, backend: str = "auto",
                  progress: bool | None = False) -> PreflopTable:
    """:func:`gpu_eval.preflop_table` on a Dask cluster.

    The suit-isomorphism classes of combo pairs are found here (as in a single process);
    the tasks are slices of the 2,598,960 boards (exact) or blocks of sampled boards, each
    playing every class on its boards.

    Parameters
    ----------
    client : distributed.Client or None
        The cluster (``None``: run the tasks here).
    exact, samples, seed, cells
        As for :func:`gpu_eval.preflop_table`; the whole exact table (``exact=True``) is
        the job this is for.
    block_size : int, optional
        Exact: boards per task. Monte Carlo: sampled boards per task (default
        4,096, ``BOARD_BLOCK``).
    backend : {"auto", "numpy", "cuda"}
        Resolved by each task on its worker: ``"auto"`` its GPU when it has one, else NumPy.
    progress : bool or None
        Dask's progress bar (a widget in Jupyter, text in a terminal): ``True`` shows it;
        ``False`` (the default) and ``None`` do not.

    Returns
    -------
    PreflopTable
        Exact: equal, cell for cell, to the single-process table.

    Examples
    --------
    >>> t = preflop_table(client, exact=True, progress=True)  # doctest: +SKIP
    >>> round(t.cell("AA", "KK"), 4)  # doctest: +SKIP
    0.8195
    """
    samples = check_options(exact, samples, seed)
    runner.check_common(backend, progress, block_size)
    runner.check_client(client)

    def request(pairs):
        return equity_api.pairs_request("preflop_table", pairs, exact, samples, seed, backend,
                                        False, here=False)

    def count_pairs(pool, pairs, deck, k, base, work):  # after the cells are validated
        return runner.run_plan(client, plan(request((pool, pairs, deck, k, base, work))),
                               block_size=block_size, name="preflop_table", progress=progress)

    return equity_api.preflop_table_result(cells, count_pairs, lambda pairs: plan(
        request(pairs)))
