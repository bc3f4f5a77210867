"""Weights & Biases run folders (``wandb/run-*``, ``wandb/offline-run-*``), read
without the wandb package.

Where a run folder holds ``wandb-history.jsonl`` (older clients) it is the
history. Otherwise the history is read from the binary ``run-<id>.wandb`` file:
a LevelDB-style log (a 7-byte ``:W&B`` header, then 32 KiB blocks of records,
each with a 7-byte header: CRC-32, length, FULL/FIRST/MIDDLE/LAST type) whose
records are protobuf ``Record`` messages. Only what a linter needs is decoded:
history rows (field 2: items of key + JSON value), the summary (field 3) and
the exit record (field 18). ``wandb-summary.json`` and ``output.log`` are used
where present (the console log through whichever reader recognises it).
"""

from __future__ import annotations

import json
import re
import struct
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..model import Damage, Run
from ..options import ReadOptions
from ..safeio import load_json_file, read_bytes, read_str
from ._rows import json_rows, rows_into
from .base import ReadError, reader

RUN_DIR = re.compile(r"^(offline-)?run-\d{8}_\d{6}-[A-Za-z0-9]+$")
IDENT = b":W&B"
BLOCK, HEADER = 32768, 7
FULL, FIRST, MIDDLE, LAST = 1, 2, 3, 4
HISTORY, SUMMARY, RUN, EXIT = 2, 3, 17, 18
SKIP_KEYS = {"_step", "_runtime", "_timestamp", "_wandb"}


def _find(folder: Path, name: str) -> Path | None:
    for p in (folder / "files" / name, folder / name):
        if p.is_file():
            return p
    return None


def _binary(folder: Path) -> Path | None:
    found = sorted(p for p in folder.glob("*.wandb") if p.is_file())  # never a FIFO or device
    return found[0] if found else None


@reader("wandb-run", priority=20, folder=True)
class WandbRunReader:
    def sniff(self, path: Path, head: bytes) -> bool:
        if not RUN_DIR.match(path.name):
            return False
        return _binary(path) is not None or (path / "files").is_dir() or _find(path, "wandb-history.jsonl") is not None

    def read(self, path: Path, options: ReadOptions | None = None) -> Run:
        run = Run(source=str(path), format="wandb-run")
        history = _find(path, "wandb-history.jsonl")
        binary = _binary(path)
        if history is not None:
            _read_history_jsonl(history, run)
        elif binary is not None:
            _read_binary(binary, run)
        _read_summary(path, run)
        _read_console(path, run, options)
        if not run.series:
            _summary_points(run)
        if not run.series and not run.events:
            raise ReadError(_why_nothing(history, binary, run))
        return run


def _summary_points(run: Run) -> None:
    """No history and no console progress: the final summary, one point per metric (a crash in
    output.log is judged either way)."""
    summary = run.meta.get("summary") or {}
    step = float(run.meta.get("summary_step", 0))
    for key, value in summary.items():
        run.add(key, [step], [float(value)])
    if summary:
        run.notes.append(f"no history: {len(summary)} metric(s) from wandb-summary.json, one point each")


def _why_nothing(history: Path | None, binary: Path | None, run: Run) -> str:
    if history is None and binary is None:
        return "a W&B run folder with neither wandb-history.jsonl nor a run-*.wandb file: no history to judge"
    damage = "; ".join(d.message for d in run.damage)
    return "no history rows found in this W&B run" + (f" ({damage})" if damage else "")


def _read_history_jsonl(path: Path, run: Run) -> None:
    run.files.append(str(path))
    objects, _, broken = json_rows(read_str(path))
    if broken:
        run.damage.append(
            Damage("skipped-lines", f"{len(broken)} unparseable history line(s)", {"first_line": broken[0]})
        )
    _history_into(objects, run)


def _history_into(rows: list[tuple[int, dict[str, Any]]], run: Run) -> None:
    """History rows as series: ``_step`` is the step, ``_timestamp`` every point's clock."""

    def wall(row: dict[str, Any]) -> float | None:
        ts: Any = row.get("_timestamp")
        return float(ts) if type(ts) in (int, float) else None

    if rows:
        rows_into(rows, run, step_key="_step", skip=SKIP_KEYS, wall_of=wall)


def _read_summary(folder: Path, run: Run) -> None:
    path = _find(folder, "wandb-summary.json")
    if path is None:
        return
    try:
        data = load_json_file(path)
    except ValueError as exc:
        run.notes.append(f"wandb-summary.json unreadable: {exc}")
        return
    if isinstance(data, dict):
        run.files.append(str(path))
        if type(data.get("_step")) in (int, float):
            run.meta["summary_step"] = data["_step"]
        run.meta.setdefault("summary", {}).update(
            {k: v for k, v in data.items() if type(v) in (int, float) and not k.startswith("_")}
        )


def _read_console(folder: Path, run: Run, options: ReadOptions | None = None) -> None:
    """Crash signatures (and, with no history, the series) from output.log via its reader."""
    path = _find(folder, "output.log")
    if path is None:
        return
    from . import ReadError as _RE
    from . import read_run, sniff

    if sniff(path) is None:
        return
    try:
        console = read_run(path, options=options)
    except _RE as exc:
        run.notes.append(f"output.log: {exc}")
        return
    run.files.append(str(path))
    run.events.extend(console.events)
    if not run.series and console.series:
        run.series.update(console.series)
        run.notes.append(f"series read from output.log ({console.format})")


