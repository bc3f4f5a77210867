"""When a rule may judge a run still training (issue 30 §6): every log rule declares a live mode
(registry.LIVE), the guard honours it, and `trainlint rule CODE` and RULES.md show it."""

from __future__ import annotations

import math

import numpy as np

from trainlint.engine import judge_run
from trainlint.live import Guard
from trainlint.live.guard import live_rules
from trainlint.registry import LIVE, REGISTRY

# Each log rule's mode, reviewed one by one: a new log rule goes here with the mode it declares.
MODES = {
    "always": "TL001 TL002 TL003 TL004 TL005 TL006 TL010 TL011 TL012 TL013 TL020 TL021 TL040 TL050 TL035 TL051 TL067 TL081 "
    "TL085 TL087 TL088 TL089 TL090 TL095 TL100",
    "warmup": "TL030 TL031 TL032 TL060",
    "share": "TL061 TL065 TL066 TL070 TL086",
    "end": "TL033 TL034 TL041 TL080 TL099",
}


def test_every_log_rule_declares_the_mode_reviewed_for_it():
    declared = {r.code: r.live for r in REGISTRY.all("log")}
    assert declared == {code: mode for mode, codes in MODES.items() for code in codes.split()}
    assert set(MODES) == set(LIVE)


def long_warmup(n: int = 700, warmup: int = 300):
    """A loss that sits still through a 300-step linear LR warm-up and for a while after it."""
    rng = np.random.default_rng(0)
    for i in range(n):
        lr = 1e-3 * (i + 1) / warmup if i < warmup else 1e-3 * (1 - (i - warmup) / (n - warmup))
        yield i, {"loss": 2.0 + rng.normal(0, 0.01), "learning_rate": lr, "grad_norm": 1.0}


def test_warmup_rules_wait_for_the_warmup_to_end():
    stagnation = {"TL030", "TL031", "TL032"}
    g = Guard()
    for step, metrics in long_warmup():
        g.observe(step, wall_time=float(step), **metrics)
    announced = {(f.code, step) for _, step, f in g.timeline}
    assert {code for code, _ in announced} & stagnation  # the run is dead, and the guard says so live
    assert all(step >= 300 for code, step in announced if code in stagnation)  # but only after the warm-up
    # the gate is what held them: the same records, judged with the warm-up rules on, fire at step 200
    early = Guard()
    for step, metrics in long_warmup(201):
        early.observe(step, **metrics)
    run = early.history.view()
    opened = {f.code for f in judge_run(run, only=live_rules(("always", "warmup"))).findings}
    assert opened & stagnation and not early.warmup_over


def test_warmup_steps_given_open_the_gate():
    g = Guard(warmup_steps=50)
    for i in range(200):
        g.observe(i, loss=2.0 + 0.01 * math.sin(i), learning_rate=1e-3 * min(1.0, (i + 1) / 300))
    assert "warmup" in g.open_modes() and g.opened >= {"always", "warmup"}


def eval_below_train(g: Guard, n: int = 1000) -> None:
    """An eval loss below the train loss at every evaluation, by a gap that grows over the first
    300 steps (TL066 WARN from about step 200 when judged)."""
    for i in range(n):
        t = 2.0 - 0.2 * i / n
        metrics = {"loss": t, "learning_rate": 1e-3 * (1 - i / n)}
        if i % 20 == 19:
            metrics["eval_loss"] = t * (0.95 - 0.4 * min(1.0, i / 300))
        g.observe(i, **metrics)


def test_share_rules_judge_from_half_the_planned_steps():
    g = Guard(meta={"max_steps": 1000})
    eval_below_train(g)
    steps = [step for _, step, f in g.timeline if f.code == "TL066"]
    assert steps and steps[0] >= 500  # first judged past half the plan, not before
    report = g.close()
    assert "TL066" in {f.code for f in report.findings} and not any("TL066" in n for n in report.notes)


def test_share_rules_without_a_plan_run_at_the_end_and_the_report_says_so():
    g = Guard()
    eval_below_train(g)
    assert "TL066" not in {f.code for _, _, f in g.timeline} and "share" not in g.opened
    report = g.close()
    assert "TL066" in {f.code for f in report.findings if f.severity.value == "WARN"}
    assert any(n.startswith("TL066 eval-below-train judges a live run once half") for n in report.notes)


def test_the_rule_reference_shows_the_live_mode(cli):
    out = cli("rules", "TL031").out
    assert "live guard (`warmup`): once the warm-up is over" in out
    out = cli("rules", "TL001").out
    assert "live guard (`always`): at every judgement" in out
    data = cli("rules", "--format", "json").json()
    assert {r["code"]: r.get("live") for r in data["rules"]}["TL099"] == "end"


def test_an_open_gate_stays_open():
    g = Guard()
    for i in range(76):  # warms up, decays, then warms up again past its old peak (a restart)
        top = 1e-3 * (1 + i // 60)
        lr = top * ((i % 60) + 1) / 30 if i % 60 < 30 else top * (60 - i % 60) / 30
        g.observe(i, loss=2.0 - i / 200, learning_rate=lr)
        if i == 45:
            assert "warmup" in g.open_modes()
    assert not g.warmup_over and "warmup" in g.open_modes()
