"""Robust statistics shared by the rules (numpy only, vectorised)."""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view


def window_for(n: int, frac: float = 0.1, lo: int = 3, hi: int = 200) -> int:
    """A window length that scales with the series: ``frac`` of it, clamped to [lo, hi]."""
    return int(max(lo, min(hi, round(n * frac))))


def rolling_median(values: np.ndarray, window: int, evaluations: int = 4) -> np.ndarray:
    """Trailing rolling median, evaluated every ``window // evaluations`` points and held
    in between (the first window-1 points use the points available so far).

    Evaluating at a stride keeps the cost at O(n * evaluations) instead of O(n * window)
    for long series, and the result is a deterministic function of the array, so a
    finished log and a live run judged on the same points get the same numbers.
    """
    n = len(values)
    if n == 0:
        return values.astype(np.float64, copy=True)
    window = max(1, min(window, n))
    stride = max(1, window // max(1, evaluations))
    ends = np.arange(stride - 1, n, stride)  # evaluate at these indices (inclusive ends)
    if ends[-1] != n - 1:
        ends = np.append(ends, n - 1)
    full = ends[ends >= window - 1]
    out_at = np.empty(len(ends), dtype=np.float64)
    head = ends[ends < window - 1]
    for k, e in enumerate(head):  # expanding medians over the first window: few of them
        out_at[k] = np.median(values[: e + 1])
    if len(full):
        windows = sliding_window_view(values, window)[full - window + 1]
        out_at[len(head):] = np.median(windows, axis=1)
    # hold each evaluation for the points up to the next one
    idx = np.searchsorted(ends, np.arange(n), side="left")
    return out_at[idx]


def mad(values: np.ndarray) -> float:
    """Median absolute deviation, scaled to match a normal standard deviation."""
    if len(values) == 0:
        return 0.0
    med = np.median(values)
    return float(1.4826 * np.median(np.abs(values - med)))


def robust_level(values: np.ndarray, frac: float = 0.1, lo: int = 3) -> float:
    """Median of the trailing ``frac`` of a series (at least ``lo`` points)."""
    k = max(lo, int(round(len(values) * frac)))
    return float(np.median(values[-k:]))


def head_level(values: np.ndarray, frac: float = 0.1, lo: int = 3) -> float:
    """Median of the leading ``frac`` of a series (at least ``lo`` points)."""
    k = max(lo, int(round(len(values) * frac)))
    return float(np.median(values[:k]))


def longest_run(mask: np.ndarray) -> tuple[int, int]:
    """(start index, length) of the longest run of True in ``mask``; (0, 0) if none."""
    if not mask.any():
        return 0, 0
    padded = np.concatenate(([False], mask, [False])).astype(np.int8)
    edges = np.flatnonzero(np.diff(padded))
    starts, ends = edges[::2], edges[1::2]
    i = int(np.argmax(ends - starts))
    return int(starts[i]), int(ends[i] - starts[i])


def fmt(x: float) -> str:
    """A number as findings print it: 4 significant digits."""
    if x is None or not np.isfinite(x):
        return str(x)
    return f"{x:.4g}"
