"""Alignment: put a run and its baseline runs on one axis (steps, or fraction of training).

Runs of the same planned length are compared step by step. When the planned lengths
differ (a 1,000-step run against a 300-step baseline) they are compared by fraction of
training: step / planned length, so that "the end" of one meets "the end" of the other.
The planned length is the trainer's own ``max_steps`` when the log records it (so a run
cut short stays cut short), else the last logged loss step.
"""

from __future__ import annotations

import msgspec
import numpy as np

from ..model import Run, RunMeta, Series


def planned_length(run: Run) -> float | None:
    """The number of steps the run was meant to last (``max_steps``), else its last loss step."""
    loss = run.get("loss")
    last = float(loss.steps[-1]) if loss is not None and len(loss) else None
    planned = RunMeta.of(run).max_steps
    if planned is not None and planned > 0:
        if last is None or planned >= last:
            return float(planned)
    return last


class Alignment(msgspec.Struct):
    """How the runs were put side by side, and the window where all of them have loss points."""

    mode: str  # "step" or "fraction"
    lengths: dict[str, float]  # source -> planned length (steps)
    lo: float | None = None
    hi: float | None = None
    reason: str = ""
    no_overlap: str | None = None  # why there is no common window, when there is none

    def position(self, run: Run, steps: np.ndarray) -> np.ndarray:
        """Where ``steps`` of ``run`` lie on the common axis."""
        if self.mode == "step":
            return np.asarray(steps, dtype=np.float64)
        total = self.lengths.get(run.source) or 1.0
        return np.asarray(steps, dtype=np.float64) / total

    def window(self, run: Run, series: Series | None, finite: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """(positions, values) of ``series`` inside the common window (finite values only by default)."""
        if series is None or len(series) == 0 or self.lo is None or self.hi is None:
            return np.empty(0), np.empty(0)
        s = series.finite() if finite else series
        x, v = _last_per_step(self.position(run, s.steps), s.values)
        keep = (x >= self.lo - 1e-12) & (x <= self.hi + 1e-12)
        return x[keep], v[keep]

    def to_dict(self) -> dict[str, object]:
        return {
            "mode": self.mode,
            "window": [self.lo, self.hi],
            "reason": self.reason,
            "planned_lengths": dict(self.lengths),
            "no_overlap": self.no_overlap,
        }


def _last_per_step(x: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted by position; where a step was logged twice (a resumed run) the later value wins."""
    if len(x) < 2 or (np.all(np.diff(x) > 0)):
        return x, v
    rev_x, rev_v = x[::-1], v[::-1]
    _, first = np.unique(rev_x, return_index=True)  # first in reversed order = last logged
    return rev_x[first], rev_v[first]


def _choose_mode(lengths: list[float], mode: str, tolerance: float) -> tuple[str, str]:
    if mode in ("step", "fraction"):
        return mode, f"aligned by {mode} (asked for)"
    lo, hi = min(lengths), max(lengths)
    if lo > 0 and hi / lo <= tolerance:
        return "step", f"planned lengths agree ({_span(lengths)} steps): aligned by step"
    return "fraction", f"planned lengths differ ({_span(lengths)} steps): aligned by fraction of training"


def _span(lengths: list[float]) -> str:
    lo, hi = min(lengths), max(lengths)
    return f"{lo:g}" if lo == hi else f"{lo:g}-{hi:g}"


def align(run: Run, baselines: list[Run], mode: str = "auto", tolerance: float = 1.25) -> Alignment:
    """Choose the axis and the common window of ``run`` and every baseline run."""
    everyone = [run, *baselines]
    per_run = [planned_length(r) for r in everyone]
    lengths = {r.source: v or 0.0 for r, v in zip(everyone, per_run)}
    if not all(per_run):
        missing = [r.source for r, v in zip(everyone, per_run) if not v]
        why = "no loss points at a positive step in " + ", ".join(missing)
        return Alignment("step", lengths, no_overlap=why)
    known = [float(v) for v in per_run]
    chosen, reason = _choose_mode(known, mode, tolerance)
    out = Alignment(chosen, lengths, reason=reason)
    starts, ends = [], []
    for r in everyone:
        x = out.position(r, r.get("loss").steps)  # non-finite points count: the run was logged there
        starts.append(float(np.min(x)))
        ends.append(float(np.max(x)))
    lo, hi = max(starts), min(ends)
    if hi <= lo:
        unit = "steps" if chosen == "step" else "fraction of training"
        spans = "; ".join(f"{r.source}: {s:g}-{e:g}" for r, s, e in zip(everyone, starts, ends))
        out.no_overlap = f"no overlap in {unit} ({spans})"
        return out
    out.lo, out.hi = lo, hi
    return out
