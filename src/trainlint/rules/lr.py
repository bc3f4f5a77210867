"""Learning-rate schedule problems."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..model import RunMeta
from ..registry import Context, Threshold, rule
from ..running import Source
from ..verdict import Finding, Severity
from .kept import finite_values
from .stats import fmt, fstep


def _judged_lr(values: np.ndarray, eps: float) -> np.ndarray:
    """The LR points that should be non-zero: drop the first point (warm-up from 0)
    and a trailing run of zeros reached by a decaying schedule."""
    v = values[1:] if len(values) > 1 else values
    zero = np.abs(v) <= eps
    if zero.all():
        return v
    last_nz = int(np.flatnonzero(~zero)[-1])
    if last_nz < len(v) - 1:
        nz = v[: last_nz + 1][~zero[: last_nz + 1]]
        if len(nz) >= 2 and nz[-1] < nz.max():  # decayed to zero: legitimate
            v = v[: last_nz + 1]
    return v


@rule(
    code="TL040",
    name="lr-zero",
    category="lr",
    severity="FAIL",
    summary="The learning rate is zero on all or most steps.",
    explanation="""
With a zero learning rate the optimizer makes no update: the loss can only wander with
the batches. Zeros at the first warm-up step and at the end of a decaying schedule are
legitimate and ignored. Usual causes: a scheduler stepped before the optimizer, a
warm-up longer than the run, lr=0 in a config, a LambdaLR that returns 0. Try: print
optimizer.param_groups[0]['lr'] for the first steps and check the scheduler's arguments.""",
    thresholds=[
        Threshold("fail_fraction", 0.95, "share of zero-LR points that FAILs"),
        Threshold("warn_fraction", 0.25, "share of zero-LR points that WARNs"),
        Threshold("zero", 1e-12, "an |LR| at or below this is zero"),
        Threshold("min_points", 3, "LR points needed to judge"),
    ],
)
def lr_zero(ctx: Context) -> Finding | None:
    s = ctx.series("learning_rate", min_points=int(ctx.t("min_points")))
    zeros, judged, i, top = _zero_counts(ctx, s.name, s.values)
    frac = zeros / max(judged, 1)
    if frac < ctx.t("warn_fraction"):
        return None
    sev = "FAIL" if frac >= ctx.t("fail_fraction") else "WARN"
    threshold = ctx.t("fail_fraction") if sev == "FAIL" else ctx.t("warn_fraction")
    if i == 1 and abs(s.values[0]) <= ctx.t("zero"):
        i = 0  # zero from the very first point on
    first = s.steps[i]
    return ctx.fire(
        f"learning rate is zero on {zeros} of {judged} judged points ({fmt(frac * 100)}%, "
        f"threshold {fmt(threshold * 100)}%); max LR {fmt(top)}",
        step=first,
        severity=sev,
        zero_points=zeros,
        judged_points=judged,
        fraction=frac,
        threshold=threshold,
        max_lr=top,
    )


def _zero_counts(ctx: Context, name: str, values: np.ndarray) -> tuple[int, int, int, float]:
    """(the zero points among those :func:`_judged_lr` keeps, how many it keeps, the index of
    the first of them in ``values``, the highest |LR|); on a live run from the counts kept of
    the values so far (:class:`Zeros`)."""
    eps = ctx.t("zero")
    state = ctx.state(f"lr zeros {eps} {name}", lambda: Zeros(eps, finite_values(name))) if len(values) > 1 else None
    if state is None:
        v = _judged_lr(values, eps)
        offset = 1 if len(values) > 1 else 0  # _judged_lr drops the first point
        zero = np.abs(v) <= eps
        return int(np.sum(zero)), len(v), offset + int(np.argmax(zero)), float(np.max(np.abs(values)))
    state.update(values)
    return state.judged()


class Zeros:
    """:func:`_judged_lr`'s counts of a series that only grows (a live run's LR), kept: each
    update reads only the values new since the last. Of the values after the first (``v``):
    the zeros and the first of them, the non-zero ones, the last of them and its value, their
    highest; and the highest |value| of all."""

    __slots__ = ("eps", "n", "zeros", "first", "nonzero", "last", "last_value", "nz_max", "top", "source")

    def __init__(self, eps: float, source: Source | None = None) -> None:
        self.eps, self.source = eps, source
        self.n = self.zeros = self.nonzero = 0
        self.first = self.last = -1  # indices in v
        self.last_value, self.nz_max, self.top = math.nan, -math.inf, -math.inf

    def feed(self, run: Any, memo: dict[str, Any]) -> None:
        if self.source is not None:
            self.update(self.source(run, memo))

    def update(self, values: np.ndarray) -> None:
        if len(values) < self.n:  # not an extension: start again
            self.__init__(self.eps, self.source)  # type: ignore[misc]
        new, start = values[self.n :], max(self.n, 1)  # v = values[1:]: start's index in values
        if not len(new):
            return
        self.top = max(self.top, float(np.max(np.abs(new))))
        new = values[start:]
        self.n = len(values)
        zero = np.abs(new) <= self.eps
        at, nz = np.flatnonzero(zero), np.flatnonzero(~zero)
        if len(at):
            self.first = self.first if self.first >= 0 else start - 1 + int(at[0])
            self.zeros += len(at)
        if len(nz):
            self.last, self.nonzero = start - 1 + int(nz[-1]), self.nonzero + len(nz)
            self.last_value, self.nz_max = float(new[nz[-1]]), max(self.nz_max, float(new[nz].max()))

    def judged(self) -> tuple[int, int, int, float]:
        """What :func:`_zero_counts` gives, for the values so far (two or more)."""
        length = self.n - 1
        zeros = self.zeros
        if self.nonzero and self.last < length - 1 and self.nonzero >= 2 and self.last_value < self.nz_max:
            zeros, length = zeros - (length - 1 - self.last), self.last + 1  # decayed to zero: the tail cut
        return zeros, length, 1 + (self.first if zeros else 0), self.top


