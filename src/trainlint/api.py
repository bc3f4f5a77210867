"""The typed public Python API. Every CLI command calls one of these and renders the Result with
:mod:`trainlint.report`; nothing else is needed to do what a command does.

Each judging function takes a frozen :class:`Options` (``trainlint.options``) that reaches every
reader, inspector and rule as an argument. Inputs are paths: a ``str`` or a ``Path`` is one path
(never iterated), and the functions that judge several inputs also take an iterable of them."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .config import Settings, load_settings
from .discover import match_file, walk
from .engine import judge_run
from .inspectors.logs import is_uri
from .model import Run
from .options import EnvOptions, Options, ReadOptions
from .readers import ReadError
from .readers import read_run as _read_raw
from .registry import Rule
from .roles import apply_roles, parse_map
from .verdict import Finding, Report, Result, signal_of

if TYPE_CHECKING:  # at run time from __getattr__ below
    from .live.guard import Guard, StopPolicy


PathLike = str | os.PathLike[str]
Paths = PathLike | Iterable[PathLike]  # one path, or several


def as_paths(paths: Paths) -> list[str | Path]:
    """``paths`` as a list: a str or a Path is one path, never its characters. A str stays as
    given (an ``mlflow://`` address is not a file path); any other path-like becomes a Path."""
    if isinstance(paths, (str, os.PathLike)):
        return [one_path(paths)]
    if isinstance(paths, (bytes, bytearray)) or not isinstance(paths, Iterable):
        raise TypeError(f"expected a path (str or Path) or an iterable of them, not {type(paths).__name__}")
    return [one_path(p) for p in paths]


def one_path(path: PathLike) -> str | Path:
    """The one path a single-input function reads (a str is a path, never iterated)."""
    if isinstance(path, str):
        return path
    if not isinstance(path, os.PathLike):
        raise TypeError(f"expected a path (str or Path), not {type(path).__name__}: {path!r}"[:200])
    return Path(path)


class OptionsError(ValueError):
    """A bad option value (config file, --select, --threshold, --map, --pattern): one line."""


def build_options(
    config: Path | None = None,
    select: Iterable[str] = (),
    ignore: Iterable[str] = (),
    thresholds: Iterable[str] = (),
    role_map: Iterable[str] = (),
    *,
    targets: Iterable[str] | None = None,
    command: str | None = None,
    **fields: Any,
) -> Options:
    """Options as the CLI spells them: settings from the config file (default: the nearest
    trainlint.toml or pyproject.toml) with --select/--ignore/--threshold on top, --map ROLE=NAME
    items, and any other :class:`Options` field by name. Raises OptionsError on bad input:
    a selector (comma lists allowed) that names no rule, or a selection that leaves no rule of
    ``targets`` (default: any rule) to run."""
    from .config import ConfigError, parse_selectors, parse_threshold_options, require_rules
    from .roles import parse_map

    try:
        settings = load_settings(config)
        select = list(select)  # an iterator is always truthy: an empty one must keep the config's
        if select:
            settings.select = parse_selectors(select, "--select")
        settings.ignore += parse_selectors(list(ignore), "--ignore")
        settings.pin_thresholds(parse_threshold_options(thresholds))  # beats per-path overrides
        require_rules(settings, targets, command)
        if fields.get("patterns"):
            from .readers.console.reader import compile_user_pattern

            for pattern in fields["patterns"]:
                compile_user_pattern(pattern)
        return Options(settings=settings, role_map=parse_map(role_map), **fields)
    except (ConfigError, ValueError) as exc:
        raise OptionsError(str(exc)) from None


def read_run(
    path: PathLike,
    role_map: Mapping[str, str] | None = None,
    patterns: Iterable[str] = (),
    options: Options | None = None,
) -> Run:
    """Read a log into a Run with roles assigned. Raises ReadError when it cannot.

    ``patterns``: extra console-log recognisers (regexes with named groups, like ``--pattern``);
    ``options`` (when given) supplies the role map, the patterns and the reader switches."""
    if options is None:
        options = Options(role_map=dict(role_map or {}), patterns=tuple(patterns))
    run = _read_raw(one_path(path), options=options.read)  # a list is refused in one line
    apply_roles(run, options.role_map)
    return run


def read_runs(path: PathLike, options: Options | None = None) -> list[Run]:
    """The run(s) behind ``path``: one for a file or folder, every run of an ``mlflow://`` address."""
    options = options or Options()
    path = str(one_path(path))
    if not is_uri(path):
        try:
            return [read_run(Path(path), options=options)]
        except ReadError:
            logs = _logs_under(Path(path), options)
            if len(logs) == 1:
                return [read_run(logs[0], options=options)]
            if len(logs) > 1:
                shown = ", ".join(str(p) for p in logs[:8]) + (f", +{len(logs) - 8} more" if len(logs) > 8 else "")
                raise ReadError(f"this folder holds {len(logs)} runs; name one: {shown}") from None
            raise
    from .readers.mlflow_store import server_runs

    runs = server_runs(path)
    if not runs:
        raise ReadError("no runs in this experiment")
    for run in runs:
        apply_roles(run, options.role_map)
    return runs


def _logs_under(path: Path, options: Options) -> list[Path]:
    """The logs discovery finds under a folder (for `series` on a folder of runs)."""
    if not path.is_dir():
        return []
    return list(dict.fromkeys(item.path for item in walk(path, kinds={"log"}, options=options)))


def judge(run: Run, settings: Settings | None = None) -> Report:
    """Judge a Run you built or read yourself."""
    if not run.roles:
        apply_roles(run)
    return judge_run(run, settings)


def doctor(
    paths: Paths = ".",
    options: Options | None = None,
    *,
    jobs: int = 1,
    on_report: Callable[[Report], None] | None = None,
    on_progress: Callable[[int, int, str], None] | None = None,
    executor: Any = None,
) -> Result:
    """Find every input under ``paths`` (a path, or an iterable of them), judge each, and
    return one Result.

    ``on_report(report)`` is called with each report as soon as it is judged (to stream
    output); ``on_progress(found, judged, current)`` as inputs are found and judged (for a
    progress line). ``jobs``: judge in that many spawned processes (1: in this one; 0: one per
    core when the scan is big enough to repay starting them, as the CLI's default; a script
    calling this with jobs > 1 needs the ``if __name__ == "__main__":`` guard). ``executor``:
    run the per-input tasks elsewhere, e.g. ``trainlint.integrations.ray_doctor.RayExecutor("auto")``.
    The Result's order does not depend on ``jobs`` or ``executor``."""
    options = options or Options(settings=load_settings())
    return _doctor_tasks(as_paths(paths), options, jobs, on_report, on_progress, executor)


def _doctor_tasks(
    paths: list[str | Path],
    options: Options,
    jobs: int,
    on_report: Callable[[Report], None] | None,
    on_progress: Callable[[int, int, str], None] | None,
    executor: Any,
) -> Result:
    """The inputs under ``paths`` planned as tasks (trainlint.parallel), judged in this process,
    a process pool or an executor: one Result whatever the means."""
    from . import parallel

    tick = on_progress or (lambda found, judged, current: None)
    count = {"found": 0, "judged": 0}

    def found(n: int, current: str) -> None:
        count["found"] = n
        tick(n, 0, current)

    def done(task: parallel.Task) -> None:
        count["judged"] += task.inputs
        tick(count["found"], count["judged"], task.target)

    named = {str(p) for p in paths}

    def scanned_non_log(report: Report) -> bool:
        return _not_recognised(report) and report.source not in named

    def stream(report: Report) -> None:
        if on_report is not None and not scanned_non_log(report):
            on_report(report)

    from .discover import ScanStats

    result = Result(command="doctor")
    stats = ScanStats()  # what the scan left alone: FIFOs, sockets, devices, symlinks out (issue 20)
    scan = executor is None and any(Path(p).is_dir() for p in paths)  # a folder: many inputs, likely
    try:
        with parallel.started_pool(jobs if scan else 1) as pool:  # its workers start during the walk
            tasks = parallel.plan(paths, options, found, stats)
            reports = parallel.execute(tasks, options, jobs, stream, executor, done, pool)
    except KeyboardInterrupt as exc:  # SIGINT or SIGTERM: what was judged so far (issue 33)
        reports = exc.reports if isinstance(exc, parallel.ScanInterrupted) else []
        result.interrupted = signal_of(exc)
    result.reports = [r for r in reports if not scanned_non_log(r)]
    if stats.skipped:
        result.extra["skipped"] = stats.to_dict()
    for report in _explicit_inputs(paths, options) if result.interrupted is None else ():
        result.reports.append(report)
        stream(report)
    _doctor_extra(result, [r.source for r in reports if scanned_non_log(r)], paths, options)
    return result


def _doctor_extra(result: Result, skipped: list[str], paths: list[str | Path], options: Options) -> None:
    """What a doctor Result says beside its reports: the files not recognised, why it is empty,
    the comparison table."""
    if skipped:
        result.extra["not_recognised"] = skipped
    if not result.reports and result.interrupted is not None:
        result.empty_reason = "stopped before any input was judged"
    elif not result.reports:
        result.empty_reason = "nothing to judge found under " + ", ".join(str(p) for p in paths)
        if skipped:
            result.empty_reason += f" ({len(skipped)} file(s) not recognised as training logs)"
    if options.baseline:  # the session the inline judging used (one per process)
        from . import parallel
        from .inspectors import comparison as _compare

        session = parallel.baseline_session(options)
        result.extra["table"] = _compare.table(result.reports, session.baseline)


def default_jobs() -> int:
    """``doctor --jobs`` by default: the cores this process may use."""
    from .parallel import default_jobs as cores

    return cores()


def _not_recognised(report: Report) -> bool:
    """In a folder scan, a file a reader claimed by its name only and that holds no training
    content is counted in ``extra['not_recognised']`` instead of being reported."""
    return report.kind == "log" and report.unjudged is not None and bool(report.summary.get("not_recognised"))


def compare(
    baseline: Paths,
    runs: Paths,
    options: Options | None = None,
    align: str = "auto",
) -> Result:
    """Compare each run (a log, or every log under a folder) with the baseline run(s).

    One report of kind "comparison" per run: the run judged alone (every single-run rule, as
    ``doctor`` judges it) and against the baseline, each finding's ``origin`` "run" or
    "baseline"; the runs x metrics table is in ``extra["table"]``.
    ``align`` is "auto" (by step when planned lengths agree, else by fraction), "step" or "fraction"."""
    from .inspectors import comparison as _compare

    options = options or Options(settings=load_settings())
    runs = as_paths(runs)
    session = _compare.BaselineSession(tuple(as_paths(baseline)), options, align)
    result = Result(command="compare")
    try:
        for raw in runs:
            result.reports.extend(session.compare_path(Path(raw)))
    except KeyboardInterrupt as exc:  # SIGINT or SIGTERM: the runs compared so far (issue 33)
        result.interrupted = signal_of(exc)
    if not result.reports:
        result.empty_reason = "no run to compare with the baseline"
    result.extra["table"] = _compare.table(result.reports, session.baseline)
    return result


def _explicit_inputs(paths: list[str | Path], options: Options) -> list[Report]:
    """Judge --dataset/--tokenizer paths that the walk over ``paths`` does not reach."""
    if options.dataset is None and options.tokenizer is None:
        return []  # and none of the dataset and tokenizer machinery imported (5 ms)
    from .inspectors.dataset_handoff import data_format
    from .inspectors.dataset_judge import judge_dataset
    from .inspectors.tokenizer_folder import judge_tokenizer

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


def inspect_checkpoint(
    paths: Paths, options: Options | None = None, *, show_tensors: bool = False, diff: bool = False
) -> Result:
    """``trainlint ckpt``: judge each checkpoint file or folder (``options.ckpt_values`` and
    ``options.ckpt_crc`` choose the value scan and the CRC check); ``diff`` adds the drift of a pair."""
    from .inspectors.checkpoint_command import run_ckpt

    options = options or Options(settings=load_settings())
    return run_ckpt(as_paths(paths), options.settings, options.ckpt_values, options.ckpt_crc, show_tensors, diff)


def check_dataset(
    path: Paths, options: Options | None = None, *, max_length: int | None = None, data_format: str | None = None
) -> Result:
    """``trainlint data``: a training dataset (or several), and with ``options.tokenizer`` its
    tokenizer folder too."""
    from .inspectors.dataset_judge import judge_dataset
    from .inspectors.tokenizer_folder import judge_tokenizer

    options = options or Options(settings=load_settings())
    result = Result(command="data")
    try:
        for one in map(Path, as_paths(path)):
            if not one.exists():
                result.reports.append(Report(source=str(one), kind="dataset", unjudged="no such file or folder"))
                continue
            result.reports.extend(judge_dataset(one, options.tokenizer, max_length, data_format, options.settings))
    except KeyboardInterrupt as exc:  # SIGINT or SIGTERM: the datasets judged so far (issue 33)
        result.interrupted = signal_of(exc)
        return result
    if options.tokenizer is not None and any(r.unjudged != "no such file or folder" for r in result.reports):
        row_format = data_format or next(
            (r.summary.get("row_format") for r in result.reports if r.summary.get("row_format")), None
        )
        result.reports.append(judge_tokenizer(Path(options.tokenizer), options.settings, row_format))
    return result


def check_tokenizer(folder: Paths, options: Options | None = None) -> Result:
    """``trainlint tokenizer``: a tokenizer folder, or several (``options.dataset``: the data
    it will tokenize)."""
    from .inspectors.dataset_handoff import data_format
    from .inspectors.tokenizer_folder import judge_tokenizer

    options = options or Options(settings=load_settings())
    row_format = data_format(options.dataset)
    reports = [judge_tokenizer(Path(p), options.settings, row_format) for p in as_paths(folder)]
    return Result(command="tokenizer", reports=reports)


def check_environment(env: EnvOptions | None = None, options: Options | None = None) -> Result:
    """``trainlint env``: this machine, and optionally an entrypoint and a training configuration."""
    from .inspectors.environment_gather import env_result

    options = options or Options(settings=load_settings())
    result: Result = env_result(env or EnvOptions(), options.settings)
    return result


def rules(code: str | None = None) -> list[Rule]:
    """Every registered rule, the one named by ``code`` (a code or a name), or the rules of a
    category (``nan``: the category's rules, in code order); KeyError if none."""
    from .registry import CATEGORIES, REGISTRY

    if code is None:
        return REGISTRY.all()
    rule = REGISTRY.get(code)
    if rule is not None:
        return [rule]
    category = code.strip().lower()
    if category in CATEGORIES:
        return [r for r in REGISTRY.all() if r.category == category]
    raise KeyError(code)


def followable_logs(paths: Paths, options: Options | None = None) -> list[tuple[Path, str]]:
    """The inputs under ``paths`` (a path, or an iterable of them) that ``watch`` would follow
    now, with their formats."""
    from .live.watch import followable

    return followable(as_paths(paths), options)


def watch(
    paths: Paths,
    options: Options | None = None,
    *,
    until: str | None = None,
    interval: float = 2.0,
    idle_exit: float | None = None,
    max_time: float | None = None,
    emit: Callable[[Path, Finding], None] | None = None,
    heartbeat: Callable[[Path, float, dict[str, Any]], None] | None = None,
    page: Callable[[Result], None] | None = None,
) -> Result:
    """``trainlint watch``: follow the runs under ``paths`` as they grow (runs that appear
    later too), calling ``emit(path, finding)`` for each new finding,
    ``heartbeat(path, step, metrics)`` with each input's latest record and ``page(result)``
    with the runs as they stand when a judgement or a finding is new. At the end each input
    is judged as ``doctor`` judges the finished files."""
    from .live.watch import watch as _watch

    options = options or Options(settings=load_settings())
    return _watch(
        as_paths(paths),
        options,
        until=until,
        interval=interval,
        idle_exit=idle_exit,
        max_time=max_time,
        emit=emit,
        heartbeat=heartbeat,
        judge=lambda path: [r for r in doctor([path], options).reports if r.kind == "log"],
        page=page,
    )


def __getattr__(name: str) -> Any:
    """``Guard`` and ``StopPolicy`` load with their module (the live guard), not with every
    ``doctor``."""
    if name in ("Guard", "StopPolicy"):
        from .live import guard

        return getattr(guard, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "EnvOptions",
    "Guard",
    "Options",
    "OptionsError",
    "ReadError",
    "ReadOptions",
    "Settings",
    "StopPolicy",
    "build_options",
    "check_dataset",
    "check_environment",
    "check_tokenizer",
    "compare",
    "default_jobs",
    "doctor",
    "followable_logs",
    "inspect_checkpoint",
    "judge",
    "match_file",
    "parse_map",
    "read_run",
    "read_runs",
    "rules",
    "walk",
    "watch",
]
