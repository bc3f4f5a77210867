"""TFRecord framing: find the records of a file, checking both CRCs, recovering from damage.

A record is ``u64 length | u32 masked CRC-32C(length) | data | u32 masked CRC-32C(data)``
(little-endian). Every CRC is derived from the hardware-accelerated ``google_crc32c``
library: CRC-32C is affine in the message bytes, so tables built once by asking the
library about single-byte messages give the CRCs of many short messages at once with
a few numpy gathers (the 8-byte lengths, and data of up to ``SHORT`` bytes); longer
data gets one library call per record. The tests check the tables against the library.

No length read from the file is trusted before it has been compared with the
bytes that remain, so nothing is ever allocated from an untrusted length.
"""

from __future__ import annotations

import struct
from collections.abc import Callable

import msgspec
import numpy as np

from ...model import Damage
from .fast import Mem, concat

MASK_DELTA = 0xA282EAD8
HEADER = 12  # u64 length + u32 length CRC
OVERHEAD = 16  # header + u32 data CRC
CHUNK = 1 << 14  # records walked before their CRCs are checked in bulk (working set stays in cache)
RESYNC_WINDOW = 1 << 16

_U64 = struct.Struct("<Q").unpack_from
_TABLES: tuple[int, np.ndarray] | None = None
_VALUE: Callable[[bytes], int] | None = None


def _crc32c() -> Callable[[bytes], int]:
    """``google_crc32c.value``, imported on first use: its loader costs about 2 ms, which every
    command would pay at start-up (this module is a reader's) for files that are not event files."""
    global _VALUE
    if _VALUE is None:
        from google_crc32c import value

        _VALUE = value
    return _VALUE


def masked_crc(data: bytes) -> int:
    crc = _crc32c()(data)
    return (((crc >> 15) | (crc << 17)) + MASK_DELTA) & 0xFFFFFFFF


def _mask(crc: np.ndarray) -> np.ndarray:
    c = crc.astype(np.uint64)
    masked: np.ndarray = (((c >> np.uint64(15)) | (c << np.uint64(17))) + np.uint64(MASK_DELTA)) & np.uint64(0xFFFFFFFF)
    return masked


def _tables() -> tuple[int, np.ndarray]:
    global _TABLES
    if _TABLES is None:
        crc = _crc32c()
        base = crc(bytes(8))
        table = np.empty((8, 256), dtype=np.uint32)
        msg = bytearray(8)
        for k in range(8):
            for b in range(256):
                msg[k] = b
                table[k, b] = crc(bytes(msg)) ^ base
            msg[k] = 0
        _TABLES = (base, table)
    return _TABLES


def gather(u8: np.ndarray, pos: np.ndarray, width: int) -> np.ndarray:
    """``width`` bytes at each position (caller guarantees they are in range), shape (n, width)."""
    return u8[pos[:, None] + np.arange(width, dtype=np.int64)]


def length_crc_ok(u8: np.ndarray, pos: np.ndarray) -> np.ndarray:
    """For record headers at ``pos`` (all with 12 bytes in range): does the length CRC match?"""
    base, table = _tables()
    head = gather(u8, pos, HEADER)
    crc = np.full(pos.shape[0], base, dtype=np.uint32)
    for k in range(8):
        crc ^= table[k][head[:, k]]
    stored = np.ascontiguousarray(head[:, 8:12]).view("<u4")[:, 0]
    ok: np.ndarray = _mask(crc) == stored
    return ok


_PAIR = np.uint64(0xFFFF)


_WIDE: list[np.ndarray] = []


def _wide_tables() -> list[np.ndarray]:
    """The byte tables combined two bytes at a time: four tables of 65536 entries."""
    if not _WIDE:
        _, table = _tables()
        for k in range(0, 8, 2):
            _WIDE.append((table[k][None, :] ^ table[k + 1][:, None]).reshape(-1))
    return _WIDE


