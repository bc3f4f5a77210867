"""Stagnation: a loss that does not move."""

from __future__ import annotations

import numpy as np

from ..model import Series
from ..registry import Context, StandDown, Threshold, rule
from ..role_structure import discriminator_part, name_words, parse, words_of
from ..verdict import Finding
from .entropy import preference_series, reward_rise, rose_beyond_noise
from .kept import coarse_of, finite_values, quantiles_kept
from .stats import fmt, fstep, improvement_margin, median, noise


@rule(
    code="TL030",
    live="warmup",
    name="loss-flat",
    category="stagnation",
    severity="FAIL",
    summary="The loss is (nearly) constant: nothing is being learned.",
    explanation="""
A loss whose spread (5th to 95th percentile) is a vanishing fraction of its level is not
being optimised at all: frozen parameters, a zero learning rate, detached graph, a
constant batch, or a logger that writes the same number every time. A loss that first fell
to its flat level from a start `min_fall` times higher learned, then held still (an optimizer
that stopped at its tolerance, as L-BFGS does after an Adam phase in DeepXDE): a NOTE naming
both levels. Try: check that the optimizer holds the parameters you train, that requires_grad
is set, and that the logged value is the current batch's loss.""",
    thresholds=[
        Threshold("max_rel_spread", 1e-4, "spread / |median| below which the loss is flat"),
        Threshold("min_points", 10, "finite loss points needed to judge"),
        Threshold("min_fall", 10.0, "first points this many times the flat level: it fell, then held (a NOTE)"),
    ],
)
def loss_flat(ctx: Context) -> Finding | None:
    s = ctx.series("loss", min_points=int(ctx.t("min_points")))
    lo, med, hi = quantiles_kept(ctx, f"finite {s.name}", s.values, [5, 50, 95], source=finite_values(s.name))
    spread = float(hi - lo)
    rel = spread / max(abs(float(med)), 1e-12)
    if rel > ctx.t("max_rel_spread"):
        return None
    first = _first_level(s.values)
    if med > 0 and first >= ctx.t("min_fall") * med:
        return ctx.fire(
            f"loss fell from {fmt(first)} (its first points) to {fmt(med)} ({fmt(first / med)}x, threshold "
            f"{fmt(ctx.t('min_fall'))}x) and then held it (relative spread {fmt(rel)}): converged, or the "
            "optimizer stopped at its tolerance",
            step=s.steps[0],
            severity="NOTE",
            first=first,
            level=float(med),
            fall=first / float(med),
            threshold=ctx.t("min_fall"),
            relative_spread=rel,
            points=len(s),
        )
    return ctx.fire(
        f"loss is flat at {fmt(med)} over {len(s)} points (relative spread {fmt(rel)}, "
        f"threshold {fmt(ctx.t('max_rel_spread'))})",
        step=s.steps[0],
        level=float(med),
        spread=spread,
        relative_spread=rel,
        threshold=ctx.t("max_rel_spread"),
        points=len(s),
    )


def _first_level(v: np.ndarray) -> float:
    """The level a loss starts at: the median of its first three finite points (nan where none)."""
    head = v[np.isfinite(v)][:3]
    return float(np.median(head)) if len(head) else float("nan")


def _window(n: int, frac: float) -> int:
    return max(3, int(round(n * frac)))


def _fast_start(v: np.ndarray, end: float, k: int, rel: float) -> bool:
    """Did the loss drop from its first points to the end beyond noise? (A run whose whole
    descent happens inside the first tenth, or in its first one or two logged points, as when
    fine-tuning a converged model or SFT after warm-up, learned even if the rest is flat.)"""
    sigma = 1.2533 * noise(v)
    for first, n in ((float(median(v[:3])), 3), (float(v[0]), 1)):
        if first - end > max(rel * abs(first), 4.0 * sigma * np.sqrt(1 / n + 1 / k)):
            return True
    return False


