"""Every k-card hand evaluated and counted by strength, on a cluster
(:func:`evaluation_counts`; see :mod:`gpu_eval.distributed`)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from gpu_eval import backend_choice, cards, combinatorics
from gpu_eval.distributed import runner
from gpu_eval.equity_engine.planner import Part, backend_name
from gpu_eval.equity_engine.results import read_only
from gpu_eval.scale import NUM_STRENGTHS
from gpu_eval.strength import CATEGORY_KEYS

if TYPE_CHECKING:  # pragma: no cover
    from distributed import Client

__all__ = ["evaluation_counts", "EvaluationCounts"]

# Hands per piece inside a task on NumPy (bounds memory).
_EVAL_CHUNK = 1 << 20


# ---------------------------------------------------------------------------------------------
# evaluation_counts()
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class EvaluationCounts:
    """Per-strength counts of the k-card hands ``start`` to ``stop - 1`` (:func:`evaluation_counts`).

    Attributes
    ----------
    k : int
        Cards per hand.
    start, stop : int
        The slice of colex-ordered hands counted (all: ``0, C(52, k)``).
    counts : numpy.ndarray of int64, shape (7463,)
        ``counts[s]``: hands of strength ``s`` (``counts[0] == 0``).
    slices : int
        Tasks the job was cut into.
    backend : str
        Engines the workers used.
    """

    k: int
    start: int
    stop: int
    counts: np.ndarray
    slices: int
    backend: str

    @property
    def total(self) -> int:
        """Hands counted."""
        return int(self.counts.sum())

    @property
    def distinct(self) -> int:
        """Distinct strengths seen (7,462 for k = 5, 4,824 for k = 7)."""
        return int(np.count_nonzero(self.counts))

    @property
    def categories(self) -> np.ndarray:
        """Hands per category, ``int64[9]``: 0 high card up to 8 straight flush."""
        from gpu_eval.strength import category

        cat = category(np.arange(1, NUM_STRENGTHS))
        return np.bincount(cat, weights=self.counts[1:], minlength=9).astype(np.int64)

    def category_counts(self) -> dict[str, int]:
        """Hands per category by name, from straight flush down.

        Examples
        --------
        >>> evaluation_counts(None, k=5).category_counts()["straight flush"]
        40
        """
        c = self.categories
        return {CATEGORY_KEYS[i]: int(c[i]) for i in range(8, -1, -1)}


def _eval_counts_task(_: None, k: int, start: int, stop: int, backend: str) -> Part:
    where = backend_choice.resolve(backend)
    if where == "cuda":
        from gpu_eval.cuda.holdem import enumerate_counts_cuda  # imports CuPy

        return Part((enumerate_counts_cuda(k, start, stop),), frozenset({"cuda"}))
    from gpu_eval.evaluator.bitmask import evaluate_masks

    hist = np.zeros(NUM_STRENGTHS, dtype=np.int64)
    for s in range(start, stop, _EVAL_CHUNK):
        masks = combinatorics.colex_masks(cards.ID_TO_MASK, k, s, min(stop, s + _EVAL_CHUNK))
        hist += np.bincount(evaluate_masks(masks), minlength=NUM_STRENGTHS)
    return Part((hist,), frozenset({"numpy"}))


def evaluation_counts(client: Client | None, k: int = 7, slices: int | None = None,
                      start: int = 0, stop: int | None = None, backend: str = "auto",
                      progress: bool | None = False) -> EvaluationCounts:
    """Evaluate every k-card hand (or a slice of them) and count each strength.

    The C(52, k) hands are numbered in colex order (the combinatorial number system);
    each task unranks the start of its slice and walks it (on a GPU worker,
    ``gpu_eval.cuda.holdem.enumerate_counts_cuda``; on NumPy, the bitmask evaluator), and the
    integer histograms are summed, so the counts do not depend on how the work is cut.

    Parameters
    ----------
    client : distributed.Client or None
        The cluster (``None``: run the slices here).
    k : int
        Cards per hand, 5..9.
    slices : int, optional
        Tasks (default: about 2^22 hands each, at least two per worker thread).
    start, stop : int
        Count only hands ``start .. stop - 1`` (default: all).
    backend : {"auto", "numpy", "cuda"}
        Resolved by each task on its worker: ``"auto"`` its GPU when it has one, else NumPy.
    progress : bool or None
        Dask's progress bar (a widget in Jupyter, text in a terminal): ``True`` shows it;
        ``False`` (the default) and ``None`` do not.

    Returns
    -------
    EvaluationCounts
        ``counts`` per strength, ``categories``, ``distinct``, ``total``.

    Examples
    --------
    >>> c = evaluation_counts(None, k=5)
    >>> c.total, c.distinct, c.categories.tolist()
    (2598960, 7462, [1302540, 1098240, 123552, 54912, 10200, 5108, 3744, 624, 40])
    >>> c = evaluation_counts(client, k=7, progress=True)  # doctest: +SKIP
    >>> c.distinct, c.category_counts()["straight flush"]  # doctest: +SKIP
    (4824, 41584)
    """
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 5 <= k <= 9:
        raise ValueError(f"k must be an integer 5..9, got {k!r}")
    k = int(k)
    total = math.comb(52, k)
    stop = total if stop is None else stop
    for what, v in (("start", start), ("stop", stop)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise TypeError(f"{what} must be an integer, got {v!r}")
    start, stop = int(start), int(stop)
    if not 0 <= start <= stop <= total:
        raise ValueError(f"need 0 <= start <= stop <= C(52, {k}) = {total:,}, got "
                         f"start={start}, stop={stop}")
    runner.check_common(backend, progress, None)
    if slices is not None and (isinstance(slices, bool) or not isinstance(
            slices, (int, np.integer)) or slices < 1):
        raise ValueError(f"slices must be a positive integer, got {slices!r}")
    runner.check_client(client)
    n = stop - start
    if slices is None:
        slices = max(-(-n // (1 << 22)), 2 * runner.threads(client) if client is not None else 1)
    spans = [(k, start + a, start + b, backend) for a, b in runner.spans(n, slices)] if n else []
    if not spans:
        counts = np.zeros(NUM_STRENGTHS, dtype=np.int64)
        return EvaluationCounts(k, start, stop, read_only(counts), 0, "numpy")
    res = runner.run_tasks(client, _eval_counts_task, None, spans,
               name=f"evaluation_counts-k{k}", progress=progress, reduce=True)
    return EvaluationCounts(k, start, stop, read_only(res.arrays[0]), len(spans),
                            backend_name(res.backends))
