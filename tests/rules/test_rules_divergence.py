import numpy as np
from _rulekit import decay, make_run, not_checked, one, silent, stood_down


def _diverging(n=100):
    loss = decay(n, start=3, end=1, noise=0.02)
    loss[60:] = np.linspace(1.2, 5.0, n - 60)
    return loss


def test_tl010_fires_with_best_step_and_ratio():
    f = one("TL010", make_run(_diverging()))
    assert f.severity.value == "FAIL"
    assert f.evidence["ratio"] >= 2.0 and 40 <= f.evidence["best_step"] <= 65
    assert f.evidence["steps_past_best"] == 100 - f.evidence["best_step"]
    assert "diverged" in f.message and "threshold 2x" in f.message


def test_tl010_warn_when_eval_kept_improving():
    run = make_run(_diverging(), eval_loss=[2.0, 1.8, 1.6, 1.5], eval_steps=[25, 50, 75, 100])
    f = one("TL010", run)
    assert f.severity.value == "WARN" and f.evidence["eval_last"] == 1.5


def test_tl010_note_when_the_rise_is_immaterial_to_the_fall():
    # the shape of an OpenNMT fine-tune (calibration log opennmt-morph-inflection-train-990):
    # 3.3 down to 0.02, then up to 0.05 at the end, 2.5x its best but 0.9 % of its fall
    loss = np.r_[np.geomspace(3.3, 0.02, 40), np.full(30, 0.02), np.full(30, 0.05)]
    f = one("TL010", make_run(loss))
    assert f.severity.value == "NOTE" and f.evidence["ratio"] >= 2.0
    assert f.evidence["share_of_fall"] < 0.01 and "immaterial" in f.message
    # the same rise after a fall of a fifth of that: 4.5 % of the fall, a real divergence
    loss = np.r_[np.geomspace(0.68, 0.02, 40), np.full(30, 0.02), np.full(30, 0.05)]
    f = one("TL010", make_run(loss))
    assert f.severity.value == "FAIL" and f.evidence["ratio"] >= 2.0


def test_tl010_last_point_blip_does_not_fire():
    loss = decay(100)
    loss[-1] = 10.0
    silent("TL010", make_run(loss))
    loss = decay(100)
    loss[-7:] = 5.0  # short rise: below the stretch
    assert "only over" in stood_down("TL010", make_run(loss))


def test_tl010_not_checked_short():
    assert "needs at least 10" in not_checked("TL010", make_run([1.0, 2.0, 3.0]))


def test_tl011_blowup_that_comes_back():
    loss = decay(200, start=3, end=1, noise=0.02)
    loss[80:120] = 9.0 + np.random.default_rng(1).normal(0, 0.3, 40)
    f = one("TL011", make_run(loss))
    assert f.severity.value == "FAIL"
    assert 78 <= f.evidence["start_step"] <= 90 and 110 <= f.evidence["end_step"] <= 121
    assert f.evidence["peak"] > 9 and f.evidence["stretch_fraction"] >= 0.1
    assert "came back" in f.message


def test_tl011_note_when_the_blowup_is_immaterial_to_the_fall():
    # the shape of a Caffe hinge-loss MNIST run (bearpaw/caffe's mnist.log, round 27b): 10 down to
    # 0.002, a stretch at 0.02 (10x that best, 0.2 % of the fall), then back to 0.004
    loss = np.r_[np.geomspace(10.0, 0.002, 40), np.full(30, 0.002), np.full(30, 0.02), np.full(30, 0.004)]
    f = one("TL011", make_run(loss))
    assert f.severity.value == "NOTE" and f.evidence["share_of_fall"] < 0.01 and f.evidence["immaterial"] == 0.01
    assert "immaterial" in f.message and "10x its earlier best 0.002" in f.message
    # the same 10x stretch after a fall to 0.2: 2 on a fall of 9.8, a blow-up that undid training
    loss = np.r_[np.geomspace(10.0, 0.2, 40), np.full(30, 0.2), np.full(30, 2.0), np.full(30, 0.4)]
    f = one("TL011", make_run(loss))
    assert f.severity.value == "FAIL" and "share_of_fall" not in f.evidence
    # the threshold is the rule's own, overridable
    loss = np.r_[np.geomspace(10.0, 0.002, 40), np.full(30, 0.002), np.full(30, 0.02), np.full(30, 0.004)]
    assert one("TL011", make_run(loss), immaterial=0.001).severity.value == "FAIL"


def test_tl011_silent_on_short_blowup_and_healthy():
    loss = decay(200)
    loss[80:85] = 9.0
    silent("TL011", make_run(loss))
    silent("TL011", make_run(decay(200)))


