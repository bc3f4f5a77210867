"""Find what to judge under a path: logs (by content), and whatever other
inspectors (datasets, checkpoints, tokenizers, ...) register for themselves."""

from __future__ import annotations

import importlib
import os
import pkgutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
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


INSPECTORS: list[Inspector] = []
_loaded = False


def inspector(kind: str, *, priority: int = 50, folder: bool = False) -> Callable[[Any], Any]:
    def wrap(cls: Any) -> Any:
        obj = cls()
        INSPECTORS.append(Inspector(kind, obj.sniff, obj.judge, priority, folder,
                                    getattr(obj, "claims", None)))
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


def _head(path: Path) -> bytes:
    try:
        with open(path, "rb") as fh:
            return fh.read(8192)
    except OSError:
        return b""


def match_file(path: Path, kinds: set[str] | None = None) -> Inspector | None:
    head = _head(path)
    for ins in load_inspectors():
        if kinds is not None and ins.kind not in kinds:
            continue
        if not ins.folder and _safe_sniff(ins, path, head):
            return ins
    return None


def match_folder(path: Path, kinds: set[str] | None = None) -> Inspector | None:
    for ins in load_inspectors():
        if kinds is not None and ins.kind not in kinds:
            continue
        if ins.folder and _safe_sniff(ins, path, b""):
            return ins
    return None


def _safe_sniff(ins: Inspector, path: Path, head: bytes) -> bool:
    try:
        return bool(ins.sniff(path, head))
    except Exception:  # a sniffer must never take discovery down  # noqa: BLE001
        return False


def walk(root: Path, kinds: set[str] | None = None) -> Iterator[Item]:
    """Everything under ``root`` that some inspector (of ``kinds``, default all) recognises."""
    if root.is_file():
        ins = match_file(root, kinds)
        if ins is not None:
            yield Item(root, ins)
        return
    claimed: set[Path] = set()
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
        here = Path(folder)
        ins = match_folder(here, kinds)
        if ins is not None:
            used = ins.claims(here) if ins.claims else []
            claimed.update(p.resolve() for p in used)
            yield Item(here, ins, used)
        for name in sorted(files):
            path = here / name
            if path.resolve() in claimed or name.startswith("."):
                continue
            fins = match_file(path, kinds)
            if fins is not None:
                yield Item(path, fins)
