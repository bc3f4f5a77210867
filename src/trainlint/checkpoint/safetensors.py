"""safetensors files: an 8-byte little-endian header length, a JSON header, then
the tensor bytes. Everything is checked from the header; values are read in place."""

from __future__ import annotations

import json
import struct
from typing import Any

from ..safeio import JSONLimit, loads_json
from .kinds import MAX_SAFETENSORS_HEADER
from .model import Inspection, TensorInfo

DTYPES = {
    "BOOL": ("bool", 1),
    "U8": ("uint8", 1),
    "I8": ("int8", 1),
    "I16": ("int16", 2),
    "U16": ("uint16", 2),
    "F16": ("float16", 2),
    "BF16": ("bfloat16", 2),
    "I32": ("int32", 4),
    "U32": ("uint32", 4),
    "F32": ("float32", 4),
    "F64": ("float64", 8),
    "I64": ("int64", 8),
    "U64": ("uint64", 8),
    "F8_E5M2": ("float8_e5m2", 1),
    "F8_E4M3": ("float8_e4m3fn", 1),
    "F8_E8M0": ("float8_e8m0fnu", 1),
    "C64": ("complex64", 8),
}


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            out.setdefault("\0duplicates", []).append(k)
        out[k] = v
    return out


def _header(buf: Any, size: int, st: dict[str, Any]) -> dict[str, Any] | None:
    if size < 8:
        st["header"].append(f"file is {size} bytes, shorter than the 8-byte header length")
        return None
    (n,) = struct.unpack_from("<Q", buf, 0)
    st["header_bytes"] = n
    if n > MAX_SAFETENSORS_HEADER or 8 + n > size:
        st["header"].append(f"header length {n} runs past the end of the file ({size} bytes)")
        return None
    try:
        head = loads_json(bytes(buf[8 : 8 + n]).decode("utf-8"), object_pairs_hook=_pairs)
    except (UnicodeDecodeError, json.JSONDecodeError, JSONLimit) as exc:
        st["header"].append(f"header is not valid JSON: {exc}")
        return None
    if not isinstance(head, dict):
        st["header"].append("header JSON is not an object")
        return None
    st["duplicates"] = head.pop("\0duplicates", [])
    st["metadata"] = head.pop("__metadata__", None)
    return head


def inspect_safetensors(buf: Any, size: int, insp: Inspection) -> None:
    st: dict[str, Any] = {
        "header": [],
        "dtype": [],
        "size": [],
        "overlap": [],
        "outside": [],
        "gaps": [],
        "trailing": 0,
        "duplicates": [],
    }
    insp.safetensors = st
    head = _header(buf, size, st)
    if head is None:
        return
    base = 8 + st["header_bytes"]
    data_size = size - base
    spans = []
    for name, meta in head.items():
        t = _tensor(name, meta, base, st)
        if t is not None:
            insp.tensors.append(t)
            spans.append((t.file_offset - base, t.file_offset - base + t.nbytes, name))
    _layout(sorted(spans), data_size, st, insp)


def _tensor(name: str, meta: Any, base: int, st: dict[str, Any]) -> TensorInfo | None:
    try:
        dtype, shape, (begin, end) = meta["dtype"], meta["shape"], meta["data_offsets"]
        shape = tuple(int(d) for d in shape)
        begin, end = int(begin), int(end)
    except (KeyError, TypeError, ValueError):
        st["header"].append(f"{name}: entry lacks dtype, shape or data_offsets [begin, end]")
        return None
    if dtype not in DTYPES:
        st["dtype"].append(f"{name}: unknown dtype {dtype!r}")
        return None
    tname, item = DTYPES[dtype]
    t = TensorInfo(name=name, dtype=tname, shape=shape, file_offset=base + begin, nbytes=end - begin)
    if end < begin or t.numel * item != end - begin:
        st["size"].append(
            f"{name}: {dtype}{list(shape)} needs {t.numel * item} bytes, offsets give {end - begin} ({begin}..{end})"
        )
        t.complete = False
    return t


def _layout(spans: list[tuple[int, int, str]], data_size: int, st: dict[str, Any], insp: Inspection) -> None:
    pos, prev = 0, None
    by_name = {t.name: t for t in insp.tensors}
    for begin, end, name in spans:
        if begin > pos:
            st["gaps"].append(f"{begin - pos} unused bytes before {name} (data bytes {pos}..{begin})")
        elif begin < pos:
            st["overlap"].append(f"{name} ({begin}..{end}) overlaps {prev} (ends at {pos})")
        if end > data_size:
            by_name[name].complete = False
            st["outside"].append(f"{name} ends at data byte {end}, the file holds {data_size}")
        pos, prev = max(pos, end), name
    if pos < data_size:
        st["trailing"] = data_size - pos
    lost = [n for _, e, n in spans if e > data_size]
    if lost:  # the rules report this once, as truncation, not as each tensor outside
        insp.truncated = (
            f"data section holds {data_size} bytes but the header describes {pos}; "
            f"{len(lost)} of {len(spans)} tensors lost"
        )
