"""Training logs: any file a registered reader recognises."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..discover import inspector
from ..engine import judge_run
from ..readers import ReadError, load_readers, read_run
from ..roles import assign_roles
from ..verdict import Report


def read_and_map(path: Path, options: Any) -> Any:
    run = read_run(path)
    run.roles = assign_roles(run.series, getattr(options, "role_map", None))
    return run


@inspector("log", priority=50)
class LogInspector:
    def sniff(self, path: Path, head: bytes) -> bool:
        return any(not r.folder and r.sniff(path, head) for r in load_readers())

    def judge(self, path: Path, options: Any) -> Report:
        try:
            run = read_and_map(path, options)
        except ReadError as exc:
            return Report(source=str(path), kind="log", unjudged=str(exc))
        from ..dataset.handoff import log_extra

        return judge_run(run, getattr(options, "settings", None), log_extra(options))
