"""GitHub Actions workflow commands: one ``::error``/``::warning`` annotation per finding.

``::error file=PATH,line=N,title=TL010 loss-diverged::MESSAGE``; the line is the log line or
dataset line when the finding knows it. An input that could not be judged is an ``::error``
titled NOT-CHECKED. NOTEs become ``::notice`` only with ``-v``. The last line is the summary."""

from __future__ import annotations

from typing import IO

from ..verdict import Result
from .common import View, counts_text, exit_code, finding_location, interrupted_text, sorted_reports

LEVELS = {"FAIL": "error", "WARN": "warning", "NOTE": "notice"}


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _prop(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def command(
    level: str,
    message: str,
    file: str | None = None,
    line: int | None = None,
    title: str | None = None,
) -> str:
    props = []
    if file:
        props.append(f"file={_prop(file)}")
    if line is not None:
        props.append(f"line={line}")
    if title:
        props.append(f"title={_prop(title)}")
    return f"::{level} {','.join(props)}::{_data(message)}" if props else f"::{level}::{_data(message)}"


def render_github(result: Result, stream: IO[str], view: View | None = None) -> None:
    verbose = view is not None and view.verbosity > 0
    for report in sorted_reports(result):
        for f in report.findings:
            if f.severity.value == "NOTE" and not verbose:
                continue
            path, line = finding_location(report, f)
            stream.write(
                command(
                    LEVELS[f.severity.value],
                    f.message,
                    path,
                    line,
                    f"{f.code} {f.name}",
                )
                + "\n"
            )
        if report.unjudged:
            stream.write(command("error", report.unjudged, report.source, None, "NOT-CHECKED") + "\n")
    if result.empty_reason:
        stream.write(command("error", result.empty_reason, None, None, "NOT-CHECKED") + "\n")
    if result.interrupted is not None:
        stream.write(command("error", interrupted_text(result) or "", None, None, "INTERRUPTED") + "\n")
    stream.write(f"trainlint {result.verdict.value}: {counts_text(result)} (exit {exit_code(result, view)})\n")