@rule(
    code="TL031",
    live="warmup",
    name="dead-run",
    category="stagnation",
    severity="WARN",
    summary="No meaningful improvement of the loss from the start of the run to its end.",
    explanation="""
Compares the median loss of the first and the last tenth of the run. If the end is not
lower than the start by more than both a relative margin and the noise (four standard
errors of the difference of the two levels), the run learned nothing measurable (a drop
above `max_drop` always counts as learning, however noisy the loss; so does a drop from the first three
points beyond noise, for runs that learn within their first tenth). A rise to a multiple
of the start is left to TL010 (divergence). Not judged while the eval loss improved from its
first evaluation to its best at the end (the train loss of a long TTS or speech run can hold
its level while the held-out loss keeps falling). A segment appended to a log (the step counter
back to the start) that begins where the segment before it ended held the level it continued
from: a NOTE. A preference loss (DPO and kin: a log with rewards/chosen ...) whose reward
accuracy or margin rose is learning however little its loss moved from ln 2. A loss that swings around
zero (`min_sign_share` of its points negative and as many positive: a policy-gradient surrogate,
PPO's or GRPO's pg_loss, centred by normalised advantages) has no level that measures learning:
not judged (the reward is the measure there), nor is a loss named as a policy-gradient objective
(`ploss`, `pg_loss`, `policy_loss`, `loss_pi`) with an actor-critic loop's series beside it (a
value or critic loss, the entropy, the clip fraction, the KL), whatever its sign. So is an online RL fine-tune's loss (GRPO and kin: a
reward and a KL logged beside it) whose reward rose beyond noise: the loss is the KL penalty, which
grows from 0 as the policy leaves its reference. So is any loss with a return or a reward logged
beside it (`avg_return`, `episode_reward`) that rose beyond noise from its first tenth to its last:
the learner improved, and an RL learner's loss (an actor-critic's, which scales with the returns:
2,654 -> 23,843 -> 7,437 while the average return rose 320 -> 5,139) measures no learning. A GAN generator's loss that adds an adversarial term to
a fit term (pix2pix's loss_G = G_GAN + G_L1, a discriminator's loss logged beside it) is not judged
when the fit term (L1, L2, cycle, identity, perceptual ...) fell beyond noise: the adversarial term rises
as the discriminator learns, so the sum can hold its level while the generator learns. Usual causes: zero or tiny learning rate, frozen
parameters, an optimizer holding the wrong parameters, labels that carry no signal.
Try: check the LR actually applied and which parameters have requires_grad.""",
    thresholds=[
        Threshold("min_improvement", 0.02, "relative drop start to end that counts as learning"),
        Threshold("max_drop", 0.1, "a relative drop above this always counts, however noisy the loss"),
        Threshold("window", 0.1, "fraction of the run in each level estimate"),
        Threshold("min_points", 20, "finite loss points needed to judge"),
        Threshold("min_sign_share", 0.2, "share of negative and of positive points of a loss swinging around 0"),
    ],
)
def dead_run(ctx: Context) -> Finding | None:
    s = ctx.series("loss", min_points=int(ctx.t("min_points")))
    steps, v = coarse_of(ctx, s)
    k = _window(len(v), ctx.t("window"))
    start, end = float(median(v[:k])), float(median(v[-k:]))
    margin = min(improvement_margin(v, k, ctx.t("min_improvement")), ctx.t("max_drop") * abs(start))
    if start - end > margin or _fast_start(v, end, k, ctx.t("min_improvement")):
        return None
    if start > 0 and end >= 2 * start:
        raise StandDown(f"the loss rose {fmt(end / start)}x from start to end (judged by TL010)")
    _eval_still_improving(ctx, None, float(steps[0]), float(steps[-1]))
    _preference_still_learning(ctx)
    _reward_still_rising(ctx)
    _return_still_rising(ctx)
    around_zero(v, ctx.t("min_sign_share"))
    policy_surrogate(ctx, s.name)
    _generator_fit_improved(ctx, s)
    msg = (
        f"no meaningful improvement: loss {fmt(start)} at the start, {fmt(end)} at the end "
        f"(drop {fmt(start - end)}, needs more than {fmt(margin)})"
    )
    got = ctx.extra.get("previous_segment_end")
    prev = float(got) if got is not None and start <= float(got) + margin else None
    if prev is not None:
        msg += (
            f"; this segment continues from where the previous one ended ({fmt(prev)}): "
            "a continuation that held its level (a NOTE)"
        )
    return ctx.fire(
        msg,
        step=steps[-1],
        severity="NOTE" if prev is not None else None,
        previous_segment_end=prev,
        start_level=start,
        end_level=end,
        improvement=start - end,
        threshold=margin,
        relative_improvement=(start - end) / abs(start) if start else None,
    )


