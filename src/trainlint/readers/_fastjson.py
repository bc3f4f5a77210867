"""Fast paths for big JSON logs: JSON lines and ``trainer_state.json`` decoded by msgspec
straight into typed records, then into numpy columns without a Python step per value.

Each function returns None when its input is not the common clean case (a value that is not a
number or null, a line that is not one JSON object, a number out of float range, NaN/Infinity
tokens, invalid UTF-8, ...). The caller then takes its general path, which reads and reports
every such oddity, so a fast path never changes what is read, only how fast.

The input is decoded in blocks of records (about 1 MB each): peak memory stays near the size of
the columns, not of the parsed file.
"""

from __future__ import annotations

import math
import operator
import re
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import msgspec
import numpy as np

from ..safeio import open_regular

BLOCK = 1 << 20  # bytes decoded at a time: the records of a block stay in cache
BOM = b"\xef\xbb\xbf"
MAX_NEW_FIELDS = 16  # field names learnt from decode errors before giving up on the fast path
_UNKNOWN = re.compile(r"unknown field `(.*?)`(?: - at `[^`]*`)?$", re.DOTALL)
_TWO_ON_A_LINE = re.compile(rb"\}[ \t\r]*\{")
_KEY = re.compile(rb'"((?:[^"\\\n]|\\.){1,200})"\s*:')
_ENTRY_GAP = re.compile(rb"\}\s*,\s*\{")
_LOG_HISTORY_KEY = re.compile(rb'"log_history"\s*:\s*\[')
Table = dict[str, np.ndarray]
_SCALAR = bool | int | float | str | None


class Schema:
    """A msgspec record type for flat objects of numbers, grown when an unseen key turns up.

    Absent keys read as NaN (JSON has no NaN token msgspec accepts, so a NaN here always
    means absent); null reads as None."""

    def __init__(self, keys: list[str], kind: Any) -> None:
        self.keys, self.kind, self.grown = list(dict.fromkeys(keys)), kind, 0
        self._build()

    def _build(self) -> None:
        """Make the record type; None for a key msgspec cannot map a field to (one holding a
        quote, a backslash or a control character): the general path reads such a file."""
        self.names = [f"f{i}" for i in range(len(self.keys))]
        self.type: type[msgspec.Struct] | None
        try:
            self.type = msgspec.defstruct(
                "Record",
                [(n, self.kind, math.nan) for n in self.names],
                rename=dict(zip(self.names, self.keys)),
                forbid_unknown_fields=True,
                gc=False,
            )
        except ValueError:
            self.type = None

    def decode(self, fn: Callable[[Any], Any]) -> Any:
        """``fn(record_type)``, retried with each unknown key it reports; None when the input
        is not of this shape."""
        while self.type is not None:
            try:
                return fn(self.type)
            except msgspec.ValidationError as exc:
                m = _UNKNOWN.search(str(exc))
                if m is None or self.grown >= MAX_NEW_FIELDS or m.group(1) in self.keys:
                    return None
                self.keys.append(m.group(1))
                self.grown += 1
                self._build()
            except (msgspec.DecodeError, RecursionError):
                return None
        return None

    def has_null(self, records: list[Any], keys: tuple[str, ...]) -> bool:
        """Whether any record holds null for one of ``keys``."""
        return any(
            None in map(operator.attrgetter(self.names[self.keys.index(k)]), records) for k in keys if k in self.keys
        )

    def table(self, records: list[Any]) -> Table | None:
        """One float64 column per key (NaN where absent or null); None on an integer too
        large for a float."""
        try:
            return {k: _column(records, name) for k, name in zip(self.keys, self.names)}
        except OverflowError:
            return None


def _column(records: list[Any], name: str) -> np.ndarray:
    """The attribute ``name`` of every record as float64 (a null becomes NaN)."""
    get = operator.attrgetter(name)
    try:
        return np.fromiter(map(get, records), np.float64, len(records))
    except TypeError:  # a null: the slower conversion that takes None as NaN
        return np.array(list(map(get, records)), np.float64)


