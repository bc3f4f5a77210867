"""Markdown for ``$GITHUB_STEP_SUMMARY`` and PR comments: a compact table, then the findings.

The table has one row per input (verdict, path, format, points, loss sparkline start → end);
the findings section lists FAIL and WARN findings (NOTEs with ``-v``) with their numbers."""

from __future__ import annotations

from typing import IO

from ..verdict import Report, Result
from .common import (
    View,
    counts_text,
    curve_text,
    exit_code,
    fmt_step,
    interrupted_text,
    origin_text,
    rule_help,
    sorted_reports,
)

ICONS = {"FAIL": "❌", "WARN": "⚠️", "NOT-CHECKED": "❔", "PASS": "✅"}


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _row(r: Report) -> str:
    s = r.summary
    points = str(s["loss_points"]) if "loss_points" in s else str(s.get("rows", ""))
    curve = r.curves.get("loss")
    loss = f"`{curve_text(curve)}`" if curve and curve.get("values") else ""
    v = r.verdict.value
    return f"| {ICONS[v]} {v} | `{_cell(r.source)}` | {_cell(r.format or r.kind)} | {points} | {_cell(loss)} |"


def render_markdown(result: Result, stream: IO[str], view: View | None = None) -> None:
    verbose = view is not None and view.verbosity > 0
    w = stream.write
    w(f"## trainlint {result.command}: {result.verdict.value}\n\n")
    w(f"{counts_text(result)} (exit {exit_code(result, view)})\n\n")
    reports = sorted_reports(result)
    if result.empty_reason:
        w(f"**NOT-CHECKED**: {_cell(result.empty_reason)}\n\n")
    if result.interrupted is not None:
        w(f"**INTERRUPTED**: {_cell(interrupted_text(result) or '')}\n\n")
    if reports:
        w("| verdict | input | format | points | loss |\n|---|---|---|---:|---|\n")
        for r in reports:
            w(_row(r) + "\n")
        w("\n")
    shown = [r for r in reports if r.unjudged or any(f.severity.value != "NOTE" or verbose for f in r.findings)]
    if shown:
        w("### Findings\n\n")
    for r in shown:
        w(f"**`{r.source}`** {r.verdict.value}\n\n")
        if r.unjudged:
            w(f"- could not judge: {r.unjudged}\n")
        for f in r.findings:
            if f.severity.value == "NOTE" and not verbose:
                continue
            at = f" (step {fmt_step(f.step)})" if f.step is not None else ""
            if f.evidence.get("part"):  # a file of a folded run
                at += f" in `{f.evidence['part']}`"
            at += origin_text(f)
            tip = rule_help(f.code)
            w(
                f"- **{f.severity.value} {f.code}** {f.name}{at}: {f.message}"
                + (f"<br>help: {tip}" if tip else "")
                + "\n"
            )
        w("\n")
