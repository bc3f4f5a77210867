"""Robust statistics shared by the rules (numpy only, vectorised)."""

from __future__ import annotations

from typing import Protocol

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ..arrays import median as median  # the rules' medians and quantiles, without numpy.ma
from ..arrays import quantiles as quantiles
from ..model import Run, RunMeta


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
        out_at[k] = median(values[: e + 1])
    if len(full):
        windows = sliding_window_view(values, window)[full - window + 1]
        out_at[len(head) :] = median(windows, axis=1)
    # hold each evaluation for the points up to the next one
    idx = np.searchsorted(ends, np.arange(n), side="left")
    return out_at[idx]


def mad(values: np.ndarray) -> float:
    """Median absolute deviation, scaled to match a normal standard deviation."""
    if len(values) == 0:
        return 0.0
    med = median(values)
    return float(1.4826 * median(np.abs(values - med)))


def robust_level(values: np.ndarray, frac: float = 0.1, lo: int = 3) -> float:
    """Median of the trailing ``frac`` of a series (at least ``lo`` points)."""
    k = max(lo, int(round(len(values) * frac)))
    return float(median(values[-k:]))


def head_level(values: np.ndarray, frac: float = 0.1, lo: int = 3) -> float:
    """Median of the leading ``frac`` of a series (at least ``lo`` points)."""
    k = max(lo, int(round(len(values) * frac)))
    return float(median(values[:k]))


def longest_run(mask: np.ndarray) -> tuple[int, int]:
    """(start index, length) of the longest run of True in ``mask``; (0, 0) if none."""
    if not mask.any():
        return 0, 0
    padded = np.concatenate(([False], mask, [False])).astype(np.int8)
    edges = np.flatnonzero(np.diff(padded))
    starts, ends = edges[::2], edges[1::2]
    i = int(np.argmax(ends - starts))
    return int(starts[i]), int(ends[i] - starts[i])


def trailing_run(mask: np.ndarray) -> int:
    """How many points at the end of ``mask`` are True (all of them when every one is)."""
    false = np.flatnonzero(~mask)
    return len(mask) - 1 - int(false[-1]) if len(false) else len(mask)


def fmt(x: float) -> str:
    """A number as findings print it: 4 significant digits."""
    if x is None or not np.isfinite(x):
        return str(x)
    return f"{x:.4g}"


def fstep(x: float) -> str:
    """A step (or a count of steps) as findings print it: whole numbers in full."""
    if x is None or not np.isfinite(x):
        return str(x)
    return str(int(x)) if float(x).is_integer() else f"{x:.6g}"


# --- helpers added for the full rule set (all O(n) or O(n log n)) -------------------------

COARSE_POINTS = 2000  # trend rules look at most at this many block medians


class KeptBlocks(Protocol):
    """What :func:`coarse` reads of the whole blocks' medians a live run keeps
    (``kept.CoarseBlocks``): the medians of the whole blocks of ``b`` points of ``values``."""

    def update(self, values: np.ndarray, b: int) -> np.ndarray: ...


