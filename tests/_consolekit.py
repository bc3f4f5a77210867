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


OOM_TRACEBACK = [
    "Traceback (most recent call last):",
    '  File "train.py", line 9, in <module>',
    "RuntimeError: CUDA out of memory.",
]


def crashed_log(tmp_path: Path, runs: int = 1, steps: int = 40, name: str = "train.log") -> Path:
    """A console log of ``runs`` runs appended (``step N loss X``, the step back to 1 at each) that
    ends in a CUDA out-of-memory traceback."""
    lines = [f"step {i} loss {2.0 / (1 + i / 10):.4f}" for _ in range(runs) for i in range(1, steps + 1)]
    path = tmp_path / name
    path.write_text("\n".join(lines + OOM_TRACEBACK) + "\n")
    return path
