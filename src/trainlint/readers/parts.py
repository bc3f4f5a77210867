"""Formats whose one file holds several runs (an MLflow SQLite store, a Detectron2
``metrics.json`` that several launches appended to).

Such a reader's ``read`` returns the most recent run; it also registers here
how to list the runs a file holds and read one of them, so that ``doctor``
judges every run on its own.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import msgspec

from ..model import Run


class MultiRun(msgspec.Struct):
    parts: Callable[[Path], list[str]]  # a key per run, oldest first
    read_part: Callable[[Path, str], Run]


PARTS: dict[str, MultiRun] = {}  # reader name -> how to split


def multi_run(name: str, parts: Callable[[Path], list[str]], read_part: Callable[[Path, str], Run]) -> None:
    PARTS[name] = MultiRun(parts, read_part)
