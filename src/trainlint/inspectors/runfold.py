"""One run, one report: a Hugging Face output folder or a Lightning version folder is judged
as one input.

Discovery finds a run's log (``trainer_state.json`` + event files), its ``checkpoint-N``
folders and every file in them, its final weights and its ``training_args.bin``; each is
judged by its own inspector as before. :func:`plan` groups the discovered items of one HF
output folder behind its log; :func:`fold` then merges their reports into the log's report:
their findings join it (each tagged with the file it is about, ``evidence["part"]``), their
checks and files are added, and ``summary["checkpoints"]`` lists the checkpoints for a
one-line view. Copies of ``training_args.bin`` inside the checkpoints with the same bytes as
one already judged are not judged again. A member that could not be judged stays a report
of its own (its NOT-CHECKED must stay visible).

A Lightning version folder (``lightning_logs/version_N/``: ``metrics.csv`` and/or event files,
``hparams.yaml``, ``checkpoints/*.ckpt``) folds the same way: ``hparams.yaml`` and the
checkpoint files join the run's report, the checkpoints as one line (their steps from the
``step=N`` in Lightning's file names; ``last.ckpt`` and other names listed by name).

A tokenizer in a ``checkpoint-N`` with the same files (and ``config.json``) as the run folder's
own tokenizer, or as another checkpoint's, is not judged again. A checkpoint folder outside
every run folder (an HF save, a DeepSpeed or DCP folder) is one input the same way: its files'
reports fold into the folder's report, whose tensor count becomes theirs.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from msgspec.structs import replace

from ..engine import order_findings
from ..safeio import read_bytes
from ..verdict import Report

if TYPE_CHECKING:
    from ..discover import Item

CHECKPOINT_DIR = re.compile(r"^checkpoint-(\d+)$")
LIGHTNING_VERSION = re.compile(r"^version_\d+$")
LIGHTNING_STEP = re.compile(r"(?:^|[-_])step=(\d+)")


def is_hf_output(folder: Path) -> bool:
    """A Trainer output folder: trainer_state.json, or checkpoint-N folders holding one."""
    if not folder.is_dir():
        return False
    if (folder / "trainer_state.json").is_file():
        return True
    return any(CHECKPOINT_DIR.match(p.parent.name) for p in folder.glob("checkpoint-*/trainer_state.json"))


def is_lightning_version(folder: Path) -> bool:
    """A Lightning logger's version folder: ``version_N`` or one holding ``hparams.yaml``, with
    the logger's ``metrics.csv`` or event files in it."""
    if not folder.is_dir() or not (LIGHTNING_VERSION.match(folder.name) or (folder / "hparams.yaml").is_file()):
        return False
    return (folder / "metrics.csv").is_file() or any(folder.glob("events.out.tfevents*"))


def is_run_root(folder: Path) -> bool:
    return is_hf_output(folder) or is_lightning_version(folder)


def plan(items: Sequence[Item]) -> list[list[Item]]:
    """The items in discovery order, those of one run folder grouped behind its log, those of a
    checkpoint folder outside any run folder behind the folder's own item."""
    roots = [it.path for it in items if it.inspector.kind == "log" and it.inspector.folder and is_run_root(it.path)]
    checkpoint_roots = {it.path for it in items if _checkpoint_root(it, roots)}
    roots += sorted(checkpoint_roots)
    groups: list[list[Item]] = []
    by_root: dict[Path, list[Item]] = {}
    seen: set[bytes] = set()
    for it in items:  # the run folders' own tokenizers first: the checkpoints' copies repeat them
        if it.inspector.kind == "tokenizer" and it.path in roots:
            _repeated_tokenizer(it, it.path, seen)
    for it in items:
        inside = [r for r in roots if it.path == r or r in it.path.parents]
        root = max(inside, key=lambda r: len(r.parts)) if inside else None  # the innermost run
        if root is None or (root in checkpoint_roots and it.inspector.kind != "checkpoint"):
            groups.append([it])  # a checkpoint folder folds its own files only (not a tokenizer beside them)
            continue
        if _repeated_args(it, root, seen) or _repeated_tokenizer(it, root, seen):
            continue
        if root not in by_root:
            by_root[root] = []
            groups.append(by_root[root])
        by_root[root].append(it)
    for group in groups:  # the log (else the folder's own item) first: the others fold into it
        group.sort(key=lambda it: 0 if it.inspector.kind == "log" else 1 if it.inspector.folder else 2)
    return groups


