"""State kept across the judgements of a live run, and the rules' helpers that read it.

"Kept" means carried from one live judgement to the next through ``Context.state`` (the
guard's history holds it, ``engine.judge_run`` hands it on), so that a judgement reads only the
records since the last one instead of passing over the whole history again. Each helper here
gives the numbers of its batch form in :mod:`.stats` (doctor's, on the arrays) from a state
that the judgements extend with the new points; without states (doctor) it is the batch form.
Each state knows where its series is (its ``source``), so ``LiveRun.feed_states`` can bring it
up to date between judgements."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import running
from ..arrays import quantiles_of
from ..model import Run
from ..registry import Context
from ..running import Grow, Ordered, Source
from .stats import (
    COARSE_POINTS,
    block_medians,
    blockwise,
    coarse,
    coarse_size,
    median,
    on_grid,
    printed_quantum,
    quantiles,
    step_seconds,
)


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
    :func:`.stats.wall_clock` reads first), brought up to date; None in doctor or for another clock."""
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
    series that only grows (what :func:`.stats.local_stats` takes per block of a long series), each
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
    """(the indices where a value stands above ``ratio`` times its :func:`.stats.local_stats` median
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
        self.ok = [ok and on_grid(new, d) for d, ok in enumerate(self.ok)]
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
