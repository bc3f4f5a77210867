"""The Python API behind the CLI. Everything the commands do is callable here."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import compare as _compare
from .config import Settings, load_settings
from .discover import match_file, walk
from .engine import judge_run
from .inspectors.logs import is_uri, judge_log, judge_uri
from .model import Run
from .readers import ReadError, read_any
from .readers import read_run as _read_raw
from .roles import assign_roles
from .verdict import Report, Result


@dataclass
class Options:
    """What every judging command takes: settings (rules, thresholds) and role overrides."""

    settings: Settings = field(default_factory=Settings)
    role_map: Mapping[str, str] = field(default_factory=dict)
    baseline: tuple[str | Path, ...] = ()  # known-good run(s): doctor also compares every log with them
    dataset: Path | None = None  # the training data: its label entropy is handed to TL099
    tokenizer: Path | None = None  # tokenizer folder for dataset token statistics
    vocab_size: int | None = None  # TL033: a loss stuck at ln(vocab_size) is a uniform guess
    num_classes: int | None = None
    # Extra console-log recognisers: regexes with named groups (step, epoch, loss, ...), as --pattern.
    patterns: tuple[str, ...] = ()
    timeout_per_input: float | None = 60.0  # seconds one input may take before it is NOT-CHECKED
    follow_links: bool = False  # follow symlinks that leave a scanned folder


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
    from .discover import ScanStats
    from .isolate import judge_isolated
    from .safeio import file_kind, not_regular_reason

    result = Result(command="doctor")
    session = _baseline_session(options)
    paths = list(paths)
    stats = ScanStats()
    timeout = getattr(options, "timeout_per_input", 60.0)
    for raw in paths:
        if is_uri(str(raw)):
            result.reports.extend(judge_uri(str(raw), options))
            continue
        path = Path(raw)
        kind = file_kind(path)
        if kind == "missing":
            result.reports.append(Report(source=str(raw), kind="log", unjudged="no such file or folder"))
            continue
        if kind not in ("file", "dir"):
            result.reports.append(Report(source=str(raw), kind="log", unjudged=not_regular_reason(kind)))
            continue
        items = judge_isolated(lambda p=path: list(walk(p, follow_links=getattr(options, "follow_links", False),
                                                        stats=stats)), str(raw), timeout=timeout)
        if items and isinstance(items[0], Report):  # the scan itself failed or timed out
            result.reports.extend(items)  # type: ignore[arg-type]
            continue
        if not items and kind == "file":
            result.reports.extend(judge_isolated(lambda p=path: _judge_unclaimed(p, options), str(path), timeout=timeout))
            continue
        for item in items:
            result.reports.extend(judge_isolated(_item_judge(item, session, options), str(item.path),
                                                 item.inspector.kind, timeout))
    if stats.skipped:
        result.extra["skipped"] = stats.to_dict()
    result.reports.extend(_explicit_inputs(paths, options))
    if not result.reports:
        result.empty_reason = "nothing to judge found under " + ", ".join(str(p) for p in paths)
    if session is not None:
        result.extra["table"] = _compare.table(result.reports, session.baseline)
    return result


def _item_judge(item: Any, session: Any, options: Options) -> Any:
    """The call that judges one found input (composes with judge_isolated, in or out of process)."""
    if session is not None and item.inspector.kind == "log":
        return lambda: session.doctor_log(item.path)
    return lambda: item.inspector.judge(item.path, options)


def _judge_unclaimed(path: Path, options: Options) -> Report:
    """A file named explicitly that no inspector recognised: try it as a log anyway."""
    try:
        run = read_any(path)
    except ReadError:
        return Report(source=str(path), kind="log", unjudged="not an input trainlint recognises")
    return judge_log(run, options)


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


def _explicit_inputs(paths: list[str | Path], options: Options) -> list[Report]:
    """Judge --dataset/--tokenizer paths that the walk over ``paths`` does not reach."""
    from .dataset.handoff import data_format
    from .dataset.judge import judge_dataset
    from .tokenizer_check import judge_tokenizer

    roots = [Path(p).resolve() for p in paths]
    out: list[Report] = []
    for extra, kind in ((options.dataset, "dataset"), (options.tokenizer, "tokenizer")):
        if extra is None or any(r == Path(extra).resolve() or r in Path(extra).resolve().parents for r in roots):
            continue
        if kind == "dataset":
            out.extend(judge_dataset(Path(extra), options.tokenizer, settings=options.settings))
        else:
            out.append(judge_tokenizer(Path(extra), options.settings, data_format(options.dataset)))
    return out


__all__ = ["Options", "ReadError", "compare", "doctor", "judge", "match_file", "read_run"]
