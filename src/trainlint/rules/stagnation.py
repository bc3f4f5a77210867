"""Stagnation: a loss that does not move."""

from __future__ import annotations

import numpy as np

from ..registry import Threshold, rule
from ._stats import fmt


@rule(code="TL030", name="loss-flat", category="stagnation", severity="FAIL",
      summary="The loss is (nearly) constant: nothing is being learned.",
      explanation="""
A loss whose spread (5th to 95th percentile) is a vanishing fraction of its level is not
being optimised at all: frozen parameters, a zero learning rate, detached graph, a
constant batch, or a logger that writes the same number every time. Try: check that the
optimizer holds the parameters you train, that requires_grad is set, and that the
logged value is the current batch's loss.""",
      thresholds=[Threshold("max_rel_spread", 1e-4, "spread / |median| below which the loss is flat"),
                  Threshold("min_points", 10, "finite loss points needed to judge")])
def loss_flat(ctx):
    s = ctx.series("loss", min_points=int(ctx.t("min_points")))
    lo, med, hi = np.percentile(s.values, [5, 50, 95])
    spread = float(hi - lo)
    rel = spread / max(abs(float(med)), 1e-12)
    if rel > ctx.t("max_rel_spread"):
        return None
    return ctx.fire(
        f"loss is flat at {fmt(med)} over {len(s)} points (relative spread {fmt(rel)}, "
        f"threshold {fmt(ctx.t('max_rel_spread'))})",
        step=s.steps[0], level=float(med), spread=spread, relative_spread=rel,
        threshold=ctx.t("max_rel_spread"), points=len(s))
