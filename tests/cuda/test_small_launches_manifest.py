"""benchmarks/gpu_small_launches.py, the manifest gpu_check.sh runs under compute-sanitizer:
its cases launch every kernel of every module (every record of the kernel manifest), its
stored answers are NumPy's today, and on the stand-in device a case launches the kernels it
names and matches its stored answer."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
try:
    import gpu_small_launches as manifest
finally:
    sys.path.pop(0)


@pytest.fixture(scope="module")
def cases():
    return manifest.cases()


def test_the_cases_launch_every_kernel(cases):
    declared = {k for c in cases for k in c.kernels}
    assert declared == manifest.every_kernel_name()
    assert len({c.name for c in cases}) == len(cases)
    assert set(manifest.PROFILED) <= declared  # the ncu filter names real kernels


def test_stored_answers_are_numpys_today(cases):
    """A stale stored value would fail on the device for the wrong reason:
    `python benchmarks/gpu_small_launches.py --store` writes them afresh."""
    stored = json.loads(manifest.STORED.read_text())
    assert set(stored) == {c.name for c in cases}
    stale = [c.name for c in cases if manifest.digest(c.reference()) != stored[c.name]]
    assert not stale, f"stored answers differ from NumPy's: {stale}"


# One case per module family (the whole manifest runs in gpu_check.sh --dry-run's steps and
# on a GPU); bad inputs among them.
ON_THE_STAND_IN = ("check_eval_ids bitmask", "bad input: a card twice raises, naming the row",
                   "bad input: an id past the deck raises, naming the row", "omaha",
                   "low ace-five from masks", "equity exact, 3 players",
                   "equity monte carlo, 2 players (every pot handed out)",
                   "equity_batch, 2 players, 5-card boards", "omaha hi/lo exact, 2 players, turn",
                   "ge_hand_index", "ge_tables_river_counts", "fsm",
                   "deuce-seven-draw exact, 3 players, one card each from 4",
                   "range report, one turn and a list of boards")


@pytest.mark.parametrize("name", ON_THE_STAND_IN)
def test_case_on_the_stand_in_device(name, cases, stand_in_cupy, monkeypatch):
    from gpu_eval.cuda import games_module, lowball
    from gpu_eval.equity_engine.batch import cuda_engine as cb
    from gpu_eval.equity_engine.deals import cuda_engine as cd
    from gpu_eval.equity_engine.holdem import cuda_engine as ce
    from gpu_eval.solver_tables import cuda_engine as ct
    from gpu_eval.solver_tables import cuda_indexer as ci

    for launcher in (games_module, lowball, cb, cd, ce, ct, ci):
        monkeypatch.setattr(launcher, "_STATES", {})
    case = next(c for c in cases if c.name == name)
    got = manifest.digest(case.device())
    assert got == json.loads(manifest.STORED.read_text())[name]
    launched = {k for k, _, _ in stand_in_cupy.launches}
    assert set(case.kernels) <= launched, f"{name} launched {sorted(launched)}"