def test_tl011_stands_down_when_it_lasts_to_end():
    assert "TL010" in stood_down("TL011", make_run(_diverging(200)))


# ---------------------------------------------------------------- TL012: brief blow-ups
def _warmup_blowup(at: int = 1):
    """The real shape (an HF run, LR too high through warm-up, logged every 10 steps): loss
    7.97 -> 805 -> 3.7 over steps 20-60, then a slow fall to about 2 (a synthetic series).
    ``at`` moves the same 100x blow-up later in the run."""
    steps = np.arange(10, 1001, 10, dtype=float)
    loss = 2.0 + 5.97 * np.exp(-(steps - 10) / 150)
    jump = np.array([805, 420, 120, 25]) / 7.97
    loss[at : at + 4] *= jump
    return make_run(loss, steps=steps)


def test_tl012_early_blowup_in_warmup_fails_with_its_numbers():
    f = one("TL012", _warmup_blowup())
    assert f.severity.value == "FAIL" and f.step == 20 and f.evidence["peak_step"] == 20
    assert f.evidence["best_before"] == 7.97 and f.evidence["ratio"] > 50 and f.evidence["recovered"]
    assert "blew up to" in f.message and "fell back to" in f.message and "thresholds 10x" in f.message
    silent("TL011", _warmup_blowup())  # what TL012 is for: the trend rule's windows miss it


def test_tl012_judges_the_same_blowup_early_and_late_alike():
    early, late = one("TL012", _warmup_blowup(1)), one("TL012", _warmup_blowup(40))
    assert early.severity == late.severity and late.step == 410


def test_tl012_judges_a_ten_point_log():
    """A 10-epoch Keras run whose loss goes 2.29 -> 63,020 -> 1.95 (too short for the trend rules)."""
    loss = [2.29, 2.05, 1.8, 63020.0, 2.1, 2.0, 1.99, 1.97, 1.96, 1.95]
    f = one("TL012", make_run(loss, steps=np.arange(10, dtype=float)))
    assert f.step == 3 and f.evidence["points"] == 10 and "1 of 10 points" in f.message
    assert "needs at least 20" in not_checked("TL011", make_run(loss))
    f = one("TL012", make_run([2.3, 1.9, 1.7, 1.6, 40.0]))  # not back by the end of a 5-point log
    assert not f.evidence["recovered"] and "had not come back" in f.message


def test_tl012_a_jump_to_exactly_factor_times_the_best_is_a_blowup():
    """0.5 -> 5.0 is 10x the best to the digit: the jump counts (>=), and its span is that point."""
    f = one("TL012", make_run([1.0, 0.5, 5.0, 0.4, 0.3]))
    assert f.evidence["ratio"] == 10.0 and f.evidence["peak"] == 5.0 and f.evidence["recovered"]
    assert "over 1 of 5 points" in f.message


def test_tl012_stands_down_on_a_loss_that_reaches_zero_or_below():
    """A loss at or below 0 (a composite loss) has no ratio to its best: not judged."""
    why = stood_down("TL012", make_run([1.0, 0.5, -0.1, 40.0, 0.4]))
    assert "loss reaches -0.1" in why and "ratios to its best cannot be judged" in why


def test_tl012_silent_on_heavy_tailed_batches_and_a_healthy_fall():
    """Per-batch losses whose single batches swing 30x around a falling level, never twice as
    high as the first batches (a Lightning regressor's shape): noise, not a blow-up."""
    rng = np.random.default_rng(0)
    level = 0.05 + 1.0 * np.exp(-np.arange(1800) / 300)
    loss = level * rng.lognormal(0, 1.2, 1800)
    loss[:10] = np.maximum(loss[:10], 1.5)
    silent("TL012", make_run(np.minimum(loss, 2.9)))
    silent("TL012", make_run(decay(10)))
    assert "needs at least 3" in not_checked("TL012", make_run([2.0, 1.0]))


def test_tl012_stands_down_on_a_jump_the_loss_keeps_coming_back_to():
    """A per-sample loss low by chance at first (rajiv256/NeuralCRNGen's neural-ODE log: 0.033 then
    1.09 at the sixth sample, 0.93 and 0.94 a few samples on): the jump is the loss's own spread.
    Two returns are not enough (``repeats``: 3).
    The same jump with the loss staying low after it is still a blow-up."""
    rng = np.random.default_rng(1)
    after = np.minimum(0.08 * rng.lognormal(0, 1.0, 60), 0.4)
    after[[3, 9, 20, 41]] = [0.93, 0.94, 0.75, 0.69]
    loss = np.r_[[0.20, 0.11, 0.033, 0.22, 0.048, 1.09], after]
    why = stood_down("TL012", make_run(loss))
    assert "comes back to 0.545 (1/2 of the jump to 1.09) at 4 of the 60 points after it" in why
    twice = after.copy()
    twice[[20, 41]] = 0.3
    assert one("TL012", make_run(np.r_[loss[:6], twice])).evidence["peak"] == 1.09
    calm = np.r_[[0.20, 0.11, 0.033, 0.22, 0.048, 1.09], np.minimum(after, 0.2)]
    f = one("TL012", make_run(calm))
    assert f.step == 6 and f.evidence["peak"] == 1.09  # make_run counts steps from 1


