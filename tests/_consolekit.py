"""Console-log test helpers shared by the general reader's and the format zoo's tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from trainlint.api import read_run


def read_lines(tmp_path: Path, lines: list[str], name: str = "train.log") -> Any:
    """The run ``read_run`` makes of ``lines`` written to ``tmp_path / name``."""
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return read_run(path)


def series_ends(run: Any, name: str) -> tuple[int, float, float, float, float]:
    """(points, first step, last step, first value, last value) of one series."""
    s = run.series[name]
    return len(s.steps), float(s.steps[0]), float(s.steps[-1]), float(s.values[0]), float(s.values[-1])
