"""Severities on runs nobody tuned on (issue 30 §2): each known false-alarm class with a firing
case and its numbers, a stand-down (or NOTE) case, and a synthetic series of the real shape."""

from __future__ import annotations

import numpy as np
from _rulekit import judge, make_run, one, silent, stood_down

# ---------------------------------------------------------------- TL031/TL032: fast drop, then little


def _sft(n: int = 128, drop_points: int = 4, lr_end: float = 1.0, seed: int = 2):
    """An SFT run of ``n`` steps logged at every step: 5 warm-up steps to a 2e-5 LR (held, or
    decayed linearly to ``lr_end`` of it), the loss 2.4 to about 1.0 within its first
    ``drop_points`` steps and then drifting 1.0 to 0.98 in noise of 0.03."""
    rng = np.random.default_rng(seed)
    t = np.arange(n, dtype=float)
    loss = 1.0 - 0.02 * t / n + 1.4 * np.exp(-t / (drop_points / 3)) + rng.normal(0, 0.03, n)
    lr = 2e-5 * np.minimum(1.0, (t + 1) / 5) * np.linspace(1.0, lr_end, n)
    return make_run(loss, lr=lr)


def test_sft_128_steps_that_fell_in_its_first_steps_is_no_plateau_nor_dead():
    run = _sft(drop_points=10)  # 2.4 to ~1.05 by step 6 of 128: the first 5%, past the old 3 points
    silent("TL031", run)
    assert "first few logged points" in stood_down("TL032", run)
    # a slower start at the same constant LR is a plateau (see the XTTS shape below)
    assert one("TL032", _sft(drop_points=15)).severity.value == "WARN"


def test_the_same_loss_spread_over_the_first_third_with_a_decaying_lr_is_a_plateau():
    run = _sft(drop_points=40, lr_end=0.5)  # a slow descent, then nothing, the LR still at 50%
    f = one("TL032", run)
    assert f.severity.value == "WARN" and abs(f.evidence["lr_fraction"] - 0.5) < 0.01
    assert f.evidence["improvement"] < f.evidence["threshold"]


def test_tl032_at_a_constant_lr_stays_a_warn_on_the_xtts_shape():
    # the calibration part's XTTS v2 fine-tune (xtts-coqui, broken: no improvement for its last
    # third): 1459 points, 0.048 to 0.035 within the first tenth at a constant LR, then flat to
    # 0.031. A constant LR does not make that plateau benign: it is the run's real finding.
    rng = np.random.default_rng(9)
    t = np.arange(1459, dtype=float)
    loss = 0.032 + 0.016 * np.exp(-t / 40) - 0.002 * t / 1459 + rng.normal(0, 0.004, 1459)
    f = one("TL032", make_run(loss, steps=t * 50, lr=np.full(1459, 5e-6)))
    assert f.severity.value == "WARN" and f.evidence["lr_fraction"] == 1.0


# ---------------------------------------------------------------- TL031: eval loss still improving


def _tts(eval_end: float):
    """A 125k-step TTS run logged every 1000 steps whose train loss holds 0.45 (noise 0.01) from
    its first logged point; its eval loss, every 5000 steps, goes 0.80 to ``eval_end`` linearly."""
    rng = np.random.default_rng(7)
    steps = np.arange(1000, 126000, 1000, dtype=float)
    loss = 0.45 + rng.normal(0, 0.01, len(steps))
    es = np.arange(5000, 126000, 5000, dtype=float)
    ev = np.linspace(0.80, eval_end, len(es))
    return make_run(loss, steps=steps, eval_loss=ev, eval_steps=es)


def test_tl031_stands_down_while_the_eval_loss_improves_to_the_end():
    why = stood_down("TL031", _tts(eval_end=0.60))
    assert "eval loss was still improving: 0.8 at its first evaluation (step 5000) to 0.6" in why


def test_tl031_fires_when_the_eval_loss_did_not_improve_either():
    f = one("TL031", _tts(eval_end=0.80))
    assert f.severity.value == "WARN" and abs(f.evidence["start_level"] - 0.45) < 0.01
    assert one("TL031", _tts(eval_end=0.95)).severity.value == "WARN"  # eval worse: no stand-down


# ---------------------------------------------------------------- TL031 per segment


