"""Overfitting: the eval loss climbs while the train loss keeps falling."""

from __future__ import annotations

import re

import numpy as np

from ..model import RunMeta
from ..registry import Context, NotChecked, StandDown, Threshold, rule
from ..verdict import Finding
from ._evals import checkpoint_steps, share_of_fall, train_at
from .stats import fmt, fstep, level_se, median, neighbour_noise


@rule(
    code="TL060",
    live="warmup",
    name="overfit",
    category="overfit",
    severity="WARN",
    summary="The eval loss rose past its minimum while the train loss kept falling.",
    explanation="""
Finds the best (lowest) eval loss and compares the end of the eval curve (median of its
last evaluations, each of which must stay above the best) with it. A rise by `min_rise`
while the smoothed train loss kept falling after the best step means the model
memorises the training set and gets worse on held-out data. The finding names the best
eval step and, when the log names checkpoints, the one closest to it. When the best is the
second-to-last evaluation, one higher last point is noise unless it rose by `single_rise`.
A run that early stopping ended (the log says so) caught the rise itself: a NOTE. So is a rise
that is immaterial on the scale the run moved on: under `immaterial` of the eval loss's fall
from its first evaluation to its best (1e-6 to 3e-6 after a fall from 0.1 is a ratio of 3 of
two numbers near 0, not a model getting worse). So is a rise within the eval loss's own
noise around a plateau: with `noise_points` evaluations or more, the noise is the robust spread
of each evaluation's departure from the line through its neighbours (a steady fall or climb
departs by nothing); a rise (end level - best) under `noise_rise` times it, on a curve that was
back at its best (within half of `min_rise`) in the later half of the evaluations between the
best and the end, with no climb across them (`climb_z` standard errors), is the lowest bounce of
a plateau, not a sustained climb. Try: keep that checkpoint (load_best_model_at_end), stop
earlier, more data, more regularisation.""",
    thresholds=[
        Threshold("min_rise", 1.1, "end eval level / best eval loss that counts as overfit"),
        Threshold("min_points", 4, "finite eval points needed to judge"),
        Threshold("tail", 3, "last evaluations whose median is the end level"),
        Threshold("single_rise", 1.5, "when only the last evaluation lies after the best, the rise it needs to count"),
        Threshold("immaterial", 0.01, "rise (end - best) under this share of the eval loss's fall: a NOTE"),
        Threshold("noise_rise", 3.0, "rise (end - best) under this many times the eval loss's own noise: a NOTE"),
        Threshold("noise_points", 8, "finite eval points needed to weigh the rise against their noise"),
        Threshold(
            "climb_z", 2.0, "climb across the evaluations after the best (standard errors) that is a sustained rise"
        ),
    ],
)
def overfit(ctx: Context) -> Finding | None:
    e = ctx.series("eval_loss", min_points=int(ctx.t("min_points")))
    best_i = int(np.argmin(e.values))
    best = float(e.values[best_i])
    k = int(min(ctx.t("tail"), len(e) - best_i - 1))
    if k < 1:
        return None  # best is the last evaluation
    end = float(median(e.values[-k:]))
    if best <= 0:
        raise StandDown(f"best eval loss {fmt(best)} is not positive; ratio cannot be judged")
    ratio = end / best
    if ratio < ctx.t("min_rise") or e.values[-k:].min() <= best * (1 + (ctx.t("min_rise") - 1) / 2):
        return None
    if k < 2 and ratio < ctx.t("single_rise"):
        raise StandDown(
            f"only the last evaluation ({fmt(end)}, {fmt(ratio)}x the best {fmt(best)}) is above the "
            "best: one point is not a trend"
        )
    tr = train_at(ctx, np.array([e.steps[best_i], e.steps[-1]]))
    if tr is None or not np.isfinite(tr).all():
        raise StandDown("eval loss rose but no train loss covers the same steps to compare")
    if tr[1] >= tr[0]:
        raise StandDown(
            f"eval loss rose {fmt(ratio)}x but train loss did not fall "
            f"({fmt(tr[0])} to {fmt(tr[1])}): not overfitting (see divergence)"
        )
    near, stopped, extra = _checkpoint_words(RunMeta.of(ctx.subject), float(e.steps[best_i]))
    cost, why = _immaterial(ctx, e.values, end - best)
    sigma, in_noise, noisy, bounce = _within_noise(ctx, e.values, end, best_i)
    return ctx.fire(
        f"overfitting: best eval loss {fmt(best)} at step {fstep(e.steps[best_i])}, ended at {fmt(end)} "
        f"({fmt(ratio)}x, threshold {fmt(ctx.t('min_rise'))}x) while train loss fell "
        f"{fmt(tr[0])} to {fmt(tr[1])}{extra}{why}{noisy}",
        step=e.steps[best_i],
        severity="NOTE" if stopped is not None or why or bounce else None,
        rise_share_of_fall=cost,
        eval_noise=sigma,
        rise_over_noise=in_noise,
        best_step=e.steps[best_i],
        best_eval=best,
        end_eval=end,
        ratio=ratio,
        threshold=ctx.t("min_rise"),
        train_at_best=float(tr[0]),
        train_at_end=float(tr[1]),
        nearest_checkpoint=near,
        steps_past_best=e.steps[-1] - e.steps[best_i],
    )


