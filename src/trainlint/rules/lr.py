"""Learning-rate schedule problems."""

from __future__ import annotations

import numpy as np

from ..registry import Threshold, rule
from ._stats import fmt


def _judged_lr(values: np.ndarray, eps: float) -> np.ndarray:
    """The LR points that should be non-zero: drop the first point (warm-up from 0)
    and a trailing run of zeros reached by a decaying schedule."""
    v = values[1:] if len(values) > 1 else values
    zero = np.abs(v) <= eps
    if zero.all():
        return v
    last_nz = int(np.flatnonzero(~zero)[-1])
    if last_nz < len(v) - 1:
        nz = v[: last_nz + 1][~zero[: last_nz + 1]]
        if len(nz) >= 2 and nz[-1] < nz.max():  # decayed to zero: legitimate
            v = v[: last_nz + 1]
    return v


@rule(code="TL040", name="lr-zero", category="lr", severity="FAIL",
      summary="The learning rate is zero on all or most steps.",
      explanation="""
With a zero learning rate the optimizer makes no update: the loss can only wander with
the batches. Zeros at the first warm-up step and at the end of a decaying schedule are
legitimate and ignored. Usual causes: a scheduler stepped before the optimizer, a
warm-up longer than the run, lr=0 in a config, a LambdaLR that returns 0. Try: print
optimizer.param_groups[0]['lr'] for the first steps and check the scheduler's arguments.""",
      thresholds=[Threshold("fail_fraction", 0.95, "share of zero-LR points that FAILs"),
                  Threshold("warn_fraction", 0.25, "share of zero-LR points that WARNs"),
                  Threshold("zero", 1e-12, "an |LR| at or below this is zero"),
                  Threshold("min_points", 3, "LR points needed to judge")])
def lr_zero(ctx):
    s = ctx.series("learning_rate", min_points=int(ctx.t("min_points")))
    v = _judged_lr(s.values, ctx.t("zero"))
    zeros = int(np.sum(np.abs(v) <= ctx.t("zero")))
    frac = zeros / max(len(v), 1)
    if frac < ctx.t("warn_fraction"):
        return None
    sev = "FAIL" if frac >= ctx.t("fail_fraction") else "WARN"
    threshold = ctx.t("fail_fraction") if sev == "FAIL" else ctx.t("warn_fraction")
    first = s.steps[int(np.argmax(np.abs(s.values) <= ctx.t("zero")))]
    return ctx.fire(
        f"learning rate is zero on {zeros} of {len(v)} judged points ({fmt(frac * 100)}%, "
        f"threshold {fmt(threshold * 100)}%); max LR {fmt(float(np.max(np.abs(s.values))))}",
        step=first, severity=sev, zero_points=zeros, judged_points=len(v), fraction=frac,
        threshold=threshold, max_lr=float(np.max(np.abs(s.values))))
