"""``gpu_eval.distributed.range_report`` on a two-process LocalCluster: the same report as one
process, bit for bit; bad input submits nothing."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import numpy as np
import pytest

import gpu_eval.distributed as ged
from gpu_eval.range_reports.api import range_report

# Skipped without dask, which is found here but imported only where a cluster starts: every
# process that collects the suite (each xdist worker, the device script's collection) would
# otherwise pay ~0.3 s for its import.
pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("distributed") is None,
    reason="dask[distributed] is not installed (pip install 'gpu-eval[test]')")

ROOT = Path(__file__).resolve().parents[2]
BOARDS = ["AsKd7h", "7c7d2h", "9h8h7h", "Qs5d2c", "AhKhQh", "Jc9c4d2s", "Td8s6c4h2d"]


@pytest.fixture(scope="module")
def client():
    import distributed

    path = os.environ.get("PYTHONPATH", "")
    if str(ROOT) not in path.split(os.pathsep):
        os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), path) if p)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as c:
        c.wait_for_workers(2)
        yield c


def _same(a, b) -> None:
    for f in a.__dataclass_fields__:
        x, y = getattr(a, f), getattr(b, f)
        if f == "combos" and x is not None:
            for side in x:
                for k, v in x[side].items():
                    if isinstance(v, np.ndarray):
                        assert np.array_equal(v, y[side][k], equal_nan=True), (side, k)
        elif isinstance(x, np.ndarray):
            assert np.array_equal(x, y, equal_nan=True), f
        else:
            assert x == y, f


def test_cluster_report_is_the_single_process_report(client):
    # AhKh makes the ranges asymmetric: every board is its own; block_size=2: four tasks.
    want = range_report("AhKh, QQ, 0.5(T9s)", "JJ, AQs", boards=BOARDS, per_combo=True)
    got = ged.range_report(client, "AhKh, QQ, 0.5(T9s)", "JJ, AQs", boards=BOARDS,
                           per_combo=True, block_size=2)
    _same(got, want)


def test_cluster_every_flop_equals_flop_sweep(client):
    got = ged.range_report(client, "AKs", "QQ")
    s = ged.flop_sweep(client, "AKs", "QQ")
    assert np.array_equal(got.units, s.units) and np.array_equal(got.showdowns, s.showdowns)
    assert abs(got.overall - s.overall) < 1e-10


def test_bad_input_submits_nothing(client, monkeypatch):
    # Every input error is raised on the client before a task exists: no call reaches the
    # runner (checked directly, with no wait on the scheduler forgetting earlier tasks).
    from gpu_eval.distributed import reports

    calls = []
    monkeypatch.setattr(reports.runner, "run_tasks", lambda *a, **k: calls.append(a))
    with pytest.raises(ValueError, match="hero range"):
        ged.range_report(client, "QQ++", "JJ")
    with pytest.raises(ValueError, match="boards"):
        ged.range_report(client, "QQ", "JJ", boards="turns")
    with pytest.raises(ValueError, match="board 1"):
        ged.range_report(client, "QQ", "JJ", boards=["Kd7c2h", "AsAs2c"])
    with pytest.raises(TypeError, match="client"):
        ged.range_report("localhost", "QQ", "JJ")
    with pytest.raises(ValueError, match="block_size"):
        ged.range_report(client, "QQ", "JJ", block_size=0)
    assert calls == []