def coarse_size(n: int, max_points: int = COARSE_POINTS) -> int:
    """The block size of :func:`coarse` for ``n`` points: the smallest power of two that makes
    at most ``max_points`` blocks. It only changes when the series doubles, so the medians of
    the whole blocks (aligned from its start) stay as they are until then (a live run keeps them)."""
    b = 1
    while -(-n // b) > max_points:
        b *= 2
    return b


def coarse(
    steps: np.ndarray, values: np.ndarray, max_points: int = COARSE_POINTS, kept: KeptBlocks | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Block medians of a long series (blocks of :func:`coarse_size` points from its start, the
    last one partial, at the step in each one's middle); a series of at most ``max_points`` unchanged.

    Trend rules (divergence, plateau, overfit ...) only need the shape of a curve; a
    million points reduce to a few thousand block medians in O(n log b). ``kept``: the whole
    blocks' medians kept on a live run (``kept.coarse_of``), the same numbers."""
    n = len(values)
    if n <= max_points:
        return steps, values
    key = (id(values), id(steps), n, max_points)
    hit = _COARSE_CACHE.get(key)
    if hit is not None and hit[0] is values and hit[1] is steps:
        return hit[2], hit[3]
    s, v = _coarse(steps, values, max_points, kept)
    if len(_COARSE_CACHE) >= 8:
        _COARSE_CACHE.pop(next(iter(_COARSE_CACHE)))
    _COARSE_CACHE[key] = (values, steps, s, v)  # holds the arrays, so their ids stay unique
    return s, v


_COARSE_CACHE: dict[tuple[int, int, int, int], tuple[np.ndarray, ...]] = {}


def _coarse(
    steps: np.ndarray, values: np.ndarray, max_points: int, kept: KeptBlocks | None
) -> tuple[np.ndarray, np.ndarray]:
    n = len(values)
    b = coarse_size(n, max_points)
    m = n // b
    v = np.array(kept.update(values, b)) if kept is not None else block_medians(values, b)
    s = steps[b // 2 : m * b : b]
    if n > m * b:
        v = np.append(v, median(values[m * b :]))
        s = np.append(s, steps[m * b + (n - m * b) // 2])
    return s, v


def block_medians(values: np.ndarray, b: int, start: int = 0) -> np.ndarray:
    """The medians of the whole blocks of ``b`` points of ``values``, from block ``start`` on."""
    m = len(values) // b
    if m <= start:
        return np.empty(0)
    out: np.ndarray = median(values[start * b : m * b].reshape(m - start, b), axis=1)
    return out


def noise(values: np.ndarray) -> float:
    """Robust point-to-point noise (sigma) of a series, insensitive to its trend."""
    if len(values) < 3:
        return 0.0
    return float(1.4826 * median(np.abs(np.diff(values))) / np.sqrt(2.0))


def neighbour_noise(values: np.ndarray) -> float:
    """Robust evaluation-to-evaluation noise (sigma) of a short curve: the scaled MAD of each
    interior point's departure from the line through its two neighbours. A straight or steadily
    bending stretch departs by nothing (or by the same amount, which the MAD removes), so a
    curve that falls and then climbs has no noise but at its turn; independent noise of sigma
    departs by sigma * sqrt(1.5). 0.0 under 3 points."""
    if len(values) < 3:
        return 0.0
    off = values[1:-1] - (values[:-2] + values[2:]) / 2.0
    return float(mad(off) / np.sqrt(1.5))


def level_se(sigma: float, k: int) -> float:
    """Standard error of the median of ``k`` points with noise ``sigma``."""
    se: float = 1.2533 * sigma / np.sqrt(max(k, 1))  # a numpy float, a float subclass
    return se


def local_stats(
    values: np.ndarray, window: int, exact_limit: int = 4000, spread: bool = True
) -> tuple[np.ndarray, np.ndarray | None]:
    """Per-point robust baseline: (median, scaled MAD or None) of a centred window.

    Exact sliding windows for short series; for long ones, the statistics of
    the block (of ``window`` points) each point falls in, which keeps it O(n log w)."""
    n = len(values)
    window = max(3, min(window, n))
    if not blockwise(n, window, exact_limit):
        win = sliding_window_view(values, window)
        med = median(win, axis=1)
        dev = median(np.abs(win - med[:, None]), axis=1) * 1.4826 if spread else None
        half = window // 2
        pad = (half, n - len(med) - half)
        return np.pad(med, pad, mode="edge"), None if dev is None else np.pad(dev, pad, mode="edge")
    m = n // window
    bmed, bdev = _row_stats(values[: m * window].reshape(m, window), spread)
    return _per_point(bmed, n, window), None if bdev is None else _per_point(bdev, n, window)


def _per_point(per_block: np.ndarray, n: int, window: int) -> np.ndarray:
    """Each block's value at each of its ``window`` points; the last block's at the points
    past the last whole block. (One write per point: no index array to build and gather.)"""
    m = len(per_block)
    out = np.empty(n)
    out[: m * window].reshape(m, window)[:] = per_block[:, None]
    out[m * window :] = per_block[-1]
    return out


def _row_stats(rows: np.ndarray, spread: bool = True) -> tuple[np.ndarray, np.ndarray | None]:
    """(median, scaled MAD or None) of each row."""
    med = median(rows, axis=1)
    return med, median(np.abs(rows - med[:, None]), axis=1) * 1.4826 if spread else None


DIFF_SIGMA = 1.0484  # the noise sigma per unit of the median absolute successive difference


def blockwise(n: int, window: int, exact_limit: int = 4000) -> bool:
    """Whether :func:`local_stats` takes per-block statistics (a long series) for this size."""
    return n * max(3, min(window, n)) > exact_limit * 50


def block_spread_at(values: np.ndarray, window: int, at: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`local_stats`'s scaled MAD and :func:`local_noise` at the indices ``at`` of a long
    series (``blockwise``), with the same numbers, computed only for the blocks ``at`` falls in:
    the spike rules need the spread only where a point already stands above its level."""
    n = len(values)
    window = max(3, min(window, n))
    m = n // window
    block = np.minimum(at // window, m - 1)
    used, where = np.unique(block, return_inverse=True)
    grid = used[:, None] * window + np.arange(window)
    rows = values[grid]
    _, bdev = _row_stats(rows)
    assert bdev is not None  # spread=True
    steps = np.abs(rows - values[np.maximum(grid - 1, 0)])  # |diff| with values[0] prepended
    return bdev[where], DIFF_SIGMA * median(steps, axis=1)[where]


def window_spread_at(values: np.ndarray, window: int, at: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`local_stats`'s scaled MAD and :func:`local_noise` at the indices ``at`` of a short
    series (not ``blockwise``), with the same numbers, computed only over the windows ``at``
    falls in (each point's centred window; the edges' points the first or last full one)."""
    n = len(values)
    window = max(3, min(window, n))
    first = np.clip(at - window // 2, 0, n - window)
    used, where = np.unique(first, return_inverse=True)
    grid = used[:, None] + np.arange(window)
    rows = values[grid]
    _, dev = _row_stats(rows)
    assert dev is not None  # spread=True
    steps = np.abs(np.diff(values, prepend=values[0]))[grid]
    return dev[where], DIFF_SIGMA * median(steps, axis=1)[where]


def local_noise(values: np.ndarray, window: int) -> np.ndarray:
    """Per-point noise sigma from the local median of successive differences: unlike the
    MAD around the median, a steep trend (the start of training) does not inflate it."""
    d = np.abs(np.diff(values, prepend=values[0]))
    med, _ = local_stats(d, window, spread=False)
    return DIFF_SIGMA * med


def events(mask: np.ndarray) -> list[tuple[int, int]]:
    """(start, end exclusive) index pairs of the runs of True in ``mask``."""
    if not mask.any():
        return []
    padded = np.concatenate(([False], mask, [False])).astype(np.int8)
    edges = np.flatnonzero(np.diff(padded))
    return list(zip(edges[::2].tolist(), edges[1::2].tolist()))


def steps_list(steps: np.ndarray, limit: int = 5) -> str:
    """Up to ``limit`` steps as text, with the count of the rest."""
    shown = ", ".join(fstep(float(x)) for x in steps[:limit])
    return shown + (f" (+{len(steps) - limit} more)" if len(steps) > limit else "")


def improvement_margin(values: np.ndarray, k: int, rel: float, z: float = 4.0) -> float:
    """The drop between two k-point level estimates that counts as real: the larger of
    ``rel`` of the level and ``z`` standard errors of the difference (4: a chance drop of a
    flat noisy loss passes it about once in 30,000 runs)."""
    sigma = noise(values)
    se = level_se(sigma, k) * np.sqrt(2.0)
    return float(max(rel * abs(float(median(values))), z * se))


def step_seconds(run: Run) -> tuple[np.ndarray, np.ndarray, str] | None:
    """Seconds per step: the step_time metric, else derived from wall-clock stamps.

    Returns (steps, seconds per step, source) or None when the run has no timing."""
    st = run.get("step_time")
    if st is not None and len(st.finite()) >= 2:
        f = st.finite()
        return f.steps, f.values, f"metric {st.name}"
    got = wall_clock(run)
    if got is None:
        return None
    steps, wall, src = got
    ds, dw = np.diff(steps), np.diff(wall)
    ok = (ds > 0) & np.isfinite(dw) & (dw >= 0)
    if ok.sum() < 2:
        return None
    return steps[1:][ok], dw[ok] / ds[ok], f"derived from {src}"


def no_clock_reason(run: Run, what: str) -> str:
    """Why a timing rule cannot judge ``run``: ``what`` it lacks, and, for a log followed by
    `trainlint watch` without a clock of its own, that the watcher's poll times are not one."""
    if RunMeta.of(run).clock == "watcher":
        return f"{what} (the log has no clock of its own; the watcher's poll times are not used)"
    return what


def wall_clock(run: Run) -> tuple[np.ndarray, np.ndarray, str] | None:
    """(steps, wall seconds, source) of the run's clock: the loss series' stamps or the wall_time role."""
    loss = run.get("loss")
    if loss is not None and loss.wall is not None and len(loss) >= 2:
        keep = np.isfinite(loss.wall)
        return loss.steps[keep], loss.wall[keep], "wall-clock stamps"
    wt = run.get("wall_time")
    if wt is not None and len(wt.finite()) >= 2:
        f = wt.finite()
        return f.steps, f.values, f"metric {wt.name}"
    return None


def centred_median(values: np.ndarray, window: int) -> np.ndarray:
    """Median over a window centred on each point (odd length; the edges use the nearest
    full window). Meant for coarse series (at most a few thousand points)."""
    n = len(values)
    window = _centred_window(n, window)
    if window <= 1:
        return values.astype(np.float64, copy=True)
    med = median(sliding_window_view(values, window), axis=1)
    half = window // 2
    return np.pad(med, (half, n - len(med) - half), mode="edge")


def _centred_window(n: int, window: int) -> int:
    """The odd window length :func:`centred_median` takes for ``n`` points."""
    window = max(1, min(window, n)) | 1
    return window - 2 if window > n else window


def centred_median_envelope(values: np.ndarray, window: int) -> tuple[np.ndarray, np.ndarray]:
    """(lowest, highest) value of the window each point's :func:`centred_median` is taken over:
    bounds on it (an odd window's median is one of its values), in O(n) whatever the window."""
    n = len(values)
    window = _centred_window(n, window)
    v = values.astype(np.float64, copy=False)
    if window <= 1:
        return v, v
    half = window // 2
    pad = (half, n - (n - window + 1) - half)
    lo = np.pad(sliding_extreme(v, window, np.minimum), pad, mode="edge")
    return lo, np.pad(sliding_extreme(v, window, np.maximum), pad, mode="edge")


def sliding_extreme(values: np.ndarray, window: int, how: np.ufunc) -> np.ndarray:
    """``how`` (np.minimum / np.maximum) over each full sliding window of ``window`` points, in
    O(n): a window spans at most two aligned blocks, so it is the suffix extreme of one block's
    tail with the prefix extreme of the next block's head."""
    n = len(values)
    m = -(-n // window)
    rows = np.concatenate((values, np.full(m * window - n, values[-1]))).reshape(m, window)
    head = how.accumulate(rows, axis=1).ravel()
    tail = how.accumulate(rows[:, ::-1], axis=1)[:, ::-1].ravel()
    out: np.ndarray = how(tail[: n - window + 1], head[window - 1 : n])
    return out


def blowup_candidates(values: np.ndarray, window: int, factor: float) -> np.ndarray:
    """Points that may have ``centred_median(values, window)`` above ``factor`` times its lowest
    level so far (floored at 1e-300): a superset of them, from the windows' extremes in O(n).
    Where it holds no long run, neither does the median's (an exact shortcut past it)."""
    lo, hi = centred_median_envelope(values, window)
    bound: np.ndarray = hi > factor * np.maximum(np.minimum.accumulate(lo), 1e-300)
    return bound


def printed_quantum(values: np.ndarray) -> float:
    """The rounding step of a loss printed with few decimals (1e-4 for '0.0003'), or 0.0 when
    the values carry full float precision."""
    fin = values[np.isfinite(values)]
    if not len(fin):
        return 0.0
    head = fin[:512]  # a step the first values break is no step of all of them: try them first
    for d in range(0, 7):
        if on_grid(head, d) and on_grid(fin, d):
            return 10.0**-d
    return 0.0


def on_grid(values: np.ndarray, d: int) -> bool:
    """Whether every value of ``values`` sits on the printed rounding step 10**-d."""
    scaled = values * 10.0**d
    return bool(np.all(np.abs(scaled - np.round(scaled)) < 1e-6 * np.maximum(1.0, np.abs(scaled))))
