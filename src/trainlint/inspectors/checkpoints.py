"""Checkpoints, recognised by content: torch zip (data.pkl inside), legacy torch
pickles, safetensors headers, shard indexes, and, under a checkpoint file name,
empty files, Git LFS pointers and HTML error pages. Folders: HF Trainer
checkpoints, torch.distributed.checkpoint and DeepSpeed."""

from __future__ import annotations

from pathlib import Path

from ..config import Settings
from ..discover import inspector
from ..options import Options
from ..verdict import Report

_NAMED_ONLY = {"pickle", "lfs-pointer", "html"}  # trusted only under a checkpoint file name
_UNAMBIGUOUS = {".pt", ".pth", ".ckpt", ".safetensors"}  # reported (NOT-CHECKED) even when unreadable


def _options(options: Options) -> tuple[Settings, bool | None, bool | None]:
    return options.settings, options.ckpt_values, options.ckpt_crc


def _metrics_history(path: Path, head: bytes) -> bool:
    from ..readers.pickle_history import is_history

    return is_history(path, head)


@inspector("checkpoint", priority=20)
class CheckpointFileInspector:
    def sniff(self, path: Path, head: bytes) -> bool:
        from ..checkpoint.kinds import CKPT_SUFFIXES, content_kind

        suffix = path.suffix.lower()
        if path.name.endswith(".index.json"):
            return b'"weight_map"' in head
        kind = content_kind(head)
        if kind == "torch-zip":  # torch.save of a dict of loss lists, no tensors: a log (readers.pickle_history)
            return not _metrics_history(path, head)
        if kind in ("torch-legacy", "safetensors"):
            return True
        named = suffix in CKPT_SUFFIXES
        if named and not head:
            return True  # an empty file under a checkpoint name
        if named and kind == "pickle" and _metrics_history(path, head):
            return False  # pickle.dump(history.history): a log (readers.pickle_history), no checkpoint
        return named and (kind in _NAMED_ONLY or suffix in _UNAMBIGUOUS)

    def judge(self, path: Path, options: Options) -> Report:
        from .checkpoint_judge import judge_path

        settings, values, crc = _options(options)
        return judge_path(path, settings, values=values, crc=crc)


@inspector("checkpoint", priority=20, folder=True)
class CheckpointFolderInspector:
    def sniff(self, path: Path, head: bytes) -> bool:
        from ..checkpoint.folders import folder_kind

        return folder_kind(path) is not None

    def claims(self, folder: Path) -> list[Path]:
        """DCP shard files are raw bytes only the folder makes sense of."""
        from ..checkpoint.folders import folder_kind

        if folder_kind(folder) == "dcp":
            return [p for p in folder.iterdir() if p.name.endswith(".distcp") or p.name == ".metadata"]
        return []

    def judge(self, path: Path, options: Options) -> Report:
        from .checkpoint_judge import judge_path

        settings, values, crc = _options(options)
        return judge_path(path, settings, values=values, crc=crc)
