"""Metric tables stored as Parquet or Arrow (a W&B history export, a ``datasets``-written log,
``DataFrame.to_parquet`` of a metrics frame): one row per logged step, one column per metric.

Read with pyarrow (the ``data`` extra), imported only when a file opens with the Parquet or
Arrow magic; without it such a file is NOT-CHECKED with "needs pyarrow". A table whose columns
name no metric (a dataset of text rows) is left to the dataset inspector.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ..model import Run
from ..roles import role_of
from .base import Columns, ReadError, reader
from .jsonl import STEP_KEYS

PARQUET, ARROW_FILE, ARROW_STREAM = b"PAR1", b"ARROW1", b"\xff\xff\xff\xff"
WALL_COLUMNS = ("_timestamp", "timestamp", "wall_time", "time")
MAX_CELLS = 200_000_000  # rows x numeric columns read into memory at most


def _pyarrow() -> Any:
    try:
        import pyarrow
        import pyarrow.ipc
        import pyarrow.parquet
    except ImportError:
        raise ReadError("reading a Parquet/Arrow metric table needs pyarrow (pip install 'trainlint[data]')") from None
    return pyarrow


def _has_pyarrow() -> bool:
    import importlib.util

    return importlib.util.find_spec("pyarrow") is not None


def _magic(head: bytes) -> bool:
    return head.startswith((PARQUET, ARROW_FILE)) or (head.startswith(ARROW_STREAM) and len(head) >= 8)


def _schema(path: Path) -> Any:
    """The table's schema (pyarrow), or None when it cannot be had."""
    try:
        pa = _pyarrow()
    except ReadError:
        return None
    try:
        if _head4(path) == PARQUET:
            return pa.parquet.read_schema(str(path))
        return _open_ipc(pa, path).schema
    except (OSError, pa.ArrowException):
        return None


def _head4(path: Path) -> bytes:
    from ..safeio import head_bytes

    return head_bytes(path, 4)


def _open_ipc(pa: Any, path: Path) -> Any:
    source = pa.memory_map(str(path))
    try:
        return pa.ipc.open_file(source)
    except pa.ArrowInvalid:
        return pa.ipc.open_stream(pa.memory_map(str(path)))


def metric_columns(names: list[str]) -> bool:
    """Whether a table's column names are those of a metric log: a loss or a known metric role."""
    return any("loss" in n.lower() or role_of(n) in ("loss", "eval_loss", "learning_rate") for n in names)


@reader("arrow-table", priority=42)
class ArrowTableReader:
    def sniff(self, path: Path, head: bytes) -> bool:
        if not _magic(head):
            return False
        schema = _schema(path)
        if (
            schema is None
        ):  # without pyarrow an Arrow file is claimed, to say so (Parquet: the dataset inspector says it)
            return not head.startswith(PARQUET) and not _has_pyarrow()
        return metric_columns(list(schema.names))

    def read(self, path: Path) -> Run:
        pa = _pyarrow()
        try:
            table = _read_table(pa, path)
        except (OSError, pa.ArrowException) as exc:
            raise ReadError(f"not a readable Parquet/Arrow table: {str(exc).splitlines()[0]}") from None
        run = Run(source=str(path), format="arrow-table", files=[str(path)])
        _columns(table, run)
        if not run.series:
            raise ReadError("no numeric metric columns in this table")
        return run


def _read_table(pa: Any, path: Path) -> Any:
    if _head4(path) == PARQUET:
        pf = pa.parquet.ParquetFile(str(path))
        if pf.metadata.num_rows * max(pf.metadata.num_columns, 1) > MAX_CELLS:
            raise ReadError(f"table too large: {pf.metadata.num_rows} rows x {pf.metadata.num_columns} columns")
        return pf.read()
    return _open_ipc(pa, path).read_all()


def _numeric(pa: Any, column: Any) -> np.ndarray | None:
    """A numeric column as float64 (nulls as NaN); None for any other type (text, booleans)."""
    kind = column.type
    if not (pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_decimal(kind)):
        return None
    return np.asarray(column.cast(pa.float64()).to_numpy(zero_copy_only=False), dtype=np.float64)


def _columns(table: Any, run: Run) -> None:
    import pyarrow as pa

    names = list(table.column_names)
    lower = {n.lower(): n for n in names}
    step_name = next((lower[k.lower()] for k in STEP_KEYS if k.lower() in lower), None)
    count = table.num_rows
    steps = _numeric(pa, table.column(step_name)) if step_name else None
    if steps is None:
        steps = np.arange(count, dtype=np.float64)
        run.notes.append("no step column; steps are row numbers")
    wall_name = next((lower[k] for k in WALL_COLUMNS if k in lower), None)
    wall = _numeric(pa, table.column(wall_name)) if wall_name else None
    cols = Columns()
    for name in names:
        if name in (step_name, wall_name):
            continue
        column = table.column(name)
        values = _numeric(pa, column)
        if values is None:
            continue
        if not column.null_count:
            cols.add_array(name, steps, values, wall)
            continue
        # a null is a metric not logged on that row (absent); a NaN stays a NaN (a finding)
        keep = ~np.asarray(column.is_null().to_numpy(zero_copy_only=False), dtype=bool)
        cols.add_array(name, steps[keep], values[keep], None if wall is None else wall[keep])
    cols.into(run)
