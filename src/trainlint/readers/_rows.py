"""Helpers for the readers of tool-specific logs: JSON-lines rows, and columns whose
points carry a clock (wall time) when the source records one."""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from ..model import Run
from .base import sample_lines, text_nonfinite


def json_rows(text: str) -> tuple[list[tuple[int, dict[str, Any]]], list[int], list[int]]:
    """(line number, object) pairs; numbers of other non-blank lines; of broken object lines."""
    lines = text.splitlines()
    idx = [i for i, line in enumerate(lines) if line.lstrip().startswith("{")]
    other = [i + 1 for i, line in enumerate(lines) if line.strip() and not line.lstrip().startswith("{")]
    try:  # one C-level parse of every object line
        parsed = json.loads("[" + ",".join(lines[i] for i in idx) + "]")
        if all(type(o) is dict for o in parsed):
            return [(i + 1, o) for i, o in zip(idx, parsed)], other, []
    except (ValueError, RecursionError):
        pass
    objects, broken = [], []
    for i in idx:
        try:
            obj = json.loads(lines[i])
        except (ValueError, RecursionError):
            broken.append(i + 1)
            continue
        (objects.append((i + 1, obj)) if type(obj) is dict else broken.append(i + 1))
    return objects, other, broken


class TimedColumns:
    """(step, value[, wall]) points per metric; values that are not real numbers are counted,
    never coerced (text spelling NaN/inf is taken as that number and reported)."""

    def __init__(self) -> None:
        self.points: dict[str, list[tuple[float, float, float]]] = {}
        self.bad: dict[str, dict[str, list[Any]]] = {}

    def add(self, step: float, key: str, value: Any, where: Any = None, wall: float | None = None) -> None:
        kind = type(value)
        if kind is float or kind is int:
            try:
                v = float(value)
            except OverflowError:
                self.bad.setdefault(key, {}).setdefault("integer too large for a float", []).append(where)
                return
        elif kind is str and text_nonfinite(value) is not None:
            v = text_nonfinite(value)
            self.bad.setdefault(key, {}).setdefault(f"text {value.strip()!r} read as {v}", []).append(where)
        else:
            if kind in (str, bool):
                self.bad.setdefault(key, {}).setdefault("text" if kind is str else "boolean", []).append(where)
            return
        self.points.setdefault(key, []).append((float(step), v, np.nan if wall is None else float(wall)))

    def into(self, run: Run) -> None:
        for name, pts in self.points.items():
            arr = np.array(pts, dtype=np.float64).reshape(-1, 3)
            wall = arr[:, 2] if np.isfinite(arr[:, 2]).all() else None
            run.add(name, arr[:, 0], arr[:, 1], wall)
        for name, problems in self.bad.items():
            if name not in self.points and set(problems) == {"text"}:
                continue  # a text field (e.g. "mode": "train") is not a metric
            for problem, where in problems.items():
                at = sample_lines([w for w in where if w is not None], 5)
                run.notes.append(f"{name}: {len(where)} value(s) not a real number ({problem})"
                                 + (f" at {at}" if at else ""))


STEP_KEYS = ("step", "global_step", "_step", "iter", "iteration", "current_steps")


def rows_into(rows: list[tuple[int, dict[str, Any]]], run: Run, *, step_key: str | None = None,
              skip: set[str] | frozenset[str] = frozenset(), wall_of: Any = None) -> None:
    """JSON rows as series: steps from ``step_key`` (or the first known step key), walls from
    ``wall_of(row)`` when given."""
    if step_key is None and rows:
        step_key = next((k for k in STEP_KEYS if any(k in o for _, o in rows[:100])), None)
    if step_key is None:
        run.notes.append("no step field; steps are record numbers")
    cols = TimedColumns()
    for n, (line_no, obj) in enumerate(rows):
        step = obj.get(step_key, n) if step_key else n
        if type(step) not in (int, float):
            step = n
        wall = wall_of(obj) if wall_of is not None else None
        for key, value in obj.items():
            if key != step_key and key not in skip:
                cols.add(step, key, value, line_no, wall)
    cols.into(run)
