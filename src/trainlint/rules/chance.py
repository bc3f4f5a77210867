"""Chance level: a held-out accuracy near 1/k while the loss stays near ln k; a language model's
loss that starts far above ln(vocabulary), which no wiring of a cross-entropy allows."""

from __future__ import annotations

import math

import numpy as np

from ..model import RunMeta
from ..registry import Context, NotChecked, StandDown, Threshold, rule
from ..verdict import Finding
from .entropy import REL_TOL, accuracy_series, count_of, inferred_tolerance
from .kept import coarse_of
from .stats import fmt, fstep, median, robust_level

MAX_CLASSES = 1000  # a first loss above ln 1000 is not read as a class count


def classes(ctx: Context, first_loss: float) -> tuple[int, str]:
    """The class count: given (--num-classes, the run's num_classes / num_labels), else read off
    the first loss, which a freshly initialised k-class head puts at ln k."""
    meta = RunMeta.of(ctx.subject)
    for key, value in (
        ("num_classes", ctx.extra.get("num_classes") if ctx.extra else None),
        ("num_labels", ctx.extra.get("num_labels") if ctx.extra else None),
        ("num_classes", meta.num_classes),
        ("num_labels", meta.num_labels),
    ):
        given = count_of(value)
        if given is not None:
            return given, f"{key} {given}"
    if not 0 < first_loss < math.log(MAX_CLASSES + 0.5):
        raise NotChecked(
            f"first loss {fmt(first_loss)} is no ln k for 2 to {MAX_CLASSES} classes; no class count given"
        )
    k = int(round(math.exp(first_loss)))
    if k < 2:
        raise NotChecked(f"first loss {fmt(first_loss)} is below ln 2; no class count given")
    return k, f"k = {k} from the first loss {fmt(first_loss)} ≈ ln {k}"


