"""Comparison with a known-good baseline: what one run cannot show on its own.

The subject is a :class:`trainlint.compare.model.Comparison`: the run and its baseline
runs measured over the common window (see ``trainlint.compare``). Every finding quotes
the run's number, the baseline's number, their ratio and the limit it crossed.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..model import Run, RunMeta
from ..registry import Context, NotChecked, StandDown, Threshold, rule
from ..verdict import Finding
from .band import BAND_THRESHOLDS, limits
from .stats import fmt, median

MIN_POINTS = Threshold("min_points", 5, "loss points each run needs inside the common window")


def _window_ok(ctx: Context, min_points: float) -> None:
    comp = ctx.subject
    if comp.alignment.no_overlap:
        raise StandDown(comp.alignment.no_overlap)
    counts = [comp.run_m.loss_points] + [b.loss_points for b in comp.base_m]
    if min(counts) < min_points:
        who = comp.run.source if counts[0] < min_points else "a baseline run"
        raise StandDown(f"too few loss points in the common window ({min(counts)} in {who}, needs {int(min_points)})")


def _ratio_finding(ctx: Context, key: str, what: str, step: float | None = None, **more: Any) -> Finding | None:
    """Judge metric ``key`` against the baseline with the rule's ratios (or the band)."""
    m = ctx.subject.metric(key)
    if m.run is None or not m.base:
        side = "this run" if m.run is None else "the baseline"
        raise NotChecked(f"no {m.label} for {side}")
    if min(m.base) <= 0:
        raise StandDown(f"baseline {m.label} {fmt(min(m.base))} is not positive; a ratio means nothing")
    lim = limits(m.base, ctx.t("warn_ratio"), ctx.t("fail_ratio"), ctx.thresholds)
    sev = lim.severity(m.run)
    if sev is None:
        return None
    ratio = m.run / lim.center
    limit = lim.limit_for(sev)
    return ctx.fire(
        f"{what}: {m.label} {fmt(m.run)} vs baseline {fmt(lim.center)} ({fmt(ratio)}x; "
        f"{sev} limit {fmt(limit)}; {lim.basis})",
        step=step,
        severity=sev,
        value=m.run,
        baseline=lim.center,
        baseline_values=m.base,
        ratio=ratio,
        threshold=limit,
        warn_limit=lim.warn,
        fail_limit=lim.fail,
        basis=lim.basis,
        **more,
    )


@rule(
    code="TL150",
    decisive=True,
    name="loss-floor-above-baseline",
    category="compare",
    severity="FAIL",
    target="comparison",
    summary="The lowest loss the run reached is far above the baseline's.",
    explanation="""
The loss floor (the lowest level of a rolling median, so a single lucky batch does not
count) is the best the run ever did. A run on shuffled labels, a broken tokenizer or a
frozen model can still cut its loss by 70 % and look healthy alone; beside a known-good
run of the same recipe its floor sits several times higher. Check the labels / targets,
the data pipeline and which parameters are trainable. When the loss is known to be a
cross-entropy (the run names a vocabulary or class count, logs a perplexity, or comes from an
LM trainer) the gap is also judged in nats: a floor and a best eval loss both half a nat
(`fail_nats`) above the baseline's FAIL even at a ratio of 1.2x.""",
    thresholds=[
        Threshold("warn_ratio", 1.15, "run floor / baseline floor that WARNs (one baseline run)"),
        Threshold("fail_ratio", 1.5, "run floor / baseline floor that FAILs (one baseline run)"),
        Threshold(
            "fail_nats",
            0.5,
            "a cross-entropy floor (and best eval loss) this many nats above the baseline's FAILs whatever the ratio",
        ),
        MIN_POINTS,
        *BAND_THRESHOLDS,
    ],
)
def loss_floor(ctx: Context) -> Finding | None:
    _window_ok(ctx, ctx.t("min_points"))
    comp = ctx.subject
    at = comp.run_m.floor_at
    step = at if comp.alignment.mode == "step" else None
    where = f" (floor held around fraction {fmt(at)} of training)" if step is None and at is not None else ""
    nats = _nat_gap_fail(ctx, where, step)
    if nats is not None:
        return nats
    return _ratio_finding(
        ctx,
        "loss_floor",
        "the run never got as low as the baseline" + where,
        step=step,
        floor_at=at,
        align=comp.alignment.mode,
    )


