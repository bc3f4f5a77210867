"""A folder holding several TensorBoard event files of one run (resumes, relaunches): judged as one run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..discover import inspector
from ..engine import judge_run
from ..readers import ReadError
from ..readers.tfevents_folder import event_files
from ..verdict import Report
from .logs import read_and_map


@inspector("log", priority=40, folder=True)
class EventFolderInspector:
    def sniff(self, path: Path, head: bytes) -> bool:
        return len(event_files(path)) >= 2  # a single event file is judged as a file

    def claims(self, folder: Path) -> list[Path]:
        return event_files(folder)

    def judge(self, path: Path, options: Any) -> Report:
        try:
            run = read_and_map(path, options)
        except ReadError as exc:
            return Report(source=str(path), kind="log", unjudged=str(exc))
        return judge_run(run, getattr(options, "settings", None))
