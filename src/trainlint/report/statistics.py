"""``--statistics``: how often each rule fired, most frequent first (like ruff's statistics).

One row per rule code: the number of findings, the code, the rule's name, the severity and the
number of inputs it fired on; ties in code order. FAIL and WARN findings (NOTEs too with
``-v``); then the inputs that could not be judged, and the verdict line of the text view."""

from __future__ import annotations

from typing import IO, Any

from ..verdict import Result
from .common import View, counts_text, exit_code
from .concise import shown


def statistics(result: Result, verbose: bool = False) -> list[dict[str, Any]]:
    """``[{code, name, severity, count, inputs}]``, most frequent first, ties by code."""
    rows: dict[str, dict[str, Any]] = {}
    for report in result.reports:
        for f in shown(report, verbose):
            row = rows.setdefault(
                f.code, {"code": f.code, "name": f.name, "severity": f.severity.value, "count": 0, "inputs": set()}
            )
            row["count"] += 1
            row["inputs"].add(report.source)
    out = [{**row, "inputs": len(row["inputs"])} for row in rows.values()]
    return sorted(out, key=lambda row: (-row["count"], row["code"]))


def render_statistics(result: Result, stream: IO[str], view: View | None = None) -> None:
    view = view or View()
    rows = statistics(result, view.verbosity > 0)
    width = max((len(str(row["count"])) for row in rows), default=1)
    name_w = max((len(row["name"]) for row in rows), default=0)
    for row in rows:
        inputs = f"{row['inputs']} input" + ("" if row["inputs"] == 1 else "s")
        stream.write(
            f"{row['count']:>{width}}  {row['code']}  {row['name']:<{name_w}}  {row['severity']:<4}  {inputs}\n"
        )
    unjudged = sum(1 for r in result.reports if r.unjudged)
    if unjudged:
        stream.write(f"{unjudged:>{width}}  NOT-CHECKED input" + ("s" if unjudged > 1 else "") + "\n")
    if not rows and not unjudged:
        stream.write("no findings\n")
    stream.write(f"{result.verdict.value}: {counts_text(result)} (exit {exit_code(result, view)})\n")