def _checkpoint_words(meta: RunMeta, best_step: float) -> tuple[float | None, int | float | None, str]:
    """(the checkpoint nearest the best step, the early-stopped epoch, the words for both)."""
    ckpts = checkpoint_steps(meta)
    near = min(ckpts, key=lambda c: abs(c - best_step)) if ckpts else None
    extra = f"; nearest checkpoint: step {fstep(near)}" if near is not None else ""
    stopped = meta.early_stopped_epoch
    if stopped is not None:  # the loop saw the rise and stopped: handled, a record
        extra += f"; early stopping ended the run (epoch {stopped}): the rise was caught"
    return near, stopped, extra


def _immaterial(ctx: Context, evals: np.ndarray, rise: float) -> tuple[float | None, str]:
    """(the rise as a share of the eval loss's fall, the words that make it a NOTE where that
    share is under ``immaterial``: a ratio of two numbers near 0, not a model getting worse)."""
    cost = share_of_fall(evals, rise)
    if cost is None or cost >= ctx.t("immaterial"):
        return cost, ""
    return cost, (
        f"; the rise is {fmt(cost * 100)}% of the eval loss's fall from {fmt(float(evals[0]))} "
        f"(threshold {fmt(ctx.t('immaterial') * 100)}%): immaterial, a ratio of numbers near 0 (a NOTE)"
    )


def _within_noise(
    ctx: Context, evals: np.ndarray, end: float, best_i: int
) -> tuple[float | None, float | None, str, bool]:
    """(the eval loss's evaluation-to-evaluation noise, the rise in units of it, the words, whether
    the rise is a bounce around a plateau: under ``noise_rise`` of them, the curve back at its best
    late (in the later half of the evaluations between the best and the last ``tail``), and no
    climb across the evaluations after the best (``climb_z``); a NOTE). Nones under
    ``noise_points`` evaluations."""
    if len(evals) < ctx.t("noise_points"):
        return None, None, "", False
    best = float(evals[best_i])
    sigma, rise = neighbour_noise(evals), end - best
    times = rise / sigma if sigma > 0 else None
    if times is None or times >= ctx.t("noise_rise"):
        return sigma, times, "", False
    band = best * (1 + (ctx.t("min_rise") - 1) / 2)
    between = evals[best_i + 1 : len(evals) - int(ctx.t("tail"))]
    back = np.flatnonzero(between <= band)
    climb = _climb(evals[best_i + 1 :], sigma)
    if len(back) == 0 or 2 * back[-1] < len(between) or climb is None or climb >= ctx.t("climb_z"):
        return sigma, times, "", False
    words = (
        f"; the rise ({fmt(rise)}) is {fmt(times)}x the eval loss's own evaluation-to-evaluation "
        f"noise ({fmt(sigma)}; threshold {fmt(ctx.t('noise_rise'))}x) and the curve came back to "
        f"{fmt(float(between[back[-1]]))} after its best: noise around a plateau, not a sustained "
        "climb (a NOTE)"
    )
    return sigma, times, words, True


