"""The JSONL file the live guard leaves beside a run (``trainlint-guard.jsonl``):
doctor reports what the guard saw and whether it stopped the run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..discover import inspector
from ..options import Options
from ..readers.recoveries import rolled_back_window
from ..registry import REGISTRY
from ..rules.recovery import batches
from ..safeio import read_str
from ..verdict import Finding, Report, Severity


@inspector("log", priority=20)
class GuardLogInspector:
    def sniff(self, path: Path, head: bytes) -> bool:
        return head.lstrip().startswith(b'{"trainlint_guard":')

    def judge(self, path: Path, options: Options) -> Report:
        report = Report(source=str(path), kind="log", format="trainlint-guard")
        records = []
        for n, line in enumerate(read_str(path).splitlines(), 1):
            try:
                record = json.loads(line)
            except ValueError:
                report.notes.append(f"line {n} is not JSON (the file may have been cut mid-write)")
                continue
            if isinstance(record, dict):
                records.append(record)
            else:
                report.notes.append(f"line {n} is not a guard record (a JSON {type(record).__name__})")
        latest: dict[str, Finding] = {}
        latest_at: dict[str, Any] = {}  # the step each finding was announced at
        for r in records:
            if r.get("type") == "recovery":
                _recovered(r, latest, latest_at, report)
            elif (
                r.get("type") == "finding" and r.get("severity") in ("FAIL", "WARN") and isinstance(r.get("code"), str)
            ):
                latest[r["code"]] = Finding(
                    r["code"],
                    r.get("name", ""),
                    r.get("category", ""),
                    Severity(r["severity"]),
                    r.get("message", ""),
                    r.get("evidence", {}),
                    r.get("step"),
                )
                latest_at[r["code"]] = r.get("at_step")
            elif r.get("type") == "stop":
                report.notes.append(f"the guard stopped the run at step {r.get('at_step')} on {r.get('code')}")
        ends = [r for r in records if r.get("type") == "end"]
        if ends:
            report.notes.append(
                f"the run ended with verdict {ends[-1].get('verdict')} at step {ends[-1].get('at_step')}"
            )
        else:
            report.notes.append("no end record: the run was killed, or is still going")
        notes = [f for f in report.findings if f.code == "TL089"]
        report.findings = sorted(latest.values(), key=lambda f: (f.severity is not Severity.FAIL, f.code)) + notes
        report.checks.ran = sorted({*latest, *(f.code for f in notes)})
        if not records:
            report.unjudged = "empty guard log"
        return report


def _recovered(record: dict[str, Any], latest: dict[str, Finding], at: dict[str, Any], report: Report) -> None:
    """A recovery: its NOTE; a rollback also withdraws the findings announced in the window it
    rolled back (their records are no longer the model's trajectory)."""
    window = rolled_back_window(record)
    if window is not None:
        lo, hi = window
        for code in [c for c, step in at.items() if isinstance(step, (int, float)) and lo < step <= hi]:
            latest.pop(code, None)
            at.pop(code, None)
    fault, restored, skipped = record.get("fault_step"), record.get("restored_step"), record.get("skipped_steps")
    count = len(skipped) if isinstance(skipped, list) else 0
    if record.get("outcome") == "recovered":
        message = f"{record.get('code')} at step {fault}: rolled back to step {restored}, skipped {batches(count)}"
    else:
        message = f"{record.get('code')} at step {fault}: not recovered, the run was stopped ({record.get('reason')})"
    evidence = {
        k: record.get(k)
        for k in ("code", "restored_step", "skipped_steps", "lr_before", "lr_after", "attempt", "outcome")
    }
    step = fault if isinstance(fault, (int, float)) else None
    REGISTRY.load()
    rule = REGISTRY.get("TL089")  # its name and category as the registry declares them
    name, category = (rule.name, rule.category) if rule is not None else ("recovered", "resume")
    report.findings.append(Finding("TL089", name, category, Severity.NOTE, message, evidence, step))
