"""Leakage: an eval loss that is the train loss in disguise."""

from __future__ import annotations

import math

import numpy as np

from ..registry import Context, NotChecked, StandDown, Threshold, rule
from ..verdict import Finding
from ._evals import share_of_fall, train_at
from .entropy import REL_TOL, class_count, inferred_tolerance
from .stats import fmt, median


def _pairs(ctx: Context, lag: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(steps, eval, smoothed train) at the evaluations. With ``lag``, the train loss one
    logging interval later: loggers average the train loss over the interval that ends at the
    logged step, which trails an evaluation made at the interval's start while the loss falls."""
    e = ctx.series("eval_loss", min_points=int(ctx.t("min_points")))
    shift = 0.0
    loss = ctx.subject.get("loss")
    if lag and loss is not None and len(loss) > 1:
        shift = float(median(np.diff(loss.steps)))
    tr = train_at(ctx, e.steps + max(shift, 0.0))
    if tr is None:
        raise NotChecked("no train loss to compare the eval loss with")
    ok = np.isfinite(tr) & (tr > 0)
    if ok.sum() < ctx.t("min_points"):
        raise NotChecked(f"only {int(ok.sum())} evaluations fall inside the train loss's steps")
    return e.steps[ok], e.values[ok], tr[ok]


REGULARISERS = (
    "dropout, SpecAugment or other augmentation, label smoothing, stochastic depth, "
    "or a loss averaged per token in training and per sequence in evaluation"
)
CAUSES = (
    "usual causes: the eval set overlaps the training data (a split taken after "
    "augmentation/dedup, the same file twice), or regularisation such as dropout that is "
    "active only in training"
)


@rule(
    code="TL065",
    live="share",
    name="eval-tracks-train",
    category="leakage",
    severity="WARN",
    summary="The eval loss is nearly identical to the train loss at many evaluations.",
    explanation="""
A held-out eval loss differs from the (smoothed) train loss by more than batch noise. When
the two agree within `tol` (relative, 0.2%) at most evaluations, the eval set is very
likely the training data (or overlaps it heavily), or the same number is logged twice, and
it cannot tell you about generalisation. (A gap of about 1%, as in large-data
pretraining where train and validation come from one distribution, is not flagged, nor are
a train and eval loss that agree because both sit at chance level, ln k: that is TL033.)
Try: check how the eval split is made, deduplicate across splits, hash examples of both.""",
    thresholds=[
        Threshold("tol", 0.002, "relative |eval - train| / train that counts as identical"),
        Threshold("share", 0.8, "share of evaluations that must be within 2x tol"),
        Threshold("min_points", 5, "evaluations needed to judge"),
    ],
)
def eval_tracks_train(ctx: Context) -> Finding | None:
    steps, e, t = _pairs(ctx)
    rel = np.abs(e - t) / t
    med = float(median(rel))
    share = float(np.mean(rel <= 2 * ctx.t("tol")))
    if med > ctx.t("tol") or share < ctx.t("share"):
        return None
    chance = _at_chance(ctx, e, t)
    if chance is not None:
        k, level = chance
        raise StandDown(
            f"train and eval loss both sit at {fmt(level)} = ln {k}, chance over {k} classes: they agree "
            "because the model predicts uniformly (TL033), not because the data overlap"
        )
    return ctx.fire(
        f"eval loss tracks train loss: median relative gap {fmt(med * 100)}% over {len(e)} evaluations "
        f"(threshold {fmt(ctx.t('tol') * 100)}%): the eval set likely overlaps the training data",
        step=steps[0],
        median_relative_gap=med,
        share_within=share,
        evaluations=len(e),
        threshold=ctx.t("tol"),
    )


def _at_chance(ctx: Context, e: np.ndarray, t: np.ndarray) -> tuple[int, float] | None:
    """(k, median train level) when train and eval loss both sit at ln k at the share of the
    evaluations TL065 needs: k from the class count given or in the log (within TL033's 5 %
    of ln k), else the k of the level for 2 to 100 classes (within TL033's tolerance)."""
    level = float(median(t))
    got = class_count(ctx)
    if got is not None:
        k = got[0]
        tol = REL_TOL * math.log(k)
    else:
        k = int(round(math.exp(level))) if level < math.log(101) else 0
        if k < 2:
            return None
        tol = inferred_tolerance(k)
    ln_k = math.log(k)
    both = (np.abs(e - ln_k) <= tol) & (np.abs(t - ln_k) <= tol)
    return (k, level) if float(np.mean(both)) >= ctx.t("share") else None


def _gap_why(ctx: Context, early: float, late: float, grows: bool, tiny: float | None, cost: float | None) -> str:
    """What TL066's gap means: growing (leakage or a split that drifts), growing but immaterial
    (``tiny``: the late gap, a sliver of the eval loss's fall), or steady (regularisation)."""
    if grows and tiny is not None and cost is not None:
        return (
            f"the gap grew from {fmt(early * 100)}% to {fmt(late * 100)}% below, but late in the run it is "
            f"{fmt(tiny)}, {fmt(cost * 100)}% of the eval loss's fall (threshold "
            f"{fmt(ctx.t('immaterial') * 100)}%): both losses near 0, a gap that means nothing (a NOTE)"
        )
    if grows:
        return (
            f"the gap grew from {fmt(early * 100)}% to {fmt(late * 100)}% below: the eval data is getting "
            f"easier than the training data as training goes on; {CAUSES}"
        )
    return (
        f"a steady gap ({fmt(early * 100)}% early, {fmt(late * 100)}% late) is what regularisation "
        f"active only in training produces: {REGULARISERS}; if none is used, check the split for overlap"
    )


@rule(
    code="TL066",
    live="share",
    name="eval-below-train",
    category="leakage",
    severity="WARN",
    summary="The eval loss is below the train loss at every evaluation.",
    explanation="""
Held-out data should not be easier than the training data at every single evaluation.
Two usual causes: the eval set overlaps the training data (leakage), or the model has
regularisation that is active only in training (dropout, stochastic depth, label
smoothing, heavy augmentation), which raises the train loss only. The second is
harmless but makes the comparison meaningless. Each evaluation is compared with the train
loss logged one interval later (loggers average the train loss over the interval, which
trails a falling loss), so a fast-falling loss alone does not fire it. A steady gap is what
regularisation produces and is a NOTE; a gap that grows over the run (`grow`) is a WARN (an
eval equal to the train loss is TL065), unless the gap itself is immaterial: under `immaterial`
of the eval loss's fall late in the run (both near 0, 0.0007 against 0.0015 on a loss that
fell from 1.57: a relative gap of half means nothing there), a NOTE. Try: evaluate on a
training subset with the model in eval mode and compare; check the split for duplicates.""",
    thresholds=[
        Threshold("margin", 0.0, "relative margin eval must be below train by"),
        Threshold(
            "grow",
            0.15,
            "growth of the relative gap (last third vs first third of the evaluations) that makes it a WARN",
        ),
        Threshold("min_points", 5, "evaluations needed to judge"),
        Threshold("immaterial", 0.01, "late gap (train - eval) under this share of the eval loss's fall: a NOTE"),
    ],
)
def eval_below_train(ctx: Context) -> Finding | None:
    steps, e, t = _pairs(ctx, lag=True)
    below = e < t * (1 - ctx.t("margin"))
    if not below.all():
        return None
    rel = (t - e) / t
    gap = float(median(rel))
    third = max(1, len(rel) // 3)
    early, late = float(median(rel[:third])), float(median(rel[-third:]))
    grows = late - early > ctx.t("grow")
    late_gap = float(median((t - e)[-third:]))
    cost = share_of_fall(e, late_gap)
    small = cost is not None and cost < ctx.t("immaterial")
    why = _gap_why(ctx, early, late, grows, late_gap if small else None, cost)
    return ctx.fire(
        f"eval loss below train loss at all {len(e)} evaluations (median {fmt(gap * 100)}% below); {why}",
        step=steps[0],
        severity="WARN" if grows and not small else "NOTE",
        evaluations=len(e),
        gap_share_of_fall=cost,
        median_relative_gap=gap,
        gap_early=early,
        gap_late=late,
        threshold=ctx.t("margin"),
        grow_threshold=ctx.t("grow"),
    )


@rule(
    code="TL067",
    whole_run=True,
    name="eval-data-overlaps-train",
    category="leakage",
    severity="FAIL",
    summary="The eval data found with the run is the training data, or shares many of its rows.",
    explanation="""
The run folder (its `data/` folder, or the files its config names: `train_file`,
`validation_file`, ...) holds a training and an evaluation split. When the eval file is
byte-identical to the training file, or a share of its rows (`fail_share`) appear verbatim in
the training file, the eval loss measures memorisation, not generalisation: every eval-based
finding and every reported score of the run is inflated. A smaller share (`warn_share`) is a
WARN. Try: split before augmenting or deduplicating, hash rows across splits, drop the shared
rows from the eval split.""",
    thresholds=[
        Threshold("fail_share", 0.1, "share of eval rows found in the training data that FAILs"),
        Threshold("warn_share", 0.01, "share that WARNs"),
    ],
)
def eval_data_overlaps_train(ctx: Context) -> Finding | None:
    pairs = (ctx.extra or {}).get("split_overlap")
    if not pairs:
        raise NotChecked("no training and eval data files found with the run")
    worst = max(pairs, key=lambda p: (p["identical"], p["share"]))
    names = f"eval data {worst['eval']} and training data {worst['train']}"
    if worst["identical"]:
        return ctx.fire(
            f"{names} are the same file (identical bytes, {worst['eval_rows']} rows): the eval loss "
            "is measured on the training data",
            severity="FAIL",
            **worst,
        )
    share = worst["share"]
    if share < ctx.t("warn_share"):
        return None
    sev = "FAIL" if share >= ctx.t("fail_share") else "WARN"
    lines = ", ".join(str(n) for n in worst["shared_lines"][:10])
    return ctx.fire(
        f"{worst['shared_rows']} of {worst['eval_rows']} eval rows ({fmt(share * 100)}%) also appear in the "
        f"training data ({names}; first eval lines: {lines}; threshold {fmt(ctx.t('fail_share') * 100)}%)",
        severity=sev,
        threshold=ctx.t("fail_share"),
        **worst,
    )