def _two_segments(second_start: float):
    """A log holding two launches (the step counter back to 1): the first falls 3.0 to 1.0 over
    100 steps; the second, 100 steps, holds ``second_start`` in noise of 0.02."""
    rng = np.random.default_rng(4)
    t = np.arange(100, dtype=float)
    first = 1.0 + 2.0 * np.exp(-t / 20) + rng.normal(0, 0.02, 100)
    second = second_start + rng.normal(0, 0.02, 100)
    steps = np.r_[t + 1, t + 1]
    return make_run(np.r_[first, second], steps=steps)


def _tl031(rep):
    return [f for f in rep.findings if f.code == "TL031"]


def test_a_segment_that_continues_where_the_last_one_ended_is_a_note():
    (f,) = _tl031(judge(_two_segments(second_start=1.0)))
    assert f.severity.value == "NOTE" and f.evidence["segment"] == 2
    assert abs(f.evidence["previous_segment_end"] - 1.0) < 0.03
    assert "continues from where the previous one ended" in f.message


def test_a_segment_that_starts_over_and_learns_nothing_is_a_warn():
    (f,) = _tl031(judge(_two_segments(second_start=3.0)))
    assert f.severity.value == "WARN" and f.evidence["segment"] == 2
    assert f.evidence["previous_segment_end"] is None


# ---------------------------------------------------------------- a running sum within each epoch


def _summed(per_batch: np.ndarray, epochs: int, every: int = 10, restart_steps: bool = False):
    """The log of ``epoch_loss += loss.item()`` printed every ``every`` batches without dividing:
    ``per_batch`` split into ``epochs`` equal epochs, each point the sum so far in its epoch. The
    step is the global batch count, or the batch inside the epoch (``restart_steps``)."""
    per_epoch = len(per_batch) // epochs
    steps, values = [], []
    for e in range(epochs):
        sums = np.cumsum(per_batch[e * per_epoch : (e + 1) * per_epoch])
        for i in range(every - 1, per_epoch, every):
            steps.append(i + 1 if restart_steps else e * per_epoch + i + 1)
            values.append(sums[i])
    return make_run(np.array(values), steps=np.array(steps, dtype=float))


def _falling(n: int = 1000, seed: int = 5) -> np.ndarray:
    """Per-batch losses falling 2.0 to 0.5 in noise of 5%."""
    t = np.arange(n, dtype=float)
    return (0.5 + 1.5 * np.exp(-t / 250)) * (1 + np.random.default_rng(seed).normal(0, 0.05, n))


def _codes(rep, *sev):
    return sorted({f.code for f in rep.findings if f.severity.value in sev})


def test_a_running_sum_within_each_epoch_is_judged_on_the_losses_it_adds_up():
    # 5 epochs of 200 batches, the sum printed every 10: each epoch climbs to ~20x its first point
    for restart in (False, True):
        rep = judge(_summed(_falling(), epochs=5, restart_steps=restart))
        assert _codes(rep, "WARN", "FAIL") == [], [f.message for f in rep.findings]
        assert any("running sum within each epoch" in n and "5 epochs" in n for n in rep.notes)


def test_a_running_sum_of_diverging_losses_still_fails():
    t = np.arange(1000, dtype=float)
    rising = np.where(t < 400, 1.0, 1.0 + (t - 400) / 60) * (1 + np.random.default_rng(5).normal(0, 0.05, 1000))
    rep = judge(_summed(rising, epochs=5))
    assert "TL010" in _codes(rep, "FAIL") and any("running sum" in n for n in rep.notes)


def test_a_loss_that_is_not_a_running_sum_is_left_alone():
    # a loss that rises steadily (divergence) with one recovery: no epoch restarts to speak of
    t = np.arange(200, dtype=float)
    loss = np.r_[1.0 + t[:150] / 10, np.full(50, 1.2)] * (1 + np.random.default_rng(1).normal(0, 0.02, 200))
    rep = judge(make_run(loss))
    assert not any("running sum" in n for n in rep.notes)
    rep = judge(make_run(_falling(200)))  # a plain falling loss: nothing recognised either
    assert not any("running sum" in n for n in rep.notes)


# ---------------------------------------------------------------- preference and composite losses


