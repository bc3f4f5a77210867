"""`trainlint watch`: follow live logs, judge them as they grow, report findings as they appear."""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from statistics import median
from typing import Any

import msgspec

from ..config import Settings
from ..verdict import Finding, Report, Result, Severity
from .follow import follower_for
from .guard import Guard, LiveStatus


class Watched(msgspec.Struct):
    path: Path
    follower: object
    guard: Guard
    last_data: float = 0.0
    gaps: deque = msgspec.field(default_factory=lambda: deque(maxlen=32))
    polls_with_data: int = 0

    def status(self, now: float) -> LiveStatus:
        cadence = median(self.gaps) if len(self.gaps) >= 2 else None
        return LiveStatus(self.guard.history.records, self.guard._step, self.last_data, now, cadence)


def watch(
    targets: list[tuple[Path, str]],
    *,
    settings: Settings | None = None,
    role_map=None,
    until: str | None = None,
    interval: float = 2.0,
    idle_exit: float | None = None,
    max_time: float | None = None,
    emit: Callable[[Path, Finding], None] | None = None,
    clock: Callable[[], float] = time.time,
    sleep: Callable[[float], None] = time.sleep,
    heartbeat: Callable[[Path, float, dict], None] | None = None,
) -> Result:
    """Follow each (path, reader format) until a finding of severity ``until`` appears, the
    logs stay idle for ``idle_exit`` seconds, or ``max_time`` passes. Returns the final Result.

    ``heartbeat(path, step, metrics)`` is called with each log's latest record after a poll
    that read new records (for a status line)."""
    start = clock()
    watched = []
    result = Result(command="watch")
    for path, fmt in targets:
        follower = follower_for(path, fmt)
        if follower is None:
            result.reports.append(Report(str(path), "log", fmt, unjudged=f"a {fmt} log cannot be followed live"))
            continue
        guard = Guard(settings=settings, role_map=role_map, source=str(path), meta={"clock": "watcher"})
        watched.append(Watched(path, follower, guard, start))
    stop = False
    try:
        while watched and not stop:
            now = clock()
            for w in watched:
                stop |= _poll(w, now, emit, until, heartbeat)
            if (
                stop
                or (max_time is not None and now - start >= max_time)
                or (idle_exit is not None and all(now - w.last_data >= idle_exit for w in watched))
            ):
                break
            sleep(interval)
    except KeyboardInterrupt:
        pass
    for w in watched:
        report = w.guard.close() if w.guard.history.records else Report(str(w.path), "log", unjudged="no records yet")
        report.findings += [f for f in w.guard._live_findings if f not in report.findings]
        result.reports.append(report)
    return result


def _poll(w: Watched, now: float, emit, until: str | None, heartbeat=None) -> bool:
    records = w.follower.poll()
    if records and heartbeat is not None:
        heartbeat(w.path, records[-1][0], records[-1][2])
    new: list[Finding] = []
    if records:
        if w.polls_with_data:
            w.gaps.append(now - w.last_data)  # how often the log grows, as the watcher sees it
        w.polls_with_data += 1
        w.last_data = now
        new += _feed(w, records)
    else:  # the log paused (or ended): its records not judged yet are judged once, now
        new += w.guard.settle()
    new += w.guard.judge_live(w.status(now))
    for f in new:
        if emit is not None:
            emit(w.path, f)
    return until is not None and any(_at_least(f.severity, until) for f in new)


def _feed(w: Watched, records: list[tuple[float, float, dict[str, Any]]]) -> list[Finding]:
    """Hand a poll's records to the guard with the log's own clock only: a log without one
    (NaN) stays without one, so no timing rule judges the watcher's poll times. The guard's
    schedule decides when to judge (constant cost per record); the next quiet poll judges
    what it left (``Guard.settle``), so a FAIL in a finished log's last records still stops."""
    guard, new = w.guard, list[Finding]()
    guard.history.meta.update(getattr(w.follower, "meta", None) or {})
    for step, wall, metrics in records:
        if not math.isnan(wall):
            guard.history.meta["clock"] = "log"
        new += guard.observe(step, wall_time=wall, **metrics)
    return new


def _at_least(sev: Severity, until: str) -> bool:
    order = {"NOTE": 0, "WARN": 1, "FAIL": 2}
    return order.get(sev.value, -1) >= order[until.upper()]
