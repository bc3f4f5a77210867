"""Training logs: any file a registered reader recognises, and run folders
(the files that record one run, judged once; see :mod:`trainlint.readers.grouping`)."""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from ..discover import inspector
from ..engine import judge_run
from ..options import Options, ReadOptions
from ..readers import Reader, ReadError, read_run, sniff, sniff_head
from ..readers.parts import PARTS
from ..roles import RoleMapError, apply_roles
from ..verdict import Report

if TYPE_CHECKING:
    from ..model import Run
    from ..readers.grouping import RunGroup


def read_and_map(path: Path, options: Options) -> Run:
    run = read_run(path, options=options.read)
    try:
        apply_roles(run, options.role_map)
    except RoleMapError as exc:
        raise ReadError(f"usage error: {exc}") from None
    return run


def judge_log(run: Run, options: Options) -> Report:
    """The one way a log is judged: roles from the alias table and --map, the settings, and
    what the options hand the rules (--vocab-size, --num-classes, the dataset's entropy)."""
    from ..readers.recoveries import apply_recoveries
    from .dataset_handoff import log_extra

    apply_recoveries(run)  # a guard that rolled the run back: the trajectory the model had
    try:
        apply_roles(run, options.role_map)
    except RoleMapError as exc:
        return Report(
            source=run.source, kind="log", format=run.format, files=list(run.files), unjudged=f"usage error: {exc}"
        )
    extra = log_extra(options)
    try:
        from .run_data import run_links

        extra.update(run_links(run, options))  # data found with the run (TL067, TL099)
    except Exception as exc:  # the log is judged whatever its data folder holds  # noqa: BLE001
        if os.environ.get("TRAINLINT_DEBUG"):
            raise
        run.notes.append(f"data beside the run not read: {type(exc).__name__}: {exc}"[:200])
    return judge_run(run, options.settings, extra)


@inspector("log", priority=50)
class LogInspector:
    def sniff(self, path: Path, head: bytes, options: Options | None = None) -> Reader | None:
        """The reader that recognises the file: discovery hands it back as ``match``."""
        return sniff_head(path, head, options.read if options is not None else None)

    def judge(self, path: Path, options: Options, match: Reader | None = None) -> Report:
        try:
            run = read_run(path, match.name if match is not None else None, options.read)
        except ReadError as exc:
            from ..readers.content import holds_training_content

            # a file claimed by its name only (debug.log, install.log): a folder scan skips it
            flag = {} if holds_training_content(path) else {"not_recognised": True}
            return Report(source=str(path), kind="log", unjudged=str(exc), summary=flag)
        return judge_log(run, options)

    def parts(self, path: Path, match: Reader | None = None) -> list[str]:
        chosen = match or sniff(path)
        split = PARTS.get(chosen.name) if chosen is not None else None
        return split.parts(path) if split is not None else []

    def judge_part(self, path: Path, part: str, options: Options, match: Reader | None = None) -> Report:
        source = f"{path}#{part}"
        chosen = match or sniff(path)
        split = PARTS.get(chosen.name) if chosen is not None else None
        if split is None:
            return Report(source=source, kind="log", unjudged="this file no longer holds several runs")
        try:
            run = split.read_part(path, part)
        except ReadError as exc:
            return Report(source=source, kind="log", unjudged=str(exc), files=[str(path)])
        except (OSError, ValueError) as exc:
            return Report(
                source=source, kind="log", files=[str(path)], unjudged=f"{type(exc).__name__}: {exc}".splitlines()[0]
            )
        run.source = source
        return judge_log(run, options)


def _group(folder: str, options: Options | None) -> RunGroup | None:
    try:
        stamp = Path(folder).stat().st_mtime_ns
    except OSError:
        return None
    return _cached_group(folder, stamp, options.read if options is not None else ReadOptions())


@lru_cache(maxsize=256)
def _cached_group(folder: str, stamp: int, read: ReadOptions) -> RunGroup | None:
    from ..readers.grouping import find_group, worth_grouping

    group = find_group(Path(folder), read)
    return group if group is not None and worth_grouping(group) else None


@inspector("log", priority=30, folder=True)  # before folder inspectors of one format
class RunFolderInspector:
    """A folder that records one run (HF output dir, Lightning version, Coqui run, W&B run, ...)."""

    def sniff(self, path: Path, head: bytes, options: Options | None = None) -> bool:
        return _group(str(path), options) is not None

    def claims(self, folder: Path, options: Options | None = None) -> list[Path]:
        group = _group(str(folder), options)
        return group.claims() if group is not None else []

    def judge(self, path: Path, options: Options) -> Report:
        from ..readers.grouping import read_group

        group = _group(str(path), options)
        if group is None:
            return Report(source=str(path), kind="log", unjudged="no longer a run folder")
        try:
            run = read_group(group, options.read)
        except ReadError as exc:
            return Report(source=str(path), kind="log", unjudged=str(exc), files=[str(p) for p in group.claims()])
        except Exception as exc:  # a reader bug must not become a traceback
            if os.environ.get("TRAINLINT_DEBUG"):
                raise
            return Report(
                source=str(path),
                kind="log",
                files=[str(p) for p in group.claims()],
                unjudged=f"could not read this run: {type(exc).__name__}: {exc}".splitlines()[0],
            )
        return judge_log(run, options)


def is_uri(text: str) -> bool:
    """A tracking-server address rather than a path (``mlflow://HOST:PORT/EXPERIMENT``)."""
    from ..readers.mlflow_store import URI_PREFIX

    return str(text).startswith(URI_PREFIX)


def judge_uri(uri: str, options: Options) -> list[Report]:
    """Judge every run behind a tracking-server address; one NOT-CHECKED report when unreachable."""
    from ..readers.mlflow_store import server_runs

    try:
        runs = server_runs(uri)
    except ReadError as exc:
        return [Report(source=uri, kind="log", unjudged=str(exc))]
    if not runs:
        return [Report(source=uri, kind="log", unjudged="no runs in this experiment")]
    return [judge_log(run, options) for run in runs]
