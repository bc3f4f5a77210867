"""Kinds a blind sample of outside logs (probe round 27c, sequence models: the first repositories
find_files lists for ``lstm.log``, then ``transformer.log``, then ``bert.log``, labelled before
trainlint read them) found read wrong: the TensorFlow transformer tutorial's loop on an epoch
shorter than its printing interval (one ``Epoch 3 Batch 0 Loss ..`` line an epoch, then the
epoch's ``Epoch 3 Loss ..`` summary, the last summary printed twice) read as one series of both
lines at the steps of their order; and a Keras-style bar (``[Training] 1/10 [==>...] - ETA: ..
loss: ..``) printed on the line right after a block of settings (``Num examples = 618`` ..
``Total optimization steps = 1000``) joined that block as one more of its values, so the run's
first loss read as an evaluation. Each fixture is made up in the shape of the real file
(repository, path and commit recorded with it; no copied lines) and asserts the series read:
names, steps, first and last values, and which is the loss."""

from __future__ import annotations

from _consolekit import read_lines as _read
from _consolekit import series_ends as _series

from trainlint.readers.console.handwritten import unboxed

EPOCHS = 30
BATCHES = 10
EVALS = 4


def _epoch_loss(e: int) -> float:
    """The epoch's mean loss: from about 2.1 down."""
    return round(0.3 + 1.8 / (1.0 + 0.2 * e), 4)


def _tf_tutorial_log() -> list[str]:
    """Gregorgeous/ula-transformer-tensorflow2.0 transformer.log @47ec055f9e82d23da7d54fd2540537883f8f86f3
    (the TF 2.0 transformer tutorial's loop under a launcher that puts ``0: `` before each line):
    ``Epoch E Batch 0 Loss x Accuracy y`` (the epoch holds fewer batches than the print interval),
    ``Epoch E Loss x Accuracy y``, ``Time taken for 1 epoch: S secs`` and an empty line; a checkpoint
    line every fifth epoch; after the loop the last epoch's summary printed once more."""
    lines = ["0: ===== START OF THE TRAINING =====", "0: Number of batches per epoch: 7"]
    for e in range(1, EPOCHS + 1):
        acc = f"{0.01 * e:.4f}"
        lines.append(f"0: Epoch {e} Batch 0 Loss {_epoch_loss(e) + 0.06:.4f} Accuracy {acc}")
        if e % 5 == 0:
            lines.append(f"0: Saving checkpoint for epoch {e} at ./checkpoints/train/ckpt-{e // 5}")
        lines += [
            f"0: Epoch {e} Loss {_epoch_loss(e):.4f} Accuracy {acc}",
            f"0: Time taken for 1 epoch: {30.1 + e % 3} secs",
            "0: ",
        ]
    lines += [f"0: Epoch {EPOCHS} Loss {_epoch_loss(EPOCHS):.4f} Accuracy {0.01 * EPOCHS:.4f}", "0: Input: a sentence"]
    return lines


def test_one_batch_line_an_epoch_beside_its_summary(tmp_path):
    run = _read(tmp_path, _tf_tutorial_log(), "transformer.log")
    assert run.format == "console/general"
    assert run.roles["loss"] == "Loss"
    first, last = round(_epoch_loss(1) + 0.06, 4), round(_epoch_loss(EPOCHS) + 0.06, 4)
    assert _series(run, "Loss") == (EPOCHS, 0.0, float(EPOCHS - 1), first, last)
    summary = run.series["summary_Loss"].values
    assert summary[0] == _epoch_loss(1) and summary[-1] == _epoch_loss(EPOCHS)


def _bar_loss(k: int) -> float:
    """The loss of training batch ``k`` (from 1)."""
    return round(1.95 - 0.02 * k + 0.01 * (k % 3), 4)


def _bar(i: int, k: int) -> str:
    done = 3 * i
    return f"\r[Training] {i}/{BATCHES} [{'=' * (done - 1)}>{'.' * (30 - done)}] - ETA: {BATCHES - i}s  loss: {_bar_loss(k):.4f} "