def _vae_kl_spike(end: float):
    """The real shape (1644heihei/3D-VAE old_backup/train.txt, a VAE's total loss logged every 30
    steps): about 150 at the first step, about 13,000 at the second point with the KL term
    spiking, back under 1,000 by the fifth, then a noisy fall that settles at ``end`` over the
    last epochs (0.05-0.09 in the log). A synthetic series."""
    rng = np.random.default_rng(3)
    n = 570
    head = np.array([150.0, 13000.0, 7000.0, 2700.0, 800.0, 50.0, 2.0])
    fall = (end + 0.4 * np.exp(-np.arange(n - len(head)) / 150)) * rng.lognormal(0, 0.3, n - len(head))
    return make_run(np.r_[head, fall], steps=np.arange(n, dtype=float) * 30)


def test_tl012_stands_down_on_a_jump_the_run_learned_far_past():
    """Settling at 0.07 (about 1/2,000 of the 150 before the spike) the run learned far past it;
    the same spike with the loss settling at 3 (1/50 of it) is still a blow-up."""
    why = stood_down("TL012", _vae_kl_spike(0.07))
    assert "the run learned far past the jump to 1.3e+04" in why and "threshold 1/100" in why
    assert "its best before the jump (150" in why
    f = one("TL012", _vae_kl_spike(3.0))
    assert f.severity.value == "FAIL" and f.step == 30 and f.evidence["best_before"] == 150.0
    assert f.evidence["peak"] == 13000.0 and f.evidence["recovered"]


def test_tl012_leaves_a_lasting_blowup_to_the_trend_rules():
    assert "TL010" in stood_down("TL012", make_run(np.r_[np.full(10, 2.0), np.full(10, 50.0)]))
    loss = decay(200, start=3, end=1, noise=0.02)
    loss[80:120] = 40.0
    assert "TL011" in stood_down("TL012", make_run(loss))


def test_tl010_note_when_the_rise_is_within_the_losses_own_noise():
    # catvsdog-resnet-pretrained-35 (calibration): a fine-tune of a pretrained ResNet logging one mini-batch's
    # loss every 200 batches; flat near 0.1 and swinging 0.005 to 0.73 throughout, so the lowest rolling median
    # (0.03) is a lucky stretch and the last tenth's median (0.10) the same noise: no divergence
    loss = [
        0.0264, 0.3968, 0.2010, 0.0052, 0.0368, 0.1900, 0.0783, 0.0314, 0.1727, 0.2765, 0.0363, 0.0941,
        0.0290, 0.0812, 0.1521, 0.0286, 0.0254, 0.1612, 0.0150, 0.0490, 0.7286, 0.1566, 0.1384, 0.1216,
        0.0149, 0.0675, 0.1121, 0.3084, 0.2809, 0.0719, 0.0537, 0.1126, 0.1838, 0.1925, 0.0928, 0.1290,
        0.1613, 0.2712, 0.2525, 0.1089, 0.0054, 0.0762, 0.1182, 0.1778, 0.0513, 0.1346, 0.0988, 0.0349,
    ]  # fmt: skip
    f = one("TL010", make_run(loss))
    assert f.severity.value == "NOTE" and f.evidence["ratio"] >= 2.0
    assert f.evidence["noise_z"] < 3.0 and "noise" in f.message
    # the same noise around a level that doubles and stays: a divergence
    doubled = np.r_[loss[:24], np.array(loss[24:]) * 4.0]
    assert one("TL010", make_run(doubled)).severity.value == "FAIL"


def test_tl010_a_loss_blown_up_by_orders_of_magnitude_is_no_noise():
    # a real HF Trainer run at lr=3.0 (tests/readers/test_grouping_agreement.py's "diverged"): 1.2e6 at step 5,
    # then 1e18-6e18 swinging by as much as its level; weighed on the log scale the rise is far beyond that noise
    loss = [1.2e6, 5.3e12, 2.4e18, 4.3e18, 2.5e18, 4.0e18, 4.2e18, 1.9e18, 3.5e18, 6.3e18, 3.8e18, 2.9e18]
    f = one("TL010", make_run(loss, steps=list(range(5, 65, 5))))
    assert f.severity.value == "FAIL" and f.evidence["best_step"] == 5


