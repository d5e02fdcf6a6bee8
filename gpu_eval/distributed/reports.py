"""Range reports over many boards on a cluster (:func:`range_report`; see
:mod:`gpu_eval.distributed`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy.typing as npt

from gpu_eval.distributed import runner
from gpu_eval.games.registry import HOLDEM
from gpu_eval.range_reports import boards as board_sets
from gpu_eval.range_reports import many_boards
from gpu_eval.range_reports.api import game_record
from gpu_eval.range_reports.hands import RangeLike
from gpu_eval.range_reports.results import BoardsReport

if TYPE_CHECKING:  # pragma: no cover
    from distributed import Client

__all__ = ["range_report"]


def _task(job: many_boards.Job, start: int, stop: int) -> dict:
    runner.tune_malloc()
    return many_boards.board_rows(job, start, stop)


def range_report(client: Client | None, hero: RangeLike, villain: RangeLike | None = None,
                 boards: npt.ArrayLike = "flops", *, game: str = HOLDEM,
                 dead: npt.ArrayLike | None = "", per_combo: bool = False,
                 block_size: int | None = None, backend: str = "auto",
                 progress: bool | None = False) -> BoardsReport:
    """:func:`gpu_eval.range_report` over many boards, the boards spread over a cluster.

    The played boards (every flop class, or each flop of a class that asymmetric ranges
    tell apart, or the boards of a list) are cut into spans; each task computes its boards'
    rows exactly as one process does, and the client adds them up per row, so the integers
    (``units``, ``showdowns``, per-combo ``wins`` / ``ties``) are those of one process, bit for
    bit, whatever the number of workers.

    Parameters
    ----------
    client : distributed.Client or None
        The cluster (``None``: the tasks run here, one after another).
    hero, villain, boards, game, dead, per_combo
        As for :func:`gpu_eval.range_report` (``boards``: ``"flops"`` or a list of boards).
    block_size : int, optional
        Played boards per task (default: four tasks per worker thread, at most 64 boards
        each); never changes the result.
    backend : {"auto", "numpy", "cuda"}
        Where each task counts its runouts; ``"auto"``: on its worker's GPU when it has one.
    progress : bool or None
        Dask's progress bar.

    Returns
    -------
    BoardsReport

    Raises
    ------
    ValueError, TypeError
        As the single-process call, on the client, before any task is submitted.

    Examples
    --------
    >>> import gpu_eval as ge
    >>> r = range_report(None, "AKs", "QQ", boards=["AsKd7h", "7c7d2h"])
    >>> one = ge.range_report("AKs", "QQ", boards=["AsKd7h", "7c7d2h"])
    >>> bool((r.units == one.units).all()), r.overall == one.overall
    (True, True)
    """
    runner.check_common(backend, progress, block_size)
    runner.check_client(client)
    g = game_record(game)
    if not isinstance(per_combo, bool):
        raise TypeError(f"per_combo must be True or False, got {per_combo!r}")
    dead_mask = board_sets.parse_cards(dead, g, "the dead cards", tuple(range(0, 40)))
    if g.is_omaha and backend == "cuda":
        raise NotImplementedError(f"{g.name} reports are counted on NumPy only: use "
                                  f"backend='numpy' (or 'auto')")
    job, rows, row_of, mult, method = many_boards.prepare(
        g, hero, villain, boards, dead_mask, per_combo, "numpy" if g.is_omaha else backend)
    total = len(job.played)
    per_task = int(block_size) if block_size is not None else max(
        1, min(64, -(-total // (4 * runner.threads(client)))))
    spans = [(a, min(a + per_task, total)) for a in range(0, total, per_task)]
    parts = runner.run_tasks(client, _task, job, spans, name="range_report",
                             progress=bool(progress), reduce=False)
    return many_boards.assemble(g, job, rows, row_of, mult, parts, method, backend)
