"""One run's folder of TensorBoard event files, merged into one run.

A Lightning version folder, an HF ``runs/`` folder (one subfolder per launch), a
Keras log folder (``train/`` and ``validation/`` subfolders, whose tags become
``train/...`` and ``validation/...``) or any folder where a resumed job left
several ``events.out.tfevents.*`` files: the files are read in
the order they were written (first event wall time, then name), and each tag's
points are merged in step order. A file that starts a tag at a step the
previous files already reached is a resume: the earlier points of that tag at
or after that step are superseded (as TensorBoard shows them), and the resume
is recorded in ``run.meta["resumes"]`` and in a note.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ...model import Damage, Run, Series
from ...options import ReadOptions
from ..base import ReadError, reader
from ..stream import Stream, extend
from .events import EventStream, data_crc_wanted, decode_file, describe, is_event_file_name, points_to_series


def event_files(folder: Path) -> list[Path]:
    """The event files directly inside ``folder``, in name order."""
    try:
        return sorted(p for p in folder.iterdir() if is_event_file_name(p.name) and p.is_file())
    except OSError:
        return []


SPLITS = ("train", "validation", "eval", "test")  # Keras' TensorBoard callback writes one subfolder each


def _splits(folder: Path) -> dict[str, list[Path]]:
    found = {name: event_files(folder / name) for name in SPLITS if (folder / name).is_dir()}
    return {k: v for k, v in found.items() if v}


def _launches(runs: Path) -> list[Path]:
    """HF Trainer's ``runs/<launch>/`` event files."""
    try:
        subs = sorted(d for d in runs.iterdir() if d.is_dir())
    except OSError:
        return []
    return [f for d in subs for f in event_files(d)]


def run_layout(folder: Path) -> tuple[str, dict[str, list[Path]]] | None:
    """How ``folder`` holds one run's event files: (layout, {tag prefix: files}), or None.

    Only fixed names are looked at below ``folder`` (never a whole subtree), so this
    stays cheap on folders with many files.
    """
    direct = event_files(folder)
    if direct:
        return "files", {"": direct}
    splits = _splits(folder)
    if "train" in splits and len(splits) >= 2:  # train/ plus validation/ (or eval/, test/)
        return "keras", {f"{k}/": v for k, v in splits.items()}
    if folder.name == "runs":
        launches = _launches(folder)
        if launches:
            return "hf-runs", {"": launches}
    return None


def part_of_parent_run(folder: Path) -> bool:
    """A train/ or runs/<launch> subfolder whose parent is read as the run."""
    if folder.name not in SPLITS and folder.parent.name != "runs":
        return False
    parent = run_layout(folder.parent)
    return parent is not None and parent[0] != "files"


def _read_all(files: list[Path], verify_data: bool) -> tuple[list[tuple[Path, Run]], list[str]]:
    runs, unreadable = [], []
    for f in files:
        try:
            pts, damage = decode_file(f, verify_data)
        except ReadError as exc:
            unreadable.append(f"{f.name}: {exc}")
            continue
        run = Run(source=str(f), format="tfevents", files=[str(f)], damage=damage)
        points_to_series(pts, run)
        describe(run, pts)
        runs.append((f, run))
    return runs, unreadable


def _first_wall(run: Run) -> float:
    walls = [float(s.wall.min()) for s in run.series.values() if s.wall is not None and len(s)]
    return min(walls) if walls else float("inf")