def _gan(d_end: float, n: int = 420, seed: int = 5):
    """The real shape (0111yoyo/GAN1202's training_log.csv, a GAN's per-batch losses over 20
    epochs): the generator's loss near 0.72 for the first two epochs, then up to about 2.5 with
    single batches far above; the discriminator's from 1.38 (two BCE terms at chance) down to
    ``d_end``. A synthetic series."""
    rng = np.random.default_rng(seed)
    t = np.clip((np.arange(n) - 40) / (n - 40), 0, 1)
    gen = (0.72 + 1.8 * np.sqrt(t)) * rng.lognormal(0, 0.3, n)
    disc = (1.38 + (d_end - 1.38) * np.sqrt(t)) * rng.lognormal(0, 0.3, n)
    return make_run(gen, steps=np.arange(n, dtype=float), d_loss=disc)


def test_tl010_a_gan_generator_rising_as_its_discriminator_gains_is_a_warn():
    """The discriminator's loss falling to 0.27 (a fifth of its start) while the generator's rises is
    the game's usual course: a WARN with both sides' numbers. A discriminator that won outright
    (0.02, under 1/20 of its start) or whose loss rose too leaves it a FAIL."""
    f = one("TL010", _gan(0.27))
    assert f.severity.value == "WARN" and f.evidence["ratio"] > 2 and "discriminator gained" in f.message
    assert 1.2 < f.evidence["disc_start"] < 1.6 and 0.2 < f.evidence["disc_end"] < 0.35 and "(d_loss)" in f.message
    assert one("TL010", _gan(0.02)).severity.value == "FAIL"
    assert one("TL010", _gan(2.5)).severity.value == "FAIL"


def _grpo_rising_kl(reward_end: float, n: int = 200, seed: int = 11):
    """A GRPO fine-tune (TRL's log: loss, reward, kl): the loss is beta x KL, from 1e-4 to about
    0.03 as the policy leaves its reference; the reward goes 0.1 to ``reward_end``."""
    rng = np.random.default_rng(seed)
    t = np.arange(n) / n
    kl = 0.0025 + 0.75 * t + np.abs(rng.normal(0, 0.02, n))
    reward = 0.1 + (reward_end - 0.1) * t + rng.normal(0, 0.15, n)
    return make_run(0.04 * kl, reward=reward, kl=kl)


def test_an_online_rl_loss_that_grows_while_the_reward_rises_is_a_note():
    f = one("TL010", _grpo_rising_kl(reward_end=1.5))
    assert f.severity.value == "NOTE" and f.evidence["ratio"] > 10
    assert f.message.startswith("loss (an online RL fine-tune's KL penalty: reward and kl logged) ended ")
    assert f.evidence["reward_end"] > f.evidence["reward_start"] + f.evidence["reward_margin"]


def test_an_online_rl_loss_that_grows_while_the_reward_stays_flat_still_fails():
    f = one("TL010", _grpo_rising_kl(reward_end=0.1))
    assert f.severity.value == "FAIL" and f.message.startswith("loss diverged: ")


# ---- TL013 loss-unbounded-below


def _unbounded(n=70):
    """A loss with no floor, in the shape of a Keras CSVLogger log seen in a blind sample
    (Agusbs98/Interface_of_automatic-ecg-diagnosis, training.log at d6abce0..: -3.4e4 at epoch 0,
    -6.5e7 at epoch 69, falling faster every epoch): here -3e4 * (1 + epoch)^1.8."""
    return -3.0e4 * (1.0 + np.arange(n)) ** 1.8


def test_tl013_fires_on_a_loss_with_no_floor():
    f = one("TL013", make_run(_unbounded()))
    assert f.severity.value == "FAIL"
    # tenths of 7 points: the medians of epochs 0-6 (epoch 3) and 63-69 (epoch 66); make_run counts steps from 1
    assert f.evidence["start_level"] == -3.0e4 * 4**1.8 and f.evidence["end_level"] == -3.0e4 * 67**1.8
    assert f.evidence["ratio"] == (67 / 4) ** 1.8 and f.evidence["factor"] == 100
    assert f.step == 70 and "still falling" in f.message and "threshold 100x" in f.message


