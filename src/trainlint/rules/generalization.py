"""Generalisation failure: train loss improves, eval loss never does."""

from __future__ import annotations

import numpy as np

from ..registry import Context, NotChecked, StandDown, Threshold, rule
from ..verdict import Finding
from .kept import coarse_of
from .stats import fmt, head_level, robust_level


@rule(
    code="TL070",
    live="share",
    name="no-generalization",
    category="generalization",
    severity="FAIL",
    summary="The train loss improved strongly while the eval loss never improved at all.",
    explanation="""
If the model fits the training data (train loss falls by `min_train_drop`) but the eval
loss never goes below its first value by more than `min_eval_drop`, nothing learned
carries over to held-out data. Both are measured over the same window, from the first
evaluation on; when the train loss had already fallen strongly before the first evaluation
(fine-tuning evaluated late), whether the eval loss improved is unknown and the rule stands
down (TL060 judges a later rise). With one run and an eval set this is how unlearnable data
shows: shuffled or random labels, an eval set from another distribution, a broken eval
preprocessing. Try: check label alignment on a few examples, and that the eval data goes
through the same preprocessing and tokenizer as the training data.""",
    thresholds=[
        Threshold("min_train_drop", 0.3, "relative drop of the train loss that counts as strong"),
        Threshold("min_eval_drop", 0.01, "relative eval improvement that counts as any"),
        Threshold("min_points", 20, "train loss points needed to judge"),
        Threshold("min_eval_points", 4, "eval points needed to judge"),
    ],
)
def no_generalization(ctx: Context) -> Finding | None:
    s = ctx.series("loss", min_points=int(ctx.t("min_points")))
    e = ctx.series("eval_loss", min_points=int(ctx.t("min_eval_points")))
    _, v = coarse_of(ctx, s)
    start, end = head_level(v), robust_level(v)
    if start <= 0:
        raise NotChecked(f"train loss level {fmt(start)} is not positive")
    drop = (start - end) / start
    if drop < ctx.t("min_train_drop"):
        return None
    # one window for both losses (the one TL060 quotes): from the first evaluation on
    later = s.values[s.steps >= e.steps[0]]
    if len(later) >= 3:
        at_first = head_level(later)
        early = (start - at_first) / start
        if early >= ctx.t("min_train_drop"):
            raise StandDown(
                f"the first evaluation (step {fmt(float(e.steps[0]))}) came after the train loss had already "
                f"fallen {fmt(early * 100)}% ({fmt(start)} to {fmt(at_first)}): whether the eval loss improved "
                "before it is unknown (TL060 judges a later rise)"
            )
        start, drop = at_first, (at_first - end) / at_first if at_first > 0 else 0.0
        if drop < ctx.t("min_train_drop"):
            return None
    first, best = float(e.values[0]), float(np.min(e.values[1:]))
    eval_drop = (first - best) / abs(first) if first else 0.0
    if eval_drop >= ctx.t("min_eval_drop"):
        return None
    return ctx.fire(
        f"train loss fell {fmt(drop * 100)}% ({fmt(start)} to {fmt(end)}) but eval loss never improved: "
        f"first {fmt(first)}, best later {fmt(best)} over {len(e)} evaluations (thresholds: train drop "
        f"{fmt(ctx.t('min_train_drop') * 100)}%, eval improvement {fmt(ctx.t('min_eval_drop') * 100)}%)",
        step=e.steps[0],
        train_start=start,
        train_end=end,
        train_drop=drop,
        eval_first=first,
        eval_best=best,
        eval_drop=eval_drop,
        evaluations=len(e),
        threshold=ctx.t("min_train_drop"),
    )
