"""`trainlint watch`: follow live runs, judge them as they grow, report findings as they appear.

Each poll finds the inputs under the watched paths (:mod:`.targets`, runs created later
included), takes each one's new points from its reader's stream and feeds them to that input's
:class:`~trainlint.live.guard.Guard`, whose schedule alone decides when the rules run (a poll
that brings nothing judges nothing). At the end each input is judged as ``doctor`` judges the
finished files, so the verdicts equal doctor's; findings of the live rules (a stall) are added.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterable
from pathlib import Path
from statistics import median
from typing import Any

import msgspec

from ..options import Options
from ..readers import ReadError
from ..readers.stream import records
from ..verdict import Finding, Report, Result, Severity, signal_of
from .guard import Guard, LiveStatus
from .targets import Scanner, Target


class Watched(msgspec.Struct):
    target: Target
    guard: Guard
    last_data: float = 0.0
    gaps: deque[float] = msgspec.field(default_factory=lambda: deque(maxlen=32))
    polls_with_data: int = 0
    paged: int = -1  # the judged records the live page last showed (-1: not shown yet)

    @property
    def path(self) -> Path:
        return self.target.path

    def status(self, now: float) -> LiveStatus:
        cadence = median(self.gaps) if len(self.gaps) >= 2 else None
        return LiveStatus(self.guard.history.records, self.guard._step, self.last_data, now, cadence)


class Loop(msgspec.Struct):
    """The watcher's state: what it follows and how it reports."""

    scanner: Scanner
    options: Options
    until: str | None
    emit: Callable[[Path, Finding], None] | None
    heartbeat: Callable[[Path, float, dict[str, Any]], None] | None
    judge: Callable[[Path], list[Report]] | None = None
    page: Callable[[Result], None] | None = None
    watched: dict[Path, Watched] = msgspec.field(default_factory=dict)

    def discover(self, now: float) -> None:
        new, dropped = self.scanner.scan()
        for t in dropped:
            self.watched.pop(t.path, None)
        for t in new:
            self.watched[t.path] = Watched(t, self._guard(t), now)

    def _guard(self, t: Target) -> Guard:
        return Guard(
            settings=self.options.settings,
            role_map=dict(self.options.role_map),
            source=str(t.source()),
            format=t.fmt or "live",
            meta={"clock": "watcher"},
        )

    def poll(self, now: float) -> bool:
        """One pass over every input; True when a finding of severity ``until`` appeared."""
        stop, changed = False, False
        for w in list(self.watched.values()):
            new = self._feed(w, now) + w.guard.judge_live(w.status(now))
            for f in new:
                if self.emit is not None:
                    self.emit(w.path, f)
            stop |= self.until is not None and any(_at_least(f.severity, self.until) for f in new)
            changed |= bool(new) or w.paged != w.guard.judged_records
        if changed and self.page is not None:
            self.page(self.snapshot())
        return stop

    def snapshot(self) -> Result:
        """The runs as the guards see them now, for the live page: each run's curves so far and
        the findings of its last judgement (data-driven: written when a judgement or a finding
        is new, never on a timer)."""
        from ..engine import curves_of, marks_of

        reports = []
        for w in self.watched.values():
            run, guard = w.guard.history.view(), w.guard
            w.paged = guard.judged_records
            note = f"live: {guard.history.records} records read, the last judgement at {guard.judged_records}"
            reports.append(
                Report(
                    source=str(w.target.source()),
                    kind="log",
                    format=w.target.fmt,
                    findings=list(guard.current),
                    notes=[note],
                    summary=run.summary(),
                    curves=curves_of(run),
                    marks=marks_of(run),
                )
            )
        return Result(command="watch", reports=reports)

    def _feed(self, w: Watched, now: float) -> list[Finding]:
        """Hand a poll's points to the guard, with the log's own clock only: a log without one
        (NaN) stays without one, so no timing rule judges the watcher's poll times."""
        frag = w.target.stream.poll()
        if w.target.stream.restarted:  # the input was replaced: a new run in its place
            w.target.stream.restarted = False
            w.guard, w.polls_with_data = self._guard(w.target), 0
        if frag is None:
            return []
        if w.polls_with_data:
            w.gaps.append(now - w.last_data)  # how often the log grows, as the watcher sees it
        w.polls_with_data += 1
        w.last_data = now
        guard, found = w.guard, list[Finding]()
        guard.history.meta.update(frag.meta)
        guard.history.events += frag.events  # what no record carries: a traceback, damage
        guard.history.damage += frag.damage
        last: tuple[float, dict[str, float]] | None = None
        for step, wall, metrics in records(frag):
            if wall == wall:  # not NaN: the log keeps its own clock
                guard.history.meta["clock"] = "log"
            found += guard.observe(step, wall_time=wall, **metrics)
            last = (step, metrics)
        if last is not None and self.heartbeat is not None:
            self.heartbeat(w.path, *last)
        return found

    def reports(self) -> list[Report]:
        out = []
        for w in self.watched.values():
            reports = self.judge(w.target.source()) if self.judge else [final_report(w.target, self.options)]
            for report in reports or [Report(str(w.target.source()), "log", unjudged="no records yet")]:
                report.findings += [f for f in w.guard._live_findings if f not in report.findings]
                out.append(report)
        return out


