"""Scale the big jobs out on a Dask cluster: equity, tables, flop sweeps, exhaustive counts.

Every function takes a ``distributed.Client`` first and otherwise looks like its
single-process counterpart in ``gpu_eval``::

    from distributed import Client, LocalCluster
    import gpu_eval.distributed as ged

    client = Client(LocalCluster(n_workers=2))           # or dask-cuda's LocalCUDACluster()
    ged.equity(client, ["QQ+,AKs", "22+,A2s+"], exact=True)
    ged.flop_sweep(client, "AK", "QQ").overall             # 1,755 flops, exact
    ged.evaluation_counts(client, k=7).category_counts()
    ged.build_table(client, "river")                     # 123,156,254 canonical river hands

Install with ``pip install -e ".[distributed]"`` in a clone; Dask is imported only inside these
functions, so ``import gpu_eval`` stays light. ``client=None`` runs the same tasks one after
another in this process (no Dask needed), which is handy on a single GPU.

How the work is split
---------------------
Every call asks the planner (the part of gpu_eval that picks a strategy) exactly as the
single-process call does, on the client and *before* anything is submitted, so bad input
raises the same ``ValueError`` / ``TypeError``, the scheduler sees no task, and the same
strategy runs (``result.strategy`` names it). The plan's spans become tasks:

* strategies answered on the client (the shipped table, the known-hands and two-ranges
  shortcuts): no task at all, the single-process result;
* board enumeration (:func:`equity`, :func:`equity_matrix`, :func:`preflop_table`): slices
  ``[start, stop)`` of the colex-ordered board completions; each task unranks its own slice
  (:func:`colex_masks`), so no board list crosses the network;
* rank classes (preflop): slices of the matchups, one per suit orbit;
* Monte Carlo: blocks of samples aligned to the engines' random blocks (or slices of the
  sampled boards), so the tasks draw the single-process samples;
* :func:`flop_sweep`: groups of flop classes; :func:`evaluation_counts`: slices of the
  colex-ordered k-card hands.

The problem description travels inside each task when small, and is scattered to every
worker once when large. Tasks return integer counts, summed on the cluster in a tree;
integer sums do not depend on the order, so **a distributed result equals the
single-process result bit for bit, whatever the number of workers** (Monte Carlo included,
as long as the workers use the engine the single process would: NumPy and CUDA draw
differently, so pass ``backend="numpy"`` or ``"cuda"`` on a mixed cluster). Each task
resolves ``backend="auto"`` on its own worker.

The solver tables' :func:`build_table` (river, turn, flop, preflop) cuts the chunks of
``gpu-eval tables`` into tasks and writes the same bytes as one process.

Progress and interruption
-------------------------
``progress=True`` shows Dask's own progress bar (:func:`distributed.progress`: a widget in
Jupyter, text in a terminal); the dashboard shows the tasks too, named ``gpu_eval-<job>``.
Ctrl-C (``KeyboardInterrupt``) -- or any error -- cancels every future the call submitted
before it propagates, so nothing is left running on the cluster.

Notes
-----
``exact=None`` makes the single-process choice, with the work limit of the backend the
*client* resolves; a CPU-only client driving GPU workers therefore samples sooner than it
needs to, so pass ``exact=True`` for big exact jobs there. Dask's nanny starts workers with
``MALLOC_TRIM_THRESHOLD_=65536``, which makes NumPy's temporaries 2-3x slower; the tasks
set glibc's ``M_TOP_PAD`` to 64 MiB in their worker process once.
"""

from gpu_eval.combinatorics import colex_masks
from gpu_eval.distributed.counts import EvaluationCounts, evaluation_counts
from gpu_eval.distributed.equity import equity, equity_matrix, preflop_table
from gpu_eval.distributed.runner import BOARD_BLOCK, MC_BLOCK, TASK_WORK, block_seed
from gpu_eval.distributed.sweeps import FlopSweep, flop_sweep
from gpu_eval.solver_tables.cluster import build_table

__all__ = ["equity", "equity_matrix", "preflop_table", "flop_sweep", "evaluation_counts", "build_table",
           "FlopSweep", "EvaluationCounts", "block_seed", "colex_masks", "MC_BLOCK",
           "BOARD_BLOCK", "TASK_WORK"]
