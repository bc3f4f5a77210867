"""Reading hostile files with bounded resources.

- :func:`file_kind` says what a path is without opening it (FIFOs, sockets, devices and the
  kernel's pseudo-files under procfs, sysfs or devfs are never opened: opening a FIFO blocks,
  reading a device never ends, reading ``/proc/kmsg`` waits for the kernel's next message).
- :func:`read_bytes` and :func:`read_str` are ``Path.read_bytes`` and ``Path.read_text`` for a
  regular file only (a FIFO is never opened); :func:`head_bytes` reads its first bytes.
- :func:`read_text` reads a line-oriented file in bounded chunks: a line longer than
  :data:`MAX_LINE` is dropped (it stays an empty line, so line numbers hold) and reported as
  damage with its byte offset; reading goes on after it.
- :func:`loads_json` parses JSON after checking what parsing would cost: nesting deeper than
  the parser allows, numbers of more than :data:`MAX_DIGITS` digits, or more values than fit
  the memory bound raise :class:`JSONLimit` (a one-line reason) instead of a RecursionError,
  a ValueError from ``int()`` or gigabytes of Python objects.
"""

from __future__ import annotations

import functools
import json
import os
import re
import stat
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

MAX_LINE = 8 << 20  # bytes in one line of a line-oriented log
CHUNK = 1 << 20
MAX_DIGITS = 1000  # digits in one JSON number
MAX_DEPTH = 500  # nesting of a JSON document
JSON_BYTES_PER_VALUE = 72  # what one parsed JSON value costs in Python, roughly
JSON_MIN_BUDGET = 768 << 20  # parsed JSON may use max(this, JSON_BUDGET_RATIO x the text)
JSON_BUDGET_RATIO = 8

UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


class JSONLimit(ValueError):
    """A JSON document beyond what trainlint parses (the message is the one-line reason)."""


class NotRegular(OSError):
    """A path that is not a regular file (FIFO, socket, device): never opened."""


def file_kind(path: str | Path, follow: bool = True) -> str:
    """ "file", "dir", "fifo", "socket", "device", "symlink" (only when not ``follow``),
    "pseudo" (a file or folder of a kernel pseudo-file system: procfs, sysfs, devfs, ...),
    "loop" (a symlink loop), "missing" or "other"; never opens the path."""
    try:
        st = os.stat(path) if follow else os.lstat(path)
    except (OSError, ValueError) as exc:  # ValueError: a NUL byte in the name
        return "loop" if getattr(exc, "errno", None) == 40 else "missing"  # ELOOP
    mode = st.st_mode
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    if on_pseudo_fs(st.st_dev):
        return "pseudo"
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISDIR(mode):
        return "dir"
    if stat.S_ISLNK(mode):
        return "symlink"
    if stat.S_ISFIFO(mode):
        return "fifo"
    if stat.S_ISSOCK(mode):
        return "socket"
    return "other"


# File systems whose files the kernel makes up when read: never judged (a read may block for
# good, as /proc/kmsg does, or never end).
PSEUDO_FS = frozenset(
    {
        "proc",
        "sysfs",
        "devtmpfs",
        "devfs",
        "devpts",
        "debugfs",
        "tracefs",
        "securityfs",
        "cgroup",
        "cgroup2",
        "pstore",
        "bpf",
        "configfs",
        "efivarfs",
        "fusectl",
        "binfmt_misc",
        "mqueue",
        "nsfs",
        "rpc_pipefs",
    }
)
PSEUDO_ROOTS = ("/proc", "/sys")  # where they are mounted when the mount table cannot be read


def on_pseudo_fs(device: int) -> bool:
    """Whether a file of this device number (``st_dev``) lies on a pseudo-file system."""
    devices = _pseudo_devices()
    return device in devices if devices is not None else device in _root_devices()


@functools.cache
def _pseudo_devices() -> frozenset[int] | None:
    """The device numbers of the mounted pseudo-file systems, from this process's mount table
    (Linux); None when it cannot be read."""
    try:
        with open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return None
    found = set()
    for line in lines:
        left, sep, right = line.partition(" - ")
        fields, fstype = left.split(), right.split()[:1]
        if sep and len(fields) > 2 and fstype and fstype[0] in PSEUDO_FS:
            major, _, minor = fields[2].partition(":")
            if major.isdigit() and minor.isdigit():
                found.add(os.makedev(int(major), int(minor)))
    return frozenset(found)


