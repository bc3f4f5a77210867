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
    dataset: Path | None = None  # the training data: its label entropy is handed to TL099
    tokenizer: Path | None = None  # tokenizer folder for dataset token statistics


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
    paths = list(paths)
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
    result.reports.extend(_explicit_inputs(paths, options))
    if not result.reports:
        result.empty_reason = "nothing to judge found under " + ", ".join(str(p) for p in paths)
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


__all__ = ["Options", "ReadError", "doctor", "judge", "match_file", "read_run"]
