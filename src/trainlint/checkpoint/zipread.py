"""Read a zip archive's structure ourselves (torch.save writes a stored, 64-byte
aligned zip), so that damage is reported rather than refused.

``read_zip(buf)`` parses the central directory when there is one and checks
every local header against it; without one (a save killed mid-write) it scans
the local headers from the start and keeps the entries whose data is complete.
Nothing is decompressed or read in full unless :func:`entry_crc` is asked.
"""

from __future__ import annotations

import struct
import zlib
from typing import Any

import msgspec

LOCAL_SIG = b"PK\x03\x04"
CENTRAL_SIG = b"PK\x01\x02"
EOCD_SIG = b"PK\x05\x06"
EOCD64_LOC_SIG = b"PK\x06\x07"
EOCD64_SIG = b"PK\x06\x06"
DESC_SIG = b"PK\x07\x08"
MAX_CRC_INFLATE = 1 << 30  # a deflated entry's CRC is verified up to this many inflated bytes
_LOCAL = struct.Struct("<4sHHHHHIIIHH")
_CENTRAL = struct.Struct("<4sHHHHHHIIIHHHHHII")
_EOCD = struct.Struct("<4sHHHHIIH")


class ZipEntry(msgspec.Struct):
    name: str
    header_offset: int
    data_offset: int = -1
    compressed_size: int = -1
    size: int = -1
    crc: int = 0
    method: int = 0
    flags: int = 0
    complete: bool = True
    crc_recorded: bool = True
    problems: list[str] = msgspec.field(default_factory=list)  # header/central disagreements


class ZipInfo(msgspec.Struct):
    entries: dict[str, ZipEntry] = msgspec.field(default_factory=dict)
    truncated: bool = False
    error: str | None = None  # damage that stopped the read
    duplicates: list[ZipEntry] = msgspec.field(default_factory=list)  # later records reusing a name
    first_name: str | None = None  # torch takes its folder prefix from the first record

    def add(self, e: ZipEntry) -> None:
        if self.first_name is None:
            self.first_name = e.name
        if e.name in self.entries:
            self.duplicates.append(e)
        else:
            self.entries[e.name] = e

    def find(self, suffix: str) -> ZipEntry | None:
        for name, e in self.entries.items():
            if name == suffix or name.endswith("/" + suffix):
                return e
        return None


def _u(fmt: str, buf: Any, off: int) -> tuple[Any, ...]:
    return struct.unpack_from(fmt, buf, off)


def _find_eocd(buf: Any, size: int) -> int:
    lo = max(0, size - 22 - 65535)
    return buf.rfind(EOCD_SIG, lo, size)


def _zip64_extra(extra: bytes, want: list[str], vals: dict[str, int]) -> None:
    pos = 0
    while pos + 4 <= len(extra):
        tag, ln = struct.unpack_from("<HH", extra, pos)
        if tag == 1:
            body, k = extra[pos + 4 : pos + 4 + ln], 0
            for key in want:
                if k + 8 <= len(body):
                    vals[key] = struct.unpack_from("<Q", body, k)[0]
                    k += 8
            return
        pos += 4 + ln


def _central(buf: Any, size: int, eocd: int) -> tuple[int, int]:
    _, _, _, _, count, _cd_size, cd_off, _ = _EOCD.unpack_from(buf, eocd)
    if cd_off == 0xFFFFFFFF or count == 0xFFFF:
        loc = eocd - 20
        if loc >= 0 and buf[loc : loc + 4] == EOCD64_LOC_SIG:
            (e64,) = _u("<Q", buf, loc + 8)
            if buf[e64 : e64 + 4] == EOCD64_SIG:
                count, cd_off = _u("<Q", buf, e64 + 32)[0], _u("<Q", buf, e64 + 48)[0]
    return count, cd_off


def has_end_record(buf: Any, size: int) -> bool:
    return _find_eocd(buf, size) >= 0


def first_entry(buf: Any, size: int) -> ZipEntry | None:
    """The first local entry, read without the central directory (None when there is none)."""
    info = ZipInfo()
    _scan_local(buf, size, info, {}, limit=1)
    return next(iter(info.entries.values()), None)