def final_report(target: Target, options: Options) -> Report:
    """The input judged as doctor judges the finished files (without what doctor adds from
    beside them, such as an output folder's checkpoints: ``watch(judge=)`` brings that)."""
    from ..inspectors.logs import judge_log

    source = str(target.source())
    try:
        run = target.final_run(options)
    except ReadError as exc:
        return Report(source=source, kind="log", unjudged=f"no records yet ({exc})")
    run.source = source
    return judge_log(run, options)


def watch(
    paths: str | Path | Iterable[str | Path],
    options: Options | None = None,
    *,
    until: str | None = None,
    interval: float = 2.0,
    idle_exit: float | None = None,
    max_time: float | None = None,
    emit: Callable[[Path, Finding], None] | None = None,
    clock: Callable[[], float] = time.time,
    sleep: Callable[[float], None] = time.sleep,
    heartbeat: Callable[[Path, float, dict[str, Any]], None] | None = None,
    judge: Callable[[Path], list[Report]] | None = None,
    page: Callable[[Result], None] | None = None,
) -> Result:
    """Follow every input under ``paths`` (a str or Path is one path) until a finding of
    severity ``until`` appears, nothing new arrives for ``idle_exit`` seconds, or ``max_time``
    passes; inputs that appear later are followed from then on. Returns the final Result.

    ``heartbeat(path, step, metrics)`` is called with each input's latest record after a poll
    that brought new records (for a status line). ``judge(path)`` gives the final reports of
    an input (``api.watch`` hands doctor's judgement in); by default the log alone is judged.
    ``page(result)`` receives the runs as they stand whenever a judgement or a finding is new
    (for ``watch --output live.html``)."""
    roots = [Path(paths)] if isinstance(paths, (str, Path)) else [Path(p) for p in paths]
    options = options or Options()
    start = clock()
    loop = Loop(Scanner(roots, options), options, until, emit, heartbeat, judge, page)
    try:
        while True:
            now = clock()
            loop.discover(now)
            stop = loop.poll(now)
            last = max((w.last_data for w in loop.watched.values()), default=start)
            if (
                stop
                or (max_time is not None and now - start >= max_time)
                or (idle_exit is not None and now - last >= idle_exit)
            ):
                break
            sleep(interval)
    except KeyboardInterrupt as exc:  # SIGINT or SIGTERM: the runs judged as they stand (issue 33)
        result = _result(loop, roots)
        result.interrupted = signal_of(exc)
        return result
    return _result(loop, roots)


def _result(loop: Loop, roots: list[Path]) -> Result:
    result = Result(command="watch")
    result.reports = loop.reports()
    if not result.reports:
        where = ", ".join(map(str, roots))
        result.reports = [Report(where, "log", unjudged=f"no training log appeared in {where}")]
    return result


def _at_least(sev: Severity, until: str) -> bool:
    order = {"NOTE": 0, "WARN": 1, "FAIL": 2}
    return order.get(sev.value, -1) >= order[until.upper()]


def followable(paths: str | Path | Iterable[str | Path], options: Options | None = None) -> list[tuple[Path, str]]:
    """The inputs ``watch`` would follow under ``paths`` now, with their formats."""
    roots = [Path(paths)] if isinstance(paths, (str, Path)) else [Path(p) for p in paths]
    new, _ = Scanner(roots, options or Options()).scan()
    return [(t.path, t.fmt) for t in new]
