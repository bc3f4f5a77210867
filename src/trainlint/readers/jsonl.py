"""JSON-lines metric logs: one JSON object per line.

Banner lines, bare numbers and other non-object lines are counted and
reported, never fatal. A line that starts like an object but does not parse
is a damaged record and reported as such.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..model import Run
from ..roles import role_of
from .base import Columns, ReadError, decode_text, looks_binary, note_skipped, reader

STEP_KEYS = ("step", "global_step", "_step", "iter", "iteration", "trainer/global_step",
             "train/global_step", "Step", "current_steps", "num_steps")
WALL_KEYS = ("_timestamp", "timestamp", "wall_time", "time")


def _metric_like(obj: dict[str, Any]) -> bool:
    return any(("loss" in k.lower() or role_of(k) in ("loss", "eval_loss", "learning_rate", "grad_norm"))
               and type(v) in (int, float, str) for k, v in obj.items())


@reader("jsonl", priority=40)
class JsonlReader:
    def sniff(self, path: Path, head: bytes) -> bool:
        if looks_binary(head):
            return False
        text = head.decode("utf-8", errors="replace").lstrip("\ufeff")
        lines = text.splitlines()
        if len(head) >= 8192 and lines:
            lines = lines[:-1]  # the last line of a cut head may be incomplete
        for line in lines[:50]:
            line = line.strip()
            if line.startswith("{") and line.endswith("}"):
                try:
                    obj = json.loads(line)
                except ValueError:
                    continue
                return isinstance(obj, dict) and _metric_like(obj)
        return False

    def read(self, path: Path) -> Run:
        text, notes = decode_text(path.read_bytes())
        run = Run(source=str(path), format="jsonl", files=[str(path)], notes=notes)
        lines = text.splitlines()
        objects, other, broken = _parse(lines)
        del lines, text
        if not objects:
            raise ReadError("no JSON object lines found" + (f" ({len(broken)} unparseable)" if broken else ""))
        note_skipped(run, "non-object line(s)", other)
        note_skipped(run, "unparseable JSON line(s)", broken, damage=True)
        _columns(objects, run).into(run)
        return run


def _parse(lines: list[str]) -> tuple[list[tuple[int, dict[str, Any]]], list[int], list[int]]:
    """(line number, object) pairs; line numbers of non-object lines; of broken object lines."""
    idx = [i for i, line in enumerate(lines) if line.lstrip().startswith("{")]
    other = [i + 1 for i, line in enumerate(lines) if line.strip() and not line.lstrip().startswith("{")]
    try:  # fast path: one C-level parse of every object line
        parsed = json.loads("[" + ",".join(lines[i] for i in idx) + "]")
        return [(i + 1, o) for i, o in zip(idx, parsed)], other, []
    except (ValueError, RecursionError):
        pass
    objects, broken = [], []
    for i in idx:
        try:
            objects.append((i + 1, json.loads(lines[i])))
        except (ValueError, RecursionError):
            broken.append(i + 1)
    return objects, other, broken


def _columns(objects: list[tuple[int, dict[str, Any]]], run: Run) -> Columns:
    cols = Columns()
    first = objects[0][1]
    step_key = next((k for k in STEP_KEYS if k in first), None)
    if step_key is None:
        step_key = next((k for k in STEP_KEYS if any(k in o for _, o in objects[:100])), None)
    if step_key is None:
        run.notes.append("no step field; steps are record numbers")
    skip = {step_key}
    for n, (line_no, obj) in enumerate(objects):
        step = obj.get(step_key, n) if step_key else n
        if type(step) not in (int, float):
            step = n
        for key, value in obj.items():
            if key not in skip:
                cols.add(step, key, value, line_no)
    return cols
