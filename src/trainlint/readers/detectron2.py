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
    prev: dict[str, Any] | None = None
    ended = False  # the line before closed a stopped launch's last write
    for line_no, obj in objects:
        closes = prev is not None and _stopped_write(prev, obj)
        if prev is not None and not closes and (ended or obj["iteration"] < prev["iteration"]):
            launches.append([])
        ended = closes
        launches[-1].append((line_no, obj))
        prev = obj
    return launches, notes, other, broken


def _stopped_write(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Whether two lines in a row are the last write of a launch stopped inside an iteration.
    detectron2's JSONWriter puts one write's scalars on one line per iteration they were stored
    at, in the order the names were first stored, not sorted. A launch stopped (an error, Ctrl-C)
    inside iteration N writes, as it ends, N's scalars (``eta_seconds``, the model's accuracies;
    no loss) and N-1's losses (no ``eta_seconds``): two lines one iteration apart, in either
    order, that share no name (Adityagupta2590/Detection_fish output/metrics.json: ``18`` then
    ``17``, later ``14`` then ``15``). The launch ends there: the next line is a new launch's,
    its iteration lower or not."""
    late, early = (a, b) if a["iteration"] > b["iteration"] else (b, a)
    if late["iteration"] - early["iteration"] != 1 or (a.keys() & b.keys()) - {"iteration"}:
        return False
    return "eta_seconds" in late and "total_loss" not in late and "eta_seconds" not in early


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
    return "; ".join(f"run{i + 1}: lines {p[0][0]}-{p[-1][0]}, iterations {_span(p)}" for i, p in enumerate(launches))


def _span(part: list[tuple[int, dict[str, Any]]]) -> str:
    """The lowest and highest iteration of a launch (a stopped launch's last write may go back one)."""
    its = [obj["iteration"] for _, obj in part]
    return f"{min(its):g}-{max(its):g}"


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