def _dpo(acc_end: float, seed: int = 3):
    """A TRL DPO run of 300 steps at a constant 5e-7 (beta small): the loss is ln 2 at the first
    step by design and drifts to 0.685 in noise of 0.005; rewards/accuracies goes 0.5 to
    ``acc_end``; rewards/chosen and rewards/margins are logged too."""
    rng = np.random.default_rng(seed)
    t = np.arange(300, dtype=float)
    loss = 0.685 + (np.log(2) - 0.685) * np.exp(-t / 150) + rng.normal(0, 0.005, 300)
    loss[0] = np.log(2)
    acc = 0.5 + (acc_end - 0.5) * (1 - np.exp(-t / 100)) + rng.normal(0, 0.03, 300)
    return make_run(
        loss,
        lr=np.full(300, 5e-7),
        **{
            "rewards/chosen": rng.normal(0, 0.1, 300),
            "rewards/accuracies": acc,
            "rewards/margins": rng.normal(0, 0.1, 300),
        },
    )


def test_a_dpo_loss_at_ln_2_is_not_chance_over_two_classes():
    run = _dpo(acc_end=0.62)
    assert "preference loss (the log has rewards/accuracies)" in stood_down("TL033", run)
    assert "rewards/accuracies rose 0.5" in stood_down("TL031", run)
    assert "rewards/accuracies rose" in stood_down("TL032", run)


def test_the_same_loss_without_the_preference_series_is_chance_over_two():
    rng = np.random.default_rng(3)
    t = np.arange(300, dtype=float)
    loss = 0.685 + (np.log(2) - 0.685) * np.exp(-t / 150) + rng.normal(0, 0.005, 300)
    f = one("TL033", make_run(loss))
    assert f.severity.value == "FAIL" and f.evidence["classes"] == 2


def test_a_dpo_run_whose_reward_accuracy_stayed_at_a_half_is_still_dead():
    f = one("TL031", _dpo(acc_end=0.5))
    assert f.severity.value == "WARN" and abs(f.evidence["end_level"] - 0.685) < 0.005


def _composite(seed: int = 0):
    """A composite loss (a Gaussian likelihood minus an entropy bonus) falling 1.0 to -0.1 over
    300 steps in noise of 0.03, printed with 4 decimals: it crosses 0 around step 190."""
    t = np.arange(300, dtype=float)
    return np.round(-0.1 + 1.1 * np.exp(-t / 100) + np.random.default_rng(seed).normal(0, 0.03, 300), 4)


def test_a_composite_loss_printed_as_0_where_it_crosses_0_is_not_a_masked_batch():
    loss = _composite()
    assert (loss == 0).sum() == 2 and loss.min() < 0
    why = stood_down("TL005", make_run(loss))
    assert "goes negative (down to" in why and "composite loss" in why
    rep = judge(make_run(loss))
    assert [f.code for f in rep.findings if f.severity.value in ("WARN", "FAIL")] == []


def test_exact_zeros_in_a_loss_that_stays_positive_still_warn():
    loss = np.abs(_composite()) + 0.2
    loss[[100, 200]] = 0.0
    f = one("TL005", make_run(loss))
    assert f.severity.value == "WARN" and f.evidence["zero_points"] == 2


# ---------------------------------------------------------------- TL021: late spikes of a memorising run


def _memorising_with_early(early: list[int]):
    """A multi-epoch fine-tune memorising its data: loss 2.3 falling to about 0.06 by mid-run,
    grad norm about 4.6 in 5% noise; 6 spikes of 15x late in the run that the loss ignored, and
    spikes of 15x at the ``early`` steps, when the loss was still far above its end."""
    rng = np.random.default_rng(4)
    t = np.arange(3000)
    loss = (2.24 * np.exp(-t / 300) + 0.06) * rng.lognormal(0, 0.03, 3000)
    gn = 4.6 * rng.lognormal(0, 0.05, 3000)
    gn[[1880, 2000, 2200, 2470, 2560, 2860, *early]] *= 15
    return make_run(loss, grad_norm=gn)


def test_tl021_a_lone_spike_at_the_end_of_warm_up_does_not_hide_the_memorising():
    f = one("TL021", _memorising_with_early([150]))  # the loss still about 1.3 there
    assert f.severity.value == "NOTE" and f.evidence["spikes"] == 7 and f.evidence["memorised"] is True
    assert "(1 lone spike(s) before it): a run memorising its data" in f.message


def test_tl021_repeated_spikes_before_the_loss_was_fitted_still_warn():
    f = one("TL021", _memorising_with_early([150, 250, 350, 450, 520, 580]))  # 6: repeated in 3000
    assert f.severity.value == "WARN" and f.evidence["spikes"] == 12 and f.evidence["memorised"] is False


