"""Min/max-preserving downsampling of one metric series, for drawing and for agents.

A curve of a million points is drawn from a few hundred; the points kept must still show
every spike and every non-finite value. The index range is cut into equal buckets; each
bucket keeps its lowest and its highest finite point, in step order, and a bucket that holds
a NaN or an infinity keeps its first non-finite point in place of the lowest one. Used by the
sparkline, the HTML page and the MCP ``series`` tool, so all three show the same shape.
"""

from __future__ import annotations

import numpy as np

from .arrays import median, unique


def minmax_downsample(steps: np.ndarray, values: np.ndarray, max_points: int = 500) -> tuple[np.ndarray, np.ndarray]:
    """Return at most ``max_points`` (steps, values) pairs that keep the series' extremes.

    A series of ``max_points`` points or fewer is returned whole (as copies)."""
    steps = np.asarray(steps)
    values = np.asarray(values, dtype=np.float64)
    n = len(values)
    if max_points < 2:
        raise ValueError("max_points must be at least 2")
    if n <= max_points:
        return steps.copy(), values.copy()
    keep = _kept_indices(values, max_points // 2)
    return steps[keep], values[keep]


def _kept_indices(values: np.ndarray, buckets: int) -> np.ndarray:
    n = len(values)
    width = -(-n // buckets)  # ceil
    full = n // width  # whole buckets; the last, shorter one is judged on its own
    parts = [_extremes(values[: full * width].reshape(full, width)) + np.arange(full)[:, None] * width]
    if full * width < n:
        parts.append(_extremes(values[full * width :].reshape(1, -1)) + full * width)
    return unique(np.concatenate(parts))


def _extremes(grid: np.ndarray) -> np.ndarray:
    """Per row: (index of its lowest finite value, or of its first non-finite one; index of its
    highest finite value, or that same index when it has none)."""
    finite = np.isfinite(grid)
    if finite.all():  # the common case: no masked copies
        return np.stack([grid.argmin(axis=1), grid.argmax(axis=1)], axis=1)
    lo = np.argmin(np.where(finite, grid, np.inf), axis=1)
    hi = np.argmax(np.where(finite, grid, -np.inf), axis=1)
    bad = ~finite
    lo = np.where(bad.any(axis=1), np.argmax(bad, axis=1), lo)
    hi = np.where(finite.any(axis=1), hi, lo)
    return np.stack([lo, hi], axis=1)


def sparkline(values: np.ndarray, width: int = 12) -> str:
    """One line of block characters for a series; ``!`` marks a cell holding a non-finite value.

    A series longer than ``width`` is folded into ``width`` cells; each cell shows its first
    non-finite value, else its value farthest from the series' median, so spikes stay visible."""
    blocks = "▁▂▃▄▅▆▇█"
    values = np.asarray(values, dtype=np.float64)
    if len(values) == 0:
        return ""
    if len(values) > width:
        values = _fold(values, width)
    finite = values[np.isfinite(values)]
    if len(finite) == 0:
        return "!" * len(values)
    lo, hi = float(finite.min()), float(finite.max())
    span = hi - lo
    out = []
    for v in values:
        if not np.isfinite(v):
            out.append("!")
        else:
            out.append(blocks[0 if span == 0 else int(round((v - lo) / span * (len(blocks) - 1)))])
    return "".join(out)


def _fold(values: np.ndarray, width: int) -> np.ndarray:
    finite = np.isfinite(values)
    med = float(median(values[finite])) if finite.any() else 0.0
    out = np.empty(width)
    for i, cell in enumerate(np.array_split(values, width)):
        bad = ~np.isfinite(cell)
        out[i] = cell[np.argmax(bad)] if bad.any() else cell[np.argmax(np.abs(cell - med))]
    return out
