"""Parquet files and Hugging Face ``save_to_disk`` Arrow folders, read batch by batch
with pyarrow (optional; imported here only)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .errors import Bad, DataError

BATCH = 4096


def _pyarrow() -> Any:
    try:
        import pyarrow
        import pyarrow.ipc
        import pyarrow.parquet
    except ImportError:
        raise DataError("reading Parquet/Arrow needs pyarrow (pip install 'trainlint[data]')") from None
    return pyarrow


def _rows(batches: Iterator[Any], start: int) -> Iterator[tuple[int, Any, Any]]:
    n = start
    for batch in batches:
        for obj in batch.to_pylist():
            n += 1
            yield n, obj, repr(obj)


def iter_parquet(path: Path) -> Iterator[tuple[int, Any, Any]]:
    pa = _pyarrow()
    try:
        pf = pa.parquet.ParquetFile(str(path))
    except (OSError, pa.ArrowException) as exc:
        raise DataError(f"not a readable Parquet file: {str(exc).splitlines()[0]}") from None
    yield from _guarded(pa, _rows(pf.iter_batches(batch_size=BATCH), 0))


def _guarded(pa: Any, rows: Iterator[tuple[int, Any, Any]]) -> Iterator[tuple[int, Any, Any]]:
    """Rows until the file turns out damaged; the damage becomes one Bad row, never a traceback."""
    n = 0
    try:
        for item in rows:
            n = item[0]
            yield item
    except (OSError, pa.ArrowException) as exc:
        yield n + 1, Bad("json", f"file damaged after row {n}: {str(exc).splitlines()[0]}"), None


def _open_ipc(pa: Any, path: Path) -> Any:
    source = pa.memory_map(str(path))
    try:
        return pa.ipc.open_stream(source)
    except pa.ArrowInvalid:
        return pa.ipc.open_file(source)


def _batches(pa: Any, files: list[Path]) -> Iterator[Any]:
    for f in files:
        reader = _open_ipc(pa, f)
        if hasattr(reader, "num_record_batches") and not hasattr(reader, "read_next_batch"):
            for i in range(reader.num_record_batches):
                yield reader.get_batch(i)
        else:
            yield from reader


def iter_arrow_files(files: list[Path]) -> Iterator[tuple[int, Any, Any]]:
    pa = _pyarrow()
    try:
        _open_ipc(pa, files[0])
    except (OSError, pa.ArrowException) as exc:
        raise DataError(f"not a readable Arrow file: {str(exc).splitlines()[0]}") from None
    yield from _guarded(pa, _rows(_batches(pa, files), 0))


def arrow_files(folder: Path) -> list[Path]:
    """The data files of a ``save_to_disk`` folder, in the order ``state.json`` lists them."""
    state = folder / "state.json"
    if state.is_file():
        try:
            from ..safeio import inside, load_json_file

            names = [d["filename"] for d in load_json_file(state)["_data_files"]]
            return [folder / n for n in names if inside(folder / n, folder)]  # never a file outside
        except (ValueError, KeyError, TypeError, OSError):
            pass
    return sorted(folder.glob("*.arrow"))


def open_arrow_folder(folder: Path) -> Iterator[tuple[int, Any, Any]]:
    files = arrow_files(folder)
    if not files:
        raise DataError("a folder with no Arrow data files (not a save_to_disk dataset)")
    missing = [f.name for f in files if not f.is_file()]
    if missing:
        raise DataError(f"state.json lists data files that are missing: {', '.join(missing[:5])}")
    return iter_arrow_files(files)
