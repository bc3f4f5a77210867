"""Streaming row readers. Each yields ``(number, row, key)`` where ``row`` is a dict
(or a :class:`Bad` for a row that could not be read) and ``key`` is the row's raw
text (for exact-duplicate hashing). Numbers are file line numbers for JSONL and CSV,
1-based row numbers for JSON arrays, Parquet and Arrow."""

from __future__ import annotations

import codecs
import csv
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec

from .. import safeio
from ..delimited import header
from ..safeio import load_json_file, open_regular
from .errors import Bad, DataError

BOM = b"\xef\xbb\xbf"
CHUNK = 1 << 20
MAX_WHOLE_JSON = 512 << 20


class Source(msgspec.Struct):
    path: Path
    format: str
    numbering: str  # "line" or "row"
    rows: Iterator[tuple[int, Any, Any]]


def head_bytes(path: Path, size: int = 65536) -> bytes:
    return safeio.head_bytes(path, size)


def open_source(path: Path) -> Source:
    """Pick the reader for ``path`` by content (and suffix for CSV/TSV)."""
    if path.is_dir():
        from .arrow import open_arrow_folder

        return Source(path, "hf-arrow", "row", open_arrow_folder(path))
    try:
        head = head_bytes(path)
    except OSError as exc:
        raise DataError(f"cannot open: {exc.strerror or exc}") from None
    if head.startswith(b"PAR1") or path.suffix.lower() == ".parquet":
        from .arrow import iter_parquet

        return Source(path, "parquet", "row", iter_parquet(path))
    if path.suffix.lower() == ".arrow":
        from .arrow import iter_arrow_files

        return Source(path, "arrow", "row", iter_arrow_files([path]))
    if b"\x00" in head[:4096]:
        raise DataError("binary file, not a dataset format trainlint reads")
    text = head.lstrip(BOM).lstrip()
    if not text:
        raise DataError("empty file")
    if path.suffix.lower() == ".txt":
        return Source(path, "text-lines", "line", iter_text_lines(path))
    if path.suffix.lower() in (".csv", ".tsv"):
        return Source(path, "csv", "line", iter_csv(path, head))
    if text[:1] not in (b"{", b"["):
        first = text.split(b"\n", 1)[0]
        if not any(c in first for c in (b",", b"\t", b";", b"|")):
            raise DataError("not a dataset format trainlint reads (JSONL, JSON, CSV/TSV, Parquet, .txt lines)")
        return Source(path, "csv", "line", iter_csv(path, head))
    if text[:1] == b"[":
        return Source(path, "json", "row", iter_json_array(path))
    if (
        path.suffix.lower() in (".jsonl", ".ndjson", ".jsonlines")
        or _is_jsonl(text)
        or (b"\n" not in text.rstrip() and _first_line_is_row(path))
    ):
        return Source(path, "jsonl", "line", iter_jsonl(path))
    return Source(path, "json", "row", iter_json_object(path))


def _first_line_is_row(path: Path, limit: int = 256 << 20) -> bool:
    """A first line longer than the sniffed head: read it whole and see if it is one object."""
    with open_regular(path) as fh:
        line = fh.readline(limit)
    if not line.endswith(b"\n"):
        return False  # the whole file is one line: a JSON document
    try:
        return isinstance(json.loads(line), dict)
    except ValueError:
        return False


def _is_jsonl(text: bytes) -> bool:
    """JSON lines: some complete line among the first 20 is an object on its own (a broken first
    line does not make it a JSON document). One line wrapping a list of rows is a document."""
    lines = [ln.strip() for ln in text.split(b"\n")[:20]]
    for line in lines[:-1] if len(lines) > 1 else lines:
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if not isinstance(obj, dict):
            return False
        wrapper = any(isinstance(v, list) and v and isinstance(v[0], dict) for v in obj.values())
        return not (wrapper and len([ln for ln in lines if ln]) == 1)
    return False


def _json_message(exc: json.JSONDecodeError) -> str:
    return safeio.json_error(exc, line=False)  # the line is the row's


