"""Gradient norm problems: exploding and vanishing gradients."""

from __future__ import annotations

import numpy as np

from ..registry import Context, StandDown, Threshold, rule
from ..verdict import Finding
from .kept import abs_kept, coarse_of, median_kept, ordered
from .stats import fmt, fstep, head_level, longest_run, robust_level, rolling_median, window_for


def loss_improved(ctx: Context, rel: float = 0.05) -> float | None:
    """The judged run's loss's relative drop from its first to its last tenth when it exceeds
    ``rel``, else None."""
    loss = ctx.subject.get("loss")
    if loss is None or len(loss.finite()) < 10:
        return None
    f = loss.finite()
    _, v = coarse_of(ctx, f)
    start, end = head_level(v), robust_level(v)
    if start > 0 and (start - end) / start > rel:
        return (start - end) / start
    return None


@rule(
    code="TL050",
    name="grad-exploding",
    category="gradient",
    severity="WARN",
    summary="The gradient norm sits far above its early level for a sustained stretch.",
    explanation="""
Compares the rolling median of the gradient norm with its median over the first tenth of
the run. A sustained stretch many times above the early level means the gradients are
exploding: updates grow, the loss usually follows (WARN; FAIL when it lasts to the end).
A single spike is TL021. Try: gradient clipping, a lower LR, checking the loss scale and
for layers whose activations grow (missing normalisation).""",
    thresholds=[
        Threshold("factor", 10.0, "rolling median / early median that counts as exploding"),
        Threshold("min_stretch", 0.1, "fraction of the run the stretch must last"),
        Threshold("min_points", 20, "finite grad-norm points needed to judge"),
    ],
)
def grad_exploding(ctx: Context) -> Finding | None:
    s = ctx.series("grad_norm", min_points=int(ctx.t("min_points")))
    steps, v = coarse_of(ctx, s)
    early = head_level(v)
    if early <= 0:
        raise StandDown(f"early grad-norm level is {fmt(early)}; no ratio to judge")
    rm = rolling_median(v, window_for(len(v)))
    start, length = longest_run(rm > ctx.t("factor") * early)
    frac = length / len(v)
    if frac < ctx.t("min_stretch"):
        return None
    peak = float(rm[start : start + length].max())
    to_end = start + length == len(v)
    sev = "FAIL" if to_end else "WARN"
    return ctx.fire(
        f"grad norm {fmt(peak / early)}x its early level {fmt(early)} (rolling median up to {fmt(peak)}) "
        f"from step {fstep(steps[start])} to {fstep(steps[start + length - 1])}"
        f" ({fmt(frac * 100)}% of the run{', to the end' if to_end else ''}; threshold {fmt(ctx.t('factor'))}x)",
        step=steps[start],
        severity=sev,
        early_level=early,
        peak_level=peak,
        ratio=peak / early,
        start_step=steps[start],
        end_step=steps[start + length - 1],
        stretch_fraction=frac,
        threshold=ctx.t("factor"),
    )


@rule(
    code="TL051",
    name="grad-vanishing",
    category="gradient",
    severity="FAIL",
    summary="The gradient norm is (nearly) zero: nothing flows back to the parameters.",
    explanation="""
Fires FAIL when (nearly) every logged gradient norm is at or below `zero`, and WARN when the
late gradient norm collapsed to a tiny fraction of its early level. A run cannot learn
without gradient, so when the loss clearly improved the rule stands down: some trainers
log 0.0 when clipping is off or the norm is not computed. Usual causes: a detached loss,
frozen parameters, dead activations, a loss scale underflow. Try: print a parameter's
.grad after backward() and check requires_grad on the trained parameters.""",
    thresholds=[
        Threshold("zero", 1e-8, "a grad norm at or below this is zero"),
        Threshold("zero_fraction", 0.95, "share of zero grad norms that FAILs"),
        Threshold("collapse", 1e-3, "late / early grad-norm level that WARNs"),
        Threshold("min_points", 10, "grad-norm points needed to judge"),
    ],
)
def grad_vanishing(ctx: Context) -> Finding | None:
    s = ctx.series("grad_norm", min_points=int(ctx.t("min_points")))
    frac, early, late = _vanishing_levels(ctx, s.name, s.values)
    collapsed = early > 0 and late <= ctx.t("collapse") * early
    if frac < ctx.t("zero_fraction") and not collapsed:
        return None
    drop = loss_improved(ctx)
    if drop is not None:
        raise StandDown(
            f"grad norm looks {'zero' if frac >= ctx.t('zero_fraction') else 'collapsed'} "
            f"but the loss fell {fmt(drop * 100)}%: the logged norm is not the real one"
        )
    if frac >= ctx.t("zero_fraction"):
        zero = np.abs(s.values) <= ctx.t("zero")
        return ctx.fire(
            f"grad norm is zero at {int(zero.sum())} of {len(s)} points ({fmt(frac * 100)}%, "
            f"threshold {fmt(ctx.t('zero_fraction') * 100)}%) and the loss did not improve",
            step=s.steps[int(np.argmax(zero))],
            zero_points=int(zero.sum()),
            points=len(s),
            fraction=frac,
            threshold=ctx.t("zero_fraction"),
        )
    return ctx.fire(
        f"grad norm collapsed from {fmt(early)} to {fmt(late)} ({fmt(late / early)}x, threshold "
        f"{fmt(ctx.t('collapse'))}x) and the loss did not improve",
        step=s.steps[-1],
        severity="WARN",
        early_level=early,
        late_level=late,
        ratio=late / early,
        threshold=ctx.t("collapse"),
    )


def _vanishing_levels(ctx: Context, name: str, values: np.ndarray) -> tuple[float, float, float]:
    """(the share of grad norms at or below ``zero``, the early and the late level of |grad
    norm|): on a live run from the sorted blocks it keeps of them (kept.abs_kept, ordered)."""
    a, source = abs_kept(ctx, name, values)
    state = ordered(ctx, f"abs finite {name}", a, source)
    if state is None:
        return float((a <= ctx.t("zero")).mean()), head_level(a), robust_level(a)
    n = len(a)
    k = max(3, int(round(n * 0.1)))  # head_level's and robust_level's tenth
    early = float(median_kept(ctx, f"abs finite {name}", a, 0, k, source))
    late = float(median_kept(ctx, f"abs finite {name}", a, n - k, source=source))
    return state.count(a, ctx.t("zero")) / n, early, late
