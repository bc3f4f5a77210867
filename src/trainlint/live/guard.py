"""The streaming engine: feed records one at a time, get findings as they appear.

When the guard judges depends on the records alone, never on a clock or on what judging
costs: the same stream gives the same findings at the same records with the same numbers on
any machine, under any load. A record is appended in O(1); the registered log rules re-judge
the history once it has grown by 1/``growth`` since the last judgement (a geometric schedule:
about ``growth`` * ln(n) judgements for n records, so the cost per record stays near constant),
and at once when a record is alarming (a non-finite loss, eval loss or grad norm; a loss above
twice its best; an LR that stays zero), which the history's running state (O(1) per record)
tells without a rescan. The rules are the registered rules, run on the same arrays ``doctor``
would read from the finished log, so :meth:`Guard.close` gives exactly doctor's findings.
Each rule's ``live`` mode (registry.LIVE) says when it may judge a run still training: always,
once the warm-up is over, once half the planned steps have run, or only at the end (close).
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from ..config import Settings
from ..engine import TREND_POINTS, judge_run, run_rules
from ..registry import LIVE, LIVE_SHARE, REGISTRY, Rule
from ..verdict import Finding, Report, Severity
from .history import LiveRun

GROWTH = 4  # judge again once the history has grown by 1/GROWTH since the last judgement
# The first scheduled judgement: the records the trend rules need (engine.TREND_POINTS), and
# as many again, so that the rules measuring "a share of the run" do not judge a run of a few
# records (an early transient is 10% of a 20-record run). Alarms are judged at once before it.
FIRST = 2 * TREND_POINTS
GRACE_CATEGORIES = ("stagnation", "lr", "overfit", "generalization", "leakage")


class StopPolicy(msgspec.Struct):
    """When the guard asks the trainer to stop.

    ``stop_on`` holds severities ("FAIL", "WARN"), rule codes ("TL001") or categories
    ("nan"); empty means warn only. Findings of the slow-to-judge categories
    (stagnation, lr, overfit, ...) never stop a run before its warm-up is over.
    """

    stop_on: frozenset[str] = frozenset()
    warmup_steps: float | None = None

    @classmethod
    def of(cls, stop_on: str | Iterable[str] | None, warmup_steps: float | None = None) -> StopPolicy:
        if stop_on is None:
            items: frozenset[str] = frozenset()
        elif isinstance(stop_on, str):
            items = frozenset({stop_on})
        else:
            items = frozenset(stop_on)
        return cls(
            frozenset(
                s.upper() if s.upper() in ("FAIL", "WARN") or s.upper().startswith("TL") else s.lower() for s in items
            ),
            warmup_steps,
        )

    def wants_stop(self, f: Finding, warmup_over: bool) -> bool:
        if f.severity not in (Severity.FAIL, Severity.WARN):
            return False
        hit = (
            f.severity.value in self.stop_on
            or f.code in self.stop_on
            or f.category in self.stop_on
            or (f.severity is Severity.FAIL and "WARN" in self.stop_on)
        )
        return hit and (warmup_over or f.category not in GRACE_CATEGORIES)


class LiveStatus(msgspec.Struct):
    """The state of a feed being watched, for the "live" rules."""

    records: int
    last_step: float
    last_record_time: float
    now: float
    cadence: float | None  # median seconds between records, when known


def live_rules(modes: Iterable[str]) -> Callable[[Rule], bool]:
    """Which log rules a judgement of a run still training runs: those whose live mode
    (registry.LIVE) is among ``modes``, the gates open at that judgement."""
    open_modes = frozenset(modes)

    def accepts(rule: Rule) -> bool:
        return rule.live in open_modes

    return accepts


def end_only_notes(findings: list[Finding], opened: Iterable[str] = ("always",)) -> list[str]:
    """What the closing report says of its findings that no judgement during the run could
    give: those of the rules that run only at the end, and of those whose gate (``opened``:
    the live modes some judgement of the run opened) never opened while it trained."""
    notes = []
    for code in sorted({f.code for f in findings}):
        rule = REGISTRY.get(code)
        if rule is None or rule.live in opened:
            continue
        if rule.live == "end":
            notes.append(
                f"{code} {rule.name} judges the whole run: the guard ran it when the run ended, not while it trained"
            )
        else:
            notes.append(
                f"{code} {rule.name} judges a live run {LIVE[rule.live]}, which this run never reached "
                "while it trained: the guard ran it when the run ended"
            )
    return notes


def planned_steps(meta: dict[str, Any]) -> float | None:
    """The run's planned length in steps (``max_steps``), when its metadata gives a real one."""
    planned = meta.get("max_steps")
    if isinstance(planned, bool) or not isinstance(planned, (int, float)):
        return None
    return float(planned) if 0 < planned < math.inf else None


