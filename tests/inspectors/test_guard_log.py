"""doctor on the guard's own log (``trainlint-guard.jsonl``): what the guard saw, its recoveries,
and lines that are no guard records."""

from __future__ import annotations

import json

from trainlint.inspectors.guard_log import GuardLogInspector
from trainlint.options import Options


def _judge(tmp_path, *records, raw: str = ""):
    path = tmp_path / "trainlint-guard.jsonl"
    lines = [json.dumps({"trainlint_guard": 1, "type": "start", "time": 0.0}), *map(json.dumps, records)]
    path.write_text("\n".join(lines) + "\n" + raw)
    return GuardLogInspector().judge(path, Options())


def test_a_recovery_withdraws_the_findings_of_the_window_it_rolled_back(tmp_path):
    fault = {"type": "finding", "code": "TL001", "name": "nan-loss", "severity": "FAIL", "step": 55.0, "at_step": 55}
    later = {"type": "finding", "code": "TL020", "name": "loss-spike", "severity": "WARN", "step": 80.0, "at_step": 80}
    recovery = {
        "type": "recovery",
        "code": "TL001",
        "fault_step": 60,
        "restored_step": 50,
        "skipped_steps": list(range(51, 61)),
        "attempt": 1,
        "outcome": "recovered",
    }
    rep = _judge(tmp_path, fault, recovery, later, {"type": "end", "verdict": "WARN", "at_step": 100})
    assert [(f.code, f.severity.value) for f in rep.findings] == [("TL020", "WARN"), ("TL089", "NOTE")]
    assert rep.findings[1].message == "TL001 at step 60: rolled back to step 50, skipped 10 batches"
    assert rep.checks.ran == ["TL020", "TL089"]


def test_lines_that_are_no_guard_records_are_noted_not_an_internal_error(tmp_path):
    nameless = {"type": "finding", "severity": "FAIL", "message": "no code"}
    rep = _judge(tmp_path, [1, 2], nameless, raw='{"type": "fin')
    assert rep.unjudged is None and rep.findings == [] and rep.verdict.value == "PASS"
    assert "line 2 is not a guard record (a JSON list)" in rep.notes
    assert "line 4 is not JSON (the file may have been cut mid-write)" in rep.notes
