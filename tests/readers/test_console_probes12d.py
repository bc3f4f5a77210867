"""Line shapes seen in real training logs of reinforcement learning, GANs, VAEs, recommenders and
segmentation found outside the corpus (issue 29, probe round 12d). Each fixture is made up in the
shape of the real log (repository, path and commit recorded with it; no copied lines) and asserts
the series read: names, steps, first and last values, and which is the loss."""

from __future__ import annotations

import pytest
from _consolekit import read_lines as _read
from _consolekit import series_ends as _series

from trainlint.role_structure import parse
from trainlint.roles import choose


def _falling(k: int, start: float) -> float:
    return round(start * 0.93**k, 4)


def test_a_value_function_loss_is_a_component_beside_the_policy_loss(tmp_path):
    """A PPO script's own print on LunarLander (a console output found by its text; the index gave no
    repository): "Update 1 | Ep 21 | reward: -34.9 | mean(100): -193.8 | actor_loss: -0.0055 |
    value_loss: 32.4345 | lr: 3.00e-04". ``value_loss`` is the value function's loss (the critic head
    of an actor-critic), a component of the objective beside the policy's, not "the loss's value":
    no total is printed, so the two are summed (it was taken alone, as "the total of 1 component")."""
    lines = ["Training PPO on LunarLander-v3 (up to 2000 episodes)", "  n_steps=2048  n_epochs=4  batch_size=64"]
    for k in range(1, 17):
        lines.append(
            f"  Update {k:4d} | Ep {21 * k:5d} | reward: {-120 + 9 * k:8.1f} | mean(100): {-190 + 10 * k:8.1f}"
            f" | actor_loss: {-0.005 - 0.0002 * (k % 5):.4f} | value_loss: {_falling(k, 32.0):.4f}"
            f" | lr: {3e-4 - 3e-6 * k:.2e}"
        )
        if k % 3 == 0:
            lines.append("  Plot saved to: logs/rewards.png")
    run = _read(tmp_path, lines, "train_output.txt")
    assert run.roles["loss"] == "actor_loss+value_loss"
    assert _series(run, "value_loss") == (16, 1.0, 16.0, _falling(1, 32.0), _falling(16, 32.0))
    assert _series(run, "actor_loss")[:3] == (16, 1.0, 16.0)
    assert "sum of 2 loss components" in run.meta["role_reasons"]["loss"]
    assert run.roles["learning_rate"] == "lr"


def test_value_names_the_loss_only_before_the_loss_word():
    """``value_loss`` / ``ValueLoss`` / "Value Loss" are the value function's; ``loss_value`` and
    ``loss/value`` are the loss as reported, a total still."""
    assert parse("value_loss").kind == "part"
    assert parse("ValueLoss").part == "value"
    assert parse("train/Value Loss").kind == "part"
    assert parse("loss_value").kind == "total"
    assert parse("loss/value").kind == "total"
    assert choose(["policy_loss", "value_loss", "entropy"])["loss"].names == ("policy_loss", "value_loss")
    assert choose(["loss_value", "val_loss"])["loss"].names == ("loss_value",)


def test_an_actor_critic_log_names_the_critic_left_out(tmp_path):
    """An actor-critic's print (SAC, DDPG, TD3 scripts: "Episode 10, Total Reward: .., Actor Loss: ..,
    Critic Loss: .."): the critic is another network, left out as a GAN's discriminator is, and the
    reason says so in the learner's own words, not as "the generator's loss"."""
    lines = [
        f"Episode {k}, Total Reward: {-200 + 3 * k:.2f}, Actor Loss: {-0.5 - 0.01 * k:.4f},"
        f" Critic Loss: {_falling(k, 30.0):.4f}"
        for k in range(1, 21)
    ]
    run = _read(tmp_path, lines, "train.log")
    assert run.roles["loss"] == "Actor_Loss"
    assert run.meta["role_reasons"]["loss"] == "Actor_Loss (the actor's loss (the critic's left out))"
    assert _series(run, "Critic_Loss") == (20, 1.0, 20.0, _falling(1, 30.0), _falling(20, 30.0))


def test_a_wgan_critic_beside_its_generator_is_still_the_discriminator():
    """A WGAN calls its discriminator the critic: beside a generator's loss the reason stays a GAN's."""
    c = choose(["critic_loss", "gen_loss"])["loss"]
    assert c.names == ("gen_loss",)
    assert c.reason == "the generator's loss"


