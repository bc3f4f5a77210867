"""Uniform entropy: a loss stuck at ln(V) predicts no better than chance."""

from __future__ import annotations

import math

import numpy as np

from ..registry import NotChecked, StandDown, Threshold, rule
from .stats import coarse, fmt

SIZE_KEYS = ("vocab_size", "num_classes", "num_labels")


def class_count(ctx) -> tuple[int, str] | None:
    """The vocabulary size or class count: from the command line/API (extra) or the run's metadata."""
    for where, table in (("option", ctx.extra), ("log metadata", ctx.subject.meta)):
        for key in SIZE_KEYS:
            value = table.get(key) if table else None
            if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 2:
                return int(value), f"{key} from {where}"
    return None


@rule(code="TL033", name="loss-at-uniform", category="stagnation", severity="FAIL",
      summary="The loss sits at ln(V): the model predicts no better than a uniform guess.",
      explanation="""
For a cross-entropy over V classes (or a vocabulary of V tokens) a model that predicts
uniformly scores exactly ln(V). A loss that stays at ln(V) for most of the run (FAIL) or
ends there (WARN) means the model learned nothing about its targets: dead outputs,
labels that carry no signal, a broken loss mask, a zero LR. An initial loss at or above
ln(V) alone is normal for a freshly initialised head. V comes from --vocab-size /
--num-classes, or vocab_size / num_classes in the run's metadata (e.g. a config.json).""",
      thresholds=[Threshold("rel_tol", 0.05, "|level - ln V| / ln V within which the loss is 'at uniform'"),
                  Threshold("stuck_fraction", 0.5, "share of the run at ln V that makes it FAIL"),
                  Threshold("min_points", 10, "finite loss points needed to judge")])
def loss_at_uniform(ctx):
    got = class_count(ctx)
    if got is None:
        raise NotChecked("vocabulary size / class count unknown (--vocab-size, --num-classes)")
    size, origin = got
    s = ctx.series("loss", min_points=int(ctx.t("min_points")))
    _, v = coarse(s.steps, s.values)
    ln_v = math.log(size)
    k = max(3, len(v) // 10)
    end = float(np.median(v[-k:]))
    tol = ctx.t("rel_tol") * ln_v
    if abs(end - ln_v) > tol:
        if end < ln_v:
            return None
        raise StandDown(f"loss ends at {fmt(end)}, above ln(V) = {fmt(ln_v)}: not a uniform guess")
    near = float(np.mean(np.abs(v - ln_v) <= tol))
    sev = "FAIL" if near >= ctx.t("stuck_fraction") else "WARN"
    how = f"stuck there for {fmt(near * 100)}% of the run" if sev == "FAIL" else "ends there"
    return ctx.fire(
        f"loss {fmt(end)} is at ln(V) = {fmt(ln_v)} for V = {size} ({origin}): no better than uniform, "
        f"{how} (tolerance {fmt(tol)})",
        step=s.steps[-1], severity=sev, end_level=end, ln_v=ln_v, classes=size,
        fraction_at_uniform=near, tolerance=tol, threshold=ctx.t("stuck_fraction"))
