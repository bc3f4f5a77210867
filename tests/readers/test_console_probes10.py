"""Line shapes seen in real training logs outside the corpus (probe 10a), written anew here in
the same shape: where each was seen is said in a comment."""

from __future__ import annotations

import pytest
from _consolekit import read_lines, series_ends


def _paddle_fit(epochs: int = 3, steps: int = 40, evals: bool = True) -> list[str]:
    lines = ["The loss value printed in the log is the current step, and the metric is the average value"]
    for e in range(1, epochs + 1):
        lines.append(f"Epoch {e}/{epochs}")
        for i in range(10, steps + 1, 10):
            loss = 1.0 / (e * steps + i)
            lines.append(f"step {i:3d}/{steps} - loss: {loss:.4f} - acc: {0.5 + e / 10:.4f} - 52ms/step")
        if evals:
            lines += ["save checkpoint at /tmp/save/0", "Eval begin..."]
            lines += [f"step {i}/20 - loss: {0.1 * i / 10:.4f} - acc: {0.6:.4f} - 20ms/step" for i in (10, 20)]
            lines.append("Eval samples: 640")
    return lines


def test_paddle_model_fit_progress_and_its_evaluations(tmp_path):
    # paddle.Model.fit's ProgBarLogger (verbose=2): seen in jm12138/Paddle-CheXNet logs/train.log
    # @ 8331fc886324ef70c6b3a80573ee1d38ad5097d9; the step counts again each epoch and in each evaluation
    run = read_lines(tmp_path, _paddle_fit())
    assert run.format == "console/paddle-hapi"
    assert run.roles["loss"] == "loss" and run.roles["eval_loss"] == "eval_loss"
    n, first, last, v0, v1 = series_ends(run, "loss")
    assert (n, first, last) == (12, 10.0, 120.0)
    assert v0 == pytest.approx(1 / 50, abs=1e-4) and v1 == pytest.approx(1 / 160, abs=1e-4)
    n, first, last, v0, v1 = series_ends(run, "eval_loss")
    assert (n, first, last) == (3, 40.0, 120.0)
    assert v0 == pytest.approx(0.15)  # the mean of the batch losses printed, not the last batch's
    assert series_ends(run, "eval_acc")[3] == pytest.approx(0.6)


def test_paddle_model_fit_without_evaluation(tmp_path):
    run = read_lines(tmp_path, _paddle_fit(evals=False))
    assert run.format == "console/paddle-hapi"
    assert series_ends(run, "loss")[:3] == (12, 10.0, 120.0)
    assert "eval_loss" not in run.roles


def test_a_split_word_before_the_step_counter_marks_evaluation_lines(tmp_path):
    # PaddleVideo's epoch lines: seen in justld/3D-ResNets_paddle log/train.log
    # @ f5dad6b3d35717bd2595b28cecd0eb6a40fc4a20; "val step:0" lines are the validation's
    lines = []
    for e in range(1, 11):
        for i in (0, 100):
            lines.append(
                f"[12/25 14:22:40] epoch:[{e:3d}/10 ] train step:{i:<4d} loss: {3.0 / (e + i / 100):.5f} "
                "lr: 0.010000 top1: 0.50000 top5: 0.90000 batch_cost: 1.94236 sec, reader_cost: 1.53779 sec, "
                "ips: 32.94963 instance/sec."
            )
        lines.append(f"[12/25 14:25:53] END epoch:{e:<3d} train loss_avg: {2.5 / e:.5f}  top1_avg: 0.50000")
        lines.append(
            f"[12/25 14:25:58] epoch:[{e:3d}/10 ] val step:0    loss: {9.0 - e / 10:.5f} top1: 0.12500 "
            "top5: 0.48438 batch_cost: 4.21128 sec, reader_cost: 0.00000 sec, ips: 15.19727 instance/sec."
        )
        lines.append(f"[12/25 14:26:01] END epoch:{e:<3d} val loss_avg: {3.6 - e / 10:.5f} top1_avg: 0.14896")
    run = read_lines(tmp_path, lines)
    assert run.format == "console/general"
    assert run.roles["loss"] == "loss"
    n, first, last, v0, v1 = series_ends(run, "loss")
    assert (n, first, last) == (20, 0.0, 1900.0)
    assert v0 == pytest.approx(3.0) and v1 == pytest.approx(3.0 / 11, abs=1e-5)
    assert max(run.series["loss"].values) < 9.0 - 1.0  # the validation's loss is no training point
    # "val step:0" counts the validation's batches: its progress; the summary after it is the eval loss
    assert run.roles["eval_loss"] == "val_loss_avg" and "val_loss" not in run.series
    n, first, last, v0, v1 = series_ends(run, "val_loss_avg")
    assert (n, first, last, v0) == (10, 100.0, 1900.0, 3.5) and v1 == pytest.approx(2.6)


def test_an_evaluation_announced_on_its_own_line_is_not_a_training_point(tmp_path):
    # a hand-written Paddle loop: seen in AIHHU/PaddleCIFAR10 training_log.txt
    # @ 1bfca6a22bd4faa68400efb4220ffd05a0601d41: the test pass prints "testing in eval mode……",
    # then its values in the training lines' shape
    lines = []
    for e in range(12):
        lines.append(f"epoch: {e},  loss is: {1.0 / (e + 1)!r}, acc is: {0.5 + e / 30!r}")
        lines.append("testing in eval mode……")
        lines.append(f"epoch: {e},  loss is: {2.0 - e / 20!r}, acc is: {0.4 + e / 40!r}")
        lines.append("Now continue training……")
    run = read_lines(tmp_path, lines)
    assert run.roles["loss"] == "loss_is" and run.roles["eval_loss"] == "test_loss_is"
    n, first, last, v0, v1 = series_ends(run, "loss_is")
    assert (n, first, last, v0) == (12, 0.0, 11.0, 1.0) and v1 == pytest.approx(1 / 12)
    n, first, last, v0, v1 = series_ends(run, "test_loss_is")
    assert (n, v0, v1) == (12, 2.0, pytest.approx(2.0 - 11 / 20))


def test_paddle_model_fit_verbose_1_redraws_one_line_an_epoch(tmp_path):
    # verbose=1: the bar is redrawn with carriage returns, each redraw one step's values
    lines = []
    for e in (1, 2):
        lines.append(f"Epoch {e}/2")
        bar = (
            f"step {i}/20 [{'=' * i}>] - loss: {1 / (20 * e + i):.4f} - ETA: 0:0{i % 10} - 52ms/step"
            for i in range(1, 21)
        )
        lines.append("\r".join(bar))
    run = read_lines(tmp_path, lines)
    assert run.format == "console/paddle-hapi"
    n, first, last, v0, v1 = series_ends(run, "loss")
    assert (n, first, last) == (40, 1.0, 40.0)
    assert v0 == pytest.approx(1 / 21, abs=1e-4) and v1 == pytest.approx(1 / 60, abs=1e-4)
