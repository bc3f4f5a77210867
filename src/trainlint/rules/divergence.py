"""Divergence: the loss rose and stayed up, or blew up mid-run."""

from __future__ import annotations

import numpy as np

from ..model import Series
from ..registry import Context, StandDown, Threshold, rule
from ..verdict import Finding
from ._evals import share_of_fall
from .entropy import episode_reward_rise, reward_rise
from .kept import coarse_of
from .stagnation import discriminator_beside
from .stats import (
    blowup_candidates,
    centred_median,
    fmt,
    fstep,
    head_level,
    level_se,
    longest_run,
    noise,
    robust_level,
    rolling_median,
    window_for,
)


def _curve(ctx: Context) -> tuple[Series, np.ndarray, np.ndarray, np.ndarray]:
    s = ctx.series("loss", min_points=int(ctx.t("min_points")))
    steps, v = coarse_of(ctx, s)
    return s, steps, v, rolling_median(v, window_for(len(v)))


@rule(
    code="TL010",
    name="loss-diverged",
    category="divergence",
    severity="FAIL",
    summary="The loss ended far above its best level and stayed there.",
    explanation="""
Compares a robust end level (median of the last tenth of the run) with a robust
minimum (the lowest rolling median). A sustained rise to a multiple of the best level
means training diverged: the optimizer left the good region and did not come back.
A last-point blip does not count: the rise must persist over a stretch of the run.
If an eval loss exists and kept improving to the end, the train-loss rise alone is only
a WARN. A rise under `immaterial` of the loss's fall from its first point to its lowest is a
NOTE: 0.02 to 0.05 after a fall from 3.3 is a ratio of two numbers near 0 (a fit at its noise
floor), not an optimizer that left the good region. A rise under `noise_z` standard errors of the
loss's own point-to-point noise is a NOTE too: a loss printed as one mini-batch's value every N
steps swings by more than its trend, and its lowest stretch is luck, not a level it left. An
online RL fine-tune's loss (GRPO and kin: a reward and a KL logged beside it) whose reward rose is a
NOTE: its loss is the KL penalty, which grows from 0 as the policy leaves its reference. So is an RL
agent's loss (PPO, A2C: a mean episode reward such as `rollout/ep_rew_mean` logged beside it) whose
reward rose: the loss holds a value regression onto returns that grow as the policy improves, each
update on fresh rollouts, so its level is no measure of learning (the reward is). A GAN
generator's loss (a discriminator's logged beside it) that rose while the discriminator's fell is a
WARN: the discriminator gained on the generator, the game's usual course (0.72 -> 2.5 while the
discriminator's went 1.39 -> 0.27), not an optimizer that left its region; it stays a FAIL when the
discriminator's loss ends under `disc_floor` of its start (it won outright, the generator gets no
signal) or did not fall. Try: a lower peak learning rate, longer warm-up, gradient clipping, and the
checkpoint nearest the best step.""",
    thresholds=[
        Threshold("min_rise", 2.0, "end level / best level ratio that counts as diverged"),
        Threshold("min_points", 10, "finite loss points needed to judge"),
        Threshold("min_stretch", 0.1, "fraction of the run the rise must persist over"),
        Threshold("noise_z", 3.0, "rise under this many standard errors of the loss's own noise: a NOTE"),
        Threshold("immaterial", 0.01, "rise (end - best) under this share of the fall from the first point: a NOTE"),
        Threshold("disc_floor", 0.05, "a discriminator's end level / its start under which it won outright"),
    ],
)
def loss_diverged(ctx: Context) -> Finding | None:
    s, steps, v, rm = _curve(ctx)
    best_i = int(np.argmin(rm))
    best = float(rm[best_i])
    if best <= 0:
        raise StandDown(f"best loss level {fmt(best)} is not positive; ratio cannot be judged")
    end = robust_level(v)
    ratio = end / best
    if ratio < ctx.t("min_rise"):
        return None
    half = best * (1 + (ctx.t("min_rise") - 1) / 2)
    cm = centred_median(v, window_for(len(v)))
    above = float(np.mean(cm[best_i:] > half)) * (len(v) - best_i) / len(v)
    if above < ctx.t("min_stretch"):
        raise StandDown(f"loss rose {fmt(ratio)}x but only over {fmt(above * 100)}% of the run")
    evidence = dict(
        end_level=end,
        best_level=best,
        best_step=steps[best_i],
        ratio=ratio,
        threshold=ctx.t("min_rise"),
        steps_past_best=steps[-1] - steps[best_i],
        stretch_fraction=above,
    )
    lesser = _lesser_rise(ctx, v, evidence)
    if lesser is not None:
        return lesser
    for softer in (_kl_penalty_rise, _agent_reward_rose, _adversarial_rise, _eval_still_improving):
        found = softer(ctx, evidence)
        if found is not None:
            return found
    return ctx.fire(
        f"loss diverged: end level {fmt(end)} is {fmt(ratio)}x its best {fmt(best)} "
        f"(step {fstep(steps[best_i])}), {fstep(steps[-1] - steps[best_i])} steps past the best "
        f"(threshold {fmt(ctx.t('min_rise'))}x)",
        step=steps[best_i],
        **evidence,
    )


