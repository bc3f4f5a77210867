"""What ``trainlint ckpt`` does, callable from Python: judge each path, and the drift of a pair."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..checkpoint.model import Inspection
from ..config import Settings
from ..verdict import Report, Result, signal_of
from .checkpoint_judge import inspect_and_judge, judge


def _paths_under(path: Path) -> list[Path]:
    """A file itself; for a folder, the folder when it is a checkpoint layout (HF, DCP, DeepSpeed)
    and every checkpoint file and checkpoint folder under it."""
    from ..checkpoint.folders import folder_kind
    from ..discover import walk

    if path.is_file() or not path.exists():
        return [path]
    found = [path] if folder_kind(path) else []
    for item in walk(path, kinds={"checkpoint"}):
        if item.path != path:
            found.append(item.path)
    return found


def run_ckpt(
    paths: Sequence[str | Path],
    settings: Settings | None = None,
    values: bool | None = None,
    crc: bool | None = None,
    show_tensors: bool = False,
    diff: bool = False,
) -> Result:
    result = Result(command="ckpt")
    try:
        _judge_each(result, paths, settings, values, crc, show_tensors)
    except KeyboardInterrupt as exc:  # SIGINT or SIGTERM: the checkpoints judged so far (issue 33)
        result.interrupted = signal_of(exc)
        return result
    if diff:
        a, b = (Path(p) for p in paths)
        result.reports.append(drift_report(a, b, settings, digest=values))
    return result


def _judge_each(
    result: Result, paths: Any, settings: Any, values: bool | None, crc: bool | None, show_tensors: bool
) -> None:
    for raw in paths:
        from ..safeio import file_kind, not_regular_reason

        found = _paths_under(Path(raw))
        if not found:
            kind = file_kind(raw)
            why = not_regular_reason(kind) if kind not in ("file", "dir", "missing") else "no checkpoint found here"
            result.reports.append(Report(source=str(raw), kind="checkpoint", unjudged=why))
        for p in found:
            insp, report = inspect_and_judge(p, settings, values=values, crc=crc)
            if show_tensors:
                report.summary["tensor_table"] = tensor_table(
                    insp if insp is not None and insp.tensors else tensors_of(p)
                )
            result.reports.append(report)


def tensors_of(path: Path, digest: bool | None = False) -> Inspection | None:
    """The tensor-bearing inspection of a file, an index, or an HF folder's weights."""
    from ..checkpoint.files import inspect_file
    from ..checkpoint.folders import WEIGHT_NAMES, inspect_index

    if path.is_dir():
        idx = sorted(path.glob("*.index.json"))
        weights = [path / n for n in WEIGHT_NAMES if (path / n).is_file()]
        path = idx[0] if idx else weights[0] if weights else path
    if path.is_dir() or not path.exists():
        return None
    if path.name.endswith(".index.json"):
        return inspect_index(path, digest=digest)
    return inspect_file(path, values=False, crc=False, digest=digest)


def drift_report(a: Path, b: Path, settings: Settings | None = None, digest: bool | None = None) -> Report:
    """Keys, shapes and dtypes of two checkpoints compared; with ``digest`` (None: automatic by
    size) also which tensors' bytes are unchanged."""
    from ..checkpoint.drift import drift

    ia, ib = tensors_of(a, digest), tensors_of(b, digest)
    if ia is None or not ia.tensors or ib is None or not ib.tensors:
        p = a if ia is None or not ia.tensors else b
        return Report(
            source=f"{a} -> {b}", kind="comparison", unjudged=f"no tensor table read from {p}; cannot compare"
        )
    return judge(drift(ia, ib), settings)


def tensor_table(insp: Inspection | None) -> list[dict[str, Any]]:
    """One row per tensor: name, dtype, shape, bytes, file offset, complete, and value stats when scanned."""
    if insp is None:
        return []
    rows = []
    for t in insp.tensors:
        row = {
            "name": t.name,
            "dtype": t.dtype,
            "shape": list(t.shape),
            "bytes": t.nbytes,
            "offset": t.file_offset,
            "complete": t.complete,
        }
        if t.file:
            row["file"] = t.file
        if t.stats is not None:
            row.update({k: t.stats[k] for k in ("min", "max", "mean", "nan", "inf", "all_zero")})
        rows.append(row)
    return rows
