"""``trainlint series``: what was read from a log and how each metric was mapped to a role."""

from __future__ import annotations

import sys
from typing import IO, Any

from ..verdict import Report, Result
from .json_out import write_json

ROLES_SHOWN = ("loss", "eval_loss", "learning_rate", "grad_norm")


def series_rows(run: Any) -> list[dict[str, Any]]:
    """One row per series: its role, length, step range, finite min/max."""
    import numpy as np

    by_name = {name: role for role, name in run.roles.items()}
    rows = []
    for name, s in run.series.items():
        fin = s.finite().values
        rows.append(
            {
                "name": name,
                "role": by_name.get(name),
                "points": len(s),
                "non_finite": int(len(s) - len(fin)),
                "first_step": float(s.steps[0]) if len(s) else None,
                "last_step": float(s.steps[-1]) if len(s) else None,
                "min": float(np.min(fin)) if len(fin) else None,
                "max": float(np.max(fin)) if len(fin) else None,
                "has_wall_time": s.wall is not None,
            }
        )
    return rows


def describe_run(run: Any) -> dict[str, Any]:
    return {
        "source": run.source,
        "format": run.format,
        "files": run.files,
        "notes": run.notes,
        "meta": run.meta,
        "series": series_rows(run),
    }


def render_series(runs: list[Any], fmt: str = "text", stream: IO[str] | None = None) -> None:
    out = stream or sys.stdout
    if fmt == "json":
        items = [describe_run(run) for run in runs]
        extra = items[0] if len(items) == 1 else {"runs": items}
        write_json(Result(command="series", extra=extra).to_dict(), out, strict=False, default=str)
        return
    for run in runs:
        _print(run, out)


def render_series_unread(path: str, reason: str, fmt: str = "text", stream: IO[str] | None = None) -> int:
    """A log that could not be read: NOT-CHECKED with the reason; returns the exit code."""
    out = stream or sys.stdout
    result = Result(command="series", reports=[Report(str(path), "log", unjudged=reason)])
    if fmt == "json":
        write_json(result.to_dict(), out, strict=False, newline=False)
    else:
        out.write(f"NOT-CHECKED  {path}: {reason}\n")
    return result.exit_code


def _print(run: Any, out: IO[str]) -> None:
    out.write(f"{run.source}  ({run.format})\n")
    for r in series_rows(run):
        role = r["role"] or "-"
        rng = f"{r['min']:.4g}..{r['max']:.4g}" if r["min"] is not None else "no finite values"
        out.write(
            f"  {r['name']:<32} {role:<14} {r['points']:>7} pts  steps {r['first_step']:g}-{r['last_step']:g}"
            f"  {rng}" + (f"  ({r['non_finite']} non-finite)" if r["non_finite"] else "") + "\n"
        )
    missing = [role for role in ROLES_SHOWN if role not in run.roles]
    if missing:
        out.write("  roles not found: " + ", ".join(missing) + "\n")
    for note in run.notes:
        out.write(f"  note: {note}\n")