def read_zip(buf: Any, size: int, hints: dict[str, int] | None = None) -> ZipInfo:
    """Structure of the zip in ``buf`` (bytes or mmap) of ``size`` bytes.

    ``hints`` (entry name -> expected size) lets the scan of a zip without a central
    directory jump straight to each entry's data descriptor instead of searching for it."""
    info = ZipInfo()
    eocd = _find_eocd(buf, size)
    if eocd < 0:
        info.truncated = True
        _scan_local(buf, size, info, hints or {})
        return info
    try:
        count, pos = _central(buf, size, eocd)
        for _ in range(count):
            pos = _central_entry(buf, size, pos, info)
    except (struct.error, ValueError) as exc:
        info.error = f"central directory damaged: {exc}"
    for e in [*info.entries.values(), *info.duplicates]:
        _check_local(buf, size, e)
    for e in info.duplicates:
        e.problems.append(
            "the central directory names this entry more than once (loaders may disagree on which copy they read)"
        )
    return info


def _central_entry(buf: Any, size: int, pos: int, info: ZipInfo) -> int:
    if buf[pos : pos + 4] != CENTRAL_SIG:
        raise ValueError(f"no central directory record at byte {pos}")
    f = _CENTRAL.unpack_from(buf, pos)
    flags, method, crc, csize, usize, nlen, elen, clen, off = f[3], f[4], f[7], f[8], f[9], f[10], f[11], f[12], f[16]
    name = bytes(buf[pos + 46 : pos + 46 + nlen]).decode("utf-8", "replace")
    extra = bytes(buf[pos + 46 + nlen : pos + 46 + nlen + elen])
    vals = {"size": usize, "csize": csize, "off": off}
    want = [k for k, v in (("size", usize), ("csize", csize), ("off", off)) if v == 0xFFFFFFFF]
    if want:
        _zip64_extra(extra, want, vals)
    e = ZipEntry(
        name,
        vals["off"],
        compressed_size=vals["csize"],
        size=vals["size"],
        crc=crc,
        method=method,
        flags=flags,
        crc_recorded=not (crc == 0 and vals["size"] > 0),
    )
    info.add(e)
    return pos + 46 + nlen + elen + clen


def _check_local(buf: Any, size: int, e: ZipEntry) -> None:
    off = e.header_offset
    if off + 30 > size or buf[off : off + 4] != LOCAL_SIG:
        e.problems.append(f"no local header at byte {off}")
        e.complete = False
        return
    f = _LOCAL.unpack_from(buf, off)
    flags, method, crc, usize, nlen, elen = f[2], f[3], f[6], f[8], f[9], f[10]
    name = bytes(buf[off + 30 : off + 30 + nlen]).decode("utf-8", "replace")
    e.data_offset = off + 30 + nlen + elen
    if name != e.name:
        e.problems.append(f"local header names {name!r}")
    if method != e.method:
        e.problems.append(f"local header compression {method} vs central {e.method}")
    if not flags & 8:
        if crc != e.crc:
            e.problems.append(f"local header CRC {crc:08x} vs central {e.crc:08x}")
        if usize not in (e.size, 0xFFFFFFFF):
            e.problems.append(f"local header size {usize} vs central {e.size}")
    if e.data_offset + e.compressed_size > size:
        e.complete = False
        e.problems.append(f"data runs past the end of the file ({e.data_offset + e.compressed_size} > {size})")


def _scan_local(buf: Any, size: int, info: ZipInfo, hints: dict[str, int], limit: int = -1) -> None:
    """No central directory: follow local headers (and data descriptors) from byte 0."""
    pos = 0
    while pos + 30 <= size and buf[pos : pos + 4] == LOCAL_SIG and limit != len(info.entries):
        f = _LOCAL.unpack_from(buf, pos)
        flags, method, crc, csize, usize, nlen, elen = f[2], f[3], f[6], f[7], f[8], f[9], f[10]
        name = bytes(buf[pos + 30 : pos + 30 + nlen]).decode("utf-8", "replace")
        data = pos + 30 + nlen + elen
        e = ZipEntry(name, pos, data, method=method, flags=flags, crc=crc)
        info.add(e)
        if flags & 8:
            end = _descriptor_end(buf, size, data, e, hints.get(name))
        else:
            e.compressed_size, e.size = csize, usize
            end = data + csize
        if end < 0 or end > size:
            e.complete = False
            return
        pos = end


