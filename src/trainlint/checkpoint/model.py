"""What inspecting a checkpoint found: the subject the checkpoint rules judge."""

from __future__ import annotations

from typing import Any

import msgspec

from ..picklewalk import GlobalRef


class TensorInfo(msgspec.Struct):
    """One tensor as stored: where its bytes are and, after a value scan, what they hold."""

    name: str
    dtype: str
    shape: tuple[int, ...]
    stride: tuple[int, ...] | None = None
    storage: str | None = None  # storage key (torch) or None (safetensors)
    offset: int = 0  # storage offset in elements (torch)
    file_offset: int | None = None  # absolute byte offset of the tensor's first element
    nbytes: int = 0  # bytes the tensor spans in storage
    storage_bytes: int | None = None  # size of the whole storage, as the pickle records it
    complete: bool = True  # its bytes are all present in the file
    file: str | None = None  # shard file, for folders
    stats: dict[str, Any] | None = None  # filled by a value scan
    digest: int | None = None  # CRC-32 of the tensor's bytes (for drift), when asked

    @property
    def numel(self) -> int:
        n = 1
        for d in self.shape:
            n *= int(d)
        return n


class PickleScan(msgspec.Struct):
    """The security-relevant view of one pickle inside the checkpoint."""

    where: str  # file (and zip entry) the pickle lives in
    globals: list[GlobalRef] = msgspec.field(default_factory=list)
    error: str | None = None
    base_offset: int = 0  # add to a global's offset to get the byte in the file
    in_file: bool = True  # False for a compressed pickle: offsets count its uncompressed bytes
    allow_extra: tuple[str, ...] = ()  # prefixes this pickle may legitimately import (DCP metadata)


class Inspection(msgspec.Struct):
    """Everything found about one checkpoint file or folder (or a pair, for drift)."""

    path: str
    format: str  # torch-zip, torch-legacy, safetensors, hf-folder, ...
    size: int = 0
    kind_problem: str | None = None  # empty, lfs-pointer, html, not-a-checkpoint
    truncated: str | None = None  # one-line description of the truncation
    zip: Any = None  # zipread.ZipInfo for torch zips
    prefix: str | None = None  # folder prefix inside the zip
    crc_checked: bool = False
    crc_mismatches: list[dict[str, Any]] = msgspec.field(default_factory=list)
    pickle_error: str | None = None
    damaged: str | None = None  # a structure so damaged that reading stopped
    tensors: list[TensorInfo] = msgspec.field(default_factory=list)
    missing_storages: list[dict[str, Any]] = msgspec.field(default_factory=list)
    pickles: list[PickleScan] = msgspec.field(default_factory=list)
    values_scanned: bool = False
    safetensors: dict[str, Any] | None = None  # header problems found (see safetensors.py)
    index: dict[str, Any] | None = None  # sharded-index problems
    hf_folder: dict[str, Any] | None = None  # HF checkpoint-folder facts
    dcp: dict[str, Any] | None = None  # torch.distributed.checkpoint facts
    deepspeed: dict[str, Any] | None = None  # DeepSpeed folder facts
    drift: dict[str, Any] | None = None  # comparison of two checkpoints
    notes: list[str] = msgspec.field(default_factory=list)
    meta: dict[str, Any] = msgspec.field(default_factory=dict)

    def summary(self) -> dict[str, Any]:
        out: dict[str, Any] = {"format": self.format, "bytes": self.size, "tensors": len(self.tensors)}
        if self.tensors:
            out["parameters"] = sum(t.numel for t in self.tensors)
            out["dtypes"] = sorted({t.dtype for t in self.tensors})
        if self.pickles:
            out["globals"] = sorted({g.dotted for p in self.pickles for g in p.globals})
        out["values_scanned"] = self.values_scanned
        out["crc_checked"] = self.crc_checked
        return out