@rule(
    code="TL034",
    name="accuracy-at-chance",
    category="stagnation",
    severity="FAIL",
    summary="The accuracy stays near 1/k and the loss near ln k: the classifier learned nothing.",
    explanation="""
A k-class classifier that predicts no better than chance scores an accuracy of 1/k and a
cross-entropy of ln k. When the logged accuracy (a validation accuracy first) spends the second
half of the run within `max_skill` of the way from 1/k to 1 and the training loss ends no more
than `max_loss_fall` below ln k, two independent measures agree that the model learned nothing
about its labels: FAIL, as for a loss stuck at ln k (TL033), since the run's outputs are of no
use whatever its length. k is --num-classes (or num_classes / num_labels in the run's metadata),
else read off the first loss (a fresh k-class head starts at ln k); the accuracy then confirms
it. A loss sitting at ln k the whole run is TL033's finding, and this rule stands down. It
judges the whole run: the live guard runs it when the run ends. Try:
labels that match the inputs (a shuffled or constant label column), a learning rate that is not
zero or far too high, a frozen backbone with a head that trains, the loss on the logits (not
on softmax outputs twice).""",
    live="end",
    thresholds=[
        Threshold("max_skill", 0.1, "accuracy's share of the way from 1/k to 1 that still counts as chance"),
        Threshold("max_loss_fall", 0.15, "share of ln k the loss may end below it and still be at chance"),
        Threshold("min_points", 5, "finite accuracy points needed to judge"),
    ],
)
def accuracy_at_chance(ctx: Context) -> Finding | None:
    s = ctx.series("loss", min_points=3)
    acc = accuracy_series(ctx.subject)
    if acc is None:
        raise NotChecked("no accuracy series in this log")
    name, a = acc
    if len(a) < ctx.t("min_points"):
        raise NotChecked(f"{name} has {len(a)} finite points, needs at least {fmt(ctx.t('min_points'))}")
    steps, v = coarse_of(ctx, s)
    k, origin = classes(ctx, float(v[0]))
    ln_k, chance = math.log(k), 1.0 / k
    level = float(median(a[len(a) // 2 :]))
    skill = (level - chance) / (1 - chance)
    end = robust_level(v)
    fall = (ln_k - end) / ln_k
    if skill > ctx.t("max_skill") or level < chance / 2 or fall > ctx.t("max_loss_fall"):
        return None
    _stand_down_for_tl033(v, ln_k, k, given="from the first loss" not in origin)
    return ctx.fire(
        f"{name} {fmt(level)} over the second half of the run is chance over {k} classes (1/{k} = "
        f"{fmt(chance)}; {fmt(skill * 100)}% of the way to 1, threshold {fmt(ctx.t('max_skill') * 100)}%) "
        f"and the loss ended at {fmt(end)} against ln {k} = {fmt(ln_k)} ({origin}): the model learned "
        f"nothing about its labels (best {name} {fmt(float(np.max(a)))})",
        step=float(steps[-1]),
        accuracy=level,
        accuracy_metric=name,
        best_accuracy=float(np.max(a)),
        chance=chance,
        skill=skill,
        classes=k,
        class_origin=origin,
        end_level=end,
        ln_k=ln_k,
        threshold=ctx.t("max_skill"),
    )


def _stand_down_for_tl033(v: np.ndarray, ln_k: float, k: int, *, given: bool) -> None:
    """TL033 judges a loss that sits at ln k (within its own tolerances): one finding per cause."""
    if given:
        at = abs(robust_level(v) - ln_k) <= REL_TOL * ln_k
    else:
        tol = inferred_tolerance(k)
        at = all(abs(float(median(p)) - ln_k) <= tol for p in np.array_split(v, 3) if len(p))
    if at:
        raise StandDown(f"the loss sits at ln {k} = {fmt(ln_k)}: TL033's finding")


def vocabulary(ctx: Context) -> tuple[int, str]:
    """The vocabulary size: --vocab-size, else the run's config (config.json beside the log)."""
    given = count_of(ctx.extra.get("vocab_size") if ctx.extra else None)
    if given is not None:
        return given, "--vocab-size"
    meta = RunMeta.of(ctx.subject)
    if meta.vocab_size is not None and meta.vocab_size >= 2:
        raw = ctx.subject.meta if isinstance(ctx.subject.meta, dict) else {}
        where, tokenizer = raw.get("model_config_path"), raw.get("vocab_source")
        if isinstance(where, str):
            return int(meta.vocab_size), f"vocab_size of {where}"
        if isinstance(tokenizer, str):
            return int(meta.vocab_size), f"the vocabulary of {tokenizer}"
        return int(meta.vocab_size), "the log's vocab_size"
    raise NotChecked("no vocabulary size: no config.json or tokenizer.json beside the log (or pass --vocab-size)")


@rule(
    code="TL035",
    name="loss-start-above-uniform",
    category="integrity",
    severity="FAIL",
    summary="A language model's loss starts far above ln(vocabulary): the labels or the loss are wired wrong.",
    explanation="""
A cross-entropy over a vocabulary of V tokens starts at about ln V for a freshly initialised
model (a uniform guess) and below it for a pretrained one. A first logged loss far above ln V
(`over_ln_v` times it: 18.9 against ln 151,646 = 11.9) means the model is confidently wrong about
every token from the first step: labels not shifted or taken from another sequence, a tokenizer
that does not match the model (a wrong vocabulary or resized embeddings left random), a loss
summed instead of averaged, or logits scaled before the softmax. V is --vocab-size, else
vocab_size in the run's config.json (beside the log or in its newest checkpoint), else the
vocabulary of the tokenizer.json beside a trainer_state.json; without any the rule cannot judge. A class count (--num-classes) is not used: a classifier head's start
depends on its initialisation scale. The first point is enough, so the live guard judges it
from the first record. Try: decode one batch's input_ids and labels side by side, check the
tokenizer's vocabulary against the model's vocab_size, and the loss's reduction.""",
    live="always",
    thresholds=[
        Threshold("over_ln_v", 1.3, "first loss / ln(vocabulary size) that no cross-entropy start reaches"),
    ],
)
def loss_start_above_uniform(ctx: Context) -> Finding | None:
    s = ctx.series("loss")
    size, origin = vocabulary(ctx)
    ln_v = math.log(size)
    first = float(s.values[0])
    ratio = first / ln_v
    if ratio < ctx.t("over_ln_v"):
        return None
    end = float(median(s.values[-3:]))
    return ctx.fire(
        f"loss starts at {fmt(first)} (step {fstep(float(s.steps[0]))}), {fmt(ratio)}x ln V = {fmt(ln_v)} for "
        f"V = {size:,} ({origin}; threshold {fmt(ctx.t('over_ln_v'))}x): a cross-entropy starts at ln V or "
        f"below; the labels or the loss are wired wrong (it ends at {fmt(end)})",
        step=float(s.steps[0]),
        first_loss=first,
        ln_v=ln_v,
        vocab_size=size,
        vocab_origin=origin,
        ratio=ratio,
        end_level=end,
        threshold=ctx.t("over_ln_v"),
    )
