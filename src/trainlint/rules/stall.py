"""Stalls: long silences in a log relative to its own cadence."""

from __future__ import annotations

import math

import numpy as np

from ..model import Run
from ..registry import Context, NotChecked, Threshold, rule
from ..running import Source
from ..verdict import Finding
from ._evals import scheduled_steps, spans_scheduled
from .kept import median_kept, stamps_kept
from .stats import fmt, fstep, median, no_clock_reason, wall_clock


@rule(
    code="TL090",
    whole_run=True,
    name="log-stalled",
    category="stall",
    severity="WARN",
    summary="No new record for a long wall time relative to the run's own logging cadence.",
    explanation="""
Measures the wall-clock gap between consecutive records against the run's median gap. A
gap of `factor` times the cadence (and at least `min_seconds`) means the run hung: a
deadlocked collective (NCCL), a stuck data loader, a filesystem that stopped answering,
a very slow checkpoint write. For a live run, the time since the last record counts as
a gap too; the gap where the step counter goes back (a restart, TL095) does not count, nor
does a gap spanning an evaluation or checkpoint step the log names, unless it is over 10x
the shortest such pause or longer than `max_pause` (an evaluation that hung).
Try: py-spy dump of the hung process, NCCL_DEBUG=INFO, the storage's health.""",
    thresholds=[
        Threshold("factor", 10.0, "gap / median gap that fires"),
        Threshold("min_seconds", 300, "a gap must also exceed this many seconds"),
        Threshold("max_pause", 3600, "a pause at an eval/checkpoint step longer than this counts"),
        Threshold("min_points", 10, "timestamped records needed to judge"),
    ],
)
def log_stalled(ctx: Context) -> Finding | None:
    count, last, pos, top, src, source, whole = _clock(ctx)
    if count < ctx.t("min_points"):
        raise NotChecked(f"{count} timestamped records, needs {int(ctx.t('min_points'))}")
    if len(pos) == 0:
        raise NotChecked("all records carry the same timestamp")
    cadence = float(median_kept(ctx, f"positive gaps {src} {ctx.subject.roles.get('loss')}", pos, source=source))
    now = ctx.extra.get("now") if ctx.extra else None
    limit = max(ctx.t("factor") * cadence, ctx.t("min_seconds"))
    if isinstance(now, (int, float)) and now > last:
        top = max(top, now - last)
    if not top > limit:  # no long gap: nothing for _explained to excuse
        return None
    steps, wall, gaps, _ = whole or _gaps(ctx)
    if isinstance(now, (int, float)) and now > wall[-1]:
        gaps = np.append(gaps, now - wall[-1])
    explained = _explained(ctx.subject, steps, gaps, limit) & (gaps <= ctx.t("max_pause"))
    big = np.flatnonzero((gaps > limit) & ~explained)
    if len(big) == 0:
        return None
    i = int(big[np.argmax(gaps[big])])
    after = float(steps[min(i, len(steps) - 1)])
    live = i == len(steps) - 1
    where = "since the last record" if live else f"after step {fstep(after)}"
    return ctx.fire(
        f"log stalled for {fmt(float(gaps[i]))} s {where} ({fmt(float(gaps[i]) / cadence)}x the median gap "
        f"{fmt(cadence)} s; {len(big)} gap(s) over {fmt(limit)} s; {src})",
        step=after,
        gap_seconds=float(gaps[i]),
        cadence_seconds=cadence,
        ratio=float(gaps[i]) / cadence,
        gaps=len(big),
        threshold=limit,
        live=live,
        explained_gaps=int(explained.sum()),
    )


Clock = tuple[np.ndarray, np.ndarray, np.ndarray, str]  # what _gaps gives


def _clock(ctx: Context) -> tuple[int, float, np.ndarray, float, str, Source | None, Clock | None]:
    """(how many timestamped records, the last time, the positive gaps between records, the
    longest gap, the clock's source, where a live run's kept state finds the positive gaps,
    :func:`_gaps` when computed); on a live run from the stamps kept since its start."""
    kept = stamps_kept(ctx)
    if kept is not None and kept.last is not None:
        return kept.count, kept.last[1], kept.positive.view(), kept.top, "wall-clock stamps", kept.positive_gaps, None
    whole = _gaps(ctx)
    steps, wall, gaps, src = whole
    last = float(wall[-1]) if len(wall) else math.nan
    return len(wall), last, gaps[gaps > 0], float(gaps.max()) if len(gaps) else -math.inf, src, None, whole


def _gaps(ctx: Context) -> Clock:
    """(steps, wall times, the gaps between records: 0 where the step goes back, since the
    time a restart took is not a hang (TL095 reports resumes); the clock's source)."""
    got = wall_clock(ctx.subject)
    if got is None:
        raise NotChecked(no_clock_reason(ctx.subject, "no wall-clock timestamps in this log"))
    steps, wall, src = got
    gaps = np.diff(wall)
    gaps[np.diff(steps) < 0] = 0.0
    return steps, wall, gaps, src


def _explained(run: Run, steps: np.ndarray, gaps: np.ndarray, limit: float) -> np.ndarray:
    """Long gaps that span an evaluation or checkpoint step and are no longer than 10x the
    shortest such gap: a pause by design, not a hang."""
    sched = scheduled_steps(run)
    n = len(steps)
    lo, hi = steps[: len(gaps)], steps[np.minimum(np.arange(1, len(gaps) + 1), n - 1)]
    cadence = float(median(np.diff(steps))) if n > 1 else 1.0
    on = spans_scheduled(lo, hi, sched, max(cadence, 0.0)) & (gaps > limit)
    if not on.any():
        return on
    return on & (gaps <= 10 * float(np.min(gaps[on])))