CE_FORMATS = ("console/llm.c", "console/llm.c-main.log", "console/nanogpt", "console/megatron", "console/fairseq")
PPL_NAMES = ("ppl", "perplexity", "eval_ppl", "val_ppl", "eval_perplexity", "train_ppl", "valid_ppl")


def cross_entropy(run: Run) -> str | None:
    """Why the run's loss is known to be a cross-entropy (in nats), or None."""
    meta = RunMeta.of(run)
    if any((meta.vocab_size, meta.num_classes, meta.num_labels)):
        return "the run names a vocabulary / class count"
    if run.format in CE_FORMATS:
        return f"{run.format} trains a language model"
    if any(n in run.series for n in PPL_NAMES):
        return "the run logs a perplexity"
    return None


def _nat_gap_fail(ctx: Context, where: str, step: float | None) -> Finding | None:
    """A cross-entropy run whose floor and best eval loss are both `fail_nats` above the
    baseline's fails whatever the ratio: half a nat is a large gap at any level."""
    comp = ctx.subject
    why = cross_entropy(comp.run)
    if why is None or not all(cross_entropy(b) for b in comp.baselines):
        return None
    floor, ev = comp.metric("loss_floor"), comp.metric("eval_best")
    if floor.run is None or not floor.base:
        return None
    gap = floor.run - float(median(floor.base))
    eval_gap = ev.run - float(median(ev.base)) if ev.run is not None and ev.base else None
    limit = ctx.t("fail_nats")
    if gap < limit or (eval_gap is not None and eval_gap < limit):
        return None
    ev_text = f", best eval loss {fmt(eval_gap)} nat above" if eval_gap is not None else ""
    return ctx.fire(
        f"the run never got as low as the baseline{where}: loss floor {fmt(floor.run)} vs baseline "
        f"{fmt(float(median(floor.base)))}, {fmt(gap)} nat above{ev_text} (judged in nats, the loss is a "
        f"cross-entropy: {why}; FAIL at {fmt(limit)} nat whatever the ratio)",
        step=step,
        severity="FAIL",
        value=floor.run,
        baseline=float(median(floor.base)),
        gap_nats=gap,
        eval_gap_nats=eval_gap,
        threshold=limit,
        basis="nats",
    )


@rule(
    code="TL151",
    decisive=True,
    name="end-loss-above-baseline",
    category="compare",
    severity="FAIL",
    target="comparison",
    summary="The run ended with a loss far above the baseline's at the same point of training.",
    explanation="""
The end level (median of the last tenth of the common window) of the run against the
baseline's over the same window. A run that diverged, blew up into NaN-absorbing loss
scaling, or stopped learning ends far above a healthy one even when its early loss
matched. Try a lower learning rate, warm-up, gradient clipping, bf16.""",
    thresholds=[
        Threshold("warn_ratio", 1.15, "run end / baseline end that WARNs (one baseline run)"),
        Threshold("fail_ratio", 1.5, "run end / baseline end that FAILs (one baseline run)"),
        MIN_POINTS,
        *BAND_THRESHOLDS,
    ],
)
def end_loss(ctx: Context) -> Finding | None:
    _window_ok(ctx, ctx.t("min_points"))
    al = ctx.subject.alignment
    where = "" if al.mode == "step" else f" (window end: fraction {fmt(al.hi)} of training)"
    return _ratio_finding(
        ctx,
        "loss_end",
        f"the run ended above the baseline{where}",
        step=al.hi if al.mode == "step" else None,
        window_end=al.hi,
        align=al.mode,
    )