def _decoded_lines(path: Path) -> Iterator[tuple[int, str, Bad | None]]:
    """(line number, text, Bad for invalid UTF-8 or None); bad bytes are replaced so the row is still read."""
    offset = 0
    with open_regular(path) as fh:
        for n, raw in enumerate(fh, 1):
            start, offset = offset, offset + len(raw)
            if n == 1 and raw.startswith(BOM):
                raw, start = raw[3:], 3
            try:
                yield n, raw.decode("utf-8"), None
            except UnicodeDecodeError as exc:
                yield (
                    n,
                    raw.decode("utf-8", errors="replace"),
                    Bad(
                        "utf8",
                        f"{exc.reason} (byte 0x{raw[exc.start]:02x} at column {exc.start + 1})",
                        start + exc.start,
                    ),
                )


def iter_jsonl(path: Path) -> Iterator[tuple[int, Any, Any]]:
    loads = json.loads
    for n, text, bad in _decoded_lines(path):
        if bad is not None:
            yield n, bad, None
        text = text.strip()
        if not text:
            yield n, Bad("blank", "blank or whitespace-only line"), None
            continue
        try:
            obj = loads(text)
        except ValueError as exc:
            msg = _json_message(exc) if isinstance(exc, json.JSONDecodeError) else str(exc)
            yield n, Bad("json", msg), None
            continue
        except RecursionError:
            yield n, Bad("json", "nested too deeply to parse"), None
            continue
        if type(obj) is not dict:
            yield n, Bad("row", f"a JSON {type(obj).__name__}, not an object"), None
            continue
        yield n, obj, text


def iter_text_lines(path: Path) -> Iterator[tuple[int, Any, Any]]:
    """A plain-text corpus: every non-empty line is one row ``{"text": line}``."""
    for n, text, bad in _decoded_lines(path):
        if bad is not None:
            yield n, bad, None
        text = text.rstrip("\r\n")
        if text.strip():
            yield n, {"text": text}, text


def _decode_chunks(path: Path) -> Iterator[tuple[str, Bad | None]]:
    """Text chunks; a chunk with invalid UTF-8 is decoded with replacement and flagged."""
    strict = codecs.getincrementaldecoder("utf-8")()
    done = 0
    with open_regular(path) as fh:
        while True:
            data = fh.read(CHUNK)
            final = not data
            if done == 0 and data.startswith(BOM):
                data = data[3:]
            try:
                text, bad = strict.decode(data, final), None
            except UnicodeDecodeError as exc:
                bad = Bad("utf8", f"{exc.reason} (byte 0x{data[exc.start]:02x})", done + exc.start)
                strict.reset()
                text = data.decode("utf-8", errors="replace")
            done += len(data)
            yield text, bad
            if final:
                return


class _Buffer:
    """A sliding text window over a file, refilled chunk by chunk."""

    def __init__(self, path: Path) -> None:
        self.chunks = _decode_chunks(path)
        self.buf, self.pos, self.line, self.eof = "", 0, 1, False

    def fill(self) -> Bad | None:
        self.line += self.buf.count("\n", 0, self.pos)
        self.buf, self.pos = self.buf[self.pos :], 0
        text, bad = next(self.chunks)
        self.eof = text == ""
        self.buf += text
        return bad

    def skip(self, chars: str) -> None:
        while self.pos < len(self.buf) and self.buf[self.pos] in chars:
            self.pos += 1


def iter_json_array(path: Path) -> Iterator[tuple[int, Any, Any]]:
    """Stream the elements of a top-level JSON array with ``raw_decode`` over a sliding buffer."""
    decoder, b, n, opened = json.JSONDecoder(), _Buffer(path), 0, False
    while True:
        b.skip(" \t\r\n," if opened else " \t\r\n")
        if not b.eof and len(b.buf) - b.pos < 64:
            bad = b.fill()
            if bad is not None:
                yield n + 1, bad, None
            continue
        if b.pos >= len(b.buf):
            yield n + 1, Bad("json", f"file ends inside the array (line {b.line})"), None
            return
        if not opened:
            if b.buf[b.pos] != "[":
                yield 1, Bad("json", f"expected '[' at line {b.line}"), None
                return
            opened, b.pos = True, b.pos + 1
            continue
        if b.buf[b.pos] == "]":
            return
        try:
            obj, end = decoder.raw_decode(b.buf, b.pos)
        except ValueError as exc:
            if not b.eof:
                bad = b.fill()
                if bad is not None:
                    yield n + 1, bad, None
                continue
            where = b.line + b.buf.count("\n", 0, getattr(exc, "pos", b.pos))
            msg = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
            yield n + 1, Bad("json", f"{msg} at line {where}; the rest of the array is unreadable"), None
            return
        n += 1
        yield (
            (n, obj, b.buf[b.pos : end])
            if type(obj) is dict
            else (n, Bad("row", f"a JSON {type(obj).__name__}, not an object"), None)
        )
        b.pos = end


