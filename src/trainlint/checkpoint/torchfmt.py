"""torch.save archives (zip and legacy) read as structure: the tensor table comes
from walking the pickle symbolically; storages are located in the file, never loaded."""

from __future__ import annotations

import struct
from typing import Any

from ..picklewalk import Call, Global, PersistentId, iter_nodes, walk
from .kinds import LEGACY_MAGIC
from .model import Inspection, PickleScan, TensorInfo
from .zipread import ZipInfo, entry_bytes, entry_crc, first_entry, has_end_record, read_zip

# dtype name -> bytes per element
ITEMSIZE = {
    "float64": 8,
    "float32": 4,
    "float16": 2,
    "bfloat16": 2,
    "int64": 8,
    "int32": 4,
    "int16": 2,
    "int8": 1,
    "uint8": 1,
    "uint16": 2,
    "uint32": 4,
    "uint64": 8,
    "bool": 1,
    "complex64": 8,
    "complex128": 16,
    "complex32": 4,
    "float8_e4m3fn": 1,
    "float8_e5m2": 1,
    "float8_e4m3fnuz": 1,
    "float8_e5m2fnuz": 1,
    "float8_e8m0fnu": 1,
    "qint8": 1,
    "quint8": 1,
    "qint32": 4,
}
STORAGE_DTYPE = {
    "DoubleStorage": "float64",
    "FloatStorage": "float32",
    "HalfStorage": "float16",
    "BFloat16Storage": "bfloat16",
    "LongStorage": "int64",
    "IntStorage": "int32",
    "ShortStorage": "int16",
    "CharStorage": "int8",
    "ByteStorage": "uint8",
    "BoolStorage": "bool",
    "ComplexFloatStorage": "complex64",
    "ComplexDoubleStorage": "complex128",
    "QInt8Storage": "qint8",
    "QUInt8Storage": "quint8",
    "QInt32Storage": "qint32",
}
REBUILD_TENSOR = {"torch._utils._rebuild_tensor", "torch._utils._rebuild_tensor_v2", "torch._utils._rebuild_tensor_v3"}


def _clean_path(path: str) -> str:
    parts = [p for p in path.split(".") if not (p.startswith("<") and p.endswith(">"))]
    return ".".join(parts) or "<root>"


def _dtype_of(pid: Any, call: Call) -> str:
    if call.name.endswith("_v3") and len(call.args) > 6 and isinstance(call.args[6], Global):
        return call.args[6].name
    cls = pid[1] if isinstance(pid, tuple) and len(pid) > 1 else None
    if isinstance(cls, Global):
        return STORAGE_DTYPE.get(cls.name, cls.name)
    return "unknown"


def _as_ints(v: Any) -> tuple[int, ...] | None:
    if isinstance(v, Call) and v.name == "torch.Size" and v.args:
        v = v.args[0]
    if isinstance(v, (tuple, list)) and all(isinstance(x, int) for x in v):
        return tuple(int(x) for x in v)
    return None


def tensor_from_call(name: str, call: Call) -> TensorInfo | None:
    """A TensorInfo from a ``_rebuild_tensor*`` call, or None when its arguments are odd."""
    args = call.args
    if len(args) < 3 or not isinstance(args[0], PersistentId):
        return None
    pid = args[0].pid
    shape = _as_ints(args[2])
    if shape is None:
        return None
    stride = _as_ints(args[3]) if len(args) > 3 else None
    dtype = _dtype_of(pid, call)
    key = str(pid[2]) if isinstance(pid, tuple) and len(pid) > 2 else None
    offset = int(args[1]) if isinstance(args[1], int) else 0
    t = TensorInfo(name=name, dtype=dtype, shape=shape, stride=stride, storage=key, offset=offset)
    t.nbytes = _span(shape, stride) * ITEMSIZE.get(dtype, 1)
    if isinstance(pid, tuple) and len(pid) > 4 and isinstance(pid[4], int) and isinstance(pid[1], Global):
        untyped = pid[1].name == "UntypedStorage"  # counted in bytes; typed storages count elements
        t.storage_bytes = pid[4] * (1 if untyped else ITEMSIZE.get(dtype, 1))
    return t


def _span(shape: tuple[int, ...], stride: tuple[int, ...] | None) -> int:
    """Elements from the first to one past the last element the view touches."""
    if any(d == 0 for d in shape):
        return 0
    if stride is None or len(stride) != len(shape):
        n = 1
        for d in shape:
            n *= d
        return n
    return 1 + sum((d - 1) * abs(s) for d, s in zip(shape, stride))


