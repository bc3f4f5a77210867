"""Replay a finished run through the streaming engine, record by record."""

from __future__ import annotations

from typing import Any

from ..model import Run
from ..readers.stream import records
from ..verdict import Report
from .guard import Guard


def replay(run: Run, **guard_options: Any) -> tuple[Guard, Report]:
    """Feed ``run`` to a Guard one record at a time, as ``watch`` feeds a poll's fragment (each
    series in its written order, so a step that goes back stays a restart); returns the guard and
    its closing report (the damage and events the reader found in the file, which no record
    carries, are handed over before the close)."""
    guard = Guard(meta=dict(run.meta), role_map=dict(run.roles), source=run.source, format=run.format, **guard_options)
    for step, wall, metrics in records(run):
        guard.observe(step, wall_time=wall, **metrics)
    guard.history.damage = list(run.damage)
    guard.history.events = list(run.events)
    return guard, guard.close()