def length_crc_ok_mem(mem: Mem, pos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Like :func:`length_crc_ok` on a :class:`Mem`; also returns the lengths."""
    base, _ = _tables()
    wide = _wide_tables()
    length = mem.u64[pos]
    stored = mem.u32[pos + 8]
    crc = np.full(pos.shape[0], base, dtype=np.uint32)
    top = int(length.max(initial=0))
    for k in range(4):
        if top >> (16 * k) == 0:  # the remaining bytes are zero in every lane
            crc ^= wide[k][0]
            continue
        crc ^= wide[k][((length >> np.uint64(16 * k)) & _PAIR).astype(np.intp)]
    return _mask(crc) == stored, length


SHORT = 64  # records up to this many data bytes get their data CRCs in bulk
BULK_MIN = 4096  # ... when there are at least this many of them
_DIST: np.ndarray | None = None  # [d, b]: linear CRC part of byte b followed by d zero bytes
_PAIRS: list[np.ndarray] = []  # per pair of bytes counted from the end: 65536-entry tables
_ZEROS: np.ndarray | None = None  # CRC of n zero bytes, n = 0..SHORT


def _short_tables() -> tuple[np.ndarray, list[np.ndarray], np.ndarray]:
    """Tables for the CRC of short messages, built by asking the library.

    CRC-32C of an n-byte message is CRC(n zero bytes) XOR a part linear in the
    bytes, and a byte's share depends only on its value and how many bytes
    follow it. So ``crc(x) = ZEROS[n] ^ XOR_j DIST[n-1-j][x_j]``, two bytes at a time.
    """
    global _DIST, _ZEROS
    if _DIST is None or _ZEROS is None:  # set together
        crc = _crc32c()
        zeros = np.array([crc(bytes(n)) for n in range(SHORT + 1)], dtype=np.uint32)
        dist = np.empty((SHORT, 256), dtype=np.uint32)
        for d in range(SHORT):
            tail = bytes(d)
            dist[d] = [crc(bytes([b]) + tail) ^ zeros[d + 1] for b in range(256)]
        _PAIRS.extend((dist[2 * m + 1][None, :] ^ dist[2 * m][:, None]).reshape(-1) for m in range(SHORT // 2))
        _DIST, _ZEROS = dist, zeros
    return _DIST, _PAIRS, _ZEROS


def _bulk_crcs(mem: Mem, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Unmasked CRC-32C of records of at most SHORT bytes, all at once (longest first)."""
    dist, pairs, zeros = _short_tables()
    length = (ends - starts).astype(np.uint8)
    order = np.argsort(~length, kind="stable")  # radix sort: lengths descending
    n, e = length[order].astype(np.int64), ends[order]
    npairs = n >> 1
    crc = zeros[n]
    lanes = np.searchsorted(-npairs, -np.arange(int(npairs.max(initial=0))), side="left").tolist()
    at = e - 4  # lanes [0, lanes[m]) have more than m pairs; two pairs per 4-byte load
    if int(starts.min(initial=2)) < 2:  # a load would begin before byte 0: one pair per load
        for m, k in enumerate(lanes):
            crc[:k] ^= pairs[m][mem.u16[e[:k] - 2 * (m + 1)]]
        lanes = []
    for m in range(0, len(lanes) - 1, 2):
        k, k2 = lanes[m], lanes[m + 1]
        word = mem.u32[at[:k]]
        crc[:k] ^= pairs[m][(word >> np.uint32(16)).astype(np.intp)]
        crc[:k2] ^= pairs[m + 1][(word[:k2] & np.uint32(0xFFFF)).astype(np.intp)]
        at[:k] -= 4
    if len(lanes) % 2:
        k = lanes[-1]
        crc[:k] ^= pairs[len(lanes) - 1][mem.u16[at[:k] + 2]]
    odd = np.flatnonzero(n & 1)
    crc[odd] ^= dist.reshape(-1)[(n[odd] - 1) * 256 + mem.u8[starts[order][odd]]]
    out: np.ndarray = np.empty_like(crc)
    out[order] = crc
    return out


def data_crc_ok(buf: bytes, mem: Mem, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Does each record's data CRC match? Short records in bulk, the others one library call each."""
    got = np.empty(starts.shape[0], dtype=np.uint32)
    short = (ends - starts) <= SHORT
    if np.count_nonzero(short) < BULK_MIN:  # a small file: not worth building the tables
        short[:] = False
    got[short] = _bulk_crcs(mem, starts[short], ends[short])
    long = np.flatnonzero(~short)
    if long.size:  # one library call per record, iterated in C
        records = map(buf.__getitem__, map(slice, starts[long].tolist(), ends[long].tolist()))
        got[long] = np.fromiter(map(_crc32c(), records), dtype=np.uint32, count=long.size)
    ok: np.ndarray = _mask(got) == mem.u32[ends]
    return ok


class Framing(msgspec.Struct):
    starts: np.ndarray  # offset of each intact record's data
    ends: np.ndarray  # offset just past it (before its data CRC)
    damage: list[Damage] = msgspec.field(default_factory=list)
    mem: Mem | None = None  # the file's bytes with loading views


class _Walk:
    def __init__(self, buf: bytes, verify_data: bool) -> None:
        self.buf = buf
        self.u8 = np.frombuffer(buf, dtype=np.uint8)
        self.mem = Mem(buf)
        self.size = len(buf)
        self.verify_data = verify_data
        self.starts: list[np.ndarray] = []
        self.ends: list[np.ndarray] = []
        self.damage: list[Damage] = []

    def run(self) -> Framing:
        off = 0
        while off < self.size:
            off = self._chunk(off)
        return Framing(concat(self.starts), concat(self.ends), self.damage, self.mem)

    def _chunk(self, off: int) -> int:
        """Walk up to CHUNK records from ``off``, keep the intact ones; returns where to go on."""
        pos, o = _offsets(self.buf, self.mem, off, CHUNK)
        if pos.size:
            good, lengths = length_crc_ok_mem(self.mem, pos)
        else:
            good, lengths = np.zeros(0, bool), np.zeros(0, np.uint64)
        bad = int(np.argmin(good)) if pos.size and not good.all() else pos.size
        starts = pos[:bad] + HEADER
        ends = starts + lengths[:bad].astype(np.int64)
        if self.verify_data and starts.size:
            starts, ends = self._data_crcs(starts, ends)
        self.starts.append(starts)
        self.ends.append(ends)
        if bad < pos.size:
            return self._broken(int(pos[bad]))
        if pos.size == CHUNK:
            return o
        return self._tail(o)

    def _data_crcs(self, starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        ok = data_crc_ok(self.buf, self.mem, starts, ends)
        if ok.all():
            return starts, ends
        for i in np.flatnonzero(~ok).tolist():
            at, n = int(starts[i]) - HEADER, int(ends[i] - starts[i])
            self.damage.append(
                Damage(
                    "corrupt",
                    (f"record at byte {at}: data CRC mismatch; skipped that record ({n + OVERHEAD} bytes)"),
                    {"offset": at, "bytes_skipped": n + OVERHEAD, "records_skipped": 1},
                )
            )
        return starts[ok], ends[ok]

    def _tail(self, o: int) -> int:
        """The walk stopped at ``o`` without a length CRC failure: end of file, or a cut."""
        size = self.size
        if o >= size:
            return size
        if size - o >= HEADER and not length_crc_ok_mem(self.mem, np.array([o]))[0][0]:
            return self._broken(o)
        if size - o >= HEADER:
            n = _U64(self.buf, o)[0]
            nxt = self._resync(o + 1) if n > size - o - OVERHEAD else None
            if nxt is not None:  # an absurd length whose CRC happens to hold: damage, not the end
                return self._absurd(o, int(n), nxt)
            what = f"its header announces {n} data bytes but only {size - o - HEADER} remain"
        else:
            what = f"only {size - o} of its 12 header bytes remain"
        self.damage.append(
            Damage(
                "truncated",
                (
                    f"file cut short at byte {size}: the last record (from byte {o}) is incomplete, "
                    f"{what}; lost {size - o} bytes"
                ),
                {"offset": o, "bytes_lost": size - o, "file_size": size},
            )
        )
        return size

    def _absurd(self, o: int, n: int, nxt: int) -> int:
        self.damage.append(
            Damage(
                "corrupt",
                (
                    f"record header at byte {o} announces {n} data bytes, more than the {self.size - o - HEADER} left "
                    f"in the file (its length CRC matches); an intact record follows: resynchronised at byte {nxt}, "
                    f"skipping {nxt - o} bytes"
                ),
                {"offset": o, "announced": n, "resync_offset": nxt, "bytes_skipped": nxt - o, "records_skipped": 1},
            )
        )
        return nxt

    def _broken(self, o: int) -> int:
        """A bad length CRC at ``o``: scan forward for the next header whose length CRC holds."""
        nxt = self._resync(o + 1)
        if nxt is None:
            lost = self.size - o
            self.damage.append(
                Damage(
                    "corrupt",
                    (
                        f"corrupt record header at byte {o}; no intact record after it: "
                        f"the last {lost} bytes (at least one record) are unreadable"
                    ),
                    {"offset": o, "bytes_skipped": lost, "records_skipped": 1},
                )
            )
            return self.size
        self.damage.append(
            Damage(
                "corrupt",
                (
                    f"corrupt record header at byte {o} (length CRC mismatch); resynchronised at byte {nxt}, "
                    f"skipping {nxt - o} bytes (at least one record)"
                ),
                {"offset": o, "resync_offset": nxt, "bytes_skipped": nxt - o, "records_skipped": 1},
            )
        )
        return nxt

    def _resync(self, start: int) -> int | None:
        last = self.size - HEADER  # highest offset with a whole header
        p = start
        while p <= last:
            pos = np.arange(p, min(p + RESYNC_WINDOW, last + 1), dtype=np.int64)
            hit = np.flatnonzero(length_crc_ok_mem(self.mem, pos)[0])
            if hit.size:
                return int(pos[hit[0]])
            p = int(pos[-1]) + 1
        return None


def scan(buf: bytes, verify_data: bool = True) -> Framing:
    """Every intact record of ``buf``, with what was damaged."""
    return _Walk(buf, verify_data).run()


def scan_records(buf: bytes, start: int = 0) -> tuple[list[tuple[int, int]], int, bool]:
    """The complete records at the start of ``buf[start:]``, one by one, for a file still being
    written: (each CRC-valid record's data span (start, end) in ``buf``, the bytes used from
    ``start``, stuck). Reading stops before a record that has not all arrived (the bytes used
    end before it) and at a length whose CRC fails (stuck: not a record boundary, so nothing
    after it is guessed at). A record whose data CRC fails is used but not listed."""
    spans: list[tuple[int, int]] = []
    pos, size = start, len(buf)
    while size - pos >= HEADER:
        if masked_crc(buf[pos : pos + 8]) != int.from_bytes(buf[pos + 8 : pos + HEADER], "little"):
            return spans, pos - start, True
        a = pos + HEADER
        z = a + _U64(buf, pos)[0]
        if z + 4 > size:
            break  # the writer has not finished this record yet
        if masked_crc(buf[a:z]) == int.from_bytes(buf[z : z + 4], "little"):
            spans.append((a, z))
        pos = z + 4
    return spans, pos - start, False


def _py_walk(buf: bytes, o: int, limit: int, count: int, offs: list[int], sizes: list[int]) -> int:
    """Walk up to ``count`` records one by one; stops early where a record would not fit."""
    for _ in range(count):
        if o > limit:
            break
        n = _U64(buf, o)[0]
        if n > limit - o:
            break
        offs.append(o)
        sizes.append(n + OVERHEAD)
        o += n + OVERHEAD
    return o


def _period(sizes: list[int], most: int = 16) -> int:
    """Smallest P such that the last 2P record sizes repeat with period P (0: none)."""
    for p in range(1, min(most, len(sizes) // 2) + 1):
        if sizes[-p:] == sizes[-2 * p : -p]:
            return p
    return 0


def _offsets(buf: bytes, mem: Mem, off: int, most: int) -> tuple[np.ndarray, int]:
    """Offsets of up to ``most`` consecutive records from ``off`` (lengths not yet CRC-checked).

    Record sizes in event files repeat (the same tags logged step after step), so
    after walking a few records one by one the walk guesses the next offsets from
    the repeating pattern and checks all the guessed lengths at once; where a guess
    fails it goes back to walking one by one from the last confirmed record.
    """
    limit = len(buf) - OVERHEAD
    parts: list[np.ndarray] = []
    offs: list[int] = []
    sizes: list[int] = []
    o, total, span = off, 0, 256
    while total + len(offs) < most:
        o2 = _py_walk(buf, o, limit, min(32, most - total - len(offs)), offs, sizes)
        if o2 == o:
            break
        o = o2
        p = _period(sizes)
        if not p:
            continue
        o, got = _guess(mem, o, sizes[-p:], min(span, most - total - len(offs)), len(buf))
        if got.size:
            parts.append(np.array(offs, dtype=np.int64))
            parts.append(got)
            total += len(offs) + got.size
            offs, sizes = [], sizes[-2 * p :]
            span = min(span * 4, 1 << 16) if got.size >= span // 2 else max(span // 4, 64)
    parts.append(np.array(offs, dtype=np.int64))
    return np.concatenate(parts), o


def _guess(mem: Mem, o: int, pattern: list[int], count: int, size: int) -> tuple[int, np.ndarray]:
    """Confirm the records at offsets predicted by a repeating size pattern: (next offset, offsets)."""
    reps = -(-count // len(pattern))
    step = np.tile(np.array(pattern, dtype=np.int64), reps)[:count]
    ends = o + np.cumsum(step)
    fits = int(np.searchsorted(ends, size, side="right"))
    step, ends = step[:fits], ends[:fits]
    pos = ends - step
    match = mem.u64[pos] == (step - OVERHEAD).astype(np.uint64)
    m = int(np.argmin(match)) if not match.all() else match.shape[0]
    if m == 0:
        return o, np.zeros(0, dtype=np.int64)
    return int(ends[m - 1]), pos[:m]
