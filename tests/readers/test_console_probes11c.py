"""Line shapes seen in real training logs found outside the corpus (issue 29, probe round 11c:
``log/train_log.txt``, ``train.out``, ``finetune.log``, ``experiment.log``). Each fixture is made up
in the shape of the real log (repository, path and commit recorded with it; no copied lines) and
asserts the series read: names, steps, first and last values, and which is the loss."""

from __future__ import annotations

import pytest
from _consolekit import read_lines as _read
from _consolekit import series_ends as _series

from trainlint.readers.base import ReadError
from trainlint.readers.console.frames import unframe_text


def _loss(k: int, start: float = 3.5) -> float:
    return round(start * 0.95**k, 4)


def test_the_tutorial_line_after_an_arrow_separated_record_prefix(tmp_path):
    """trainma/Seq2Seq log/train_log.txt @749a0f2: a logging format of arrows,
    '%(levelname)s---->%(name)s--->%(asctime)s--->%(message)s', the logger named "train", around
    pytorch/tutorials' seq2seq line "0m 24s (5000 6%) 3.5270". The arrows frame the prefix, the
    logger's name included; what is left is the tutorial's line, read as it is without a prefix."""
    lines = [
        f"INFO---->train--->2022-03-23 10:{37 + k // 2:02d}:{k * 7 % 60:02d},456--->"
        f"{k // 2}m {k * 7 % 60}s ({5000 * (k + 1)} {round(100 * (k + 1) / 15)}%) {_loss(k):.4f}"
        for k in range(15)
    ]
    lines.append("INFO---->train--->2022-03-23 10:45:27,359--->save model success!")
    run = _read(tmp_path, lines, "train_log.txt")
    assert run.roles["loss"] == "loss"
    assert _series(run, "loss") == (15, 5000.0, 75000.0, 3.5, _loss(14))
    assert "train" not in run.series  # the logger's name and the date are no metric


def test_an_arrow_frames_only_a_prefix_that_holds_a_level():
    """The stand-downs: a message's own "name--->value" stays, as does an arrow after a level
    where a number follows it, and a line without a level keeps its words."""
    assert unframe_text("INFO--->main--->epoch 3 loss 0.2") == "epoch 3 loss 0.2"
    assert unframe_text("INFO - loss--->0.5 acc--->0.1") == "loss--->0.5 acc--->0.1"
    assert unframe_text("2024-01-01 10:00:00 - INFO - epoch -->3, loss --> 0.5") == "epoch -->3, loss --> 0.5"
    assert unframe_text("train--->2022-03-23 10:37:30,456--->x") == "train--->2022-03-23 10:37:30,456--->x"


def test_batch_index_is_the_count_that_places_a_record(tmp_path):
    """kevin00hu/GPT_2 log/train_log.txt @aaec1eb (loguru): "[0.06%] batch_index=64 loss=11.0210",
    every 64 batches, with checkpoint lines between. batch_index is the batch count, as batch_idx
    is: the steps are its values, not the records' order."""
    lines = ["2024-10-26 01:01:25.382 | INFO     | __main__:train:41 - Start training!"]
    for k in range(1, 13):
        pct = 0.06 * k
        lines.append(
            f"2024-10-26 01:{k:02d}:49.115 | INFO     | __main__:train:58 - [{pct:.2f}%] "
            f"batch_index={64 * k} loss={_loss(k, 11.0):.4f}"
        )
        if k % 5 == 0:
            lines.append(
                f"2024-10-26 01:{k:02d}:50.030 | INFO     | __main__:train:61 - [CHECKPOINT {k}] Save the model"
            )
    run = _read(tmp_path, lines, "train_log.txt")
    assert run.roles["loss"] == "loss"
    assert _series(run, "loss") == (12, 64.0, 768.0, _loss(1, 11.0), _loss(12, 11.0))
    assert "batch_index" not in run.series


def test_losses_numbered_without_a_separator_are_summed(tmp_path):
    """yipei0516/ELSA log/train_log.txt @c655508: the MNIST example's line with six numbered
    losses, "Train Epoch: 1 [1600/10000 (16%)] Loss1: 0.205 Loss2: 0.163 ... Loss6: 0.0256", then
    a block of F1 scores each epoch. Loss1 is a numbered loss as loss_1 is: no total is logged,
    so the loss is their sum, point by point (it had been read with no loss at all)."""
    lines = ["batch_size: 32", "epochs: 30"]
    for e in range(1, 4):
        for k, seen in enumerate(range(0, 10000, 1600)):
            f = 0.9 ** (7 * (e - 1) + k)
            parts = " ".join(f"Loss{i}: {round(0.5 * i * f, 3)}" for i in range(1, 7))
            lines.append(f"Train Epoch: {e} [{seen}/10000 ({seen // 100}%)] {parts}")
        lines += [f"Audio Event Detection Segment-level F1: {41.0 + 5 * e}", ">>> model saved at ./m.pt", ""]
    run = _read(tmp_path, lines, "train_log.txt")
    assert run.roles["loss"] == "Loss1+Loss2+Loss3+Loss4+Loss5+Loss6"
    n, first_step, last_step, first, last = _series(run, run.roles["loss"])
    assert (n, first_step, last_step) == (21, 0.0, 29600.0)
    assert abs(first - 10.5) < 1e-9 and abs(last - sum(round(0.5 * i * 0.9**20, 3) for i in range(1, 7))) < 1e-9


def test_a_split_word_and_its_value_in_a_piped_frame_is_that_splits_loss(tmp_path):
    """Youssef-Bahaa/Attention-Is-All-You-Need logs/train.txt @3b12141: "HH:MM:SS | " before each
    line, then "Epoch 01 | train 7.164 | val 5.535 (saved)", every fifth epoch with "| BLEU 25.84"
    after it and a block of sample translations before it. A split word alone names that split's
    loss, with a space before its value as with a colon, where a pipe frames it."""
    lines = ["09:32:51 | src vocab: 7,704 | tgt vocab: 9,597", "09:32:51 | Device: cuda"]
    for e in range(1, 13):
        tail = f" | BLEU {20 + e}" if e % 5 == 0 else ""
        if tail:
            lines += ["09:40:02 | ---- Sanity check ----", "09:40:02 |   PRED: ein mann", "09:40:02 | ------"]
        lines.append(
            f"09:{30 + e}:43 | Epoch {e:02d} | train {_loss(e, 7.2):.3f} | val {_loss(e, 5.5):.3f}{tail} (saved)"
        )
    run = _read(tmp_path, lines, "train.txt")
    assert run.roles["loss"] == "train_loss" and run.roles["eval_loss"] == "val_loss"
    assert _series(run, "train_loss") == (12, 1.0, 12.0, round(_loss(1, 7.2), 3), round(_loss(12, 7.2), 3))
    assert _series(run, "val_loss") == (12, 1.0, 12.0, round(_loss(1, 5.5), 3), round(_loss(12, 5.5), 3))


def test_a_split_word_and_a_value_without_a_pipe_stays_unnamed(tmp_path):
    """The stand-down: without a colon or a pipe before it, "train 7.16" is no loss."""
    lines = [f"Epoch {e} train {_loss(e):.3f} val {_loss(e, 3.0):.3f}" for e in range(1, 13)]
    with pytest.raises(ReadError):
        _read(tmp_path, lines, "train.txt")
