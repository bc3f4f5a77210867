"""Non-finite and degenerate values in the loss."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..model import Run, RunMeta, Series
from ..registry import Context, NotChecked, StandDown, Threshold, rule
from ..verdict import Finding
from .crash import events_of
from .entropy import online_rl_series
from .stats import fmt, fstep, median, steps_list, trailing_run

RECUR = 2  # non-finite loss points that make a run broken (TL001's fail_count; one recovered from: WARN)


@rule(
    code="TL001",
    name="non-finite-loss",
    category="nan",
    severity="FAIL",
    summary="The training loss is NaN or infinite.",
    explanation="""
A NaN or infinite loss means the forward or backward pass overflowed or divided by
zero; every update after it is garbage, and in most trainers the weights are now NaN.
A single one that the run recovers from (every point after it finite: a skipped overflow
step, one bad batch) is a WARN naming the step; one that recurs (`fail_count`) or that the
run ends on is a FAIL. On a run still training (the live guard) a single non-finite latest
point is a WARN until the next points show whether it recurs. A loss that starts non-finite
and is then finite (`fail_count` finite points at least) was not yet defined, not gone bad (an RL
agent's loss averaged over no updates while its replay buffer fills; NaN weights never give a
finite loss again): a NOTE naming the steps, and only non-finite points after it are judged.
Usual causes: a learning rate too high, fp16 without a loss scaler, log(0) in a custom
loss, a bad batch. Try: lower the learning rate, enable gradient clipping, use bf16 or
a loss scaler, and look at the batch logged just before the first bad step.""",
    thresholds=[
        Threshold("min_count", 1, "non-finite loss points needed to fire"),
        Threshold("fail_count", RECUR, "non-finite loss points that FAIL; fewer that the run recovers from WARN"),
    ],
)
def non_finite_loss(ctx: Context) -> Finding | None:
    hit = _first_non_finite(ctx, "loss")
    if hit is None:
        return None
    s, first, count, ev = hit
    live = bool((ctx.extra or {}).get("live"))
    lead = undefined_prefix(s.values, ctx.t("fail_count"))
    if lead:
        return _undefined_at_start(ctx, s, lead, ev, live)
    if not recurs(s.values, ctx.t("fail_count"), live):
        at = f"loss is {_kind(s.values[first])} at step {fstep(s.steps[first])}"
        after = len(s) - first - 1
        why = (
            f"the run recovered (the {after} point(s) after it are finite): a skipped step or one bad batch; "
            f"FAIL if it recurs"
            if after
            else "the latest point of a run still training: FAIL if the next points are not finite"
        )
        return ctx.fire(f"{at}, {count} of {len(s)} points: {why}", severity="WARN", recovered=bool(after), **ev)
    tail = " and stays non-finite to the end" if ev["non_finite_to_end"] else ""
    return ctx.fire(
        f"loss is {_kind(s.values[first])} at step {fstep(s.steps[first])}{tail}: "
        f"{count} of {len(s)} points non-finite",
        **ev,
    )


def undefined_prefix(values: np.ndarray, fail_count: float = RECUR) -> int:
    """How many non-finite points the loss starts with when at least ``fail_count`` finite points
    follow them (0 otherwise): a loss not yet defined, an RL agent's average over no updates while
    its replay buffer fills (PFRL's ``average_loss`` is NaN before the first update), not a loss
    that went bad: NaN weights never give a finite loss again."""
    bad = ~np.isfinite(values)
    if not len(bad) or not bad[0] or bad.all():
        return 0
    lead = int(np.argmin(bad))
    return lead if int((~bad[lead:]).sum()) >= fail_count else 0


def _undefined_at_start(ctx: Context, s: Series, lead: int, ev: dict[str, Any], live: bool) -> Finding | None:
    """TL001 on a loss that starts non-finite and is then defined: a NOTE where every later
    point is finite; else the later non-finite points judged as any others (the prefix named)."""
    span = f"step {fstep(s.steps[0])}" if lead == 1 else f"steps {fstep(s.steps[0])}-{fstep(s.steps[lead - 1])}"
    kinds = {_kind(x) for x in s.values[:lead]}
    what = kinds.pop() if len(kinds) == 1 else "non-finite"
    start = (
        f"loss is not defined for its first {lead} point(s) ({what} at {span}, finite from step {fstep(s.steps[lead])})"
    )
    rest = s.values[lead:]
    ev = dict(ev, undefined_points=lead, defined_from=s.steps[lead])
    later = int((~np.isfinite(rest)).sum())
    if later == 0:
        return ctx.fire(
            f"{start} and finite to the end: a loss logged before the first update (an average of no "
            "updates while a replay buffer fills), not a run gone bad (a NOTE; FAIL if it turns non-finite later)",
            severity="NOTE",
            **ev,
        )
    at = lead + int(np.argmax(~np.isfinite(rest)))
    ev.update(step=s.steps[at], first_step=s.steps[at], count=later, non_finite_to_end=bool(~np.isfinite(rest[-1])))
    sev = "FAIL" if recurs(rest, ctx.t("fail_count"), live) else "WARN"
    return ctx.fire(
        f"loss is {_kind(s.values[at])} at step {fstep(s.steps[at])} after it was defined: {later} of "
        f"{len(rest)} points non-finite from step {fstep(s.steps[lead])} ({start})",
        severity=sev,
        **ev,
    )


def recurs(values: np.ndarray, fail_count: float = RECUR, live: bool = False) -> bool:
    """Whether a loss's non-finite points break the run: ``fail_count`` of them or more, or a
    finished run that ends on one. Fewer, each followed by finite points (or, on a run still
    training, the latest point), are a blip the run recovered from, or may yet."""
    bad = ~np.isfinite(values)
    count = int(bad.sum())
    if count == 0:
        return False
    return count >= fail_count or (bool(bad[-1]) and not live)


def _first_non_finite(ctx: Context, role: str) -> tuple[Series, int, int, dict[str, Any]] | None:
    """(series, index of its first non-finite point, how many, the evidence) when at least
    ``min_count`` of the role's points are non-finite; None otherwise."""
    s = ctx.series(role, finite=False)
    bad = ~np.isfinite(s.values)
    count = int(bad.sum())
    if count < ctx.t("min_count"):
        return None
    first = int(np.argmax(bad))
    ev = dict(
        step=s.steps[first],
        first_step=s.steps[first],
        count=count,
        points=len(s),
        value=s.values[first],
        non_finite_to_end=bool(bad[first:].all()),
        threshold=ctx.t("min_count"),
    )
    return s, first, count, ev


@rule(
    code="TL002",
    name="non-finite-eval-loss",
    category="nan",
    severity="FAIL",
    summary="The eval loss is NaN or infinite.",
    explanation="""
A NaN or infinite eval loss means the model's weights or its evaluation pass produced
non-finite numbers: the weights may already be NaN (even when the train loss column
looks fine, see TL004), or the eval data holds an empty or fully masked batch.
Try: evaluate the checkpoint before the first bad step on one batch and look for
NaN weights; check the eval collator for batches without any target token.""",
    thresholds=[Threshold("min_count", 1, "non-finite eval loss points needed to fire")],
)
def non_finite_eval_loss(ctx: Context) -> Finding | None:
    hit = _first_non_finite(ctx, "eval_loss")
    if hit is None:
        return None
    s, first, count, ev = hit
    return ctx.fire(
        f"eval loss is {_kind(s.values[first])} at step {fstep(s.steps[first])}: "
        f"{count} of {len(s)} evaluations non-finite",
        **ev,
    )


def _kind(x: float) -> str:
    return "NaN" if np.isnan(x) else "infinite"


def _loss_at(run: Run, steps: np.ndarray) -> np.ndarray | None:
    """The loss value logged at each of ``steps`` (NaN where none was logged)."""
    loss = run.get("loss")
    if loss is None or len(loss) == 0:
        return None
    order = np.argsort(loss.steps, kind="stable")
    ls, lv = loss.steps[order], loss.values[order]
    i = np.clip(np.searchsorted(ls, steps), 0, len(ls) - 1)
    return np.where(ls[i] == steps, lv[i], np.nan)


@rule(
    code="TL003",
    name="non-finite-grad-norm",
    category="nan",
    severity="FAIL",
    summary="The gradient norm is NaN or infinite: skipped overflow steps (WARN) or a poisoned run (FAIL).",
    explanation="""
With fp16 mixed precision a loss scaler skips steps whose gradients overflow; such steps
log an infinite grad norm while the loss stays finite. Isolated ones are the loss scaler at
work: a NOTE with the count while they are at most `max_share` of the logged steps (1 in
1,000 skips a thousandth of the updates), a WARN above (the skipped updates start to cost
training, and the scale keeps hitting its limit). The run is poisoned (FAIL) when the loss is non-finite too, when
the loss reads exactly 0.0 at a non-finite grad norm (a NaN hidden by the logger), or when
the grad norm stays non-finite from some step to the end. Try: bf16 instead of fp16,
a lower learning rate, gradient clipping, and the batch at the first bad step.""",
    thresholds=[
        Threshold("min_tail", 2, "non-finite points at the end that count as 'to the end'"),
        Threshold("max_share", 0.01, "isolated non-finite grad norms up to this share of the points: a NOTE"),
    ],
)
def non_finite_grad_norm(ctx: Context) -> Finding | None:
    s = ctx.series("grad_norm", finite=False)
    bad = ~np.isfinite(s.values)
    count = int(bad.sum())
    if count == 0:
        return None
    first = int(np.argmax(bad))
    tail = trailing_run(bad)
    loss_here = _loss_at(ctx.subject, s.steps[bad])
    loss = ctx.subject.get("loss")
    # a single non-finite loss the run recovered from is the same skipped step (TL001: WARN)
    live = bool((ctx.extra or {}).get("live"))
    loss_bad = loss is not None and recurs(loss.values[undefined_prefix(loss.values) :], live=live)
    zero_at_bad = int(np.sum(loss_here == 0.0)) if loss_here is not None else 0
    ev = dict(
        count=count,
        points=len(s),
        first_step=s.steps[first],
        tail_points=tail,
        loss_non_finite=loss_bad,
        loss_zero_at_bad=zero_at_bad,
        threshold=ctx.t("min_tail"),
    )
    where = f"{count} of {len(s)} grad norms non-finite (first at step {fstep(s.steps[first])})"
    if loss_bad or zero_at_bad or tail >= ctx.t("min_tail"):
        why = (
            "the loss is non-finite too"
            if loss_bad
            else f"the loss reads exactly 0 at {zero_at_bad} of them"
            if zero_at_bad
            else f"non-finite for the last {tail} points (threshold {fmt(ctx.t('min_tail'))})"
        )
        return ctx.fire(f"poisoned run: {where}; {why}", step=s.steps[first], severity="FAIL", **ev)
    share = count / len(s)
    few = share <= ctx.t("max_share")
    say = f" ({fmt(share * 100)}% of the points, threshold {fmt(ctx.t('max_share') * 100)}%{': a NOTE' if few else ''})"
    return ctx.fire(
        f"{where}, isolated with a finite loss: skipped overflow steps{say}",
        step=s.steps[first],
        severity="NOTE" if few else "WARN",
        share=share,
        **ev,
    )


@rule(
    code="TL004",
    name="loss-column-untrusted",
    category="nan",
    severity="WARN",
    summary="Grad norm or eval loss is non-finite while the train loss never is: the loss column may hide NaNs.",
    explanation="""
Hugging Face Trainer's default logging_nan_inf_filter=True drops NaN/Inf losses from the
logged average, so log_history can show a clean train loss while the run produced NaNs.
When the grad norm or the eval loss is non-finite but the train loss never is, the loss
column cannot be taken at its word. Isolated non-finite grad norms (fp16 skipped steps)
make this a NOTE; a non-finite eval loss or a grad norm non-finite to the end a WARN.
Try: rerun a few steps with logging_nan_inf_filter=False, or check the weights.""",
)
def loss_column_untrusted(ctx: Context) -> Finding | None:
    loss = ctx.series("loss", finite=False)
    if not np.isfinite(loss.values).all():
        raise StandDown("the loss column itself shows non-finite values (TL001)")
    gn, ev = ctx.subject.get("grad_norm"), ctx.subject.get("eval_loss")
    gbad = int((~np.isfinite(gn.values)).sum()) if gn is not None else 0
    ebad = int((~np.isfinite(ev.values)).sum()) if ev is not None else 0
    if gn is None and ev is None:
        raise NotChecked("no grad_norm or eval_loss series to cross-check the loss with")
    if gbad == 0 and ebad == 0:
        return None
    gtail = gbad > 0 and not np.isfinite(gn.values[-1])
    sev = "WARN" if ebad or gtail else "NOTE"
    return ctx.fire(
        f"train loss is finite at all {len(loss)} points but {gbad} grad norm(s) and "
        f"{ebad} eval loss(es) are non-finite; the loss column may hide NaNs (as Hugging "
        f"Face's logging_nan_inf_filter does)",
        severity=sev,
        grad_norm_non_finite=gbad,
        eval_loss_non_finite=ebad,
        loss_points=len(loss),
    )


def _smooth_into_zero(ctx: Context, values: np.ndarray, zero: np.ndarray, tail: int) -> None:
    """Stand down when the loss decayed smoothly into values its printing rounds to 0 (a tiny
    model memorising a few samples): convergence. A jump to exact 0 from a real level stays."""
    from .stats import printed_quantum

    nz = values[~zero]
    before = nz[-5:] if len(nz) >= 5 else nz
    if len(before) < 3:
        return
    start = float(median(nz[: max(3, len(nz) // 10)]))
    quantum = printed_quantum(values)
    near = max(10 * quantum, 1e-3 * abs(start))
    if float(np.max(before)) <= near and start > 0:
        raise StandDown(
            f"the loss decayed from {fmt(start)} to {fmt(float(before[-1]))} before it was printed as "
            f"0 for the last {tail} points (printed to {fmt(quantum) if quantum else 'full'} "
            "precision): convergence, not masked batches"
        )


def _zero_before_first_update(values: np.ndarray, zero: np.ndarray, count: int, max_share: float) -> None:
    """Stand down when the zeros are only the first few points, before the loss's first non-zero value:
    a loss printed before the first update (a DQN's replay buffer still filling, ChengxianWu/AI-DQN-CartPole-Lab's
    ``Episode 001/400 | Reward: 9.0 | Epsilon: 0.9950 | Loss: 0.000000``), no masked batch."""
    lead = int(np.argmax(~zero))
    if lead == count and lead <= max_share * len(values):
        raise StandDown(
            f"the loss is 0 only at its first {lead} point(s), before its first non-zero value "
            f"({fmt(float(values[lead]))}): printed before the first update (a replay buffer filling), "
            "not masked batches"
        )


@rule(
    code="TL005",
    name="loss-zero",
    category="nan",
    severity="FAIL",
    summary="The loss is exactly zero: everywhere, from some step to the end, or at scattered steps.",
    explanation="""
A loss of exactly 0.0 is almost never real. All zeros or zeros to the end (FAIL) mean the
loss is not computed (no target tokens, labels all ignore_index, a detached or masked
loss) or a NaN was replaced by 0. Scattered exact zeros among non-zero values (WARN)
usually mean fully masked batches: sequences whose targets were all truncated away or
padded. A loss that decays smoothly to a few printed digits and is then printed as 0 (a tiny
model memorising four samples, logged to 4 decimals) is convergence: the rule stands down;
a jump to exact 0 from a real level stays a FAIL. A loss that also goes negative (a composite
loss: a Gaussian likelihood, an entropy bonus, a KL term subtracted) passes through 0, so a few
exact zeros among its values are not masked batches: the rule stands down on them. So does an
online RL fine-tune's loss (GRPO and kin, a reward and a KL logged beside it): the KL penalty is 0
while the policy is its reference, and always with beta 0, and the surrogate's mean is 0. Zeros
only at the first points (up to `max_lead_share` of the run), before the loss's first non-zero
value, are a loss printed before the first update (a DQN's replay buffer filling): the rule stands
down on them. Try: count non-ignored label tokens per batch and check max_length/truncation.""",
    thresholds=[
        Threshold("min_tail", 3, "zero points at the end that count as 'zero to the end'"),
        Threshold("min_level", 1e-3, "scattered zeros count only where the loss otherwise exceeds this"),
        Threshold(
            "max_lead_share",
            0.1,
            "zeros only at the run's start, up to this share of its points: a loss printed before the first update",
        ),
    ],
)
def loss_zero(ctx: Context) -> Finding | None:
    s = ctx.series("loss")
    zero = s.values == 0.0
    count = int(zero.sum())
    if count == 0:
        return None
    first = int(np.argmax(zero))
    ev = dict(zero_points=count, points=len(s), first_step=s.steps[first])
    rl = online_rl_series(ctx.subject)
    if rl is not None:
        raise StandDown(
            f"{count} exact zero(s) in an online RL fine-tune's loss ({rl[0]} and {rl[1]} logged): the KL "
            "penalty is 0 while the policy is its reference (and always with beta 0), the surrogate's mean 0"
        )
    if count == len(s):
        return ctx.fire(f"loss is exactly 0 at all {len(s)} points", step=s.steps[0], **ev)
    tail = trailing_run(zero)
    if tail >= ctx.t("min_tail"):
        _smooth_into_zero(ctx, s.values, zero, tail)
        at = s.steps[len(zero) - tail]
        return ctx.fire(
            f"loss is exactly 0 from step {fstep(at)} to the end ({tail} points)",
            step=at,
            tail_points=tail,
            threshold=ctx.t("min_tail"),
            **ev,
        )
    low = float(np.nanmin(s.values))
    if low < 0:
        raise StandDown(
            f"{count} exact zero(s), but the loss goes negative (down to {fmt(low)}): a composite loss "
            "that passes through 0, where a printed 0 is one of its values, not a masked batch"
        )
    level = float(median(s.values[~zero]))
    if level <= ctx.t("min_level"):
        raise StandDown(f"{count} zero(s) but the loss is near zero anyway (median {fmt(level)})")
    _zero_before_first_update(s.values, zero, count, ctx.t("max_lead_share"))
    return ctx.fire(
        f"loss is exactly 0 at {count} scattered step(s) ({steps_list(s.steps[zero])}) "
        f"among values with median {fmt(level)}: fully masked batches?",
        step=s.steps[first],
        severity="WARN",
        median_level=level,
        threshold=ctx.t("min_level"),
        **ev,
    )


@rule(
    code="TL006",
    whole_run=True,
    name="non-finite-skipped",
    category="nan",
    severity="WARN",
    summary="The log says steps were skipped because the loss or the gradients were NaN or infinite.",
    explanation="""
A training loop that guards itself (`if not torch.isfinite(loss): print("NaN loss detected!
Skipping batch."); continue`) logs only the finite losses: its curve looks healthy while batches
go bad, and TL001 never sees a NaN. The console reader finds the script's own message: a line that
says what was non-finite (NaN, inf, non-finite loss or gradients) and that it was skipped. Two
lines or more (`warn_count`) are a WARN naming the first and the count; a single one is a NOTE.
A loss scaler's overflow search (apex's `Gradient overflow. Skipping step`, DeepSpeed's
`OVERFLOW! ... Skipping step`: fp16's normal search for its scale) and counters of skipped
iterations are not such messages. Usual causes: as for TL001 (a learning rate too high, fp16
without a loss scaler, log(0), a bad batch). Try: log the batch that went non-finite and how
often it happens; a few per epoch from one bad sample is a data fix, a rising rate is divergence.""",
    thresholds=[
        Threshold("warn_count", RECUR, "lines saying a non-finite step was skipped that WARN; fewer are a NOTE")
    ],
)
def non_finite_skipped(ctx: Context) -> Finding | None:
    run = ctx.subject
    found = events_of(run, "skip")
    if not found:
        if not RunMeta.of(run).skips_scanned:
            raise NotChecked("only console output carries a script's own messages")
        return None
    first = found[0]
    count = sum(int(e.get("count") or 1) for e in found)
    warn = count >= ctx.t("warn_count")
    return ctx.fire(
        f"{count} line(s) say a step was skipped for a non-finite value (first at line {first.get('line')}: "
        f"{str(first.get('text') or '')[:120]}): the logged loss leaves those steps out"
        + ("" if warn else f"; one alone is a NOTE (WARN from {fmt(ctx.t('warn_count'))})"),
        severity="WARN" if warn else "NOTE",
        line=first.get("line"),
        count=count,
        threshold=ctx.t("warn_count"),
    )