def _checkpoint_root(item: Item, run_roots: list[Path]) -> bool:
    """A checkpoint folder (HF save, DeepSpeed, DCP) outside every run folder: its files fold
    into its report instead of being listed again beside it."""
    if item.inspector.kind != "checkpoint" or not item.inspector.folder:
        return False
    return not any(r == item.path or r in item.path.parents for r in run_roots)


def _repeated_tokenizer(item: Item, root: Path, seen: set[bytes]) -> bool:
    """A tokenizer folder inside a run whose files (and config.json) have the same bytes as one
    already judged in it, or as the run folder's own: the copy every ``checkpoint-N`` holds."""
    if item.inspector.kind != "tokenizer" or not item.path.is_dir():
        return False
    key = _tokenizer_key(item.path, root)
    if key is None:
        return False
    repeated = key in seen and item.path != root  # the run's own tokenizer is always judged
    seen.add(key)
    return repeated


def _tokenizer_key(folder: Path, root: Path) -> bytes | None:
    """A digest of a tokenizer folder's files and config.json; None when one cannot be read."""
    from .tokenizer_folder import TOKENIZER_FILES

    digest = hashlib.sha256(str(root).encode() + b"\0tokenizer")
    for name in (*TOKENIZER_FILES, "config.json"):
        path = folder / name
        try:
            data = read_bytes(path) if path.is_file() else b""
        except OSError:
            return None
        digest.update(name.encode() + b"\0" + str(len(data)).encode() + b"\0" + data)
    return digest.digest()


def _repeated_args(item: Item, root: Path, seen: set[bytes]) -> bool:
    """A training_args.bin whose bytes were already judged in this run (the copies in checkpoint-N)."""
    if item.path.name != "training_args.bin" or not item.path.is_file():
        return False
    try:
        data = read_bytes(item.path)
    except OSError:
        return False
    key = str(root).encode() + b"\0" + item.inspector.kind.encode() + b"\0" + data
    if key in seen:
        return True
    seen.add(key)
    return False


def fold(reports: list[Report], root: Path) -> list[Report]:
    """Merge the reports of one HF output folder into its log report (see the module doc)."""
    # the run's report: its log's, or with doctor --baseline its comparison's (one per run)
    main = next((r for r in reports if r.kind in ("log", "comparison") and Path(r.source) == root), None)
    if main is None:
        return _fold_checkpoint(reports, root)
    out, members = _absorb_members(main, reports, root)
    for f in main.findings:  # a check that fired on one file did not stand down for the run
        if f.severity.value in ("FAIL", "WARN"):
            main.checks.stood_down.pop(f.code, None)
    rank = {"FAIL": 0, "WARN": 1, "NOTE": 2}
    main.findings.sort(key=lambda f: rank.get(f.severity.value, 3))
    order_findings(main.findings)  # a cause ahead of what it explains, as the log report had it
    if members:
        main.summary["checkpoints"] = _checkpoints(members, root)
        main.summary["parts"] = [
            {
                "part": _part(m, root),
                "kind": m.kind,
                "format": m.format,
                "verdict": m.verdict.value,
            }
            for m in members
        ]
    return out


