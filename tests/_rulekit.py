"""Build runs by hand and apply one rule (or all) to them: shared by the rule tests."""

from __future__ import annotations

from typing import Any

import numpy as np

from trainlint.config import Settings
from trainlint.engine import judge_run, run_rules
from trainlint.model import Run
from trainlint.roles import assign_roles
from trainlint.verdict import Report


def make_run(
    loss: Any = None,
    *,
    steps: Any = None,
    eval_loss: Any = None,
    eval_steps: Any = None,
    lr: Any = None,
    grad_norm: Any = None,
    wall: Any = None,
    meta: dict | None = None,
    events: list | None = None,
    fmt: str = "jsonl",
    **other: Any,
) -> Run:
    """A Run from arrays; steps default to 1..n; other=name -> values (same steps) or (steps, values)."""
    run = Run(source="made-up.jsonl", format=fmt, meta=dict(meta or {}), events=list(events or []))
    if loss is not None:
        loss = np.asarray(loss, dtype=float)
        steps = np.arange(1, len(loss) + 1, dtype=float) if steps is None else np.asarray(steps, float)
        run.add("loss", steps, loss, wall)
    for name, vals in (("learning_rate", lr), ("grad_norm", grad_norm)):
        if vals is not None:
            vals = np.asarray(vals, dtype=float)
            run.add(name, steps if len(vals) == len(steps) else np.arange(1, len(vals) + 1), vals)
    if eval_loss is not None:
        run.add("eval_loss", eval_steps, eval_loss)
    for name, vals in other.items():
        if isinstance(vals, tuple):
            run.add(name, vals[0], vals[1])
        else:
            run.add(name, steps, vals)
    run.roles = assign_roles(run.series)
    return run


def apply(code: str, run: Run, extra: dict | None = None, **thresholds: float) -> Report:
    """Run only rule ``code`` over ``run`` (threshold overrides as keywords)."""
    settings = Settings(thresholds={code: dict(thresholds)} if thresholds else {})
    return run_rules("log", run, Report(source=run.source, kind="log"), settings, extra, only=lambda r: r.code == code)


def one(code: str, run: Run, extra: dict | None = None, **thresholds: float):
    """The single finding of rule ``code`` (asserts there is exactly one)."""
    rep = apply(code, run, extra, **thresholds)
    assert code in rep.checks.ran, rep.checks.to_dict()
    assert len(rep.findings) == 1, [f.message for f in rep.findings]
    return rep.findings[0]


def silent(code: str, run: Run, extra: dict | None = None, **thresholds: float) -> Report:
    """Assert rule ``code`` ran and did not fire; returns the report (for stood_down)."""
    rep = apply(code, run, extra, **thresholds)
    assert code in rep.checks.ran, rep.checks.to_dict()
    assert rep.findings == [], [f.message for f in rep.findings]
    return rep


def stood_down(code: str, run: Run, extra: dict | None = None) -> str:
    rep = silent(code, run, extra)
    assert code in rep.checks.stood_down, rep.checks.to_dict()
    return rep.checks.stood_down[code]


def not_checked(code: str, run: Run, extra: dict | None = None) -> str:
    rep = apply(code, run, extra)
    assert code in rep.checks.not_checked, rep.checks.to_dict()
    return rep.checks.not_checked[code]


def judge(run: Run, extra: dict | None = None, settings: Settings | None = None) -> Report:
    return judge_run(run, settings, extra)


def decay(
    n: int = 200, start: float = 3.0, end: float = 1.0, noise: float = 0.02, seed: int = 0, tau: float | None = None
) -> np.ndarray:
    """A noisy exponential decay from ``start`` towards ``end``."""
    rng = np.random.default_rng(seed)
    t = np.arange(n)
    tau = tau or n / 4
    return end + (start - end) * np.exp(-t / tau) + rng.normal(0, noise, n)
