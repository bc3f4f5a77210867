"""Turn an Inspection into a Report with the checkpoint and security rules."""

from __future__ import annotations

from pathlib import Path

from ..checkpoint.model import Inspection
from ..config import Settings
from ..verdict import Report

NA = "not applicable to this input"


def judge(insp: Inspection, settings: Settings | None = None) -> Report:
    """Run every checkpoint rule on ``insp``; not-applicable rules are left out of the coverage."""
    from ..engine import run_rules

    kind = "comparison" if insp.drift is not None else "checkpoint"
    report = Report(source=insp.path, kind=kind, format=insp.format, summary=insp.summary(), notes=list(insp.notes))
    if insp.kind_problem == "not-a-checkpoint":
        detail = insp.meta.get("folder") or (
            f"zip entries {insp.meta['zip_entries']}"
            if "zip_entries" in insp.meta
            else f"starts with bytes {insp.meta.get('head', '')}"
        )
        report.unjudged = f"not a checkpoint trainlint reads ({detail})"
        return report
    if insp.drift is not None:
        report.summary = {
            "format": "drift",
            **{k: insp.drift[k] for k in ("keys_before", "keys_after")},
            "added": len(insp.drift["added"]),
            "removed": len(insp.drift["removed"]),
            "changed": len(insp.drift["changed"]),
        }
        if insp.drift.get("prefix"):
            report.summary["prefix"] = insp.drift["prefix"]
        if insp.drift.get("relative_change"):
            report.summary["relative_change"] = insp.drift["relative_change"]
    run_rules("checkpoint", insp, report, settings)
    report.checks.not_checked = {k: v for k, v in report.checks.not_checked.items() if v != NA}
    if insp.values_scanned:
        done = sum(t.stats is not None for t in insp.tensors)
        report.notes.append(
            f"values scanned: {done} of {len(insp.tensors)} tensors"
        )  # no clock: reports are deterministic
    return report


def judge_path(
    path: str | Path, settings: Settings | None = None, values: bool | None = None, crc: bool | None = None
) -> Report:
    """Inspect and judge one checkpoint file or folder; a missing or unreadable path is NOT-CHECKED."""
    return inspect_and_judge(path, settings, values, crc)[1]


def inspect_and_judge(
    path: str | Path, settings: Settings | None = None, values: bool | None = None, crc: bool | None = None
) -> tuple[Inspection | None, Report]:
    """:func:`judge_path`, also returning the Inspection (None when the path could not be read)."""
    from ..checkpoint import inspect_path
    from ..checkpoint.folders import inspect_index

    path = Path(path)
    if not path.exists():
        return None, Report(source=str(path), kind="checkpoint", unjudged="no such file or folder")
    try:
        if path.is_file() and path.name.endswith(".index.json"):
            insp = inspect_index(path)
        else:
            insp = inspect_path(path, values=values, crc=crc)
    except OSError as exc:
        return None, Report(source=str(path), kind="checkpoint", unjudged=f"cannot read: {exc.strerror or exc}")
    return insp, judge(insp, settings)
