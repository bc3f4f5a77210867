"""Reporters render a Result; they never judge."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import IO

import msgspec

from ..verdict import Result
from .common import View

FORMATS = ("text", "json", "sarif", "junit", "github", "markdown", "html")
# --output FILE: the format from the file's suffix
SUFFIXES = {
    ".json": "json",
    ".sarif": "sarif",
    ".xml": "junit",
    ".md": "markdown",
    ".markdown": "markdown",
    ".html": "html",
    ".htm": "html",
    ".txt": "text",
}


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
    stream = stream or sys.stdout
    if vet:
        result = vetted(result, (fmt,))
    if fmt == "text":
        from .text import render_text

        render_text(result, stream, view)
    elif fmt == "json":
        from .json_out import render_json

        render_json(result, stream)
    elif fmt == "sarif":
        from .sarif import render_sarif

        render_sarif(result, stream)
    elif fmt == "junit":
        from .junit import render_junit

        render_junit(result, stream)
    elif fmt == "github":
        from .github import render_github

        render_github(result, stream, view)
    elif fmt == "markdown":
        from .markdown import render_markdown

        render_markdown(result, stream, view)
    elif fmt == "html":
        from .html import render_html

        render_html(result, stream)
    else:
        raise ValueError(f"unknown output format {fmt!r}")


def format_for(path: str) -> str | None:
    """The format ``--output PATH`` writes, from its suffix; None when unknown."""
    from pathlib import PurePath

    return SUFFIXES.get(PurePath(path).suffix.lower())


__all__ = ["FORMATS", "SUFFIXES", "View", "format_for", "render", "vetted"]
