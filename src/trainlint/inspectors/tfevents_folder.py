"""A folder holding the TensorBoard event files of one run (several files left by resumes, HF
``runs/``, Keras ``train/`` + ``validation/``): judged as one run."""

from __future__ import annotations

from pathlib import Path

from ..discover import inspector
from ..options import Options
from ..readers import ReadError, read_run
from ..readers.tensorboard.folder import part_of_parent_run, run_layout
from ..verdict import Report
from .logs import judge_log


@inspector("log", priority=40, folder=True)
class EventFolderInspector:
    def sniff(self, path: Path, head: bytes) -> bool:
        found = run_layout(path)
        if found is None or part_of_parent_run(path):
            return False
        layout, groups = found
        return layout != "files" or len(groups[""]) >= 2  # a lone event file is judged as a file

    def claims(self, folder: Path) -> list[Path]:
        found = run_layout(folder)
        return [f for files in found[1].values() for f in files] if found else []

    def judge(self, path: Path, options: Options) -> Report:
        try:
            run = read_run(path, options=options.read)
        except ReadError as exc:
            return Report(source=str(path), kind="log", unjudged=str(exc))
        return judge_log(run, options)