def _decode_lines(block: bytes, record: type[msgspec.Struct]) -> list[Any]:
    """The records of a block of JSON lines."""
    return msgspec.json.Decoder(record).decode_lines(block)


def _decode_list(buf: bytes | memoryview, record: Any) -> list[Any]:
    """The records of a JSON array."""
    return msgspec.json.decode(buf, type=list[record])


def _blocks(buf: memoryview, gap: re.Pattern[bytes], size: int = 0) -> Iterator[memoryview]:
    """Slices of ``buf`` of about ``size`` bytes, cut inside a ``gap`` between two records."""
    size = size or BLOCK
    pos, n = 0, len(buf)
    while pos < n:
        end = nxt = n
        if pos + size < n:
            m = gap.search(buf, pos + size)
            if m is not None:
                end, nxt = m.start() + 1, m.end() - 1
        yield buf[pos:end]
        pos = nxt


def _line_blocks(path: Path, size: int = 0) -> Iterator[bytes]:
    """A file in blocks of whole lines (the last may lack its newline), without a BOM."""
    size = size or BLOCK
    carry = b""
    with open_regular(path) as fh:
        head = fh.read(3)
        carry = b"" if head == BOM else head
        while True:
            chunk = fh.read(size)
            if not chunk:
                break
            cut = chunk.rfind(b"\n") + 1
            if not cut:
                carry += chunk
                continue
            yield (carry + memoryview(chunk)[:cut]) if carry else chunk[:cut]
            carry = chunk[cut:]
    if carry:
        yield carry


class _Parts:
    """Columns of successive blocks, written into arrays sized from the first block's rows per
    byte of ``total_bytes`` (grown when that falls short), NaN where a block lacks a key: one
    write per value and no joining of the blocks' columns at the end (each fresh array of the
    join cost a page fault per 4 KB). The arrays are not filled beforehand: each block writes
    its rows of every column, NaN for a key it lacks."""

    def __init__(self, total_bytes: int) -> None:
        self.total, self.cols, self.count, self.cap = total_bytes, dict[str, np.ndarray](), 0, 0

    def add(self, table: Table, n: int, nbytes: int) -> None:
        if not self.cap:
            self.cap = int(self.total / max(nbytes, 1) * n * 1.02) + n
        if self.count + n > self.cap:
            self._grow(max(2 * self.cap, self.count + n))
        rows = slice(self.count, self.count + n)
        for k, col in table.items():
            out = self.cols.get(k)
            if out is None:
                out = self.cols[k] = np.empty(self.cap)
                out[: self.count] = np.nan  # the blocks before lacked it
            out[rows] = col
        for k in self.cols.keys() - table.keys():
            self.cols[k][rows] = np.nan
        self.count += n

    def _grow(self, cap: int) -> None:
        for k, a in self.cols.items():
            self.cols[k] = np.empty(cap)
            self.cols[k][: self.count] = a[: self.count]
        self.cap = cap

    def stack(self) -> Table:
        """The columns, trimmed to the rows read (copied when the estimate was far too large)."""
        spare = self.cap > self.count * 1.25
        return {k: a[: self.count].copy() if spare else a[: self.count] for k, a in self.cols.items()}


def jsonl_table(path: Path, keys: list[str]) -> tuple[Table, int] | None:
    """Columns of a JSON-lines file whose every line is one flat object of numbers (or nulls),
    and its record count. ``keys``: the keys of its first lines, in order of appearance.
    Invalid UTF-8 can only sit in a key, and msgspec refuses it there: no pass checks the text."""
    schema, parts, one_per_line = Schema(keys, float | None), _Parts(path.stat().st_size), _OnePerLine()
    for block in _line_blocks(path):
        records = schema.decode(partial(_decode_lines, block))
        if records is None or not one_per_line(block, len(records)):
            return None
        table = schema.table(records)
        if table is None:
            return None
        parts.add(table, len(records), len(block))
    return (parts.stack(), parts.count) if parts.count else None


