"""Detectron2 ``metrics.json``: one JSON object per line, keyed by ``iteration``.

Detectron2 appends to the file of an output folder it is launched in again, so
one file can hold several launches one after another. The iteration going back
marks where the next launch begins: each launch is its own run. ``read``
returns the last launch (the current one) and names the earlier ones;
``doctor`` judges each of them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..model import Run
from ..safeio import read_bytes
from ._rows import json_rows, rows_into
from .base import ReadError, decode_text, first_json_object, note_skipped, reader
from .parts import multi_run

MARKERS = ("total_loss", "eta_seconds", "data_time", "loss_cls", "loss_box_reg")


@reader("detectron2", priority=35)
class Detectron2Reader:
    def sniff(self, path: Path, head: bytes) -> bool:
        obj = first_json_object(head, 20)
        return obj is not None and "iteration" in obj and any(k in obj for k in MARKERS)

    def read(self, path: Path) -> Run:
        launches, notes, other, broken = _launches(path)
        run = _as_run(path, launches, len(launches) - 1, notes, other, broken)
        if len(launches) > 1:
            run.notes.append(
                f"{len(launches)} launches appended to this file; this is the last: " + _describe(launches)
            )
        return run


def _launches(path: Path) -> tuple[list[list[tuple[int, dict[str, Any]]]], list[str], list[int], list[int]]:
    text, notes = decode_text(read_bytes(path))
    objects, other, broken = json_rows(text)
    objects = [(n, o) for n, o in objects if type(o.get("iteration")) in (int, float)]
    if not objects:
        raise ReadError("no JSON lines with an 'iteration' found")
    launches: list[list[tuple[int, dict[str, Any]]]] = [[]]
    last = None
    for line_no, obj in objects:
        it = obj["iteration"]
        if last is not None and it < last:
            launches.append([])
        launches[-1].append((line_no, obj))
        last = it
    return launches, notes, other, broken


def _as_run(
    path: Path,
    launches: list[list[tuple[int, dict[str, Any]]]],
    k: int,
    notes: list[str],
    other: list[int],
    broken: list[int],
) -> Run:
    part = launches[k]
    run = Run(source=str(path), format="detectron2", files=[str(path)], notes=list(notes))
    first, last = part[0][0], part[-1][0]
    broken_here = [b for b in broken if first <= b <= last or (k == len(launches) - 1 and b > last)]
    note_skipped(run, "unparseable JSON line(s)", broken_here, damage=True)
    note_skipped(run, "non-object line(s)", [o for o in other if first <= o <= last])
    rows_into(part, run, step_key="iteration")
    if "time" in run.series and "step_time" not in run.series:
        run.series["step_time"] = run.series.pop("time")  # seconds per iteration
        run.series["step_time"].name = "step_time"
    run.meta.update({"launch": k + 1, "launches": len(launches), "lines": [first, last]})
    return run


def _describe(launches: list[list[tuple[int, dict[str, Any]]]]) -> str:
    return "; ".join(
        f"run{i + 1}: lines {p[0][0]}-{p[-1][0]}, iterations {p[0][1]['iteration']:g}-{p[-1][1]['iteration']:g}"
        for i, p in enumerate(launches)
    )


def _parts(path: Path) -> list[str]:
    launches = _launches(path)[0]
    return [f"run{i + 1}" for i in range(len(launches))]


def _read_part(path: Path, part: str) -> Run:
    launches, notes, other, broken = _launches(path)
    k = int(part.removeprefix("run")) - 1
    if not 0 <= k < len(launches):
        raise ReadError(f"{part}: this file holds {len(launches)} launches")
    run = _as_run(path, launches, k, notes, other, broken)
    run.notes.append(f"launch {k + 1} of {len(launches)} appended to this file: " + _describe(launches))
    return run


multi_run("detectron2", _parts, _read_part)
