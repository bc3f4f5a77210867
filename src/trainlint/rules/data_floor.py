"""The entropy handoff: a run whose final loss sits at the label/token entropy of its data."""

from __future__ import annotations

from ..registry import Context, NotChecked, StandDown, Threshold, rule
from ..verdict import Finding
from .stats import fmt, robust_level


@rule(
    code="TL099",
    live="end",
    name="loss-at-label-floor",
    category="generalization",
    severity="FAIL",
    target="log",
    summary="The final loss is not meaningfully below the entropy of the targets: only frequencies were learned.",
    explanation="""
The entropy of the targets (the label distribution for classification, the unigram
distribution of the target tokens for language modelling) is the loss a model reaches
by predicting how often each label/token occurs and nothing else. A run that ends
there learned no relation between inputs and targets: the single-run signature of
shuffled or misaligned labels (a join on the wrong key, a collator that shifts labels
twice, inputs and labels from different rows). Needs
`doctor RUN --dataset DATA [--tokenizer DIR]`. Try: print a few (input, label) pairs
exactly as the model receives them.""",
    thresholds=[
        Threshold("margin", 0.05, "the final loss must be this fraction below the entropy"),
        Threshold("min_points", 10, "finite loss points needed to judge"),
    ],
)
def loss_at_label_floor(ctx: Context) -> Finding:
    entropy = ctx.extra.get("label_entropy")
    if entropy is None:
        raise NotChecked(
            ctx.extra.get("label_entropy_reason")
            or "no label entropy: pass --dataset DATA (and --tokenizer DIR for text)"
        )
    if entropy <= 0:
        raise NotChecked(f"label entropy is {fmt(entropy)}: a single label, nothing to compare")
    s = ctx.series("loss", min_points=int(ctx.t("min_points")))
    final = robust_level(s.values)
    bar = entropy * (1.0 - ctx.t("margin"))
    if final < bar:
        raise StandDown(f"final loss {fmt(final)} is below {fmt(bar)} (entropy {fmt(entropy)} nats)")
    return ctx.fire(
        f"final loss {fmt(final)} is not below the target entropy {fmt(entropy)} nats by "
        f"{fmt(100 * ctx.t('margin'))}% (bar {fmt(bar)}): the model learned only target frequencies",
        step=s.steps[-1],
        value=final,
        entropy=entropy,
        threshold=bar,
        margin=ctx.t("margin"),
        source=ctx.extra.get("label_entropy_source"),
    )
