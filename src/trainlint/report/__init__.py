"""Reporters render a Result; they never judge."""

from __future__ import annotations

import sys
from typing import IO

from ..verdict import Result

FORMATS = ("text", "json", "sarif", "html")


def render(result: Result, fmt: str = "text", stream: IO[str] | None = None) -> None:
    stream = stream or sys.stdout
    if fmt == "html":
        from .html import render_html

        render_html(result, stream)
    elif fmt == "sarif":
        from .sarif import render_sarif

        render_sarif(result, stream)
    elif fmt == "json":
        from .json_out import render_json

        render_json(result, stream)
    else:
        from .text import render_text

        render_text(result, stream)
