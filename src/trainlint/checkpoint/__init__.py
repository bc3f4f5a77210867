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

import importlib
from pathlib import Path
from typing import Any

# Imported on first use (PEP 562): discovery asks every file whether it is a checkpoint
# (``kinds``), and only a checkpoint needs the readers, the pickle walker and the model.
_WHERE = {
    "AUTO_FULL_BYTES": "files",
    "CKPT_SUFFIXES": "kinds",
    "DAMAGE": "files",
    "LFS_HEAD": "kinds",
    "ZIP_HEAD": "kinds",
    "Inspection": "model",
    "PickleScan": "model",
    "TensorInfo": "model",
    "content_kind": "kinds",
    "inspect_file": "files",
    "kind_is_zip": "kinds",
    "tensor_map": "files",
    "torch_pickle": "files",
}


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
    globals()[name] = value
    return value


def inspect_path(path: str | Path, values: bool | None = None, crc: bool | None = None) -> Any:
    """A file or a recognised checkpoint folder (an :class:`Inspection`)."""
    path = Path(path)
    if path.is_dir():
        from .folders import inspect_folder

        return inspect_folder(path, values=values)
    from .files import inspect_file

    return inspect_file(path, values=values, crc=crc)


__all__ = [*_WHERE, "inspect_path"]