# the words of a GAN generator's terms that measure fit to a target (pix2pix's G_L1, CycleGAN's
# cycle_A and idt_A, a perceptual or VGG term), as against its adversarial term (G_GAN, adv)
_FIT_WORDS = frozenset(
    "l1 l2 mse mae rec recon reconstruction cycle cyc idt identity perceptual vgg content pixel pix ssim style mel".split()
)
_ADVERSARIAL_WORDS = frozenset(("gan", "adv", "adversarial"))


def _generator_terms(ctx: Context, loss: Series) -> list[str]:
    """The terms a GAN generator's loss adds up (``G_GAN`` and ``G_L1`` of pix2pix's ``loss_G``, or the
    parts of a loss read as their sum, ``G_GAN+G_L1``): those named in the loss's name, else the
    series logged at the loss's steps, no discriminator's, whose sum is the loss at every point."""
    series = ctx.subject.series
    named = loss.name.split("+")
    if len(named) > 1 and all(n in series for n in named):
        return named
    roles = set(ctx.subject.roles.values())
    terms = [
        n
        for n, t in series.items()
        if n != loss.name and n not in roles and not discriminator_part(n) and np.array_equal(t.steps, loss.steps)
    ]
    if len(terms) < 2:
        return []
    total = np.sum([series[n].values for n in terms], axis=0)
    return terms if np.allclose(total, loss.values, rtol=1e-3, atol=2e-3, equal_nan=True) else []


def _generator_fit_improved(ctx: Context, loss: Series) -> None:
    """Stand down on a GAN generator's loss that sums an adversarial term and a fit term (pix2pix:
    G_GAN + 100 x G_L1) when the fit term fell beyond noise: the adversarial term rises as the
    discriminator learns (a game, not a descent), so the sum can hold its level while the generator
    learns to reproduce its targets."""
    disc = discriminator_beside(ctx, loss.name, 1)
    if disc is None:
        return
    for name in _generator_terms(ctx, loss):
        words = set(words_of(name))
        if words & _ADVERSARIAL_WORDS or not words & _FIT_WORDS:
            continue
        f = ctx.subject.series[name].finite().values
        if len(f) < ctx.t("min_points"):
            continue
        k = _window(len(f), ctx.t("window"))
        start, end = float(median(f[:k])), float(median(f[-k:]))
        need = min(improvement_margin(f, k, ctx.t("min_improvement")), ctx.t("max_drop") * abs(start))
        if start - end > need:
            raise StandDown(
                f"a GAN generator's loss ({loss.name}, {disc} a discriminator's beside it) whose fit term {name} "
                f"fell {fmt(start)} to {fmt(end)} (more than {fmt(need)}): its adversarial term rises as the "
                "discriminator learns, so the sum holds its level while the generator learns"
            )


def _reward_still_rising(ctx: Context) -> None:
    """Stand down on an online RL fine-tune's loss (GRPO and kin: a reward and a KL logged beside
    it) whose reward rose beyond noise: the policy learned, while its loss, the KL penalty, grew
    from 0 as the policy left its reference."""
    rose = reward_rise(ctx.subject, ctx.t("window"))
    if rose is not None:
        reward, kl, start, end, need = rose
        raise StandDown(
            f"an online RL fine-tune ({reward} and {kl} logged) whose {reward} rose {fmt(start)} to "
            f"{fmt(end)} (more than {fmt(need)}): the policy learned, while its loss, the KL penalty, grew "
            "from 0 as the policy left its reference"
        )


