"""The JSONL file the live guard leaves beside a run (``trainlint-guard.jsonl``):
doctor reports what the guard saw and whether it stopped the run."""

from __future__ import annotations

import json
from pathlib import Path

from ..discover import inspector
from ..options import Options
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
                records.append(json.loads(line))
            except ValueError:
                report.notes.append(f"line {n} is not JSON (the file may have been cut mid-write)")
        latest: dict[str, Finding] = {}
        for r in records:
            if r.get("type") == "finding" and r.get("severity") in ("FAIL", "WARN"):
                latest[r["code"]] = Finding(
                    r["code"],
                    r.get("name", ""),
                    r.get("category", ""),
                    Severity(r["severity"]),
                    r.get("message", ""),
                    r.get("evidence", {}),
                    r.get("step"),
                )
            elif r.get("type") == "stop":
                report.notes.append(f"the guard stopped the run at step {r.get('at_step')} on {r.get('code')}")
        ends = [r for r in records if r.get("type") == "end"]
        if ends:
            report.notes.append(
                f"the run ended with verdict {ends[-1].get('verdict')} at step {ends[-1].get('at_step')}"
            )
        else:
            report.notes.append("no end record: the run was killed, or is still going")
        report.findings = sorted(latest.values(), key=lambda f: (f.severity is not Severity.FAIL, f.code))
        report.checks.ran = sorted(latest)
        if not records:
            report.unjudged = "empty guard log"
        return report