def _bert_cls_log() -> list[str]:
    """Yanghello/TCM_UC lstm.log @99dfa05e82134ba0ebe44c29b98505e74da6d2f6 (and its bert.log
    @cd22dfa5cfee612b7c9f16011d7c7f090d855917; lonePatient's text-classification runner): the
    settings one a line under ``***** Running training *****``, then a Keras-style bar per batch
    redrawn after a carriage return (no newline between them), the first one followed on its line
    by a warning the scheduler wrote to stderr (its source line on the next line), an evaluation
    every ten batches whose last bar is followed by ``Iter: N,  Train Loss: .., Val Loss: ..``."""
    head = "03/10/2024 23:06:45 - INFO - root -   "
    lines = [f"{head}Writing example 0 of 155", f"{head}***** Running training *****"]
    settings = (("Num examples", 618), ("Num Epochs", 4), ("Total optimization steps", 40))
    lines += [f"{head}  {k} = {v}" for k, v in settings]
    for ev in range(1, EVALS + 1):
        bars = [_bar(i, (ev - 1) * BATCHES + i) for i in range(1, BATCHES + 1)]
        if ev == 1:
            warn = "/opt/conda/lib/python3.7/site-packages/torch/optim/lr_scheduler.py:82: UserWarning: step order"
            lines += [bars[0] + warn, '  "https://example.org/optim.html", UserWarning)', "".join(bars[1:])]
        else:
            lines.append("".join(bars))
        lines += [f"{head}***** Running evaluation *****", f"{head}  Num examples = 155"]
        evaluating = f"\r[Evaluating] 1/3 [{'=' * 9}>{'.' * 20}] - ETA: 3s\r[Evaluating] 3/3 [{'=' * 30}]"
        train, val = f"{1.8 - 0.2 * ev:5.2g}", f"{1.7 + 0.3 * ev:5.2g}"
        lines.append(
            f"{evaluating} 1.5s/stepIter: {10 * ev:6d},  Train Loss: {train},  Val Loss: {val},  Val Acc: 35.1%"
        )
    return lines


def test_a_keras_style_bar_is_no_line_of_the_settings_block_before_it(tmp_path):
    run = _read(tmp_path, _bert_cls_log(), "lstm.log")
    assert run.format == "console/general"
    assert run.roles["loss"] == "loss" and run.roles["eval_loss"] == "Val_Loss"
    n = EVALS * BATCHES
    assert _series(run, "loss") == (n, 1.0, float(n), _bar_loss(1), _bar_loss(n))
    assert _series(run, "Val_Loss") == (EVALS, 10.0, float(n), 2.0, 2.9)


def _table_loss(e: int) -> float:
    return round(0.49 - 0.0008 * e, 4)


def _bar_parted_table_log() -> list[str]:
    """ky537465/Cost-Aware-Prediction lstm.log @2630a65d7d7f0f18d0104a155eccff0930f9c9a9 (seen beside
    the sample, past its cap of four ``lstm.log`` files): the script's own table through a logger,
    ``Epoch | Loss | Acc | ..`` with its names padded to a column and parted by bars between them
    only, a rule of dashes, then a row an epoch, ``1        | 0.4829  | 77.68%  | ..``."""
    frame = "2026-04-07 22:55:52,418 - INFO - "
    names = ["Epoch", "Loss", "Acc", "Prec", "FPR", "FNR"]
    lines = [frame + " | ".join(f"{n:<8}" for n in names), frame + "-" * 60]
    for e in range(1, EPOCHS + 1):
        cells = [str(e), f"{_table_loss(e):.4f}", f"{77.5 + 0.1 * e:.2f}%", "0.59", "0.01", f"{0.98 - 0.001 * e:.2f}"]
        lines.append(frame + " | ".join(f"{c:<8}" for c in cells))
    return lines


def test_columns_parted_by_inner_bars_are_a_table(tmp_path):
    run = _read(tmp_path, _bar_parted_table_log(), "lstm.log")
    assert run.format == "console/column-table"
    assert run.roles["loss"] == "Loss"
    assert _series(run, "Loss") == (EPOCHS, 1.0, float(EPOCHS), _table_loss(1), _table_loss(EPOCHS))
    assert _series(run, "Acc")[3:] == (77.6, 80.5)


def test_only_single_word_cells_between_inner_bars_are_a_tables_line():
    assert unboxed("Epoch    | Loss    | Acc     ") == "Epoch  Loss  Acc"
    for text in ("Epoch 1 | loss 0.5 | acc 0.9", " 45%|####      | 9/20 [00:01<00:02]", "a | b"):
        assert unboxed(text) == text
