"""Min/max-preserving downsampling of one metric series, for drawing and for agents.

A curve of a million points is drawn from a few hundred; the points kept must still show
every spike and every non-finite value. The index range is cut into equal buckets; each
bucket keeps its lowest and its highest finite point, in step order, and a bucket that holds
a NaN or an infinity keeps its first non-finite point in place of the lowest one. Used by the
sparkline, the HTML page and the MCP ``series`` tool, so all three show the same shape.
"""

from __future__ import annotations

from typing import NamedTuple

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


class Spark(NamedTuple):
    """A drawn sparkline and what the reader must be told about its scale: ``log`` when the
    cells are drawn on a log scale, ``above`` the cells drawn ``↑`` (a spike above the scale)."""

    text: str
    log: bool
    above: tuple[int, ...]


BLOCKS = "▁▂▃▄▅▆▇█"
ABOVE = "↑"  # a spike drawn above the scale, so the rest keeps its shape
LOG_SPAN = 100.0  # max / min beyond which the cells are drawn on a log scale
SPIKE = 3.0  # a spike rises more than this many times the rest's range above the rest
MAX_SPIKES = 2  # more such cells are an oscillation, drawn on the full scale


def sparkline(values: np.ndarray, width: int = 12) -> str:
    """One line of block characters for a series (see :func:`spark`)."""
    return spark(values, width).text


def spark(values: np.ndarray, width: int = 12) -> Spark:
    """One line of block characters for a series; ``!`` marks a cell holding a non-finite value.

    A series longer than ``width`` is folded into ``width`` cells: the last cell is the last
    point (the end level), each other cell shows its first non-finite value, else its value
    farthest from the series' median, so spikes stay visible. Finite values spanning more than
    two orders of magnitude (all positive) are drawn on a log scale; otherwise one or two
    isolated spikes that would flatten the rest are drawn ``↑`` and the rest on its own scale."""
    values = np.asarray(values, dtype=np.float64)
    if len(values) == 0:
        return Spark("", False, ())
    if len(values) > width:
        values = np.append(_fold(values[:-1], width - 1), values[-1]) if width > 1 else _fold(values, width)
    ok = np.isfinite(values)
    if not ok.any():
        return Spark("!" * len(values), False, ())
    finite = values[ok]
    lo, hi = float(finite.min()), float(finite.max())
    log = lo > 0 and hi / lo > LOG_SPAN
    if log:
        values = np.where(ok, np.log(np.where(ok & (values > 0), values, 1.0)), values)
        lo, hi = float(np.log(lo)), float(np.log(hi))
        above: tuple[int, ...] = ()
    else:
        above = _spikes(values, lo, hi)
        if above:
            hi = float(np.delete(values, above)[np.isfinite(np.delete(values, above))].max())
    span = hi - lo
    out = []
    for i, v in enumerate(values):
        if not np.isfinite(v):
            out.append("!")
        elif i in above:
            out.append(ABOVE)
        else:
            out.append(BLOCKS[0 if span == 0 else int(round((v - lo) / span * (len(BLOCKS) - 1)))])
    return Spark("".join(out), log, above)


def _spikes(cells: np.ndarray, lo: float, hi: float) -> tuple[int, ...]:
    """The interior cells (at most MAX_SPIKES) that stand above both neighbours by more than
    half the range, when the rest moves (its range at least 5 % of its level) and the spikes
    rise more than SPIKE times that range above it; () otherwise."""
    n = len(cells)
    if n < 4 or hi == lo:
        return ()
    filled = np.where(np.isfinite(cells), cells, lo)
    found = tuple(i for i in range(1, n - 1) if filled[i] - max(filled[i - 1], filled[i + 1]) > 0.5 * (hi - lo))
    if not found or len(found) > MAX_SPIKES:
        return ()
    rest = np.delete(cells, found)
    rest = rest[np.isfinite(rest)]
    r_lo, r_hi = float(rest.min()), float(rest.max())
    level = max(abs(r_lo), abs(r_hi))
    if r_hi - r_lo < 0.05 * level or hi - r_hi <= SPIKE * (r_hi - r_lo):
        return ()
    return found


def _fold(values: np.ndarray, width: int) -> np.ndarray:
    finite = np.isfinite(values)
    med = float(median(values[finite])) if finite.any() else 0.0
    out = np.empty(width)
    for i, cell in enumerate(np.array_split(values, width)):
        bad = ~np.isfinite(cell)
        out[i] = cell[np.argmax(bad)] if bad.any() else cell[np.argmax(np.abs(cell - med))]
    return out
