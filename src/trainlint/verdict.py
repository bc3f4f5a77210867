"""The verdict contract: severities, findings, reports, and the exit code.

Severity of a *report* (and of the whole result) is one of FAIL, WARN,
NOT-CHECKED, PASS. A *finding* is FAIL, WARN or NOTE (a NOTE is recorded
evidence that does not change the verdict). Exit codes are a separate axis:
1 if anything FAILs, else 2 if anything could not be judged, else 0.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable
from typing import Any, ClassVar

import msgspec

SCHEMA_VERSION = "1.2"  # 1.1: "interrupted" (issue 33); 1.2: "statistics", "origin", a report's "scope"


class Severity(str, enum.Enum):
    FAIL = "FAIL"
    WARN = "WARN"
    NOTE = "NOTE"
    NOT_CHECKED = "NOT-CHECKED"
    PASS = "PASS"

    def __str__(self) -> str:  # pragma: no cover - trivial
        return self.value


# Order used to combine report verdicts into one result verdict.
_VERDICT_ORDER = {Severity.FAIL: 3, Severity.NOT_CHECKED: 2, Severity.WARN: 1, Severity.PASS: 0}

EXIT_CODES = {Severity.FAIL: 1, Severity.NOT_CHECKED: 2, Severity.WARN: 0, Severity.PASS: 0}


# An integer wider than this is written as a string (most JSON readers hold 64-bit integers at
# most, and Python refuses to print one of more than 4300 digits): see CONTRACTS.md.
MAX_JSON_INT_BITS = 64


def big_int_text(value: int) -> str:
    """A string for an integer too wide for JSON: exact up to 1000 digits, else its leading
    digits and its length (printing it whole could take seconds, or fail)."""
    digits = int(math.log10(abs(value))) + 1
    if digits <= 1000:
        return str(value)
    lead = 10 ** (math.log10(abs(value)) % 1)
    return f"{'-' if value < 0 else ''}{lead:.6f}e+{digits - 1} (an integer of {digits} digits)"


def _clean(value: Any) -> Any:
    """Make evidence JSON-safe: non-finite floats become strings ("NaN", "Infinity"), an
    integer wider than 64 bits a string (:func:`big_int_text`)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > MAX_JSON_INT_BITS:
        return big_int_text(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return value
    if hasattr(value, "item") and not isinstance(value, (list, tuple, dict)):
        return _clean(value.item())  # numpy scalar
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    return value


def _clip(text: str, width: int = 80) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _step_text(step: float) -> str:
    x = float(step)
    return str(int(x)) if math.isfinite(x) and x.is_integer() else str(x)


class Finding(msgspec.Struct):
    """One rule firing, with the numbers it fired on."""

    code: str
    name: str
    category: str
    severity: Severity
    message: str
    evidence: dict[str, Any] = msgspec.field(default_factory=dict)
    step: float | None = None
    # In a comparison report: "run" for a finding of the run judged alone (the single-run
    # rules), "baseline" for one of the run measured against its baseline. None elsewhere.
    origin: str | None = None

    def __repr__(self) -> str:
        """``<Finding FAIL TL001 non-finite-loss step 899: loss is NaN at ...>`` (a REPL line)."""
        at = f" step {_step_text(self.step)}" if self.step is not None else ""
        return f"<Finding {self.severity.value} {self.code} {self.name}{at}: {_clip(self.message)}>"

    def to_dict(self) -> dict[str, Any]:
        step = self.step
        if step is not None:
            step = float(step)
            step = None if not math.isfinite(step) else int(step) if step.is_integer() else step  # strict JSON
        out = {
            "code": self.code,
            "name": self.name,
            "category": self.category,
            "severity": self.severity.value,
            "message": self.message,
            "evidence": _clean(self.evidence),
            "step": step,
        }
        if self.origin is not None:
            out["origin"] = self.origin
        return out


class Checks(msgspec.Struct):
    """Which checks ran, which stood down (ran, decided not to judge), and which could not run."""

    ran: list[str] = msgspec.field(default_factory=list)
    stood_down: dict[str, str] = msgspec.field(default_factory=dict)
    not_checked: dict[str, str] = msgspec.field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"ran": list(self.ran), "stood_down": dict(self.stood_down), "not_checked": dict(self.not_checked)}


