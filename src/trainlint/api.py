"""The Python API behind the CLI. Everything the commands do is callable here."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from . import compare as _compare
from .config import Settings, load_settings
from .discover import match_file, walk
from .engine import judge_run
from .model import Run
from .readers import ReadError, read_any, read_run as _read_raw
from .roles import assign_roles
from .verdict import Report, Result


@dataclass
class Options:
    """What every judging command takes: settings (rules, thresholds) and role overrides."""

    settings: Settings = field(default_factory=Settings)
    role_map: Mapping[str, str] = field(default_factory=dict)
    baseline: tuple[str | Path, ...] = ()  # known-good run(s): doctor also compares every log with them


def read_run(path: str | Path, role_map: Mapping[str, str] | None = None) -> Run:
    """Read a log into a Run with roles assigned. Raises ReadError when it cannot."""
    run = _read_raw(path)
    run.roles = assign_roles(run.series, role_map)
    return run


def judge(run: Run, settings: Settings | None = None) -> Report:
    """Judge a Run you built or read yourself."""
    if not run.roles:
        run.roles = assign_roles(run.series)
    return judge_run(run, settings)


def doctor(paths: Iterable[str | Path] = (".",), options: Options | None = None) -> Result:
    """Find every input under ``paths``, judge each, and return one Result."""
    options = options or Options(settings=load_settings())
    result = Result(command="doctor")
    session = _baseline_session(options)
    for raw in paths:
        path = Path(raw)
        if not path.exists():
            result.reports.append(Report(source=str(raw), kind="log", unjudged="no such file or folder"))
            continue
        items = list(walk(path))
        if not items and path.is_file():
            result.reports.append(_judge_unclaimed(path, options))
            continue
        for item in items:
            if session is not None and item.inspector.kind == "log":
                result.reports.extend(session.doctor_log(item.path))
            else:
                result.reports.append(item.inspector.judge(item.path, options))
    if not result.reports:
        result.empty_reason = "nothing to judge found under " + ", ".join(str(p) for p in paths)
    if session is not None:
        result.extra["table"] = _compare.table(result.reports, session.baseline)
    return result


def _judge_unclaimed(path: Path, options: Options) -> Report:
    """A file named explicitly that no inspector recognised: try it as a log anyway."""
    try:
        run = read_any(path)
    except ReadError:
        return Report(source=str(path), kind="log", unjudged="not an input trainlint recognises")
    run.roles = assign_roles(run.series, options.role_map)
    return judge_run(run, options.settings)


def _baseline_session(options: Options) -> _compare.BaselineSession | None:
    baseline = getattr(options, "baseline", ())
    if isinstance(baseline, (str, Path)):
        baseline = (baseline,)
    return _compare.BaselineSession(baseline, options) if baseline else None


def compare(baseline: Iterable[str | Path] | str | Path, runs: Iterable[str | Path],
            options: Options | None = None, align: str = "auto") -> Result:
    """Compare each run (a log, or every log under a folder) with the baseline run(s).

    One report of kind "comparison" per run; the runs x metrics table is in ``extra["table"]``.
    ``align`` is "auto" (by step when planned lengths agree, else by fraction), "step" or "fraction"."""
    options = options or Options(settings=load_settings())
    if isinstance(baseline, (str, Path)):
        baseline = (baseline,)
    session = _compare.BaselineSession(tuple(baseline), options, align)
    result = Result(command="compare")
    for raw in runs:
        result.reports.extend(session.compare_path(Path(raw)))
    if not result.reports:
        result.empty_reason = "no run to compare with the baseline"
    result.extra["table"] = _compare.table(result.reports, session.baseline)
    return result


__all__ = ["Options", "ReadError", "compare", "doctor", "judge", "match_file", "read_run"]
