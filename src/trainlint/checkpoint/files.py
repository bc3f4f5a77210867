"""Checkpoint files read as structure: torch zip or legacy archive, plain pickle, safetensors and
the empty/LFS-pointer/HTML damage cases (folders: :mod:`.folders`)."""

from __future__ import annotations

import mmap
import re
from pathlib import Path
from typing import Any

from ..safeio import open_regular, read_bytes
from .kinds import ZIP_HEAD, content_kind, kind_is_zip
from .model import Inspection, PickleScan, TensorInfo

AUTO_FULL_BYTES = 512 * 1024 * 1024
DAMAGE = (
    ValueError,
    IndexError,
    KeyError,
    TypeError,
    OverflowError,
    MemoryError,
    RecursionError,
    UnicodeDecodeError,
    __import__("struct").error,
)


def _special(path: Path, head: bytes, insp: Inspection) -> bool:
    kind = content_kind(head)
    if insp.size == 0:
        insp.kind_problem = "empty"
    elif kind == "lfs-pointer":
        text = head.decode("utf-8", "replace")
        oid = re.search(r"oid sha256:([0-9a-f]+)", text)
        size = re.search(r"size (\d+)", text)
        insp.kind_problem = "lfs-pointer"
        insp.meta["lfs"] = {"oid": oid.group(1) if oid else None, "size": int(size.group(1)) if size else None}
    elif kind == "html":
        title = (
            re.search(rb"<title>(.*?)</title>", head, re.IGNORECASE | re.DOTALL)
            or re.search(rb"<Message>(.*?)</Message>", head, re.DOTALL)
            or re.search(rb"<Code>(.*?)</Code>", head, re.DOTALL)
        )
        insp.kind_problem = "html"
        insp.meta["html_title"] = title.group(1).decode("utf-8", "replace").strip()[:120] if title else None
    elif kind is None:
        insp.kind_problem = "not-a-checkpoint"
        text = head[:80].decode("utf-8", "replace")
        printable = sum(c.isprintable() or c in "\n\r\t" for c in text) >= 0.9 * max(1, len(text))
        insp.meta["head"] = repr(" ".join(text.split())[:60]) if printable else head[:16].hex()
    else:
        return False
    insp.format = insp.kind_problem
    return True


def skipped_because(asked: bool | None, size: int, flag: str) -> str:
    """Why a scan was not run: the automatic size limit only when the file is over it."""
    if asked is False:
        return f"--no-{flag} was given; use --{flag}"
    if size > AUTO_FULL_BYTES:
        return f"{size / 2**20:,.0f} MB is over the {AUTO_FULL_BYTES >> 20} MB automatic limit; use --{flag}"
    return f"use --{flag}"


def inspect_file(
    path: Path, values: bool | None = None, crc: bool | None = None, digest: bool | None = False
) -> Inspection:
    """Inspect one checkpoint file. Never raises on damaged content.

    ``digest`` (None: automatic by size) also records a CRC-32 of every tensor's bytes (for drift)."""

    path = Path(path)
    size = path.stat().st_size
    with open_regular(path) as fh:  # a FIFO or device raises NotRegular (an OSError): never read
        head = fh.read(8192)
    insp = Inspection(path=str(path), format="unknown", size=size)
    if _special(path, head, insp):
        return insp
    insp.format = "torch-zip" if kind_is_zip(head) else (content_kind(head) or "unknown")
    full = size <= AUTO_FULL_BYTES
    for flag, asked in (("values", values), ("crc", crc)):
        if not (asked if asked is not None else full):
            insp.meta[f"{flag}_skipped"] = skipped_because(asked, size, flag)
    if not (digest if digest is not None else full):
        insp.meta["digest_skipped"] = skipped_because(digest, size, "values")
    with open_regular(path) as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as buf:
        try:
            _dispatch(buf, size, insp, crc if crc is not None else full)
        except DAMAGE as exc:  # structure so damaged that a reader step failed: report, never raise
            insp.damaged = f"{type(exc).__name__}: {exc}"
            return insp
        if values if values is not None else full:
            from .values import scan_tensors

            scan_tensors(buf, insp.tensors)
            insp.values_scanned = True
        if digest if digest is not None else full:
            from .values import digest_tensors

            digest_tensors(buf, insp.tensors)
    return insp


def _dispatch(buf: Any, size: int, insp: Inspection, crc: bool) -> None:
    from . import safetensors, torchfmt

    if insp.format == "torch-zip":
        torchfmt.inspect_zip(buf, size, insp, crc)
    elif insp.format == "torch-legacy":
        torchfmt.inspect_legacy(buf, size, insp)
    elif insp.format == "safetensors":
        safetensors.inspect_safetensors(buf, size, insp)
    elif insp.format == "pickle":
        _plain_pickle(buf, insp)


def _plain_pickle(buf: Any, insp: Inspection) -> None:
    from ..picklewalk import walk
    from .torchfmt import tensor_table

    res = walk(buf)
    insp.pickles.append(PickleScan(insp.path, res.globals, res.error, 0))
    if res.error:
        insp.pickle_error = res.error
        if res.error.startswith("truncated"):
            insp.truncated = res.error
        return
    insp.tensors = tensor_table(res.root)
    for t in insp.tensors:  # tensors in a plain pickle have no storage in this file
        t.complete = False


def torch_pickle(path: str | Path) -> Any:
    """The walked main pickle of a torch.save file (zip ``*/data.pkl``, legacy, or plain pickle)
    as a :class:`trainlint.picklewalk.PickleResult`; never unpickles. For reading small
    pickled objects such as HF ``training_args.bin`` symbolically (``picklewalk.mapping(res.root)``)."""
    from ..picklewalk import PickleResult, walk
    from .kinds import LEGACY_MAGIC
    from .zipread import read_zip

    data = read_bytes(path)
    if data.startswith(ZIP_HEAD):
        e = read_zip(data, len(data)).find("data.pkl")
        if e is None or not e.complete or e.method != 0:
            return PickleResult(error="no complete data.pkl in the archive")
        return walk(data[e.data_offset : e.data_offset + e.compressed_size])
    if data.startswith(LEGACY_MAGIC):
        pos = 0
        for _ in range(3):
            res = walk(data, pos)
            if res.error:
                return res
            pos = res.end
        return walk(data, pos)
    return walk(data)


def tensor_map(insp: Inspection) -> dict[str, TensorInfo]:
    return {t.name: t for t in insp.tensors}


__all__ = [
    "AUTO_FULL_BYTES",
    "Inspection",
    "TensorInfo",
    "inspect_file",
    "tensor_map",
    "torch_pickle",
]