def _kl_penalty_rise(ctx: Context, evidence: dict[str, float]) -> Finding | None:
    """A NOTE for an online RL fine-tune (GRPO and kin) whose reward rose: its loss is the KL
    penalty, which grows from 0 as the policy learns."""
    rose = reward_rise(ctx.subject)
    if rose is None:
        return None
    said = f"an online RL fine-tune's KL penalty: {rose[0]} and {rose[1]} logged"
    why = "the policy left its reference as it learned; a KL still growing at the end is worth a look"
    return _reward_note(ctx, evidence, said, (rose[0], *rose[2:]), why)


def _agent_reward_rose(ctx: Context, evidence: dict[str, float]) -> Finding | None:
    """A NOTE for an RL agent (PPO, A2C and kin) whose mean episode reward rose: its loss holds a
    value regression onto returns that grow as the policy improves."""
    rose = episode_reward_rise(ctx.subject)
    if rose is None:
        return None
    why = (
        "the loss holds a value regression onto returns that grow as the policy improves, each update on "
        "fresh rollouts; the reward says it learned"
    )
    return _reward_note(ctx, evidence, f"an RL agent's: {rose[0]} logged", rose, why)


def _reward_note(
    ctx: Context, evidence: dict[str, float], said: str, rose: tuple[str, float, float, float], why: str
) -> Finding:
    """The NOTE of a loss that rose while the ``rose`` reward (name, start, end, margin) rose too."""
    end, best, ratio = evidence["end_level"], evidence["best_level"], evidence["ratio"]
    return ctx.fire(
        f"loss ({said}) ended {fmt(ratio)}x its best ({fmt(end)} vs {fmt(best)}) while {rose[0]} rose "
        f"{fmt(rose[1])} to {fmt(rose[2])}: {why}",
        step=evidence["best_step"],
        severity="NOTE",
        reward_start=rose[1],
        reward_end=rose[2],
        reward_margin=rose[3],
        **evidence,
    )


def _adversarial_rise(ctx: Context, evidence: dict[str, float]) -> Finding | None:
    """A WARN for a GAN generator's loss that rose while the discriminator's loss logged beside it
    fell without reaching ``disc_floor`` of its start (0111yoyo/GAN1202's training_log.csv: Gen Loss
    0.72 -> about 2.5, Disc Loss 1.39 -> about 0.27 over 20 epochs): the discriminator gained, as it
    does, and the generator still gets its signal."""
    loss = ctx.series("loss").name
    disc = discriminator_beside(ctx, loss, int(ctx.t("min_points")))
    if disc is None:
        return None
    d = ctx.subject.series[disc].finite().values
    k = max(3, int(round(len(d) * 0.1)))
    d0, d1 = float(np.median(d[:k])), float(np.median(d[-k:]))
    if not 0 < d1 < d0 or d1 < ctx.t("disc_floor") * d0:
        return None
    end, best, ratio = evidence["end_level"], evidence["best_level"], evidence["ratio"]
    return ctx.fire(
        f"the GAN generator's loss ended {fmt(ratio)}x its best ({fmt(end)} vs {fmt(best)}) while the "
        f"discriminator's ({disc}) fell {fmt(d0)} to {fmt(d1)}: the discriminator gained on the generator, "
        f"not an optimizer that left its region; a discriminator's loss under {fmt(ctx.t('disc_floor'))} of "
        "its start would mean it won outright",
        step=evidence["best_step"],
        severity="WARN",
        disc_start=d0,
        disc_end=d1,
        **evidence,
    )


def _eval_still_improving(ctx: Context, evidence: dict[str, float]) -> Finding | None:
    """A WARN, no FAIL, where the eval loss kept improving to the end while the train loss rose."""
    ev = ctx.subject.get("eval_loss")
    if ev is None or len(ev.finite()) < 3:
        return None
    e = ev.finite().values
    if e[-1] > float(np.min(e)) * 1.01:
        return None
    end, best, ratio = evidence["end_level"], evidence["best_level"], evidence["ratio"]
    return ctx.fire(
        f"train loss ended {fmt(ratio)}x its best ({fmt(end)} vs {fmt(best)} at step "
        f"{fstep(evidence['best_step'])}) but eval loss kept improving to the end ({fmt(e[-1])})",
        step=evidence["best_step"],
        severity="WARN",
        eval_last=e[-1],
        eval_best=float(np.min(e)),
        **evidence,
    )


