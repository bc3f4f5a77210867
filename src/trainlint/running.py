"""The running quantities of one metric: what the live history keeps per record in O(1), and
what :meth:`Running.of` builds in one pass from a finished series, with the same numbers; and
the order statistics of a growing series (:class:`Ordered`) that live rules keep.

The live guard reads its alarms (a non-finite value, a loss above twice its best, an LR that
stays zero) and its warm-up (the LR's peak and the points since it) from these states; a
judgement of a finished log can build the same state from the series without a record loop.
:class:`Ordered` sorts each completed block of a series once, so that the rules' quantiles of
a live run's whole history (or of a range of it) read a small part of it, with the values a
partition of the whole gives; :class:`Grow` is the growable array both use.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

LR_ZERO = 1e-12  # an |LR| at or below this is zero (TL040's default)
KINDS = ("finite", "jump", "schedule")


class Running:
    """The running quantities of one tracked metric, updated per record in O(1): its points;
    the non-finite ones, and the step of the first (``finite`` and ``jump``); the best so far
    and its step (``jump``, the loss); the peak, the points at it and whether the value ever
    left zero after the first point (``schedule``, the learning rate).

    ``add`` returns whether the value is alarming for this metric: a non-finite value
    always; for the loss (``jump``), a value above twice its best so far; for the learning
    rate (``schedule``), three points or more without one away from zero after the first
    (warm-ups start at 0). A value inside ``[lo, hi]`` changes nothing but the count (a
    finite value between the best and twice it, an LR below its peak once it moved): the
    history counts it without calling ``add``."""

    __slots__ = (
        "points",
        "non_finite",
        "first_non_finite",
        "best",
        "best_step",
        "peak",
        "peak_points",
        "moved",
        "kind",
        "lo",
        "hi",
    )

    def __init__(self, kind: str = "finite") -> None:
        self.points = self.non_finite = self.peak_points = 0
        self.first_non_finite: float | None = None
        self.best, self.best_step, self.peak = math.inf, math.nan, -math.inf
        self.moved = False
        self.kind = kind
        # nothing passes [lo, hi] before the first best (loss) or before the LR moved
        self.lo, self.hi = (-_MAX, _MAX) if kind == "finite" else (_MAX, -_MAX)

    @classmethod
    def of(cls, steps: np.ndarray, values: np.ndarray, kind: str = "finite") -> Running:
        """The state :meth:`add` leaves after every point of a finished series, built in one
        vectorised pass (doctor's side of the same state)."""
        state = cls(kind)
        values = np.asarray(values, np.float64)
        state.points = n = len(values)
        if kind == "schedule":
            real = values[~np.isnan(values)]
            if len(real) and real.max() > -math.inf:
                state.peak = float(real.max())
                state.peak_points = int(np.argmax(values == state.peak)) + 1
            state.moved = bool(n > 1 and not np.all((values[1:] >= -LR_ZERO) & (values[1:] <= LR_ZERO)))
            if state.moved:
                state.lo, state.hi = -_MAX, state.peak
            return state
        bad = ~np.isfinite(values)
        state.non_finite = int(bad.sum())
        if state.non_finite:
            state.first_non_finite = float(steps[int(np.argmax(bad))])
        if kind == "jump" and state.non_finite < n:
            i = int(np.argmin(np.where(bad, np.inf, values)))
            state.best, state.best_step = float(values[i]), float(steps[i])
            state.lo, state.hi = state.best, 2 * state.best if state.best > 0 else _MAX
        return state

    @property
    def since_peak(self) -> int:
        """Points since the highest (for the learning rate: how long it has been falling)."""
        return self.points - self.peak_points

    def add(self, v: float, step: float) -> bool:
        self.points += 1
        if self.kind == "schedule":
            return self._schedule(v)
        if v - v != 0.0:  # NaN or infinite
            self.non_finite += 1
            if self.first_non_finite is None:
                self.first_non_finite = step
            return True
        if self.kind != "jump":
            return False
        alarm = v > 2 * self.best > 0
        if v < self.best:
            self.best, self.best_step = v, step
            self.lo, self.hi = v, 2 * v if v > 0 else _MAX
        return alarm

    def _schedule(self, v: float) -> bool:
        if v > self.peak:
            self.peak, self.peak_points = v, self.points
        if self.points > 1 and not -LR_ZERO <= v <= LR_ZERO:
            self.moved = True
        if self.moved:
            self.lo, self.hi = -_MAX, self.peak
        return self.points >= 3 and not self.moved


_MAX = sys.float_info.max  # [-_MAX, _MAX] holds every finite float and no infinity or NaN


class Grow:
    """A growable float64 array (of rows of shape ``row``, or of numbers); ``view`` is its
    filled part, one contiguous array. It never copies its whole history at once (a long live
    run's columns would hold the training loop for that copy): once the buffer is half full, a
    buffer of twice its size is taken, and each extend after that copies two of the rows so far
    into it per row it appends, so that it holds them all when the first fills and takes over
    then. An extend costs O(its rows), not O(the history)."""

    __slots__ = ("data", "n", "spare", "moved")

    def __init__(self, values: Iterable[float] = (), row: tuple[int, ...] = (), capacity: int = 64) -> None:
        self.data = np.empty((capacity, *row))
        self.n = 0
        self.spare: np.ndarray | None = None  # the larger buffer that takes over when data is full
        self.moved = 0  # the rows of data copied into spare so far
        self.extend(list(values))

    def extend(self, items: list[float] | np.ndarray) -> None:
        k = len(items)
        if not k:
            return
        end = self.n + k
        if end > len(self.data):
            self._take_over(end)
        self.data[self.n : end] = items
        self.n = end
        if 2 * end > len(self.data):  # over half full: copy ahead into the spare buffer
            if self.spare is None:
                self.spare, self.moved = np.empty((2 * len(self.data), *self.data.shape[1:])), 0
            upto = min(end, self.moved + 2 * k)
            self.spare[self.moved : upto] = self.data[self.moved : upto]
            self.moved = upto

    def _take_over(self, end: int) -> None:
        """Make room for ``end`` rows: the spare buffer, with the few rows not yet copied into
        it (fewer than the extend appends); a larger one for a larger extend, with the rows so
        far (fewer than it appends, too)."""
        spare = self.spare
        if spare is None or len(spare) < end:
            spare, self.moved = np.empty((max(2 * len(self.data), end), *self.data.shape[1:])), 0
        spare[self.moved : self.n] = self.data[self.moved : self.n]
        self.data, self.spare, self.moved = spare, None, 0

    def view(self) -> np.ndarray:
        return self.data[: self.n]


# A kept state's source: (a run, a memo shared by one round of feeding) -> its series there
Source = Callable[[Any, dict[str, Any]], Any]
BLOCK = 4096  # the points of one sorted block of an Ordered state
SAMPLE = 64  # every SAMPLE-th value of a sorted block brackets a rank


class Ordered:
    """Order statistics of a series that only grows (a live run's column), for quantiles of
    its whole history or of a range of it without a pass over it: each completed block of
    :data:`BLOCK` points is sorted once, when it completes (O(log BLOCK) per point). The k-th
    smallest value of a range then reads every SAMPLE-th value of its blocks' sorted rows
    (which bracket the rank), the few rows' values between the brackets, and the range's
    partial blocks at its ends: about n / SAMPLE + 2 * SAMPLE * n / BLOCK values, not n. The
    values are exact, the same as a partition of the range gives; they hold no NaN."""

    __slots__ = ("rows", "samples", "m", "source")

    def __init__(self, source: Source | None = None) -> None:
        self.rows = Grow(row=(BLOCK,), capacity=4)  # the sorted blocks
        self.samples = Grow(row=(BLOCK // SAMPLE,), capacity=4)  # rows[:, SAMPLE - 1 :: SAMPLE]
        self.m = 0  # completed blocks sorted so far
        self.source = source  # where feed() reads the series from a run

    def feed(self, run: Any, memo: dict[str, Any]) -> None:
        """Update from the run (between judgements), when the state knows its series' source."""
        if self.source is not None:
            self.update(self.source(run, memo))

    def update(self, values: np.ndarray) -> None:
        """Sort the blocks of ``values`` (the series so far, which extends the one seen before)
        completed since the last update."""
        m = len(values) // BLOCK
        if m < self.m:  # not an extension: start again
            self.__init__(self.source)  # type: ignore[misc]
        if m == self.m:
            return
        new = np.sort(np.asarray(values[self.m * BLOCK : m * BLOCK], np.float64).reshape(-1, BLOCK), axis=1)
        self.rows.extend(new)
        self.samples.extend(new[:, SAMPLE - 1 :: SAMPLE])
        self.m = m

    def select(self, values: np.ndarray, ranks: list[int], lo: int = 0, hi: int | None = None) -> dict[int, float]:
        """The values of ``ranks`` (0 the smallest) among ``values[lo:hi]``, after :meth:`update`
        with ``values``: {rank: value}, each what ``np.partition(values[lo:hi], rank)[rank]``
        holds."""
        hi = len(values) if hi is None else hi
        b0, b1 = -(-lo // BLOCK), min(hi // BLOCK, self.m)  # the sorted blocks inside [lo, hi)
        if b1 - b0 < 2:
            part = np.partition(values[lo:hi], ranks)
            return {k: part[k] for k in ranks}
        extra = np.concatenate((values[lo : b0 * BLOCK], values[b1 * BLOCK : hi]))
        rows, samples = self.rows.view()[b0:b1], self.samples.view()[b0:b1]
        return {k: self._kth(k, rows, samples, extra) for k in ranks}

    def count(self, values: np.ndarray, x: float, lo: int = 0, hi: int | None = None) -> int:
        """How many of ``values[lo:hi]`` are at most ``x`` (``np.sum(values[lo:hi] <= x)``),
        after :meth:`update` with ``values``."""
        hi = len(values) if hi is None else hi
        b0, b1 = -(-lo // BLOCK), min(hi // BLOCK, self.m)
        if b1 - b0 < 2:
            return int(np.sum(values[lo:hi] <= x))
        inside = _counts(self.rows.view()[b0:b1], self.samples.view()[b0:b1], x, np.less_equal)
        edges = int(np.sum(values[lo : b0 * BLOCK] <= x)) + int(np.sum(values[b1 * BLOCK : hi] <= x))
        return int(inside.sum()) + edges

    @staticmethod
    def _kth(k: int, rows: np.ndarray, samples: np.ndarray, extra: np.ndarray) -> float:
        """The k-th smallest of the sorted ``rows`` and the unsorted ``extra`` values. Below the
        sample ``a`` lie surely at most k values, up to the sample ``b`` surely more than k: the
        k-th is ``a``, ``b`` or one of the values strictly between them, which the samples place
        in each row (ties at ``a`` or ``b`` add nothing to read)."""
        m = len(rows)
        flat = np.sort(samples, axis=None)
        j = (k - m * (SAMPLE - 1) - len(extra)) // SAMPLE  # SAMPLE * j + the slack <= k
        a = flat[j] if j >= 0 else -np.inf
        j = k // SAMPLE  # at least SAMPLE * (j + 1) values <= flat[j]
        b = flat[j] if j < len(flat) else np.inf
        upto_a = _counts(rows, samples, a, np.less_equal)  # each row's values <= a
        below_b = _counts(rows, samples, b, np.less)  # and < b
        if k < int(upto_a.sum()) + int((extra <= a).sum()):
            return float(a)
        if k >= int(below_b.sum()) + int((extra < b).sum()):
            return float(b)
        pool = [rows[i, upto_a[i] : below_b[i]] for i in range(m) if below_b[i] > upto_a[i]]
        pool.append(extra[(extra > a) & (extra < b)])
        r = k - int(upto_a.sum()) - int((extra <= a).sum())
        return float(np.partition(np.concatenate(pool), r)[r])


def _counts(rows: np.ndarray, samples: np.ndarray, x: float, holds: np.ufunc) -> np.ndarray:
    """How many values of each sorted row ``holds(value, x)`` (a prefix of the row): the samples
    that hold place it to within one group of SAMPLE values, which is read."""
    c = holds(samples, x).sum(axis=1)  # samples[i, :c] hold, so rows[i, : SAMPLE * c] do
    g = np.minimum(c, BLOCK // SAMPLE - 1)
    group = rows[np.arange(len(rows))[:, None], (SAMPLE * g)[:, None] + np.arange(SAMPLE)]
    out: np.ndarray = np.where(c == BLOCK // SAMPLE, BLOCK, SAMPLE * c + holds(group, x).sum(axis=1))
    return out
