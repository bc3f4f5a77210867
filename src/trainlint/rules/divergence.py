"""Divergence: the loss rose and stayed up."""

from __future__ import annotations

import numpy as np

from ..registry import StandDown, Threshold, rule
from ._stats import fmt, robust_level, rolling_median, window_for


@rule(code="TL010", name="loss-diverged", category="divergence", severity="FAIL",
      summary="The loss ended far above its best level and stayed there.",
      explanation="""
Compares a robust end level (median of the last tenth of the run) with a robust
minimum (the lowest rolling median). A sustained rise to a multiple of the best level
means training diverged: the optimizer left the good region and did not come back.
A last-point blip does not count: the rise must persist over a stretch of the run.
If an eval loss exists and kept improving to the end, the train-loss rise alone is only
a WARN. Try: a lower peak learning rate, longer warm-up, gradient clipping, and the
checkpoint nearest the best step.""",
      thresholds=[Threshold("min_rise", 2.0, "end level / best level ratio that counts as diverged"),
                  Threshold("min_points", 10, "finite loss points needed to judge"),
                  Threshold("min_stretch", 0.2, "fraction of the run the rise must persist over")])
def loss_diverged(ctx):
    s = ctx.series("loss", min_points=int(ctx.t("min_points")))
    v = s.values
    rm = rolling_median(v, window_for(len(v)))
    best_i = int(np.argmin(rm))
    best = float(rm[best_i])
    if best <= 0:
        raise StandDown(f"best loss level {fmt(best)} is not positive; ratio cannot be judged")
    end = robust_level(v)
    ratio = end / best
    if ratio < ctx.t("min_rise"):
        return None
    half = best * (1 + (ctx.t("min_rise") - 1) / 2)
    above = float(np.mean(rm[best_i:] > half)) * (len(v) - best_i) / len(v)
    if above < ctx.t("min_stretch"):
        raise StandDown(f"loss rose {fmt(ratio)}x but only over {fmt(above * 100)}% of the run")
    evidence = dict(end_level=end, best_level=best, best_step=s.steps[best_i], ratio=ratio,
                    threshold=ctx.t("min_rise"), steps_past_best=s.steps[-1] - s.steps[best_i],
                    stretch_fraction=above)
    ev = ctx.subject.get("eval_loss")
    if ev is not None and len(ev.finite()) >= 3:
        e = ev.finite().values
        if e[-1] <= float(np.min(e)) * 1.01:
            return ctx.fire(
                f"train loss ended {fmt(ratio)}x its best ({fmt(end)} vs {fmt(best)} at step "
                f"{fmt(s.steps[best_i])}) but eval loss kept improving to the end ({fmt(e[-1])})",
                step=s.steps[best_i], severity="WARN", eval_last=e[-1], eval_best=float(np.min(e)),
                **evidence)
    return ctx.fire(
        f"loss diverged: end level {fmt(end)} is {fmt(ratio)}x its best {fmt(best)} "
        f"(step {fmt(s.steps[best_i])}), {fmt(s.steps[-1] - s.steps[best_i])} steps past the best "
        f"(threshold {fmt(ctx.t('min_rise'))}x)",
        step=s.steps[best_i], **evidence)
