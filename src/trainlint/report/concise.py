"""``--format concise``: one line per finding, ``path:step: CODE name message`` (like ruff's).

For grep and editors. A finding without a step is ``path: CODE name message``;
an input that could not be judged is ``path: NOT-CHECKED reason``; one judged by the point rules
only is ``path: PASS on 10 points: trend rules need 20``. NOTEs only with ``-v``. The
last line is the verdict, the counts and the exit code, as in the text view."""

from __future__ import annotations

from collections.abc import Iterator
from typing import IO

from ..verdict import Finding, Report, Result
from .common import View, counts_text, exit_code, finding_location, fmt_step, sorted_reports


def shown(report: Report, verbose: bool) -> Iterator[Finding]:
    """The findings a line-per-finding view shows: FAIL and WARN, NOTEs too when verbose."""
    return (f for f in report.findings if verbose or f.severity.value != "NOTE")


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def concise_lines(result: Result, verbose: bool = False) -> Iterator[str]:
    """The lines of the concise view, the verdict line last."""
    for report in sorted_reports(result):
        for f in shown(report, verbose):
            path, _ = finding_location(report, f)
            at = f":{fmt_step(f.step)}" if f.step is not None else ""
            yield f"{path}{at}: {f.code} {f.name} {_one_line(f.message)}"
        if report.unjudged:
            yield f"{report.source}: NOT-CHECKED {_one_line(report.unjudged)}"
        elif report.scope:
            yield f"{report.source}: {report.verdict.value} {report.scope}"
    if result.empty_reason:
        yield f"NOT-CHECKED: {_one_line(result.empty_reason)}"


def render_concise(result: Result, stream: IO[str], view: View | None = None) -> None:
    view = view or View()
    for line in concise_lines(result, view.verbosity > 0):
        stream.write(line + "\n")
    stream.write(f"{result.verdict.value}: {counts_text(result)} (exit {exit_code(result, view)})\n")
