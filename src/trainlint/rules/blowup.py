"""Brief blow-ups: the loss jumped far above both its best so far and where it started, on a log
of any length and at any step, warm-up included (what the trend rules' windows smooth away)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..registry import Context, StandDown, Threshold, rule
from ..verdict import Finding
from .kept import coarse_of
from .stats import blowup_candidates, centred_median, fmt, fstep, longest_run, window_for

# TL011's defaults: a blow-up it judges (long enough to hold its rolling median up) is left to it.
TL011_FACTOR, TL011_STRETCH, TL011_POINTS = 3.0, 0.1, 20
TL010_POINTS = 10  # a rise that lasts to the end is TL010's from this many points


@rule(
    code="TL012",
    name="loss-blowup-brief",
    category="divergence",
    severity="FAIL",
    summary="The loss jumped to many times its best so far and far above where it started.",
    explanation="""
A loss that jumps to `factor` times the lowest level it had reached and to `over_high` times
the highest it had been (its start, mostly) blew up: the updates undid all of training and
more, whether the run later came back or not. Measured against the highest level before it,
the per-batch noise of a heavy-tailed loss (one batch at 30x the best, no higher than the first
batches) does not count, nor does a jump the loss keeps coming back to (a per-sample loss
that reaches 1/`noise_band` of the peak `repeats` times or more after it: its own spread, for
the spike rule to report), nor a jump the run then learned far past (the loss's last tenth
settling at 1/`learned_past` of its best before the jump or lower: a VAE's KL term spiking in
its first steps, 153 -> 13,386 -> 0.07; the run's end model bears no mark of it). The trend rules (TL010, TL011, TL020) look at rolling windows and
need 10 to 20 points, so a blow-up in the first steps of a run (a learning rate too high through
warm-up: 8 -> 805 -> 3.7) or on a short log (10 epochs: 2.29 -> 63,020 -> 1.95) escapes them;
this rule judges the points themselves, on any number of them (3 or more). A blow-up long
enough for TL011, or one that lasts to the end on a log long enough for TL010, is left to that
rule. Live, it judges the points as they come: a blow-up is shown by the points themselves,
not by the whole run. Try: a lower peak learning rate, a longer warm-up, gradient clipping; on
a short run, check the epoch that blew up for a bad batch (an empty or mislabelled one) or a
too-large step.""",
    live="always",
    thresholds=[
        Threshold("factor", 10.0, "loss / lowest loss before it that counts as blown up"),
        Threshold("over_high", 2.0, "loss / highest loss before it (the start, mostly) that counts as blown up"),
        Threshold("min_points", 3, "finite loss points needed to judge"),
        Threshold("noise_band", 2.0, "a later point at or above peak / this comes back to the jump's height"),
        Threshold("repeats", 3, "later points back at the jump's height that make it the loss's own spread"),
        Threshold("learned_past", 100.0, "best before the jump / the last tenth's median: learned far past it"),
    ],
)
def loss_blowup_brief(ctx: Context) -> Finding | None:
    s = ctx.series("loss", min_points=int(ctx.t("min_points")))
    steps, v = coarse_of(ctx, s)
    if float(np.min(v)) <= 0:
        raise StandDown(f"loss reaches {fmt(float(np.min(v)))}: ratios to its best cannot be judged")
    factor = ctx.t("factor")
    prior = np.concatenate(([np.inf], np.minimum.accumulate(v)[:-1]))
    high = np.concatenate(([np.inf], np.maximum.accumulate(v)[:-1]))
    up = (v >= factor * prior) & (v >= ctx.t("over_high") * high)
    if not up.any():
        return None
    first = int(np.argmax(up))
    ref = float(prior[first])
    blown = v >= factor * ref  # as ``up`` counts it: the first point is blown
    last = first + (int(np.argmin(blown[first:])) - 1 if not blown[first:].all() else len(v) - 1 - first)
    peak_i = first + int(np.argmax(v[first : last + 1]))
    back = last < len(v) - 1
    _leave_to_trend_rules(v, back)
    _leave_to_spread(v[last + 1 :], float(v[peak_i]), ctx.t("noise_band"), int(ctx.t("repeats")))
    _learned_past(v[last + 1 :], ref, float(v[peak_i]), ctx.t("learned_past"))
    evidence: dict[str, Any] = dict(
        start_step=float(steps[first]),
        end_step=float(steps[last]),
        peak=float(v[peak_i]),
        peak_step=float(steps[peak_i]),
        best_before=ref,
        first_loss=float(v[0]),
        high_before=float(high[first]),
        ratio=float(v[peak_i]) / ref,
        factor=factor,
        points=len(v),
        recovered=back,
        end_level=float(v[-1]),
    )
    then = f"then fell back to {fmt(float(v[-1]))}" if back else "and had not come back by the last point"
    span = f" (steps {fstep(float(steps[first]))}-{fstep(float(steps[last]))})" if last > first else ""
    return ctx.fire(
        f"loss blew up to {fmt(float(v[peak_i]))} at step {fstep(float(steps[peak_i]))}: "
        f"{fmt(evidence['ratio'])}x its best before ({fmt(ref)}), {fmt(float(v[peak_i]) / float(high[first]))}x "
        f"its highest before ({fmt(float(high[first]))}), over {last - first + 1} of {len(v)} points{span}; "
        f"{then} (thresholds {fmt(factor)}x the best, {fmt(ctx.t('over_high'))}x the highest)",
        step=float(steps[first]),
        **evidence,
    )


def _leave_to_trend_rules(v: np.ndarray, back: bool) -> None:
    """A blow-up the trend rules judge is theirs: one that lasts to the end (TL010) on a log long
    enough for it, one that holds TL011's rolling median up long enough."""
    if not back and len(v) >= TL010_POINTS:
        raise StandDown("the loss stays blown up to the end of the run (judged by TL010)")
    if len(v) < TL011_POINTS:
        return
    _, bound = longest_run(blowup_candidates(v, window_for(len(v)), TL011_FACTOR))
    if bound / len(v) < TL011_STRETCH:  # a cheap bound: the median's run is no longer (v > 0 here)
        return
    rm = centred_median(v, window_for(len(v)))
    best = np.minimum.accumulate(rm)
    _, length = longest_run(rm > TL011_FACTOR * np.maximum(best, 1e-300))
    if length / len(v) >= TL011_STRETCH:
        raise StandDown("the blow-up lasts long enough for TL011 (loss-blowup) to judge it")


def _leave_to_spread(after: np.ndarray, peak: float, band: float, repeats: int) -> None:
    """A jump the loss keeps coming back to is its spread, not a blow-up: a per-sample loss whose
    first points were low by chance (rajiv256/NeuralCRNGen's Julia neural-ODE log: 0.033 then 1.09
    at the sixth sample, and 0.93, 0.94 and six more points over half that height later on)."""
    back = int(np.count_nonzero(after >= peak / band))
    if back >= repeats:
        raise StandDown(
            f"the loss comes back to {fmt(peak / band)} (1/{fmt(band)} of the jump to {fmt(peak)}) at {back} "
            f"of the {len(after)} points after it: its own spread"
        )


def _learned_past(after: np.ndarray, ref: float, peak: float, past: float) -> None:
    """A jump the run then learned far past did no lasting harm: the median of the last tenth of
    the points (3 at least) at 1/``past`` of the best before the jump or lower (1644heihei/3D-VAE's
    VAE log: total loss 153 at the first step, 13,386 at step 30 with the KL term spiking, then
    down to 0.05-0.09 over the last epochs, about 2,000x below it)."""
    if len(after) < 3:
        return
    tail = float(np.median(after[-max(3, len(after) // 10) :]))
    if tail * past <= ref:
        raise StandDown(
            f"the run learned far past the jump to {fmt(peak)}: its last points settle at {fmt(tail)}, "
            f"1/{fmt(ref / tail)} of its best before the jump ({fmt(ref)}; threshold 1/{fmt(past)})"
        )
