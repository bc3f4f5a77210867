"""What is measured on each run inside the common window: one number per metric."""

from __future__ import annotations

import msgspec
import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ..model import Run
from ..rules.stats import head_level, robust_level, rolling_median, window_for
from .align import Alignment, planned_length

GRID_POINTS = 101
LR_GRID_POINTS = 51
MAX_POINTS = 5000  # longer loss series are reduced to block medians first


class RunMetrics(msgspec.Struct):
    """One run's numbers over the common window (None where the run has no such series)."""

    source: str
    loss_points: int = 0
    loss_non_finite: int = 0
    floor: float | None = None
    floor_at: float | None = None  # where on the common axis the floor was held
    end: float | None = None
    start: float | None = None
    improvement: float | None = None  # (start - end) / start
    curve: np.ndarray | None = None  # smoothed loss on the common grid
    eval_points: int = 0
    eval_best: float | None = None
    eval_end: float | None = None
    grad_points: int = 0
    grad_level: float | None = None
    grad_non_finite: int = 0
    throughput: float | None = None
    throughput_kind: str | None = None
    lr_peak: float | None = None
    lr_shape: np.ndarray | None = None  # LR / peak on a 0..1 fraction-of-training grid
    extra: dict[str, float] = msgspec.field(default_factory=dict)


def thin(x: np.ndarray, v: np.ndarray, max_points: int = MAX_POINTS) -> tuple[np.ndarray, np.ndarray]:
    """Block medians of a long series (bounded memory and time); short series unchanged."""
    if len(v) <= max_points:
        return x, v
    size = int(np.ceil(len(v) / max_points))
    cut = len(v) // size * size
    xs = np.median(x[:cut].reshape(-1, size), axis=1)
    vs = np.median(v[:cut].reshape(-1, size), axis=1)
    if cut < len(v):
        xs, vs = np.append(xs, np.median(x[cut:])), np.append(vs, np.median(v[cut:]))
    return xs, vs


def floor_level(values: np.ndarray) -> tuple[float, int]:
    """The lowest level the series holds (min of a full-window rolling median) and the index
    of the middle of that window."""
    w = window_for(len(values))
    if len(values) < w:
        return float(np.median(values)), len(values) // 2
    med = np.median(sliding_window_view(values, w), axis=1)
    i = int(np.argmin(med))
    return float(med[i]), i + w // 2


def measure(run: Run, al: Alignment) -> RunMetrics:
    m = RunMetrics(run.source)
    _loss(m, run, al)
    _eval(m, run, al)
    _grad(m, run, al)
    _throughput(m, run, al)
    _lr(m, run)
    return m


def _loss(m: RunMetrics, run: Run, al: Alignment) -> None:
    x_all, v_all = al.window(run, run.get("loss"), finite=False)
    m.loss_non_finite = int(np.sum(~np.isfinite(v_all)))
    keep = np.isfinite(v_all)
    x, v = x_all[keep], v_all[keep]
    m.loss_points = len(v)
    if len(v) == 0:
        return
    x, v = thin(x, v)
    (m.floor, at), m.end, m.start = floor_level(v), robust_level(v), head_level(v)
    m.floor_at = float(x[at])
    if m.start > 0:
        m.improvement = (m.start - m.end) / m.start
    if len(v) >= 2 and al.lo is not None:
        grid = np.linspace(al.lo, al.hi, GRID_POINTS)
        m.curve = np.interp(grid, x, rolling_median(v, window_for(len(v))))


def _eval(m: RunMetrics, run: Run, al: Alignment) -> None:
    _, v = al.window(run, run.get("eval_loss"))
    m.eval_points = len(v)
    if len(v):
        m.eval_best = float(np.min(v))
        m.eval_end = robust_level(v, lo=1)


def _grad(m: RunMetrics, run: Run, al: Alignment) -> None:
    _, v = al.window(run, run.get("grad_norm"), finite=False)
    m.grad_non_finite = int(np.sum(~np.isfinite(v)))
    v = v[np.isfinite(v)]
    m.grad_points = len(v)
    if len(v):
        m.grad_level = float(np.median(v))


def _positive_median(v: np.ndarray) -> float | None:
    v = v[np.isfinite(v) & (v > 0)]
    return float(np.median(v)) if len(v) else None


def _throughput(m: RunMetrics, run: Run, al: Alignment) -> None:
    """Samples/tokens per second if logged, else steps per second from step time or the clock."""
    s = run.get("throughput")
    if s is not None:
        val = _positive_median(al.window(run, s)[1])
        if val is not None:
            m.throughput, m.throughput_kind = val, f"{s.name} (logged)"
            return
    st = run.get("step_time")
    if st is not None:
        val = _positive_median(al.window(run, st)[1])
        if val is not None:
            m.throughput, m.throughput_kind = 1.0 / val, "steps/s"
            return
    loss = run.get("loss")
    if loss is not None and loss.wall is not None and len(loss) >= 3:
        rate = np.diff(loss.steps) / np.diff(loss.wall)
        val = _positive_median(rate)
        if val is not None:
            m.throughput, m.throughput_kind = val, "steps/s"
            return
    summary = run.meta.get("summary") if isinstance(run.meta, dict) else None
    if isinstance(summary, dict) and isinstance(summary.get("train_steps_per_second"), (int, float)):
        if summary["train_steps_per_second"] > 0:
            m.throughput, m.throughput_kind = float(summary["train_steps_per_second"]), "steps/s"


def _lr(m: RunMetrics, run: Run) -> None:
    s = run.get("learning_rate")
    if s is None or len(s.finite()) < 2:
        return
    s = s.finite()
    m.lr_peak = float(np.max(np.abs(s.values)))
    total = planned_length(run) or float(s.steps[-1]) or 1.0
    frac = s.steps / total
    grid = np.linspace(0.0, 1.0, LR_GRID_POINTS)
    shape = np.interp(grid, frac, np.abs(s.values) / m.lr_peak) if m.lr_peak > 0 else np.zeros_like(grid)
    shape[(grid < frac[0]) | (grid > frac[-1])] = np.nan  # outside what was logged
    m.lr_shape = shape
