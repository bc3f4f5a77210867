"""What the framework callbacks share: building the guard and reading scalar metrics.

Under data-parallel training (DDP: one process per device) every rank builds a guard and feeds
it the same records, but only the main process (global rank 0) writes the guard's log and
applies the stop policy; the callbacks share its decision with every rank at the step it is
taken, and its closing report at the end."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..live.guard import Guard, StopPolicy
from ..live.history import _scalar

LOG_NAME = "trainlint-guard.jsonl"


def log_path(options: dict[str, Any], output_dir: str | Path | None) -> Path | None:
    """Where the guard's log goes: the ``log_path`` option, else OUTPUT_DIR/trainlint-guard.jsonl."""
    given = options.get("log_path")
    if given is not None:
        return Path(given)
    return Path(output_dir) / LOG_NAME if output_dir is not None else None


def make_guard(
    options: dict[str, Any], output_dir: str | Path | None, meta: dict[str, Any], *, main: bool = True
) -> Guard:
    """A Guard writing its findings to OUTPUT_DIR/trainlint-guard.jsonl (unless log_path given).
    On a rank other than the main one (``main`` false) the guard writes nothing and stops
    nothing: it keeps the records, the main process decides."""
    opts = dict(options, log_path=log_path(options, output_dir))
    if not main:
        opts.update(log_path=None, stop_on=None, on_finding=None)
    return Guard(meta=meta, **opts)


def can_stop(options: dict[str, Any]) -> bool:
    """Whether a guard built from ``options`` may ever ask to stop (the same on every rank: a
    rank that may not skips the collective that shares the decision, and so do all)."""
    return bool(StopPolicy.of(options.get("stop_on")).stop_on)


def scalars(metrics: dict[str, Any] | None) -> dict[str, float]:
    """The real-number entries of a metrics dict (tensors and numpy scalars converted)."""
    out = {}
    for k, v in (metrics or {}).items():
        if type(v) in (int, float):
            out[k] = float(v)
        else:
            f = _scalar(v)
            if f is not None:
                out[k] = f
    return out
