import math

import numpy as np
from _rulekit import decay, make_run, not_checked, one, silent, stood_down

from trainlint.api import read_run


def test_tl030_flat_loss():
    f = one("TL030", make_run(np.full(50, 2.5)))
    assert f.severity.value == "FAIL" and f.evidence["level"] == 2.5
    silent("TL030", make_run(decay(50)))


def test_tl030_a_loss_that_fell_and_then_held_still_is_a_note():
    """DeepXDE's Adam phase brings the loss from 12 to 1e-3, then L-BFGS prints its last value
    until its iterations run out (Debashis-Gupta/790_project output/log.txt @0176ccd6, probe 18d):
    the loss learned, then stopped moving; not a run that never learned."""
    adam = 12.0 * np.exp(-np.linspace(0, np.log(12.0 / 1e-3), 50))
    f = one("TL030", make_run(np.concatenate([adam, np.full(1500, 1e-3)])))
    assert f.severity.value == "NOTE"
    assert 9.0 < f.evidence["first"] < 12.0 and f.evidence["level"] == 1e-3 and f.evidence["threshold"] == 10.0
    assert f.evidence["fall"] == f.evidence["first"] / 1e-3 > 9e3


def test_tl030_a_collapse_to_a_constant_after_a_small_fall_still_fails():
    """A classifier that falls from 0.75 to predicting 0.5 for every sample: BCE is ln 2 exactly."""
    loss = np.concatenate([[0.75, 0.74, 0.72, 0.70], np.full(200, math.log(2))])
    f = one("TL030", make_run(loss))
    assert f.severity.value == "FAIL" and f.evidence["level"] == math.log(2)


def test_tl031_dead_run_numbers():
    loss = 2.0 + np.random.default_rng(0).normal(0, 0.05, 200)
    f = one("TL031", make_run(loss))
    assert f.severity.value == "WARN"
    assert abs(f.evidence["start_level"] - 2.0) < 0.05 and abs(f.evidence["end_level"] - 2.0) < 0.05
    assert f.evidence["improvement"] < f.evidence["threshold"]


def test_tl031_silent_when_learning_and_stands_down_on_rise():
    silent("TL031", make_run(decay(200)))
    assert "TL010" in stood_down("TL031", make_run(np.linspace(1, 5, 100)))
    assert "needs at least 20" in not_checked("TL031", make_run(decay(10)))


def test_tl031_stands_down_on_a_loss_swinging_around_zero():
    """The shape of verl's PPO actor/pg_loss (Bihan/dstack-configs verl_demo.log, the calibration part's
    dstack-verl-demo-968): 335 steps between -0.5 and 0.3 around 0, a start -0.069 and an end -0.0075."""
    i = np.arange(335)
    pg = 0.2 * (-1.0) ** i * (i % 5) / 4 + np.linspace(-0.07, -0.0075, 335)
    why = stood_down("TL031", make_run(pg))
    assert "swings around 0" in why and "negative" in why
    one("TL031", make_run(np.abs(pg) + 0.05))  # the same noise on one side of 0: still no learning


def _ppo_run(name: str = "ploss", beside: str | None = "vloss", lr: bool = False):
    """The shape of a self-play PPO log (ganascimento/ashborn-arena train.out @ its probe-21b commit:
    ``[ 201] ep=2010  r=  22.2 ... ploss=-0.0165 vloss=   19.1 ent=1.201``): the policy loss stays
    near -0.015 for 800 updates, always negative (an entropy bonus folded in), while the reward
    rises 22 to 110 (a synthetic series)."""
    rng = np.random.default_rng(3)
    run = make_run(lr=np.full(800, 3e-4) if lr else None, steps=np.arange(1, 801, dtype=float))
    steps = np.arange(1, 801, dtype=float)
    run.add(name, steps, -0.015 + 0.004 * (-1.0) ** steps)
    run.roles["loss"] = name
    run.add("r", steps, np.linspace(22, 110, 800) + rng.normal(0, 10, 800))
    if beside is not None:
        run.add(beside, steps, 40 + rng.normal(0, 10, 800))
    if lr:
        run.roles["learning_rate"] = "learning_rate"
    return run


