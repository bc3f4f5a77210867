"""Uniform entropy: a loss stuck at ln(V) predicts no better than chance."""

from __future__ import annotations

import math
import re

import numpy as np

from ..model import Run, RunMeta
from ..registry import Context, NotChecked, StandDown, Threshold, rule
from ..verdict import Finding
from .kept import coarse_of
from .stats import fmt, fstep, improvement_margin, median

SIZE_KEYS = ("vocab_size", "num_classes", "num_labels")


def count_of(value: object) -> int | None:
    """``value`` as a vocabulary size or class count (a number of at least 2), else None."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 2:
        return int(value)
    return None


def class_count(ctx: Context) -> tuple[int, str] | None:
    """The vocabulary size or class count: from the command line/API (extra) or the run's metadata."""
    for key in SIZE_KEYS:
        given = count_of(ctx.extra.get(key) if ctx.extra else None)
        if given is not None:
            return given, f"{key} from option"
    for key, number in zip(SIZE_KEYS, class_counts(RunMeta.of(ctx.subject))):
        if number is not None and number >= 2:
            return int(number), f"{key} from log metadata"
    return None


def class_counts(meta: RunMeta) -> tuple[int | float | None, ...]:
    """The metadata's vocabulary size and class counts, in the order of ``SIZE_KEYS``."""
    return meta.vocab_size, meta.num_classes, meta.num_labels


_PREFERENCE = re.compile(
    r"(rewards|logps|logits)[/_.](chosen|rejected|margins?|accurac(y|ies))|(chosen|rejected)[/_.]?(rewards?|logps)"
)


def preference_series(run: Run) -> str | None:
    """The first series that marks the loss as a preference loss (DPO, IPO, KTO, ORPO as TRL and
    its kin log them: rewards/chosen, logps/rejected, rewards/margins ...), else None. DPO's loss is
    ln 2 at the first step by design (a zero margin), so ln 2 there says nothing about classes."""
    return next((name for name in sorted(run.series) if _PREFERENCE.search(name.lower())), None)


# An online RL fine-tune of a language model (TRL's GRPO, RLOO and PPO trainers; unsloth's notebooks):
# a reward and a KL divergence logged beside the loss.
_RL_REWARD = re.compile(r"(^|/)(reward|reward_mean|rlhf_reward)$")
_RL_KL = re.compile(r"(^|/)kl(_mean|_div)?$")


def online_rl_series(run: Run) -> tuple[str, str] | None:
    """(reward, kl) series of an online RL fine-tune, else None. Its loss is the KL penalty
    (beta x KL: 0 while the policy is its reference, so 0 at the start, and 0 throughout with
    beta 0) plus a surrogate whose mean is 0 (advantages normalised in each group): its level
    says nothing about learning; the reward does."""
    names = sorted(run.series)
    reward = next((n for n in names if _RL_REWARD.search(n.lower())), None)
    kl = next((n for n in names if _RL_KL.search(n.lower())), None)
    return (reward, kl) if reward is not None and kl is not None else None


def reward_rise(run: Run, frac: float = 0.1) -> tuple[str, str, float, float, float] | None:
    """(reward, kl, start, end, margin) of an online RL fine-tune whose reward rose from its first
    to its last ``frac`` of points beyond noise (the policy learned), else None."""
    found = online_rl_series(run)
    if found is None:
        return None
    rose = rose_beyond_noise(run, found[0], frac)
    return (*found, *rose) if rose is not None else None


# An RL agent's mean episode reward (Stable-Baselines3's rollout/ep_rew_mean and eval/mean_reward,
# RLlib's episode_reward_mean and kin).
_EPISODE_REWARD = re.compile(r"(^|/)(ep_rew_mean|ep_reward_mean|episode_reward_mean|mean_reward|mean_episode_reward)$")


def episode_reward_rise(run: Run, frac: float = 0.1) -> tuple[str, float, float, float] | None:
    """(reward, start, end, margin) of an RL agent whose mean episode reward rose from its first to
    its last ``frac`` of points beyond noise (the policy learned), else None."""
    for name in sorted(run.series):
        if _EPISODE_REWARD.search(name.lower()):
            rose = rose_beyond_noise(run, name, frac)
            if rose is not None:
                return (name, *rose)
    return None


