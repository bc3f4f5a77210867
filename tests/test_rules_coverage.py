"""Every log rule says why when it cannot judge, and a PASS lists every check."""

from __future__ import annotations

import pytest
from _rulekit import apply, decay, judge, make_run

from trainlint.model import Run
from trainlint.registry import REGISTRY

LOG_RULES = [r.code for r in REGISTRY.all("log") if r.code != "TL100"]


@pytest.mark.parametrize("code", LOG_RULES)
def test_not_checked_on_an_empty_log_with_a_reason(code):
    rep = apply(code, Run(source="empty.jsonl", format="jsonl"))
    assert rep.findings == []
    assert code in rep.checks.not_checked and len(rep.checks.not_checked[code]) > 10


def test_a_pass_lists_every_check_with_reasons():
    rep = judge(make_run(decay(100), lr=[1e-4] * 100))
    assert rep.verdict.value == "PASS"
    listed = set(rep.checks.ran) | set(rep.checks.not_checked)
    assert listed == {r.code for r in REGISTRY.all("log")}
    assert all(rep.checks.not_checked.values())
    assert rep.checks.not_checked["TL060"] == "no eval_loss series in this log"