def test_tl031_and_tl032_stand_down_on_a_policy_gradient_objective_beside_a_value_loss():
    why = stood_down("TL031", _ppo_run())
    assert "policy-gradient objective (vloss is logged beside it)" in why
    assert "actor/entropy" in stood_down("TL031", _ppo_run("actor/pg_loss", "actor/entropy"))
    assert "critic/vf_loss" in stood_down("TL032", _ppo_run("actor/pg_loss", "critic/vf_loss", lr=True))


def test_tl031_and_tl032_still_judge_a_policy_named_loss_alone_or_another_loss_beside_a_value():
    f = one("TL031", _ppo_run(beside=None))  # no actor-critic series beside it: judged as any loss
    assert f.evidence["start_level"] < 0 and f.evidence["improvement"] < f.evidence["threshold"]
    one("TL031", _ppo_run("g_loss", "value_loss"))  # not a policy's name
    one("TL032", _ppo_run("policy_loss", None, lr=True))


def _pix2pix_loss_log(tmp_path, l1_end: float = 16.0):
    """A pix2pix ``loss_log.txt`` (pytorch-CycleGAN-and-pix2pix's Visualizer; the shape of
    mingxuanM/poke_pixel2pixel checkpoints/poke_evol_pix2pix_mini_full/loss_log.txt at ef32c42): G_GAN
    rises 2 to 6.4 as the discriminator wins (D_real, D_fake towards 0) while G_L1 (x100) falls 22.6 to
    ``l1_end``: the generator's loss_G = G_GAN + G_L1 holds its level (a synthetic series)."""
    rng = np.random.default_rng(5)
    lines = ["================ Training Loss (Mon Mar 11 02:02:43 2019) ================"]
    for k in range(300):
        epoch, iters, t = 1 + k // 4, 100 * (1 + k % 4), k / 299
        gan = 2.0 + 4.4 * t + rng.normal(0, 0.8)
        l1 = 22.6 + (l1_end - 22.6) * t + rng.normal(0, 4.0)
        d_real, d_fake = abs(0.25 * (1 - t) + rng.normal(0, 0.05)), abs(0.2 * (1 - t) + rng.normal(0, 0.05))
        lines.append(
            f"(epoch: {epoch}, iters: {iters}, time: 0.126, data: 0.002) G_GAN: {abs(gan):.3f} G_L1: {l1:.3f} "
            f"D_real: {d_real:.3f} D_fake: {d_fake:.3f} "
        )
    path = tmp_path / "loss_log.txt"
    path.write_text("\n".join(lines) + "\n")
    return read_run(path)


def test_tl031_a_gan_generator_sum_whose_fit_term_fell_stands_down(tmp_path):
    run = _pix2pix_loss_log(tmp_path)
    assert run.roles["loss"] == "loss_G" and "loss_D" in run.series
    why = stood_down("TL031", run)
    assert "fit term G_L1 fell" in why and "loss_D" in why and "adversarial term rises" in why
    # the same log whose L1 term did not fall either: the generator learned nothing, a WARN as before
    flat = _pix2pix_loss_log(tmp_path, l1_end=22.6)
    f = one("TL031", flat)
    assert f.severity.value == "WARN" and f.evidence["improvement"] < f.evidence["threshold"]


def test_tl031_a_summed_gan_loss_read_by_its_terms_stands_down():
    """The general reader's sum of a generator's terms (loss_G_GAN+loss_G_L1, the discriminator's
    loss_D_real and loss_D_fake beside it): judged by its fit term as pix2pix's loss_G is; the same
    curve without a discriminator beside it is no GAN and stays a WARN."""
    rng = np.random.default_rng(6)
    t = np.linspace(0, 1, 120)
    gan, l1 = 1.0 + 5.0 * t + rng.normal(0, 0.2, 120), 22.0 - 5.0 * t + rng.normal(0, 0.5, 120)
    disc = {"loss_D_real": 0.5 - 0.3 * t, "loss_D_fake": 0.4 - 0.3 * t}
    run = make_run(gan + l1, loss_G_GAN=gan, loss_G_L1=l1, **disc)
    run.series["loss_G_GAN+loss_G_L1"] = run.series.pop("loss")
    run.series["loss_G_GAN+loss_G_L1"].name = "loss_G_GAN+loss_G_L1"
    run.roles["loss"] = "loss_G_GAN+loss_G_L1"
    assert "fit term loss_G_L1 fell" in stood_down("TL031", run)
    for name in disc:
        del run.series[name]
    assert one("TL031", run).severity.value == "WARN"


