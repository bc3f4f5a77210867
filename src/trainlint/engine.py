"""Run the registered rules of one target over one subject, into a Report."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np

from .config import Settings
from .model import Run, check_meta
from .registry import REGISTRY, Context, NotChecked, Rule, StandDown
from .verdict import Finding, Report


def run_rules(
    target: str,
    subject: Any,
    report: Report,
    settings: Settings | None = None,
    extra: Mapping[str, Any] | None = None,
    only: Callable[[Rule], bool] | None = None,
) -> Report:
    """Apply every enabled rule for ``target`` (those ``only`` accepts) to ``subject``,
    recording findings and coverage."""
    settings = (settings or Settings()).for_path(report.source)
    debug = bool(os.environ.get("TRAINLINT_DEBUG"))
    shared: dict[str, Any] = {}  # one judgement's finite series, for every rule (Context.shared)
    for rule in REGISTRY.all(target):
        if only is not None and not only(rule):
            continue
        if not settings.enabled(rule):
            report.checks.not_checked[rule.code] = "not selected by configuration"
            continue
        ctx = Context(rule, subject, settings.thresholds_for(rule), extra or {}, shared)
        try:
            with np.errstate(all="ignore"):  # overflow on absurd values is judged, not printed
                out = _as_list(rule.check(ctx))
        except NotChecked as exc:
            report.checks.not_checked[rule.code] = str(exc)
            continue
        except StandDown as exc:
            report.checks.ran.append(rule.code)
            report.checks.stood_down[rule.code] = str(exc)
            continue
        except Exception as exc:  # a rule bug must not hide the others  # noqa: BLE001
            if debug:
                raise
            report.checks.not_checked[rule.code] = f"internal error in rule: {type(exc).__name__}: {exc}"
            continue
        report.checks.ran.append(rule.code)
        report.findings.extend(out)
    report.findings.sort(key=_finding_order)
    return report


def _as_list(out: Finding | Iterable[Finding] | None) -> list[Finding]:
    if out is None:
        return []
    if isinstance(out, Finding):
        return [out]
    return [f for f in out if f is not None]


_SEVERITY_RANK = {"FAIL": 0, "WARN": 1, "NOTE": 2}


def _finding_order(f: Finding) -> tuple[int, str, float]:
    return (_SEVERITY_RANK.get(f.severity.value, 3), f.code, f.step if f.step is not None else -1.0)


CURVE_ROLES = ("loss", "eval_loss", "learning_rate", "grad_norm", "step_time", "throughput")
CURVE_POINTS = 1000


def curves_of(run: Run, max_points: int = CURVE_POINTS) -> dict[str, dict[str, Any]]:
    """The run's role series, downsampled with extremes and non-finite points kept."""
    from .downsample import minmax_downsample

    out: dict[str, dict[str, Any]] = {}
    for role in CURVE_ROLES:
        s = run.get(role)
        if s is None or not len(s):
            continue
        steps, values = minmax_downsample(s.steps, s.values, max_points)
        out[role] = {"name": s.name, "points": len(s), "steps": steps.tolist(), "values": values.tolist()}
    return out


TREND_POINTS = 20  # finite loss points the trend rules (spikes, plateau, dead run, ...) need


def _mark_too_short(run: Run, report: Report) -> None:
    """A log with a loss but fewer points than the trend rules need says so (header and JSON):
    its verdict comes from the point checks only (NaN, zero, crash, ...)."""
    loss = run.get("loss")
    if loss is None or not len(loss):
        return
    points = len(loss.finite())
    if points < TREND_POINTS:
        report.summary.update(too_short=True, loss_points_finite=points, trend_rules_need=TREND_POINTS)


def marks_of(run: Run) -> dict[str, Any]:
    """The best-model checkpoint the trainer recorded, with its step, for drawing on the curves."""
    meta = run.meta if isinstance(run.meta, dict) else {}
    name = meta.get("best_model_checkpoint")
    step = meta.get("best_global_step", meta.get("best_step"))
    if isinstance(name, str) and step is None:
        tail = name.rstrip("/").rsplit("-", 1)[-1]
        step = int(tail) if tail.isdigit() else None
    if isinstance(step, bool) or not isinstance(step, (int, float)):
        return {}
    return {"best_model_checkpoint": {"step": step, "name": name if isinstance(name, str) else ""}}


def judge_run(
    run: Run, settings: Settings | None = None, extra: Mapping[str, Any] | None = None, *, curves: bool = True
) -> Report:
    """Judge one training run with every log rule. ``curves=False`` skips the downsampled curves
    kept for renderers (the live guard's scheduled judgements read only the findings)."""
    check_meta(run)  # a value of the wrong type (max_steps: 1e999 or "100") is noted and dropped
    report = Report(
        source=run.source,
        kind="log",
        format=run.format,
        files=list(run.files),
        notes=list(run.notes),
        summary=run.summary(),
        curves=curves_of(run) if curves else {},
        marks=marks_of(run),
    )
    if not run.has("loss"):
        from .roles import unmapped_reason

        report.unjudged = unmapped_reason(run)
    _mark_too_short(run, report)
    from .rules.segments import judge_segments, split_segments

    segs = split_segments(run)
    if len(segs) == 1 and segs[0] is run:
        return run_rules("log", run, report, settings, extra)
    judge_segments(run, segs, report, lambda subject, rep, only: run_rules("log", subject, rep, settings, extra, only))
    report.notes = list(run.notes)
    report.findings.sort(key=_finding_order)
    return report
