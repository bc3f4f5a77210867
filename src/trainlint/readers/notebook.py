"""Jupyter notebooks (``.ipynb``) saved with their outputs: the text a training cell printed is
read as one console log, nothing in the notebook is ever executed.

The outputs are taken in cell order: stream text (stdout and stderr, a stream's pieces joined as
the notebook showed them, ``\\r`` rewrites of tqdm and Keras left to the console reader), the
``text/plain`` of results and displays, error tracebacks (crash signatures), and the tables of
``text/html`` outputs (the Trainer's NotebookProgressCallback and fastai draw their metrics as an
HTML table; its rows become tab-separated lines). Images and other payloads are skipped unparsed:
the notebook is decoded by msgspec into the few fields read, so 50 MB of base64 costs a scan.
Formats 4 (``cells``) and 3 (``worksheets``). The console reader is told where each cell's
outputs begin: a count that starts again in a later cell is a run of its own (a model trained
anew), a Keras bar or a table there belongs to that cell, not to an earlier cell's epoch or header.
"""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

import msgspec

from ..model import Run
from ..options import ReadOptions
from ..safeio import bounded_data, file_kind, read_bytes
from .base import ReadError, reader

MAX_NOTEBOOK = 512 << 20  # bytes of a notebook read (its images included)
MAX_HTML = 2 << 20  # characters of one HTML output searched for a table
Text = str | list[str]


class _Bundle(msgspec.Struct):
    plain: Text = msgspec.field(default="", name="text/plain")
    html: Text = msgspec.field(default="", name="text/html")


class _Output(msgspec.Struct):
    output_type: str = ""
    name: str = ""  # a stream's (format 4)
    stream: str = ""  # a stream's (format 3)
    text: Text = ""  # a stream's text; format 3: a result's text/plain too
    html: Text = ""  # format 3: a result's text/html
    data: _Bundle | None = None  # format 4: a result's or display's MIME bundle
    traceback: list[str] = []


class _Cell(msgspec.Struct):
    outputs: list[_Output] = []


class _Sheet(msgspec.Struct):
    cells: list[_Cell] = []


class _Notebook(msgspec.Struct):
    cells: list[_Cell] | None = None
    worksheets: list[_Sheet] = []


def _join(text: Text) -> str:
    return text if isinstance(text, str) else "".join(text)


class _Tables(HTMLParser):
    """The rows of an HTML fragment's tables as tab-separated lines (tags stripped)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = []
        self.row: list[str] | None = None
        self.cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "tr":
            self._end_row()
            self.row = []
        elif tag in ("td", "th") and self.row is not None:
            self._end_cell()
            self.cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th"):
            self._end_cell()
        elif tag in ("tr", "table"):
            self._end_row()

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell.append(data)

    def _end_cell(self) -> None:
        if self.cell is not None and self.row is not None:
            self.row.append(" ".join("".join(self.cell).split()))
        self.cell = None

    def _end_row(self) -> None:
        self._end_cell()
        if self.row:
            self.lines.append("\t".join(self.row))
        self.row = None


def html_tables(html: str) -> str:
    """The tables of an HTML output as lines of tab-separated cells ("" when it holds none)."""
    if "<table" not in html or len(html) > MAX_HTML:
        return ""
    parser = _Tables()
    parser.feed(html)
    parser.close()
    parser._end_row()
    return "".join(line + "\n" for line in parser.lines)


class _Text:
    """The console text of a notebook's outputs, assembled in order, and what went into it."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.stream: tuple[int, str] | None = None  # the stream the last piece continued
        self.outputs = self.tables = self.big_html = 0
        self.newlines, self.cell = 0, -1
        self.starts: list[int] = []  # the line where each cell's outputs begin

    def _put(self, piece: str) -> None:
        self.parts.append(piece)
        self.newlines += piece.count("\n")

    def _break(self) -> None:
        if self.parts and not self.parts[-1].endswith("\n"):
            self._put("\n")

    def add(self, cell: int, out: _Output) -> None:
        if cell != self.cell:
            self._break()
            self.cell = cell
            self.starts.append(self.newlines + 1)
        kind = out.output_type
        if kind == "stream":
            key = (cell, out.name or out.stream)
            if key != self.stream:
                self._break()
            self._put(_join(out.text))
            self.stream, self.outputs = key, self.outputs + 1
            return
        self.stream = None
        self._break()
        if kind == "error":
            self._put("\n".join(out.traceback) + "\n")
        elif kind in ("execute_result", "display_data", "pyout"):
            self._put(self._rich(out.data or _Bundle(out.text, out.html)))
        else:
            return
        self.outputs += 1

    def _rich(self, bundle: _Bundle) -> str:
        html = _join(bundle.html)
        table = html_tables(html)
        self.tables += bool(table)
        self.big_html += len(html) > MAX_HTML and "<table" in html
        plain = _join(bundle.plain)
        if table or plain.startswith("<IPython.core.display."):
            return table
        return plain + "\n" if plain else ""


def notebook_text(data: bytes) -> tuple[str, list[str], list[int]]:
    """The console text of a notebook's outputs, the notes that say what was read, and the lines
    where each cell's outputs begin."""
    try:
        nb = msgspec.json.decode(data, type=_Notebook)
    except msgspec.MsgspecError as exc:
        raise ReadError(f"not a Jupyter notebook (its JSON does not parse as one: {exc})".splitlines()[0]) from None
    cells = nb.cells if nb.cells is not None else [c for sheet in nb.worksheets for c in sheet.cells]
    text = _Text()
    for i, cell in enumerate(cells):
        for out in cell.outputs:
            text.add(i, out)
    notes = [
        f"read from a Jupyter notebook: {text.outputs} output(s) of {len(cells)} cell(s) as console text"
        + (f", {text.tables} HTML table(s) as rows" if text.tables else "")
        + "; images and other payloads skipped"
    ]
    if text.big_html:
        notes.append(f"{text.big_html} HTML output(s) over {MAX_HTML >> 20} MiB not searched for a table")
    return "".join(text.parts), notes, text.starts


@reader("notebook", priority=8)
class NotebookReader:
    def sniff(self, path: Path, head: bytes) -> bool:
        return path.suffix.lower() == ".ipynb" and head.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] == b"{"

    def read(self, path: Path, options: ReadOptions | None = None) -> Run:
        from .console.reader import read_console_text

        size = path.stat().st_size if file_kind(path) == "file" else 0
        if size > MAX_NOTEBOOK:
            raise ReadError(f"a notebook of {size >> 20} MiB: over the {MAX_NOTEBOOK >> 20} MiB trainlint reads")
        text, notes, starts = notebook_text(read_bytes(path))
        data, long = bounded_data(text.encode())  # a line over the console reader's limit cut out
        del text
        try:  # (where a line was cut out the lines are counted otherwise: no cell is placed)
            run = read_console_text(path, data.decode(errors="replace"), notes, long, options, [] if long else starts)
        except ReadError:
            raise ReadError("a notebook whose outputs hold no training progress") from None
        return run
