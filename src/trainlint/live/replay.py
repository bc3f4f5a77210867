"""Replay a finished run through the streaming engine, record by record."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import numpy as np

from ..model import Run
from ..verdict import Report
from .guard import Guard


def records(run: Run) -> Iterator[tuple[float, float, dict[str, float]]]:
    """(step, wall time or NaN, {metric: value}) in step order, as a logger would have
    written them: series with the same step share a record; a metric seen twice at one
    step (a resume) starts a new record."""
    names = list(run.series)
    if not names:
        return
    steps = np.concatenate([run.series[n].steps for n in names])
    which = np.concatenate([np.full(len(run.series[n]), i) for i, n in enumerate(names)])
    pos = np.concatenate([np.arange(len(run.series[n])) for n in names])
    order = np.argsort(steps, kind="stable")
    current: dict[str, float] = {}
    cur_step, cur_wall = math.nan, math.nan
    for k in order:
        s = run.series[names[which[k]]]
        i, step = int(pos[k]), float(steps[k])
        if current and (step != cur_step or s.name in current):
            yield cur_step, cur_wall, current
            current, cur_wall = {}, math.nan
        cur_step = step
        current[s.name] = float(s.values[i])
        if s.wall is not None and math.isnan(cur_wall):
            cur_wall = float(s.wall[i])
    if current:
        yield cur_step, cur_wall, current


def replay(run: Run, **guard_options: Any) -> tuple[Guard, Report]:
    """Feed ``run`` to a Guard one record at a time; returns the guard and its closing report
    (the damage the reader found in the file, which no record carries, is handed over before
    the close)."""
    guard = Guard(meta=dict(run.meta), role_map=dict(run.roles), source=run.source, **guard_options)
    for step, wall, metrics in records(run):
        guard.observe(step, wall_time=wall, **metrics)
    guard.history.damage = list(run.damage)
    return guard, guard.close()
