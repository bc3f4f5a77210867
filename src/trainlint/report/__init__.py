"""Reporters render a Result; they never judge.

The output formats are one table, :data:`OUTPUT_FORMATS`: a new format is one module in
``report/`` and one row. The CLI's ``--format`` choices and help, the ``--output`` suffix map
and the format list are all read from it."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterable
from typing import IO, Any, NamedTuple

import msgspec

from ..verdict import Result
from .common import View


class OutputFormat(NamedTuple):
    """One output format: ``report/<module>.py`` holds ``function(result, stream[, view])``."""

    name: str  # the --format choice
    module: str  # the module under trainlint.report
    function: str  # its renderer
    suffixes: tuple[str, ...]  # --output FILE suffixes that write it (lower case)
    help: str  # how --format's help names it
    takes_view: bool = False  # the renderer takes the View (verbosity, exit code, colour)


OUTPUT_FORMATS: tuple[OutputFormat, ...] = (
    OutputFormat("text", "text", "render_text", (".txt",), "text", takes_view=True),
    OutputFormat("json", "json_out", "render_json", (".json",), "json (the envelope)"),
    OutputFormat("sarif", "sarif", "render_sarif", (".sarif",), "sarif (code scanning)"),
    OutputFormat("junit", "junit", "render_junit", (".xml",), "junit"),
    OutputFormat("github", "github", "render_github", (), "github (workflow annotations)", takes_view=True),
    OutputFormat("markdown", "markdown", "render_markdown", (".md", ".markdown"), "markdown (step summary)", True),
    OutputFormat("html", "html", "render_html", (".html", ".htm"), "html (a self-contained page)"),
    OutputFormat("concise", "concise", "render_concise", (), "concise (one line per finding)", takes_view=True),
    OutputFormat("statistics", "statistics", "render_statistics", (), "statistics (findings per rule)", True),
)


def format_names() -> tuple[str, ...]:
    """The output formats, in the table's order (the ``--format`` choices)."""
    return tuple(f.name for f in OUTPUT_FORMATS)


def suffix_map() -> dict[str, str]:
    """``--output FILE``: the format each file suffix names."""
    return {suffix: f.name for f in OUTPUT_FORMATS for suffix in f.suffixes}


def output_format(name: str) -> OutputFormat:
    """The row of format ``name``; ValueError when there is none."""
    for f in OUTPUT_FORMATS:
        if f.name == name:
            return f
    raise ValueError(f"unknown output format {name!r}")


def vetted(result: Result, formats: Iterable[str] = ("json",)) -> Result:
    """``result`` with every report that cannot be serialised replaced by its NOT-CHECKED report
    with a one-line reason, so one input never breaks the output of the others (issue 33); the
    same Result when every report passes. (The text view does the same as it renders each
    report: ``text.text_blocks``.)"""
    from .common import unreportable
    from .json_out import compact_json

    reports = []
    for r in result.reports:
        try:
            compact_json(r.to_dict(curves="html" in formats))  # the curves: only the page has them
        except Exception as exc:  # noqa: BLE001  (any serialising bug: this input's NOT-CHECKED)
            r = unreportable(r, exc)
        reports.append(r)
    if all(a is b for a, b in zip(reports, result.reports)):
        return result
    return msgspec.structs.replace(result, reports=reports)


def render(
    result: Result, fmt: str = "text", stream: IO[str] | None = None, view: View | None = None, vet: bool = True
) -> None:
    """Write ``result`` to ``stream`` (default stdout) in format ``fmt``; a report that cannot
    be written becomes its NOT-CHECKED (:func:`vetted`; ``vet=False``: vetted already)."""
    row = output_format(fmt)
    renderer = getattr(importlib.import_module(f"{__name__}.{row.module}"), row.function)
    stream = stream or sys.stdout
    if vet:
        result = vetted(result, (fmt,))
    if row.takes_view:
        renderer(result, stream, view)
    else:
        renderer(result, stream)


def format_for(path: str) -> str | None:
    """The format ``--output PATH`` writes, from its suffix; None when unknown."""
    from pathlib import PurePath

    return suffix_map().get(PurePath(path).suffix.lower())


def __getattr__(name: str) -> Any:  # FORMATS and SUFFIXES, read from the table when asked
    if name == "FORMATS":
        return format_names()
    if name == "SUFFIXES":
        return suffix_map()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "FORMATS",
    "OUTPUT_FORMATS",
    "SUFFIXES",
    "OutputFormat",
    "View",
    "format_for",
    "format_names",
    "output_format",
    "render",
    "suffix_map",
    "vetted",
]