def test_combogan_prints_each_loss_as_the_list_of_its_domains(tmp_path):
    """candy0543/GANs loss_log.txt @42ec349 (ComboGAN, one generator and discriminator per domain, on
    four weather domains): "(epoch: 1, iters: 100, time: 0.291) D: 0.111, 0.105, 0.111, 0.130 |
    G: 0.146, 0.150, 0.159, 0.144 | Cyc: 0.092, 0.037, 0.054, 0.042 | " under pix2pix's banner. Each
    list is a term a domain (``D_1`` .. ``D_4``); the generators' and cycle terms sum to ``loss_G``,
    the loss, the discriminators' to ``loss_D`` (the log was not read)."""
    lines = [
        "##ComboGAN with weatherImage ",
        "",
        "================ Training Loss (Fri Jun 21 05:19:51 2024) ================",
    ]
    for k in range(14):
        e, i = k // 10 + 1, (k % 10 + 1) * 100
        d = ", ".join(f"{0.11 - 0.002 * k + 0.001 * j:.3f}" for j in range(4))
        g = ", ".join(f"{0.15 - 0.002 * k:.3f}" for j in range(4))
        c = ", ".join(f"{0.05 - 0.001 * k:.3f}" for j in range(4))
        lines.append(f"(epoch: {e}, iters: {i}, time: 0.291) D: {d} | G: {g} | Cyc: {c} | ")
    run = _read(tmp_path, lines, "loss_log.txt")
    assert run.roles["loss"] == "loss_G"
    assert {"D_1", "D_4", "G_1", "G_4", "Cyc_1", "Cyc_4", "loss_D"} <= set(run.series)
    n, first, last, v0, v_last = _series(run, "loss_G")
    assert (n, first, last) == (14, 100.0, 1400.0)
    assert v0 == pytest.approx(4 * 0.15 + 4 * 0.05)
    assert v_last == pytest.approx(4 * (0.15 - 0.026) + 4 * (0.05 - 0.013))
    assert _series(run, "D_1")[3] == pytest.approx(0.11)


def test_alphazero_validation_losses_glued_to_the_next_split_word(tmp_path):
    """chinyyyyyyyy/CU_makhos2 loss_log.txt @10d504d (an AlphaZero-style learner for Thai checkers):
    "iter 17 Val Pi loss: 1.1859 Val V loss: 0.6748", then the script's later print joined its parts
    without a space: "275 Val Pi loss:0.8156650875295911Val V loss:0.6376801260880062". The value
    glued to "Val" is split from it, so every record is read as the two heads' validation losses
    (the generic "iter N ... loss: x" shape took "Val Pi loss" as a training ``loss`` and dropped the
    V loss); the only losses logged are eval losses, so their sum is judged as the loss."""
    lines = [
        f"iter {17 + k} Val Pi loss: {_falling(k, 1.19):.4f} Val V loss: {_falling(k, 0.68):.4f}" for k in range(12)
    ]
    lines.append(f"Val Pi loss:{1.28:.16f}Val V loss:{0.94:.16f}")
    lines += [f"{275 + k} Val Pi loss:{_falling(k, 0.81):.16f}Val V loss:{_falling(k, 0.64):.16f}" for k in range(11)]
    run = _read(tmp_path, lines, "loss_log.txt")
    assert run.roles["loss"] == "Val_Pi_loss+Val_V_loss"
    assert "eval_loss" not in run.roles
    assert set(run.series) >= {"Val_Pi_loss", "Val_V_loss"}
    assert "loss" not in run.series and "V_loss" not in run.series
    n, _, _, v0, v_last = _series(run, "Val_V_loss")
    assert (n, v0, v_last) == (24, _falling(0, 0.68), _falling(10, 0.64))
    assert "the only loss logged is an eval loss (sum of 2" in run.meta["role_reasons"]["loss"]


def test_a_value_glued_only_to_a_split_word_is_split_from_it():
    """The stand-downs: a number before another word, or a split word inside a name, stays as it is."""
    from trainlint.readers.console.general import read_line

    assert read_line("loss: 0.5Train acc: 0.9").values == {"loss": 0.5, "Train_acc": 0.9}
    assert list(read_line("model ResNet50Val loss: 0.3").values) == ["model_ResNet50Val_loss"]
    assert read_line("val loss:0.25Val acc:0.5").values == {"val_loss": 0.25, "Val_acc": 0.5}
    assert read_line("step 7 loss 1.5e-3Validation loss 2e-3").values == {"loss": 0.0015, "Validation_loss": 0.002}