def _lesser_rise(ctx: Context, v: np.ndarray, evidence: dict[str, float]) -> Finding | None:
    """A NOTE where the rise is no divergence: within the loss's own noise, or immaterial to its
    fall (None where it is neither)."""
    end, best, at, ratio = evidence["end_level"], evidence["best_level"], evidence["best_step"], evidence["ratio"]
    head = f"loss ended {fmt(ratio)}x its best ({fmt(end)} vs {fmt(best)} at step {fstep(at)}), "
    z = _rise_in_noise(v, end, best)
    if z < ctx.t("noise_z"):
        return ctx.fire(
            head + f"but the rise is {fmt(z)} standard errors of the loss's own point-to-point noise "
            f"(threshold {fmt(ctx.t('noise_z'))}): the best level is a lucky stretch of a noisy curve, "
            "not a level it left (a NOTE)",
            step=at,
            severity="NOTE",
            noise_z=z,
            **evidence,
        )
    small = _immaterial_rise(ctx, v, best, end)
    if small is None:
        return None
    return ctx.fire(
        head + f"but the rise is {fmt(small * 100)}% of its fall from {fmt(float(v[0]))} (threshold "
        f"{fmt(ctx.t('immaterial') * 100)}%): immaterial, a ratio of numbers near 0 (a NOTE)",
        step=at,
        severity="NOTE",
        share_of_fall=small,
        immaterial=ctx.t("immaterial"),
        **evidence,
    )


def _rise_in_noise(v: np.ndarray, end: float, best: float) -> float:
    """The rise from the best level to the end level in standard errors of the difference of the
    two levels, each the median of its points (the end: the last tenth; the best: a rolling window)
    under the loss's point-to-point noise. On a positive loss both are taken on the log scale (the
    rule judges a ratio; a loss that blew up by orders of magnitude is no noise around its best).
    A loss printed as one mini-batch's value every N steps swings by more than its trend: the
    lowest of its rolling medians is a lucky stretch, not a level."""
    if float(np.min(v)) > 0 and end > 0:
        v, end, best = np.log(v), float(np.log(end)), float(np.log(best))
    sigma = noise(v)
    if sigma <= 0:
        return float("inf")
    k = max(3, int(round(len(v) * 0.1)))  # robust_level's points
    se = float(np.hypot(level_se(sigma, k), level_se(sigma, window_for(len(v)))))
    return (end - best) / se


def _immaterial_rise(ctx: Context, v: np.ndarray, best: float, end: float) -> float | None:
    """The rise (end - best) as a share of the loss's fall from its first point to its lowest
    (as TL060 weighs an eval loss's rise), where that share is under ``immaterial``; None
    otherwise (or where the loss did not fall)."""
    share = share_of_fall(v, end - best)
    return share if share is not None and share < ctx.t("immaterial") else None