def rose_beyond_noise(run: Run, name: str, frac: float) -> tuple[float, float, float] | None:
    """(start, end, margin) of series ``name`` where its last ``frac`` of points stand above its
    first beyond noise (at least 6 points), else None."""
    f = run.series[name].finite()
    if len(f) < 6:
        return None
    k = max(3, int(round(len(f) * frac)))
    start, end = float(median(f.values[:k])), float(median(f.values[-k:]))
    need = improvement_margin(f.values, k, 0.0)
    return (start, end, need) if end - start > need else None


MAX_GUESS = 1000  # classes tried when none is given
REL_TOL = 0.05  # TL033's default share of ln k a loss may sit from it and be at ln k (a count given)
MAX_SUGGEST = 12  # a loss merely ending at ln k suggests k only for few classes (else any level is near one)
# Held-out accuracies first (the one that says whether the model generalises), then training ones.
ACCURACIES = (
    *("eval_accuracy", "val_accuracy", "val_acc", "eval_acc", "valid_acc", "eval/accuracy", "val/acc"),
    *("test_accuracy", "test_acc", "accuracy", "acc", "train_accuracy", "train_acc"),
)


def accuracy_series(run: Run, min_points: int = 1) -> tuple[str, np.ndarray] | None:
    """The first logged accuracy of ``ACCURACIES`` with ``min_points`` finite points, as fractions
    (a series whose highest point is above 1 is read as percent)."""
    for name in ACCURACIES:
        s = run.series.get(name)
        if s is None:
            continue
        values = s.finite().values
        if len(values) >= max(1, min_points):
            return name, values / 100 if float(np.max(values)) > 1.0 else values
    return None


