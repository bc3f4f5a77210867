"""The recoveries a guard made while a run trained (``GuardCallback(recover=...)``): the
``"type": "recovery"`` records of the ``trainlint-guard.jsonl`` beside the run's log, turned
into ``run.events``; the points of each rolled-back window (the steps whose updates were
discarded) are taken out of the run, so that it is judged as the trajectory the model had."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from ..model import Run, Series
from ..safeio import read_str

GUARD_LOG = "trainlint-guard.jsonl"
MAX_RECORDS = 10_000  # recoveries read from one guard log


def guard_log_of(run: Run) -> Path | None:
    """The guard log beside the run: in its folder, or one folder up (an HF output folder
    holding ``checkpoint-N/trainer_state.json`` or ``runs/<name>/`` event files)."""
    seen: set[Path] = set()
    for name in [run.source, *run.files]:
        path = Path(name)
        for folder in (path, path.parent, path.parent.parent):
            if folder in seen:
                continue
            seen.add(folder)
            candidate = folder / GUARD_LOG
            try:
                if candidate.is_file():
                    return candidate
            except OSError:
                continue
    return None


def recovery_records(path: Path) -> list[dict[str, Any]]:
    """The recovery records of a guard log (lines that are not such records are skipped)."""
    out = []
    for line in read_str(path).splitlines():
        if '"recovery"' not in line:
            continue
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict) and record.get("type") == "recovery" and rolled_back_window(record) is not None:
            out.append(record)
            if len(out) >= MAX_RECORDS:
                break
    return out


def rolled_back_window(record: dict[str, Any]) -> tuple[float, float] | None:
    """(restored step, last skipped step) of a recovery that rolled back, else None."""
    skipped, restored = record.get("skipped_steps"), record.get("restored_step")
    if record.get("outcome") != "recovered" or not isinstance(skipped, list) or not skipped:
        return None
    if not isinstance(restored, (int, float)) or not all(isinstance(s, (int, float)) for s in skipped):
        return None
    return float(restored), float(max(skipped))


def apply_recoveries(run: Run) -> int:
    """Take the rolled-back windows out of ``run`` and record each recovery as an event;
    returns how many recoveries were applied (0 when the run has no guard log beside it)."""
    if any(e.get("type") in ("recovery", "guard-log") for e in run.events if isinstance(e, dict)):
        return 0  # applied already
    try:
        path = guard_log_of(run)
        records = recovery_records(path) if path is not None else []
    except (OSError, ValueError) as exc:
        run.notes.append(f"the guard log beside the run was not read: {type(exc).__name__}: {exc}"[:200])
        return 0
    if path is not None:  # read: the rules know a guard watched this run, recoveries or none
        run.events.append({"type": "guard-log", "path": str(path), "recoveries": len(records)})
    if not records:
        return 0
    windows = [w for w in map(rolled_back_window, records) if w is not None]
    for name, s in list(run.series.items()):
        drop = np.zeros(len(s), dtype=bool)
        for lo, hi in windows:
            drop |= (s.steps > lo) & (s.steps <= hi)
        if drop.any():
            keep = ~drop
            wall = None if s.wall is None else s.wall[keep]
            run.series[name] = Series(s.name, s.steps[keep], s.values[keep], wall)
    for r in records:
        run.events.append({"type": "recovery", **{k: v for k, v in r.items() if k not in ("trainlint_guard", "type")}})
    run.notes.append(f"{len(records)} recoveries read from {path}; the rolled-back steps are left out")
    return len(records)