def trainer_state_table(
    data: bytes, meta_keys: tuple[str, ...], summary_keys: tuple[str, ...]
) -> tuple[dict[str, Any], Table, int, dict[str, Any] | None] | None:
    """(top-level meta, columns of log_history, entry count, the last summary entry) of a
    trainer_state.json whose log_history entries are flat objects of numbers (or nulls).
    A summary entry is one holding any of ``summary_keys`` (declined when such a key is null)."""
    top = msgspec.defstruct(  # meta values are scalars: anything bigger takes the bounded general path
        "State",
        [("log_history", msgspec.Raw, msgspec.UNSET)] + [(k, _SCALAR, msgspec.UNSET) for k in meta_keys],
    )
    located = _split_state(data, top)
    got = None if located is None else _state_table(*located, meta_keys, summary_keys)
    if got is None and _text(data):  # not where the cheap split put it (a ']' in a key, ...)
        located = _decode_state(data, top)
        got = None if located is None else _state_table(*located, meta_keys, summary_keys)
    return got


def _split_state(data: bytes, top: Any) -> tuple[Any, memoryview] | None:
    """(the top-level object, its log_history array) without a pass over the
    entries. The array is taken to run from the key's ``[`` to the first ``]`` after it, its end
    when the entries are flat objects of numbers (the caller's decode of the entries checks
    that); the rest of the document is decoded with ``[]`` in the array's place, which checks
    it, and that the key found is the top-level one. A second ``"log_history"`` after the array
    declines: the document's last key is the one read, and its value may be ``[]`` too."""
    m = _LOG_HISTORY_KEY.search(data)
    end = -1 if m is None else data.find(b"]", m.end())
    if m is None or end < 0 or data.find(b'"log_history"', end) >= 0:  # a second key: the last counts
        return None
    outside = data[: m.end() - 1] + b"[]" + data[end + 1 :]
    if not _text(outside):  # the entries are checked by their decode (invalid UTF-8 in a key fails)
        return None
    try:
        state = msgspec.json.decode(outside, type=top)
    except (msgspec.ValidationError, msgspec.DecodeError, RecursionError):
        return None
    if state.log_history is msgspec.UNSET or bytes(state.log_history) != b"[]":
        return None
    return state, memoryview(data)[m.end() - 1 : end + 1]


def _decode_state(data: bytes, top: Any) -> tuple[Any, memoryview] | None:
    """The same from one pass over the whole document (the entries skipped, not built)."""
    try:
        state = msgspec.json.decode(data, type=top)
    except (msgspec.ValidationError, msgspec.DecodeError, RecursionError):
        return None
    raw = state.log_history
    if raw is msgspec.UNSET:
        return None
    body = memoryview(raw)
    if bytes(body[:1]) != b"[" or bytes(body[-1:]) != b"]":
        return None
    return state, body


def _state_table(
    state: Any, body: memoryview, meta_keys: tuple[str, ...], summary_keys: tuple[str, ...]
) -> tuple[dict[str, Any], Table, int, dict[str, Any] | None] | None:
    """The meta, columns, entry count and last summary of a located log_history ``body``."""
    meta = {k: getattr(state, k) for k in meta_keys if getattr(state, k) is not msgspec.UNSET}
    schema = Schema(_head_keys(body[1:-1]), int | float | None)
    parts, summary, bracket = _Parts(len(body)), None, _Bracketed()
    for block in _blocks(body[1:-1], _ENTRY_GAP):
        buf = bracket(block)
        records = schema.decode(partial(_decode_list, buf))  # flat records
        table = None if records is None else schema.table(records)
        if table is None or schema.has_null(records, summary_keys):
            return None
        last = _last_summary(records, table, schema, summary_keys)
        summary = last if last is not None else summary
        parts.add(table, len(records), len(block))
    return meta, parts.stack(), parts.count, summary


