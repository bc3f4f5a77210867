"""Spikes: isolated jumps of the loss or the gradient norm above their local level."""

from __future__ import annotations

import numpy as np

from ..registry import Threshold, rule
from ._stats import events, fmt, local_stats, steps_list


def find_spikes(steps: np.ndarray, values: np.ndarray, z: float, ratio: float, frac: float,
                max_window: int = 51) -> list[dict]:
    """Spike events: points whose robust score (value - local median) / local MAD exceeds
    ``z``, whose value exceeds ``ratio`` times the local median and that jump up by that
    ratio from the points just before. Consecutive points form one event. Each event: start/end index, peak step, peak value, baseline, score."""
    n = len(values)
    window = int(max(7, min(max_window, round(n * frac)))) | 1
    med, dev = local_stats(values, window)
    floor = np.maximum(dev, 0.01 * np.abs(med)) + 1e-12
    score = (values - med) / floor
    mask = (score > z) & (values > ratio * med) & (med > 0)
    out = []
    for a, b in events(mask):
        pre = values[max(0, a - 3): a]
        if a == 0 or values[a:b].max() <= ratio * float(np.median(pre)):
            continue  # not a jump up from the points before (e.g. the steep start of a run)
        p = a + int(np.argmax(values[a:b]))
        out.append(dict(start=a, end=b, step=float(steps[p]), value=float(values[p]),
                        baseline=float(med[p]), score=float(score[p])))
    return out


def _recovered(values: np.ndarray, ev: dict, ratio: float) -> bool:
    after = values[ev["end"]: ev["end"] + max(3, ev["end"] - ev["start"])]
    return len(after) > 0 and float(np.median(after)) < ev["baseline"] * (1 + (ratio - 1) / 2)


@rule(code="TL020", name="loss-spike", category="spike", severity="WARN",
      summary="The loss jumped far above its local level at some steps.",
      explanation="""
A spike is a point far above the local median by a robust score (distance from the
median of a rolling window, in units of its median absolute deviation) and by a ratio.
A spike that recovers is a WARN, never a FAIL: the run survived it, but spikes cost
progress and often precede divergence. Usual causes: a learning rate near the edge of
stability, a bad batch (very long or corrupt sample), fp16 overflow. Try: gradient
clipping, a slightly lower LR or longer warm-up, and look at the batches at the steps.""",
      thresholds=[Threshold("z", 6.0, "robust score (MADs above the local median) of a spike"),
                  Threshold("ratio", 1.3, "value / local median a spike must exceed"),
                  Threshold("window", 0.1, "rolling window as a fraction of the run (7 to 51 points)"),
                  Threshold("min_points", 20, "finite loss points needed to judge")])
def loss_spike(ctx):
    s = ctx.series("loss", min_points=int(ctx.t("min_points")))
    found = find_spikes(s.steps, s.values, ctx.t("z"), ctx.t("ratio"), ctx.t("window"))
    if not found:
        return None
    worst = max(found, key=lambda e: e["value"] / max(e["baseline"], 1e-300))
    rec = sum(_recovered(s.values, e, ctx.t("ratio")) for e in found)
    steps = np.array([e["step"] for e in found])
    return ctx.fire(
        f"{len(found)} loss spike(s) at step {steps_list(steps)}; worst {fmt(worst['value'])} vs local "
        f"median {fmt(worst['baseline'])} ({fmt(worst['value'] / worst['baseline'])}x, score "
        f"{fmt(worst['score'])}, threshold {fmt(ctx.t('z'))}); {rec} recovered",
        step=worst["step"], spikes=len(found), spike_steps=steps.tolist(), recovered=rec,
        peak=worst["value"], baseline=worst["baseline"], score=worst["score"], threshold=ctx.t("z"))


def _loss_reacted(run, ev: dict, ratio: float) -> bool:
    """Did the loss jump (above ``ratio`` x its median before) within a few logs after the step?"""
    loss = run.get("loss")
    if loss is None or len(loss.finite()) < 6:
        return False
    f = loss.finite()
    i = int(np.searchsorted(f.steps, ev["step"]))
    before = f.values[max(0, i - 5): i]
    after = f.values[i: i + 3]
    return len(before) > 0 and len(after) > 0 and float(after.max()) > ratio * float(np.median(before))


@rule(code="TL021", name="grad-norm-spike", category="spike", severity="WARN",
      summary="The gradient norm spiked: repeated spikes or one the loss reacted to (WARN); a lone one (NOTE).",
      explanation="""
Same robust score as TL020, on the gradient norm. A lone grad-norm spike that leaves the
loss untouched is common (end of warm-up, one odd batch) and clipping absorbs it: it is
recorded as a NOTE. Repeated spikes, or a spike followed by a jump of the loss, mean
the optimizer keeps being thrown off: WARN. Try: gradient clipping (max_grad_norm),
a lower LR, a longer warm-up, and the batches at the listed steps.""",
      thresholds=[Threshold("z", 6.0, "robust score of a spike"),
                  Threshold("ratio", 3.0, "value / local median a spike must exceed"),
                  Threshold("repeat", 3, "spikes that make a WARN even without a loss reaction"),
                  Threshold("loss_ratio", 1.3, "loss jump (after / before) that counts as a reaction"),
                  Threshold("window", 0.1, "rolling window as a fraction of the run (7 to 51 points)"),
                  Threshold("min_points", 20, "finite grad-norm points needed to judge")])
def grad_norm_spike(ctx):
    s = ctx.series("grad_norm", min_points=int(ctx.t("min_points")))
    found = find_spikes(s.steps, s.values, ctx.t("z"), ctx.t("ratio"), ctx.t("window"))
    if not found:
        return None
    reacted = [e for e in found if _loss_reacted(ctx.subject, e, ctx.t("loss_ratio"))]
    worst = max(found, key=lambda e: e["value"] / max(e["baseline"], 1e-300))
    steps = np.array([e["step"] for e in found])
    sev = "WARN" if len(found) >= ctx.t("repeat") or reacted else "NOTE"
    tail = f"; the loss jumped after {len(reacted)}" if reacted else "; the loss did not react"
    return ctx.fire(
        f"{len(found)} grad-norm spike(s) at step {steps_list(steps)}; worst {fmt(worst['value'])} vs "
        f"local median {fmt(worst['baseline'])} ({fmt(worst['value'] / worst['baseline'])}x){tail}",
        step=worst["step"], severity=sev, spikes=len(found), spike_steps=steps.tolist(),
        loss_reactions=len(reacted), peak=worst["value"], baseline=worst["baseline"],
        score=worst["score"], threshold=ctx.t("z"), repeat_threshold=ctx.t("repeat"))
