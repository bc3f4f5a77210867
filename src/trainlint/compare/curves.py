"""Curves of a comparison, for renderers: the run's own curves and its baseline on the run's axis.

The baseline is placed the way ``align`` compared it: step for step, or by fraction of
training rescaled to the run's planned length. One baseline run is drawn as its own
(min/max-downsampled) curve; several become a band: their minimum, maximum and median on a
common grid of positions.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..engine import CURVE_ROLES, curves_of
from ..model import Run
from .align import Alignment

BAND_POINTS = 400


def comparison_curves(run: Run, baselines: list[Run], al: Alignment) -> dict[str, dict[str, Any]]:
    out = curves_of(run)
    for role in CURVE_ROLES:
        if role not in out:
            continue
        placed = [p for p in (_placed(run, b, role, al) for b in baselines) if p is not None]
        if len(placed) == 1:
            out[f"baseline:{role}"] = _single(placed[0])
        elif placed:
            out[f"baseline:{role}"] = _band(placed)
    return out


Placed = tuple[np.ndarray, np.ndarray, str]


def _placed(run: Run, base: Run, role: str, al: Alignment) -> Placed | None:
    """(positions on the run's step axis, values, series name) of one baseline run's ``role``."""
    s = base.get(role)
    if s is None or not len(s):
        return None
    x = al.position(base, s.steps)
    if al.mode != "step":
        x = x * (al.lengths.get(run.source) or 1.0)
    order = np.argsort(x, kind="stable")
    return x[order], np.asarray(s.values, dtype=np.float64)[order], s.name


def _single(placed: Placed) -> dict[str, Any]:
    from ..downsample import minmax_downsample

    x, v, name = placed
    steps, values = minmax_downsample(x, v, 1000)
    return {
        "name": f"baseline {name}",
        "points": len(v),
        "runs": 1,
        "steps": steps.tolist(),
        "values": values.tolist(),
    }


def _band(placed: list[Placed]) -> dict[str, Any]:
    lo = max(float(x[0]) for x, _v, _n in placed)
    hi = min(float(x[-1]) for x, _v, _n in placed)
    if hi <= lo:
        lo, hi = (
            min(float(x[0]) for x, _v, _n in placed),
            max(float(x[-1]) for x, _v, _n in placed),
        )
    grid = np.linspace(lo, hi, BAND_POINTS)
    rows = []
    for x, v, _n in placed:
        ok = np.isfinite(v)
        rows.append(np.interp(grid, x[ok], v[ok]) if ok.any() else np.full(len(grid), np.nan))
    table = np.vstack(rows)
    with np.errstate(all="ignore"):
        return {
            "name": f"baseline band ({len(placed)} runs)",
            "points": len(grid),
            "runs": len(placed),
            "steps": grid.tolist(),
            "values": np.nanmedian(table, axis=0).tolist(),
            "lo": np.nanmin(table, axis=0).tolist(),
            "hi": np.nanmax(table, axis=0).tolist(),
        }
