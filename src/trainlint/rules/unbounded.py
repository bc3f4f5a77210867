"""A loss that falls without bound: negative, orders of magnitude past where it started, and
still falling at the end (what a loss with no floor does, and what no ratio-to-best rule sees)."""

from __future__ import annotations

import numpy as np

from ..registry import Context, StandDown, Threshold, rule
from ..verdict import Finding
from .kept import coarse_of
from .stagnation import around_zero
from .stats import fmt, fstep, median


@rule(
    code="TL013",
    name="loss-unbounded-below",
    category="divergence",
    severity="FAIL",
    summary="The loss fell without bound: negative, orders of magnitude past its start, still falling.",
    explanation="""
A loss that ends below zero at `factor` times the magnitude it started at (the medians of the
last and the first tenth of the run), and whose last tenth still lies `still_falling` of that
magnitude below the tenth before it, has no floor: every update finds more of it to take. The
divergence rules measure a rise above the best level, so a loss that "improves" from -3.4e4 to
-6.5e7 passes them. A loss that may go negative and settles (a normalising flow's negative
log-likelihood levelling out at -1,170 from -22) stops falling and stands down, and so does a
loss that swings around zero (`min_sign_share` of its points negative and as many positive: a
policy-gradient surrogate); one that starts at exactly zero has no scale to compare with. Usual
causes: targets outside the range the loss is defined on (binary cross-entropy or a log loss
fed labels outside [0, 1]), a sign error that maximises what should be minimised, a likelihood
over outputs nothing normalises (a variance or a density that can grow without limit). Try:
check the targets' range against the loss, and the sign of every term added to it.""",
    live="always",
    thresholds=[
        Threshold("factor", 100.0, "magnitude of the end level / magnitude of the start level"),
        Threshold("still_falling", 0.1, "fall over the last tenth, as a share of the end level's magnitude"),
        Threshold("min_sign_share", 0.2, "share of negative and of positive points of a loss swinging around 0"),
        Threshold("min_points", 10, "finite loss points needed to judge"),
    ],
)
def loss_unbounded_below(ctx: Context) -> Finding | None:
    s = ctx.series("loss", min_points=int(ctx.t("min_points")))
    steps, v = coarse_of(ctx, s)
    k = max(1, len(v) // 10)
    start, before, end = (float(median(part)) for part in (v[:k], v[-2 * k : -k], v[-k:]))
    scale = float(median(np.abs(v[:k])))
    if end >= 0 or abs(end) < ctx.t("factor") * scale or before - end < ctx.t("still_falling") * abs(end):
        return None
    if scale == 0:
        raise StandDown("the loss starts at exactly 0: no scale to measure its fall against")
    around_zero(v, ctx.t("min_sign_share"))
    ratio = abs(end) / scale
    return ctx.fire(
        f"loss fell without bound: the median of its last tenth, {fmt(end)} (to step {fstep(float(steps[-1]))}), "
        f"is {fmt(ratio)}x the magnitude of its first tenth's ({fmt(start)}; threshold {fmt(ctx.t('factor'))}x), "
        f"and it is still falling: {fmt(before)} in the tenth before, a fall of "
        f"{fmt(100 * (before - end) / abs(end))}% of its magnitude (threshold {fmt(100 * ctx.t('still_falling'))}%)",
        step=float(steps[-1]),
        start_level=start,
        end_level=end,
        level_before=before,
        ratio=ratio,
        factor=ctx.t("factor"),
        points=len(v),
    )
