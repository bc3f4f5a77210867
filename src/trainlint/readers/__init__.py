"""Readers: each module registers one format with a content sniffer."""

from __future__ import annotations

import csv
from pathlib import Path

from ..model import Run
from ..options import ReadOptions
from ..plugins import import_plugins
from ..safeio import JSONLimit, file_kind, not_regular_reason
from .base import READERS, Reader, ReadError, head_as_utf8, read_head

__all__ = ["READERS", "ReadError", "Reader", "load_readers", "read_any", "read_run", "sniff", "sniff_head"]

_loaded = False


def load_readers() -> list[Reader]:
    global _loaded
    if not _loaded:
        _loaded = True
        import_plugins(__name__, skip={"base"})  # format subpackages included
    return READERS


def sniff(path: Path, options: ReadOptions | None = None) -> Reader | None:
    """The first reader that recognises ``path`` by content, or None."""
    path = Path(path)
    readers = load_readers()
    if path.is_dir():
        return next((r for r in readers if r.folder and r.recognises(path, b"", options)), None)
    try:
        head = head_as_utf8(read_head(path))
    except OSError:
        return None
    return sniff_head(path, head, options)


def sniff_head(path: Path, head: bytes, options: ReadOptions | None = None) -> Reader | None:
    """The first file reader that recognises ``path`` from its first bytes ``head`` (the one
    sniffing pass: discovery hands the Reader it returns on to the read)."""
    for r in load_readers():
        if r.folder:
            continue
        try:
            if r.recognises(path, head, options):
                return r
        except Exception:  # a sniffer must never take discovery down  # noqa: BLE001
            continue
    return None


def read_run(path: str | Path, fmt: str | None = None, options: ReadOptions | None = None) -> Run:
    """Read one log into a Run. Raises ReadError with a one-line reason."""
    path = Path(path)
    kind = file_kind(path)
    if kind == "missing":
        raise ReadError("no such file or folder")
    if kind not in ("file", "dir"):
        raise ReadError(not_regular_reason(kind))
    load_readers()
    if fmt is not None:
        chosen = next((r for r in READERS if r.name == fmt), None)
        if chosen is None:
            raise ReadError(f"unknown format {fmt!r} (known: {', '.join(r.name for r in READERS)})")
    else:
        chosen = sniff(path, options)
    if chosen is None:
        raise ReadError("not a training log that trainlint recognises")
    try:
        return chosen.load(path, options or ReadOptions())
    except ReadError:
        raise
    except MemoryError:
        raise ReadError("ran out of memory reading this file") from None
    except JSONLimit as exc:
        raise ReadError(str(exc)) from None
    except (OSError, ValueError, UnicodeError, RecursionError, OverflowError, csv.Error) as exc:
        raise ReadError(f"{type(exc).__name__}: {exc}".splitlines()[0]) from None


def read_any(path: str | Path, options: ReadOptions | None = None) -> Run:
    """For a file the user named explicitly that no sniffer claims (e.g. metric names
    no alias knows, mapped with --map): try each file reader in turn."""
    path = Path(path)
    errors = []
    for r in load_readers():
        if r.folder:
            continue
        try:
            run = read_run(path, r.name, options)
        except ReadError as exc:
            errors.append(f"{r.name}: {exc}")
            continue
        if run.series:
            return run
    raise ReadError("not a training log that trainlint recognises")
