"""Load a baseline once, then compare runs with it; every file is read at most once."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import msgspec

from ..compare.align import align
from ..compare.curves import comparison_curves
from ..compare.metrics import measure
from ..compare.model import METRICS, Comparison, loss_gaps
from ..config import Settings
from ..engine import judge_run, run_rules
from ..model import Run
from ..options import Options
from ..readers import ReadError
from ..registry import REGISTRY
from ..verdict import Report, Severity


class RunCache:
    """Reads each log once (keyed by resolved path); remembers read errors too."""

    def __init__(self, options: Options) -> None:
        self.options = options
        self._runs: dict[Path, Run | ReadError] = {}

    def get(self, path: Path) -> Run:
        from .logs import read_and_map

        key = Path(path).resolve()
        if key not in self._runs:
            try:
                self._runs[key] = read_and_map(Path(path), self.options)
            except ReadError as exc:
                self._runs[key] = exc
        got = self._runs[key]
        if isinstance(got, ReadError):
            raise got
        return got


def log_paths(path: Path, options: Options | None = None) -> list[Path]:
    """The training logs at ``path``: the file itself, or every log found under a folder."""
    from ..discover import walk

    if path.is_file():
        return [path]
    return [item.path for item in walk(path, options=options) if item.inspector.kind == "log"]


class Baseline(msgspec.Struct):
    sources: list[str] = msgspec.field(default_factory=list)
    runs: list[Run] = msgspec.field(default_factory=list)
    problem: str | None = None  # why the baseline cannot be used (-> NOT-CHECKED)
    notes: list[str] = msgspec.field(default_factory=list)
    paths: set[Path] = msgspec.field(default_factory=set)


def baseline_settings(settings: Settings) -> Settings:
    """The user's settings for judging a baseline alone, without a --select that could hide its faults."""
    return Settings(
        [],
        list(settings.ignore),
        {k: dict(v) for k, v in settings.thresholds.items()},
        list(settings.overrides),
        settings.origin,
    )


def load_baseline(paths: Iterable[Path], cache: RunCache, settings: Settings) -> Baseline:
    out = Baseline()
    problems: list[str] = []
    for raw in paths:
        path = Path(raw)
        if not path.exists():
            problems.append(f"baseline {raw}: no such file or folder")
            continue
        found = log_paths(path, cache.options)
        if not found:
            problems.append(f"baseline {raw}: no training log found")
        for p in found:
            try:
                run = cache.get(p)
            except ReadError as exc:
                problems.append(f"baseline {p} is unreadable: {exc}")
                continue
            out.runs.append(run)
            out.sources.append(run.source)
            out.paths.add(p.resolve())
    if not problems:
        problems = _judge_alone(out, settings)
    out.problem = "; ".join(problems) or None
    return out


def _judge_alone(base: Baseline, settings: Settings) -> list[str]:
    """Judge every baseline run alone: a FAIL makes it a bad baseline, NOT-CHECKED an unusable one."""
    problems = []
    for run in base.runs:
        rep = judge_run(run, baseline_settings(settings))
        codes = sorted({f.code for f in rep.findings if f.severity is Severity.FAIL})
        if codes:
            problems.append(f"bad baseline: {run.source} FAILs when judged alone ({', '.join(codes)})")
        elif rep.unjudged:
            problems.append(f"baseline {run.source} cannot be judged: {rep.unjudged}")
        elif rep.verdict is Severity.WARN:
            warns = sorted({f.code for f in rep.findings if f.severity is Severity.WARN})
            base.notes.append(f"baseline {run.source} has warnings when judged alone ({', '.join(warns)})")
    return problems


def compare_run(run: Run, base: Baseline, settings: Settings, mode: str = "auto") -> Report:
    """One comparison report: ``run`` against the baseline runs."""
    report = Report(
        source=run.source,
        kind="comparison",
        format=run.format,
        files=list(run.files),
        notes=list(base.notes),
        summary={"baseline": list(base.sources)},
    )
    if base.problem:
        report.unjudged = base.problem
        return report
    if not run.has("loss"):
        from ..roles import unmapped_reason

        report.unjudged = unmapped_reason(run)
        return report
    for r in (run, *base.runs):
        if r.damage:
            who = "the run" if r is run else f"baseline {r.source}"
            report.notes.append(
                f"{who} is damaged ({'; '.join(d.message for d in r.damage[:3])}); compared on what was intact"
            )
    al = align(run, base.runs, mode)
    run_m, base_m = measure(run, al), [measure(b, al) for b in base.runs]
    run_gap, base_gaps = loss_gaps(run_m, base_m)
    comp = Comparison(run, base.runs, al, run_m, base_m, run_gap, base_gaps)
    run_rules("comparison", comp, report, settings)
    report.summary.update(alignment=al.to_dict(), metrics=comp.table_row())
    report.curves = comparison_curves(run, base.runs, al)
    _unjudged_when_nothing_compared(report)
    return report