def test_tl032_plateau_with_high_lr():
    loss = decay(200, start=3, end=1, tau=15, noise=0.02)
    f = one("TL032", make_run(loss, lr=np.full(200, 1e-3)))
    assert f.severity.value == "WARN" and f.evidence["lr_fraction"] == 1.0
    assert abs(f.evidence["end_level"] - 1.0) < 0.05 and f.step == 101


def test_tl032_stands_down_when_lr_decayed_or_still_learning():
    loss = decay(200, start=3, end=1, tau=15, noise=0.02)
    lr = 1e-3 * 0.5 * (1 + np.cos(np.linspace(0, np.pi, 200)))
    assert "decayed" in stood_down("TL032", make_run(loss, lr=lr))
    silent("TL032", make_run(decay(200, tau=100), lr=np.full(200, 1e-3)))
    assert "learning_rate" in not_checked("TL032", make_run(loss))
    assert "zero" in stood_down("TL032", make_run(loss, lr=np.zeros(200)))


def test_tl033_stuck_at_uniform_fails():
    v = 32000
    loss = math.log(v) + np.random.default_rng(0).normal(0, 0.05, 100)
    f = one("TL033", make_run(loss), extra={"vocab_size": v})
    assert f.severity.value == "FAIL" and abs(f.evidence["ln_v"] - math.log(v)) < 1e-9
    assert f.evidence["classes"] == v and "vocab_size from option" in f.message


def test_tl033_ends_at_uniform_warns_from_meta():
    loss = np.concatenate([np.linspace(6.0, 2.4, 60), np.full(40, math.log(10))])
    f = one("TL033", make_run(loss, meta={"num_classes": 10}))
    assert f.severity.value == "WARN" and "num_classes from log metadata" in f.message


def test_tl033_high_start_is_fine_and_unknown_v_not_checked():
    loss = decay(100, start=math.log(50000) + 1, end=3.0)
    silent("TL033", make_run(loss), extra={"vocab_size": 50000})
    assert "unknown" in not_checked("TL033", make_run(loss))


def test_tl032_stands_down_on_a_rise():
    loss = np.concatenate([decay(100, tau=10), np.linspace(1.0, 4.0, 100)])
    assert "rose" in stood_down("TL032", make_run(loss, lr=np.full(200, 1e-3)))


def test_noisy_but_large_drops_are_never_dead_or_plateau():
    rng = np.random.default_rng(3)
    loss = np.linspace(8, 3, 41) * (1 + rng.normal(0, 0.3, 41))  # very noisy, 60% drop
    silent("TL031", make_run(loss))
    loss = np.concatenate([np.full(20, 5.0), np.linspace(5, 3.5, 21)]) * (1 + rng.normal(0, 0.3, 41))
    silent("TL032", make_run(loss, lr=np.full(41, 1e-4)))


def _tts_run(eval_tail: float, eval_until: float = 125000):
    """A 125k-step TTS run logged every 1000 steps at a constant LR: the train loss falls from
    1.2 to about 0.45 by step 30k and then holds it; the eval loss, every 5000 steps, falls from
    0.80 and ends at ``eval_tail`` times its step-60k level."""
    rng = np.random.default_rng(7)
    steps = np.arange(1000, 126000, 1000, dtype=float)
    loss = 0.45 + 0.75 * np.exp(-(steps - 1000) / 8000) + rng.normal(0, 0.01, len(steps))
    es = np.arange(5000, 126000, 5000, dtype=float)
    ev = 0.52 + 0.28 * np.exp(-(es - 5000) / 40000)
    k = np.searchsorted(es, 60000)
    ev[k:] = ev[k] * (1 + (eval_tail - 1) * (es[k:] - es[k]) / (es[-1] - es[k]))
    keep = es <= eval_until
    return make_run(loss, steps=steps, lr=np.full(len(steps), 2e-4), eval_loss=ev[keep], eval_steps=es[keep])


def test_tl032_plateau_while_the_eval_loss_still_improves_stands_down():
    why = stood_down("TL032", _tts_run(eval_tail=0.9))  # eval 10% lower at the end, its best
    assert "eval loss was still improving" in why and "at the end, its best" in why