def _per_step_fit(after: float, seed: int = 5):
    """The calibration part's baize-...-trainer-state-804 in small: 3000 losses logged at every
    step of a 9-epoch fine-tune, falling 2.26 to about 0.09 in the batch noise of a fitted set
    (lognormal, sigma 0.2: the loss jumps 1.3x at about one log in five); grad norm about 0.4
    in 10% noise; 8 spikes of 3.5x over the last tenth. The loss at each spike's own log is
    1.4x its level (a hard batch raises both), and at the next log ``after`` times its level."""
    rng = np.random.default_rng(seed)
    t = np.arange(3000)
    loss = (2.2 * np.exp(-t / 400) + 0.09) * rng.lognormal(0, 0.2, 3000)
    gn = 0.4 * rng.lognormal(0, 0.1, 3000)
    spikes = [2700, 2725, 2760, 2790, 2830, 2870, 2905, 2950]
    gn[spikes] *= 3.5
    for i in spikes:
        level = float(np.median(loss[i - 5 : i]))
        loss[i], loss[i + 1] = 1.4 * level, after * level
    return make_run(loss, grad_norm=gn)


def test_tl021_loss_jumps_within_its_own_batch_noise_are_no_reaction():
    f = one("TL021", _per_step_fit(after=1.35))  # 1.35x after each: over 1.3, within the noise
    assert f.evidence["spikes"] == 8 and f.evidence["loss_reactions"] == 0
    assert f.severity.value == "NOTE" and f.evidence["memorised"] is True and "did not react" in f.message


def test_tl021_a_loss_jump_above_its_batch_noise_still_warns():
    f = one("TL021", _per_step_fit(after=3.0))  # 3x the level after each spike: thrown off
    assert f.severity.value == "WARN" and f.evidence["loss_reactions"] == 8
    assert "the loss jumped after 8 (by over" in f.message


# ---------------------------------------------------------------- TL020: spikes the loss kept falling through


def _per_batch(after_first: str = "falls", setback: bool = False):
    """The calibration part's ti-sv-train-607 in small: 6000 per-batch losses falling 2.0 to
    about 0.006 in heavy-tailed noise; from batch 4000 on, 40 bursts of hard batches: one at 7x
    the local level, the next three at 3x (so most do not recover at once). ``after_first``
    "holds": the loss stops falling at the first burst. ``setback``: one burst takes the loss
    back to 0.9, nearly half its fall."""
    rng = np.random.default_rng(11)
    t = np.arange(6000, dtype=float)
    level = 0.005 + 2.0 * np.exp(-t / 700)
    if after_first == "holds":
        level[4000:] = level[4000]
    loss = level * rng.lognormal(0, 0.25, 6000)
    for j in np.linspace(4000, 5900, 40).astype(int):
        loss[j] = 7 * level[j]
        loss[j + 1 : j + 4] = 3 * level[j + 1 : j + 4]
    if setback:
        loss[4500] = 0.9
    return make_run(loss)


def test_tl020_spikes_the_loss_kept_falling_through_are_a_note():
    f = one("TL020", _per_batch())
    assert f.severity.value == "NOTE" and f.evidence["spikes"] >= 35 and f.evidence["recovered"] < f.evidence["spikes"]
    assert 0.01 < f.evidence["undone"] < 0.1  # past the 1% of `undone`: not the small-spike NOTE
    assert "kept falling through them" in f.message and "heavy tail of per-batch losses" in f.message


def test_tl020_the_same_spikes_on_a_loss_that_stopped_falling_warn():
    f = one("TL020", _per_batch(after_first="holds"))
    assert f.severity.value == "WARN" and "kept falling" not in f.message


def test_tl020_a_spike_that_takes_back_half_the_fall_warns_though_the_loss_fell_on():
    f = one("TL020", _per_batch(setback=True))
    assert f.severity.value == "WARN" and f.evidence["undone"] > 0.1


# ---------------------------------------------------------------- TL020: one-batch outliers of a per-batch log

# netllm-loss-912 at batch 91274, over its local median: one batch at 10x, then batch noise whose
# median over five points stays up (3.3, 0.15, 2.4, 5.0, 6.5 there; 3.5, 4.0, 3.5 here so that it
# clears the clipped noise below)
_OUTLIER = np.array([12.0, 3.3, 0.15, 3.5, 4.0, 3.5])


