"""Run the registered rules of one target over one subject, into a Report."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np
from msgspec.structs import replace

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
    states: dict[str, Any] | None = None,
) -> Report:
    """Apply every enabled rule for ``target`` (those ``only`` accepts) to ``subject``,
    recording findings and coverage. ``states``: what the rules keep across the judgements of
    a live run that grows at its end (Context.states)."""
    settings = (settings or Settings()).for_path(report.source)
    debug = bool(os.environ.get("TRAINLINT_DEBUG"))
    shared: dict[str, Any] = {}  # one judgement's finite series, for every rule (Context.shared)
    for rule in REGISTRY.all(target):
        if only is not None and not only(rule):
            continue
        if not settings.enabled(rule):
            report.checks.not_checked[rule.code] = "not selected by configuration"
            continue
        ctx = Context(rule, subject, settings.thresholds_for(rule), extra or {}, shared, states)
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
    sort_findings(report.findings)
    order_findings(report.findings)
    return report


def sort_findings(findings: list[Finding]) -> None:
    """In place: FAIL, WARN, NOTE, then by code and step (``order_findings`` then puts causes first)."""
    findings.sort(key=_finding_order)


def _as_list(out: Finding | Iterable[Finding] | None) -> list[Finding]:
    if out is None:
        return []
    if isinstance(out, Finding):
        return [out]
    return [f for f in out if f is not None]


_SEVERITY_RANK = {"FAIL": 0, "WARN": 1, "NOTE": 2}

# A finding that explains others (issue 30 §4): the cause comes first, in every view. A zero LR
# keeps the loss where it started (flat, dead, at chance level); a non-finite gradient norm makes
# the loss non-finite; a NaN loss produces the divergence and the spikes around it. In a
# comparison (issue 30 §5) the run's own fault explains where it stands against the baseline.
CAUSES: dict[str, tuple[str, ...]] = {
    "TL040": ("TL030", "TL031", "TL032", "TL033", "TL150", "TL151", "TL152", "TL153", "TL157"),
    "TL003": ("TL001", "TL010", "TL011", "TL021"),
    "TL001": ("TL010", "TL011", "TL020", "TL151", "TL153", "TL159"),
    "TL010": ("TL151", "TL153"),
}


def _finding_order(f: Finding) -> tuple[int, str, float]:
    return (_SEVERITY_RANK.get(f.severity.value, 3), f.code, f.step if f.step is not None else -1.0)


def order_findings(findings: list[Finding]) -> None:
    """Move, in place, a WARN or FAIL that explains others present (CAUSES) ahead of them, at
    the rank of the worst of its effects (a zero LR before the chance-level loss it causes, a
    NaN before the divergence). ``findings`` come sorted by severity; the sort is stable, so
    the rest keep their order."""
    rank = {
        f.code: min(_SEVERITY_RANK.get(g.severity.value, 3) for g in findings if g.code == f.code) for f in findings
    }

    def effects(code: str, seen: frozenset[str] = frozenset()) -> set[str]:
        direct = {e for e in CAUSES.get(code, ()) if e in rank and e not in seen}
        return direct.union(*(effects(e, seen | {code}) for e in direct))

    lead: dict[str, tuple[int, int]] = {}
    for code in rank:
        below = effects(code) if rank[code] <= _SEVERITY_RANK["WARN"] else set()
        if below:
            lead[code] = (min(rank[code], *(rank[e] for e in below)), -len(below))

    if lead:
        findings.sort(key=lambda f: lead.get(f.code, (_SEVERITY_RANK.get(f.severity.value, 3), 0)))


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
    out.update(axes_of(run, max_points))
    return out


# The other x axes a page can draw on, each a curve ``x:<axis>`` mapping steps to that axis.
TOKEN_NAMES = ("tokens", "num_tokens", "tokens_seen", "num_input_tokens_seen", "consumed_tokens", "total_tokens")


def axes_of(run: Run, max_points: int = CURVE_POINTS) -> dict[str, dict[str, Any]]:
    """Epoch, elapsed time (seconds from the first record) and tokens seen, by step, when the
    log has them (a watcher's clock is not the run's, so it gives no time axis)."""
    loss = run.get("loss")
    found: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    epoch = run.get("epoch")
    if epoch is not None and len(epoch):
        found["epoch"] = (epoch.steps, epoch.values)
    wall = run.get("wall_time")
    if loss is not None and loss.wall is not None and len(loss):
        found["time"] = (loss.steps, loss.wall)
    elif wall is not None and len(wall):
        found["time"] = (wall.steps, wall.values)
    if "time" in found and run.meta.get("clock") != "watcher":
        steps, t = found["time"]
        found["time"] = (steps, t - np.nanmin(t) if np.isfinite(t).any() else t)
    else:
        found.pop("time", None)
    tokens = next((s for n, s in run.series.items() if n.lower().rsplit("/", 1)[-1] in TOKEN_NAMES), None)
    if tokens is not None and len(tokens):
        found["tokens"] = (tokens.steps, tokens.values)
    out: dict[str, dict[str, Any]] = {}
    for axis, (steps, values) in found.items():
        ok = np.isfinite(values) & np.isfinite(steps)
        if ok.sum() < 2:
            continue
        xs, vs = _thin(steps[ok], values[ok], max_points)
        out[f"x:{axis}"] = {"name": axis, "points": int(ok.sum()), "steps": xs.tolist(), "values": vs.tolist()}
    return out


def _thin(steps: np.ndarray, values: np.ndarray, max_points: int) -> tuple[np.ndarray, np.ndarray]:
    """Every k-th point, the last kept: a monotone mapping is drawn by interpolation."""
    if len(steps) <= max_points:
        return steps, values
    keep = np.unique(np.append(np.linspace(0, len(steps) - 1, max_points).astype(int), len(steps) - 1))
    return steps[keep], values[keep]


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
    run: Run,
    settings: Settings | None = None,
    extra: Mapping[str, Any] | None = None,
    *,
    curves: bool = True,
    only: Callable[[Rule], bool] | None = None,
    states: dict[str, Any] | None = None,
) -> Report:
    """Judge one training run with every log rule (those ``only`` accepts: the live guard's
    open live modes). ``curves=False`` skips the downsampled curves kept for renderers (the
    live guard's scheduled judgements read only the findings). ``states``: the live guard's
    per-rule state (Context.states), used while the run is one segment whose series are the
    ones it recorded, each the one before with points added at its end (emptied otherwise)."""
    check_meta(run)  # a value of the wrong type (max_steps: 1e999 or "100") is noted and dropped
    recorded = run
    run = _unsum_loss(run)
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
    from .rules.segments import split_segments

    segs = split_segments(run)
    whole = len(segs) == 1 and segs[0] is run
    if not (whole and run is recorded):
        _spent(states)
        states = None
    if whole:
        return run_rules("log", run, report, settings, extra, only, states)
    return _judge_segments(run, segs, report, settings, extra, only)


def _spent(states: dict[str, Any] | None) -> None:
    """Nothing kept can serve a run whose series are not the recorded ones (a summed loss
    unsummed, a resumed run split): drop it, so that it is not extended later from them."""
    if states is not None:
        states.clear()


def _unsum_loss(run: Run) -> Run:
    """``run`` with its loss replaced by the per-step losses when the loss column is a running
    sum within each epoch (rules.cumulative), and a note saying so; else ``run`` itself."""
    from .rules.cumulative import epoch_starts, per_step

    loss = run.get("loss")
    if loss is None or run.roles.get("loss") is None:
        return run
    starts = epoch_starts(loss.values)
    if starts is None:
        return run
    note = (
        f"the loss column {loss.name!r} is a running sum within each epoch (it climbs through each of "
        f"{len(starts) + 1} epochs and falls back at each start): judged on the per-step losses it adds up"
    )
    series = {**run.series, loss.name: per_step(loss, starts)}
    return replace(run, series=series, notes=[*run.notes, note], meta=run.meta)


def _judge_segments(
    run: Run,
    segs: list[Run],
    report: Report,
    settings: Settings | None,
    extra: Mapping[str, Any] | None,
    only: Callable[[Rule], bool] | None = None,
) -> Report:
    """A resumed run: the whole-run rules once on the run, every other log rule on each segment
    (rules.segments only splits), all into ``report``."""
    ok = only or _any_rule
    run_rules("log", run, report, settings, extra, lambda r: r.whole_run and ok(r))
    ran: dict[str, None] = {}
    ends = _previous_ends(run, segs)
    for k, seg in enumerate(segs, 1):
        more = dict(extra or {}) if ends[k - 1] is None else {**(extra or {}), "previous_segment_end": ends[k - 1]}
        sub = run_rules(
            "log", seg, Report(source=report.source, kind="log"), settings, more, lambda r: not r.whole_run and ok(r)
        )
        _merge_segment(report, sub, k, _segment_label(seg, k, len(segs)), run_name(seg))
        ran.update(dict.fromkeys(sub.checks.ran))
    report.checks.ran = sorted(set(report.checks.ran) | set(ran))
    for code in ran:
        report.checks.not_checked.pop(code, None)
    report.checks.stood_down = dict(sorted(report.checks.stood_down.items()))
    report.checks.not_checked = dict(sorted(report.checks.not_checked.items()))
    report.notes = list(run.notes)
    report.findings.sort(key=_finding_order)
    _gather_sweep(report, len(segs))
    order_findings(report.findings)
    return report


def _previous_ends(run: Run, segs: list[Run]) -> list[float | None]:
    """For each segment, the loss level (median of its last tenth) the segment before it ended
    at (past a segment too short to hold a level, the one before it): what a segment appended later
    may have continued from. None for the first segment and for the writers of an interleaved log,
    which ran side by side rather than one after another."""
    from .rules.segments import reference, writer_chains
    from .rules.stats import robust_level

    ref = reference(run)
    if ref is None or writer_chains(ref.steps) is not None:
        return [None] * len(segs)
    # A launch cut off after a point or two says nothing of the level: the segment after it continued
    # from the last segment that held one (AnyaForger198517/DeepLearning-Homework's train.log: a
    # 30-epoch run, a relaunch stopped after 2 logged steps, then a 20-epoch run resumed from the
    # first one's checkpoint, the step counter at 1300 each time).
    out: list[float | None] = [None]
    for seg in segs[:-1]:
        loss = seg.get("loss")
        f = loss.finite() if loss is not None else None
        out.append(robust_level(f.values) if f is not None and len(f) >= 3 else out[-1])
    return out


SWEEP_RUNS = 10  # a file holding this many appended runs is a sweep: each finding names its runs at once
RUN_KEYS = ("trial", "trial_id", "run", "run_id", "run_index", "sweep_run", "seed")  # a run's own number


def _gather_sweep(report: Report, count: int) -> None:
    """A file of many appended runs (a sweep): the findings one rule makes with one severity on
    several runs become one finding that names the runs ("40 of 188 runs: ..."), the first run's
    message with it; the per-run evidence stays under ``evidence.runs_found``."""
    if count < SWEEP_RUNS:
        return
    groups: dict[tuple[str, str], list[Finding]] = {}
    for f in report.findings:
        if "segment" in f.evidence:
            groups.setdefault((f.code, f.severity.value), []).append(f)
    out: list[Finding] = []
    for f in report.findings:
        group = groups.get((f.code, f.severity.value), []) if "segment" in f.evidence else []
        if len(group) < 2:
            out.append(f)
        elif f is group[0]:
            out.append(_sweep_finding(group, count))
    report.findings = out


def _sweep_finding(group: list[Finding], count: int) -> Finding:
    names = [str(f.evidence.get("run_name") or f"run {f.evidence['segment']}") for f in group]
    shown = ", ".join(names[:12]) + (f" (+{len(names) - 12} more)" if len(names) > 12 else "")
    first = group[0]
    return Finding(
        code=first.code,
        name=first.name,
        category=first.category,
        severity=first.severity,
        message=f"{len(group)} of {count} runs in this file: {shown}; the first, {first.message}",
        evidence={
            "runs": count,
            "runs_flagged": len(group),
            "run_names": names,
            "runs_found": [dict(f.evidence, step=f.step) for f in group],
        },
        step=first.step,
    )


def _any_rule(rule: Rule) -> bool:
    return True


def _segment_label(seg: Run, k: int, count: int) -> str:
    """``segment k/n (steps a-b)`` for a run of several segments, else ""; ``trial 7 (segment
    k/n, steps a-b)`` when the segment logs its own run number (a sweep's trial column)."""
    from .rules.segments import reference

    if count <= 1:
        return ""
    ref = reference(seg)
    span = f"{ref.steps[0]:.0f}-{ref.steps[-1]:.0f}" if ref is not None and len(ref) else "?"
    name = run_name(seg)
    return f"{name} (segment {k}/{count}, steps {span})" if name else f"segment {k}/{count} (steps {span})"


def run_name(seg: Run) -> str | None:
    """``trial 7``: the run's number when it logs one (RUN_KEYS) that stays the same throughout."""
    for key in RUN_KEYS:
        s = seg.series.get(key)
        values = s.finite().values if s is not None else np.empty(0)
        if len(values) and float(values.min()) == float(values.max()):
            v = float(values[0])
            return f"{key} {int(v)}" if v.is_integer() else f"{key} {v:g}"
    return None


def _merge_segment(report: Report, sub: Report, k: int, label: str, name: str | None = None) -> None:
    """One segment's findings (labelled with it) and reasons, into the run's report."""
    for f in sub.findings:
        if label:
            f.message = f"{label}: {f.message}"
            f.evidence["segment"] = k
            if name:
                f.evidence["run_name"] = name
        report.findings.append(f)
    for code, why in sub.checks.stood_down.items():
        report.checks.stood_down.setdefault(code, f"{label}: {why}" if label else why)
    for code, why in sub.checks.not_checked.items():
        report.checks.not_checked.setdefault(code, f"{label}: {why}" if label else why)
