"""Robust statistics shared by the rules (numpy only, vectorised)."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from .. import running
from ..arrays import median as median  # the rules' medians and quantiles, without numpy.ma
from ..arrays import quantiles as quantiles
from ..arrays import quantiles_of
from ..model import Run, RunMeta
from ..registry import Context
from ..running import Grow, Ordered, Source


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


def coarse_size(n: int, max_points: int = COARSE_POINTS) -> int:
    """The block size of :func:`coarse` for ``n`` points: the smallest power of two that makes
    at most ``max_points`` blocks. It only changes when the series doubles, so the medians of
    the whole blocks (aligned from its start) stay as they are until then (a live run keeps them)."""
    b = 1
    while -(-n // b) > max_points:
        b *= 2
    return b


def coarse(
    steps: np.ndarray, values: np.ndarray, max_points: int = COARSE_POINTS, kept: CoarseBlocks | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Block medians of a long series (blocks of :func:`coarse_size` points from its start, the
    last one partial, at the step in each one's middle); a series of at most ``max_points`` unchanged.

    Trend rules (divergence, plateau, overfit ...) only need the shape of a curve; a
    million points reduce to a few thousand block medians in O(n log b). ``kept``: the whole
    blocks' medians kept on a live run (:func:`coarse_of`), the same numbers."""
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
    steps: np.ndarray, values: np.ndarray, max_points: int, kept: CoarseBlocks | None
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
        if _on_grid(head, d) and _on_grid(fin, d):
            return 10.0**-d
    return 0.0


def _on_grid(values: np.ndarray, d: int) -> bool:
    scaled = values * 10.0**d
    return bool(np.all(np.abs(scaled - np.round(scaled)) < 1e-6 * np.maximum(1.0, np.abs(scaled))))


# --- state kept across the judgements of a live run (Context.states) ------------------------
# Each helper gives the numbers of its batch form (doctor's, on the arrays), from a state that
# a live run's judgements extend with the points new since the last one, so that a judgement
# does not pass over the whole history again. Without states (doctor) it is the batch form.


def finite_values(name: str) -> Source:
    """A kept state's source: the finite values of the run's series ``name`` (computed once per
    round of feeding, in its memo)."""

    def source(run: Run, memo: dict[str, Any]) -> np.ndarray:
        got = memo.get(name)
        if got is None:
            s = run.series.get(name)
            got = memo[name] = s.finite().values if s is not None else np.empty(0)
        return got

    return source


def ordered(ctx: Context, key: str, values: np.ndarray, source: Source | None = None) -> Ordered | None:
    """The sorted blocks of ``values`` (a series that only grows: keyed by what it is) kept
    under ``key``, brought up to date; None in doctor. ``source``: where the live history finds
    the series to update the state between judgements (Ordered.feed)."""
    state = ctx.state(f"ordered {key}", lambda: Ordered(source))
    if state is not None:
        state.update(values)
    return state


def quantiles_kept(
    ctx: Context,
    key: str,
    values: np.ndarray,
    qs: list[float],
    lo: int = 0,
    hi: int | None = None,
    source: Source | None = None,
) -> list[float]:
    """``quantiles(values[lo:hi], qs)``, from the kept sorted blocks on a live run (a range of
    a few blocks from the values themselves: :func:`_few`)."""
    end = len(values) if hi is None else hi
    state = None if _few(ctx, end - lo) else ordered(ctx, key, values, source)
    if state is None:
        return quantiles(values[lo:hi], qs)
    return quantiles_of(end - lo, qs, lambda idx: state.select(values, idx, lo, end))


def _few(ctx: Context, n: int) -> bool:
    """Whether ``n`` values are judged from themselves: in doctor, and on a live run for fewer
    than two sorted blocks' worth (running.BLOCK), where the sorted blocks could not serve."""
    return ctx.states is None or n < 2 * running.BLOCK


