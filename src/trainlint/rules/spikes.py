"""Spikes: isolated jumps of the loss or the gradient norm above their local level."""

from __future__ import annotations

from collections.abc import Callable

import msgspec
import numpy as np

from ..model import Run, Series
from ..registry import Context, Threshold, rule
from ..verdict import Finding
from .kept import above_level, finite_values, median_kept, printed_quantum_kept
from .stats import block_spread_at, blockwise, fmt, local_stats, median, steps_list, window_spread_at

MAX_LISTED = 50  # spike steps kept in the evidence


class Spikes(msgspec.Struct):
    """Spike events as arrays (one entry per event): first/last+1 index, peak index, baseline, score."""

    start: np.ndarray
    end: np.ndarray
    peak: np.ndarray
    baseline: np.ndarray
    score: np.ndarray

    def __len__(self) -> int:
        return len(self.start)


# (values, window, ratio) -> what kept.above_level gives (a live run's kept block levels), or None
Above = Callable[[np.ndarray, int, float], "tuple[np.ndarray, np.ndarray] | None"]


def find_spikes(
    values: np.ndarray, z: float, ratio: float, frac: float, max_window: int = 51, above: Above | None = None
) -> Spikes:
    """Spike events: points whose robust score (value - local median) / local noise exceeds
    ``z``, whose value exceeds ``ratio`` times the local median and that jump up by that
    ratio from the points just before. Consecutive points form one event. Vectorised.
    ``above``: the points above their level from state a live run keeps (the same points)."""
    n = len(values)
    window = int(max(7, min(max_window, round(n * frac)))) | 1
    med, pts, score = _spike_points(values, window, z, ratio, above)
    if not len(pts):
        return Spikes(*(np.zeros(0, dtype=int),) * 3, np.zeros(0), np.zeros(0))
    new = np.r_[True, np.diff(pts) != 1]  # each run of consecutive points is one event
    starts, ends = pts[new], pts[np.r_[new[1:], True]] + 1
    eid = np.cumsum(new) - 1
    order = np.lexsort((-values[pts], eid))
    at = order[np.r_[0, np.flatnonzero(np.diff(eid[order])) + 1]]  # each event's highest point
    peak = pts[at]
    pre = median(np.stack([values[np.maximum(starts - k, 0)] for k in (1, 2, 3)]), axis=0)
    jump = (starts > 0) & (values[peak] > ratio * pre)  # not the steep start of a run
    return Spikes(starts[jump], ends[jump], peak[jump], med[at][jump], score[at][jump])


