"""Non-finite and degenerate values in the loss."""

from __future__ import annotations

import numpy as np

from ..registry import Threshold, rule
from ._stats import fmt


@rule(code="TL001", name="non-finite-loss", category="nan", severity="FAIL",
      summary="The training loss is NaN or infinite.",
      explanation="""
A NaN or infinite loss means the forward or backward pass overflowed or divided by
zero; every update after it is garbage, and in most trainers the weights are now NaN.
Usual causes: a learning rate too high, fp16 without a loss scaler, log(0) in a custom
loss, a bad batch. Try: lower the learning rate, enable gradient clipping, use bf16 or
a loss scaler, and look at the batch logged just before the first bad step.""",
      thresholds=[Threshold("min_count", 1, "non-finite loss points needed to fire")])
def non_finite_loss(ctx):
    s = ctx.series("loss", finite=False)
    bad = ~np.isfinite(s.values)
    count = int(bad.sum())
    if count < ctx.t("min_count"):
        return None
    first = int(np.argmax(bad))
    to_end = bool(bad[first:].all())
    kind = "NaN" if np.isnan(s.values[first]) else "infinite"
    tail = " and stays non-finite to the end" if to_end else ""
    return ctx.fire(
        f"loss is {kind} at step {fmt(s.steps[first])}{tail}: {count} of {len(s)} points non-finite",
        step=s.steps[first], first_step=s.steps[first], count=count, points=len(s),
        value=s.values[first], non_finite_to_end=to_end, threshold=ctx.t("min_count"))
