"""Find what to judge under a path: logs (by content), and whatever other
inspectors (datasets, checkpoints, tokenizers, ...) register for themselves."""

from __future__ import annotations

import importlib
import os
import pkgutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .verdict import Report

SKIP_DIRS = {".git", ".hg", ".svn", "__pycache__", "node_modules", ".venv", "venv",
             "site-packages", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".tox", ".idea"}


@dataclass
class Inspector:
    """Recognises one kind of input and judges it into a Report."""

    kind: str
    sniff: Callable[[Path, bytes], bool]
    judge: Callable[[Path, Any], Report]
    priority: int = 50
    folder: bool = False
    claims: Callable[[Path], list[Path]] | None = None  # files a folder inspector consumes
    # A file that holds several runs (an MLflow SQLite store, appended Detectron2 logs):
    # parts(path) names them, judge_part(path, part, options) judges one.
    parts: Callable[[Path], list[str]] | None = None
    judge_part: Callable[[Path, str, Any], Report] | None = None


INSPECTORS: list[Inspector] = []
_loaded = False


def inspector(kind: str, *, priority: int = 50, folder: bool = False) -> Callable[[Any], Any]:
    def wrap(cls: Any) -> Any:
        obj = cls()
        INSPECTORS.append(Inspector(kind, obj.sniff, obj.judge, priority, folder,
                                    getattr(obj, "claims", None), getattr(obj, "parts", None),
                                    getattr(obj, "judge_part", None)))
        INSPECTORS.sort(key=lambda i: i.priority)
        return cls

    return wrap


def load_inspectors() -> list[Inspector]:
    global _loaded
    if not _loaded:
        _loaded = True
        from . import inspectors as pkg

        for mod in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda m: m.name):
            if not mod.name.startswith("_"):
                importlib.import_module(f"{pkg.__name__}.{mod.name}")
    return INSPECTORS


@dataclass
class Item:
    path: Path
    inspector: Inspector
    claimed: list[Path] = field(default_factory=list)
    part: str | None = None  # the run inside a file that holds several (see Inspector.parts)


def _head(path: Path) -> bytes:
    try:
        with open(path, "rb") as fh:
            return fh.read(8192)
    except OSError:
        return b""


def match_file(path: Path, kinds: set[str] | None = None) -> Inspector | None:
    found = match_files(path, kinds)
    return found[0] if found else None


def match_files(path: Path, kinds: set[str] | None = None) -> list[Inspector]:
    """The first inspector of each kind that recognises the file: a file can be two things
    at once (a ``training_args.bin`` is a training configuration and a pickle whose imports
    need checking), but never two reports of one kind."""
    head = _head(path)
    found: dict[str, Inspector] = {}
    for ins in load_inspectors():
        if ins.folder or ins.kind in found or (kinds is not None and ins.kind not in kinds):
            continue
        if _safe_sniff(ins, path, head):
            found[ins.kind] = ins
    return list(found.values())


def match_folder(path: Path, kinds: set[str] | None = None) -> Inspector | None:
    found = match_folders(path, kinds)
    return found[0] if found else None


def match_folders(path: Path, kinds: set[str] | None = None) -> list[Inspector]:
    """Every folder inspector (of ``kinds``) that recognises ``path`` (a run folder can also be a checkpoint)."""
    return [ins for ins in load_inspectors()
            if ins.folder and (kinds is None or ins.kind in kinds) and _safe_sniff(ins, path, b"")]


def _safe_sniff(ins: Inspector, path: Path, head: bytes) -> bool:
    try:
        return bool(ins.sniff(path, head))
    except Exception:  # a sniffer must never take discovery down  # noqa: BLE001
        return False


def walk(root: Path, kinds: set[str] | None = None) -> Iterator[Item]:
    """Everything under ``root`` that some inspector (of ``kinds``, default all) recognises.

    A folder inspector (a run folder) claims the files it consumes, so they are
    not judged again on their own; a folder whose files were all claimed
    already (a checkpoint copy inside a run folder) is not matched again.
    """
    if root.is_file():
        for ins in match_files(root, kinds):
            yield from _expand(root, ins)
        return
    claimed: set[Path] = set()
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
        here = Path(folder)
        for ins in match_folders(here, kinds):
            item = _folder_item(here, ins, claimed)
            if item is not None:
                yield item
        for name in sorted(files):
            path = here / name
            if path.resolve() in claimed or name.startswith("."):
                continue
            for fins in match_files(path, kinds):
                yield from _expand(path, fins)


def _folder_item(here: Path, ins: Inspector, claimed: set[Path]) -> Item | None:
    try:
        used = [p.resolve() for p in ins.claims(here)] if ins.claims else []
    except OSError:
        used = []
    if used and all(p in claimed for p in used):
        return None  # already judged as part of an enclosing run
    claimed.update(used)
    return Item(here, ins, used)


def _expand(path: Path, ins: Inspector) -> Iterator[Item]:
    """One item per run a file holds (most files hold one)."""
    parts: list[str] = []
    if ins.parts is not None and ins.judge_part is not None:
        try:
            parts = list(ins.parts(path))
        except Exception:  # a broken store is judged (and reported) as one input  # noqa: BLE001
            parts = []
    if len(parts) <= 1:
        yield Item(path, ins)
        return
    judge_part = ins.judge_part
    for part in parts:
        def judge(p: Path, options: Any, _part: str = part) -> Report:
            return judge_part(p, _part, options)

        yield Item(path, replace(ins, judge=judge), part=part)
