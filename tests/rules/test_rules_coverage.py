"""Every log rule says why when it cannot judge, and a PASS lists every check."""

from __future__ import annotations

import pytest
from _rulekit import apply, decay, judge, make_run

from trainlint.model import Run, Series
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


def test_the_rules_of_one_judgement_share_each_finite_series(monkeypatch):
    """Context.series hands every rule of one judgement the same finite part of a series,
    computed once per series, not once per rule; a NaN is still dropped for each of them."""
    values = decay(300)
    values[100] = float("nan")
    run = make_run(values, lr=[1e-4] * 300)
    calls = []
    real = Series.finite
    monkeypatch.setattr(Series, "finite", lambda self: calls.append(self.name) or real(self))
    rep = judge(run)
    assert calls.count("loss") <= 2, calls  # the rules' one, and the engine's check for too-short series
    assert calls.count("learning_rate") == 1, calls
    assert "TL001" not in rep.checks.not_checked
