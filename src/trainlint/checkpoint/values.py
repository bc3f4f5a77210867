"""Value scans straight from the stored bytes with numpy (no torch, no copies of
the file): NaN/Inf counts, all-zero tensors, min/max/mean per tensor.

bfloat16 has no numpy dtype: its 16 bits are the top half of a float32, so it is
widened by a shift. fp8 formats are decoded through a 256-entry lookup table
built from their bit layouts. Large tensors are scanned in chunks so memory
stays bounded.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

import numpy as np

from .model import TensorInfo

_NATIVE = {
    "float64": np.float64,
    "float32": np.float32,
    "float16": np.float16,
    "int64": np.int64,
    "int32": np.int32,
    "int16": np.int16,
    "int8": np.int8,
    "uint8": np.uint8,
    "uint16": np.uint16,
    "uint32": np.uint32,
    "uint64": np.uint64,
    "bool": np.bool_,
    "complex64": np.float32,
    "complex128": np.float64,
}
# fp8 layouts: exponent bits, mantissa bits, bias, has_inf, "fnuz" (0x80 is the only NaN)
_FP8 = {
    "float8_e4m3fn": (4, 3, 7, False, False),
    "float8_e5m2": (5, 2, 15, True, False),
    "float8_e4m3fnuz": (4, 3, 8, False, True),
    "float8_e5m2fnuz": (5, 2, 16, False, True),
}
CHUNK = 1 << 20  # elements per chunk for widened formats (fits in cache)


def fp8_table(dtype: str) -> np.ndarray:
    """float32 value of each of the 256 bit patterns of an fp8 format."""
    if dtype == "float8_e8m0fnu":
        e = np.arange(256, dtype=np.float64)
        out = np.exp2(e - 127.0)
        out[255] = np.nan
        return out.astype(np.float32)
    ebits, mbits, bias, has_inf, fnuz = _FP8[dtype]
    b = np.arange(256)
    sign = np.where(b >> 7, -1.0, 1.0)
    exp = (b >> mbits) & ((1 << ebits) - 1)
    man = b & ((1 << mbits) - 1)
    normal = (1 + man / (1 << mbits)) * np.exp2(exp.astype(np.float64) - bias)
    sub = (man / (1 << mbits)) * np.exp2(1.0 - bias)
    out = sign * np.where(exp == 0, sub, normal)
    top = exp == (1 << ebits) - 1
    if fnuz:
        out[0x80] = np.nan
    elif has_inf:
        out[top & (man == 0)] = sign[top & (man == 0)] * np.inf
        out[top & (man != 0)] = np.nan
    else:
        out[top & (man == (1 << mbits) - 1)] = np.nan
    return out.astype(np.float32)


_TABLES: dict[str, np.ndarray] = {}


class _Acc:
    """Running min/max/sum/count and NaN/Inf/zero counts over chunks."""

    def __init__(self) -> None:
        self.mn, self.mx, self.total, self.n, self.nan, self.inf, self.nonzero = np.inf, -np.inf, 0.0, 0, 0, 0, False

    def add_float(self, a: np.ndarray) -> None:
        if a.size == 0:
            return
        mn, mx = a.min(), a.max()
        if np.isfinite(mn) and np.isfinite(mx):
            finite = a
        else:
            nan, inf = np.isnan(a), np.isinf(a)
            self.nan += int(nan.sum())
            self.inf += int(inf.sum())
            finite = a[~(nan | inf)]
            if finite.size == 0:
                return
            mn, mx = finite.min(), finite.max()
        self.mn, self.mx = min(self.mn, float(mn)), max(self.mx, float(mx))
        wide = np.float32 if finite.dtype.itemsize < 4 else None
        total = float(np.add.reduce(finite, dtype=wide))  # pairwise, in float32 at least: fast
        if not np.isfinite(total):
            total = float(np.add.reduce(finite, dtype=np.float64))
        self.total += total
        self.n += finite.size
        self.nonzero = self.nonzero or bool(mn != 0 or mx != 0)

    def add_int(self, a: np.ndarray) -> None:
        if a.size == 0:
            return
        mn, mx = int(a.min()), int(a.max())
        self.mn, self.mx = min(self.mn, mn), max(self.mx, mx)
        self.total += float(np.add.reduce(a, dtype=np.float64))
        self.n += a.size
        self.nonzero = self.nonzero or bool(mn != 0 or mx != 0)

    def stats(self, numel: int) -> dict[str, Any]:
        have = self.n > 0
        return {
            "numel": numel,
            "nan": self.nan,
            "inf": self.inf,
            "min": self.mn if have else None,
            "max": self.mx if have else None,
            "mean": self.total / self.n if have else None,
            "all_zero": have and not self.nonzero and self.nan == 0 and self.inf == 0,
        }


def _scan_bf16(u: np.ndarray, acc: _Acc) -> None:
    """Widen bfloat16 to float32 by writing its 16 bits into the high half of each float32."""
    buf = np.zeros(min(CHUNK, u.size), dtype=np.float32)
    halves = buf.view(np.uint16)
    hi = 1 if np.little_endian else 0
    for i in range(0, u.size, CHUNK):
        chunk = u[i : i + CHUNK]
        halves[hi : 2 * chunk.size : 2] = chunk
        acc.add_float(buf[: chunk.size])


def scan_array(raw: np.ndarray, dtype: str, numel: int) -> dict[str, Any] | None:
    """Stats of ``numel`` values whose bytes are ``raw`` (a uint8 array); None for unknown dtypes."""
    acc = _Acc()
    if dtype == "bfloat16":
        _scan_bf16(raw.view(np.uint16), acc)
    elif dtype in _FP8 or dtype == "float8_e8m0fnu":
        table = _TABLES.setdefault(dtype, fp8_table(dtype))
        for i in range(0, raw.size, CHUNK):
            acc.add_float(table[raw[i : i + CHUNK]])
    elif dtype in _NATIVE:
        a = raw.view(_NATIVE[dtype])
        if dtype == "bool":
            a = a.view(np.uint8)
        if a.dtype.kind == "f":
            acc.add_float(a)
        else:
            acc.add_int(a)
    else:
        return None
    return acc.stats(numel)


def _view(buf: Any, t: TensorInfo) -> np.ndarray | None:
    if t.file_offset is None or not t.complete or t.nbytes == 0:
        return None
    contiguous = t.stride is None or _is_contiguous(t.shape, t.stride)
    nbytes = t.nbytes if not contiguous else t.numel * (t.nbytes // max(1, _span_elems(t)))
    if t.file_offset < 0 or t.file_offset + nbytes > len(buf):  # the readers check this; never trust it here
        return None
    return np.frombuffer(buf, dtype=np.uint8, count=nbytes, offset=t.file_offset)


def _span_elems(t: TensorInfo) -> int:
    if t.stride is None:
        return t.numel
    return 1 + sum((d - 1) * abs(s) for d, s in zip(t.shape, t.stride)) if t.numel else 1


def _is_contiguous(shape: tuple[int, ...], stride: tuple[int, ...]) -> bool:
    expect = 1
    for d, s in zip(reversed(shape), reversed(stride)):
        if d != 1 and s != expect:
            return False
        expect *= d
    return True


def digest_tensors(buf: Any, tensors: Iterable[TensorInfo]) -> None:
    """CRC-32 of each complete tensor's bytes, to tell changed weights from unchanged ones."""
    import zlib

    for t in tensors:
        raw = _view(buf, t)
        if raw is not None:
            t.digest = zlib.crc32(raw)