def _batches(at=(6000, 9000, 12000, 15000, 18000), width: int = 1, shift: float = 1.0):
    """The calibration part's netllm-loss-912 in small: 20,000 per-batch losses whose median falls
    2.5 to 0.08 in heavy-tailed noise (lognormal, sigma 0.8, clipped at 3x so that only the batches
    placed ``at`` are spikes), each a one-batch outlier the loss does not shake off within five
    points. ``width``: the outliers last that many batches. ``shift``: after the last one the
    loss's level is that many times higher for good."""
    rng = np.random.default_rng(0)
    t = np.arange(20000, dtype=float)
    level = 0.08 + 2.4 * np.exp(-t / 3000)
    loss = level * np.minimum(rng.lognormal(0, 0.8, 20000), 3.0)
    for j in at:
        loss[j : j + 6] = _OUTLIER * level[j]
        loss[j : j + width] = _OUTLIER[0] * level[j]
    loss[at[-1] + 1 :] *= shift
    return make_run(loss)


def test_tl020_one_batch_outliers_the_loss_came_back_from_are_a_note_naming_them():
    f = one("TL020", _batches())
    assert f.severity.value == "NOTE" and f.evidence["spikes"] == 5 and f.evidence["outliers"] == 5
    assert f.evidence["recovered"] == 0 and f.evidence["ratio"] > 2  # big, none back at once: a WARN before
    assert "the 5 not recovered at once (step 6001, 9001, 12001, 15001, 18001) are one-batch outliers" in f.message
    assert (
        "level over the next 200 points at most 1.096x its level over the 200 before" in f.message
        and "(threshold 1.5x)" in f.message
    )


def test_tl020_two_one_batch_outliers_close_together_are_still_outliers():
    f = one("TL020", _batches(at=(6000, 6150, 12000)))
    assert f.severity.value == "NOTE" and f.evidence["outliers"] == 3


def test_tl020_spikes_that_last_two_batches_warn():
    f = one("TL020", _batches(width=2))
    assert f.severity.value == "WARN" and f.evidence["outliers"] == 0 and "one-batch" not in f.message


def test_tl020_spikes_that_recur_in_a_cluster_warn():
    f = one("TL020", _batches(at=(6000, 6080, 6160, 12000)))  # 3 within 200 batches
    assert f.severity.value == "WARN" and f.evidence["spikes"] == 4 and f.evidence["outliers"] == 0


def test_tl020_a_one_batch_spike_the_loss_level_does_not_come_back_from_warns():
    f = one("TL020", _batches(shift=2.0))
    assert f.severity.value == "WARN" and f.evidence["outliers"] == 0


def test_tl020_a_spike_without_settle_points_after_it_is_no_outlier_yet():
    f = one("TL020", _batches(at=(6000, 9000, 19900)))  # the last has 99 points after it
    assert f.severity.value == "WARN" and f.evidence["outliers"] == 0


# ---------------------------------------------------------------- trend rules on 15-20 points


def _epochs(n: int, seed: int):
    """An epoch-level log of ``n`` epochs of a healthy run: the train loss 0.9 falling to 0.3
    (still improving to the end) in noise of 4%, the eval loss alike towards 0.45, one of each
    per epoch; the LR decays linearly to half."""
    rng = np.random.default_rng(seed)
    t = np.arange(n, dtype=float)
    loss = (0.3 + 0.6 * np.exp(-t / (n / 2))) * (1 + rng.normal(0, 0.04, n))
    ev = (0.45 + 0.5 * np.exp(-t / (n / 2))) * (1 + rng.normal(0, 0.04, n))
    return make_run(loss, lr=1e-3 * np.linspace(1, 0.5, n), eval_loss=ev, eval_steps=t + 1)


def test_below_20_points_the_window_rules_say_they_need_20_and_nothing_fires():
    for seed in range(8):
        rep = judge(_epochs(16, seed))
        assert [f.code for f in rep.findings if f.severity.value in ("WARN", "FAIL")] == []
        for code in ("TL011", "TL020", "TL031", "TL032"):
            assert "needs at least 20" in rep.checks.not_checked[code]
        assert "TL010" in rep.checks.ran and "TL060" in rep.checks.ran  # rules of levels and evals judge


