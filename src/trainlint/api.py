"""The Python API behind the CLI. Everything the commands do is callable here."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from .config import Settings, load_settings
from .discover import match_file, walk
from .engine import judge_run
from .model import Run
from .readers import ReadError, read_run as _read_raw
from .roles import assign_roles
from .verdict import Report, Result


@dataclass
class Options:
    """What every judging command takes: settings (rules, thresholds) and role overrides."""

    settings: Settings = field(default_factory=Settings)
    role_map: Mapping[str, str] = field(default_factory=dict)
    # Extra console-log recognisers: regexes with named groups (step, epoch, loss, ...), as --pattern.
    patterns: tuple[str, ...] = ()


def read_run(path: str | Path, role_map: Mapping[str, str] | None = None,
             patterns: Iterable[str] = ()) -> Run:
    """Read a log into a Run with roles assigned. Raises ReadError when it cannot.

    ``patterns``: extra console-log recognisers (regexes with named groups, like ``--pattern``).
    """
    from .readers.console import use_patterns

    with use_patterns(patterns):
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
    from .readers.console import use_patterns

    options = options or Options(settings=load_settings())
    with use_patterns(options.patterns):
        return _doctor(paths, options)


def _doctor(paths: Iterable[str | Path], options: Options) -> Result:
    result = Result(command="doctor")
    for raw in paths:
        path = Path(raw)
        if not path.exists():
            result.reports.append(Report(source=str(raw), kind="log", unjudged="no such file or folder"))
            continue
        items = list(walk(path))
        if not items and path.is_file():
            result.reports.append(Report(source=str(raw), kind="log",
                                         unjudged="not an input trainlint recognises"))
            continue
        for item in items:
            result.reports.append(item.inspector.judge(item.path, options))
    if not result.reports:
        result.empty_reason = "nothing to judge found under " + ", ".join(str(p) for p in paths)
    return result


__all__ = ["Options", "ReadError", "doctor", "judge", "match_file", "read_run"]
