"""Minimal protobuf decoding of TensorBoard's Event messages, one record at a time.

Only the fields trainlint needs are decoded (field numbers from tensorflow's
event.proto, summary.proto, tensor.proto, tensor_shape.proto, types.proto and
tensorboard's hparams plugin_data.proto). Images, histograms, audio and text
are recognised and skipped without decoding. Every length is checked against
the bytes that remain; a malformed message raises :class:`Malformed`.

This is the exact, general path; ``_tffast`` decodes the common layouts of
many records at once and falls back to this for everything else.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from typing import Any

import msgspec
import numpy as np

_F32 = struct.Struct("<f").unpack_from
_F64 = struct.Struct("<d").unpack_from

# Event fields
EV_WALL, EV_STEP, EV_FILE_VERSION, EV_SUMMARY, EV_SESSION_LOG = 1, 2, 3, 5, 7
SESSION_START = 1
# Summary.Value fields
V_TAG, V_SIMPLE, V_NODE, V_TENSOR, V_META = 1, 2, 7, 8, 9
V_SKIPPED = {3: "histogram", 4: "image", 5: "histogram", 6: "audio"}

# TensorProto dtype -> (numpy dtype of tensor_content, repeated field holding the values)
DT_FLOAT, DT_DOUBLE, DT_INT32, DT_UINT8, DT_INT16, DT_INT8 = 1, 2, 3, 4, 5, 6
DT_INT64, DT_BOOL, DT_BFLOAT16, DT_UINT16, DT_HALF, DT_UINT32, DT_UINT64 = 9, 10, 14, 17, 19, 22, 23
NUMERIC = {
    DT_FLOAT: ("<f4", 5),
    DT_DOUBLE: ("<f8", 6),
    DT_INT32: ("<i4", 7),
    DT_UINT8: ("u1", 7),
    DT_INT16: ("<i2", 7),
    DT_INT8: ("i1", 7),
    DT_INT64: ("<i8", 10),
    DT_BOOL: ("?", 11),
    DT_BFLOAT16: ("<u2", 13),
    DT_UINT16: ("<u2", 7),
    DT_HALF: ("<f2", 13),
    DT_UINT32: ("<u4", 16),
    DT_UINT64: ("<u8", 17),
}


class Malformed(ValueError):
    """The bytes are not a well-formed message of the expected kind."""


def varint(b: bytes, i: int, end: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        if i >= end or shift > 63:
            raise Malformed("bad varint")
        x = b[i]
        i += 1
        result |= (x & 0x7F) << shift
        if x < 0x80:
            return result, i
        shift += 7


def fields(b: bytes, i: int, end: int) -> Iterator[tuple[int, int, int, int]]:
    """(field number, wire type, value-or-start, end) of each field in b[i:end]."""
    while i < end:
        key, i = varint(b, i, end)
        num, wt = key >> 3, key & 7
        if wt == 0:
            v, i = varint(b, i, end)
            yield num, wt, v, i
        elif wt == 2:
            n, i = varint(b, i, end)
            if n > end - i:
                raise Malformed("length past the end")
            yield num, wt, i, i + n
            i += n
        elif wt in (1, 5):
            w = 8 if wt == 1 else 4
            if w > end - i:
                raise Malformed("fixed field past the end")
            yield num, wt, i, i + w
            i += w
        else:
            raise Malformed(f"unsupported wire type {wt}")


def signed64(v: int) -> int:
    return v - (1 << 64) if v >= 1 << 63 else v


class Value(msgspec.Struct):
    tag: bytes
    kind: str  # "simple", "tensor", or a skipped kind ("image", ...), or "none"
    simple: float | None = None
    tensor: tuple[int, int] | None = None  # span of the TensorProto
    meta: tuple[int, int] | None = None  # span of the SummaryMetadata


class Event(msgspec.Struct):
    wall: float = 0.0
    step: int = 0
    file_version: str | None = None
    session_start: bool = False
    values: list[Value] = msgspec.field(default_factory=list)


def decode_event(b: bytes, start: int, end: int) -> Event:
    ev = Event()
    for num, wt, a, z in fields(b, start, end):
        if num == EV_WALL and wt == 1:
            ev.wall = _F64(b, a)[0]
        elif num == EV_STEP and wt == 0:
            ev.step = signed64(a)
        elif num == EV_FILE_VERSION and wt == 2:
            ev.file_version = b[a:z].decode("utf-8", "replace")
        elif num == EV_SUMMARY and wt == 2:
            ev.values.extend(decode_value(b, va, vz) for n2, w2, va, vz in fields(b, a, z) if n2 == 1 and w2 == 2)
        elif num == EV_SESSION_LOG and wt == 2:
            ev.session_start = any(n2 == 1 and w2 == 0 and v == SESSION_START for n2, w2, v, _ in fields(b, a, z))
    return ev


def decode_value(b: bytes, start: int, end: int) -> Value:
    val = Value(b"", "none")
    node = b""
    for num, wt, a, z in fields(b, start, end):
        if num == V_TAG and wt == 2:
            val.tag = b[a:z]
        elif num == V_SIMPLE and wt == 5:
            val.kind, val.simple = "simple", _F32(b, a)[0]
        elif num == V_TENSOR and wt == 2:
            val.kind, val.tensor = "tensor", (a, z)
        elif num == V_META and wt == 2:
            val.meta = (a, z)
        elif num == V_NODE and wt == 2:
            node = b[a:z]
        elif num in V_SKIPPED:
            val.kind = V_SKIPPED[num]
    if not val.tag and val.kind == "tensor":
        val.tag = node
    return val


def plugin(b: bytes, start: int, end: int) -> tuple[str, tuple[int, int] | None]:
    """(plugin name, span of its content) of a SummaryMetadata."""
    name, content = "", None
    for num, wt, a, z in fields(b, start, end):
        if num == 1 and wt == 2:
            for n2, w2, a2, z2 in fields(b, a, z):
                if n2 == 1 and w2 == 2:
                    name = b[a2:z2].decode("utf-8", "replace")
                elif n2 == 2 and w2 == 2:
                    content = (a2, z2)
    return name, content


def _repeated(b: bytes, a: int, z: int, wt: int, kind: str) -> list[Any]:
    """Values of one occurrence of a repeated numeric field (packed or not)."""
    if kind in ("<f4", "<f8"):
        w = 4 if kind == "<f4" else 8
        if wt not in (2, 5 if w == 4 else 1):
            raise Malformed("unexpected wire type")
        if wt == 2:
            if (z - a) % w:
                raise Malformed("packed length not a multiple of the width")
            packed: list[Any] = np.frombuffer(b, dtype=kind, count=(z - a) // w, offset=a).tolist()
            return packed
        return [(_F32 if w == 4 else _F64)(b, a)[0]]
    if wt == 0:
        return [a]
    if wt != 2:
        raise Malformed("unexpected wire type")
    out, i = [], a
    while i < z:
        v, i = varint(b, i, z)
        out.append(v)
    return out


def _elements(b: bytes, start: int, end: int) -> int:
    n = 1
    for num, wt, a, z in fields(b, start, end):
        if num == 2 and wt == 2:
            size = 0
            for n2, w2, v, _ in fields(b, a, z):
                if n2 == 1 and w2 == 0:
                    size = signed64(v)
            n *= size
        elif num == 3 and wt == 0 and a:
            return -1  # unknown rank
    return n


def tensor_scalar(b: bytes, start: int, end: int) -> float | None:
    """The value of a one-element numeric TensorProto, else None."""
    dtype, elements, content, vals = 0, 1, None, []
    for num, wt, a, z in fields(b, start, end):
        if num == 1 and wt == 0:
            dtype = a
        elif num == 2 and wt == 2:
            elements = _elements(b, a, z)
        elif num == 4 and wt == 2:
            content = (a, z)
        elif dtype in NUMERIC and num == NUMERIC[dtype][1]:
            kind = NUMERIC[dtype][0] if num in (5, 6) else "varint"
            vals.extend(_repeated(b, a, z, wt, kind))
    if dtype not in NUMERIC or elements != 1:
        return None
    np_kind = NUMERIC[dtype][0]
    if content is not None and content[1] > content[0]:
        a, z = content
        if z - a != np.dtype(np_kind).itemsize:
            return None
        raw = np.frombuffer(b, dtype=np_kind, count=1, offset=a)
        return _as_float(raw, dtype)
    if not vals:
        return 0.0
    return _from_val(vals[0], dtype)


def _as_float(raw: np.ndarray, dtype: int) -> float:
    if dtype == DT_BFLOAT16:
        return float((raw.astype(np.uint32) << 16).view(np.float32)[0])
    return float(raw[0])


def _from_val(v: Any, dtype: int) -> float:
    if dtype in (DT_FLOAT, DT_DOUBLE):
        return float(v)
    if dtype in (DT_HALF, DT_BFLOAT16):
        bits = np.array([v & 0xFFFF], dtype=np.uint16)
        return _as_float(bits if dtype == DT_BFLOAT16 else bits.view(np.float16), dtype)
    if dtype == DT_BOOL:
        return float(bool(v))
    if dtype in (DT_INT32, DT_INT16, DT_INT8, DT_INT64):
        v = signed64(v)
        return float(v - (1 << 32) if dtype != DT_INT64 and v >= 1 << 31 else v)
    return float(v)


def _struct_value(b: bytes, start: int, end: int) -> Any:
    """A google.protobuf.Value as a Python number, string, bool or None."""
    out: Any = None
    for num, wt, a, z in fields(b, start, end):
        if num == 2 and wt == 1:
            out = _F64(b, a)[0]
        elif num == 3 and wt == 2:
            out = b[a:z].decode("utf-8", "replace")
        elif num == 4 and wt == 0:
            out = bool(a)
        elif num in (5, 6):
            out = "<nested>"
    return out


def hparams(b: bytes, start: int, end: int) -> dict[str, Any]:
    """What an hparams plugin summary says: the hyperparameters, and the session's end status."""
    out: dict[str, Any] = {}
    for num, wt, a, z in fields(b, start, end):
        if num == 3 and wt == 2:  # session_start_info
            for n2, w2, a2, z2 in fields(b, a, z):
                if n2 == 1 and w2 == 2:  # map entry
                    key, val = "", None
                    for n3, w3, a3, z3 in fields(b, a2, z2):
                        if n3 == 1 and w3 == 2:
                            key = b[a3:z3].decode("utf-8", "replace")
                        elif n3 == 2 and w3 == 2:
                            val = _struct_value(b, a3, z3)
                    out.setdefault("hparams", {})[key] = val
                elif n2 == 4 and w2 == 2:
                    out["group_name"] = b[a2:z2].decode("utf-8", "replace")
        elif num == 4 and wt == 2:  # session_end_info
            for n2, w2, v, _ in fields(b, a, z):
                if n2 == 1 and w2 == 0:
                    out["status"] = {0: "unknown", 1: "success", 2: "failure", 3: "running"}.get(v, str(v))
    return out
