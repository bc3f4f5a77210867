"""What the framework callbacks share: building the guard and reading scalar metrics."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..live.guard import Guard
from ..live.history import _scalar

LOG_NAME = "trainlint-guard.jsonl"


def make_guard(options: dict[str, Any], output_dir: str | Path | None, meta: dict[str, Any]) -> Guard:
    """A Guard writing its findings to OUTPUT_DIR/trainlint-guard.jsonl (unless log_path given)."""
    opts = dict(options)
    if "log_path" not in opts and output_dir is not None:
        opts["log_path"] = Path(output_dir) / LOG_NAME
    return Guard(meta=meta, **opts)


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