@rule(
    code="TL011",
    name="loss-blowup",
    category="divergence",
    severity="FAIL",
    summary="The loss blew up to many times its earlier best for a long stretch, then came back.",
    explanation="""
A blow-up in the middle of a run is divergence even when the loss later comes back down
(often only because the learning rate decayed): while the loss sat at a multiple of its
earlier best, the updates were undoing training and that part of the budget was lost.
Fires when the rolling median stays above `factor` times the best level reached before
it for at least `min_stretch` of the run and the run ends below that level (a rise that
lasts to the end is TL010). A blow-up whose rise (its highest level less the earlier best) is
under `immaterial` of the loss's fall from its first point to its lowest is a NOTE: a hinge loss
at 0.002 that swings to 0.02 after a fall from 10 is a ratio of two numbers near 0, not updates
undoing training. A blow-up whose rise (on the log scale) is under `noise_z` standard errors of
the loss's own point-to-point noise is a NOTE too, as in TL010: a loss printed as one mini-batch's
value every N steps (a regression's squared error, 130 to 4800 with no trend) has a lowest stretch
that is luck and a highest one that is its spread, not a level it blew up to. Try: a lower peak
learning rate, longer warm-up, clipping.""",
    thresholds=[
        Threshold("factor", 3.0, "rolling median / earlier best that counts as blown up"),
        Threshold("noise_z", 3.0, "rise under this many standard errors of the loss's own noise: a NOTE"),
        Threshold("min_stretch", 0.1, "fraction of the run the blow-up must last"),
        Threshold("min_points", 20, "finite loss points needed to judge"),
        Threshold(
            "immaterial",
            0.01,
            "rise (highest level - earlier best) under this share of the fall from the first point: a NOTE",
        ),
    ],
)
def loss_blowup(ctx: Context) -> Finding | None:
    s = ctx.series("loss", min_points=int(ctx.t("min_points")))
    steps, v = coarse_of(ctx, s)  # the centred median below; no trailing one (_curve)
    if _too_short_to_blow_up(v, ctx.t("factor"), ctx.t("min_stretch")):
        return None
    rm = centred_median(v, window_for(len(v)))
    best_so_far = np.minimum.accumulate(rm)
    if best_so_far[-1] <= 0:
        raise StandDown("loss level reaches 0 or below; ratios cannot be judged")
    up = rm > ctx.t("factor") * np.maximum(best_so_far, 1e-300)
    start, length = longest_run(up)
    frac = length / len(v)
    if frac < ctx.t("min_stretch"):
        return None
    end = robust_level(v)
    ref = float(best_so_far[start])
    if end > ctx.t("factor") * ref:
        raise StandDown("the blow-up lasts to the end of the run (judged by TL010)")
    seg = v[start : start + length]
    peak_i = start + int(np.argmax(seg))
    high = float(rm[start : start + length].max())
    message = (
        f"loss blew up to {fmt(high / ref)}x its earlier best "
        f"{fmt(ref)} from step {fstep(steps[start])} to {fstep(steps[start + length - 1])} "
        f"({fmt(frac * 100)}% of the run, peak {fmt(float(v[peak_i]))} at step {fstep(steps[peak_i])}), "
        f"then came back to {fmt(end)} (threshold {fmt(ctx.t('factor'))}x for "
        f"{fmt(ctx.t('min_stretch') * 100)}% of the run)"
    )
    said, lesser = _immaterial_blowup(ctx, v, high - ref)
    if not lesser:
        said, lesser = _blowup_in_noise(ctx, v, high, ref)
    return ctx.fire(
        message + said,
        step=steps[start],
        severity="NOTE" if lesser else None,
        **lesser,
        start_step=steps[start],
        end_step=steps[start + length - 1],
        peak=float(v[peak_i]),
        peak_step=steps[peak_i],
        best_before=ref,
        end_level=end,
        stretch_fraction=frac,
        factor=ctx.t("factor"),
        start_level=head_level(v),
    )


def _immaterial_blowup(ctx: Context, v: np.ndarray, rise: float) -> tuple[str, dict[str, float]]:
    """Where a blow-up's ``rise`` (its highest level less the earlier best) is under ``immaterial``
    of the loss's fall from its first point, the words that say so and the evidence of a NOTE;
    else nothing."""
    share = share_of_fall(v, rise)
    if share is None or share >= ctx.t("immaterial"):
        return "", {}
    said = (
        f", but the rise is {fmt(share * 100)}% of its fall from {fmt(float(v[0]))} (threshold "
        f"{fmt(ctx.t('immaterial') * 100)}%): immaterial, a ratio of numbers near 0 (a NOTE)"
    )
    return said, dict(share_of_fall=share, immaterial=ctx.t("immaterial"))


def _blowup_in_noise(ctx: Context, v: np.ndarray, high: float, ref: float) -> tuple[str, dict[str, float]]:
    """Where a blow-up's rise from the earlier best ``ref`` to its highest level ``high`` is under
    ``noise_z`` standard errors of the loss's own point-to-point noise (TL010's measure), the words
    that say so and the evidence of a NOTE; else nothing."""
    z = _rise_in_noise(v, high, ref)
    if z >= ctx.t("noise_z"):
        return "", {}
    said = (
        f", but the rise is {fmt(z)} standard errors of the loss's own point-to-point noise (threshold "
        f"{fmt(ctx.t('noise_z'))}): a noisy curve's spread, not a level it blew up to (a NOTE)"
    )
    return said, dict(noise_z=z)


def _too_short_to_blow_up(v: np.ndarray, factor: float, stretch: float) -> bool:
    """Whether a cheap bound proves TL011 has nothing to judge: on a positive finite loss, no run
    of points where the centred median could stand ``factor`` above its best so far is as long
    as ``stretch`` of the run (the findings are those of the full computation, only sooner)."""
    if not (np.all(np.isfinite(v)) and float(np.min(v)) > 0):
        return False
    _, length = longest_run(blowup_candidates(v, window_for(len(v)), factor))
    return bool(length / len(v) < stretch)