def _absorb_members(main: Report, reports: list[Report], root: Path) -> tuple[list[Report], list[Report]]:
    """Fold the judged checkpoint and config reports of ``reports`` into ``main``: (the reports
    that stay, ``main`` first; the ones folded in)."""
    out, members = [main], []
    for rep in reports:
        if rep is main:
            continue
        if rep.kind not in ("checkpoint", "environment") or rep.unjudged is not None:
            out.append(rep)
            continue
        members.append(rep)
        _absorb(main, rep, _part(rep, root))
    return out, members


def _fold_checkpoint(reports: list[Report], root: Path) -> list[Report]:
    """A checkpoint folder's file reports merged into the folder's report; its tensor count
    becomes theirs (the folder's own inspection reads no tensors)."""
    main = next((r for r in reports if r.kind == "checkpoint" and Path(r.source) == root), None)
    if main is None:
        return reports
    out, members = _absorb_members(main, reports, root)
    if members:
        tensors = [m.summary.get("tensors") for m in members]
        main.summary["tensors"] = (main.summary.get("tensors") or 0) + sum(t for t in tensors if isinstance(t, int))
        main.summary["parts"] = [
            {"part": _part(m, root), "kind": m.kind, "format": m.format, "verdict": m.verdict.value} for m in members
        ]
    return out


def _part(rep: Report, root: Path) -> str:
    src = Path(rep.source.split("#")[0])
    try:
        rel = src.relative_to(root).as_posix()
    except ValueError:
        return rep.source
    return rel if rel != "." else "./"


def _absorb(main: Report, rep: Report, part: str) -> None:
    origin = "run" if main.kind == "comparison" else None  # a compared run's own files
    for f in rep.findings:
        main.findings.append(replace(f, evidence={**f.evidence, "part": part}, origin=origin))
    for code in rep.checks.ran:
        if code not in main.checks.ran:
            main.checks.ran.append(code)
    for code, why in rep.checks.stood_down.items():
        main.checks.stood_down.setdefault(code, why)
    for code, why in rep.checks.not_checked.items():
        if code not in main.checks.ran:
            main.checks.not_checked.setdefault(code, why)
    for code in main.checks.ran:
        main.checks.not_checked.pop(code, None)
    for path in rep.files or [rep.source]:
        if path not in main.files:
            main.files.append(path)
    main.notes.extend(f"{part}: {n}" for n in rep.notes)


def _checkpoints(members: list[Report], root: Path) -> dict[str, Any]:
    """The checkpoint-N folders (HF) or checkpoint files (Lightning): their steps, whether any
    of their files has a FAIL/WARN finding, and whether every tensor file's values were scanned."""
    steps: dict[int, list[Report]] = {}
    named: dict[str, list[Report]] = {}
    for m in members:
        key = _checkpoint_of(Path(m.source.split("#")[0]), root)
        if isinstance(key, int):
            steps.setdefault(key, []).append(m)
        elif key is not None:
            named.setdefault(key, []).append(m)
    groups = [*steps.items(), *named.items()]
    bad = [s for s, reps in groups if any(r.verdict.value in ("FAIL", "WARN") for r in reps)]
    scanned = all(r.summary.get("values_scanned") for _, reps in groups for r in reps if r.summary.get("tensors"))
    out: dict[str, Any] = {"steps": sorted(steps), "with_findings": bad, "values_scanned": scanned}
    if named:
        out["named"] = sorted(named)
    return out


def _checkpoint_of(path: Path, root: Path) -> int | str | None:
    """The step of the checkpoint ``path`` belongs to (HF ``checkpoint-N/``, Lightning
    ``checkpoints/epoch=E-step=N.ckpt``), its file name when it has no step, or None."""
    for parent in (path, *path.parents):
        match = CHECKPOINT_DIR.match(parent.name)
        if match and parent.parent == root:
            return int(match.group(1))
        if parent == root:
            break
    if path.parent == root / "checkpoints" and path.is_file():
        match = LIGHTNING_STEP.search(path.stem)
        return int(match.group(1)) if match else path.name
    return None
