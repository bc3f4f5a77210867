"""One registry of coded rules.

A rule declares its code (``TL`` + three digits), a kebab-case name, one
category from :data:`CATEGORIES`, a default severity, named thresholds with
defaults and docs, the kind of input it judges (``target``), and an
explanation. ``trainlint rules``, RULES.md and the SARIF rule table all come
from here.

A rule's check function takes a :class:`Context` and returns findings (made
with :meth:`Context.fire`); it declines to judge by raising :class:`NotChecked`
(could not run: missing input) or :class:`StandDown` (ran, chose not to judge).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

import msgspec

from .verdict import Finding, Severity

CATEGORIES = (
    "nan",
    "divergence",
    "spike",
    "stagnation",
    "lr",
    "gradient",
    "overfit",
    "leakage",
    "generalization",
    "throughput",
    "stall",
    "crash",
    "resume",
    "integrity",
    "data",
    "tokenizer",
    "checkpoint",
    "security",
    "environment",
    "compare",
)
TARGETS = ("log", "live", "dataset", "tokenizer", "checkpoint", "environment", "comparison")
# A check function: a Context in; a finding, several, or None out (the engine takes each shape).
_Check = TypeVar("_Check", bound="Callable[[Context], Iterable[Finding] | Finding | None]")
_State = TypeVar("_State")
# When the live guard may run a log rule on a run still training (issue 30 §6), each mode with
# the words `trainlint rule CODE` and RULES.md show. doctor, and the guard's closing judgement,
# run every rule whatever its mode.
LIVE = {
    # a point or an event the records already show (a NaN, a spike, a blow-up)
    "always": "at every judgement of the growing run",
    # a trend a warm-up fakes (a loss flat while the LR ramps up)
    "warmup": "once the warm-up is over (the LR peaked and fell, or the warm-up steps given ran)",
    # the course of the run against its length: judged from LIVE_SHARE of the planned steps on
    "share": "once half the planned steps have run (at the end when the plan is unknown)",
    # the whole run, which a run in progress has not shown yet: Guard.close and doctor only
    "end": "at the end of the run only",
}
LIVE_SHARE = 0.5  # the share of the planned steps after which a "share" rule may judge live

_CODE = re.compile(r"^TL\d{3}$")
_NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


class NotChecked(Exception):
    """The check could not run (missing series, too little data, missing prerequisite)."""


class StandDown(Exception):
    """The check ran and deliberately declined to judge; the reason is recorded."""


class Threshold(msgspec.Struct, frozen=True):
    name: str
    default: float
    doc: str


class Rule(msgspec.Struct):
    code: str
    name: str
    category: str
    severity: Severity
    target: str
    summary: str
    explanation: str
    thresholds: tuple[Threshold, ...]
    check: Callable[[Context], Iterable[Finding] | Finding | None]
    requires: tuple[str, ...] = ()
    whole_run: bool = False  # a log rule judged once on the whole run, not per resumed segment
    group: str | None = None  # environment rules: the report group (entrypoint, resources, ...)
    decisive: bool = False  # when no enabled decisive rule of a report could judge, it is NOT-CHECKED
    live: str = "always"  # when the live guard runs it (LIVE)

    def threshold_defaults(self) -> dict[str, float]:
        return {t.name: t.default for t in self.thresholds}


class _Registry:
    def __init__(self) -> None:
        self._rules: dict[str, Rule] = {}
        self._loaded = False  # every module imported
        self._targets: set[str] = set()  # the targets whose modules are imported
        self._sorted: dict[str | None, list[Rule]] = {}  # all(target), kept until a rule is added

    def add(self, rule: Rule) -> None:
        if not _CODE.match(rule.code):
            raise ValueError(f"bad rule code {rule.code!r}")
        if not _NAME.match(rule.name):
            raise ValueError(f"bad rule name {rule.name!r}")
        if rule.category not in CATEGORIES:
            raise ValueError(f"{rule.code}: unknown category {rule.category!r}")
        if rule.target not in TARGETS:
            raise ValueError(f"{rule.code}: unknown target {rule.target!r}")
        if rule.live not in LIVE:
            raise ValueError(f"{rule.code}: unknown live mode {rule.live!r}")
        other = self._rules.get(rule.code)
        if other is not None and other.check is not rule.check:
            raise ValueError(f"duplicate rule code {rule.code} ({other.name}, {rule.name})")
        if any(r.name == rule.name and r.code != rule.code for r in self._rules.values()):
            raise ValueError(f"duplicate rule name {rule.name}")
        self._rules[rule.code] = rule
        self._sorted.clear()

    def load(self, target: str | None = None) -> None:
        """Import the modules of the ``trainlint.rules`` package that hold ``target``'s rules
        (its ``MODULES`` table), or every module (each registers its rules)."""
        if self._loaded or target in self._targets:
            return
        import importlib

        from .plugins import import_named, import_plugins

        package = f"{__package__}.rules"  # by name: the registry sits below its plugins
        if target is None:
            self._loaded = True
            import_plugins(package)
            return
        self._targets.add(target)
        import_named(package, importlib.import_module(package).MODULES.get(target, ()))

    def all(self, target: str | None = None) -> list[Rule]:
        self.load(target)
        kept = self._sorted.get(target)
        if kept is None:
            rules = sorted(self._rules.values(), key=lambda r: r.code)
            kept = self._sorted[target] = [r for r in rules if target is None or r.target == target]
        return list(kept)

    def get(self, key: str) -> Rule | None:
        """Look a rule up by code (case-insensitive) or by name: among the rules loaded, then
        among all."""
        key = key.strip()
        found = self._find(key)
        if found is None and not self._loaded:
            self.load()
            found = self._find(key)
        return found

    def _find(self, key: str) -> Rule | None:
        if key.upper() in self._rules:
            return self._rules[key.upper()]
        return next((r for r in self._rules.values() if r.name == key.lower()), None)


REGISTRY = _Registry()


def rule(
    *,
    code: str,
    name: str,
    category: str,
    severity: Severity | str,
    summary: str,
    explanation: str,
    target: str = "log",
    requires: Iterable[str] = (),
    thresholds: Iterable[Threshold] = (),
    whole_run: bool = False,
    group: str | None = None,
    decisive: bool = False,
    live: str = "always",
) -> Callable[[_Check], _Check]:
    """Register the decorated check function as a rule.

    ``whole_run``: a log rule that judges the whole run even when it was resumed (the others
    judge each segment); ``group``: an environment rule's report group; ``decisive``: a rule
    without which the report cannot be judged (the comparison's loss rules); ``live``: when the
    live guard may run a log rule on a run still training (:data:`LIVE`: ``"warmup"`` for a
    trend a warm-up fakes, ``"share"`` for the course of the run against its planned length,
    ``"end"`` for a judgement about the whole run, such as a loss at chance "over the whole
    run")."""

    def wrap(fn: _Check) -> _Check:
        REGISTRY.add(
            Rule(
                code=code,
                name=name,
                category=category,
                severity=Severity(severity),
                target=target,
                summary=summary,
                explanation=explanation.strip(),
                thresholds=tuple(thresholds),
                check=fn,
                requires=tuple(requires),
                whole_run=whole_run,
                group=group,
                decisive=decisive,
                live=live,
            )
        )
        return fn

    return wrap


class Context(msgspec.Struct):
    """What a check function sees: its subject, its thresholds, and how to fire."""

    rule: Rule
    subject: Any
    thresholds: Mapping[str, float]
    extra: Mapping[str, Any] = msgspec.field(default_factory=dict)
    # What the rules of one judgement share (engine.run_rules hands one dict to all): the
    # finite part of each series, computed once instead of once per rule.
    shared: dict[str, Any] = msgspec.field(default_factory=dict)
    # What the rules keep across the judgements of one live run (the guard's history holds it;
    # None in doctor): per-rule state updated with the points new since the last judgement,
    # which only a run that grows at its end may have (engine.judge_run hands it on).
    states: dict[str, Any] | None = None

    @property
    def run(self) -> Any:
        return self.subject

    def state(self, key: str, factory: Callable[[], _State]) -> _State | None:
        """The state kept under ``key`` across the judgements of a live run (made by
        ``factory`` at the first); None when nothing is kept (doctor: judge in one pass)."""
        if self.states is None:
            return None
        got = self.states.get(key)
        if got is None:
            got = self.states[key] = factory()
        return got

    def t(self, name: str) -> float:
        return self.thresholds[name]

    def series(self, role: str, *, min_points: int = 1, finite: bool = True) -> Any:
        """The run's series for ``role``; NotChecked when absent or too short."""
        s = self.subject.get(role)
        if s is None or len(s) == 0:
            raise NotChecked(f"no {role} series in this log")
        if finite:
            kept = self.shared.get(role)
            if kept is None or kept[0] is not s:
                kept = self.shared[role] = (s, s.finite())
            s = kept[1]
        if len(s) < min_points:
            raise NotChecked(f"{role} has {len(s)} finite points, needs at least {min_points}")
        return s

    def fire(
        self, message: str, *, step: float | None = None, severity: Severity | str | None = None, **evidence: Any
    ) -> Finding:
        sev = Severity(severity) if severity is not None else self.rule.severity
        return Finding(
            code=self.rule.code,
            name=self.rule.name,
            category=self.rule.category,
            severity=sev,
            message=message,
            evidence=evidence,
            step=step,
        )