def test_at_20_points_a_run_still_improving_is_neither_dead_nor_a_plateau():
    for seed in range(8):
        run = _epochs(20, seed)
        silent("TL031", run)
        assert "TL032" not in {f.code for f in judge(run).findings}


def test_on_16_evaluations_a_sustained_rise_is_still_overfit():
    # the calibration part's nlp-binary-classification-training-log-442 (broken): its 16 eval
    # losses, best 0.5207 at epoch 6, the last three all above it and rising; train 0.68 to 0.18
    ev = [0.6873, 0.6722, 0.6383, 0.5856, 0.5468, 0.5207, 0.5355, 0.5383, 0.5282, 0.5322, 0.5413]
    ev += [0.5458, 0.5692, 0.5644, 0.5767, 0.5857]
    t = np.arange(1, 17, dtype=float)
    train = 0.18 + 0.5 * np.exp(-(t - 1) / 4)
    f = one("TL060", make_run(train, eval_loss=np.array(ev), eval_steps=t))
    assert f.severity.value == "WARN" and f.evidence["best_step"] == 6 and abs(f.evidence["ratio"] - 1.107) < 0.01


# ---------------------------------------------------------------- TL066/TL060: gaps and rises of losses near 0


def _fits_to_zero(late_gap: float):
    """The calibration part's logclassifier-roberta-v1-trainer-state-830 in small: a 30-epoch
    classifier logged and evaluated every 10 steps for 420 steps, both losses about 1.57 for 140
    steps, then falling by a quarter at each evaluation to near 0 (eval 0.001 at the end); dropout
    keeps the train loss above the eval loss, by 1% while both are flat, by 30% as they fall and
    ``late_gap`` (relative) at the end."""
    steps = np.arange(10, 421, 10, dtype=float)
    t = steps / 420
    ev = 1.57 * np.where(t < 1 / 3, 1 - 0.2 * t, 0.93 * np.exp(-(t - 1 / 3) * 12)) + 0.0006
    gap = np.where(t < 1 / 3, 0.01, 0.3 + (late_gap - 0.3) * (t - 1 / 3) * 1.5)
    train = ev / (1 - gap)
    return make_run(train, steps=steps, eval_loss=ev, eval_steps=steps)


def test_tl066_a_growing_gap_between_losses_near_zero_is_a_note():
    f = one("TL066", _fits_to_zero(0.55))  # 0.0007 against 0.0015: half, and nothing
    assert f.severity.value == "NOTE" and f.evidence["gap_late"] - f.evidence["gap_early"] > 0.15
    assert f.evidence["gap_share_of_fall"] < 0.01 and "both losses near 0" in f.message


def test_tl066_a_growing_gap_that_costs_part_of_the_fall_still_warns():
    steps = np.arange(10, 421, 10, dtype=float)
    ev = np.linspace(1.57, 0.6, len(steps))  # still 0.6 at the end: the gap is a real share
    train = ev / (1 - np.linspace(0.01, 0.45, len(ev)))
    f = one("TL066", make_run(train, steps=steps, eval_loss=ev, eval_steps=steps))
    assert f.severity.value == "WARN" and f.evidence["gap_share_of_fall"] > 0.2 and "grew" in f.message


def _overfit_near_zero(end: float):
    """A converged fine-tune: eval loss 0.1 falling to 1e-6 by its 6th of 10 evaluations, then
    rising to ``end``; the train loss keeps falling (2.0 to 1e-7)."""
    ev_steps = np.arange(20, 201, 20, dtype=float)
    ev = np.r_[0.1 * np.exp(-np.arange(6) * 2.3), np.linspace(1e-6, end, 5)[1:]]
    ev[5] = 1e-6
    train = 2.0 * np.exp(-np.arange(200) / 12) + 1e-7
    return make_run(train, eval_loss=ev, eval_steps=ev_steps)


def test_tl060_a_rise_of_an_eval_loss_near_zero_is_a_note():
    f = one("TL060", _overfit_near_zero(3e-6))  # 3x its best, 2e-6 of a fall of 0.1
    assert f.severity.value == "NOTE" and f.evidence["ratio"] > 2 and f.evidence["rise_share_of_fall"] < 1e-4
    assert "immaterial" in f.message


def test_tl060_the_same_rise_costing_part_of_the_fall_still_warns():
    f = one("TL060", _overfit_near_zero(0.02))  # back to a fifth of where it started
    assert f.severity.value == "WARN" and f.evidence["rise_share_of_fall"] > 0.1
