"""LLaMA-Factory ``trainer_log.jsonl``: one JSON object per logging step with
``current_steps``/``total_steps``, the train ``loss`` and ``lr`` (or ``eval_loss``),
and ``elapsed_time`` ("0:01:23", "1 day, 2:03:04") that gives every record a clock."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ..model import Run
from ..safeio import add_damage, read_text
from ._rows import json_rows, rows_into
from .base import ReadError, first_json_object, note_skipped, reader

KEYS = ("current_steps", "total_steps")
SKIP = frozenset({"total_steps", "percentage", "elapsed_time", "remaining_time"})
_ELAPSED = re.compile(r"^(?:(\d+) days?, )?(\d+):(\d\d):(\d\d(?:\.\d+)?)$")


def elapsed(value: Any) -> float | None:
    """An ``elapsed_time`` in seconds, or None."""
    m = _ELAPSED.match(value.strip()) if isinstance(value, str) else None
    if m is None:
        return None
    days, h, mi, sec = m.groups()
    return int(days or 0) * 86400 + int(h) * 3600 + int(mi) * 60 + float(sec)


@reader("llamafactory", priority=38)
class LlamaFactoryReader:
    def sniff(self, path: Path, head: bytes) -> bool:
        obj = first_json_object(head, 5)
        return obj is not None and all(k in obj for k in KEYS)

    def read(self, path: Path) -> Run:
        bounded = read_text(path)  # long lines cut out and reported
        text, notes = bounded.text, bounded.notes
        run = Run(source=str(path), format="llamafactory", files=[str(path)], notes=notes)
        add_damage(run, bounded)
        rows, other, broken = json_rows(text)
        if not rows:
            raise ReadError("no JSON object lines found")
        note_skipped(run, "non-object line(s)", other)
        note_skipped(run, "unparseable JSON line(s)", broken, damage=True)
        total = rows[0][1].get("total_steps")
        if type(total) is int:
            run.meta["max_steps"] = total
        rows_into(rows, run, step_key="current_steps", skip=SKIP, wall_of=lambda row: elapsed(row.get("elapsed_time")))
        if not run.series:
            raise ReadError("no numeric metrics in trainer_log.jsonl")
        return run
