"""Helpers for rules that compare the eval loss with the train loss."""

from __future__ import annotations

import re

import numpy as np

from ..arrays import unique
from ..model import Run, RunMeta
from ..registry import Context
from .kept import coarse_of
from .stats import centred_median, coarse, median


def train_at(ctx: Context, steps: np.ndarray, frac: float = 0.05) -> np.ndarray | None:
    """A smoothed train loss (rolling median) of the judged run interpolated at ``steps``; NaN
    outside its range."""
    loss = ctx.subject.get("loss")
    if loss is None or len(loss.finite()) < 3:
        return None
    f = loss.finite()
    if np.all(f.steps[1:] >= f.steps[:-1]):
        ts, tv = coarse_of(ctx, f)
    else:
        order = np.argsort(f.steps, kind="stable")
        ts, tv = coarse(f.steps[order], f.values[order])
    sm = centred_median(tv, max(1, int(round(len(tv) * frac))))
    out: np.ndarray = np.interp(steps, ts, sm)
    # an evaluation at the very end (after the last logged train point, within one logging
    # interval) takes the last train level; further out there is no train loss to compare
    gap = float(median(np.diff(ts))) if len(ts) > 1 else 0.0
    out[(steps < ts[0]) | (steps > ts[-1] + gap)] = np.nan
    return out


def share_of_fall(evals: np.ndarray, amount: float) -> float | None:
    """``amount`` (a rise of the eval loss, a gap to the train loss) as a share of the eval loss's
    fall from its first evaluation to its best: what it costs on the scale the run moved on
    (a ratio of two losses near 0 says nothing of that); None where the eval loss did not fall."""
    fall = float(evals[0] - np.min(evals))
    return amount / fall if fall > 0 else None


def checkpoint_steps(meta: RunMeta) -> list[float]:
    """Checkpoint steps the log names: its checkpoints and best_model_checkpoint."""
    out: list[float] = []
    for c in meta.checkpoints or ():
        if isinstance(c, str):
            m = re.search(r"(\d+)\D*$", c)
            if m:
                out.append(float(m.group(1)))
        else:
            out.append(float(c))
    best = meta.best_model_checkpoint
    if best is not None:
        m = re.search(r"checkpoint[-_]?(\d+)", best)
        if m:
            out.append(float(m.group(1)))
    return sorted(set(out))


def scheduled_steps(run: Run) -> np.ndarray:
    """Steps where a pause is expected: the evaluations and checkpoint saves the log names."""
    parts = [np.asarray(checkpoint_steps(RunMeta.of(run)), dtype=np.float64)]
    ev = run.get("eval_loss")
    if ev is not None and len(ev):
        parts.append(ev.steps)
    return unique(np.concatenate(parts))


def spans_scheduled(lo: np.ndarray, hi: np.ndarray, sched: np.ndarray, tol: float) -> np.ndarray:
    """For each [lo, hi] step span (widened by ``tol``): does it contain a scheduled step?"""
    if len(sched) == 0:
        return np.zeros(len(lo), dtype=bool)
    a = np.searchsorted(sched, lo - tol, side="left")
    b = np.searchsorted(sched, hi + tol, side="right")
    return b > a