@dataclass  # not a msgspec.Struct: a stateful object, with fields only observe() sets (init=False)
class Guard:
    """Judge a run while it trains. ``observe`` returns the newly announced findings.

    >>> guard = Guard(stop_on="FAIL")
    >>> for step in range(100):
    ...     new = guard.observe(step, loss=..., lr=...)   # doctest: +SKIP
    ...     if guard.should_stop: break                   # doctest: +SKIP
    """

    stop_on: str | Iterable[str] | None = None
    warmup_steps: float | None = None
    settings: Settings | None = None
    role_map: dict[str, str] | None = None
    meta: dict[str, Any] | None = None
    log_path: str | Path | None = None
    source: str = "<live>"
    format: str = "live"  # the format of the file followed (rules judge some formats' runs their own way)
    growth: int = GROWTH
    on_finding: Callable[[Finding], None] | None = None
    clock: Callable[[], float] = time.time  # stamps records given no wall_time, and the guard log
    should_stop: bool = field(default=False, init=False)
    stop_reason: Finding | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        self.policy = StopPolicy.of(self.stop_on, self.warmup_steps)
        self.history = LiveRun(self.source, self.role_map, self.meta, format=self.format)
        self.announced: dict[str, str] = {}
        # (records seen, step of the last record, finding) for every announcement, in order
        self.timeline: list[tuple[int, float, Finding]] = []
        self._log_findings: list[Finding] = []
        self._live_findings: list[Finding] = []
        self._next_judge = FIRST
        self._last_judged = 0
        self._alarmed: set[str] = set()
        self._step = 0.0
        REGISTRY.load()
        self._gated: dict[tuple[str, ...], Callable[[Rule], bool]] = {}  # open live modes -> their rules
        self.opened: set[str] = {"always"}  # the live modes some judgement of the run opened
        self._log({"type": "start", "time": self.clock()})

    # -- feeding -----------------------------------------------------------------------
    def observe(self, step: float, wall_time: float | None = None, **metrics: Any) -> list[Finding]:
        """Record one logged step's metrics; returns findings announced by this call."""
        self._step = step = float(step)
        history = self.history
        alarm = history.append(step, metrics, self.clock() if wall_time is None else float(wall_time))
        n = history.records
        if n >= self._next_judge:
            return self._judge(n)
        if alarm is not None and n - self._last_judged >= (1 if alarm not in self._alarmed else self._alarm_gap(n)):
            self._alarmed.add(alarm)
            return self._judge(n)
        return []

    def _alarm_gap(self, n: int) -> int:
        """Records an alarm of a kind already judged waits for (a run that stays NaN is not
        re-judged at every record)."""
        return max(4, n // (4 * self.growth))

    @property
    def warmup_over(self) -> bool:
        if self.policy.warmup_steps is not None:
            return self._step >= self.policy.warmup_steps
        lr = self.history.running.get("learning_rate")
        if lr is not None and "learning_rate" in self.history.roles:
            return lr.since_peak >= 2
        return self.history.records >= 10

    # -- judging -----------------------------------------------------------------------
    def open_modes(self) -> tuple[str, ...]:
        """The live modes (registry.LIVE) whose rules may judge the run now: ``warmup`` once
        the warm-up is over, ``share`` once LIVE_SHARE of the planned steps have run; never
        ``end``, which only :meth:`close` runs. A gate once open stays open (an LR that warms up
        again after a restart of its schedule does not take back what was judged)."""
        modes = {"always"} | self.opened
        if "warmup" not in modes and self.warmup_over:
            modes.add("warmup")
        planned = planned_steps(self.history.meta)
        if "share" not in modes and planned is not None and self._step >= LIVE_SHARE * planned:
            modes.add("share")
        return tuple(mode for mode in LIVE if mode in modes)

    def _judge(self, n: int) -> list[Finding]:
        self._last_judged = n
        modes = self.open_modes()
        self.opened.update(modes)
        only = self._gated.get(modes)
        if only is None:
            only = self._gated[modes] = live_rules(modes)
        run = self.history.view()
        self._log_findings = judge_run(
            run, self.settings, {"live": True}, curves=False, only=only, states=self.history.states
        ).findings
        # the next scheduled judgement: once the history has grown by 1/growth (data alone)
        self._next_judge = max(FIRST, n + max(1, n // self.growth))
        return self._announce()

    def judge_live(self, status: Any) -> list[Finding]:
        """Run the rules about the feed itself (e.g. a stall) on a :class:`LiveStatus`."""
        report = run_rules("live", status, Report(self.source, "log", "live"), self.settings)
        self._live_findings = report.findings
        return self._announce()

    @property
    def current(self) -> list[Finding]:
        return self._log_findings + self._live_findings

    def _announce(self) -> list[Finding]:
        findings = self.current
        worst: dict[str, Finding] = {}
        for f in findings:
            if f.severity in (Severity.FAIL, Severity.WARN) and (f.code not in worst or f.severity is Severity.FAIL):
                worst[f.code] = f
        new = [f for code, f in worst.items() if self.announced.get(code) != f.severity.value]
        self.announced = {code: f.severity.value for code, f in worst.items()}
        for f in new:
            self.timeline.append((self.history.records, self._step, f))
            self._log({"type": "finding", "time": self.clock(), "at_step": self._step, **f.to_dict()})
            if self.on_finding is not None:
                self.on_finding(f)
            if not self.should_stop and self.policy.wants_stop(f, self.warmup_over):
                self.should_stop, self.stop_reason = True, f
                self._log(
                    {
                        "type": "stop",
                        "time": self.clock(),
                        "at_step": self._step,
                        "code": f.code,
                        "severity": f.severity.value,
                        "message": f.message,
                    }
                )
        return new

    @property
    def judged_records(self) -> int:
        """How many records the last judgement saw."""
        return self._last_judged

    def check_now(self) -> list[Finding]:
        """Judge the whole history now (e.g. at an evaluation or epoch end)."""
        return self._judge(self.history.records)

    def settle(self) -> list[Finding]:
        """The feed paused: judge the records the schedule has not judged yet, so that a finding
        in the last records of a log that stopped growing is announced now, not at close. Call
        it once a pause (a poll that brought nothing); while records flow, ``observe``'s
        schedule alone decides, which keeps the cost per record constant."""
        n = self.history.records
        return self._judge(n) if n > self._last_judged else []

    def close(self) -> Report:
        """The run ended: judge it as doctor would judge the finished log."""
        report = judge_run(self.history.view(), self.settings)
        report.source = self.source
        report.notes += end_only_notes(report.findings, self.opened)
        self._log_findings = report.findings
        self._announce()
        self._log(
            {
                "type": "end",
                "time": self.clock(),
                "at_step": self._step,
                "verdict": report.verdict.value,
                "codes": sorted({f.code for f in report.findings}),
            }
        )
        return report

    def _log(self, record: dict[str, Any]) -> None:
        if self.log_path is None:
            return
        path = Path(self.log_path)
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"trainlint_guard": 1, **record}, allow_nan=False, default=str) + "\n")