@rule(
    code="TL152",
    name="improvement-below-baseline",
    category="compare",
    severity="FAIL",
    target="comparison",
    summary="The run improved its loss far less than the baseline did, and ended above it.",
    explanation="""
Improvement is (start level - end level) / start level over the common window. A run
with a zero or tiny learning rate, frozen weights or a detached loss barely moves while
the baseline learns. Stands down when the baseline itself hardly improved (nothing to
compare), or when the run ended at or below the baseline's end level (it simply
started lower).""",
    thresholds=[
        Threshold("warn_ratio", 0.5, "run improvement / baseline improvement that WARNs"),
        Threshold("fail_ratio", 0.25, "run improvement / baseline improvement that FAILs"),
        Threshold("min_baseline_improvement", 0.02, "baseline improvement below which this stands down"),
        Threshold("end_tolerance", 1.05, "stands down when run end <= baseline end x this"),
        MIN_POINTS,
        *BAND_THRESHOLDS,
    ],
)
def improvement(ctx: Context) -> Finding | None:
    _window_ok(ctx, ctx.t("min_points"))
    m = ctx.subject.metric("improvement")
    if not m.base or m.run is None:
        raise NotChecked("improvement needs a positive start level on both sides")
    if min(m.base) < ctx.t("min_baseline_improvement"):
        raise StandDown(
            f"the baseline improved only {fmt(min(m.base) * 100)}% "
            f"(needs {fmt(ctx.t('min_baseline_improvement') * 100)}%): nothing to compare with"
        )
    end = ctx.subject.metric("loss_end")
    if end.run is not None and end.center and end.run <= end.center * ctx.t("end_tolerance"):
        raise StandDown(f"the run ended at {fmt(end.run)}, not above the baseline's {fmt(end.center)}")
    return _ratio_finding(
        ctx,
        "improvement",
        "the run learned far less than the baseline (improvement = (start - end) / start)",
        run_end=end.run,
        baseline_end=end.center,
    )


@rule(
    code="TL153",
    decisive=True,
    name="loss-curve-above-baseline",
    category="compare",
    severity="FAIL",
    target="comparison",
    summary="Over the whole common window the run's loss curve lies far above the baseline's.",
    explanation="""
The area between the curves, as a ratio: both smoothed loss curves are resampled on one
grid over the common window and the run's is divided by the baseline's (the pointwise
median of the baseline runs), then averaged. 1.0 means the same curve; 1.3 means the
run's loss was on average 30 % higher all along. It catches a run that is worse
everywhere even when its floor and end level are each only moderately off.""",
    thresholds=[
        Threshold("warn_ratio", 1.15, "mean loss ratio that WARNs (one baseline run)"),
        Threshold("fail_ratio", 1.75, "mean loss ratio that FAILs (one baseline run)"),
        MIN_POINTS,
        *BAND_THRESHOLDS,
    ],
)
def loss_curve(ctx: Context) -> Finding | None:
    _window_ok(ctx, ctx.t("min_points"))
    m = ctx.subject.metric("loss_gap")
    if m.run is None:
        raise StandDown("the baseline loss is not positive everywhere in the window; no curve ratio")
    al = ctx.subject.alignment
    unit = "steps" if al.mode == "step" else "fraction of training"
    return _ratio_finding(
        ctx,
        "loss_gap",
        f"the run's loss curve lies above the baseline's over {unit} {fmt(al.lo)}-{fmt(al.hi)}",
        window=[al.lo, al.hi],
        align=al.mode,
    )