class Report(msgspec.Struct):
    """The judgement of one input (a run, a dataset, a checkpoint, ...)."""

    source: str
    kind: str
    format: str | None = None
    findings: list[Finding] = msgspec.field(default_factory=list)
    checks: Checks = msgspec.field(default_factory=Checks)
    unjudged: str | None = None  # reason the input as a whole could not be judged
    notes: list[str] = msgspec.field(default_factory=list)
    files: list[str] = msgspec.field(default_factory=list)
    summary: dict[str, Any] = msgspec.field(default_factory=dict)
    # Downsampled curves for renderers (sparklines, the HTML page): role -> {"name", "steps",
    # "values", "points"}; min/max-preserving (see trainlint.downsample). Not in the JSON
    # envelope unless asked for (to_dict(curves=True)).
    curves: dict[str, dict[str, Any]] = msgspec.field(default_factory=dict)
    # Steps worth a mark on those curves (e.g. "best_model_checkpoint": {"step", "name"}); for
    # renderers, not in the JSON envelope.
    marks: dict[str, Any] = msgspec.field(default_factory=dict)

    @property
    def verdict(self) -> Severity:
        severities = {f.severity for f in self.findings}
        if Severity.FAIL in severities:
            return Severity.FAIL
        if self.unjudged is not None:
            return Severity.NOT_CHECKED
        if Severity.WARN in severities:
            return Severity.WARN
        return Severity.PASS

    @property
    def scope(self) -> str | None:
        """What the verdict rests on when it is not the whole rule set: a log with fewer loss
        points than the trend rules need is judged by the point rules only, and its verdict says
        so (``on 10 points: trend rules need 20``); None for a verdict on everything."""
        s = self.summary
        if not s.get("too_short") or self.unjudged is not None:
            return None
        return f"on {s.get('loss_points_finite')} points: trend rules need {s.get('trend_rules_need')}"

    def __repr__(self) -> str:
        """``<Report FAIL log a.jsonl: 1 FAIL, 1 WARN; first: TL010 loss-diverged ...>``: the
        verdict, the counts and the first finding (or the reason), not the whole report."""
        head = f"<Report {self.verdict.value} {self.kind} {self.source}"
        counts: dict[str, int] = {}
        for f in self.findings:
            counts[f.severity.value] = counts.get(f.severity.value, 0) + 1
        shown = ", ".join(f"{counts[k]} {k}" for k in ("FAIL", "WARN", "NOTE") if k in counts) or "no findings"
        first = next((f for f in self.findings if f.severity is not Severity.NOTE), None)
        if first is not None:
            return f"{head}: {shown}; first: {first.code} {first.name}: {_clip(first.message)}>"
        if self.unjudged is not None:
            return f"{head}: {_clip(self.unjudged)}>"
        return f"{head}: {shown}>"

    def to_dict(self, curves: bool = False) -> dict[str, Any]:
        out = {
            "source": self.source,
            "kind": self.kind,
            "format": self.format,
            "verdict": self.verdict.value,
            "reason": self.unjudged,
            "scope": self.scope,
            "files": list(self.files) or [self.source],
            "notes": list(self.notes) + _wide_ints_note(self.summary, [f.evidence for f in self.findings]),
            "summary": _clean(self.summary),
            "findings": [f.to_dict() for f in self.findings],
            "checks": self.checks.to_dict(),
        }
        if curves and self.curves:
            out["curves"] = _clean(self.curves)
        return out


def _wide_ints(value: Any, path: str, out: list[str]) -> None:
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > MAX_JSON_INT_BITS:
        out.append(path)
    elif isinstance(value, dict):
        for k, v in value.items():
            _wide_ints(v, f"{path}.{k}", out)
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            _wide_ints(v, f"{path}[{i}]", out)


def _wide_ints_note(summary: dict[str, Any], evidence: list[dict[str, Any]]) -> list[str]:
    """The note that says which integers were written as strings (none: no note)."""
    found: list[str] = []
    _wide_ints(summary, "summary", found)
    for i, ev in enumerate(evidence):
        _wide_ints(ev, f"findings[{i}].evidence", found)
    if not found:
        return []
    more = f" and {len(found) - 3} more" if len(found) > 3 else ""
    return [f"integers wider than {MAX_JSON_INT_BITS} bits written as strings: {', '.join(found[:3])}{more}"]


