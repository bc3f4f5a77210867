"""Kinds a blind sample of outside logs (probe round 32e: log-like files naming a loss ten times or
more, found by a scan of repositories 30 on of those find_files lists for ``training.log``;
``training.log`` and ``training_console.log`` of Akash05-kr/skin_lesion_classifier and a
``training.log`` of Aman2125/Rooftop-Image-segmentation, labelled before trainlint read them)
found read wrong: a ``[Checkpoint] Saved → best.pth  (epoch=N, val_acc=..)`` / ``Loaded ← best.pth
(epoch=N, val_loss=..)`` line had read as an evaluation, its ``val_loss`` (three points) taken as the
eval loss over the ``ValLoss`` of every epoch line; and a tqdm bar described ``Epoch 001 [Val]``
had read as training, its batches' losses merged into the training loss. Each fixture is made up
in the shape of the real file (repository, path and commit recorded with it; no copied lines) and
asserts the series read: names, steps, first and last values, and which is the loss."""

from __future__ import annotations

from _consolekit import read_lines as _read
from _consolekit import series_ends as _series

EPOCHS = 8
CKPT = r"D:\runs\lesions\models\net_best_model.pth"


def _train(e: int) -> float:
    """The epoch's training loss: from 2.0 down to about 0.9."""
    return round(0.9 + 1.1 * 0.7 ** (e - 1), 4)


def _val(e: int) -> float:
    """The epoch's validation loss: down to its best at epoch 5, then up (overfitting)."""
    return round(1.1 + 0.04 * (e - 5) ** 2, 4)


def _stamp(e: int) -> str:
    return f"2025-03-0{1 + e // 6} {10 + e % 6:02d}:15:00 | INFO | "


def _checkpoint_log() -> list[str]:
    """Akash05-kr/skin_lesion_classifier training.log @12b39e117f90d9b2bf1c3cfb8cd01c2a0043be6d
    (a logging ``date | LEVEL |`` frame): an ``Epoch [NNN/E] TrainLoss=.. TrainAcc=..% | ValLoss=..
    ValAcc=..% | LR=.. | Time=..s`` line per epoch, a ``[Checkpoint] Saved → <path>.pth  (epoch=N,
    val_acc=..)`` line after each new best, and ``[Checkpoint] Loaded ← <path>.pth  (epoch=N,
    val_loss=..)`` at the end, once per evaluated split and once more for a report."""
    lines = [_stamp(0) + "[Training] Starting — 8 epochs max"]
    best = 9.0
    for e in range(1, EPOCHS + 1):
        lines.append(
            _stamp(e) + f"Epoch [{e:03d}/{EPOCHS}] TrainLoss={_train(e):.4f} TrainAcc={50 + 3 * e:.2f}% | "
            f"ValLoss={_val(e):.4f} ValAcc={55 + e:.2f}% | LR=2.00e-04 | Time={300 + e:.1f}s"
        )
        if _val(e) < best:
            best = _val(e)
            lines.append(_stamp(e) + f"[Checkpoint] Saved → {CKPT}  (epoch={e}, val_acc={55 + e:.4f})")
    for split in ("val", "test", "report"):
        lines.append(_stamp(EPOCHS) + f"[Checkpoint] Loaded ← {CKPT}  (epoch=5, val_loss={best:.4f})")
        lines.append(_stamp(EPOCHS) + f"[Evaluate] Running inference on {split} set...")
    return lines


def test_a_checkpoint_saved_or_loaded_is_no_evaluation(tmp_path):
    run = _read(tmp_path, _checkpoint_log(), "training.log")
    assert run.roles["loss"] == "TrainLoss" and run.roles["eval_loss"] == "ValLoss"
    assert _series(run, "TrainLoss") == (EPOCHS, 1.0, float(EPOCHS), _train(1), _train(EPOCHS))
    assert _series(run, "ValLoss") == (EPOCHS, 1.0, float(EPOCHS), _val(1), _val(EPOCHS))
    assert "val_loss" not in run.series and "val_acc" not in run.series


TRAIN_BATCHES = 12
VAL_BATCHES = 4


def _batch(e: int, i: int) -> float:
    """A training batch's loss: from about 2.4 falling, a little noise."""
    k = (e - 1) * TRAIN_BATCHES + i
    return round(0.6 + 1.8 * 0.97**k + 0.05 * (k % 3), 4)


def _val_batch(e: int, i: int) -> float:
    return round(1.3 + 0.02 * e + 0.03 * i, 4)


def _bar(desc: str, i: int, total: int, post: str) -> str:
    pct = 100 * i // total
    return f"  {desc}: {pct:3d}%|#         | {i}/{total} [00:{i:02d}<00:30,  3.10s/it{post}]"


def _epoch_bars(e: int, cut: int = TRAIN_BATCHES) -> list[str]:
    """One epoch's training bar (cut after ``cut`` batches: the run stopped there) and, where it ran
    to its end, the validation bar after it, each bar's renders joined by ``\\r``."""
    renders = [_bar(f"Epoch {e:03d} [Train]", 0, TRAIN_BATCHES, "")]
    for i in range(1, cut + 1):
        renders.append(_bar(f"Epoch {e:03d} [Train]", i, TRAIN_BATCHES, f", acc={40 + i}.50%, loss={_batch(e, i)}"))
    if cut < TRAIN_BATCHES:
        return ["\r".join(renders)]
    val = [_bar(f"Epoch {e:03d} [Val]  ", 0, VAL_BATCHES, "")]
    for i in range(1, VAL_BATCHES + 1):
        val.append(_bar(f"Epoch {e:03d} [Val]  ", i, VAL_BATCHES, f", acc={60 + i}.25%, loss={_val_batch(e, i)}"))
    return ["\r".join(renders), "\r".join(val)]


def _console_log() -> list[str]:
    """Akash05-kr/skin_lesion_classifier training_console.log @12b39e117f90d9b2bf1c3cfb8cd01c2a0043be6d
    (the same run's console, tqdm's renders joined by ``\\r``): per epoch a bar described
    ``Epoch NNN [Train]`` over the training batches with ``acc=..%, loss=..`` in its postfix, then a
    bar described ``Epoch NNN [Val]  `` over the validation batches with the same postfix; the run
    stopped inside an epoch's training bar and resumed from a checkpoint into the same log (so the
    bars' totals do not alternate cleanly: only the description tells the validation bars)."""
    lines = ["Starting training: 4 epochs"]
    for e in (1, 2):
        lines += _epoch_bars(e)
    lines += _epoch_bars(3, cut=5)
    lines.append("Resuming from epoch 3")
    for e in (3, 4):
        lines += _epoch_bars(e)
    return lines


def test_a_bar_described_val_in_brackets_evaluates(tmp_path):
    run = _read(tmp_path, _console_log(), "training_console.log")
    assert run.format == "console/tqdm-postfix"
    assert run.roles["loss"] == "loss" and run.roles["eval_loss"] == "val_loss"
    # 12 + 12 + 5 (cut) + 12 + 12 batches; the cut bar's total counts on, as a new bar after it does
    last = 5 * TRAIN_BATCHES
    assert _series(run, "loss") == (4 * TRAIN_BATCHES + 5, 1.0, float(last), _batch(1, 1), _batch(4, TRAIN_BATCHES))
    # each validation bar at the training step it ran after: its last render's loss
    assert _series(run, "val_loss") == (4, float(TRAIN_BATCHES), float(last), _val_batch(1, 4), _val_batch(4, 4))
