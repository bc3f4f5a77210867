"""Follow a log that is being written: read only what is new since the last poll.

A follower turns new bytes into records ``(step, wall_time, {metric: value})``.
Appended formats (JSONL, CSV) are read from the last complete line on; a
``trainer_state.json`` is rewritten whole by the Trainer, so it is re-read when it
changes and only the entries past those already seen are returned.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
from pathlib import Path
from typing import Any

from ..readers.hf_trainer_state import META_KEYS
from ..readers.jsonl import STEP_KEYS

Record = tuple[float, float, dict[str, Any]]


class _Appended:
    """Complete new lines of a file that only grows; a shrunk file is read again from 0."""

    def __init__(self, path: Path) -> None:
        self.path, self.offset, self.count = path, 0, 0

    def _new_lines(self) -> list[str]:
        try:
            size = os.path.getsize(self.path)
        except OSError:
            return []
        if size < self.offset:  # truncated or replaced: start over
            self.offset = 0
            self.restart()
        if size == self.offset:
            return []
        with open(self.path, "rb") as fh:
            fh.seek(self.offset)
            data = fh.read(size - self.offset)
        cut = data.rfind(b"\n")
        if cut < 0:
            return []
        self.offset += cut + 1
        return data[: cut + 1].decode("utf-8", errors="replace").lstrip("\ufeff").splitlines()

    def restart(self) -> None:
        pass


class JsonlFollower(_Appended):
    def poll(self) -> list[Record]:
        out = []
        for line in self._new_lines():
            line = line.strip()
            if not line.startswith("{"):
                continue
            try:
                obj = json.loads(line)
            except ValueError:
                continue
            if not isinstance(obj, dict):
                continue
            key = next((k for k in STEP_KEYS if k in obj), None)
            step = obj.pop(key) if key else self.count
            out.append((float(step) if type(step) in (int, float) else float(self.count), math.nan, obj))
            self.count += 1
        return out


class CsvFollower(_Appended):
    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.header: list[str] | None = None
        self.delim = ","

    def restart(self) -> None:
        self.header = None

    def poll(self) -> list[Record]:
        lines = self._new_lines()
        if self.header is None and lines:
            first = lines.pop(0)
            self.delim = max(",\t;", key=first.count)
            self.header = [c.strip() for c in first.split(self.delim)]
        out = []
        for row in csv.reader(io.StringIO("\n".join(lines)), delimiter=self.delim):
            rec = {}
            for name, cell in zip(self.header or [], row):
                try:
                    rec[name] = float(cell)
                except ValueError:
                    continue
            step = rec.pop("step", rec.get("epoch", float(self.count)))
            out.append((step, math.nan, rec))
            self.count += 1
        return out


class TrainerStateFollower:
    """Also keeps what doctor's reader takes from the state besides the log history
    (max_steps, the best model, the save/eval cadence, the closing summary) in ``meta``."""

    def __init__(self, path: Path) -> None:
        self.path, self.seen, self.stamp = path, 0, None
        self.meta: dict[str, Any] = {}

    def poll(self) -> list[Record]:
        try:
            st = os.stat(self.path)
        except OSError:
            return []
        stamp = (st.st_mtime_ns, st.st_size)
        if stamp == self.stamp:
            return []
        try:
            state = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return []  # caught mid-rewrite: try again at the next poll
        self.stamp = stamp
        history = state.get("log_history", []) if isinstance(state, dict) else []
        if not isinstance(history, list):
            return []
        self.meta.update({k: state[k] for k in META_KEYS if k in state})
        new = history[self.seen :]
        self.seen = len(history)
        out = []
        for entry in new:
            if not isinstance(entry, dict):
                continue
            if "train_runtime" in entry or "total_flos" in entry:  # train() returned
                self.meta["completed"] = True
                self.meta["summary"] = {k: v for k, v in entry.items() if type(v) in (int, float)}
            elif type(entry.get("step")) in (int, float):
                rec = {k: v for k, v in entry.items() if k != "step"}
                out.append((float(entry["step"]), math.nan, rec))
        return out


class EventFollower:
    """A TensorBoard event file being written: complete, CRC-valid records past the last one read.
    A record whose length CRC does not validate stops the follower there (reported by doctor)."""

    def __init__(self, path: Path) -> None:
        self.path, self.offset, self.broken = path, 0, False

    def poll(self) -> list[Record]:
        try:
            size = os.path.getsize(self.path)
        except OSError:
            return []
        if self.broken or size <= self.offset:
            return []
        with open(self.path, "rb") as fh:
            fh.seek(self.offset)
            buf = fh.read(size - self.offset)
        out, used, self.broken = _event_records(buf)
        self.offset += used
        return out


def _event_records(buf: bytes) -> tuple[list[Record], int, bool]:
    """Decode the complete records at the start of ``buf``: (records, bytes used, stuck on a
    length that does not validate)."""
    from ..readers.tensorboard.proto import decode_event, tensor_scalar
    from ..readers.tensorboard.records import masked_crc

    out: list[Record] = []
    pos = 0
    while len(buf) - pos >= 12:
        head = buf[pos : pos + 8]
        if masked_crc(head) != int.from_bytes(buf[pos + 8 : pos + 12], "little"):
            return out, pos, True  # not a record boundary: stop rather than guess
        n = int.from_bytes(head, "little")
        if len(buf) - pos < 16 + n:
            break  # the writer has not finished this record yet
        a, z = pos + 12, pos + 12 + n
        if masked_crc(buf[a:z]) == int.from_bytes(buf[z : z + 4], "little"):
            ev = decode_event(buf, a, z)
            metrics = {}
            for v in ev.values:
                value = (
                    v.simple if v.kind == "simple" else tensor_scalar(buf, *v.tensor) if v.kind == "tensor" else None
                )
                if value is not None:
                    metrics[v.tag.decode("utf-8", "replace")] = value
            if metrics:
                out.append((float(ev.step), float(ev.wall), metrics))
        pos = z + 4
    return out, pos, False


FOLLOWABLE = ("jsonl", "csv", "hf-trainer-state", "tfevents")


def followable_logs(path: Path) -> list[tuple[Path, str]]:
    """(file, reader format) for a file, or for every log under a folder that can be followed
    live (copies inside ``checkpoint-*`` folders are snapshots, not growing logs)."""
    from ..discover import SKIP_DIRS
    from ..readers import sniff

    if not path.is_dir():
        reader = sniff(path)
        return [(path, reader.name if reader else "unknown")]
    out = []
    for f in sorted(p for p in path.rglob("*") if p.is_file()):
        parts = f.relative_to(path).parts[:-1]
        if any(p in SKIP_DIRS or p.startswith(".") or p.startswith("checkpoint-") for p in parts):
            continue
        reader = sniff(f)
        if reader is not None and reader.name in FOLLOWABLE:
            out.append((f, reader.name))
    return out


def follower_for(path: Path, fmt: str) -> Any:
    """A follower for a log of reader format ``fmt``; None when it cannot be followed."""
    kinds = dict(zip(FOLLOWABLE, (JsonlFollower, CsvFollower, TrainerStateFollower, EventFollower)))
    cls = kinds.get(fmt)
    return cls(path) if cls else None