class _Bracketed:
    """A block of entries as a JSON array, written into one buffer kept from block to block:
    ``b"[" + block + b"]"`` made two fresh 1 MB copies per block, each handed back to the
    system when freed and faulted in again (18 ms on a 27 MB file). The copy goes through a
    memoryview of the buffer: assigning to a bytearray slice took three times longer. The
    records decoded from it hold numbers only, nothing that points into the buffer."""

    def __init__(self) -> None:
        self._view = memoryview(bytearray())

    def __call__(self, block: memoryview) -> memoryview:
        n = len(block)
        if len(self._view) < n + 2:
            self._view = memoryview(bytearray(n + n // 8 + 2))
        view = self._view
        view[0], view[n + 1] = 0x5B, 0x5D  # [ block ]
        view[1 : n + 1] = block
        return view[: n + 2]


def _last_summary(records: list[Any], table: Table, schema: Schema, keys: tuple[str, ...]) -> dict[str, Any] | None:
    """The numbers of the last record holding any of ``keys``, with their JSON types."""
    mark = np.zeros(len(records), bool)
    for k in keys:
        if k in table:
            mark |= ~np.isnan(table[k])
    where = np.flatnonzero(mark)
    if not len(where):
        return None
    rec = records[where[-1]]
    values = {k: getattr(rec, name) for k, name in zip(schema.keys, schema.names)}
    return {k: v for k, v in values.items() if type(v) in (int, float) and not (type(v) is float and math.isnan(v))}


def _head_keys(body: memoryview) -> list[str]:
    """Keys in the first and last 64 KB of the entries, in order of first appearance."""
    keys = [m.group(1) for m in _KEY.finditer(body, 0, 1 << 16)]
    keys += [m.group(1) for m in _KEY.finditer(body, max(0, len(body) - (1 << 16)))]
    out = []
    for k in dict.fromkeys(keys):
        try:
            out.append(msgspec.json.decode(b'"' + k + b'"'))
        except msgspec.DecodeError:
            continue
    return out


class _OnePerLine:
    """Whether each line of a block held exactly one of the ``records`` objects decoded from it
    (JSON lines; not blank lines, nor two objects on a line, nor one over several lines).

    The objects are flat (a nested value fails the record type), so a line ending in ``}``
    ends an object: when every line does and there are as many objects as lines, each line is
    one object. Otherwise (CRLF, trailing spaces) a scan for two objects on a line decides.

    Its two work arrays are kept from block to block: fresh 1 MB temporaries per block cost a
    page fault per 4 KB in a new process (glibc hands them back to the system at once), about
    27,000 faults and 0.03-0.1 s of CPU on a 66 MB file."""

    def __init__(self) -> None:
        self._newline = self._closed = np.empty(0, bool)

    def __call__(self, block: bytes, records: int) -> bool:
        byte = np.frombuffer(block, np.uint8)  # numpy compares bytes several times faster than bytes.count
        n = len(byte)
        if len(self._newline) < n:
            self._newline, self._closed = np.empty(n + n // 8, bool), np.empty(n + n // 8, bool)
        newline = np.equal(byte, 10, out=self._newline[:n])
        lines = int(np.count_nonzero(newline)) + (not block.endswith(b"\n"))
        if records != lines:
            return False
        brace = np.equal(byte[:-1], 125, out=self._closed[: n - 1])  # "}\n"
        closed = int(np.count_nonzero(np.logical_and(newline[1:], brace, out=brace)))
        closed += not block.endswith(b"\n") and block.rstrip().endswith(b"}")
        return closed == lines or _TWO_ON_A_LINE.search(block) is None


def _text(data: bytes) -> bool:
    """Whether ``data`` is UTF-8 text (else the general path reads it, and notes what it
    replaced): msgspec does not check what it skips, such as a string in an unread field."""
    if data.isascii():
        return True
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True
