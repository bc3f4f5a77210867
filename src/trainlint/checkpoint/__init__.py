"""Inspect checkpoints without executing them.

``inspect_path(path, values=None, crc=None) -> Inspection`` reads a checkpoint
file (torch zip or legacy archive, plain pickle, safetensors, sharded index) or
folder (HF checkpoint, torch.distributed.checkpoint, DeepSpeed) as structure.
Pickles are walked by :mod:`trainlint.picklewalk`; nothing is unpickled and
torch is never imported. ``values``/``crc``: True forces a full value scan /
CRC check, False skips it, None (default) does it for inputs up to
:data:`AUTO_FULL_BYTES`. ``judge(...)`` turns an Inspection into a Report with
the checkpoint rules.
"""

from __future__ import annotations

from pathlib import Path

from .files import (
    AUTO_FULL_BYTES,
    CKPT_SUFFIXES,
    DAMAGE,
    LFS_HEAD,
    ZIP_HEAD,
    content_kind,
    inspect_file,
    kind_is_zip,
    tensor_map,
    torch_pickle,
)
from .model import Inspection, PickleScan, TensorInfo


def inspect_path(path: str | Path, values: bool | None = None, crc: bool | None = None) -> Inspection:
    """A file or a recognised checkpoint folder."""
    path = Path(path)
    if path.is_dir():
        from .folders import inspect_folder

        return inspect_folder(path, values=values)
    return inspect_file(path, values=values, crc=crc)


__all__ = [
    "AUTO_FULL_BYTES",
    "CKPT_SUFFIXES",
    "DAMAGE",
    "LFS_HEAD",
    "ZIP_HEAD",
    "Inspection",
    "PickleScan",
    "TensorInfo",
    "content_kind",
    "inspect_file",
    "inspect_path",
    "kind_is_zip",
    "tensor_map",
    "torch_pickle",
]