@functools.cache
def _root_devices() -> frozenset[int]:
    found = set()
    for root in PSEUDO_ROOTS:
        try:
            found.add(os.stat(root).st_dev)
        except OSError:
            continue
    return frozenset(found)


KIND_WORDS = {
    "fifo": "a FIFO (named pipe)",
    "socket": "a socket",
    "device": "a device file",
    "pseudo": "a kernel pseudo-file (procfs, sysfs, devfs)",
    "loop": "a symlink loop",
    "other": "not a regular file",
}


def not_regular_reason(kind: str) -> str:
    return f"{KIND_WORDS.get(kind, kind)}, not a regular file: not opened"


def open_regular(path: str | Path) -> Any:
    """Open ``path`` for binary reading only if it is a regular file (never blocks on a FIFO)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or on_pseudo_fs(st.st_dev):
            raise NotRegular(not_regular_reason(file_kind(path)))
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    # The file object owns the descriptor from here: the builtin ``open`` is one C call, so a
    # Ctrl-C cannot land between "the object owns fd" and "fd is closed here too" (``os.fdopen``
    # is Python code: a KeyboardInterrupt inside it closed fd twice, and the second close's
    # EBADF replaced the interrupt, which a reader then reported as a read error).
    return open(fd, "rb")  # the caller closes it


def head_bytes(path: str | Path, size: int) -> bytes:
    """The first ``size`` bytes of a regular file (OSError, NotRegular included, otherwise)."""
    with open_regular(path) as fh:  # never opens a FIFO, socket or device
        return fh.read(size)


def read_bytes(path: str | Path) -> bytes:
    """A regular file's bytes (OSError, NotRegular included, otherwise): ``Path.read_bytes``
    without opening a FIFO, socket or device."""
    with open_regular(path) as fh:
        return fh.read()


def read_head(path: str | Path, size: int = 8192) -> bytes:
    """The first ``size`` bytes of a regular file; b"" for anything else or on error."""
    try:
        return head_bytes(path, size)
    except OSError:
        return b""


def inside(path: str | Path, root: str | Path) -> bool:
    """Whether ``path`` (symlinks resolved) lies inside ``root`` (symlinks resolved)."""
    real, base = os.path.realpath(path), os.path.realpath(root)
    return real == base or real.startswith(base.rstrip(os.sep) + os.sep)


# ----------------------------------------------------------------------------- bounded text
class TextRead:
    """A decoded text file and what reading it found (notes, and damage as (kind, message, evidence))."""

    def __init__(self, text: str, notes: list[str], damage: list[tuple[str, str, dict[str, Any]]]) -> None:
        self.text, self.notes, self.damage = text, notes, damage


def _bounded_bytes(fh: Any, max_line: int) -> tuple[bytes, list[tuple[int, int, int]]]:
    """An open file's bytes with every line longer than ``max_line`` cut out: (data, [(line,
    offset, length)]). A line's length counts its newline. Whole lines are taken a chunk at a
    time; only a line that crosses a chunk boundary is assembled piece by piece."""
    parts: list[bytes] = []
    long: list[tuple[int, int, int]] = []
    line = _Line()
    offset = 0
    while chunk := fh.read(CHUNK):
        pos = 0
        while pos < len(chunk):
            pos = line.take(chunk, pos, offset, max_line, parts, long)
        offset += len(chunk)
    if line.skipping:
        long.append((line.no, line.start, offset - line.start))
    else:
        parts.append(bytes(line.cur))
    return b"".join(parts), long


class _Line:
    """The line being read across chunks: its number, start offset, bytes so far, and whether it
    has grown past the limit (then its bytes are dropped as they come)."""

    def __init__(self) -> None:
        self.no, self.start, self.cur, self.skipping = 1, 0, bytearray(), False

    def take(self, chunk: bytes, pos: int, offset: int, max_line: int, parts: list[bytes], long: list) -> int:
        """Consume ``chunk`` from ``pos``; return where the next call goes on."""
        nl = chunk.find(b"\n", pos)
        if nl < 0:  # the line goes on into the next chunk
            if not self.skipping and len(self.cur) + len(chunk) - pos > max_line:
                self.skipping, self.cur = True, bytearray()
            elif not self.skipping:
                self.cur += chunk[pos:]
            return len(chunk)
        end = nl + 1
        if self.skipping or len(self.cur) + end - pos > max_line:
            long.append((self.no, self.start, offset + end - self.start))
            parts.append(b"\n")
            self.skipping = False
        elif self.cur:
            self.cur += chunk[pos:end]
            parts.append(bytes(self.cur))
        elif len(chunk) <= max_line:  # no line inside one chunk can be too long: all at once
            end = chunk.rfind(b"\n") + 1
            parts.append(chunk[pos:end])
            self.no += chunk.count(b"\n", pos, end) - 1
        else:
            parts.append(chunk[pos:end])
        self.cur = bytearray()
        self.no += 1
        self.start = offset + end
        return end


def decode(data: bytes) -> tuple[str, list[str]]:
    """UTF-8 (BOM stripped) or UTF-16 with a byte-order mark or without one (:func:`utf16_codec`;
    named in a note); bytes that are not UTF-8 in a legacy encoding where one reads them all
    (:func:`legacy_text`, named in a note); otherwise bad bytes replaced."""
    notes = []
    if data.startswith(UTF16_BOMS):
        notes.append("UTF-16 text (byte-order mark " + data[:2].hex(" ").upper() + "), decoded")
        return data.decode("utf-16", errors="replace"), notes
    codec = utf16_codec(data)
    if codec is not None:
        notes.append(f"{codec.upper()} text without a byte-order mark, decoded")
        return data.decode(codec, errors="replace"), notes
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
        notes.append("stripped a UTF-8 byte-order mark")
    try:
        return data.decode("utf-8"), notes
    except UnicodeDecodeError as exc:
        legacy = legacy_text(data)
        if legacy is not None:
            notes.append(
                f"not UTF-8: decoded as {legacy[1]} (the first of {', '.join(LEGACY)} that reads every byte as text)"
            )
            return legacy[0], notes
        bad = data.decode("utf-8", errors="replace").count("\ufffd")
        notes.append(f"{bad} undecodable byte(s), first at offset {exc.start}; replaced")
        return data.decode("utf-8", errors="replace"), notes


_TEXT_BYTES = bytes(range(0x20, 0x7F)) + b"\t\n\r"
_UTF16_HEAD = 4096  # bytes looked at to tell UTF-16 without a byte-order mark


def utf16_codec(data: bytes) -> str | None:
    """ "utf-16-le" (or "utf-16-be") for text written as UTF-16 without a byte-order mark (some
    Windows tools' redirect: every other byte NUL in ASCII text), judged on the first 4 KiB: at
    least nine in ten of its two-byte units are a printable ASCII character or a line break, one
    of them a newline; None otherwise (UTF-8 text, a binary file, text padded with NULs)."""
    head = data[:_UTF16_HEAD]
    head = head[: len(head) - len(head) % 2]
    if len(head) < 64 or b"\x00" not in head:
        return None
    for codec, low, high in (("utf-16-le", head[0::2], head[1::2]), ("utf-16-be", head[1::2], head[0::2])):
        ascii_units = sum(1 for lo, hi in zip(low, high) if hi == 0 and lo in _TEXT_BYTES)
        if ascii_units >= 0.9 * len(low) and (b"\n\x00" if codec == "utf-16-le" else b"\x00\n") in head:
            return codec
    return None


_NUL_RUN = re.compile(rb"\x00+")
_NUL_BLOCKS = 16  # more separate runs of NULs than this: a binary format (UTF-32, a record file)


def nul_blocks(data: bytes) -> tuple[bytes, list[tuple[int, int]]] | None:
    """Text with blocks of NUL bytes in it (a node that crashed writing to a network file
    system leaves the file padded with NULs; a restart appends after them): the text with each
    block replaced by a newline, and the blocks as (offset, length); None where ``data`` is not
    such text (another control byte, under 64 bytes of text, more than 16 blocks, a tar archive,
    UTF-16)."""
    if data[257:262] == b"ustar" or utf16_codec(data) is not None:
        return None
    blocks = []
    for m in _NUL_RUN.finditer(data):
        blocks.append((m.start(), m.end() - m.start()))
        if len(blocks) > _NUL_BLOCKS:
            return None
    text = _NUL_RUN.sub(b"\n", data)
    if not blocks or len(text) - len(blocks) < 64 or _CONTROL.search(text):
        return None
    return text, blocks


def nul_block_notes(blocks: list[tuple[int, int]]) -> list[str]:
    """One run note per block of NULs :func:`nul_blocks` cut out (the first five)."""
    notes = [
        f"a block of {n:,} NUL byte(s) at byte {at:,} (a crash or an unfinished write pads a file with NULs): "
        "the text on either side read"
        for at, n in blocks[:5]
    ]
    if len(blocks) > 5:
        notes.append(f"... {len(blocks)} blocks of NUL bytes in all")
    return notes


# Legacy encodings of text that is not UTF-8, tried in this order: a Chinese Windows console's
# (GBK, within GB18030), a Japanese one's (Shift-JIS as Windows has it), then Western Windows'.
LEGACY = ("GB18030", "cp932", "cp1252")
_HIGH = bytes(range(128, 256))
_CONTROL = re.compile(rb"[\x00-\x07\x0e-\x1a\x1c-\x1f\x7f]")
_NON_ASCII = re.compile(r"[^\x00-\x7f]+")
_JAPANESE = re.compile(r"[\u3000-\u30ff\u4e00-\u9fff\uff01-\uff5e]")  # no half-width katakana
_KANA = re.compile(r"[\u3041-\u30ff]")


def legacy_text(data: bytes) -> tuple[str, str] | None:
    """``data`` (not UTF-8) decoded in the first legacy encoding that reads every byte and whose
    text is plausible, and its name; None for a binary file (a NUL or another control byte
    in its first 4 KiB) and for text that is
    UTF-8 but for a few bad bytes (fewer than one in ten of its non-ASCII bytes). Deterministic:
    GB18030 when its non-ASCII characters are nearly all common Chinese (GB2312), cp932 when they
    are nearly all Japanese with kana among them, cp1252 when it reads every byte."""
    if _CONTROL.search(data[:4096]):  # a NUL or another control byte no console prints: binary
        return None
    high = len(data) - len(data.translate(None, _HIGH))
    if data.decode("utf-8", errors="replace").count("\ufffd") * 10 < high:
        return None
    for name in LEGACY:
        try:
            text = data.decode(name)
        except UnicodeDecodeError:
            continue
        if name == "cp1252" or _plausible(_NON_ASCII.findall(text), name):
            return text, name
    return None


def _plausible(runs: list[str], name: str) -> bool:
    """Whether the non-ASCII runs of a text decoded as ``name`` read as that encoding's language."""
    chars = "".join(runs)
    if name == "GB18030":
        common = sum(1 for ch in chars if ch.encode("gb2312", errors="replace") != b"?")
    else:
        common = len(_JAPANESE.findall(chars)) if _KANA.search(chars) else 0
    return len(chars) >= 2 and common >= 0.9 * len(chars)


def bounded_bytes(path: str | Path, max_line: int = MAX_LINE) -> tuple[bytes, list[tuple[str, str, dict[str, Any]]]]:
    """A file's bytes with over-long lines cut out, and the damage that names them.
    A UTF-16 file (with a BOM or without) is returned whole: its lines are only seen once decoded."""
    with open_regular(path) as fh:
        head = fh.read(_UTF16_HEAD)
        utf16 = head[:2] in UTF16_BOMS or utf16_codec(head) is not None
        fh.seek(0)
        if utf16:
            return fh.read(), []
        return _long_damage(*_bounded_bytes(fh, max_line), max_line)


def bounded_data(data: bytes, max_line: int = MAX_LINE) -> tuple[bytes, list[tuple[str, str, dict[str, Any]]]]:
    """:func:`bounded_bytes` of bytes already in memory (a notebook's outputs)."""
    import io

    return _long_damage(*_bounded_bytes(io.BytesIO(data), max_line), max_line)


def _long_damage(
    data: bytes, long: list[tuple[int, int, int]], max_line: int
) -> tuple[bytes, list[tuple[str, str, dict[str, Any]]]]:
    damage = []
    if long:
        shown = ", ".join(f"line {n} at byte {o} ({ln} bytes)" for n, o, ln in long[:5])
        more = f", ... ({len(long)} in all)" if len(long) > 5 else ""
        msg = f"skipped {len(long)} line(s) longer than {max_line} bytes: {shown}{more}"
        damage.append(
            (
                "long-line",
                msg,
                {
                    "count": len(long),
                    "first_line": long[0][0],
                    "first_offset": long[0][1],
                    "limit": max_line,
                },
            )
        )
    return data, damage


def read_str(path: str | Path) -> str:
    """A small regular file's text, as :func:`decode` reads it (a byte-order mark honoured, bad
    bytes replaced): ``Path.read_text`` without opening a FIFO, socket or device."""
    return decode(read_bytes(path))[0]


def read_text(path: str | Path, max_line: int = MAX_LINE) -> TextRead:
    """Read a line-oriented text file in bounded chunks (see the module docstring)."""
    data, damage = bounded_bytes(path, max_line)
    text, notes = decode(data)
    return TextRead(text, notes + [d[1] for d in damage], damage)


def add_damage(run: Any, read: TextRead) -> None:
    """Record a TextRead's damage on a Run."""
    from .model import Damage

    for kind, msg, evidence in read.damage:
        run.damage.append(Damage(kind, msg, evidence))


# ----------------------------------------------------------------------------- bounded JSON
# The bounds are checked on a translated copy of the bytes (bytes.translate and bytes.find run
# at memory speed; a regex tried at every offset of a 30 MB log cost half a second).
_SHAPE = bytearray(b"." * 256)  # '[' and '{' -> '[', ',' kept, the rest '.' (whitespace is deleted)
_SHAPE[ord("{")] = _SHAPE[ord("[")] = ord("[")
_SHAPE[ord(",")] = ord(",")
_SHAPE_TABLE = bytes(_SHAPE)
_DIGIT_TABLE = bytes(ord("0") if 48 <= c <= 57 else ord(".") for c in range(256))
_DEEP = re.compile(f"(?:[\\[{{]\\s*){{{MAX_DEPTH}}}".encode())  # only to place a finding


def json_budget(nbytes: int) -> int:
    return max(JSON_MIN_BUDGET, JSON_BUDGET_RATIO * nbytes)


def _as_bytes(text: str | bytes) -> bytes:
    if isinstance(text, str):
        return text.encode("utf-8", "surrogatepass")
    return bytes(text) if isinstance(text, bytearray) else text


def json_error(exc: json.JSONDecodeError, *, line: bool = True) -> str:
    """``Unterminated string starting at line 3 column 5``: the decoder's message without its
    dangling "at" (``Unterminated string starting at``) and where it stopped."""
    where = f"line {exc.lineno} column {exc.colno}" if line else f"column {exc.colno}"
    return f"{exc.msg.removesuffix(' at').rstrip(': ')} at {where}"


def check_json(text: str | bytes) -> None:
    """Raise JSONLimit when parsing ``text`` would go beyond the bounds (before parsing it)."""
    data = _as_bytes(text)
    shape = data.translate(_SHAPE_TABLE, b" \t\r\n")
    if shape.find(b"[" * MAX_DEPTH) >= 0:
        deep = _DEEP.search(data)
        where = f" (at byte {deep.start()})" if deep is not None else ""
        raise JSONLimit(f"JSON nested more than {MAX_DEPTH} levels deep{where}: not parsed")
    count = shape.count(b"[") + shape.count(b",")
    cost = count * JSON_BYTES_PER_VALUE
    if cost > json_budget(len(data)):
        raise JSONLimit(
            f"JSON of {len(data)} bytes holds about {count} values (~{cost >> 20} MiB parsed, "
            f"over the {json_budget(len(data)) >> 20} MiB bound): not parsed"
        )


def has_long_number(text: str | bytes) -> bool:
    """Whether ``text`` holds a run of more than MAX_DIGITS digits."""
    return _as_bytes(text).translate(_DIGIT_TABLE).find(b"0" * (MAX_DIGITS + 1)) >= 0


def _parse_int(s: str) -> int:
    if len(s.lstrip("-")) > MAX_DIGITS:
        raise JSONLimit(f"a JSON number of {len(s.lstrip('-'))} digits (limit {MAX_DIGITS}): not parsed")
    return int(s)


def loads_json(text: str | bytes, *, checked: bool = False, **kwargs: Any) -> Any:
    """``json.loads`` within bounds: JSONLimit (a ValueError) for documents beyond them.
    ``checked``: the caller already ran :func:`check_json` on these bytes."""
    if not checked:
        check_json(text)
    if has_long_number(text):
        kwargs.setdefault("parse_int", _parse_int)
    try:
        return json.loads(text, **kwargs)
    except RecursionError:
        raise JSONLimit("JSON nested deeper than the parser allows: not parsed") from None


def load_json_file(path: str | Path, **kwargs: Any) -> Any:
    """Read and parse a JSON file within bounds (a regular file only)."""
    with open_regular(path) as fh:
        data = fh.read()
    check_json(data)  # before decoding: a bomb is refused without a copy
    text, _ = decode(data)
    return loads_json(text, checked=True, **kwargs)


# ----------------------------------------------------------------------------- bounded inflate
MAX_INFLATE = 256 << 20  # bytes of one zip entry trainlint holds in memory (a pickle)


class InflateLimit(ValueError):
    """A deflated entry inflating past its declared size or the cap: a decompression bomb."""

    def __init__(self, inflated: int, consumed: int, limit: int, declared: int) -> None:
        self.inflated, self.consumed, self.limit, self.declared = (
            inflated,
            consumed,
            limit,
            declared,
        )
        ratio = inflated / max(consumed, 1)
        super().__init__(
            f"inflated to more than {limit} bytes from {consumed} compressed bytes "
            f"(ratio {ratio:.0f}:1, declared size {declared})"
        )

    def evidence(self) -> dict[str, Any]:
        return {
            "compressed_read": self.consumed,
            "inflated": self.inflated,
            "limit": self.limit,
            "declared_size": self.declared,
            "ratio": round(self.inflated / max(self.consumed, 1), 1),
        }


def inflate_bounded(
    data: Any,
    declared: int,
    cap: int | None = MAX_INFLATE,
    sink: Callable[[bytes], None] | None = None,
    step: int = 1 << 20,
) -> bytes:
    """Inflate raw deflate ``data`` through a streaming reader, at most ``step`` bytes at a time.

    Stops with InflateLimit as soon as the output passes ``declared`` (the size the archive
    records; -1 when unknown) or ``cap``. With ``sink`` the pieces go there and b"" is returned
    (nothing is held). zlib.error propagates for a broken stream."""
    limit = (
        min(x for x in (declared if declared >= 0 else None, cap) if x is not None)
        if (declared >= 0 or cap is not None)
        else 1 << 62
    )
    d = zlib.decompressobj(-15)
    view, pos, total, parts = memoryview(data), 0, 0, []
    while not d.eof:
        if d.unconsumed_tail:
            piece = d.decompress(d.unconsumed_tail, step)
        elif pos < len(view):
            piece = d.decompress(view[pos : pos + step], step)
            pos = min(len(view), pos + step)
        else:
            piece = d.decompress(b"", step)
            if not piece:
                break
        total += len(piece)
        if total > limit:
            raise InflateLimit(total, pos - len(d.unconsumed_tail), limit, declared)
        if sink is not None:
            sink(piece)
        else:
            parts.append(piece)
    return b"".join(parts)


GZIP_MAGIC = b"\x1f\x8b"
MAX_GUNZIP = 2 << 30  # bytes a compressed log may inflate to (written to a temporary file)
# The compressed logs read: (name, magic, suffix). bzip2's magic is "BZh", the block size, then
# the first block's magic (or the end-of-stream magic of an empty stream): a text starting
# "BZh" is no bzip2 stream.
COMPRESSIONS = (
    ("gzip", re.compile(rb"\x1f\x8b"), ".gz"),
    ("bzip2", re.compile(rb"BZh[1-9](?:1AY&SY|\x17rE8P\x90)"), ".bz2"),
    ("xz", re.compile(rb"\xfd7zXZ\x00"), ".xz"),
)
MAGIC_BYTES = 10  # enough of a file's start to tell its compression


class GunzipLimit(ValueError):
    """A compressed file inflating past the cap: a decompression bomb, or a log too large to read."""


DecompressLimit = GunzipLimit


def compression(head: bytes) -> tuple[str, str] | None:
    """(name, suffix) of the compression whose magic ``head`` starts with; None for anything else."""
    return next(((name, suffix) for name, magic, suffix in COMPRESSIONS if magic.match(head)), None)


class _Zlib:
    """zlib's decompressor with the interface of bz2's and lzma's (input it has not used yet is
    kept inside; ``needs_input`` says whether the next call needs more)."""

    def __init__(self) -> None:
        self._d = zlib.decompressobj(31)

    @property
    def needs_input(self) -> bool:
        return not self._d.unconsumed_tail

    @property
    def eof(self) -> bool:
        return self._d.eof

    @property
    def unused_data(self) -> bytes:
        return self._d.unused_data

    def decompress(self, data: bytes, max_length: int) -> bytes:
        return self._d.decompress(self._d.unconsumed_tail + data, max_length)


def _decompressor(name: str) -> Any:
    """A fresh decompressor for one stream (member) of compression ``name``."""
    if name == "bzip2":
        import bz2

        return bz2.BZ2Decompressor()
    if name == "xz":
        import lzma

        return lzma.LZMADecompressor(lzma.FORMAT_XZ)
    return _Zlib()


def _stream_errors() -> tuple[type[BaseException], ...]:
    import lzma

    return (zlib.error, lzma.LZMAError, OSError, EOFError)


def gunzip(path: str | Path, out: Any = None, *, limit: int = MAX_GUNZIP, head: int | None = None) -> tuple[bytes, str]:
    """Inflate the gzip, bzip2 or xz file ``path`` (every member or stream, as ``gzip -d`` does),
    reading the compressed bytes 1 MiB (bzip2, xz: 64 KiB) at a time. With ``head``, returns the first ``head``
    inflated bytes and stops; otherwise writes every piece to ``out`` (a binary file) and returns
    b"". The second value says where the stream broke ("" when intact): what came before is kept,
    as for any damaged input. Raises GunzipLimit past ``limit`` inflated bytes."""
    want = head if head is not None else limit
    got, parts, damage = 0, list[bytes](), ""
    with open_regular(path) as fh:
        kind = compression(fh.read(MAGIC_BYTES))
        name = kind[0] if kind is not None else "gzip"
        fh.seek(0)
        d, errors = _decompressor(name), _stream_errors()
        # bzip2 and xz decode all the input they are given before they report a damaged stream:
        # fed 64 KiB at a time, a damaged stream loses at most that much before the break
        piece_in = 1 << 20 if name == "gzip" else 1 << 16
        while got < want or head is None:
            data = fh.read(piece_in) if d.needs_input else b""
            if not data and d.needs_input:
                if not d.eof and got:
                    damage = f"the {name} stream ends early (cut short?) after {got:,} inflated bytes"
                break
            try:  # 64 KiB out at a time: a broken stream loses at most that much before the break
                piece = d.decompress(data, min(1 << 16, want - got) if head is not None else 1 << 16)
            except errors as exc:
                damage = f"the {name} stream is damaged after {got:,} inflated bytes ({exc}); read up to there"
                break
            got += len(piece)
            if head is not None:
                parts.append(piece)
            elif got > limit:
                raise GunzipLimit(f"inflates past {limit >> 20} MiB: not read (a decompression bomb, or too large)")
            else:
                out.write(piece)
            if d.eof and not _next_stream(fh, d.unused_data):
                break
            if d.eof:
                d = _decompressor(name)
    return (b"".join(parts)[:head] if head is not None else b""), damage


def _next_stream(fh: Any, rest: bytes) -> bool:
    """After a stream's end: put back what the decompressor read past it; whether more follows."""
    if rest:
        fh.seek(fh.tell() - len(rest))
        return True
    if not fh.read(1):
        return False
    fh.seek(fh.tell() - 1)
    return True
