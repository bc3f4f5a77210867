"""Reporters render a Result; they never judge."""

from __future__ import annotations

import sys
from typing import IO

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


def render(result: Result, fmt: str = "text", stream: IO[str] | None = None, view: View | None = None) -> None:
    """Write ``result`` to ``stream`` (default stdout) in format ``fmt``."""
    stream = stream or sys.stdout
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


__all__ = ["FORMATS", "SUFFIXES", "View", "format_for", "render"]
