"""The HTML report: one self-contained page (data, scripts and styles inline; no network).

The page draws the data block from :func:`trainlint.report.html_data.page_data` with the
vendored uPlot (MIT, see ``vendor/uPlot.LICENSE``) and a small script of our own
(``page/page.js``). It is a function of the Result only.
"""

from __future__ import annotations

import contextlib
import html
import os
import tempfile
from functools import cache
from importlib import resources
from pathlib import Path
from typing import IO

from ..verdict import Result
from .html_data import page_data
from .json_out import compact_json

NOSCRIPT = "This report draws its curves with JavaScript; the data is in the tl-data block of this file."


@cache
def _asset(name: str) -> str:
    return resources.files("trainlint.report").joinpath(name).read_text(encoding="utf-8")


def _script_safe(text: str) -> str:
    """JSON text that cannot end (or confuse) the <script> element holding it: <, > and & are
    written as JSON escapes (they only occur inside strings)."""
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def data_json(result: Result, reload: float | None = None) -> str:
    """The page's data block as strict, compact JSON."""
    return compact_json(page_data(result, reload))


def page(result: Result, reload: float | None = None) -> str:
    """The whole page as a string; ``reload``: it reloads itself every that many seconds."""
    title = f"trainlint {result.command}: {result.verdict.value}"
    if result.interrupted is not None:
        title += " (interrupted)"
    return "".join(
        [
            '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n',
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n',
            '<meta name="color-scheme" content="light dark">\n',
            f"<title>{html.escape(title)}</title>\n",
            "<style>\n",
            _asset("vendor/uPlot.min.css"),
            "\n",
            _asset("page/page.css"),
            "</style>\n",
            '</head>\n<body>\n<main id="tl-root" class="tl">',
            f"<h1>{html.escape(title)}</h1><noscript>{NOSCRIPT}</noscript></main>\n",
            '<script type="application/json" id="tl-data">',
            _script_safe(data_json(result, reload)),
            "</script>\n",
            "<script>\n/* uPlot (MIT licence, (c) Leon Sorokin) */\n",
            _asset("vendor/uPlot.iife.min.js"),
            "\n</script>\n<script>\n",
            _asset("page/overlay.js"),
            _asset("page/page.js"),
            "</script>\n</body>\n</html>\n",
        ]
    )


def render_html(result: Result, stream: IO[str]) -> None:
    stream.write(page(result))


def write_page(result: Result, path: Path, reload: float | None = None) -> None:
    """Write the page to ``path`` atomically: a temporary file in the same folder, then
    ``os.replace``, so a browser reloading it never reads half a page."""
    from . import vetted

    text = page(vetted(result, ("html",)), reload)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def notebook_html(result: Result, height: int = 720) -> str:
    """The same page for a notebook cell: inside an iframe (srcdoc), so its script and styles
    stay apart from the notebook's."""
    doc = html.escape(page(result), quote=True)
    return (
        f'<iframe srcdoc="{doc}" style="width:100%;height:{height}px;border:1px solid #ccc;" '
        'sandbox="allow-scripts" title="trainlint report"></iframe>'
    )


Result.html_hook = notebook_html
