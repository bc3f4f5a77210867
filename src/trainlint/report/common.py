"""Shared pieces of every human- and CI-facing format: numbers, steps, help text, line numbers.

Pure functions over a Report / Finding; no output is written here."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import msgspec

from ..verdict import Finding, Report, Result

DOCS_URL = "https://github.com/trainlint/trainlint/blob/main/RULES.md"
VERDICT_ORDER = ("FAIL", "WARN", "NOT-CHECKED", "PASS")


class View(msgspec.Struct, frozen=True):
    """How a result is shown: verbosity (-1 quiet, 0 default, 1 verbose), the process's exit
    code when a policy (``--fail-on``, ``--exit-zero``) changed it, the wrap width (None: the
    terminal's on a terminal, no wrapping when piped) and colour (None: on a terminal)."""

    verbosity: int = 0
    exit_code: int | None = None
    width: int | None = None
    color: bool | None = None


def exit_code(result: Result, view: View | None) -> int:
    if view is not None and view.exit_code is not None:
        return view.exit_code
    if result.interrupted is not None:
        return 128 + result.interrupted
    return result.exit_code


SIGNAL_NAMES = {2: "SIGINT", 15: "SIGTERM"}


def unreportable(r: Report, exc: BaseException) -> Report:
    """The NOT-CHECKED report that stands for ``r`` when writing it failed with ``exc``."""
    line = f"{type(exc).__name__}: {exc}".splitlines()[0][:200]
    return Report(
        source=r.source,
        kind=r.kind,
        format=r.format,
        files=list(r.files),
        unjudged=f"internal error while reporting: {line}",
    )


def interrupted_text(result: Result) -> str | None:
    """One line for a command stopped by a signal (None: it ran to the end)."""
    if result.interrupted is None:
        return None
    name = SIGNAL_NAMES.get(result.interrupted, f"signal {result.interrupted}")
    return f"interrupted by {name}: only the {len(result.reports)} report(s) judged before the stop are shown"


def fmt_step(step: Any) -> str:
    """A step as an integer ("1006160", never "1.00616e+06"); "?" when unknown."""
    if step is None:
        return "?"
    try:
        x = float(step)
    except (TypeError, ValueError):
        return str(step)
    if not math.isfinite(x):
        return str(x)
    return str(round(x))


def fmt_num(value: Any) -> str:
    """A value with 4 significant digits."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        return str(value)
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return f"{x:.4g}"


def sorted_reports(result: Result) -> list[Report]:
    return sorted(result.reports, key=lambda r: r.source)


def counts(result: Result) -> dict[str, int]:
    out: dict[str, int] = {}
    for r in result.reports:
        out[r.verdict.value] = out.get(r.verdict.value, 0) + 1
    return out


def counts_text(result: Result) -> str:
    c = counts(result)
    return ", ".join(f"{c[k]} {k}" for k in VERDICT_ORDER if c.get(k)) or "nothing judged"


_TRY = re.compile(r"\bTry\b:?\s*(.+)$", re.DOTALL)


def rule_help(code: str) -> str | None:
    """The "Try: ..." advice of a rule's explanation, or None."""
    from ..registry import REGISTRY

    rule = REGISTRY.get(code)
    if rule is None:
        return None
    m = _TRY.search(" ".join(rule.explanation.split()))
    if not m:
        return None
    return m.group(1).strip()


def rule_url(code: str) -> str:
    from ..registry import REGISTRY

    rule = REGISTRY.get(code)
    anchor = f"{code.lower()}-{rule.name}" if rule else code.lower()
    return f"{DOCS_URL}#{anchor}"


def first_problem(report: Report) -> str:
    """One line saying why a report is FAIL / NOT-CHECKED / WARN: the first FAIL or WARN
    finding in report order, which puts a cause ahead of what it explains (a WARN that caused
    the FAIL stands first), or the reason."""
    f = next((f for f in report.findings if f.severity.value in ("FAIL", "WARN")), None)
    if f is not None and (report.verdict.value == "FAIL" or report.unjudged is None):
        return f"{f.code} {f.name}: {f.message}"
    return report.unjudged or ""


ORIGINS = {"run": "alone", "baseline": "vs baseline"}


def origin_text(f: Finding) -> str:
    """`` [alone]`` / `` [vs baseline]``: where a comparison report's finding comes from (the
    run judged alone, or the run against its baseline); "" for any other finding."""
    return f" [{ORIGINS[f.origin]}]" if f.origin in ORIGINS else ""


def curve_change(curve: dict[str, Any]) -> tuple[float, float, float | None] | None:
    """(start, end, relative change): the first and last values (a non-finite end shows as
    NaN/inf: a run that ends in NaN must not look healthy); the change only when both are finite."""
    vals = [float("nan") if v is None else float(v) for v in curve.get("values", [])]
    if not vals or not any(math.isfinite(v) for v in vals):
        return None
    start, end = vals[0], vals[-1]
    if not math.isfinite(start):
        start = next(v for v in vals if math.isfinite(v))
    rel = (end - start) / abs(start) if start and math.isfinite(end) else None
    return start, end, rel


def curve_text(curve: dict[str, Any], width: int = 16, span: str = "") -> str:
    """``▇▅▃▂▂▁▁ 3.91 → 1.21 (−69 %)`` for one downsampled curve; ``(log)`` after a sparkline
    drawn on a log scale, the best (lowest) point when the curve ends above it and the peak of
    a spike drawn ``↑`` above the scale; ``span`` (the step range) goes before those marks."""
    from ..downsample import spark

    change = curve_change(curve)
    drawn = spark(curve.get("values", []), width)
    text = drawn.text + (" (log)" if drawn.log else "")
    if change is None:
        return f"{text} no finite values{span}"
    start, end, rel = change
    pct = ""
    if rel is not None:
        sign = "−" if rel < 0 else "+"
        p = abs(rel) * 100
        pct = f" ({sign}{p:.0f} %)" if p >= 10 or p == 0 else f" ({sign}{p:.1f} %)"
    return f"{text} {fmt_num(start)} → {fmt_num(end)}{pct}{span}{_marks(curve, end, bool(drawn.above))}"


def _marks(curve: dict[str, Any], end: float, spike: bool) -> str:
    """``, best 1.1 @60`` when the end is more than 5 % above the best point (or not finite);
    ``, ↑ 70 @12`` for a spike drawn above the scale."""
    vals = [float("nan") if v is None else float(v) for v in curve.get("values", [])]
    steps = list(curve.get("steps") or range(len(vals)))
    finite = [(v, s) for v, s in zip(vals, steps) if math.isfinite(v)]
    out = ""
    best, at = min(finite, key=lambda p: p[0])
    if not math.isfinite(end) or end - best > 0.05 * abs(best):
        out += f", best {fmt_num(best)} @{fmt_step(at)}"
    if spike:
        peak, at = max(finite, key=lambda p: p[0])
        out += f", ↑ {fmt_num(peak)} @{fmt_step(at)}"
    return out


def finding_location(report: Report, f: Finding) -> tuple[str, int | None]:
    """The file a finding points at and its 1-based line when known (log/console line, dataset
    line, skipped JSONL line, crash line); (report source, None) otherwise."""
    ev = f.evidence or {}
    path = _single_file(report)
    part = ev.get("part")
    if isinstance(part, str) and part and part != "./":  # a file of a folded run (runfold)
        path = str(Path(report.source) / part)
    if isinstance(ev.get("file"), str) and ev.get("file"):
        path = _resolve(report, ev["file"])
    line = _line_of(report, ev)
    if line is None or path is None:
        return (path or report.source), None
    return path, line


def _line_of(report: Report, ev: dict[str, Any]) -> int | None:
    for key in ("line", "first_line"):
        v = ev.get(key)
        if isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 1:
            return int(v)
    lines = ev.get("lines")
    if (
        isinstance(lines, list)
        and lines
        and isinstance(lines[0], int)
        and report.summary.get("numbering", "line") == "line"
        and lines[0] >= 1
    ):
        return int(lines[0])
    return None


def _single_file(report: Report) -> str | None:
    files = report.files or [report.source]
    if len(files) == 1 and not Path(files[0]).is_dir():
        return files[0]
    return None


def _resolve(report: Report, name: str) -> str:
    p = Path(name)
    if p.is_absolute() or p.exists():
        return name
    base = Path(report.source)
    base = base if base.is_dir() else base.parent
    cand = base / name
    return str(cand) if cand.exists() else name
