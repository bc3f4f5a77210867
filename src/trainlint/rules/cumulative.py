"""A loss column that is a running sum within each epoch (``epoch_loss += loss.item()`` printed
without dividing): it climbs through every epoch and falls back at each epoch's start, a
sawtooth that the trend rules would read as a rise to many times the best level. This module
recognises the shape and gives back the per-step losses it adds up; ``engine.judge_run`` judges
those instead (issue 30 §2)."""

from __future__ import annotations

import numpy as np

from ..model import Series

MIN_POINTS = 12  # finite points needed to recognise the shape
MIN_EPOCH_POINTS = 4  # points in every epoch but the last
RISING = 0.97  # share of the within-epoch differences that must be positive
RESET = 0.2  # the first point of an epoch is below this share of the last one's value
GROWTH = 3.0  # a whole epoch's sum reaches this many times its first point


def epoch_starts(values: np.ndarray) -> np.ndarray | None:
    """The indices where the running sum restarts (at least one), when ``values`` is one; else
    None. Every epoch but the last holds MIN_EPOCH_POINTS points or more and grows GROWTH times
    from its first point, RISING of the steps inside epochs go up, and each restart falls below
    RESET of the value before it; all values are positive (a sum of losses)."""
    v = values
    if len(v) < MIN_POINTS or not v[0] > 0 or not np.isfinite(v).all():  # (inf - inf: no diff taken)
        return None
    d = np.diff(v)
    down = d < 0
    count = int(np.count_nonzero(down))  # a noisy or falling loss goes down at many points: out at once
    if count == 0 or count > len(v) // MIN_EPOCH_POINTS or not v.min() > 0:
        return None
    starts = np.flatnonzero(down) + 1
    if np.any(v[starts] >= RESET * v[starts - 1]):
        return None
    inside = np.ones(len(d), dtype=bool)
    inside[starts - 1] = False
    if np.mean(d[inside] > 0) < RISING:
        return None
    bounds = [0, *starts.tolist(), len(v)]
    for a, b in zip(bounds[:-2], bounds[1:-1]):  # every epoch but the last, which may be cut short
        if b - a < MIN_EPOCH_POINTS or v[b - 1] < GROWTH * v[a]:
            return None
    return starts


def per_step(s: Series, starts: np.ndarray) -> Series:
    """The losses a running sum adds up: each point's increase over the one before it in its
    epoch (an epoch's first point is its own increase), divided by the steps it covers (the
    typical step gap inside epochs, where the step counter restarts with the epochs). The step
    counter is made continuous when it restarts with the epochs."""
    v = s.values.copy()
    inc = np.diff(v, prepend=0.0)
    inc[starts] = v[starts]
    steps = s.steps.copy()
    gaps = np.diff(steps)
    inside = np.ones(len(gaps), dtype=bool)
    inside[starts - 1] = False
    gap = float(np.median(gaps[inside])) if inside.any() else 1.0
    if np.any(gaps[starts - 1] <= 0):  # the counter restarts too: continue it
        for i in starts.tolist():
            steps[i:] += steps[i - 1] + gap - steps[i]
    return Series(s.name, steps, inc / max(gap, 1.0), s.wall)