def _descriptor_end(buf: Any, size: int, data: int, e: ZipEntry, hint: int | None = None) -> int:
    """Find the data descriptor that closes the entry starting at ``data``; -1 when absent."""
    if hint is not None:
        if data + hint > size:
            return -1  # the entry's bytes run past the end of the file: no need to search
        end = _descriptor_at(buf, size, data, data + hint, e)
        if end > 0:
            return end
    at = data
    while True:
        at = buf.find(DESC_SIG, at, size)
        if at < 0:
            return -1
        end = _descriptor_at(buf, size, data, at, e)
        if end > 0:
            return end
        at += 1


def _descriptor_at(buf: Any, size: int, data: int, at: int, e: ZipEntry) -> int:
    """End of a data descriptor at ``at`` whose recorded size matches, else -1."""
    if buf[at : at + 4] != DESC_SIG:
        return -1
    for fmt, width in (("<III", 16), ("<IQQ", 24)):
        if at + width <= size:
            crc, csize, usize = _u(fmt, buf, at + 4)
            if csize == at - data:
                e.crc, e.compressed_size, e.size = crc, csize, usize
                return at + width
    return -1


def entry_crc(buf: Any, e: ZipEntry, chunk: int = 1 << 24, bombs: list[dict[str, Any]] | None = None) -> int | None:
    """CRC-32 of the entry's uncompressed bytes, or None when they cannot be read.
    A deflated entry is inflated in bounded steps; one that inflates past its declared size is
    recorded in ``bombs`` and gives None."""
    if not e.complete or e.data_offset < 0:
        return None
    crc, pos, end = 0, e.data_offset, e.data_offset + e.compressed_size
    mv = memoryview(buf)
    if e.method == 0:
        while pos < end:
            crc = zlib.crc32(mv[pos : min(end, pos + chunk)], crc)
            pos += chunk
        return crc & 0xFFFFFFFF
    if e.method != 8:
        return None
    from ..safeio import InflateLimit, inflate_bounded

    acc = [0]

    def _crc(piece: bytes) -> None:
        acc[0] = zlib.crc32(piece, acc[0])

    try:
        inflate_bounded(mv[pos:end], e.size, MAX_CRC_INFLATE, sink=_crc)
        return acc[0] & 0xFFFFFFFF
    except InflateLimit as exc:
        if bombs is not None and exc.inflated > e.size >= 0 and e.size < MAX_CRC_INFLATE:
            bombs.append({"entry": e.name, "compressed": e.compressed_size, **exc.evidence()})
        return None  # past the declared size (a bomb), or too large to verify in bounded time
    except zlib.error:
        return None


def entry_bytes(
    buf: Any, e: ZipEntry, limit: int | None = None, bombs: list[dict[str, Any]] | None = None
) -> bytes | None:
    """The entry's uncompressed bytes (stored or deflated), or None. A deflated entry is inflated
    through a streaming reader that stops past its declared size or ``limit`` (default
    safeio.MAX_INFLATE): such a bomb is recorded in ``bombs`` and gives None."""
    if not e.complete or e.data_offset < 0:
        return None
    raw = buf[e.data_offset : e.data_offset + e.compressed_size]
    if e.method == 0:
        return bytes(raw)
    if e.method != 8:
        return None
    from ..safeio import MAX_INFLATE, InflateLimit, inflate_bounded

    try:
        return inflate_bounded(raw, e.size, MAX_INFLATE if limit is None else limit)
    except InflateLimit as exc:
        if bombs is not None:
            bombs.append({"entry": e.name, "compressed": e.compressed_size, **exc.evidence()})
        return None
    except zlib.error:
        return None