@rule(
    code="TL154",
    name="eval-loss-above-baseline",
    category="compare",
    severity="FAIL",
    target="comparison",
    summary="The best eval loss of the run is far above the baseline's.",
    explanation="""
The lowest eval loss inside the common window against the baseline's. The train loss can
look fine while the model generalises worse (leaked or duplicated training data,
overfitting, a different eval set). Needs an eval loss on both sides.""",
    thresholds=[
        Threshold("warn_ratio", 1.1, "run best eval / baseline best eval that WARNs"),
        Threshold("fail_ratio", 1.5, "run best eval / baseline best eval that FAILs"),
        Threshold("min_points", 2, "eval points each run needs inside the common window"),
        *BAND_THRESHOLDS,
    ],
)
def eval_loss(ctx: Context) -> Finding | None:
    comp = ctx.subject
    if comp.alignment.no_overlap:
        raise StandDown(comp.alignment.no_overlap)
    counts = [comp.run_m.eval_points] + [b.eval_points for b in comp.base_m]
    if max(counts) == 0 or min(counts) == 0:
        side = "this run" if counts[0] == 0 else "the baseline"
        raise NotChecked(f"no eval loss in {side} inside the common window")
    if min(counts) < ctx.t("min_points"):
        raise StandDown(f"too few eval points in the common window ({min(counts)}, needs {int(ctx.t('min_points'))})")
    ends = [b.eval_end for b in comp.base_m]
    return _ratio_finding(
        ctx,
        "eval_best",
        "the run never evaluated as well as the baseline",
        run_eval_end=comp.run_m.eval_end,
        baseline_eval_end=float(median(ends)),
    )


@rule(
    code="TL155",
    name="grad-norm-unlike-baseline",
    category="compare",
    severity="WARN",
    target="comparison",
    summary="The run's gradient norm level is far from the baseline's, or non-finite where it is not.",
    explanation="""
The median gradient norm inside the common window against the baseline's, both ways:
several times higher means larger, noisier updates (learning rate, loss scale, bad
labels); several times lower means the updates nearly vanished (frozen layers, a tiny
learning rate). Infinite or NaN gradient norms in the run but not in the baseline
point at overflow (fp16 without enough headroom). A symptom, so a WARN.""",
    thresholds=[
        Threshold("max_ratio", 3.0, "WARN when run/baseline grad-norm level is above this or below its inverse"),
        Threshold("min_points", 5, "grad-norm points each run needs"),
    ],
)
def grad_norm(ctx: Context) -> list[Finding]:
    comp = ctx.subject
    m = comp.metric("grad_norm")
    if m.run is None or not m.base:
        raise NotChecked(f"no grad norm in {'this run' if m.run is None else 'the baseline'}")
    if min([comp.run_m.grad_points] + [b.grad_points for b in comp.base_m]) < ctx.t("min_points"):
        raise StandDown(f"too few grad-norm points (needs {int(ctx.t('min_points'))})")
    bad_run, bad_base = comp.run_m.grad_non_finite, sum(b.grad_non_finite for b in comp.base_m)
    center, r = float(median(m.base)), ctx.t("max_ratio")
    ratio = m.run / center if center > 0 else float("inf")
    out = []
    if ratio >= r or ratio <= 1 / r:
        out.append(
            ctx.fire(
                f"grad-norm level {fmt(m.run)} vs baseline {fmt(center)} ({fmt(ratio)}x; limits "
                f"{fmt(1 / r)}x-{fmt(r)}x)",
                value=m.run,
                baseline=center,
                baseline_values=m.base,
                ratio=ratio,
                threshold=r,
            )
        )
    if bad_run and not bad_base:
        out.append(
            ctx.fire(
                f"{bad_run} non-finite grad norms in the run, none in the baseline",
                non_finite=bad_run,
                baseline_non_finite=bad_base,
                threshold=1,
            )
        )
    return out


@rule(
    code="TL156",
    name="throughput-below-baseline",
    category="compare",
    severity="WARN",
    target="comparison",
    summary="The run is much slower than the baseline.",
    explanation="""
Throughput is the logged samples/tokens per second when the log has it, else steps per
second from the step time, the wall clock, or the trainer's own summary. Both sides
must measure it the same way. A much slower run on the same recipe points at the input
pipeline, a different GPU, gradient checkpointing, or a smaller batch.""",
    thresholds=[
        Threshold("warn_ratio", 0.7, "run / baseline throughput that WARNs (one baseline run)"),
        Threshold("fail_ratio", 0.0, "run / baseline throughput that FAILs (0: never)"),
        *BAND_THRESHOLDS,
    ],
)
def throughput(ctx: Context) -> Finding | None:
    comp = ctx.subject
    kinds = {b.throughput_kind for b in comp.base_m}
    if comp.run_m.throughput is None or None in kinds:
        side = "this run" if comp.run_m.throughput is None else "a baseline run"
        raise NotChecked(f"no throughput, step time or wall clock in {side}")
    if kinds != {comp.run_m.throughput_kind}:
        raise NotChecked(
            f"throughput measured differently ({comp.run_m.throughput_kind} vs {', '.join(sorted(kinds))})"
        )
    return _ratio_finding(
        ctx,
        "throughput",
        f"the run is slower than the baseline ({comp.run_m.throughput_kind})",
        kind=comp.run_m.throughput_kind,
    )