@rule(
    code="TL041",
    name="warmup-unfinished",
    category="lr",
    severity="WARN",
    summary="The learning-rate warm-up never finished before the run ended.",
    explanation="""
The LR was still rising at the last logged step (it rose over the final stretch and ends
at its maximum), or the run ended before the configured warm-up or peak LR was reached
(warmup_steps / learning_rate in the run's metadata). The whole run then trained at a
lower LR than intended and its loss says little about the configuration. Where the loss
fell well anyway (to half its start or below, and no longer falling fast over the last fifth
of the run: a short fine-tune that is all warm-up) the cost did not show: a NOTE. Usual causes:
warmup_steps larger than max_steps, a warm-up ratio applied to the wrong total, a run
cut short. Try: check warmup_steps against the real number of optimizer steps. A run still
training may be in its warm-up: the live guard runs this rule when the run ends.""",
    live="end",
    thresholds=[
        Threshold("tail", 0.2, "final fraction of the run the LR must keep rising over"),
        Threshold("min_rise", 0.05, "relative LR rise over that tail that counts as rising"),
        Threshold("min_points", 5, "LR points needed to judge"),
        Threshold("fell_to", 0.5, "final loss at or below this fraction of its start: it fell well anyway (NOTE)"),
        Threshold("tail_share", 0.1, "share of the loss's fall made in the last fifth from which it was still falling"),
        Threshold("min_loss_points", 8, "loss points needed to tell that the loss fell well anyway"),
    ],
)
def warmup_unfinished(ctx: Context) -> Finding | None:
    found = _warmup_unfinished(ctx)
    if found is None:
        return None
    anyway = _loss_fell_anyway(ctx)
    if anyway is None:
        return found
    text, evidence = anyway
    found.severity, found.message = Severity.NOTE, f"{found.message}; {text}"
    found.evidence.update(evidence)
    return found


def _loss_fell_anyway(ctx: Context) -> tuple[str, dict[str, float]] | None:
    """Whether the loss shows no cost of the unfinished warm-up: it fell to ``fell_to`` of its
    start or below, and the last fifth of the run made under ``tail_share`` of that fall (it is
    not still far from where it was heading). The text and evidence of the NOTE; None otherwise."""
    loss = ctx.subject.get("loss")
    v = loss.finite().values if loss is not None else np.array([])
    if len(v) < ctx.t("min_loss_points"):
        return None
    w = max(2, len(v) // 5)
    start, end = float(np.median(v[:w])), float(np.median(v[-w:]))
    before = float(np.median(v[-2 * w : -w]))
    if not (start > 0 and end <= ctx.t("fell_to") * start and start > end):
        return None
    share = max(before - end, 0.0) / (start - end)
    if share >= ctx.t("tail_share"):
        return None
    text = (
        f"the loss fell well anyway ({fmt(start)} to {fmt(end)}, {fmt(end / start * 100)}% of its start, "
        f"threshold {fmt(ctx.t('fell_to') * 100)}%; {fmt(share * 100)}% of that fall in the last fifth, "
        f"threshold {fmt(ctx.t('tail_share') * 100)}%)"
    )
    return text, {"loss_start": start, "loss_end": end, "tail_share": share}


def _warmup_unfinished(ctx: Context) -> Finding | None:
    s = ctx.series("learning_rate", min_points=int(ctx.t("min_points")))
    v = np.abs(s.values)
    meta = RunMeta.of(ctx.subject)
    warm = meta.warmup_steps
    if warm is not None and warm > s.steps[-1] and warm > 0:
        return ctx.fire(
            f"warm-up of {fstep(warm)} steps is longer than the run (last step {fstep(s.steps[-1])})",
            step=s.steps[-1],
            warmup_steps=warm,
            last_step=s.steps[-1],
            last_lr=v[-1],
        )
    k = max(2, int(round(len(v) * ctx.t("tail"))))
    before, last = float(v[-k]), float(v[-1])
    rising = last >= v.max() and last > before * (1 + ctx.t("min_rise")) and np.all(np.diff(v[-k:]) >= 0)
    if rising:
        return ctx.fire(
            f"LR still rising at the last step: {fmt(before)} at step {fstep(s.steps[-k])} to "
            f"{fmt(last)} at step {fstep(s.steps[-1])} (rise threshold {fmt(ctx.t('min_rise') * 100)}%); "
            f"warm-up never finished",
            step=s.steps[-1],
            lr_before=before,
            last_lr=last,
            tail_start_step=s.steps[-k],
            threshold=ctx.t("min_rise"),
        )
    peak = meta.learning_rate
    if peak is not None and peak > 0 and v.max() < 0.9 * peak and v.max() > 0:
        return ctx.fire(
            f"LR peaked at {fmt(v.max())}, below the configured {fmt(peak)}",
            step=s.steps[int(np.argmax(v))],
            max_lr=v.max(),
            configured_lr=peak,
        )
    return None