def _climb(after: np.ndarray, sigma: float) -> float | None:
    """How far the later half of the evaluations after the best lies above the earlier half, in
    standard errors of the difference of their medians; None under 4 evaluations."""
    m = len(after) // 2
    if m < 2:
        return None
    se = level_se(sigma, m) * np.sqrt(2.0)
    return float((median(after[-m:]) - median(after[:m])) / se)


def best_step_of(meta: RunMeta) -> tuple[float, str] | None:
    """The step of the trainer's own best model: best_step / best_global_step, or the step
    in best_model_checkpoint's name."""
    for key, v in (("best_step", meta.best_step), ("best_global_step", meta.best_global_step)):
        if v is not None:
            return float(v), key
    best = meta.best_model_checkpoint
    if best is not None:
        m = re.search(r"checkpoint[-_]?(\d+)", best)
        if m:
            return float(m.group(1)), "best_model_checkpoint"
    return None


@rule(
    code="TL061",
    live="share",
    name="best-model-stale",
    category="overfit",
    severity="WARN",
    summary="The trainer's own best model lies far before the end: the rest of the run brought no improvement.",
    explanation="""
Trainers that track a best model (Hugging Face's best_model_checkpoint / best_global_step,
Coqui's BEST MODEL lines) record the step where the monitored eval metric was last at its
best. When evaluations followed it and that step lies more than `stale_fraction` of the
run before the last logged step, the whole tail of the run did not improve the model on
held-out data: overfitting or a plateau. When the best model is simply the latest
evaluation, the rule stands down. When the last eval loss is still within `near` (5%) of its
best, the tail cost nothing measurable on held-out data: a NOTE. Keep the best checkpoint and stop earlier next time, or change the schedule.""",
    thresholds=[
        Threshold("stale_fraction", 0.25, "share of the run after the best model that WARNs"),
        Threshold("near", 0.05, "last eval loss within this share of its best: a NOTE"),
    ],
)
def best_model_stale(ctx: Context) -> Finding | None:
    run = ctx.subject
    got = best_step_of(RunMeta.of(run))
    if got is None:
        raise NotChecked("the log names no best model (best_step, best_model_checkpoint)")
    best, key = got
    ev = run.get("eval_loss")
    if ev is None or len(ev.finite()) == 0:
        raise NotChecked("no eval loss logged to tell whether evaluations followed the best model")
    later = int(np.sum(ev.finite().steps > best))
    if later == 0:
        raise StandDown(f"no evaluation after the best model's step {fstep(best)}: it is the latest one")
    ends = [float(s.steps.max()) for s in run.series.values() if len(s)]
    last = max(ends)
    frac = (last - best) / last if last > 0 else 0.0
    if frac < ctx.t("stale_fraction"):
        return None
    fin = ev.finite().values
    above = float(fin[-1] / np.min(fin) - 1) if np.min(fin) > 0 else None
    held = above is not None and above <= ctx.t("near")
    tail = (
        f"; the last eval loss is {fmt(above * 100)}% above its best (a NOTE: within "
        f"{fmt(ctx.t('near') * 100)}%, the tail cost nothing measurable; the best checkpoint is kept)"
        if held and above is not None
        else ""
    )
    return ctx.fire(
        f"best model at step {fstep(best)} ({key}), {fstep(last - best)} steps ({fmt(frac * 100)}% of the run) "
        f"before the last step {fstep(last)}; {later} later evaluation(s) did not improve "
        f"(threshold {fmt(ctx.t('stale_fraction') * 100)}%){tail}",
        severity="NOTE" if held else None,
        eval_above_best=above,
        step=best,
        best_step=best,
        last_step=last,
        stale_fraction=frac,
        source_key=key,
        later_evals=later,
        threshold=ctx.t("stale_fraction"),
    )