def merge_runs(parts: list[tuple[Path, Run]], out: Run) -> None:
    """Merge per-file runs (in writing order) into ``out``; records resumes."""
    acc: dict[str, Series] = {}
    resumes: list[dict[str, Any]] = []
    for path, run in parts:
        superseded, at = 0, None
        for name, s in run.series.items():
            old = acc.get(name)
            if old is None or not len(s):
                acc[name] = s if old is None else old
                continue
            first = float(s.steps.min())
            keep = old.steps < first
            if not keep.all():
                superseded += int((~keep).sum())
                at = first if at is None else min(at, first)
            acc[name] = _concat(name, old, keep, s)
        if at is not None:
            resumes.append({"file": path.name, "at_step": at, "points_superseded": superseded})
        out.damage.extend(
            Damage(d.kind, f"{path.name}: {d.message}", {**d.evidence, "file": path.name}) for d in run.damage
        )
        out.notes.extend(f"{path.name}: {n}" for n in run.notes)
        for key, val in run.meta.items():
            if key == "hparams":
                out.meta.setdefault("hparams", {}).update(val)
            elif key != "resumes":
                out.meta.setdefault(key, val)
    for name, s in acc.items():
        order = np.argsort(s.steps, kind="stable")
        out.series[name] = Series(name, s.steps[order], s.values[order], None if s.wall is None else s.wall[order])
    if resumes:
        out.meta["resumes"] = resumes
        out.notes.append(
            f"{len(resumes)} resume(s) detected: "
            + "; ".join(
                f"{r['file']} restarts at step {r['at_step']:.0f} ({r['points_superseded']} earlier point(s) "
                "superseded)"
                for r in resumes
            )
        )


def _concat(name: str, old: Series, keep: np.ndarray, new: Series) -> Series:
    wall = None
    if old.wall is not None and new.wall is not None:
        wall = np.concatenate([old.wall[keep], new.wall])
    return Series(
        name, np.concatenate([old.steps[keep], new.steps]), np.concatenate([old.values[keep], new.values]), wall
    )


@reader("tfevents-folder", priority=5, folder=True)
class TFEventsFolderReader:
    verify_data = True

    def sniff(self, path: Path, head: bytes) -> bool:
        return path.is_dir() and run_layout(path) is not None

    def stream(self, path: Path, options: ReadOptions) -> EventFolderStream:
        return EventFolderStream(path, data_crc_wanted(self.verify_data, options))

    def read(self, path: Path, options: ReadOptions | None = None) -> Run:
        found = run_layout(Path(path))
        if found is None:
            raise ReadError(
                "no events.out.tfevents.* files in this folder (nor in train/, validation/ or runs/ subfolders)"
            )
        layout, groups = found
        run = Run(source=str(path), format="tfevents")
        for prefix, files in groups.items():
            self._read_group(prefix, files, run, data_crc_wanted(self.verify_data, options))
        if not run.files:
            first = next((n.split(": ", 1)[1] for n in run.notes if n.startswith("unreadable")), "")
            raise ReadError("no readable event file in this folder" + (f" ({first})" if first else ""))
        run.meta["event_files"] = len(run.files)
        run.meta["layout"] = layout
        return run

    def _read_group(self, prefix: str, files: list[Path], run: Run, data_crc: bool) -> None:
        parts, unreadable = _read_all(files, data_crc)
        parts.sort(key=lambda pr: (_first_wall(pr[1]), pr[0].name))
        sub = Run(source=str(prefix), format="tfevents")
        merge_runs(parts, sub)
        run.files.extend(str(f) for f, _ in parts)
        for name, s in sub.series.items():
            full = name if name.startswith(prefix) else prefix + name
            run.series[full] = Series(full, s.steps, s.values, s.wall)
        run.damage.extend(sub.damage)
        run.notes.extend(f"{prefix}{n}" if prefix else n for n in sub.notes)
        run.notes.extend(f"unreadable event file skipped: {msg}" for msg in unreadable)
        for key, val in sub.meta.items():
            if key == "resumes":
                run.meta.setdefault("resumes", []).extend({**r, "group": prefix} if prefix else r for r in val)
            elif key == "hparams":
                run.meta.setdefault("hparams", {}).update(val)
            else:
                run.meta.setdefault(key, val)


class EventFolderStream(Stream):
    """A run folder's event files as they grow, and the files that appear in it later (a restart
    writes a new file beside the old one); series named as the folder reader names them."""

    def __init__(self, path: Path, verify_data: bool = True) -> None:
        self.path, self.fmt, self.verify_data = Path(path), "tfevents", verify_data
        self.files: dict[Path, tuple[str, EventStream]] = {}

    def poll(self) -> Run | None:
        found = run_layout(self.path)
        for prefix, files in (found[1] if found else {}).items():
            for f in files:
                if f not in self.files:
                    self.files[f] = (prefix, EventStream(f, self.verify_data))
        frag = self.fragment()
        for prefix, stream in self.files.values():
            part = stream.poll()
            if part is not None:
                extend(frag, part, prefix)
        return frag if frag.series else None
