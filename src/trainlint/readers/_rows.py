"""Helpers for the readers of tool-specific logs: JSON-lines rows, and columns whose
points carry a clock (wall time) when the source records one."""

from __future__ import annotations

from typing import Any

from ..model import Run
from .base import Columns
from .jsonl import STEP_KEYS, _classify, _parse, stepless


def json_rows(text: str) -> tuple[list[tuple[int, dict[str, Any]]], list[int], list[int]]:
    """(line number, object) pairs; numbers of other non-blank lines; of broken object lines."""
    lines = text.split("\n")
    idx, other = _classify(lines)
    objects, broken = _parse([lines[i] for i in idx], idx)
    return objects, other, broken


def rows_into(
    rows: list[tuple[int, dict[str, Any]]],
    run: Run,
    *,
    step_key: str | None = None,
    skip: set[str] | frozenset[str] = frozenset(),
    wall_of: Any = None,
) -> None:
    """JSON rows as series: steps from ``step_key`` (or the first known step key), walls from
    ``wall_of(row)`` when given."""
    if step_key is None and rows:
        step_key = next((k for k in STEP_KEYS if any(k in o for _, o in rows[:100])), None)
    if step_key is None:
        stepless(run)
    cols = Columns()
    for n, (line_no, obj) in enumerate(rows):
        step = obj.get(step_key, n) if step_key else n
        if type(step) not in (int, float):
            step = n
        wall = wall_of(obj) if wall_of is not None else None
        for key, value in obj.items():
            if key != step_key and key not in skip:
                cols.add(step, key, value, line_no, wall)
    cols.into(run)
