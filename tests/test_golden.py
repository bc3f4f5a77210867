"""Golden verdicts on every run we keep evidence of: a rule that silently stops firing, or starts
firing on a healthy run, breaks the build. Updating is explicit: `python scripts/golden.py update`,
with a CHANGELOG line saying why."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _golden_module():
    spec = importlib.util.spec_from_file_location("golden", ROOT / "scripts" / "golden.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_golden_verdicts_unchanged():
    golden = _golden_module()
    want = json.loads(golden.GOLDEN.read_text())
    got = golden.snapshot()
    present = {name for name, root in golden.ROOTS.items() if root.is_dir()}
    assert "examples" in present and "evidence" in present
    lines = golden.drift(want, got, present)
    assert not lines, (
        "golden verdicts drifted (update with `python scripts/golden.py update` and say why "
        "in CHANGELOG.md):\n" + "\n".join(lines)
    )


def test_golden_covers_every_evidence_run():
    want = json.loads((ROOT / "tests" / "golden" / "doctor.json").read_text())
    runs = sorted(p.name for p in (ROOT / "evidence").iterdir() if p.is_dir())
    for run in runs:
        assert any(k.startswith(f"evidence/{run}") and v["kind"] == "log" for k, v in want.items()), run


def test_drift_is_detected():
    golden = _golden_module()
    want = {"examples/a": {"kind": "log", "verdict": "FAIL", "codes": ["TL001:FAIL"]}}
    got = {"examples/a": {"kind": "log", "verdict": "PASS", "codes": []}}
    assert golden.drift(want, got, {"examples"}) == [f"examples/a: {want['examples/a']} -> {got['examples/a']}"]
    assert golden.drift(want, {}, {"shared"}) == []  # an absent root is not drift


def test_evidence_md_is_current():
    import subprocess
    import sys

    r = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "evidence_report.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stdout + r.stderr