def median_kept(
    ctx: Context, key: str, values: np.ndarray, lo: int = 0, hi: int | None = None, source: Source | None = None
) -> np.floating:
    """``median(values[lo:hi])``, from the kept sorted blocks on a live run (a range of a few
    blocks from the values themselves: :func:`_few`)."""
    end = len(values) if hi is None else hi
    n = end - lo
    state = None if _few(ctx, n) else ordered(ctx, key, values, source)
    if state is None:
        return median(values[lo:hi])
    ranks = [n // 2] if n % 2 else [n // 2 - 1, n // 2]
    got = state.select(values, ranks, lo, end)
    return median(np.array([got[k] for k in ranks]))  # the mean of the middle one or two, as median takes it


def above_kept(ctx: Context, key: str, values: np.ndarray, x: float, lo: int = 0) -> int | None:
    """How many of ``values[lo:]`` exceed ``x``, from the kept sorted blocks on a live run (a
    shortcut: fewer than a rule needs and it need not look further); None in doctor."""
    state: Ordered | None = ctx.states.get(f"ordered {key}") if ctx.states is not None else None
    if state is None:
        return None
    state.update(values)
    return len(values) - lo - state.count(values, x, lo)


def coarse_kept(
    ctx: Context,
    key: str,
    steps: np.ndarray,
    values: np.ndarray,
    lo: int,
    max_points: int,
    source: Source | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """``coarse(steps[lo:], values[lo:], max_points)``: its block medians from the kept sorted
    blocks of ``values`` on a live run (blocks of a few sorted blocks' worth: :func:`_few`)."""
    n = len(values) - lo
    b = coarse_size(n, max_points)
    if _few(ctx, b) or n <= max_points:
        return coarse(steps[lo:], values[lo:], max_points)
    m = n // b
    v = [median_kept(ctx, key, values, lo + i * b, lo + (i + 1) * b, source) for i in range(m)]
    s = steps[lo : lo + m * b].reshape(m, b)[:, b // 2]
    if n > m * b:
        v.append(median_kept(ctx, key, values, lo + m * b, source=source))
        s = np.append(s, steps[lo + m * b + (n - m * b) // 2])
    return s, np.array(v, dtype=np.float64)


class CoarseBlocks:
    """The medians of the whole blocks of :func:`coarse` over a series that only grows (a live
    run's), each computed once, when its block completes; all again when the block size
    doubles (amortised O(1) per point)."""

    __slots__ = ("size", "med", "source", "max_points")

    def __init__(self, source: Source | None = None, max_points: int = COARSE_POINTS) -> None:
        self.size = 0  # the block size of the medians kept
        self.med = Grow()
        self.source, self.max_points = source, max_points

    def feed(self, run: Run, memo: dict[str, Any]) -> None:
        if self.source is not None:
            values = self.source(run, memo)
            b = coarse_size(len(values), self.max_points)
            if b > 1:
                self.update(values, b)

    def update(self, values: np.ndarray, b: int) -> np.ndarray:
        """The medians of the whole blocks of ``b`` points of ``values`` (an extension of the
        series of the last update)."""
        if b != self.size or len(values) < self.med.n * b:  # another block size: start again
            self.__init__(self.source, self.max_points)  # type: ignore[misc]
            self.size = b
        self.med.extend(block_medians(values, b, self.med.n))
        return self.med.view()


def coarse_of(ctx: Context, s: Any) -> tuple[np.ndarray, np.ndarray]:
    """:func:`coarse` of ``s``, the finite part of one of the run's series (``ctx.series``); on a
    live run from its whole blocks' medians kept across judgements (only the new blocks' taken)."""
    kept = ctx.state(f"coarse {s.name}", lambda: CoarseBlocks(finite_values(s.name)))
    return coarse(s.steps, s.values, kept=kept)


class Stamps:
    """What the timing rules read of the finite wall-clock stamps of a series that only grows
    (a live run's loss), extended with the stamps new since the last update: how many there
    are and the last, :func:`step_seconds`' seconds per step (with their steps), the positive
    gaps between records (a gap where the step goes back, a restart, is 0) and the longest."""

    __slots__ = ("n", "count", "last", "sec_steps", "sec", "positive", "top", "name")

    def __init__(self, name: str = "") -> None:
        self.n = self.count = 0  # points of the series consumed, and the finite stamps among them
        self.last: tuple[float, float] | None = None  # the last finite stamp: (step, wall)
        self.sec_steps, self.sec, self.positive = Grow(), Grow(), Grow()
        self.top = -np.inf  # the longest gap
        self.name = name  # the series whose stamps these are

    def feed(self, run: Run, memo: dict[str, Any]) -> None:
        s = run.series.get(self.name)
        if s is not None and s.wall is not None:
            self.update(s.steps, s.wall)

    def seconds(self, run: Run, memo: dict[str, Any]) -> np.ndarray:
        """The seconds per step (a Source, for the states kept of them: fed after this one)."""
        return self.sec.view()

    def positive_gaps(self, run: Run, memo: dict[str, Any]) -> np.ndarray:
        """The positive gaps (a Source, for the states kept of them: fed after this one)."""
        return self.positive.view()

    def update(self, steps: np.ndarray, wall: np.ndarray) -> None:
        if len(steps) < self.n:  # not an extension: start again
            self.__init__(self.name)  # type: ignore[misc]
        keep = np.isfinite(wall[self.n :])
        s, w = steps[self.n :][keep], wall[self.n :][keep]
        self.n, self.count = len(steps), self.count + len(s)
        if not len(s):
            return
        if self.last is not None:  # the pair across the last update's end
            s, w = np.r_[self.last[0], s], np.r_[self.last[1], w]
        self.last = (float(s[-1]), float(w[-1]))
        ds, dw = np.diff(s), np.diff(w)
        ok = (ds > 0) & np.isfinite(dw) & (dw >= 0)
        self.sec_steps.extend(s[1:][ok])
        self.sec.extend(dw[ok] / ds[ok])
        dw[ds < 0] = 0.0
        self.positive.extend(dw[dw > 0])
        if len(dw):
            self.top = max(self.top, float(dw.max()))


def stamps_kept(ctx: Context) -> Stamps | None:
    """The :class:`Stamps` of a live run whose clock is its loss's wall-clock stamps (what
    :func:`wall_clock` reads first), brought up to date; None in doctor or for another clock."""
    loss = ctx.subject.get("loss")
    if ctx.states is None or loss is None or loss.wall is None or len(loss) < 2:
        return None
    state = ctx.state(f"stamps {loss.name}", lambda: Stamps(loss.name))
    if state is not None:
        state.update(loss.steps, loss.wall)
    return state


def step_seconds_source(ctx: Context) -> Source | None:
    """Where a state kept of :func:`step_seconds_kept`'s seconds finds them between judgements:
    the kept stamps' seconds per step, or the step_time metric's finite values."""
    st = ctx.subject.get("step_time")
    if st is not None and len(st.finite()) >= 2:
        return finite_values(st.name)
    loss = ctx.subject.get("loss")
    stamps = ctx.states.get(f"stamps {loss.name}") if ctx.states is not None and loss is not None else None
    return None if stamps is None else stamps.seconds


def step_seconds_kept(ctx: Context) -> tuple[np.ndarray, np.ndarray, str] | None:
    """:func:`step_seconds` of the judged run; on a live run timed by its records' wall-clock
    stamps, derived only for the stamps new since the last judgement."""
    st = ctx.subject.get("step_time")
    state = None if st is not None and len(st.finite()) >= 2 else stamps_kept(ctx)
    if state is None:
        return step_seconds(ctx.subject)
    if state.sec.n < 2:
        return None
    return state.sec_steps.view(), state.sec.view(), "derived from wall-clock stamps"


class BlockLevels:
    """The median and the highest value of each completed block of ``window`` points of a
    series that only grows (what :func:`local_stats` takes per block of a long series), each
    computed once, when its block completes."""

    __slots__ = ("window", "med", "top", "source")

    def __init__(self, source: Source | None = None) -> None:
        self.window = 0
        self.med, self.top = Grow(), Grow()
        self.source = source

    def feed(self, run: Run, memo: dict[str, Any]) -> None:
        if self.source is not None and self.window:
            self.update(self.source(run, memo), self.window)

    def update(self, values: np.ndarray, window: int) -> None:
        if window != self.window or len(values) < self.med.n * window:  # another window: start again
            self.__init__(self.source)  # type: ignore[misc]
            self.window = window
        m, done = len(values) // window, self.med.n
        if m > done:
            rows = values[done * window : m * window].reshape(-1, window)
            self.med.extend(median(rows, axis=1))
            self.top.extend(rows.max(axis=1))


def above_level(
    ctx: Context, key: str, values: np.ndarray, window: int, ratio: float, source: Source | None = None
) -> tuple[np.ndarray, np.ndarray] | None:
    """(the indices where a value stands above ``ratio`` times its :func:`local_stats` median
    and that median is positive, the median there) of a long series (``blockwise``), from its
    block levels kept on a live run: only the blocks whose highest value stands that high are
    read. None in doctor or for a short series."""
    n = len(values)
    if ctx.states is None or not blockwise(n, window):
        return None
    state = ctx.state(f"block levels {key}", lambda: BlockLevels(source))
    assert state is not None
    state.update(values, window)
    bmed, top = state.med.view(), state.top.view()
    m = len(bmed)
    blocks = np.flatnonzero((top > ratio * bmed) & (bmed > 0))
    grid = blocks[:, None] * window + np.arange(window)
    level = np.broadcast_to(bmed[blocks, None], grid.shape)
    hit = values[grid] > ratio * level
    tail = np.arange(m * window, n)  # past the last whole block: the last block's median
    hit_tail = (values[tail] > ratio * bmed[-1]) & (bmed[-1] > 0)
    at = np.concatenate((grid[hit], tail[hit_tail]))
    return at, np.concatenate((level[hit], np.full(int(hit_tail.sum()), bmed[-1])))


class OnGrid:
    """Which printed rounding steps (10**-d, d from 0 to 6) every value of a series that only
    grows sits on, extended with the values new at each judgement (:func:`printed_quantum`)."""

    __slots__ = ("n", "finite", "ok", "source")

    def __init__(self, source: Source | None = None) -> None:
        self.n = self.finite = 0  # values consumed, and the finite ones among them
        self.ok = [True] * 7
        self.source = source

    def feed(self, run: Run, memo: dict[str, Any]) -> None:
        if self.source is not None:
            self.quantum(self.source(run, memo))

    def quantum(self, values: np.ndarray) -> float:
        if len(values) < self.n:
            self.__init__(self.source)  # type: ignore[misc]
        new = values[self.n :]
        new = new[np.isfinite(new)]
        self.n, self.finite = len(values), self.finite + len(new)
        self.ok = [ok and _on_grid(new, d) for d, ok in enumerate(self.ok)]
        return next((10.0**-d for d, ok in enumerate(self.ok) if ok), 0.0) if self.finite else 0.0


def printed_quantum_kept(ctx: Context, name: str, values: np.ndarray) -> float:
    """:func:`printed_quantum` of the finite values of the series ``name``, on a live run from
    the steps every value so far sits on."""
    key = f"finite {name}"
    state = ctx.state(f"on grid {key}", lambda: OnGrid(finite_values(name)))
    return printed_quantum(values) if state is None else state.quantum(values)


class Mapped:
    """``fn`` of each value of a series that only grows (elementwise: ``np.abs``), kept: each
    update maps only the values new since the last."""

    __slots__ = ("n", "out", "fn", "source")

    def __init__(self, fn: Any, source: Source | None = None) -> None:
        self.n = 0
        self.out = Grow()
        self.fn, self.source = fn, source

    def feed(self, run: Run, memo: dict[str, Any]) -> None:
        if self.source is not None:
            self.update(self.source(run, memo))

    def update(self, values: np.ndarray) -> None:
        if len(values) < self.n:  # not an extension: start again
            self.__init__(self.fn, self.source)  # type: ignore[misc]
        self.out.extend(self.fn(values[self.n :]))
        self.n = len(values)

    def mapped(self, run: Run, memo: dict[str, Any]) -> np.ndarray:
        """The mapped values (a Source, for the states kept of them: fed after this one)."""
        return self.out.view()


def abs_kept(ctx: Context, name: str, values: np.ndarray) -> tuple[np.ndarray, Source | None]:
    """``np.abs(values)``, the finite values of the series ``name``; on a live run kept (only
    the new values' taken at a judgement), with where the states kept of it find it."""
    state = ctx.state(f"abs finite {name}", lambda: Mapped(np.abs, finite_values(name)))
    if state is None:
        return np.abs(values), None
    state.update(values)
    return state.out.view(), state.mapped
