"""A folder that records one run by a known convention (an HF output dir, a Lightning
version folder, a Coqui run folder), read as one Run: ``read_run(folder)`` then works
wherever a log path is accepted (series, compare, the Python API). The conventions
and the merging live in :mod:`trainlint.readers.grouping`."""

from __future__ import annotations

from pathlib import Path

from ..model import Run
from ..options import ReadOptions
from .base import ReadError, reader

NAME = "run-folder"


@reader(NAME, priority=90, folder=True)
class RunFolderReader:
    def sniff(self, path: Path, head: bytes, options: ReadOptions | None = None) -> bool:
        from .grouping import find_group

        return find_group(path, options) is not None

    def read(self, path: Path, options: ReadOptions | None = None) -> Run:
        from .grouping import find_group, read_group

        group = find_group(path, options)
        if group is None:
            raise ReadError("not a run folder trainlint recognises")
        return read_group(group, options)