def _lr_shape_gap(comp: Any) -> float | None:
    shapes = [b.lr_shape for b in comp.base_m if b.lr_shape is not None]
    if comp.run_m.lr_shape is None or not shapes:
        return None
    centre = median(np.vstack(shapes), axis=0)
    diff = np.abs(comp.run_m.lr_shape - centre)
    diff = diff[np.isfinite(diff)]
    return float(np.mean(diff)) if len(diff) else None


@rule(
    code="TL157",
    name="lr-schedule-differs",
    category="compare",
    severity="NOTE",
    target="comparison",
    summary="The run's learning-rate schedule differs from the baseline's (a difference, not a fault).",
    explanation="""
Compares the peak learning rate and the shape of the schedule (LR / peak over the
fraction of training: warm-up, decay). A different schedule is recorded so the other
verdicts can be read in its light; it is a NOTE, and a WARN only when the peak differs by
``peak_warn_ratio`` or more or the run's learning rate is zero throughout.""",
    thresholds=[
        Threshold("peak_note_ratio", 1.25, "peak LR ratio (either way) that makes a NOTE"),
        Threshold("peak_warn_ratio", 10.0, "peak LR ratio (either way) that makes a WARN"),
        Threshold("shape_note", 0.15, "mean |difference| of LR/peak curves that makes a NOTE"),
    ],
)
def lr_schedule(ctx: Context) -> Finding | None:
    comp = ctx.subject
    m = comp.metric("lr_peak")
    if m.run is None or not m.base:
        raise NotChecked(f"no learning rate in {'this run' if m.run is None else 'the baseline'}")
    base = float(median(m.base))
    if base <= 0:
        raise StandDown("the baseline's learning rate is zero throughout")
    ratio, shape = m.run / base, _lr_shape_gap(comp)
    ev = dict(value=m.run, baseline=base, ratio=ratio, shape_difference=shape)
    if m.run <= 0:
        return ctx.fire(
            f"learning rate is zero throughout; baseline peak {fmt(base)}", severity="WARN", threshold=0.0, **ev
        )
    far = max(ratio, 1 / ratio)
    parts = []
    if far >= ctx.t("peak_note_ratio"):
        limit = ctx.t("peak_warn_ratio") if far >= ctx.t("peak_warn_ratio") else ctx.t("peak_note_ratio")
        parts.append(f"peak LR {fmt(m.run)} vs baseline {fmt(base)} ({fmt(ratio)}x, limit {fmt(limit)}x either way)")
    if shape is not None and shape >= ctx.t("shape_note"):
        parts.append(
            f"schedule shape differs by {fmt(shape)} (mean |LR/peak difference|, threshold {fmt(ctx.t('shape_note'))})"
        )
    if not parts:
        return None
    sev = "WARN" if far >= ctx.t("peak_warn_ratio") else "NOTE"
    return ctx.fire(
        "LR schedule differs from the baseline: " + "; ".join(parts),
        severity=sev,
        threshold=ctx.t("peak_warn_ratio") if sev == "WARN" else ctx.t("peak_note_ratio"),
        **ev,
    )


