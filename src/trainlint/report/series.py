"""``trainlint series``: what was read from a log, one entry per metric.

Each series: its role, points, step range, start → end, min (at step), max (at step) and a
sparkline (min/max-preserving, so spikes and NaNs show). ``--values`` adds every step and value
to the JSON."""

from __future__ import annotations

import sys
from typing import IO, Any

from ..verdict import Report, Result
from .common import fmt_num, fmt_step
from .json_out import write_json

ROLES_EXPECTED = ("loss", "eval_loss", "learning_rate", "grad_norm")


def _int_step(x: Any) -> int | float:
    x = float(x)
    return int(x) if x.is_integer() else x


def series_rows(run: Any, values: bool = False) -> list[dict[str, Any]]:
    """One dict per series (the ``series`` key of ``trainlint series --format json``)."""
    import numpy as np

    by_name = {name: role for role, name in run.roles.items()}
    rows = []
    for name, s in run.series.items():
        steps, vals = (
            np.asarray(s.steps, dtype=float),
            np.asarray(s.values, dtype=float),
        )
        ok = np.isfinite(vals)
        row: dict[str, Any] = {
            "name": name,
            "role": by_name.get(name),
            "points": len(s),
            "non_finite": int((~ok).sum()),
            "first_step": _int_step(steps[0]) if len(s) else None,
            "last_step": _int_step(steps[-1]) if len(s) else None,
            "start": None,
            "end": None,
            "min": None,
            "min_step": None,
            "max": None,
            "max_step": None,
            "has_wall_time": s.wall is not None,
        }
        if ok.any():
            fin_steps, fin = steps[ok], vals[ok]
            lo, hi = int(np.argmin(fin)), int(np.argmax(fin))
            row.update(
                {
                    "start": float(fin[0]),
                    "end": float(vals[-1]) if len(vals) else None,
                    "min": float(fin[lo]),
                    "min_step": _int_step(fin_steps[lo]),
                    "max": float(fin[hi]),
                    "max_step": _int_step(fin_steps[hi]),
                }
            )
        if values:
            row["steps"] = [_int_step(x) for x in steps]
            row["values"] = vals.tolist()
        rows.append(row)
    return rows


def describe_run(run: Any, values: bool = False) -> dict[str, Any]:
    from ..model import run_title

    out = {
        "source": run.source,
        "format": run.format,
        "files": run.files,
        "notes": run.notes,
        "meta": run.meta,
        "series": series_rows(run, values),
    }
    title = run_title(run.meta)
    if title:
        out["title"] = title
    return out


def render_series_text(run: Any, stream: IO[str]) -> None:
    from ..downsample import minmax_downsample, spark
    from ..model import run_title

    title = run_title(run.meta)
    head = f"{title}  {run.source}" if title else run.source
    stream.write(f"{head}  ({run.format})\n")
    for r, s in zip(series_rows(run), run.series.values()):
        role = f" [{r['role']}]" if r["role"] else ""
        bad = f", {r['non_finite']} non-finite" if r["non_finite"] else ""
        stream.write(
            f"  {r['name']}{role}  {r['points']} points, steps "
            f"{fmt_step(r['first_step'])}-{fmt_step(r['last_step'])}{bad}\n"
        )
        if r["min"] is None:
            stream.write("      no finite values\n")
            continue
        _, vals = minmax_downsample(s.steps, s.values, 200)
        drawn = spark(vals, 16)
        stream.write(
            f"      {drawn.text}{' (log)' if drawn.log else ''}  {fmt_num(r['start'])} → {fmt_num(r['end'])}"
            f"   min {fmt_num(r['min'])} @{fmt_step(r['min_step'])}"
            f"   max {fmt_num(r['max'])} @{fmt_step(r['max_step'])}\n"
        )
    missing = [role for role in ROLES_EXPECTED if role not in run.roles]
    if missing:
        stream.write("  roles not found: " + ", ".join(missing) + "\n")
    for note in run.notes:
        stream.write(f"  note: {note}\n")


def render_series(runs: list[Any], fmt: str = "text", stream: IO[str] | None = None, values: bool = False) -> None:
    out = stream or sys.stdout
    if fmt == "json":
        items = [describe_run(run, values) for run in runs]
        extra = items[0] if len(items) == 1 else {"runs": items}
        write_json(Result(command="series", extra=extra).to_dict(), out, strict=False, default=str)
        return
    for run in runs:
        render_series_text(run, out)


def render_series_unread(path: str, reason: str, fmt: str = "text", stream: IO[str] | None = None) -> int:
    """A log that could not be read: NOT-CHECKED with the reason; returns the exit code."""
    out = stream or sys.stdout
    result = Result(command="series", reports=[Report(str(path), "log", unjudged=reason)])
    if fmt == "json":
        write_json(result.to_dict(), out, strict=False, newline=False)
    else:
        out.write(f"NOT-CHECKED  {path}: {reason}\n")
    return result.exit_code