def _return_still_rising(ctx: Context) -> None:
    """Stand down where a return or a reward is logged beside the loss (jiebanrennei/lunwen's
    actor-critic log: avg_return 320 -> about 5,000 over 100 epochs, its loss 2,654 -> 7,437 with
    the returns' scale) and rose from its first to its last ``window`` beyond noise: the learner
    improved, whatever its loss's level says."""
    for name in sorted(ctx.subject.series):
        if not name_words(name) & {"return", "reward"}:
            continue
        rose = rose_beyond_noise(ctx.subject, name, ctx.t("window"))
        if rose is not None:
            start, end, need = rose
            raise StandDown(
                f"{name}, logged beside the loss, rose {fmt(start)} to {fmt(end)} (more than {fmt(need)}): "
                "the learner improved; an RL learner's loss measures no learning"
            )


def _preference_still_learning(ctx: Context) -> None:
    """Stand down on a preference loss (DPO and kin) whose reward accuracy (else reward margin)
    rose from its first to its last tenth beyond noise (an accuracy by 5 points at least): the
    policy learned to prefer the chosen answers while its loss, ln 2 at a zero margin, moved little
    (a small beta keeps it near ln 2 for long)."""
    if preference_series(ctx.subject) is None:
        return
    names = sorted(ctx.subject.series)
    picks = [n for n in names if "accurac" in n.lower()] + [n for n in names if "margin" in n.lower()]
    for name in picks:
        f = ctx.subject.series[name].finite()
        if len(f) < 6:
            continue
        k = _window(len(f), ctx.t("window"))
        start, end = float(median(f.values[:k])), float(median(f.values[-k:]))
        need = max(0.05 if "accurac" in name.lower() else 0.0, improvement_margin(f.values, k, 0.0))
        if end - start > need:
            raise StandDown(
                f"a preference loss whose {name} rose {fmt(start)} to {fmt(end)} (more than {fmt(need)}): "
                "the policy learned to prefer the chosen answers while its loss, ln 2 at a zero margin, "
                "moved little"
            )
        return


def around_zero(v: np.ndarray, share: float) -> None:
    """Stand down on a loss whose points take both signs, each on ``share`` of them or more: a
    policy-gradient surrogate (verl's actor/pg_loss, TRL's GRPO loss) swings around 0 at every
    stage of a run, and whether its level fell says nothing of whether the policy learned."""
    fin = v[np.isfinite(v)]
    if not len(fin):
        return
    neg, pos = float(np.mean(fin < 0)), float(np.mean(fin > 0))
    if min(neg, pos) >= share:
        raise StandDown(
            f"the loss swings around 0 ({fmt(100 * neg)}% of its points negative, {fmt(100 * pos)}% positive): "
            "a surrogate objective (a policy-gradient loss) whose level is no measure of learning"
        )


# The words of a policy-gradient objective's name (PPO's ``ploss``, verl's ``actor/pg_loss``,
# ``policy_loss``, ``loss_pi``, a surrogate), and of what an actor-critic loop logs beside it (the
# value or critic loss, the entropy, the clip fraction, the approximate KL).
_POLICY_WORDS = frozenset({"pg", "policy", "actor", "surrogate", "pi", "p"})
_BESIDE_POLICY = frozenset({"vf", "value", "vloss", "critic", "entropy", "ent", "clipfrac", "kl"})


def policy_surrogate(ctx: Context, loss: str) -> None:
    """Stand down on a loss named as a policy-gradient objective with an actor-critic loop's
    series beside it: the surrogate is built on advantages centred at every update (normalised,
    or a critic's baseline subtracted), so it stays near 0 however far the policy gets, even where
    it keeps one sign (an entropy bonus folded in); whether its level fell says nothing of learning."""
    if not name_words(loss) & _POLICY_WORDS:
        return
    beside = next((n for n in sorted(ctx.subject.series) if n != loss and name_words(n) & _BESIDE_POLICY), None)
    if beside is not None:
        raise StandDown(
            f"the loss ({loss}) is a policy-gradient objective ({beside} is logged beside it): its advantages "
            "are centred at every update, so its level is no measure of learning (the reward is)"
        )


