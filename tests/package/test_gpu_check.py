"""benchmarks/gpu_check.sh, the device script, run here by its --dry-run on the stand-in device:
every step runs and is recorded in the one JSON file, the caps fit the budget by arithmetic,
the GPU tools are called (as stubs), and a failing, hanging or over-budget run exits non-zero
and says so."""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "gpu_check.sh"
CHECK_STEPS = ["env", "compile", "tests_newest", "tests_gpu", "memcheck", "racecheck", "ncu",
               "figures"]

pytestmark = pytest.mark.skipif(shutil.which("bash") is None or shutil.which("timeout") is None,
                                reason="the device script needs bash and coreutils' timeout")


def dry_run(tmp_path: Path, **env: str) -> tuple[int, dict, str]:
    """Run the dry run; its exit status, its JSON and its log."""
    out = tmp_path / "out"
    full = {k: v for k, v in os.environ.items() if not k.startswith("GPU_CHECK_")}
    full.update(OUT=str(out), PYTHON=sys.executable, **env)
    proc = subprocess.run(["bash", str(SCRIPT), "--dry-run"], env=full, capture_output=True,
                          text=True, timeout=900)
    report = json.loads((out / "gpu_check.json").read_text())
    return proc.returncode, report, (out / "gpu_check.log").read_text()


def test_the_dry_run_records_every_step_within_its_budget(tmp_path):
    """One whole dry run (its steps take seconds each on the stand-in), checked three ways."""
    rc, report, log = dry_run(tmp_path)
    assert rc == 0, log[-3000:]
    assert report["status"] == "ok" and report["exit_code"] == 0 and report["dry_run"]
    assert [s["name"] for s in report["steps"]] == CHECK_STEPS
    for s in report["steps"]:
        assert (s["status"], s["rc"], s["timed_out"]) == ("ok", 0, False), s
        assert 0 < s["seconds"] <= s["cap_s"] + report["budget"]["kill_grace_s"]
        assert f"== step {s['name']} (cap {s['cap_s']}s)" in log
    caps_fit_the_budget_by_arithmetic(report)
    tools_are_called_and_figures_recorded(report)


def caps_fit_the_budget_by_arithmetic(report):
    b = report["budget"]
    caps = b["plan_caps_s"]
    assert list(caps) == CHECK_STEPS and b["caps_s"] == sum(caps.values())
    assert b["worst_case_s"] == b["caps_s"] + b["kill_grace_s"] * len(caps) + b["report_cap_s"]
    assert b["fits"] and b["worst_case_s"] <= b["budget_s"] == 290
    assert caps["memcheck"] >= 60 and caps["racecheck"] >= 60
    for s in report["steps"]:  # a dry run scales every cap (and the budget) alike
        assert s["cap_s"] == caps[s["name"]] * b["cap_scale"]


def tools_are_called_and_figures_recorded(report):
    calls = [(c["tool"], c["args"]) for c in report["stub_tool_calls"]]
    tools = [t for t, _ in calls]
    assert tools.count("nvidia-smi") == 1 and tools.count("ncu") == 1
    sanitizers = [a[a.index("--tool") + 1] for t, a in calls if t == "compute-sanitizer"]
    assert sanitizers == ["memcheck", "racecheck"]
    ncu_args = next(a for t, a in calls if t == "ncu")
    assert ncu_args[ncu_args.index("--kernel-name") + 1].startswith("regex:^(ge_eval_masks|")
    rows = report["figures"]["figures"]["rows"]
    assert {r["clock"] for r in rows} == {"events", "wall"}
    for r in rows:
        assert r["repeats"] >= 3 and r["median_s"] == statistics.median(r["seconds"])
        assert r["checked"] is True and r["timed"], r["name"]  # small: all compared
    assert report["figures"]["env"]["cuda_available"] is True


def test_a_failing_step_fails_the_run(tmp_path):
    rc, report, _ = dry_run(tmp_path, GPU_CHECK_ONLY="env,tests_newest",
                            GPU_CHECK_FAIL_STEP="tests_newest")
    assert rc == 1 and report["status"] == "failed" and report["exit_code"] == 1
    assert report["failed_steps"] == ["tests_newest"]
    by_name = {s["name"]: s for s in report["steps"]}
    assert set(by_name) == set(CHECK_STEPS)  # every step has a record, run or not
    assert (by_name["tests_newest"]["status"], by_name["tests_newest"]["rc"]) == ("failed", 1)
    assert by_name["env"]["status"] == "ok"
    assert {by_name[n]["status"] for n in CHECK_STEPS
            if n not in ("env", "tests_newest")} == {"not_run"}


def test_a_hanging_step_is_recorded_as_timed_out(tmp_path):
    rc, report, _ = dry_run(tmp_path, GPU_CHECK_ONLY="env", GPU_CHECK_STALL_STEP="env:1")
    env = report["steps"][0]
    assert rc == 1 and report["failed_steps"] == ["env"]
    assert (env["status"], env["timed_out"], env["rc"], env["cap_s"]) == ("timed_out", True,
                                                                          124, 1)


def test_caps_over_the_budget_run_nothing(tmp_path):
    rc, report, log = dry_run(tmp_path, GPU_CHECK_BUDGET="100")
    assert rc == 1 and report["status"] == "failed" and not report["budget"]["fits"]
    assert report["steps"] == [] and "over the 100s budget: nothing run" in log


def test_a_tool_that_refuses_the_device_is_a_skip_and_the_run_incomplete(tmp_path):
    rc, report, _ = dry_run(tmp_path, GPU_CHECK_ONLY="env,memcheck",
                            GPU_CHECK_STUB_REFUSE="compute-sanitizer")
    by_name = {s["name"]: s for s in report["steps"]}
    assert rc == 2 and report["status"] == "incomplete" and report["failed_steps"] == []
    assert by_name["memcheck"]["status"] == "skipped"
    assert "Device not supported" in by_name["memcheck"]["reason"]
    assert "memcheck" in report["skipped_steps"] and "ncu" in report["skipped_steps"]
