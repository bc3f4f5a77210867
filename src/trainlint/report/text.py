"""Human-readable output: rich styling on a terminal, plain text when piped or NO_COLOR is set."""

from __future__ import annotations

import os
from typing import IO, Any

from ..verdict import Report, Result

STYLE = {"FAIL": "bold red", "WARN": "yellow", "NOT-CHECKED": "magenta", "PASS": "green",
         "NOTE": "cyan"}


def _use_color(stream: IO[str]) -> bool:
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return bool(getattr(stream, "isatty", lambda: False)())


class _Plain:
    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream

    def line(self, text: str = "", style: str | None = None) -> None:
        self.stream.write(text + "\n")


class _Rich:
    def __init__(self, stream: IO[str]) -> None:
        from rich.console import Console

        self.console = Console(file=stream, highlight=False, soft_wrap=True)

    def line(self, text: str = "", style: str | None = None) -> None:
        from rich.text import Text

        self.console.print(Text(text, style=style or ""))


def render_text(result: Result, stream: IO[str]) -> None:
    out: Any = _Rich(stream) if _use_color(stream) else _Plain(stream)
    for report in result.reports:
        _report(out, report)
    if result.empty_reason:
        out.line(f"NOT-CHECKED  {result.empty_reason}", STYLE["NOT-CHECKED"])
    for why, seen in (result.extra.get("skipped") or {}).items():
        out.line(f"skipped {seen['count']} ({why}): " + ", ".join(seen["paths"][:3])
                 + (", ..." if seen["count"] > 3 else ""))
    counts: dict[str, int] = {}
    for r in result.reports:
        counts[r.verdict.value] = counts.get(r.verdict.value, 0) + 1
    parts = [f"{counts[k]} {k}" for k in ("FAIL", "WARN", "NOT-CHECKED", "PASS") if counts.get(k)]
    summary = ", ".join(parts) or "nothing judged"
    out.line(f"{result.verdict.value}: {summary} (exit {result.exit_code})", STYLE[result.verdict.value])


def _report(out: Any, r: Report) -> None:
    verdict = r.verdict.value
    desc = r.kind + (f", {r.format}" if r.format else "")
    if "loss_points" in r.summary:
        desc += f", {r.summary['loss_points']} loss points, steps {r.summary['first_step']:g}-{r.summary['last_step']:g}"
    out.line(f"{verdict:<11}  {r.source}  ({desc})", STYLE[verdict])
    if r.unjudged:
        out.line(f"  could not judge: {r.unjudged}")
    if len(r.files) > 1:
        out.line("  files: " + ", ".join(r.files))
    for f in r.findings:
        at = f" step {f.step:g}" if f.step is not None else ""
        out.line(f"  {f.severity.value:<4} {f.code} {f.name}{at}: {f.message}", STYLE[f.severity.value])
    for note in r.notes:
        out.line(f"  note: {note}")
    ch = r.checks
    if ch.ran:
        out.line(f"  checked ({len(ch.ran)}): " + ", ".join(ch.ran))
    for code, why in ch.stood_down.items():
        out.line(f"  stood down {code}: {why}")
    by_reason: dict[str, list[str]] = {}
    for code, why in ch.not_checked.items():
        by_reason.setdefault(why, []).append(code)
    for why, codes in by_reason.items():
        out.line(f"  not checked: {', '.join(codes)}: {why}")
    out.line()
