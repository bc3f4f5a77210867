"""Overfitting: the eval loss climbs while the train loss keeps falling."""

from __future__ import annotations

import numpy as np

from ..registry import StandDown, Threshold, rule
from ._evals import checkpoint_steps, train_at
from ._stats import fmt, fstep


@rule(code="TL060", name="overfit", category="overfit", severity="WARN",
      summary="The eval loss rose past its minimum while the train loss kept falling.",
      explanation="""
Finds the best (lowest) eval loss and compares the end of the eval curve (median of its
last evaluations, each of which must stay above the best) with it. A rise by `min_rise`
while the smoothed train loss kept falling after the best step means the model
memorises the training set and gets worse on held-out data. The finding names the best
eval step and, when the log names checkpoints, the one closest to it. Try: keep that
checkpoint (load_best_model_at_end), stop earlier, more data, more regularisation.""",
      thresholds=[Threshold("min_rise", 1.1, "end eval level / best eval loss that counts as overfit"),
                  Threshold("min_points", 4, "finite eval points needed to judge"),
                  Threshold("tail", 3, "last evaluations whose median is the end level")])
def overfit(ctx):
    e = ctx.series("eval_loss", min_points=int(ctx.t("min_points")))
    best_i = int(np.argmin(e.values))
    best = float(e.values[best_i])
    k = int(min(ctx.t("tail"), len(e) - best_i - 1))
    if k < 1:
        return None  # best is the last evaluation
    end = float(np.median(e.values[-k:]))
    if best <= 0:
        raise StandDown(f"best eval loss {fmt(best)} is not positive; ratio cannot be judged")
    ratio = end / best
    if ratio < ctx.t("min_rise") or e.values[-k:].min() <= best * (1 + (ctx.t("min_rise") - 1) / 2):
        return None
    tr = train_at(ctx.subject, np.array([e.steps[best_i], e.steps[-1]]))
    if tr is None or not np.isfinite(tr).all():
        raise StandDown("eval loss rose but no train loss covers the same steps to compare")
    if tr[1] >= tr[0]:
        raise StandDown(f"eval loss rose {fmt(ratio)}x but train loss did not fall "
                        f"({fmt(tr[0])} to {fmt(tr[1])}): not overfitting (see divergence)")
    ckpts = checkpoint_steps(ctx.subject.meta)
    near = min(ckpts, key=lambda c: abs(c - e.steps[best_i])) if ckpts else None
    extra = f"; nearest checkpoint: step {fstep(near)}" if near is not None else ""
    return ctx.fire(
        f"overfitting: best eval loss {fmt(best)} at step {fstep(e.steps[best_i])}, ended at {fmt(end)} "
        f"({fmt(ratio)}x, threshold {fmt(ctx.t('min_rise'))}x) while train loss fell "
        f"{fmt(tr[0])} to {fmt(tr[1])}{extra}",
        step=e.steps[best_i], best_step=e.steps[best_i], best_eval=best, end_eval=end, ratio=ratio,
        threshold=ctx.t("min_rise"), train_at_best=float(tr[0]), train_at_end=float(tr[1]),
        nearest_checkpoint=near, steps_past_best=e.steps[-1] - e.steps[best_i])
