"""The one record of a benchmarks/gpu_check.sh run: every step and every figure in one JSON file.

gpu_check.sh calls this last (standard library only). It reads the steps' records (a TSV
line each: name, cap, exit status, timed out, start, end, status, reason), the figures the
steps wrote, Nsight Compute's CSV and, in a dry run, the stub tools' calls; writes
``gpu_check.json``; prints a summary; and exits 1 if any step failed or timed out, if a step
of the plan has no record, or if the plan's caps exceed the budget; 2 ("incomplete") if
nothing failed but a step was skipped (a tool this machine lacks or refuses) or not run
(GPU_CHECK_ONLY); 0 only when every step ran and passed.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

FORMAT = 1


def read_steps(tsv: Path) -> list[dict]:
    """The steps' records, in the order they ran."""
    steps = []
    for line in tsv.read_text().splitlines():
        f = line.split("\t")
        name, cap, rc, timed_out, start, end, status = f[:7]
        steps.append({"name": name, "cap_s": int(cap), "rc": int(rc),
                      "timed_out": timed_out == "true",
                      "seconds": round(float(end) - float(start), 3), "status": status,
                      "reason": f[7] if len(f) > 7 else None})
    return steps


def read_ncu(path: Path) -> list[dict]:
    """Per-kernel figures from ``ncu --csv --page raw`` (a header row naming "Kernel Name", a
    row of units, then one row per profiled launch); empty where there is no such table."""
    if not path.exists():
        return []
    lines = [ln for ln in path.read_text(errors="replace").splitlines() if ln.startswith('"')]
    rows = list(csv.reader(lines))
    head = next((i for i, r in enumerate(rows) if "Kernel Name" in r), None)
    if head is None:
        return []
    names = rows[head]
    units = rows[head + 1] if head + 1 < len(rows) else [""] * len(names)
    out = []
    for r in rows[head + 2:]:
        if len(r) != len(names):
            continue
        rec = dict(zip(names, r))
        entry = {"kernel": rec.get("Kernel Name")}
        for col, unit in zip(names, units):
            if "__" in col:  # a metric
                entry[f"{col} ({unit})" if unit else col] = _number(rec[col])
        out.append(entry)
    return out


def _number(text: str):
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return text


def git_commit(root: Path) -> str | None:
    try:
        return subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True,
                              text=True, timeout=2).stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=Path, required=True)
    p.add_argument("--plan-steps", required=True, help="the plan's NAME CAP lines")
    p.add_argument("--work", type=Path, required=True)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--plan", required=True)
    p.add_argument("--dry-run", type=int, default=0)
    p.add_argument("--budget", type=int, required=True)
    p.add_argument("--kill-grace", type=int, required=True)
    p.add_argument("--report-cap", type=int, required=True)
    p.add_argument("--over-budget", type=int, default=0)
    p.add_argument("--cap-scale", type=int, default=1, help="caps and budget multiplied by this")
    a = p.parse_args(argv)

    plan = [(n, int(c)) for n, c in (ln.split() for ln in a.plan_steps.splitlines() if ln.strip())]
    steps = read_steps(a.steps)
    recorded = {s["name"] for s in steps}
    missing = [n for n, _ in plan if n not in recorded and not a.over_budget]
    figures = {}
    for f in sorted((a.work / "figures").glob("*.json")):
        try:
            figures[f.stem] = json.loads(f.read_text())
        except (OSError, ValueError) as exc:
            figures[f.stem] = {"unreadable": str(exc)}
    ncu = read_ncu(a.work / "ncu.csv")
    if ncu:
        figures["ncu"] = ncu
    calls = []
    stub = a.work / "stub_calls.jsonl"
    if stub.exists():
        calls = [json.loads(ln) for ln in stub.read_text().splitlines() if ln.strip()]
    caps = sum(c for _, c in plan)
    worst = caps + a.kill_grace * len(plan) + a.report_cap
    bad = [s["name"] for s in steps if s["status"] in ("failed", "timed_out")]
    skipped = [s["name"] for s in steps if s["status"] in ("skipped", "not_run")]
    status = ("failed" if bad or missing or a.over_budget else
              "incomplete" if skipped else "ok")
    report = {
        "format": FORMAT,
        "script": "benchmarks/gpu_check.sh",
        "plan": a.plan,
        "dry_run": bool(a.dry_run),
        "written_utc": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "host": platform.node(),
        "commit": git_commit(Path(__file__).resolve().parents[1]),
        "budget": {"budget_s": a.budget, "caps_s": caps, "kill_grace_s": a.kill_grace,
                   "report_cap_s": a.report_cap, "worst_case_s": worst,
                   "fits": worst <= a.budget, "cap_scale": a.cap_scale,
                   "plan_caps_s": dict(plan)},
        "steps": steps,
        "missing_steps": missing,
        "figures": figures,
        "stub_tool_calls": calls if a.dry_run else None,
        "seconds": round(sum(s["seconds"] for s in steps), 3),
        "status": status,
        "failed_steps": bad,
        "skipped_steps": skipped,
        "exit_code": {"ok": 0, "failed": 1, "incomplete": 2}[status],
    }
    a.out.parent.mkdir(parents=True, exist_ok=True)
    tmp = a.out.with_suffix(".json.part")
    tmp.write_text(json.dumps(report, indent=1) + "\n")
    os.replace(tmp, a.out)
    print(f"gpu_check {a.plan}{' (dry run)' if a.dry_run else ''}: {status.upper()} -- "
          f"{sum(s['status'] == 'ok' for s in steps)} ok, {len(bad)} failed or timed out "
          f"{bad or ''}, {len(skipped)} skipped or not run {skipped or ''}"
          f"{f', no record of {missing}' if missing else ''}; "
          f"{report['seconds']:.0f} s of steps, worst case {worst} s of {a.budget} s; {a.out}")
    return report["exit_code"]


if __name__ == "__main__":
    sys.exit(main())
