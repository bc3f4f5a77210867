"""Leftovers of round 12's probes (issue 29, probe round 13a): shapes of real logs found outside
the corpus. Each fixture is made up in the shape of the real print (repository, path and commit
recorded with it; no copied lines) and asserts the series read: names, steps, first and last
values, and which is the loss."""

from __future__ import annotations

import pytest
from _consolekit import read_lines as _read
from _consolekit import series_ends as _series

from trainlint.readers.base import ReadError


def _loss(k: int, start: float = 2.0) -> float:
    return round(start * 0.97**k, 6)


def test_a_loss_and_a_batch_index_under_each_epochs_header(tmp_path):
    """ConnrLin/RecModel train_log.txt @81fab89: ``Epoch: N``, then ``print(f"{loss}, {batch_idx}")``
    every 100 batches (``10.19, 0``, ``10.18, 100``, ...): the decimal is the loss, the count the
    batch inside the epoch, the step the epoch's and the batch's (the log was not read)."""
    lines, k = [], 0
    for epoch in range(4):
        lines.append(f"Epoch: {epoch}")
        for batch in range(0, 900, 100):
            lines.append(f"{_loss(k, 10.2)}, {batch}")
            k += 1
    run = _read(tmp_path, lines, "train_log.txt")
    assert run.format == "console/general" and run.roles["loss"] == "loss"
    assert list(run.series) == ["loss"]
    assert _series(run, "loss") == (36, 0.0, 3 * 900.0 + 800.0, _loss(0, 10.2), _loss(35, 10.2))
    assert run.series["loss"].steps[9] == 900.0  # epoch 1's batch 0


def test_a_pair_of_numbers_without_a_header_is_not_read_as_a_loss(tmp_path):
    """Only under a counter's header: lines of a decimal and a count alone are no training log."""
    lines = [f"{_loss(k)}, {100 * k}" for k in range(20)]
    with pytest.raises(ReadError):
        _read(tmp_path, lines, "train_log.txt")


def test_a_log_of_the_best_models_saves(tmp_path):
    """ashwin-p/vqvae2-mscoco2017 loss_log.txt @9331555: ``echo Saved model at epoch {epoch+1} with
    loss: {loss} >> loss_log.txt`` where the loss improved: ``loss`` at the saved epochs (it was read
    as ``with_loss`` at the lines' order), with a note that the curve can only fall."""
    epochs = [1, 1, 2, 3, 4, 5, 7, 8, 9, 11, 12, 14, 17, 18, 21]
    lines = [f"Saved model at epoch {e} with loss: {_loss(i, 1.8)}" for i, e in enumerate(epochs)]
    run = _read(tmp_path, lines, "loss_log.txt")
    assert run.format == "console/best-model-saves" and run.roles["loss"] == "loss"
    assert list(run.series) == ["loss"]
    # epoch 1 saved twice: the later save stands
    assert _series(run, "loss") == (14, 1.0, 21.0, _loss(1, 1.8), _loss(14, 1.8))
    assert any("only where the model improved" in n for n in run.notes)


def test_mxnet_speedometer_with_a_cross_entropy_metric(tmp_path):
    """MXNet's Speedometer with the classifiers' metrics (mx.metric.CrossEntropy prints as
    ``cross-entropy``), in the shape MXNet's docs and the tutorials that plot its logs show
    (e.g. find_string file 45141874981: ``Epoch[3] Batch [500]\\tSpeed: 1997.40 samples/sec\\t
    accuracy=0.013391\\ttop_k_accuracy_5=0.048828\\tcross-entropy=6.878449``; no real log found):
    read by the MXNet shape, the cross-entropy the loss, ``Validation-cross-entropy`` the eval loss
    (the general reader had named a series ``samples/sec_accuracy``)."""
    lines, k = ["INFO:root:Start training with [gpu(0)]"], 0
    for epoch in range(3):
        for batch in range(100, 600, 100):
            lines.append(
                f"INFO:root:Epoch[{epoch}] Batch [{batch}]\tSpeed: 880.59 samples/sec\taccuracy=0.{10 + k}"
                f"\ttop_k_accuracy_5=0.{30 + k}\tcross-entropy={_loss(k, 7.0)}"
            )
            k += 1
        lines += [
            f"INFO:root:Epoch[{epoch}] Resetting Data Iterator",
            f"INFO:root:Epoch[{epoch}] Time cost=728.322",
            f"INFO:root:Epoch[{epoch}] Validation-accuracy=0.{20 + epoch}",
            f"INFO:root:Epoch[{epoch}] Validation-cross-entropy={_loss(epoch, 6.5)}",
        ]
    run = _read(tmp_path, lines)
    assert run.format == "console/mxnet"
    assert run.roles["loss"] == "loss" and run.roles["eval_loss"] == "val_loss"
    assert "samples/sec_accuracy" not in run.series
    assert _series(run, "loss")[0] == 15 and _series(run, "loss")[3:] == (_loss(0, 7.0), _loss(14, 7.0))
    assert _series(run, "accuracy")[3:] == (0.1, 0.24)
    assert _series(run, "val_loss")[0] == 3


def test_saves_among_training_lines_leave_the_training_lines_the_loss(tmp_path):
    """A console log that prints its epochs' losses and, where the model improved, a save line:
    the save reader stays out (which loss the generic epoch shape then takes is another matter)."""
    lines = []
    for e in range(1, 13):
        lines.append(f"Epoch {e}/12 train_loss: {_loss(e):.4f} val_loss: {_loss(e, 2.5):.4f}")
        lines.append(f"Saved model at epoch {e} with loss: {_loss(e, 2.5):.4f}")
    run = _read(tmp_path, lines)
    assert run.format != "console/best-model-saves"
    assert _series(run, "train_loss")[3:] == (round(_loss(1), 4), round(_loss(12), 4))