def test_tl032_plateau_fires_when_the_eval_loss_stopped_too():
    f = one("TL032", _tts_run(eval_tail=1.0))  # eval flat over the second half
    assert f.severity.value == "WARN" and f.evidence["lr_fraction"] == 1.0
    assert f.evidence["improvement"] < f.evidence["threshold"]
    f = one("TL032", _tts_run(eval_tail=1.05))  # eval rising: no stand-down either
    assert "plateau" in f.message


def test_tl032_eval_that_ended_long_before_the_run_does_not_stand_it_down():
    # the last evaluation at step 80k of 125k: whether the eval loss still improved is unknown
    assert one("TL032", _tts_run(eval_tail=0.9, eval_until=80000)).severity.value == "WARN"


def _vits_train_log(tmp_path, with_disc: bool = True):
    """A so-vits-svc 3.x train.log (jaywalnut310/vits train.py's shape: 'Train Epoch: N [P%]' then the
    unnamed list [loss_disc, loss_gen, loss_fm, loss_mel, loss_kl, global_step, lr], the shape of the
    calibration part's catgpt-so-vits-svc-32k-train-1140): the mel term falls from 38 to 17 in the
    first third and holds it, the discriminator steady near 2.5, the LR at 98 % of its peak at the
    end. ``with_disc`` False: the same curve logged as plain per-term losses, no discriminator."""
    rng = np.random.default_rng(3)
    lines = ["2023-03-01 10:00:00,000\t32k\tINFO\t{'train': {'log_interval': 20, 'epochs': 10000}}"]
    for k in range(120):
        step, lr = 20 * k, 1e-4 * 0.999875 ** (k // 2)
        mel = 17.0 + 21.0 * math.exp(-k / 12) + rng.normal(0, 0.6)
        gen, fm, kl = 2.4 + rng.normal(0, 0.3), 10.0 + rng.normal(0, 1.5), 0.8 + rng.normal(0, 0.1)
        stamp = "2023-03-01 10:00:00,000\t32k\tINFO\t"
        if with_disc:
            lines.append(f"{stamp}Train Epoch: {1 + k // 2} [{50 * (k % 2)}%]")
            lines.append(f"{stamp}{[2.5 + rng.normal(0, 0.1), gen, fm, mel, kl, step, lr]}")
        else:
            lines.append(f"step {step} | loss {gen + fm + mel + kl:.4f} | loss_mel {mel:.4f} | lr {lr:.6g}")
    path = tmp_path / "train.log"
    path.write_text("\n".join(lines) + "\n")
    return read_run(path)


def test_tl032_plateau_of_a_gan_generator_objective_is_a_note(tmp_path):
    run = _vits_train_log(tmp_path)
    assert run.roles["loss"] == "loss_gen_all" and "loss_disc" in run.series
    f = one("TL032", run)
    assert f.severity.value == "NOTE" and f.evidence["discriminator"] == "loss_disc"
    assert "generator's objective" in f.message and f.evidence["improvement"] < f.evidence["threshold"]
    # the discriminator logged too briefly to say the run is a GAN: a WARN as for any loss
    assert one("TL032", run, min_discriminator_points=1000).severity.value == "WARN"


def test_tl032_plateau_of_the_same_curve_without_a_discriminator_stays_a_warn(tmp_path):
    run = _vits_train_log(tmp_path, with_disc=False)
    assert not any("disc" in n for n in run.series)
    f = one("TL032", run)
    assert f.severity.value == "WARN" and f.evidence.get("discriminator") is None


# ---------------------------------------------------------------- TL034: accuracy at chance
def _chance_run(seed=0, n=35, k=9, lift=0.05, meta=None, drop=0.09):
    """The real shape (a 9-class Keras run, 35 epochs): train loss 2.21 -> 2.11 around ln 9,
    validation accuracy 0.11-0.19 around 1/9 (a synthetic series, not the log)."""
    rng = np.random.default_rng(seed)
    t = np.linspace(0, 1, n)
    loss = math.log(k) + 0.014 - drop * t + rng.normal(0, 0.008, n)
    val_acc = 1 / k + lift * np.sqrt(t) + rng.normal(0, 0.015, n)
    return make_run(loss, steps=np.arange(n, dtype=float), val_accuracy=val_acc, meta=meta)


def test_tl034_fires_on_the_real_shape_with_its_numbers():
    f = one("TL034", _chance_run())
    assert f.severity.value == "FAIL" and f.evidence["classes"] == 9
    assert f.evidence["chance"] == 1 / 9 and f.evidence["skill"] <= 0.1
    assert f.evidence["accuracy_metric"] == "val_accuracy" and 0.11 <= f.evidence["accuracy"] <= 0.19
    assert "from the first loss" in f.message and "1/9 = 0.1111" in f.message and "ln 9 = 2.197" in f.message
    assert f.step == 34


def test_tl034_takes_a_given_class_count_and_a_percent_accuracy():
    run = _chance_run(k=5, meta={"num_classes": 5}, drop=0.2)  # 12 % below ln 5: past TL033's 5 %
    run.series["val_accuracy"].values[:] *= 100
    f = one("TL034", run)
    assert f.evidence["classes"] == 5 and "num_classes 5" in f.message and f.evidence["accuracy"] < 1
    assert "TL033" in stood_down("TL034", _chance_run(k=5, meta={"num_classes": 5}))  # within TL033's 5 %


def test_tl034_silent_when_the_accuracy_rises_or_the_loss_falls():
    silent("TL034", _chance_run(lift=0.3))  # 0.11 -> 0.41: learning
    n = 35
    acc = np.full(n, 0.12)
    silent("TL034", make_run(np.linspace(2.2, 0.9, n), val_accuracy=acc))  # the loss fell: not chance
    assert "no accuracy" in not_checked("TL034", make_run(np.linspace(2.2, 2.1, n)))
    assert "needs at least 5" in not_checked("TL034", make_run(np.linspace(2.2, 2.1, n), val_accuracy=acc[:4]))


def test_tl034_without_a_class_count_needs_a_first_loss_that_is_some_ln_k():
    acc = np.full(35, 0.12)
    why = not_checked("TL034", make_run(np.linspace(9.0, 8.9, 35), val_accuracy=acc))
    assert "first loss 9 is no ln k for 2 to 1000 classes" in why  # above ln 1000
    assert "below ln 2" in not_checked("TL034", make_run(np.linspace(0.3, 0.29, 35), val_accuracy=acc))
    # a given count needs no first loss at ln k: judged (0.12 is far above 1/8000)
    silent("TL034", make_run(np.linspace(9.0, 8.9, 35), val_accuracy=acc, meta={"num_classes": 8000}))


def test_tl034_stands_down_when_the_loss_sits_at_ln_k():
    """A loss at ln k from start to end is TL033's finding: one finding per cause."""
    n = 60
    loss = math.log(10) + np.random.default_rng(0).normal(0, 0.002, n)
    acc = 0.1 + np.random.default_rng(1).normal(0, 0.01, n)
    assert "TL033" in stood_down("TL034", make_run(loss, val_accuracy=acc))


def test_tl034_judges_only_the_whole_run_live():
    from trainlint.registry import REGISTRY

    assert REGISTRY.get("TL034").live == "end"


# ---------------------------------------------------------------- TL035: a start above ln V
def _lm_start(first=18.9, vocab=151646, n=100, meta=True):
    """The real shape (an SFT run of a model with a 151,646-token vocabulary): the first logged
    loss 18.9, against ln V = 11.93, falling to about 2 (a synthetic series)."""
    loss = 2.1 + (first - 2.1) * np.exp(-np.arange(n) / 8)
    return make_run(loss, steps=np.arange(5, 5 * n + 1, 5, dtype=float), meta={"vocab_size": vocab} if meta else None)


def test_tl035_a_start_far_above_ln_vocab_fails_with_its_numbers():
    f = one("TL035", _lm_start())
    assert f.severity.value == "FAIL" and f.step == 5
    assert f.evidence["first_loss"] == 18.9 and f.evidence["vocab_size"] == 151646
    assert abs(f.evidence["ln_v"] - 11.93) < 0.01 and abs(f.evidence["ratio"] - 1.584) < 0.01
    assert "18.9" in f.message and "V = 151,646" in f.message and "ln V = 11.93" in f.message
    g = one("TL035", _lm_start(meta=False), extra={"vocab_size": 151646})
    assert "--vocab-size" in g.message


def test_tl035_silent_at_or_below_ln_vocab_and_not_checked_without_one():
    silent("TL035", _lm_start(first=12.3))  # a fresh model starts a little above ln V: fine
    silent("TL035", _lm_start(first=2.4))  # a pretrained one starts far below
    assert "no vocabulary size" in not_checked("TL035", _lm_start(meta=False))
    assert "no vocabulary size" in not_checked("TL035", make_run(decay(50), meta={"num_classes": 10}))


def test_tl035_judged_from_the_run_folder_config(tmp_path):
    import json

    from trainlint import api

    logs = [{"step": 5 * (i + 1), "loss": float(v)} for i, v in enumerate(_lm_start().series["loss"].values)]
    (tmp_path / "trainer_state.json").write_text(json.dumps({"global_step": 500, "log_history": logs}))
    (tmp_path / "config.json").write_text(json.dumps({"vocab_size": 151646}))
    reports = [r for r in api.doctor([tmp_path / "trainer_state.json"]).reports if r.kind == "log"]
    f = next(f for f in reports[0].findings if f.code == "TL035")
    assert f.severity.value == "FAIL" and str(tmp_path / "config.json") in f.message


def _grpo(reward_end: float, n: int = 250, seed: int = 5):
    """A GRPO fine-tune as TRL logs it (unslothai/notebooks nb/Qwen2.5_(3B)-GRPO.ipynb @bdda2ef, its
    table's Training Loss, reward, reward_std, kl): the loss is beta x KL, exactly 0 at the first
    steps and growing as the policy leaves its reference; the reward goes 0.1 to ``reward_end``."""
    rng = np.random.default_rng(seed)
    t = np.arange(n) / n
    kl = np.where(np.arange(n) < 20, 0.0, np.abs(0.03 * t + rng.normal(0, 0.005, n)))
    reward = 0.1 + (reward_end - 0.1) * t + rng.normal(0, 0.2, n)
    return make_run(np.round(0.04 * kl, 6), reward=reward, reward_std=np.abs(rng.normal(1, 0.2, n)), kl=kl)


def test_a_grpo_loss_whose_reward_rose_is_no_dead_run():
    why = stood_down("TL031", _grpo(reward_end=1.5))
    assert why.startswith("an online RL fine-tune (reward and kl logged) whose reward rose ")
    assert "the KL penalty, grew from 0" in why
    assert stood_down("TL005", _grpo(reward_end=1.5)).startswith("20 exact zero(s) in an online RL fine-tune's loss")


def test_a_grpo_run_whose_reward_stayed_flat_is_still_judged_on_its_loss():
    f = one("TL031", _grpo(reward_end=0.1))
    assert f.severity.value == "WARN" and f.evidence["start_level"] == 0.0


def _actor_critic(return_end: float, n: int = 100, seed: int = 9):
    """The real shape (jiebanrennei/lunwen's log/run_ACM_20260715_140042.log, an actor-critic graph
    generator over 100 epochs): the average return climbs from about 320 to ``return_end`` within
    the first 20 epochs and holds there; the loss (about 2,700 at the start, 20,000 by epoch 19,
    7,500 at the end) ends near its first tenth's level. A synthetic series."""
    rng = np.random.default_rng(seed)
    t = np.minimum(np.arange(n) / 20, 1.0)
    ret = (320 + (return_end - 320) * t) * rng.lognormal(0, 0.08, n)
    level = np.interp(np.arange(n), [0, 6, 19, 30, n - 1], [2700, 7800, 20000, 10000, 7500])
    loss = level * rng.lognormal(0, 0.2, n)
    return make_run(loss, avg_return=ret)


def test_a_loss_beside_a_return_that_rose_is_no_dead_run():
    """The return rising 320 -> about 5,000 is learning, whatever the loss's level; a return that
    stayed near 320 leaves the loss judged."""
    why = stood_down("TL031", _actor_critic(5000.0))
    assert why.startswith("avg_return, logged beside the loss, rose ") and "the learner improved" in why
    f = one("TL031", _actor_critic(330.0))
    assert f.severity.value == "WARN" and "no meaningful improvement" in f.message
