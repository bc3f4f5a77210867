"""Kinds a blind sample of outside logs (probe round 31c: the repositories find_files lists for
``logs/training.log``, walked in order, labelled before trainlint read them) found read wrong: a
batch line with a count out of a total and no epoch (``  Batch 10/215 | Loss: 2.27``) under an
epoch-only header (``Epoch 2: Freezing ResNet18 backbones...``) had not taken the header's epoch, so
the epoch's closing ``Epoch 2/5 | Loss: .. | Accuracy: ..`` line read as one more training point and
the steps came from the order of the records. Each fixture is made up in the shape of the real file
(repository, path and commit recorded with it; no copied lines) and asserts the series read: names,
steps, first and last values, and which is the loss."""

from __future__ import annotations

from _consolekit import read_lines as _read
from _consolekit import series_ends as _series

EPOCHS = 4
TOTAL = 120
EVERY = 20


def _batch_loss(epoch: int, i: int) -> float:
    """The batch loss at count ``i`` of ``epoch`` (from 1): falling from about 3."""
    return round(3.0 / (1.0 + 0.004 * ((epoch - 1) * TOTAL + i)), 4)


def _deepfake_log() -> list[str]:
    """Abhijith-Reddy-ch/MultiModal-Temporal-Deepfake-Detection logs/training.log
    @94701b66d1b99a225042bed669a98040096f790a (plain prints): an epoch's header saying what is frozen,
    the batch loss every few batches as ``  Batch i/N | Loss: x``, then the epoch's mean loss and
    accuracy as ``Epoch e/E | Loss: x | Accuracy: a`` and a checkpoint line; runtime warnings between."""
    lines = ["Using device: cuda", "Starting Training..."]
    for e in range(1, EPOCHS + 1):
        lines.append(f"Epoch {e}: {'Freezing' if e < 3 else 'Unfreezing'} the image backbone...")
        lines.append("W0000 00:00:1700000000.123456    4242 some_graph.cc:99] Using the default delegate.")
        for i in range(EVERY, TOTAL, EVERY):
            lines.append(f"  Batch {i}/{TOTAL} | Loss: {_batch_loss(e, i):.4f}")
        lines.append(f"Epoch {e}/{EPOCHS} | Loss: {_batch_loss(e, TOTAL // 2):.4f} | Accuracy: {0.7 + e / 50:.4f}")
        lines.append(f"Saved checkpoint: models/checkpoint_epoch{e}.pth")
    return lines


def test_a_batch_count_under_an_epoch_header_is_counted_in_that_epoch(tmp_path):
    run = _read(tmp_path, _deepfake_log(), "training.log")
    assert run.format == "console/general" and run.roles["loss"] == "Loss"
    per = TOTAL // EVERY - 1
    last = (EPOCHS - 1) * TOTAL + TOTAL - EVERY
    first_value, last_value = _batch_loss(1, EVERY), _batch_loss(EPOCHS, TOTAL - EVERY)
    assert _series(run, "Loss") == (EPOCHS * per, float(EVERY), float(last), first_value, last_value)
    assert "summary_Loss" in run.series and len(run.series["summary_Loss"].values) == EPOCHS