def scan_tensors(buf: Any, tensors: Iterable[TensorInfo]) -> float:
    """Fill ``t.stats`` for every complete tensor; returns the seconds it took.

    A non-contiguous view is scanned over the storage span it covers (a superset
    of its elements), which can only add values, never hide a NaN inside it.
    """
    start = time.perf_counter()
    for t in tensors:
        raw = _view(buf, t)
        if raw is not None:
            t.stats = scan_array(raw, t.dtype, t.numel)
    return time.perf_counter() - start


def float_chunks(raw: np.ndarray, dtype: str) -> Iterable[np.ndarray] | None:
    """The values of a floating-point tensor's bytes as float32/float64 chunks; None for a
    dtype that is not a float numpy or the tables above can read."""
    if dtype == "bfloat16":
        u = raw.view(np.uint16)

        def widen() -> Iterable[np.ndarray]:
            hi = 1 if np.little_endian else 0
            for i in range(0, u.size, CHUNK):
                chunk = u[i : i + CHUNK]
                buf = np.zeros(chunk.size, dtype=np.float32)
                buf.view(np.uint16)[hi::2] = chunk
                yield buf

        return widen()
    if dtype in _FP8 or dtype == "float8_e8m0fnu":
        table = _TABLES.setdefault(dtype, fp8_table(dtype))
        return (table[raw[i : i + CHUNK]] for i in range(0, raw.size, CHUNK))
    if dtype in ("float16", "float32", "float64"):
        vals: np.ndarray = raw.view(_NATIVE[dtype])
        return (vals[i : i + CHUNK].astype(np.float64) for i in range(0, vals.size, CHUNK))
    return None


def relative_l2(buf_a: Any, a: TensorInfo, buf_b: Any, b: TensorInfo) -> tuple[float, float] | None:
    """(|b - a| / |a|, |a|) over two same-shape, same-dtype contiguous tensors read from their
    stored bytes; None when either cannot be read. |a| = 0 gives inf for any change."""
    for t in (a, b):
        if t.stride is not None and not _is_contiguous(t.shape, t.stride):
            return None
    ra, rb = _view(buf_a, a), _view(buf_b, b)
    if ra is None or rb is None or ra.size != rb.size:
        return None
    ca, cb = float_chunks(ra, a.dtype), float_chunks(rb, b.dtype)
    if ca is None or cb is None:
        return None
    diff = base = 0.0
    for x, y in zip(ca, cb):
        x64, y64 = x.astype(np.float64, copy=False), y.astype(np.float64, copy=False)
        d = y64 - x64
        diff += float(np.dot(d, d))
        base += float(np.dot(x64, x64))
    if base == 0:
        return (0.0 if diff == 0 else float("inf")), 0.0
    return float(np.sqrt(diff / base)), float(np.sqrt(base))