# ---------------------------------------------------------------- the binary .wandb file


def _read_binary(path: Path, run: Run) -> None:
    data = read_bytes(path)
    run.files.append(str(path))
    if not data.startswith(IDENT) or len(data) < HEADER:
        run.damage.append(Damage("corrupt", f"{path.name} does not start with the W&B log header"))
        return
    rows: list[tuple[int, dict[str, Any]]] = []
    summary: dict[str, Any] = {}
    for rec in _records(data, run):
        for field, _, value in _fields(rec):
            if field == HISTORY:
                rows.append((len(rows), _history_row(value)))
            elif field == SUMMARY:
                summary.update(_items(value))
            elif field == RUN and "run_id" not in run.meta:
                _run_record(value, run)
            elif field == EXIT:
                code = next((v for f, w, v in _fields(value) if f == 1 and w == 0), 0)
                run.meta["exit_code"] = _signed(code)
    if summary:
        run.meta["summary"] = {k: v for k, v in summary.items() if type(v) in (int, float) and not k.startswith("_")}
    _history_into(rows, run)
    run.meta["history_rows"] = len(rows)


def _run_record(value: bytes, run: Run) -> None:
    """The run's id, project and display name (RunRecord fields 1, 3 and 8): for the report title."""
    names = {1: "run_id", 3: "experiment", 8: "run_name"}
    for f, wire, v in _fields(value):
        if f in names and wire == 2 and isinstance(v, bytes) and v:
            run.meta[names[f]] = v.decode("utf-8", "replace")


def _records(data: bytes, run: Run) -> Iterator[bytes]:
    """Complete records of a LevelDB-style log; damage stops the read and is reported."""
    pos, pending = HEADER, None
    while pos + HEADER <= len(data):
        left = BLOCK - pos % BLOCK
        if left < HEADER:
            pos += left  # a block's tail too short for a header is padding
            continue
        crc, length, kind = struct.unpack_from("<IHB", data, pos)
        if kind == 0 and length == 0:
            pos += left  # zero padding (preallocated or flushed block)
            continue
        start, end = pos + HEADER, pos + HEADER + length
        if end > len(data) or length > left - HEADER or kind not in (FULL, FIRST, MIDDLE, LAST):
            _damage(run, "truncated" if end > len(data) else "corrupt", pos, len(data))
            return
        payload = data[start:end]
        if crc != zlib.crc32(payload, zlib.crc32(bytes([kind]))) & 0xFFFFFFFF:
            _damage(run, "corrupt", pos, len(data), "checksum mismatch")
            return
        pos = end
        if kind == FULL:
            yield payload
        elif kind == FIRST:
            pending = [payload]
        elif pending is not None:
            pending.append(payload)
            if kind == LAST:
                yield b"".join(pending)
                pending = None


def _damage(run: Run, kind: str, offset: int, size: int, why: str = "") -> None:
    msg = f"W&B log {kind} at byte {offset} of {size}" + (f" ({why})" if why else "") + "; history read up to there"
    run.damage.append(Damage(kind, msg, {"offset": offset, "bytes": size}))


def _varint(buf: bytes, pos: int) -> tuple[int, int]:
    out = shift = 0
    while True:
        if pos >= len(buf):
            raise ValueError("truncated varint")
        b = buf[pos]
        pos += 1
        out |= (b & 0x7F) << shift
        if not b & 0x80:
            return out, pos
        shift += 7
        if shift > 63:
            raise ValueError("varint too long")


def _fields(buf: bytes) -> Iterator[tuple[int, int, Any]]:
    """(field number, wire type, value) of one protobuf message; stops quietly at damage."""
    pos = 0
    value: int | bytes
    try:
        while pos < len(buf):
            key, pos = _varint(buf, pos)
            wire = key & 7
            if wire == 0:
                value, pos = _varint(buf, pos)
            elif wire == 2:
                n, pos = _varint(buf, pos)
                value, pos = buf[pos : pos + n], pos + n
            elif wire in (1, 5):
                size = 8 if wire == 1 else 4
                value, pos = buf[pos : pos + size], pos + size
            else:
                return
            yield key >> 3, wire, value
    except ValueError:
        return


def _signed(v: int) -> int:
    return v - (1 << 64) if v >= 1 << 63 else v


def _items(buf: bytes) -> dict[str, Any]:
    """HistoryRecord.item / SummaryRecord.update: key (1), nested_key (2), value_json (16)."""
    out: dict[str, Any] = {}
    for field, wire, value in _fields(buf):
        if field != 1 or wire != 2:
            continue
        key, nested, raw = "", [], None
        for f, w, v in _fields(value):
            if w != 2:
                continue
            if f == 1:
                key = v.decode("utf-8", "replace")
            elif f == 2:
                nested.append(v.decode("utf-8", "replace"))
            elif f == 16:
                raw = v.decode("utf-8", "replace")
        name = "/".join(nested) if nested else key
        if name and raw is not None:
            try:
                out[name] = json.loads(raw)
            except ValueError:
                continue
    return out


def _history_row(buf: bytes) -> dict[str, Any]:
    row = _items(buf)
    if "_step" not in row:
        for field, wire, value in _fields(buf):
            if field == 2 and wire == 2:  # HistoryStep { num = 1 }
                row["_step"] = next((v for f, w, v in _fields(value) if f == 1 and w == 0), 0)
    return row