def combine(verdicts: list[Severity]) -> Severity:
    """Combine report verdicts: FAIL > NOT-CHECKED > WARN > PASS. No reports: NOT-CHECKED."""
    if not verdicts:
        return Severity.NOT_CHECKED
    return max(verdicts, key=lambda v: _VERDICT_ORDER[v])


SIGINT, SIGTERM = 2, 15  # the signals that stop a command (the numbers of every POSIX system)


class Interrupted(KeyboardInterrupt):
    """A command stopped by a signal: SIGTERM raises this (the CLI's handler), SIGINT raises
    KeyboardInterrupt; both end a command the same way (what was judged, exit 128 + signal)."""

    def __init__(self, signum: int = SIGINT) -> None:
        super().__init__(signum)
        self.signum = signum


def signal_of(exc: BaseException) -> int:
    """The signal behind an interrupt: SIGTERM for :class:`Interrupted` from it, else SIGINT."""
    return int(getattr(exc, "signum", SIGINT))


class Result(msgspec.Struct):
    """What every command returns: a list of reports, one verdict, one exit code."""

    command: str
    reports: list[Report] = msgspec.field(default_factory=list)
    extra: dict[str, Any] = msgspec.field(default_factory=dict)
    empty_reason: str | None = None  # why there is nothing to report, when nothing is
    # The signal that stopped the command before it judged everything (SIGINT, SIGTERM): the
    # reports are those judged by then; the process exits 128 + it (issue 33).
    interrupted: int | None = None

    @property
    def verdict(self) -> Severity:
        if not self.reports and self.empty_reason is None:
            return Severity.PASS
        return combine([r.verdict for r in self.reports])

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.verdict]

    # Set by trainlint.report.html when it is loaded (``trainlint.doctor`` and the other
    # judging functions of the package facade load it), so a Result shows as the HTML page in
    # Jupyter without this floor importing a renderer.
    html_hook: ClassVar[Callable[[Result], str] | None] = None

    def _repr_html_(self) -> str | None:
        """Jupyter: the HTML report, inline (the page lives in an iframe so its script runs)."""
        hook = Result.html_hook
        return hook(self) if hook is not None else None

    def __repr__(self) -> str:
        """``<Result doctor FAIL (exit 1): 3 FAIL, 1 PASS; first: a.csv: TL001 ...>``: the verdict,
        the counts and the first failing input's first finding, not every report."""
        counts: dict[str, int] = {}
        for r in self.reports:
            counts[r.verdict.value] = counts.get(r.verdict.value, 0) + 1
        order = ("FAIL", "NOT-CHECKED", "WARN", "PASS")
        shown = ", ".join(f"{counts[k]} {k}" for k in order if k in counts) or (self.empty_reason or "no reports")
        head = f"<Result {self.command} {self.verdict.value} (exit {self.exit_code}): {shown}"
        worst = [r for r in sorted(self.reports, key=lambda r: r.source) if r.verdict is self.verdict]
        if not worst or self.verdict is Severity.PASS:
            return head + ">"
        r = worst[0]
        # the first FAIL or WARN in report order: a cause stands ahead of what it explains
        alarms = (Severity.FAIL, Severity.WARN) if self.verdict in (Severity.FAIL, Severity.WARN) else ()
        first = next((f for f in r.findings if f.severity in alarms), None)
        why = f"{first.code} {first.name}: {first.message}" if first is not None else (r.unjudged or "")
        return f"{head}; first: {r.source}: {_clip(why)}>"

    def to_dict(self) -> dict[str, Any]:
        from . import __version__

        out: dict[str, Any] = {
            "schema_version": SCHEMA_VERSION,
            "tool": {"name": "trainlint", "version": __version__},
            "command": self.command,
            "verdict": self.verdict.value,
            "exit_code": self.exit_code,
            "reason": self.empty_reason,
            "reports": [r.to_dict() for r in self.reports],
        }
        if self.interrupted is not None:
            out["interrupted"] = True
        out.update(_clean(self.extra))
        return out
