"""Kinds a blind sample of outside logs (probe round 24c: repositories 40 on of those find_files lists
for ``nohup.out``, then ``logs/train_log.txt``, labelled before trainlint read them) found read wrong
or judged wrong: a record printed whole inside brackets (``[ (0 ) Loss: .., valid_Loss: ..]``) had
its brackets taken for a logger's tag and dropped with everything in them, so the log read nothing;
a progressive GAN's ``[scale :   iter]`` lead was dropped the same way, so its steps were the order
of the lines; and a DQN's loss printed as 0 for its first episodes (before the first update) was
flagged as masked batches. Each fixture is made up in the shape of the real file (repository, path
and commit recorded with it; no copied lines) and asserts the series read: names, steps, first and
last values, and which is the loss."""

from __future__ import annotations

from _consolekit import read_lines as _read
from _consolekit import series_ends as _series

from trainlint.api import judge

EPOCHS = 14


def _malconv_log() -> list[str]:
    """0x13enny/MalConv nohup.out @dff1ffffe581615e391657d42244be159513a8c4: an argparse Namespace,
    then per epoch a confusion-count line and the epoch's record printed whole in square brackets,
    the epoch in parentheses first (``[ (k ) Loss: x, train_Acc: y, valid_Loss: z, valid_Acc: w]``)."""
    lines = ["Namespace(batch_size=64, lr=0.001, max_epoch=50, optimizer='sgd', seed=7)"]
    for k in range(EPOCHS):
        lines.append(f"TP:{900 + k}, TN:{80 + k}, FP:{30 - k}, FN:{20 - k}")
        lines.append(
            f"[ ({k} ) Loss:  {0.700 - 0.02 * k:.3f}, train_Acc: {0.80 + 0.01 * k:.5f}, "
            f"valid_Loss: {0.720 - 0.015 * k:.3f}, valid_Acc: {0.79 + 0.01 * k:.5f}]"
        )
    return lines


def test_a_record_printed_whole_in_brackets_is_read(tmp_path):
    run = _read(tmp_path, _malconv_log(), "nohup.out")
    assert run.format == "console/general"
    assert run.roles["loss"] == "Loss" and run.roles["eval_loss"] == "valid_Loss"
    assert _series(run, "Loss") == (EPOCHS, 1.0, float(EPOCHS), 0.7, round(0.700 - 0.02 * (EPOCHS - 1), 3))
    assert _series(run, "valid_Loss")[0] == EPOCHS
    # a logger's tag before the record still goes, the record after it read
    tagged = _read(tmp_path, [f"[trainer] step {i} loss: {1.0 / i:.4f}" for i in range(1, 13)], "tagged.log")
    assert tagged.roles["loss"] == "loss"
    assert _series(tagged, "loss") == (12, 1.0, 12.0, 1.0, round(1.0 / 12, 4))


SCALE_STEPS = 40


def _gan_loss(i: int) -> tuple[float, float]:
    """(generator, critic) loss after ``i`` hundred iterations: the critic from a huge start down to ~1."""
    return round(3.0 + 500.0 / i, 3), round(1.0 + 90000.0 / i**2, 3)


def _pgan_log() -> list[str]:
    """AIforMS/PGAN-Paddle logs/train_log.txt @01a77577e40b469c4090daf6c3247133a0e0b688 (a port of
    pytorch_GAN_zoo's progressive GAN): a few set-up lines, then every hundred iterations
    ``[scale : iter] loss G : g loss D : d`` with the iteration right-aligned after the colon."""
    lines = ["Running PGAN", "size 10", "1000 images found", "size (4, 4)", "Changing alpha to 0.000"]
    for i in range(1, SCALE_STEPS + 1):
        g, d = _gan_loss(i)
        lines.append(f"[0 : {100 * i:6d}] loss G : {g:.3f} loss D : {d:.3f}")
    return lines


def test_a_spaced_scale_and_iteration_lead_is_the_step(tmp_path):
    run = _read(tmp_path, _pgan_log(), "train_log.txt")
    assert run.format == "console/general" and run.roles["loss"] == "loss_G"
    first, last = _gan_loss(1), _gan_loss(SCALE_STEPS)
    assert _series(run, "loss_G") == (SCALE_STEPS, 100.0, 100.0 * SCALE_STEPS, first[0], last[0])
    assert _series(run, "loss_D") == (SCALE_STEPS, 100.0, 100.0 * SCALE_STEPS, first[1], last[1])
    # a clock in brackets (no space at its colon) is still a frame, no step
    clocked = _read(tmp_path, [f"[12:{10 + i}] loss: {2.0 / i:.4f}" for i in range(1, 13)], "clocked.log")
    assert clocked.roles["loss"] == "loss"
    assert _series(clocked, "loss")[:3] == (12, 1.0, 12.0)


EPISODES = 60
WARMUP = 3


def _dqn_log() -> list[str]:
    """ChengxianWu/AI-DQN-CartPole-Lab logs/train_log.txt @4ffb5b60dcfa3a4cb4a1b2e1a1701327cf41cd10:
    ``Episode 001/400 | Reward: r | Epsilon: e | Loss: l`` a line; the loss printed as 0 for the first
    episodes (the replay buffer filling, no update yet), then a TD loss around a few tenths."""
    lines = ["Using device: cpu"]
    for k in range(1, EPISODES + 1):
        loss = 0.0 if k <= WARMUP else 0.1 + 0.05 * (k % 7)
        lines.append(f"Episode {k:03d}/400 | Reward: {10.0 + k:.1f} | Epsilon: {0.995**k:.4f} | Loss: {loss:.6f}")
    return lines


def test_a_dqn_loss_at_zero_before_its_first_update_is_no_masked_batch(tmp_path):
    run = _read(tmp_path, _dqn_log(), "train_log.txt")
    assert run.roles["loss"] == "Loss"
    assert _series(run, "Loss") == (EPISODES, 1.0, float(EPISODES), 0.0, round(0.1 + 0.05 * (EPISODES % 7), 6))
    assert "TL005" not in {f.code for f in judge(run).findings}
