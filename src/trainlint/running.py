"""The running quantities of one metric: what the live history keeps per record in O(1), and
what :meth:`Running.of` builds in one pass from a finished series, with the same numbers.

The live guard reads its alarms (a non-finite value, a loss above twice its best, an LR that
stays zero) and its warm-up (the LR's peak and the points since it) from these states; a
judgement of a finished log can build the same state from the series without a record loop.
"""

from __future__ import annotations

import math
import sys

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