def _spike_points(
    values: np.ndarray, window: int, z: float, ratio: float, above: Above | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(the local median at each spike point, indices of the spike points, their robust
    scores). A spike point scores above ``z`` and stands ``ratio`` above a positive local
    median. The noise is the smaller of two estimates: the MAD is inflated by a steep trend,
    the successive differences by a turbulent stretch; either alone would hide real spikes.
    Both are computed only where a point already stands ``ratio`` above its median (the others
    cannot score)."""
    got = above(values, window, ratio) if above is not None else None
    if got is None:
        med, _ = local_stats(values, window, spread=False)
        at = np.flatnonzero((values > ratio * med) & (med > 0))
        level = med[at]
    else:
        at, level = got
    if not len(at):
        return level, at, np.zeros(0)
    spread_at = block_spread_at if blockwise(len(values), window) else window_spread_at
    dev, noise = spread_at(values, window, at)
    score = (values[at] - level) / _floor(np.minimum(dev, noise), level)
    keep = score > z
    return level[keep], at[keep], score[keep]


def _floor(sigma: np.ndarray, med: np.ndarray) -> np.ndarray:
    floored: np.ndarray = np.maximum(sigma, 0.01 * np.abs(med)) + 1e-12
    return floored


def _kept(ctx: Context, name: str) -> Above:
    """The spike search's points above their level, from the block levels of the finite series
    ``name`` that a live run keeps (kept.above_level; none in doctor)."""
    return lambda values, window, ratio: above_level(ctx, f"finite {name}", values, window, ratio, finite_values(name))


def _repeated(ctx: Context, count: int, points: int) -> bool:
    """Spikes count as repeated from ``repeat`` of them and ``repeat_rate`` of the points."""
    return count >= max(ctx.t("repeat"), ctx.t("repeat_rate") * points)


def _worst(values: np.ndarray, sp: Spikes) -> tuple[int, float, float]:
    """The spike furthest above its local median: (its index in ``sp``, peak value, local median)."""
    w = int(np.argmax(values[sp.peak] / sp.baseline))
    return w, float(values[sp.peak[w]]), float(sp.baseline[w])


def _summary(ctx: Context, what: str, sp: Spikes, steps: np.ndarray, w: int, peak: float, base: float) -> str:
    """The numbers a spike finding fired on: count, steps, the worst one against its local median."""
    return (
        f"{len(sp)} {what} spike(s) at step {steps_list(steps)}; worst {fmt(peak)} vs local median "
        f"{fmt(base)} ({fmt(peak / base)}x, score {fmt(float(sp.score[w]))}, threshold {fmt(ctx.t('z'))})"
    )


def _window_stat(values: np.ndarray, at: np.ndarray, offsets: range, how: Callable[..., np.ndarray]) -> np.ndarray:
    """``how`` (median / np.max) of values[at + k] for k in offsets, clipped to the series."""
    idx = np.clip(at[None, :] + np.array(list(offsets))[:, None], 0, len(values) - 1)
    return how(values[idx].T, axis=-1)


@rule(
    code="TL020",
    name="loss-spike",
    category="spike",
    severity="WARN",
    summary="The loss jumped far above its local level: a big or repeated spike (WARN), a lone small one (NOTE).",
    explanation="""
A spike is a point far above the local median by a robust score (distance from the
median of a rolling window, in units of the local noise: the smaller of the window's MAD
and its median successive difference, so neither a steep trend nor a turbulent stretch
hides a spike), by a ratio, and by a jump up from the points just before it. A spike that
doubles the loss (`warn_ratio`) or spikes that repeat (`repeat`) are a WARN, never a FAIL:
the run survived, but spikes cost progress and often precede divergence. Spikes the loss came
back from at once (the median of the next five points back within the range of the points
just before it) are a
NOTE: the loss ignored them. So is a spike that takes back under 1% of the loss's fall from
its start (`undone`: 5e-5 to 3e-4 on a loss that fell from 0.26): it costs no progress worth
acting on. So are spikes the loss kept falling through (`kept_falling`: it ends at half its
level before the first spike or lower), none taking back a tenth of its fall (`undone_falling`):
bursts of hard batches in a per-batch log, 4.0 falling to 0.005 with late spikes to 0.05. So
are one-batch outliers in a long per-batch log (a hard or mislabelled batch each): every spike
the loss did not shake off within five points is one point wide (the next point is back within
the loss's noise), the loss's level (median) over the next `settle` points is within `ratio` of
its level over the `settle` points before, and fewer than `repeat` such spikes lie within
`settle` points of each other; a 135,630-batch loss falling 2.5 to 0.08 with single batches at
0.8 to 1.6 where nine batches in ten lie within 0.0 to 0.5 (five points of such noise have no level).
Spikes that last more than one point, recur in a cluster (`repeat` within `settle` points) or
that the loss's level does not come back from stay a WARN. A jump of a few printed digits (a loss printed to 4 decimals
going 0.0001 -> 0.0004, `resolution`) is rounding, not a spike; spikes at more than
`noise_rate` of the points are the heavy tail of per-batch losses (a NOTE). A lone smaller
outlier is a NOTE: per-batch losses have heavy tails. Usual causes: a learning rate near
the edge of stability, a bad batch (very long or corrupt sample), fp16 overflow. Try:
gradient clipping, a slightly lower LR or longer warm-up, and the batches at the steps.""",
    thresholds=[
        Threshold("z", 8.0, "robust score (noise units above the local median) of a spike"),
        Threshold("ratio", 1.5, "value / local median a spike must exceed"),
        Threshold("warn_ratio", 2.0, "a spike this many times the local median is a WARN"),
        Threshold("repeat", 3, "this many spikes are a WARN whatever their size..."),
        Threshold("repeat_rate", 0.002, "...when they are also at least this share of the points"),
        Threshold("window", 0.1, "rolling window as a fraction of the run (7 to 51 points)"),
        Threshold(
            "noise_rate",
            0.03,
            "spikes at more than this share of the points are the "
            "loss's own heavy-tailed noise (per-batch losses): a NOTE",
        ),
        Threshold(
            "resolution",
            5,
            "a spike must rise more than this many printed digits (the log's rounding step) above the local median",
        ),
        Threshold("min_points", 20, "finite loss points needed to judge"),
        Threshold("undone", 0.01, "a spike that takes back less than this share of the loss's fall is a NOTE"),
        Threshold(
            "kept_falling",
            0.5,
            "spikes are a NOTE when the loss ends at most this share of its level before the first...",
        ),
        Threshold("undone_falling", 0.1, "...and the worst takes back less than this share of the loss's fall"),
        Threshold(
            "settle",
            200,
            "points over which the loss's level before and after a one-point spike is measured, and within "
            "which `repeat` such spikes are a cluster (a WARN): one-batch outliers of a per-batch log are a NOTE",
        ),
    ],
)
def loss_spike(ctx: Context) -> Finding | None:
    s = ctx.series("loss", min_points=int(ctx.t("min_points")))
    sp = find_spikes(s.values, ctx.t("z"), ctx.t("ratio"), ctx.t("window"), above=_kept(ctx, s.name))
    quantum = printed_quantum_kept(ctx, s.name, s.values) if len(sp) else 0.0
    if quantum:  # a jump of a few printed digits (0.0001 -> 0.0004) is rounding
        keep = s.values[sp.peak] - sp.baseline > ctx.t("resolution") * quantum
        sp = Spikes(sp.start[keep], sp.end[keep], sp.peak[keep], sp.baseline[keep], sp.score[keep])
    if not len(sp):
        return None
    after = _window_stat(s.values, sp.end, range(0, 5), median)
    # back within the range the loss had just before the spike (not the centred local median,
    # which a lasting level shift lifts)
    before = _window_stat(s.values, sp.start, range(-5, 0), median)
    top = _window_stat(s.values, sp.start, range(-10, 0), np.max)
    back = after <= np.maximum(before * (1 + (ctx.t("ratio") - 1) / 2), top)
    rec = int(np.sum(back))
    w, peak, base = _worst(s.values, sp)
    steps = s.steps[sp.peak]
    # spikes the loss came back from at once cost nothing lasting: a record, not a warning;
    # "spikes" at a good share of all points are the heavy tail of per-batch losses
    why = _Why(
        big=peak / base >= ctx.t("warn_ratio") or _repeated(ctx, len(sp), len(s)),
        slow=len(sp) - rec,
        common=len(sp) > ctx.t("noise_rate") * len(s),
        undone=_share_undone(s.values, peak, base),
    )
    why.small = why.undone is not None and why.undone < ctx.t("undone")
    why.fell = _kept_falling(ctx, s.values, sp, why.undone)
    why.lone = _outliers(ctx, s.values, sp, back)
    return ctx.fire(
        f"{_summary(ctx, 'loss', sp, steps, w, peak, base)}; {rec} recovered{_tail(ctx, why, s, sp)}",
        step=steps[w],
        severity=why.severity(),
        spikes=len(sp),
        spike_steps=steps[:MAX_LISTED].tolist(),
        recovered=rec,
        outliers=0 if why.lone is None else len(why.lone[0]),
        peak=peak,
        baseline=base,
        ratio=peak / base,
        score=float(sp.score[w]),
        threshold=ctx.t("z"),
        warn_ratio=ctx.t("warn_ratio"),
        undone=why.undone,
    )


class _Why(msgspec.Struct):
    """What TL020's severity rests on: a big or repeated spike (``big``), how many the loss did not
    shake off at once (``slow``), spikes as common as batch noise (``common``), the worst's share
    of the fall taken back (``undone``) and whether that is small, the levels the loss kept falling
    through (``fell``), the one-batch outliers (``lone``: _outliers)."""

    big: bool
    slow: int
    common: bool
    undone: float | None
    small: bool = False
    fell: tuple[float, float] | None = None
    lone: tuple[np.ndarray, float] | None = None

    def warns(self) -> bool:
        """Big spikes, some not recovered at once, and no reason that makes them a NOTE."""
        return self.big and self.slow > 0 and not self.common and not self.small

    def severity(self) -> str:
        return "WARN" if self.warns() and self.fell is None and self.lone is None else "NOTE"


def _tail(ctx: Context, why: _Why, s: Series, sp: Spikes) -> str:
    """The reasons a big spike finding is a NOTE, in words with their numbers."""
    tail = "; all recovered at once (a NOTE: the loss ignored them)" if not why.slow and why.big else ""
    undone = why.undone
    if why.fell is not None and why.warns():
        before, end = why.fell
        tail += (
            f"; the loss kept falling through them, {fmt(before)} before the first to {fmt(end)} at the "
            f"end ({fmt(end / before * 100)}%, threshold {fmt(ctx.t('kept_falling') * 100)}%), the worst "
            f"taking back {fmt((undone or 0) * 100)}% of its fall: the heavy tail of per-batch losses (a NOTE)"
        )
    if why.lone is not None and why.warns() and why.fell is None:
        slow, level = why.lone
        k = fmt(ctx.t("settle"))
        tail += (
            f"; the {len(slow)} not recovered at once (step {steps_list(s.steps[sp.peak[slow]])}) are one-batch "
            f"outliers, a hard or mislabelled batch each: one point wide, the loss's level over the next {k} "
            f"points at most {fmt(level)}x its level over the {k} before (threshold {fmt(ctx.t('ratio'))}x), "
            f"fewer than {fmt(ctx.t('repeat'))} within {k} points (a NOTE)"
        )
    if undone is not None and why.small and why.big and why.slow:
        tail += (
            f"; the worst undid {fmt(undone * 100)}% of the loss's fall from {fmt(_head(s.values))} "
            f"(a NOTE: threshold {fmt(ctx.t('undone') * 100)}%)"
        )
    if why.common and why.big:
        tail += (
            f"; {len(sp)} of {len(s)} points ({fmt(len(sp) / len(s) * 100)}%) is the heavy tail of "
            "per-batch losses, not a fault (a NOTE)"
        )
    return tail


def _outliers(ctx: Context, values: np.ndarray, sp: Spikes, back: np.ndarray) -> tuple[np.ndarray, float] | None:
    """(the indices in ``sp`` of the spikes the loss did not shake off at once (not ``back``), the
    largest ratio of the loss's level after one to its level before) where each is a one-batch
    outlier: one point wide (the next point is back within the loss's noise: it is no spike point),
    the median of the ``settle`` points after it within ``ratio`` of the median of the ``settle``
    points before (as many as there are), fewer than ``repeat`` such spikes within ``settle`` points
    (more are a cluster); None where one is not, or where a spike has fewer than ``settle`` points
    after it (a short log, or a live run that has not yet shown that the loss came back)."""
    slow = np.flatnonzero(~back)
    k = max(1, int(ctx.t("settle")))
    st, en = sp.start[slow], sp.end[slow]
    near = np.searchsorted(st, st + k) - np.arange(len(st))  # such spikes from each on, within k points
    if not len(slow) or np.any(en - st != 1) or en[-1] + k > len(values) or near.max() >= ctx.t("repeat"):
        return None
    before = np.array([float(median(values[max(0, i - k) : i])) for i in st])
    after = np.array([float(median(values[i : i + k])) for i in en])
    if np.any(before <= 0):
        return None
    level = float(np.max(after / before))
    return (slow, level) if level <= ctx.t("ratio") else None


def _kept_falling(ctx: Context, values: np.ndarray, sp: Spikes, undone: float | None) -> tuple[float, float] | None:
    """(the loss's level over the 50 points before the first spike, its level over the last tenth)
    where the end is at most ``kept_falling`` of the level before and the worst spike took back less
    than ``undone_falling`` of the loss's fall: spikes the loss kept falling through cost it no
    progress (bursts of hard batches in a per-batch log); None otherwise."""
    i = int(sp.start[0])
    if undone is None or undone >= ctx.t("undone_falling") or i < 5:
        return None
    before = float(median(values[max(0, i - 50) : i]))
    name = ctx.series("loss").name
    end = float(
        median_kept(ctx, f"finite {name}", values, len(values) - max(3, len(values) // 10), source=finite_values(name))
    )
    return (before, end) if before > 0 and end <= ctx.t("kept_falling") * before else None


def _head(values: np.ndarray) -> float:
    """Where the loss started: the median of its first 3 points (one odd first batch ignored)."""
    return float(np.median(values[:3]))


def _share_undone(values: np.ndarray, peak: float, base: float) -> float | None:
    """The share of the loss's fall from its start to the spike's local level that the spike
    took back; None where the loss has not fallen (nothing to undo)."""
    start = _head(values)
    return (peak - base) / (start - base) if start > base else None


def _loss_reactions(run: Run, steps: np.ndarray, ratio: float, noise: float) -> tuple[int, float]:
    """(how many spikes the loss reacted to, the jump that counted as one): its max over the 3
    logs after the spike's step above the jump threshold times its median over the 5 logs before
    the spike's own log. The spike's own log cannot show a reaction (its loss was computed before
    that step's update, and a hard batch raises both at once), and a jump the loss makes at a
    ``noise`` share of its logs anyway (its own batch noise: the ``noise`` quantile of the same
    ratio over the whole run) is no reaction either: the threshold is the larger of ``ratio``
    and that quantile."""
    loss = run.get("loss")
    if loss is None or len(loss.finite()) < 6 or not len(steps):
        return 0, ratio
    f = loss.finite()
    v = f.values
    own = np.searchsorted(f.steps, steps)  # the spike's own log, or the first after it
    nxt = np.searchsorted(f.steps, steps, side="right")  # the first log after the spike's step
    every = np.arange(5, len(v) - 1)
    ratios = _window_stat(v, every + 1, range(0, 3), np.max) / _window_stat(v, every, range(-5, 0), median)
    level = max(ratio, float(np.quantile(ratios, noise))) if len(ratios) >= 20 else ratio
    before = _window_stat(v, own, range(-5, 0), median)
    after = _window_stat(v, nxt, range(0, 3), np.max)
    return int(np.sum((own > 0) & (nxt < len(v)) & (after > level * before))), level


@rule(
    code="TL021",
    name="grad-norm-spike",
    category="spike",
    severity="WARN",
    summary="The gradient norm spiked: repeated spikes or one the loss reacted to (WARN); a lone one (NOTE).",
    explanation="""
Same robust score as TL020, on the gradient norm. A lone grad-norm spike that leaves the
loss untouched is common (end of warm-up, one odd batch) and clipping absorbs it: it is
recorded as a NOTE. Repeated spikes, or a spike followed by a jump of the loss, mean
the optimizer keeps being thrown off: WARN. A jump counts in the logs after the spike's step
(the spike's own log was computed before its update: a hard batch raises both at once) and
only above the loss's own batch noise: the `loss_noise` quantile of the same jump over the
run, when that exceeds `loss_ratio` (per-step losses of a fitted set jump by 1.3x at one log
in five). Repeated spikes the loss did not follow, late in a
run whose loss is by then a tenth of its start or less (`memorised`: a multi-epoch run fitting
its data, the loss near 0.06), are a NOTE: per-example gradients of a fitted set are spiky; a
lone spike or two before the loss was that low (the end of warm-up) do not change that, repeated
ones do. Try: gradient clipping (max_grad_norm),
a lower LR, a longer warm-up, and the batches at the listed steps.""",
    thresholds=[
        Threshold("z", 6.0, "robust score of a spike"),
        Threshold("ratio", 3.0, "value / local median a spike must exceed"),
        Threshold("repeat", 3, "spikes that make a WARN even without a loss reaction..."),
        Threshold("repeat_rate", 0.002, "...when they are also at least this share of the points"),
        Threshold("loss_ratio", 1.3, "loss jump (after / before) that counts as a reaction"),
        Threshold("loss_noise", 0.95, "...and above this quantile of the loss's own jumps over the run"),
        Threshold("window", 0.1, "rolling window as a fraction of the run (7 to 51 points)"),
        Threshold("min_points", 20, "finite grad-norm points needed to judge"),
        Threshold("memorised", 0.1, "spikes the loss ignores once it is this share of its start are a NOTE"),
    ],
)
def grad_norm_spike(ctx: Context) -> Finding | None:
    s = ctx.series("grad_norm", min_points=int(ctx.t("min_points")))
    sp = find_spikes(s.values, ctx.t("z"), ctx.t("ratio"), ctx.t("window"), above=_kept(ctx, s.name))
    if not len(sp):
        return None
    steps = s.steps[sp.peak]
    reacted, level = _loss_reactions(ctx.subject, steps, ctx.t("loss_ratio"), ctx.t("loss_noise"))
    w, peak, base = _worst(s.values, sp)
    low = None if reacted else _memorised(ctx.subject, steps, ctx.t("memorised"))
    if low is not None and _repeated(ctx, low[2], len(s)):
        low = None  # repeated spikes before the loss was fitted: thrown off, not memorising
    sev = "WARN" if (_repeated(ctx, len(sp), len(s)) or reacted) and low is None else "NOTE"
    tail = f"; the loss jumped after {reacted} (by over {fmt(level)}x)" if reacted else "; the loss did not react"
    if low is not None and sev == "NOTE" and _repeated(ctx, len(sp), len(s)):
        early = f" ({low[2]} lone spike(s) before it)" if low[2] else ""
        tail += (
            f", already down at {fmt(low[0])} from {fmt(low[1])} ({fmt(low[0] / low[1] * 100)}% of its start, "
            f"threshold {fmt(ctx.t('memorised') * 100)}%) when they began{early}: a run memorising its data (a NOTE)"
        )
    return ctx.fire(
        f"{_summary(ctx, 'grad-norm', sp, steps, w, peak, base)}{tail}",
        step=steps[w],
        severity=sev,
        spikes=len(sp),
        spike_steps=steps[:MAX_LISTED].tolist(),
        loss_reactions=reacted,
        peak=peak,
        baseline=base,
        score=float(sp.score[w]),
        threshold=ctx.t("z"),
        repeat_threshold=ctx.t("repeat"),
        memorised=low is not None,
    )


def _memorised(run: Run, steps: np.ndarray, share: float) -> tuple[float, float, int] | None:
    """(the loss's level before the first spike it had fitted its data for, its start, the spikes
    before that) where that level is at most ``share`` of the start: late spikes of a run that has
    fitted its data, after perhaps a lone one at the end of warm-up; None when no spike came
    after the loss was that low."""
    loss = run.get("loss")
    f = loss.finite() if loss is not None else None
    if f is None or len(f) < 6:
        return None
    start = _head(f.values)
    if start <= 0:
        return None
    for early, first in enumerate(steps.tolist()):
        i = int(np.searchsorted(f.steps, first))
        if i < 3:
            continue
        level = float(np.median(f.values[max(0, i - 5) : i]))
        if level <= share * start:
            return level, start, early
    return None