def iter_json_object(path: Path) -> Iterator[tuple[int, Any, Any]]:
    """A whole JSON document holding one list of row objects (e.g. ``{"data": [...]}``)."""
    if path.stat().st_size > MAX_WHOLE_JSON:
        raise DataError("a JSON object this large cannot be streamed; convert it to JSONL")
    try:
        doc = load_json_file(path)  # bounded; a byte-order mark stripped
    except ValueError as exc:
        msg = _json_message(exc) if isinstance(exc, json.JSONDecodeError) else str(exc)
        raise DataError(f"not JSONL and not a JSON document: {msg} (line {getattr(exc, 'lineno', '?')})") from None
    lists = (
        [(k, v) for k, v in doc.items() if isinstance(v, list) and v and isinstance(v[0], dict)]
        if isinstance(doc, dict)
        else []
    )
    if not lists:
        raise DataError("a JSON object with no list of row objects in it")
    if lists[0][0] == "log_history":
        raise DataError(
            "a Hugging Face trainer_state.json: its log_history is a training log, not a dataset "
            "(judge it with `trainlint doctor`)"
        )
    for n, obj in enumerate(lists[0][1], 1):
        if type(obj) is dict:
            yield n, obj, json.dumps(obj, sort_keys=True)
        else:
            yield n, Bad("row", f"a JSON {type(obj).__name__}, not an object"), None


def _dialect(path: Path, head: bytes) -> str:
    if path.suffix.lower() == ".tsv":
        return "\t"
    found = header(head.lstrip(BOM).decode("utf-8", errors="replace"), ",\t;|")
    return found[1] if found else ","


def iter_csv(path: Path, head: bytes) -> Iterator[tuple[int, Any, Any]]:
    csv.field_size_limit(1 << 30)
    delim = _dialect(path, head)
    with io.TextIOWrapper(open_regular(path), encoding="utf-8-sig", errors="surrogateescape", newline="") as fh:
        reader = csv.reader(fh, delimiter=delim)
        header: list[str] | None = None
        last = 0
        while True:
            try:
                values = next(reader)
            except StopIteration:
                return
            except csv.Error as exc:
                yield last + 1, Bad("json", f"CSV: {exc}"), None
                last = reader.line_num
                continue
            start, last = last + 1, reader.line_num
            if not values or (len(values) == 1 and not values[0].strip()):
                continue
            if header is None:
                header = [h.strip() for h in values]
                continue
            yield from _csv_row(start, header, values)


def _csv_row(line: int, header: list[str], values: list[str]) -> Iterator[tuple[int, Any, Any]]:
    joined = "\x1f".join(values)
    if any("\udc80" <= c <= "\udcff" for c in joined):
        raw = joined.encode("utf-8", errors="surrogateescape")
        bad = next(i for i, c in enumerate(joined) if "\udc80" <= c <= "\udcff")
        at = len(joined[:bad].encode("utf-8", errors="surrogateescape")) + 1
        yield line, Bad("utf8", f"invalid UTF-8 byte 0x{ord(joined[bad]) - 0xDC00:02x} at byte {at} of the row"), None
        joined = raw.decode("utf-8", errors="replace")
        values = joined.split("\x1f")
    if len(values) != len(header):
        yield line, Bad("row", f"{len(values)} fields, the header has {len(header)}"), None
        return
    yield line, dict(zip(header, values)), joined
