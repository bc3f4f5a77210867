"""RULES.md is generated from the registry; `trainlint rules` lists and explains every rule."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from trainlint.registry import CATEGORIES, REGISTRY
from trainlint.report.rules import rules_markdown

ROOT = Path(__file__).resolve().parents[2]


def test_rules_md_is_current():
    current = (ROOT / "RULES.md").read_text(encoding="utf-8")
    assert current == rules_markdown(), "RULES.md drifted: run python scripts/gen_rules_md.py"


def test_gen_script_check_mode():
    r = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "gen_rules_md.py"), "--check"], capture_output=True, text=True
    )
    assert r.returncode == 0, r.stderr


def test_every_log_rule_is_documented():
    for r in REGISTRY.all("log"):
        assert r.category in CATEGORIES and len(r.explanation) > 120, r.code
        assert r.summary.endswith(".") and len(r.summary) < 120, r.code
        assert all(t.doc for t in r.thresholds), r.code
        if r.code < "TL100":
            assert re.match(r"^TL0\d\d$", r.code)


def test_cli_lists_and_explains_every_rule(cli):
    r = cli("rules")
    assert r.code == 0
    for rule in REGISTRY.all():
        assert rule.code in r.out and rule.name in r.out
    r = cli("rules", "TL060")
    assert r.code == 0 and "overfit" in r.out and "min_rise" in r.out
    r = cli("rules", "grad-norm-spike", "--format", "json")
    (one,) = r.json()["rules"]
    assert one["code"] == "TL021" and {t["name"] for t in one["thresholds"]} >= {"z", "repeat"}
    r = cli("rules", "TL999")
    assert r.code == 2 and "no rule" in r.err