def test_tl013_stands_down_where_the_fall_levels_out():
    # a normalising flow's negative log-likelihood: -1 for a while, then down to -500 and held there
    silent("TL013", make_run(np.r_[np.full(20, -1.0), np.linspace(-1, -500, 20), np.full(60, -500.0)]))
    # a loss that falls below zero by a few times its start (nice-train: 606 to -2242)
    silent("TL013", make_run(np.linspace(606, -2242, 100)))
    # a positive loss, decaying
    silent("TL013", make_run(decay(100)))


def test_tl013_stands_down_on_a_surrogate_swinging_around_zero_and_on_a_zero_start():
    swing = np.r_[0.01 * (-1.0) ** np.arange(80), np.linspace(-1, -10, 20)]
    assert "swings around 0" in stood_down("TL013", make_run(swing))
    assert "starts at exactly 0" in stood_down("TL013", make_run(np.r_[np.zeros(20), np.linspace(-1, -100, 80)]))


def _batch_mse_every_50_steps():
    """Made up in the shape of GajdaMJ/AI-for-Chemistry-Project lightning_logs/version_25/metrics.csv
    (round 32f): a regression's train_loss logged as one mini-batch's squared error every 50 steps,
    24 points from 150 to 4500 with no trend (the val loss plateaued from a tenth of the run on)."""
    return [
        2650.0, 1500.0, 450.0, 3200.0, 2300.0, 1700.0, 3100.0, 950.0, 1450.0, 1900.0, 1250.0, 900.0,
        820.0, 4500.0, 3150.0, 1100.0, 3400.0, 2000.0, 1300.0, 1450.0, 480.0, 650.0, 2700.0, 150.0,
    ]  # fmt: skip


def test_tl011_note_when_the_blowup_is_within_the_losses_own_noise():
    loss = _batch_mse_every_50_steps()
    f = one("TL011", make_run(loss, steps=list(range(49, 1200, 50))))
    assert f.severity.value == "NOTE" and f.evidence["noise_z"] < 3.0
    assert "noise" in f.message and f.evidence["best_before"] < 1000
    # the threshold is the rule's own, overridable
    assert one("TL011", make_run(loss), noise_z=1.0).severity.value == "FAIL"


def test_tl011_a_blowup_far_beyond_the_noise_still_fails():
    # the same batches, with a stretch in the middle at 30x their level: updates undoing training
    loss = np.array(_batch_mse_every_50_steps())
    loss[12:17] *= 30.0
    f = one("TL011", make_run(loss))
    assert f.severity.value == "FAIL" and "noise_z" not in f.evidence
    assert f.evidence["peak"] > 100000 and f.evidence["stretch_fraction"] >= 0.1
    # weighed against the noise all the same: only a far looser threshold would call it spread
    assert one("TL011", make_run(loss), noise_z=100.0).severity.value == "NOTE"


def _ppo_agent(reward_end: float, seed: int = 5):
    """Made up in the shape of laddermoon/combatbench baseline/sb3/runs/fight_from_stand_smoke_v1/train.log
    (round 32f): a Stable-Baselines3 PPO run, 24 updates of 2048 steps, train/loss swinging 0.7 to 13
    (a value regression onto the returns), low through the middle and back up at the end, while
    rollout/ep_rew_mean goes 88 to ``reward_end``."""
    rng = np.random.default_rng(seed)
    loss = np.r_[rng.uniform(5.0, 13.0, 9), [2.4, 5.5, 3.9, 1.6, 0.7, 2.8, 1.2, 3.3], rng.uniform(6.5, 11.0, 7)]
    reward = np.linspace(88.0, reward_end, 24) + rng.normal(0, 0.8, 24)
    steps = list(range(2048, 2048 * 25, 2048))
    return make_run(loss, steps=steps, **{"rollout/ep_rew_mean": reward})


def test_tl010_an_rl_agents_loss_that_rises_while_its_reward_rises_is_a_note():
    f = one("TL010", _ppo_agent(reward_end=108.0))
    assert f.severity.value == "NOTE" and f.evidence["ratio"] >= 2.0
    assert f.message.startswith("loss (an RL agent's: rollout/ep_rew_mean logged) ended ")
    assert f.evidence["reward_end"] > f.evidence["reward_start"] + f.evidence["reward_margin"]


def test_tl010_an_rl_agents_loss_that_rises_while_its_reward_stays_flat_still_fails():
    from trainlint.rules.entropy import episode_reward_rise

    flat = _ppo_agent(reward_end=88.0)
    assert episode_reward_rise(flat) is None  # a reward within its noise says nothing about the loss
    f = one("TL010", flat)
    assert f.severity.value == "FAIL" and f.message.startswith("loss diverged: ")
    assert f.evidence["ratio"] >= 2.0 and "reward_start" not in f.evidence