def _is_tensor(node: Any) -> bool:
    return isinstance(node, Call) and node.name in REBUILD_TENSOR


def tensor_table(root: Any) -> list[TensorInfo]:
    """Every tensor in a walked torch pickle, named by its key path (nested dicts included)."""
    out: list[TensorInfo] = []
    for path, node in iter_nodes(root, prune=_is_tensor):
        if _is_tensor(node):
            t = tensor_from_call(_clean_path(path), node)
            if t is not None:
                out.append(t)
    return out


def inspect_zip(buf: Any, size: int, insp: Inspection, verify_crc: bool) -> None:
    """Fill ``insp`` from a torch zip archive held in ``buf``."""
    info = read_zip(buf, size, None if has_end_record(buf, size) else _storage_hints(buf, size))
    insp.zip = info
    unsafe = [n for n in [*info.entries, *(d.name for d in info.duplicates)] if unsafe_member(n)]
    if unsafe:
        insp.meta["unsafe_names"] = unsafe
    if verify_crc:
        check_crcs(buf, info, insp)
    if info.truncated:
        insp.truncated = (
            f"no central directory (zip end record missing): the save stopped after "
            f"{size} bytes; {sum(e.complete for e in info.entries.values())} of "
            f"{len(info.entries)} entries started are complete"
        )
    pkl = _main_pickle(info)
    _other_pickles(buf, info, pkl, insp)
    if pkl is None and not info.truncated and info.entries:
        insp.kind_problem = "not-a-checkpoint"
        insp.meta["zip_entries"] = sorted(info.entries)[:10]
        return
    if pkl is None:
        insp.pickle_error = "no data.pkl entry in the archive" + (f" ({info.error})" if info.error else "")
        return
    insp.prefix = pkl.name[: -len("data.pkl")].rstrip("/")
    res = _walk_entry(buf, pkl, insp)
    if res is None:
        bomb = any(b["entry"] == pkl.name for b in insp.meta.get("bombs", []))
        insp.pickle_error = (
            f"{pkl.name} is incomplete"
            if not pkl.complete
            else f"{pkl.name} not inflated: a decompression bomb (TL347)"
            if bomb
            else f"{pkl.name} cannot be decompressed"
        )
        return
    if res.error:
        insp.pickle_error = f"{pkl.name}: {res.error}"
        return
    insp.tensors = tensor_table(res.root)
    _locate_zip_storages(info, insp)


def unsafe_member(name: str) -> bool:
    """A member name an extracting tool would write outside its target folder."""
    norm = name.replace("\\", "/")
    return norm.startswith("/") or (len(norm) > 1 and norm[1] == ":") or ".." in norm.split("/")


def _main_pickle(info: ZipInfo) -> Any:
    """The data.pkl torch would read: in the folder named by the archive's first record."""
    if info.first_name and "/" in info.first_name:
        e = info.entries.get(info.first_name.split("/")[0] + "/data.pkl")
        if e is not None:
            return e
    return info.find("data.pkl")


def _other_pickles(buf: Any, info: ZipInfo, main: Any, insp: Inspection) -> None:
    """Every other pickle in the archive (a second data.pkl, a duplicate record) is checked for
    security too: a loader that picks a different copy must not run something unseen."""
    for e in [*info.entries.values(), *info.duplicates]:
        if e is not main and e.name.endswith(".pkl"):
            _walk_entry(buf, e, insp, f"@{e.header_offset}")


def _walk_entry(buf: Any, e: Any, insp: Inspection, tag: str = "") -> Any:
    """Walk a zip entry's pickle (stored, or deflated: torch's reader inflates those too)."""
    data = entry_bytes(buf, e, bombs=insp.meta.setdefault("bombs", []))
    if data is None:
        return None
    res = walk(data)
    stored = e.method == 0
    where = f"{insp.path}:{e.name}{tag}" + ("" if stored else " (deflated)")
    insp.pickles.append(PickleScan(where, res.globals, res.error, e.data_offset if stored else 0, in_file=stored))
    return res


def _storage_hints(buf: Any, size: int) -> dict[str, int]:
    """For a zip without its directory: each storage entry's size, from data.pkl (written first),
    so the scan can jump over tensor data instead of searching it for the next header."""
    pkl = first_entry(buf, size)
    if pkl is None or not pkl.name.endswith("data.pkl") or not pkl.complete:
        return {}
    res = walk(memoryview(buf)[pkl.data_offset : pkl.data_offset + pkl.compressed_size])
    prefix = pkl.name[: -len("data.pkl")]
    return {f"{prefix}data/{t.storage}": t.storage_bytes for t in tensor_table(res.root) if t.storage_bytes is not None}