def _accuracy(run: Run) -> tuple[str, float] | None:
    """The median of the second half of a logged accuracy (eval first), as a fraction."""
    got = accuracy_series(run, min_points=2)
    if got is None:
        return None
    name, values = got
    return name, float(median(values[len(values) // 2 :]))


def inferred_tolerance(k: int) -> float:
    """How far from ln k a loss may sit and still be at ln k when k was read off the loss: under
    a third of the way to ln(k + 1), so that neighbouring counts are told apart."""
    return min(0.02, 0.3 * (math.log(k + 1) - math.log(k)))


# A log that prints its loss's value without naming the loss function (CatBoost's console 'learn': RMSE
# by default for a regressor; minzai0116/pro-recsys-bookratingprediction-recsys-06's W&B output.log, an
# RMSE of 2.18 on book ratings, near ln 9): a level near ln k says nothing of classes without a count
# given. The reader says so (RunMeta.loss_unnamed); CatBoost's learn_error.tsv names the function.


def _chance_without_count(ctx: Context) -> Finding | None:
    """No class count given: a loss that sits at ln k for a small k over the whole run (and an
    accuracy near 1/k when one is logged) is chance; one that only ends there suggests k."""
    unknown = "vocabulary size / class count unknown (--vocab-size, --num-classes)"
    if RunMeta.of(ctx.subject).loss_unnamed:
        raise NotChecked(f"{unknown}; the log does not name its loss function (CatBoost's 'learn': RMSE by default)")
    s = ctx.series("loss", min_points=int(ctx.t("min_points")))
    _, v = coarse_of(ctx, s)
    thirds = [float(median(part)) for part in np.array_split(v, 3) if len(part)]
    k = int(round(math.exp(thirds[-1]))) if thirds[-1] < math.log(MAX_GUESS + 1) else 0
    if k < 2:
        raise NotChecked(unknown)
    ln_k = math.log(k)
    tol = inferred_tolerance(k)
    acc = _accuracy(ctx.subject)
    acc_near = acc is not None and abs(acc[1] - 1 / k) <= max(0.03, 0.25 / k)
    acc_note = f"; {acc[0]} {fmt(acc[1])} ≈ 1/{k}" if acc is not None and acc_near else ""
    whole = all(abs(x - ln_k) <= tol for x in thirds)
    if whole and (acc is None or acc_near) and k <= 100:
        return ctx.fire(
            f"loss {fmt(thirds[-1])} = ln {k} over the whole run: the model predicts no better than chance "
            f"over {k} classes{acc_note} (no class count given: {k} inferred from the loss; tolerance "
            f"{fmt(tol)}; pass --num-classes {k} to confirm)",
            step=s.steps[-1],
            end_level=thirds[-1],
            ln_v=ln_k,
            classes=k,
            inferred=True,
            accuracy=acc[1] if acc else None,
            tolerance=tol,
            threshold=ctx.t("stuck_fraction"),
        )
    sixths = [float(median(part)) for part in np.array_split(v, 6) if len(part)]
    tight = min(0.02, 0.1 * (math.log(k + 1) - ln_k))
    # a uniform guess scores ln k on every batch: the level sits there with almost no noise
    still = float(median(np.abs(np.diff(v[len(v) // 2 :])))) <= tight if len(v) >= 6 else False
    ends_flat = k <= MAX_SUGGEST and still and all(abs(x - ln_k) <= tight for x in sixths[-3:])
    if ends_flat and (acc is None or acc_near):
        return ctx.fire(
            f"loss ends at {fmt(thirds[-1])} = ln {k}: if the task has {k} classes this is a uniform guess; "
            f"pass --num-classes {k} (or --vocab-size) to judge it",
            step=s.steps[-1],
            severity="NOTE",
            end_level=thirds[-1],
            ln_v=ln_k,
            classes=k,
            inferred=True,
            tolerance=tol,
        )
    raise NotChecked(unknown)


@rule(
    code="TL033",
    name="loss-at-uniform",
    category="stagnation",
    severity="FAIL",
    summary="The loss sits at ln(V): the model predicts no better than a uniform guess.",
    explanation="""
For a cross-entropy over V classes (or a vocabulary of V tokens) a model that predicts
uniformly scores exactly ln(V). A loss that stays at ln(V) for most of the run (FAIL) or
ends there (WARN) means the model learned nothing about its targets: dead outputs,
labels that carry no signal, a broken loss mask, a zero LR. An initial loss at or above
ln(V) alone is normal for a freshly initialised head. V comes from --vocab-size /
--num-classes, or vocab_size / num_classes in the run's metadata (e.g. a config.json).
Without either, a loss that sits at ln k for a small k (2 to 100) over the whole run, with
an accuracy near 1/k when one is logged, is chance over k classes (FAIL); one whose last half
sits still at ln k for k up to 12 is a NOTE suggesting --num-classes k (no k is inferred where
the log does not name its loss function: CatBoost's console 'learn', RMSE for a regressor). It judges the whole
run: the live guard runs it when the run ends, not while it trains (a healthy run whose loss
sits at ln k through its warm-up has shown nothing yet). Not judged on a preference loss
(a log with rewards/chosen, logps/rejected, rewards/margins ...): DPO's loss starts at ln 2
by design, at a zero margin between the chosen and rejected answers.""",
    live="end",
    thresholds=[
        Threshold("rel_tol", REL_TOL, "|level - ln V| / ln V within which the loss is 'at uniform'"),
        Threshold("stuck_fraction", 0.5, "share of the run at ln V that makes it FAIL"),
        Threshold("min_points", 10, "finite loss points needed to judge"),
    ],
)
def loss_at_uniform(ctx: Context) -> Finding | None:
    pref = preference_series(ctx.subject)
    if pref is not None:
        raise StandDown(
            f"a preference loss (the log has {pref}): DPO's loss is ln 2 at a zero margin by design, not "
            "chance over classes (TL031 judges whether it moved)"
        )
    got = class_count(ctx)
    if got is None:
        return _chance_without_count(ctx)
    size, origin = got
    s = ctx.series("loss", min_points=int(ctx.t("min_points")))
    _, v = coarse_of(ctx, s)
    ln_v = math.log(size)
    k = max(3, len(v) // 10)
    end = float(median(v[-k:]))
    tol = ctx.t("rel_tol") * ln_v
    if abs(end - ln_v) > tol:
        if end < ln_v:
            return None
        raise StandDown(f"loss ends at {fmt(end)}, above ln(V) = {fmt(ln_v)}: not a uniform guess")
    near = float(np.mean(np.abs(v - ln_v) <= tol))
    sev = "FAIL" if near >= ctx.t("stuck_fraction") else "WARN"
    how = "stuck there" if sev == "FAIL" else "ends there"
    return ctx.fire(
        f"loss {fmt(end)} is at ln(V) = {fmt(ln_v)} for V = {size} ({origin}) at step {fstep(float(s.steps[-1]))}: "
        f"no better than uniform, {how} for {fmt(near * 100)}% of the run (FAIL from "
        f"{fmt(ctx.t('stuck_fraction') * 100)}%; tolerance {fmt(tol)})",
        step=s.steps[-1],
        severity=sev,
        end_level=end,
        ln_v=ln_v,
        classes=size,
        fraction_at_uniform=near,
        tolerance=tol,
        threshold=ctx.t("stuck_fraction"),
    )
