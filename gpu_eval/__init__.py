"""gpu_eval: bulk poker hand evaluation and equity on NVIDIA GPUs, with an identical NumPy path.

>>> import gpu_eval as ge
>>> s = ge.evaluate(["AhKh QhJhTh 2c 3d", "7c 5d 4h 3s 2c"])
>>> s.tolist(), ge.describe(s)
([7462, 1], ['Royal Flush', 'High Card, Seven high, Five Four Three Two kickers'])

Importing the package is light: CuPy is imported only when the CUDA backend is used.
"""

from __future__ import annotations

from importlib import import_module

from gpu_eval import cards
from gpu_eval.evaluator.api import evaluate, evaluate_omaha
from gpu_eval.strength import (
    category,
    describe,
    from_cactus_kev,
    from_value,
    to_cactus_kev,
    to_value,
)

__version__ = "0.1.0"

__all__ = ["cards", "evaluate", "category", "describe", "to_cactus_kev", "from_cactus_kev",
           "to_value", "from_value", "Range", "equity", "equity_batch", "equity_matrix",
           "preflop_table", "EquityResult", "MatrixResult", "PreflopTable", "BatchResult",
           "evaluate_omaha", "compare", "to_rating", "from_rating", "hand_type", "evaluate_low",
           "describe_low", "HandIndexer", "hole_pairs", "board_strengths", "river_strength",
           "strength_histograms", "save_table", "load_table", "range_report", "__version__"]

# Names served lazily from their modules, so `import gpu_eval` stays quick.
_LAZY = {
    "Range": "gpu_eval.ranges",
    "equity": "gpu_eval.equity_engine.api",
    "equity_batch": "gpu_eval.equity_engine.batch.api",
    "BatchResult": "gpu_eval.equity_engine.batch.api",
    "equity_matrix": "gpu_eval.equity_engine.api",
    "preflop_table": "gpu_eval.equity_engine.api",
    "EquityResult": "gpu_eval.equity_engine.results",
    "MatrixResult": "gpu_eval.equity_engine.results",
    "PreflopTable": "gpu_eval.equity_engine.results",
    "compare": "gpu_eval.showdown",
    "to_rating": "gpu_eval.rating",
    "from_rating": "gpu_eval.rating",
    "hand_type": "gpu_eval.rating",
    "evaluate_low": "gpu_eval.evaluator.api",
    "describe_low": "gpu_eval.games.eight_or_better",
    "HandIndexer": "gpu_eval.solver_tables.indexer",
    "hole_pairs": "gpu_eval.solver_tables.layout",
    "board_strengths": "gpu_eval.solver_tables.board_strengths",
    "river_strength": "gpu_eval.solver_tables.river",
    "strength_histograms": "gpu_eval.solver_tables.histograms",
    "save_table": "gpu_eval.solver_tables.files",
    "load_table": "gpu_eval.solver_tables.files",
    "range_report": "gpu_eval.range_reports.api",
}


def __getattr__(name: str):
    if name in _LAZY:
        value = getattr(import_module(_LAZY[name]), name)
        globals()[name] = value  # found once: later lookups skip this hook (a call's cost)
        return value
    raise AttributeError(f"module 'gpu_eval' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