def _settled_at_once(v: np.ndarray, k: int, rel: float) -> bool:
    """The loss fell within its first few points (the first 5% of the run, one at least: the
    first 6 of a 128-step run logged at every step) and was flat from then on: the level right
    after them is within noise of the end level, and below the very first point."""
    head = max(1, len(v) // 20)
    after = float(median(v[head : head + k]))
    end = float(median(v[-k:]))
    flat = abs(after - end) <= improvement_margin(v[head:], k, rel)
    return flat and float(v[0]) - after > max(rel * abs(float(v[0])), 4.0 * 1.2533 * noise(v))


@rule(
    code="TL032",
    live="warmup",
    name="plateau",
    category="stagnation",
    severity="WARN",
    summary="The loss stopped improving over the last half of the run while the LR was still high.",
    explanation="""
Compares the loss level around the middle of the run with its level at the end. When the
second half brought no improvement beyond noise (and less than `max_drop`) while the learning rate at the end is
still a sizeable fraction of its peak, the run stopped learning long before its schedule
ended: the rest of the compute was spent for nothing. Not judged without an LR series
or when the schedule had decayed (a converged cosine/linear schedule is expected to
flatten), nor when the whole drop happened in the first few logged points and the loss held
its level from then on (fine-tuning a converged model, SFT at constant LR), nor while the eval
loss is still improving (it ends at its best, more than `min_improvement` below its mid-run
level: a long TTS run whose train loss flattened while its eval loss kept falling), nor on a loss
named as a policy-gradient objective (`pg_loss`, `policy_loss`, `ploss`) with an actor-critic
loop's series beside it (value or critic loss, entropy, clip fraction, KL): its advantages are
centred at every update, so its level measures no learning. A NOTE, not a
WARN, when the loss judged is a GAN generator's objective: a discriminator term (loss_disc, loss_D,
d_loss) with `min_discriminator_points` finite points is logged beside it. A generator's loss holds
its level while generator and discriminator trade, so its plateau is no evidence of stagnation (the
reconstruction term and the samples say more). Try: stop earlier, a higher or re-warmed LR, more or
better data, a larger model.""",
    thresholds=[
        Threshold("lr_fraction", 0.3, "LR at the end / peak LR above which the LR is 'still high'"),
        Threshold("min_improvement", 0.01, "relative drop over the last half that counts"),
        Threshold("max_drop", 0.1, "a relative drop above this always counts, however noisy the loss"),
        Threshold("window", 0.1, "fraction of the run in each level estimate"),
        Threshold("min_points", 20, "finite loss points needed to judge"),
        Threshold(
            "min_discriminator_points",
            10,
            "finite points of a discriminator term logged beside the loss that make a plateau a NOTE",
        ),
    ],
)
def plateau(ctx: Context) -> Finding | None:
    s = ctx.series("loss", min_points=int(ctx.t("min_points")))
    peak, lr_end = _lr_still_high(ctx)
    steps, v = coarse_of(ctx, s)
    k = _window(len(v), ctx.t("window"))
    if _settled_at_once(v, k, ctx.t("min_improvement")):
        raise StandDown(
            "the loss reached its level within the first few logged points and held it (a "
            "fine-tune of a converged model, or SFT at constant LR after warm-up): nothing "
            "plateaued"
        )
    mid = len(v) // 2
    lo, hi = max(0, mid - k // 2), max(k, mid + (k + 1) // 2)
    mid_level, end = float(median(v[lo:hi])), float(median(v[-k:]))
    margin = min(improvement_margin(v[mid:], k, ctx.t("min_improvement")), ctx.t("max_drop") * abs(mid_level))
    if mid_level - end > margin:
        return None
    if mid_level > 0 and end > 1.5 * mid_level:
        raise StandDown(f"the loss rose {fmt(end / mid_level)}x over the second half (divergence rules)")
    _eval_still_improving(ctx, float(steps[mid]), float(steps[0]), float(steps[-1]))
    _preference_still_learning(ctx)
    policy_surrogate(ctx, s.name)
    disc = discriminator_beside(ctx, s.name, int(ctx.t("min_discriminator_points")))
    msg = (
        f"plateau: loss {fmt(mid_level)} at mid-run (step {fstep(steps[mid])}), {fmt(end)} at the end "
        f"(drop {fmt(mid_level - end)}, needs more than {fmt(margin)}) while the LR is still "
        f"{fmt(lr_end / peak * 100)}% of its peak"
    )
    if disc is not None:
        msg += (
            f"; the loss is a GAN generator's objective ({disc}, a discriminator's, is logged beside it): "
            "it holds its level while generator and discriminator trade, so its plateau is no evidence "
            "of stagnation (a NOTE)"
        )
    return ctx.fire(
        msg,
        step=steps[mid],
        severity="NOTE" if disc is not None else None,
        discriminator=disc,
        mid_level=mid_level,
        end_level=end,
        improvement=mid_level - end,
        threshold=margin,
        lr_end=lr_end,
        lr_peak=peak,
        lr_fraction=lr_end / peak,
    )


def _lr_still_high(ctx: Context) -> tuple[float, float]:
    """The learning rate's peak and its last value, where the last is still ``lr_fraction`` of the
    peak or more (else the rule stands down: a decayed LR explains a flat loss)."""
    lr = ctx.series("learning_rate", min_points=2)
    peak = float(np.max(np.abs(lr.values)))
    if peak <= 0:
        raise StandDown("the learning rate is zero throughout (TL040)")
    lr_end = float(np.abs(lr.values[-1]))
    if lr_end < ctx.t("lr_fraction") * peak:
        raise StandDown(f"LR decayed to {fmt(lr_end / peak * 100)}% of its peak by the end")
    return peak, lr_end


def discriminator_beside(ctx: Context, loss: str, min_points: int) -> str | None:
    """The first discriminator term (loss_disc, loss_D_A, d_loss) logged beside the loss with
    ``min_points`` finite points (of the loss's split first), when the loss is not a discriminator's
    itself: the loss is then a GAN generator's objective (so-vits-svc's loss_gen_all, Coqui VITS's
    loss_1 beside loss_disc, pix2pix's G terms beside D_real and D_fake); else None."""
    own = parse(loss)
    if discriminator_part(own.part):
        return None
    found = []
    for name in ctx.subject.series:
        p = parse(name)
        if name == loss or p.kind != "part" or not discriminator_part(p.part):
            continue
        if len(ctx.subject.series[name].finite()) >= max(1, min_points):
            found.append((p.split != own.split, name))  # the loss's own split first
    return min(found)[1] if found else None


def _eval_still_improving(ctx: Context, mid_step: float | None, first: float, last_step: float) -> None:
    """Stand down when the eval loss kept improving to the end: its last evaluation is in the
    last ``window`` of the run, at its best and below its level at ``mid_step`` (None: its first
    evaluation) by more than ``min_improvement``. The train loss of a long run (TTS, speech, a
    large data set) flattens while the held-out loss still falls: the run is still learning what
    it is for."""
    ev = ctx.subject.get("eval_loss")
    f = ev.finite() if ev is not None else None
    if f is None or len(f) < 3 or f.steps[-1] < last_step - ctx.t("window") * (last_step - first):
        return  # no evaluation near the end: whether it still improved is not known
    i = 0 if mid_step is None else int(np.searchsorted(f.steps, mid_step, side="right")) - 1
    if i < 0 or i >= len(f) - 1:
        return
    at_mid, last, best = float(f.values[i]), float(f.values[-1]), float(np.min(f.values))
    rel = ctx.t("min_improvement")
    if at_mid > 0 and last < at_mid * (1 - rel) and last <= best * (1 + rel):
        where = "at its first evaluation" if mid_step is None else "at mid-run"
        raise StandDown(
            f"the eval loss was still improving: {fmt(at_mid)} {where} (step {fstep(f.steps[i])}) to "
            f"{fmt(last)} at the end, its best (more than {fmt(rel * 100)}% lower): the run kept learning"
        )
