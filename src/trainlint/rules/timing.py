"""Throughput: step time cliffs, slowdowns, periodic stalls, a loader-bound input pipeline."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..registry import Context, NotChecked, StandDown, Threshold, rule
from ..verdict import Finding
from ._evals import scheduled_steps, spans_scheduled
from .kept import above_kept, coarse_kept, median_kept, step_seconds_kept, step_seconds_source
from .stats import events, fmt, fstep, median, no_clock_reason, steps_list


def _step_seconds(ctx: Context) -> tuple[np.ndarray, np.ndarray, str] | None:
    """:func:`step_seconds` of the run, computed once per judgement for the four timing rules
    that read it (Context.shared; the arrays are only read)."""
    kept = ctx.shared.get("step_seconds")
    if kept is None or kept[0] is not ctx.subject:
        kept = ctx.shared["step_seconds"] = (ctx.subject, step_seconds_kept(ctx))
    got: tuple[np.ndarray, np.ndarray, str] | None = kept[1]
    return got


def _timed(ctx: Context, min_points: int) -> tuple[np.ndarray, np.ndarray, str, int]:
    """The run's step timings, all of them, and how many of the first to skip."""
    got = _step_seconds(ctx)
    if got is None:
        raise NotChecked(no_clock_reason(ctx.subject, "no step_time metric and no wall-clock timestamps in this log"))
    steps, sec, src = got
    if len(sec) < min_points:
        raise NotChecked(f"{len(sec)} step timings, needs at least {min_points}")
    skip = max(1, len(sec) // 50)  # the first steps include compilation and warm-up
    return steps, sec, src, skip


def _times(ctx: Context, min_points: int) -> tuple[np.ndarray, np.ndarray, str]:
    steps, sec, src, skip = _timed(ctx, min_points)
    return steps[skip:], sec[skip:], src


def _key(ctx: Context, src: str) -> str:
    """What the step timings are, for the state a live run keeps of them (Context.states)."""
    return f"step seconds {src} {ctx.subject.roles.get('loss')}"


# (steps, seconds, source, early median, late median, share of the rise in one jump, its step)
Shape = tuple[np.ndarray, np.ndarray, str, float, float, float, float]


def _shape(ctx: Context) -> Shape:
    """Early and late median step time, and how much of the rise is one jump (1.0 = a cliff);
    computed once per judgement for TL085 and TL086 (Context.shared), its refusal included."""
    key = f"timing shape {ctx.t('min_points')}"
    kept = ctx.shared.get(key)
    if kept is None or kept[0] is not ctx.subject:
        try:
            got: Shape | NotChecked | StandDown = _measure_shape(ctx)
        except (NotChecked, StandDown) as exc:
            got = exc
        kept = ctx.shared[key] = (ctx.subject, got)
    if isinstance(kept[1], (NotChecked, StandDown)):
        raise kept[1]
    shape: Shape = kept[1]
    return shape


def _measure_shape(ctx: Context) -> Shape:
    full, every, src, skip = _timed(ctx, int(ctx.t("min_points")))
    steps, sec, key = full[skip:], every[skip:], _key(ctx, src)
    k = max(3, len(sec) // 4)
    source = step_seconds_source(ctx)
    early = float(median_kept(ctx, key, every, skip, skip + k, source))
    late = float(median_kept(ctx, key, every, len(every) - k, source=source))
    if not early > 0:
        raise StandDown(f"early median step time is {fmt(early)} s: no ratio to judge")
    bs, bv = coarse_kept(ctx, key, full, every, skip, max(4, min(20, len(sec) // 5)), source)
    jumps = bv[2:] - bv[:-2] if len(bv) > 2 else np.diff(bv)  # a jump may straddle one block edge
    j = int(np.argmax(jumps)) if len(jumps) else 0
    share = float(jumps[j] / (late - early)) if late > early and len(jumps) else 0.0
    return steps, sec, src, early, late, share, float(bs[min(j + 1, len(bs) - 1)]) if len(jumps) else float(steps[0])


def _rise(ctx: Context) -> Shape | None:
    """:func:`_shape` when the late median step time exceeds the early one by the rule's
    ``ratio`` and ``min_seconds``; None when it does not (TL085 and TL086 share it)."""
    shape = _shape(ctx)
    early, late = shape[3], shape[4]
    if late < ctx.t("ratio") * early or late - early < ctx.t("min_seconds"):
        return None
    return shape


def _rise_evidence(ctx: Context, early: float, late: float, src: str) -> dict[str, Any]:
    return {
        "early_seconds": early,
        "late_seconds": late,
        "ratio": late / early,
        "threshold": ctx.t("ratio"),
        "source": src,
    }


CLIFF_SHARE = 0.6  # share of the rise made by one jump that makes it a cliff


@rule(
    code="TL085",
    name="step-time-cliff",
    category="throughput",
    severity="WARN",
    summary="Step time jumped to a multiple of its early level and stayed there.",
    explanation="""
Compares the median step time of the last quarter of the run with the first quarter
(skipping the very first steps, which include compilation). A jump by `ratio` that
happens at one point (most of the rise in one step of the block medians) is a cliff:
something changed mid-run, e.g. a thermal or power cap, a neighbour job on the GPU, a
swap to CPU offload, memory fragmentation, a node falling back to a slower interconnect.
An absolute floor keeps near-zero timings from firing. Step time comes from a step_time
metric or from the records' wall-clock stamps.""",
    thresholds=[
        Threshold("ratio", 2.0, "late / early median step time that fires"),
        Threshold("min_seconds", 0.05, "late - early must exceed this many seconds"),
        Threshold("min_points", 20, "step timings needed to judge"),
    ],
)
def step_time_cliff(ctx: Context) -> Finding | None:
    rise = _rise(ctx)
    if rise is None:
        return None
    steps, sec, src, early, late, share, at = rise
    if share < CLIFF_SHARE:
        raise StandDown(f"step time rose {fmt(late / early)}x gradually, not at once (TL086)")
    return ctx.fire(
        f"step time jumped from {fmt(early)} s to {fmt(late)} s ({fmt(late / early)}x, threshold "
        f"{fmt(ctx.t('ratio'))}x) around step {fstep(at)} ({src})",
        step=at,
        **_rise_evidence(ctx, early, late, src),
    )


@rule(
    code="TL086",
    live="share",
    name="slowdown",
    category="throughput",
    severity="WARN",
    summary="Step time grew gradually over the run.",
    explanation="""
Step time that creeps up over the run (late quarter median above the early quarter by
`ratio`, spread over the run rather than one jump) usually means something accumulates:
a growing Python list or cache, host memory fragmentation, a data loader whose
shuffle buffer or file handles grow, logging that keeps more history every step, or
thermal throttling. Try: profile an early and a late step and compare.""",
    thresholds=[
        Threshold("ratio", 1.5, "late / early median step time that fires"),
        Threshold("min_seconds", 0.05, "late - early must exceed this many seconds"),
        Threshold("min_points", 20, "step timings needed to judge"),
    ],
)
def slowdown(ctx: Context) -> Finding | None:
    rise = _rise(ctx)
    if rise is None:
        return None
    steps, sec, src, early, late, share, at = rise
    if share >= CLIFF_SHARE:
        raise StandDown(f"step time rose at once around step {fstep(at)} (TL085)")
    return ctx.fire(
        f"step time grew gradually from {fmt(early)} s to {fmt(late)} s ({fmt(late / early)}x, "
        f"threshold {fmt(ctx.t('ratio'))}x; {src})",
        step=steps[-1],
        **_rise_evidence(ctx, early, late, src),
    )


@rule(
    code="TL087",
    name="periodic-stalls",
    category="throughput",
    severity="WARN",
    summary="Step time has regular stalls (WARN when they cost a sizeable share of the time).",
    explanation="""
Steps far slower than the median (`factor` times, and by at least `min_seconds`) that recur
at a regular interval are periodic stalls: checkpoint saving, evaluation, a logger
flushing, a data loader refilling. They are expected when they match your save/eval
interval; they are a WARN when they cost more than `max_lost` of the total time, else a
NOTE, and always a NOTE when they fall on the steps where the log evaluates or saves a
checkpoint (a pause there is by design). Try: asynchronous checkpointing, less frequent saves, more loader workers.""",
    thresholds=[
        Threshold("factor", 5.0, "stall step time / median step time"),
        Threshold("min_seconds", 1.0, "a stall must exceed the median by this many seconds"),
        Threshold("min_count", 3, "stalls needed to call them periodic"),
        Threshold("max_cv", 0.25, "coefficient of variation of the intervals that counts as regular"),
        Threshold("max_lost", 0.1, "share of the total time lost that makes it a WARN"),
        Threshold("min_points", 20, "step timings needed to judge"),
    ],
)
def periodic_stalls(ctx: Context) -> Finding | None:
    full, every, src, skip = _timed(ctx, int(ctx.t("min_points")))
    steps, sec = full[skip:], every[skip:]
    med = float(median_kept(ctx, _key(ctx, src), every, skip, source=step_seconds_source(ctx)))
    above = above_kept(ctx, _key(ctx, src), every, ctx.t("factor") * med, skip)
    if above is not None and above < ctx.t("min_count"):  # a live run: fewer slow steps than stalls needed
        return None
    slow = (sec > ctx.t("factor") * med) & (sec - med > ctx.t("min_seconds"))
    ev = events(slow)
    if len(ev) < ctx.t("min_count"):
        return None
    at = np.array([steps[a] for a, _ in ev])
    gaps = np.diff(at)
    cv = float(np.std(gaps) / np.mean(gaps)) if np.mean(gaps) > 0 else np.inf
    if cv > ctx.t("max_cv"):
        raise StandDown(f"{len(ev)} slow steps but at irregular intervals (variation {fmt(cv)})")
    ds = np.diff(np.concatenate(([steps[0] - 1], steps)))
    lost = float(np.sum((sec[slow] - med) * ds[slow]) / np.sum(sec * ds))
    cadence = float(median(ds)) if len(ds) else 1.0
    prev = np.array([steps[max(a - 1, 0)] for a, _ in ev])
    planned = float(np.mean(spans_scheduled(prev, at, scheduled_steps(ctx.subject), cadence)))
    sev = "WARN" if lost >= ctx.t("max_lost") and planned < 0.8 else "NOTE"
    why = "; they fall on the evaluation/checkpoint steps" if planned >= 0.8 else ""
    return ctx.fire(
        f"{len(ev)} stalls every ~{fstep(float(median(gaps)))} steps (at {steps_list(at)}), up to "
        f"{fmt(float(sec[slow].max()))} s vs median {fmt(med)} s; {fmt(lost * 100)}% of the time lost "
        f"(WARN from {fmt(ctx.t('max_lost') * 100)}%; {src}){why}",
        step=at[0],
        severity=sev,
        stalls=len(ev),
        period=float(median(gaps)),
        interval_cv=cv,
        lost_fraction=lost,
        median_seconds=med,
        threshold=ctx.t("max_lost"),
        source=src,
        scheduled_share=planned,
    )


LOADER_NAMES = (
    "loader_time",
    "data_time",
    "dataloader_time",
    "time/data",
    "train/data_time",
    "data_loading_time",
    "load_time",
)


@rule(
    code="TL088",
    name="loader-bound",
    category="throughput",
    severity="WARN",
    summary="A large share of each step is spent waiting for data.",
    explanation="""
When the data-loading time per step (a loader_time or data_time metric) is a large share
of the step time, the accelerator is idle waiting for the input pipeline. Try: more
DataLoader workers, pin_memory, persistent_workers, pre-tokenised data, faster storage.""",
    thresholds=[
        Threshold("share", 0.3, "median loader time / median step time that fires"),
        Threshold("min_points", 5, "loader timings needed to judge"),
    ],
)
def loader_bound(ctx: Context) -> Finding | None:
    run = ctx.subject
    name = next((n for n in run.series if n.lower() in LOADER_NAMES), None)
    if name is None:
        raise NotChecked("no loader_time / data_time metric in this log")
    lt = run.series[name].finite()
    if len(lt) < ctx.t("min_points"):
        raise NotChecked(f"{name} has {len(lt)} finite points, needs {int(ctx.t('min_points'))}")
    got = _step_seconds(ctx)
    if got is None:
        raise NotChecked("no step time to compare the loader time with")
    load, step = float(median(lt.values)), float(median(got[1]))
    if step <= 0:
        raise StandDown(f"median step time is {fmt(step)} s")
    share = load / step
    if share < ctx.t("share"):
        return None
    return ctx.fire(
        f"data loading takes {fmt(load)} s of a {fmt(step)} s step ({fmt(share * 100)}%, threshold "
        f"{fmt(ctx.t('share') * 100)}%; {name})",
        step=lt.steps[0],
        loader_seconds=load,
        step_seconds=step,
        share=share,
        threshold=ctx.t("share"),
        metric=name,
    )