def _locate_zip_storages(info: ZipInfo, insp: Inspection) -> None:
    prefix = insp.prefix + "/" if insp.prefix else ""
    for t in insp.tensors:
        e = info.entries.get(f"{prefix}data/{t.storage}")
        if e is None:
            t.complete = False
            if not info.truncated:
                insp.missing_storages.append({"tensor": t.name, "storage": t.storage, "why": "no entry"})
            continue
        start = t.offset * ITEMSIZE.get(t.dtype, 1)
        t.file_offset = e.data_offset + start if e.data_offset >= 0 else None
        t.complete = e.complete
        if e.method != 0:  # compressed storage: present, but not readable in place
            t.file_offset = None
        if e.complete and e.size >= 0 and (start < 0 or start + t.nbytes > e.size):  # a negative offset too
            t.complete = False
            insp.missing_storages.append(
                {
                    "tensor": t.name,
                    "storage": t.storage,
                    "why": f"needs bytes {start}..{start + t.nbytes}, entry has {e.size}",
                }
            )


def check_crcs(buf: Any, info: ZipInfo, insp: Inspection) -> None:
    insp.crc_checked = True
    for e in info.entries.values():
        if not e.complete or not (e.crc_recorded or e.method == 8):  # deflated: inflated anyway (bombs)
            continue
        got = entry_crc(buf, e, bombs=insp.meta.setdefault("bombs", []))
        if got is not None and e.crc_recorded and got != e.crc:
            insp.crc_mismatches.append(
                {
                    "entry": e.name,
                    "recorded": f"{e.crc:08x}",
                    "computed": f"{got:08x}",
                    "offset": e.data_offset,
                    "bytes": e.size,
                }
            )


def inspect_legacy(buf: Any, size: int, insp: Inspection) -> None:
    """Pre-1.6 torch.save: magic, protocol, sys info, object, storage keys, then raw storages."""
    pos, results = 0, []
    for _ in range(5):
        res = walk(buf, pos)  # an mmap is read as a stream, not copied
        results.append(res)
        if res.error:
            break
        pos = res.end
    for i, res in enumerate(results):
        insp.pickles.append(PickleScan(f"{insp.path}:pickle#{i}", res.globals, res.error, 0))
    bad = next((r for r in results if r.error), None)
    if len(results) < 4 or (bad is not None and bad is not results[-1]) or results[3].error:
        err = bad.error if bad else "fewer than 4 pickles"
        insp.pickle_error = f"legacy checkpoint: {err}"
        if bad is not None and bad.error.startswith("truncated"):
            insp.truncated = f"legacy checkpoint ends at byte {size} inside its pickles"
        return
    insp.tensors = tensor_table(results[3].root)
    if len(results) < 5 or results[4].error or not isinstance(results[4].root, list):
        insp.truncated = f"legacy checkpoint ends at byte {size} before its storage table"
        for t in insp.tensors:
            t.complete = False
        return
    _locate_legacy(buf, size, results[4].end, [str(k) for k in results[4].root], insp)


def _locate_legacy(buf: Any, size: int, pos: int, keys: list[str], insp: Inspection) -> None:
    dtype = {t.storage: t.dtype for t in insp.tensors}
    where: dict[str, tuple[int, int]] = {}
    for key in keys:
        if pos + 8 > size:
            break
        (numel,) = struct.unpack_from("<q", buf, pos)
        if numel < 0 or numel > size:
            insp.notes.append(f"storage {key}: impossible element count {numel} at byte {pos}")
            pos = size + 1
            break
        nbytes = numel * ITEMSIZE.get(dtype.get(key, "uint8"), 1)
        where[key] = (pos + 8, nbytes)
        pos += 8 + nbytes
    for t in insp.tensors:
        start, nbytes = where.get(t.storage or "", (-1, 0))
        off = t.offset * ITEMSIZE.get(t.dtype, 1)
        t.file_offset = start + off if start >= 0 else None
        t.complete = start >= 0 and start + off + t.nbytes <= min(size, start + nbytes)
    if pos > size or len(where) < len(keys):
        lost = sum(not t.complete for t in insp.tensors)
        insp.truncated = f"legacy checkpoint ends at byte {size}, storage data runs to byte {pos}; {lost} tensors lost"
    elif pos < size:
        insp.notes.append(f"{size - pos} bytes after the last storage")


__all__ = [
    "ITEMSIZE",
    "LEGACY_MAGIC",
    "check_crcs",
    "entry_crc",
    "inspect_legacy",
    "inspect_zip",
    "tensor_table",
]
