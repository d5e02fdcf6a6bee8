"""Package-level promises: a light import, bounded memory, docstring examples."""

import doctest
import importlib
import subprocess
import sys
import tracemalloc

import numpy as np
import pytest

import gpu_eval as ge


def test_import_does_not_import_cupy():
    code = "import sys, gpu_eval; gpu_eval.cards.parse('As'); print('cupy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_numpy_backend_never_imports_cupy():
    code = ("import sys, gpu_eval; gpu_eval.evaluate('AsKsQsJsTs', backend='numpy');"
            "print('cupy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_memory_stays_bounded_by_input_and_output():
    n = 3_000_000
    rng = np.random.default_rng(0)
    ids = rng.integers(0, 52, size=(n, 7), dtype=np.uint8)
    ids[:, 1:] = (ids[:, :1] + np.arange(1, 7, dtype=np.uint8) * 7) % 52  # 7 distinct cards
    ge.evaluate(ids[:1000])  # build the tables first
    tracemalloc.start()
    out = ge.evaluate(ids, backend="numpy")
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert out.shape == (n,)
    # output (2 bytes/hand) plus a little per-row bookkeeping and per-chunk temporaries;
    # never a second copy of the input or a full-size uint64 mask array (8 bytes/hand).
    assert peak < n * 4 + 32 * 2**20, f"peak {peak / 2**20:.1f} MiB"


@pytest.mark.parametrize("module", ["gpu_eval.cards", "gpu_eval.strength", "gpu_eval.evaluator.api",
                                    "gpu_eval.combinatorics", "gpu_eval",
                                    "gpu_eval.equity_engine.deals.numpy_engine",
                                    "gpu_eval.equity_engine.planner",
                                    "gpu_eval.equity_engine.problem",
                                    "gpu_eval.equity_engine.holdem.strategies",
                                    "gpu_eval.equity_engine.holdem.shortcuts.known_hands",
                                    "gpu_eval.solver_tables.chunks", "gpu_eval.rank_planes",
                                    "gpu_eval.equity_engine.batch.spot_counts",
                                    "gpu_eval.equity_engine.strategies"])
def test_docstring_examples_run(module):
    mod = importlib.import_module(module)
    failures, tried = doctest.testmod(mod, verbose=False)
    assert failures == 0