def _unjudged_when_nothing_compared(report: Report) -> None:
    if any(f.severity is Severity.FAIL for f in report.findings):
        return
    ch = report.checks
    # The loss rules (decisive): when none of the enabled ones could judge, the comparison is NOT-CHECKED.
    decisive = [r.code for r in REGISTRY.all("comparison") if r.decisive]
    enabled = [c for c in decisive if ch.not_checked.get(c) != "not selected by configuration"]
    judged = [c for c in enabled if c in ch.ran and c not in ch.stood_down]
    if enabled and not judged:
        why = next((ch.stood_down.get(c) or ch.not_checked.get(c) for c in enabled), "")
        report.unjudged = f"the loss could not be compared with the baseline: {why}"


class BaselineSession:
    """A baseline loaded once and a cache of every log read, shared by compare and doctor."""

    def __init__(self, baseline: Iterable[str | Path], options: Options, mode: str = "auto") -> None:
        self.options = options
        self.settings: Settings = options.settings if options is not None else Settings()
        self.mode = mode
        self.cache = RunCache(options)
        self.baseline = load_baseline([Path(p) for p in baseline], self.cache, self.settings)

    def compare_path(self, path: Path) -> list[Report]:
        """Comparison reports for the log at ``path`` or every log under it."""
        if not path.exists():
            return [Report(source=str(path), kind="comparison", unjudged="no such file or folder")]
        found = log_paths(path, self.options)
        if not found:
            return [Report(source=str(path), kind="comparison", unjudged="no training log found")]
        return [self._compare_file(p) for p in found]

    def _compare_file(self, path: Path) -> Report:
        try:
            run = self.cache.get(path)
        except ReadError as exc:
            return Report(source=str(path), kind="comparison", unjudged=str(exc))
        return self.judge(run)

    def judge(self, run: Run) -> Report:
        """The run's one report: judged alone (every single-run rule) and against the baseline."""
        from .logs import judge_log

        own = judge_log(run, self.options)
        return merge_judgements(own, compare_run(run, self.baseline, self.settings, self.mode))

    def doctor_log(self, path: Path) -> list[Report]:
        """What doctor --baseline reports for one log: one report, as ``compare`` gives it (a
        log that is part of the baseline: its own report, with a note)."""
        try:
            run = self.cache.get(path)
        except ReadError as exc:
            return [Report(source=str(path), kind="log", unjudged=str(exc))]
        if path.resolve() in self.baseline.paths:
            from .logs import judge_log

            own = judge_log(run, self.options)
            own.notes.append("this log is part of the baseline")
            return [own]
        return [self.judge(run)]


def merge_judgements(own: Report, comp: Report) -> Report:
    """One report of a compared run (issue 30 §5): the run's own judgement and its comparison
    with the baseline, each finding tagged with its origin ("run" or "baseline"), ordered
    cause first. A run that FAILs alone FAILs here; when the comparison could not be made the
    report is NOT-CHECKED with its reason unless the run's own findings FAIL it."""
    from ..engine import order_findings, sort_findings

    report = Report(
        source=own.source,
        kind="comparison",
        format=own.format or comp.format,
        files=list(own.files) or list(comp.files),
        unjudged=own.unjudged or comp.unjudged,
        notes=list(dict.fromkeys([*own.notes, *comp.notes])),
        summary={
            **own.summary,
            **comp.summary,
            "judged_alone": own.verdict.value,
            "against_baseline": comp.verdict.value,
        },
        curves=comp.curves or own.curves,
        marks=dict(own.marks),
    )
    report.findings = [msgspec.structs.replace(f, origin="run") for f in own.findings]
    report.findings += [msgspec.structs.replace(f, origin="baseline") for f in comp.findings]
    sort_findings(report.findings)
    order_findings(report.findings)
    ch, mine, theirs = report.checks, own.checks, comp.checks
    ch.ran = [*mine.ran, *(c for c in theirs.ran if c not in mine.ran)]
    ch.stood_down = {**mine.stood_down, **theirs.stood_down}
    ch.not_checked = {**mine.not_checked, **theirs.not_checked}
    return report


def table(reports: list[Report], base: Baseline) -> dict[str, Any]:
    """The runs x metrics table for the JSON envelope (and the text renderer)."""
    rows = [
        {"source": r.source, "verdict": r.verdict.value, "cells": r.summary.get("metrics", {})}
        for r in reports
        if r.kind == "comparison"
    ]
    return {
        "baseline": list(base.sources),
        "baseline_problem": base.problem,
        "columns": {key: label for key, (label, _attr) in METRICS.items()},
        "rows": rows,
    }
