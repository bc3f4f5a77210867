"""An Excel workbook of a metrics history (``df.to_excel('history.xlsx')`` of a frame of loss
columns, a sheet saved from a spreadsheet): its first sheet read as a table whose first row
names the columns, as a CSV's header does.

An ``.xlsx`` is a zip of XML; read with the standard library only (zipfile, ElementTree), never
with openpyxl: the workbook names its first sheet, the sheet's cells are numbers, shared strings
(``t="s"``), inline strings or booleans. Bounded: each XML member is inflated to at most
MAX_XML bytes (a zip bomb stops there) and one with a DOCTYPE (entity expansion) is refused.
A column without a name (pandas' index) is left out; the rows are read as json_records reads
a list of records. Only a sheet whose header names a loss is claimed.
"""

from __future__ import annotations

import re
import zipfile
import zlib
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

from ..model import Run
from ..safeio import open_regular
from .base import ReadError, reader
from .json_records import document_into
from .numpy_file import says_loss

NAME = "xlsx"
MAX_XML = 32 << 20
MAX_ROWS = 1_000_000
MAX_COLUMNS = 512
_MAIN = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
_REL = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
_PKG_REL = "{http://schemas.openxmlformats.org/package/2006/relationships}"
_COL = re.compile(r"^([A-Z]{1,3})\d*$")


class _Bad(ValueError):
    """Not a readable metrics sheet; the message says why, in one line."""


def _xml(zf: zipfile.ZipFile, name: str) -> ET.Element | None:
    """A member's XML (None when absent), inflated to MAX_XML bytes at most; no DOCTYPE."""
    if name not in zf.NameToInfo:
        return None
    with zf.open(name) as member:
        data = member.read(MAX_XML + 1)
    if len(data) > MAX_XML:
        raise _Bad(f"{name} inflates past {MAX_XML >> 20} MiB: not read")
    if b"<!DOCTYPE" in data[:4096].upper() or b"<!ENTITY" in data.upper():
        raise _Bad(f"{name} declares a DOCTYPE or entities: not read")
    try:
        return ET.fromstring(data)
    except ET.ParseError as exc:
        raise _Bad(f"{name} is not well-formed XML ({exc})") from None


def _first_sheet(zf: zipfile.ZipFile) -> str:
    """The member of the workbook's first sheet (by the workbook's order and its relationships)."""
    book, rels = _xml(zf, "xl/workbook.xml"), _xml(zf, "xl/_rels/workbook.xml.rels")
    sheet = book.find(f"{_MAIN}sheets/{_MAIN}sheet") if book is not None else None
    rid = sheet.get(f"{_REL}id") if sheet is not None else None
    for rel in rels.iter(f"{_PKG_REL}Relationship") if rels is not None and rid else ():
        if rel.get("Id") == rid:
            target = rel.get("Target", "")
            return target.lstrip("/") if target.startswith("/") else "xl/" + target
    if "xl/worksheets/sheet1.xml" in zf.NameToInfo:
        return "xl/worksheets/sheet1.xml"
    raise _Bad("a workbook without sheets")


def _strings(zf: zipfile.ZipFile) -> list[str]:
    root = _xml(zf, "xl/sharedStrings.xml")
    if root is None:
        return []
    return ["".join(t.text or "" for t in si.iter(f"{_MAIN}t")) for si in root.iter(f"{_MAIN}si")]


def _column(ref: str | None, default: int) -> int:
    m = _COL.match(ref or "")
    if m is None:
        return default
    n = 0
    for ch in m[1]:
        n = n * 26 + ord(ch) - 64
    return n - 1


def _cell(c: ET.Element, strings: list[str]) -> Any:
    kind, v = c.get("t", "n"), c.find(f"{_MAIN}v")
    text = v.text if v is not None and v.text is not None else ""
    if kind == "s":
        k = int(text) if text.isdigit() else -1
        return strings[k] if 0 <= k < len(strings) else ""
    if kind == "inlineStr":
        return "".join(t.text or "" for t in c.iter(f"{_MAIN}t"))
    if kind in ("str", "e", "b") or text == "":
        return text if kind != "b" else text == "1"
    try:
        return float(text)
    except ValueError:
        return text


def _rows(zf: zipfile.ZipFile) -> list[dict[int, Any]]:
    sheet = _xml(zf, _first_sheet(zf))
    if sheet is None:
        raise _Bad("the workbook's first sheet is missing")
    strings, rows = _strings(zf), []
    for row in sheet.iter(f"{_MAIN}row"):
        cells = {}
        for k, c in enumerate(row.iter(f"{_MAIN}c")):
            col = _column(c.get("r"), k)
            if col < MAX_COLUMNS:
                cells[col] = _cell(c, strings)
        rows.append(cells)
        if len(rows) > MAX_ROWS:
            raise _Bad(f"a sheet of more than {MAX_ROWS:,} rows")
    return rows


def _records(path: Path) -> tuple[list[str], list[dict[str, Any]]]:
    """The first sheet's header names and its rows as records (columns without a name left out)."""
    try:
        with open_regular(path) as fh, zipfile.ZipFile(fh) as zf:
            rows = _rows(zf)
    except (OSError, zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, EOFError, zlib.error) as exc:
        raise _Bad(f"not a readable workbook ({type(exc).__name__})") from None
    if not rows:
        raise _Bad("the first sheet is empty")
    names = {col: str(v).strip() for col, v in rows[0].items() if str(v).strip()}
    records = [{names[c]: v for c, v in r.items() if c in names and v != ""} for r in rows[1:]]
    return list(names.values()), records


def _names_loss(names: list[str]) -> bool:
    """Whether a header names a loss; a ``cost`` column only beside a step or epoch column (in a
    spreadsheet a cost is as often money), as for a CSV."""
    named = [n for n in names if says_loss(n)]
    if named and all("cost" in n.lower() for n in named):
        return any(n.lower() in ("step", "steps", "epoch", "epochs", "iter", "iteration") for n in names)
    return bool(named)


@reader(NAME, priority=43)
class XlsxReader:
    def sniff(self, path: Path, head: bytes) -> bool:
        if path.suffix.lower() != ".xlsx" or not head.startswith(b"PK\x03\x04"):
            return False
        try:
            names, _ = _records(path)
        except _Bad:
            return False
        return _names_loss(names)

    def read(self, path: Path) -> Run:
        try:
            names, records = _records(path)
        except _Bad as exc:
            raise ReadError(f"not an Excel metrics sheet: {exc}") from None
        if not _names_loss(names):
            raise ReadError("an Excel sheet whose header names no loss: " + ", ".join(names[:8]))
        run = Run(source=str(path), format=NAME, files=[str(path)])
        document_into(run, records, "Excel")
        run.notes.append("the workbook's first sheet, its first row the column names (a nameless index left out)")
        return run
