"""Readers: each module registers one format with a content sniffer."""

from __future__ import annotations

import csv
from collections.abc import Iterator
from pathlib import Path

from ..model import Damage, Run
from ..options import ReadOptions
from ..plugins import import_named, import_plugins
from ..safeio import MAGIC_BYTES, GunzipLimit, JSONLimit, compression, file_kind, gunzip, not_regular_reason
from .base import HEAD_BYTES, READERS, Reader, ReadError, head_as_text, read_head

__all__ = [
    "READERS",
    "ReadError",
    "Reader",
    "load_readers",
    "read_any",
    "read_run",
    "reader_named",
    "sniff",
    "sniff_head",
]

# Every built-in reader and the module that registers it, in sniffing order (READERS' order once
# all are loaded; a test holds the two together). Sniffing a file imports the modules as it
# reaches them, so a trainer_state.json, recognised third, never imports the console or CSV
# readers; the full load imports them in this order, so ties keep one order however loaded.
SNIFF_ORDER: tuple[tuple[str, str], ...] = (
    ("tfevents", "tensorboard.events"),
    ("tfevents-folder", "tensorboard.folder"),
    ("numpy", "numpy_file"),
    ("pickle-history", "pickle_history"),
    ("notebook", "notebook"),
    ("hf-trainer-state", "hf_trainer_state"),
    ("mlflow-run", "mlflow_store"),
    ("mlflow-sqlite", "mlflow_store"),
    ("wandb-run", "wandb_run"),
    ("coqui", "coqui"),
    ("detectron2", "detectron2"),
    ("llamafactory", "llamafactory"),
    ("jsonl", "jsonl"),
    ("json-records", "json_records"),
    ("yaml-history", "yaml_history"),
    ("arrow-table", "arrow_table"),
    ("markdown-table", "markdown_table"),
    ("markdown-log", "markdown_log"),
    ("xlsx", "xlsx_table"),
    ("console", "console.reader"),
    ("csv", "csv_log"),
    ("run-folder", "run_folder"),
)
_BUILT_IN = frozenset(name for name, _ in SNIFF_ORDER)
_loaded = False


def load_readers() -> list[Reader]:
    """Every reader, in sniffing order."""
    global _loaded
    if not _loaded:
        _loaded = True
        import_named(__name__, (module for _, module in SNIFF_ORDER))
        import_plugins(__name__, skip={"base"})  # the rest: format subpackages included
    return READERS


def reader_named(name: str) -> Reader | None:
    """The reader of format ``name``, importing only its module when it is a built-in one."""
    module = next((m for n, m in SNIFF_ORDER if n == name), None)
    if module is not None:
        import_named(__name__, (module,))
    found = next((r for r in READERS if r.name == name), None)
    return found if found is not None else next((r for r in load_readers() if r.name == name), None)


def _in_order(folder: bool) -> Iterator[Reader]:
    """The file (or folder) readers in sniffing order, each built-in module imported when
    reached; all of them at once when a reader of another package is registered (its priority
    may put it anywhere)."""
    if _loaded or any(r.name not in _BUILT_IN for r in READERS):
        yield from (r for r in load_readers() if r.folder == folder)
        return
    for name, _ in SNIFF_ORDER:
        r = reader_named(name)
        if r is not None and r.folder == folder:
            yield r
    yield from (r for r in load_readers() if r.folder == folder and r.name not in _BUILT_IN)


def sniff(path: Path, options: ReadOptions | None = None) -> Reader | None:
    """The first reader that recognises ``path`` by content, or None."""
    path = Path(path)
    if path.is_dir():
        return next((r for r in _in_order(folder=True) if r.recognises(path, b"", options)), None)
    try:
        head = read_head(path)
    except OSError:
        return None
    return sniff_head(path, head, options)


def sniff_head(path: Path, head: bytes, options: ReadOptions | None = None) -> Reader | None:
    """The first file reader that recognises ``path`` from its first bytes ``head`` (the one
    sniffing pass: discovery hands the Reader it returns on to the read). A gzip-compressed
    log (gzip, bzip2 or xz) is sniffed by its inflated head and its name without ``.gz``
    (``.bz2``, ``.xz``)."""
    packed = compression(head)
    if packed is not None:
        try:
            head, _ = gunzip(
                path, head=max(len(head), HEAD_BYTES)
            )  # as long as a plain head; a damaged stream: what came before
        except (OSError, ValueError):
            return None
        path = path.with_suffix("") if path.suffix.lower() == packed[1] else path
    head = head_as_text(head)
    for r in _in_order(folder=False):
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
    if fmt is not None:
        chosen = reader_named(fmt)
        if chosen is None:
            raise ReadError(f"unknown format {fmt!r} (known: {', '.join(r.name for r in load_readers())})")
    else:
        chosen = sniff(path, options)
    if chosen is None:
        raise ReadError("not a training log that trainlint recognises")
    try:
        packed = compression(read_head(path, MAGIC_BYTES)) if kind == "file" else None
        if packed is not None:
            return _read_compressed(path, packed, chosen, options or ReadOptions())
        return chosen.load(path, options or ReadOptions())
    except ReadError:
        raise
    except MemoryError:
        raise ReadError("ran out of memory reading this file") from None
    except JSONLimit as exc:
        raise ReadError(str(exc)) from None
    except GunzipLimit as exc:
        raise ReadError(str(exc)) from None
    except (OSError, ValueError, UnicodeError, RecursionError, OverflowError, csv.Error) as exc:
        raise ReadError(f"{type(exc).__name__}: {exc}".splitlines()[0]) from None


def _read_compressed(path: Path, packed: tuple[str, str], chosen: Reader, options: ReadOptions) -> Run:
    """A compressed log (``packed``: gzip, bzip2 or xz and its suffix): inflated (bounded) into a
    private temporary folder under its own name without the suffix, read there, and named after
    the compressed file."""
    import tempfile

    name, suffix = packed
    plain_name = path.name[: -len(suffix)] if path.name.lower().endswith(suffix) else path.name
    with tempfile.TemporaryDirectory(prefix="trainlint-unpack-") as tmp:
        plain = Path(tmp) / (plain_name or "log")
        with open(plain, "wb") as out:
            _, damage = gunzip(path, out)
        size = plain.stat().st_size
        run = chosen.load(plain, options)
    run.source, run.files = str(path), [str(path)]
    run.notes.insert(0, f"read from {name} ({size:,} bytes inflated)")
    if damage:
        run.damage.insert(0, Damage("truncated", damage, {"inflated_bytes": size}))
    return run


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
