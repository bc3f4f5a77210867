"""The Python API behind the CLI. Everything the commands do is callable here."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from . import compare as _compare
from .config import Settings, load_settings
from .discover import match_file, walk
from .inspectors.logs import is_uri, judge_log, judge_uri
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
    dataset: Path | None = None  # the training data: its label entropy is handed to TL099
    tokenizer: Path | None = None  # tokenizer folder for dataset token statistics
    vocab_size: int | None = None  # TL033: a loss stuck at ln(vocab_size) is a uniform guess
    num_classes: int | None = None
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


def doctor(paths: Iterable[str | Path] = (".",), options: Options | None = None, *, jobs: int = 1,
           on_report: Callable[[Report], None] | None = None, ray: str | None = None) -> Result:
    """Find every input under ``paths``, judge each, and return one Result.

    ``jobs``: judge in that many spawned processes (1: in this one; a script calling this with
    jobs > 1 needs the ``if __name__ == "__main__":`` guard); ``ray``: judge as Ray tasks
    ("local" starts Ray in-process, else a cluster address). ``on_report`` is called with each
    report as soon as it is ready; the Result's order does not depend on ``jobs`` or ``ray``."""
    from .readers.console import use_patterns

    options = options or Options(settings=load_settings())
    if jobs != 1 or ray is not None or on_report is not None:
        from . import parallel  # jobs=1 with on_report: inline, streaming each report

        return parallel.doctor(paths, options, jobs, on_report, ray)
    with use_patterns(options.patterns):
        return _doctor(paths, options)


def _doctor(paths: Iterable[str | Path], options: Options) -> Result:
    result = Result(command="doctor")
    session = _baseline_session(options)
    paths = list(paths)
    for raw in paths:
        if is_uri(str(raw)):
            result.reports.extend(judge_uri(str(raw), options))
            continue
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
    result.reports.extend(_explicit_inputs(paths, options))
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