@rule(
    code="TL158",
    name="compared-over-part",
    category="compare",
    severity="NOTE",
    target="comparison",
    summary="The runs were aligned by fraction of training, or compared over only part of one.",
    explanation="""
Records how the comparison was made when it was not step for step over the whole of
both runs: runs of different planned length are aligned by fraction of training, and
a run cut short (or longer than the baseline) is compared only where both have loss
points. The other findings hold for that window only.""",
    thresholds=[Threshold("min_coverage", 0.9, "share of a run's logged range the window must cover")],
)
def compared_over_part(ctx: Context) -> Finding | None:
    comp = ctx.subject
    al = comp.alignment
    if al.no_overlap:
        raise StandDown(al.no_overlap)
    parts, covers = [], {}
    if al.mode == "fraction":
        parts.append(al.reason)
    for run in [comp.run, *comp.baselines]:
        x = al.position(run, run.get("loss").steps)
        span = float(x[-1] - x[0])
        covers[run.source] = (al.hi - al.lo) / span if span > 0 else 1.0
    short = {src: c for src, c in covers.items() if c < ctx.t("min_coverage")}
    if short:
        parts.append(
            "the common window "
            + f"{fmt(al.lo)}-{fmt(al.hi)} covers only "
            + ", ".join(f"{fmt(c * 100)}% of {src}" for src, c in short.items())
        )
    if not parts:
        return None
    return ctx.fire(
        "; ".join(parts),
        align=al.mode,
        window=[al.lo, al.hi],
        coverage=covers,
        threshold=ctx.t("min_coverage"),
        planned_lengths=al.lengths,
    )


@rule(
    code="TL159",
    name="loss-not-finite-unlike-baseline",
    category="compare",
    severity="FAIL",
    target="comparison",
    summary="The run's loss is NaN or infinite where the baseline's is finite.",
    explanation="""
Inside the common window the run logged non-finite loss values and no baseline run did.
The same recipe trained without overflow, so something the run changed (precision,
learning rate, data) broke it. The single-run rule TL001 says the same of the run
alone; this says the baseline proves it avoidable.""",
    thresholds=[Threshold("min_count", 1, "non-finite loss points needed to fire")],
)
def loss_not_finite(ctx: Context) -> Finding | None:
    comp = ctx.subject
    if comp.alignment.no_overlap:
        raise StandDown(comp.alignment.no_overlap)
    bad = comp.run_m.loss_non_finite
    base_bad = sum(b.loss_non_finite for b in comp.base_m)
    if bad < ctx.t("min_count"):
        return None
    if base_bad:
        raise StandDown(f"the baseline has non-finite loss values too ({base_bad})")
    return ctx.fire(
        f"{bad} non-finite loss values in the run, none in the baseline",
        count=bad,
        baseline_count=base_bad,
        threshold=ctx.t("min_count"),
    )


@rule(
    code="TL160",
    name="loss-far-below-baseline",
    category="compare",
    severity="NOTE",
    target="comparison",
    summary="The run's loss went far below the baseline's: a different task, not necessarily a better run.",
    explanation="""
A run of the same recipe rarely beats a known-good baseline by a large factor. A loss
floor far below the baseline's usually means the run saw different (easier, smaller or
repeated) data: memorisation of a tiny training set, eval or test data leaked into
training, or a different loss normalisation. Recorded as a NOTE: check the eval loss
and the data before trusting the improvement.""",
    thresholds=[Threshold("max_ratio", 0.5, "run floor / baseline floor at or below which this notes"), MIN_POINTS],
)
def loss_far_below(ctx: Context) -> Finding | None:
    _window_ok(ctx, ctx.t("min_points"))
    m = ctx.subject.metric("loss_floor")
    if m.run is None or not m.base or min(m.base) <= 0:
        raise StandDown("the baseline loss floor is not positive; a ratio means nothing")
    ratio = m.run / m.center
    if ratio > ctx.t("max_ratio"):
        return None
    return ctx.fire(
        f"loss floor {fmt(m.run)} is {fmt(ratio)}x the baseline's {fmt(m.center)} "
        f"(threshold {fmt(ctx.t('max_ratio'))}x): different data, memorisation or leakage?",
        value=m.run,
        baseline=m.center,
        baseline_values=m.base,
        ratio=ratio,
        threshold=ctx.t("max_ratio"),
    )
