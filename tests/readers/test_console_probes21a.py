"""Kinds a blind sample of outside logs (probe round 21a: the first repositories find_files lists for
``log/train.txt``, ``exp/train.log`` and ``output.txt``, labelled before trainlint read them) found read
wrong: a logging prefix whose logger is named by a split word (``train [line:140] INFO``) had kept the
word, so the ``Valid Epoch`` lines after it were read as training records and their LOSS mixed into
the training loss. Each fixture is made up in the shape of the real file (repository, path and commit
recorded with it; no copied lines) and asserts the series read: names, steps, first and last values,
and which is the loss."""

from __future__ import annotations

from _consolekit import series_ends as _series

from trainlint.api import read_run
from trainlint.readers.console.frames import unframe_text

EPOCHS = 12
PREFIX = "[2020-04-03 17:{m:02d}:19]: train [line:{n}] INFO  "


def _train(e: int) -> float:
    return round(0.47 - 0.012 * e, 3)


def _valid(e: int) -> float:
    return round(0.35 - 0.002 * e, 3)


def _dga_log() -> list[str]:
    """skydownacai/DGA-Domain-Detection log/train.txt @6af5daff: a logging format of ``[%(asctime)s]:
    %(name)s [line:%(lineno)d] %(levelname)s  %(message)s`` whose logger is named ``train``; each epoch a
    ``Train Epoch: e (learing rate : ..)| LOSS: .. | F1: ..`` line and a ``Valid Epoch: e | LOSS: ..``
    line. The two had made one LOSS stream (train and validation values interleaved) taken as the
    training loss."""
    lines = [PREFIX.format(m=0, n=45) + "__________________start_training___________________"]
    for e in range(EPOCHS):
        lines.append(
            PREFIX.format(m=e, n=107)
            + f"Train Epoch:  {e}  (learing rate : 0.0001 )| LOSS: {_train(e):.3f} | F1: 0.{50 + e} | ACC: 0.990"
        )
        lines.append(
            PREFIX.format(m=e, n=140) + f"Valid Epoch:  {e} | LOSS: {_valid(e):.3f} | F1: 0.{60 + e} | ACC: 0.991"
        )
    return lines


def test_a_logger_named_train_before_its_place_and_level_is_a_prefix():
    line = PREFIX.format(m=1, n=140) + "Valid Epoch:  0 | LOSS: 0.344 | F1: 0.634"
    assert unframe_text(line) == "Valid Epoch:  0 | LOSS: 0.344 | F1: 0.634"
    other = "[2020-04-03 17:37:19]: dga.trainer [line:12] WARNING  Train Epoch: 1 | LOSS: 0.3"
    assert unframe_text(other) == "Train Epoch: 1 | LOSS: 0.3"
    assert unframe_text("train [line:140] Valid Epoch: 0 | LOSS: 0.3") == "train [line:140] Valid Epoch: 0 | LOSS: 0.3"


def test_valid_epoch_lines_behind_a_train_logger_are_evaluation(tmp_path):
    path = tmp_path / "train.txt"
    path.write_text("\n".join(_dga_log()) + "\n")
    run = read_run(path)
    assert run.roles["loss"] == "LOSS"
    assert run.roles["eval_loss"] == "Valid_LOSS"
    n, _, _, first, last = _series(run, "LOSS")
    assert (n, first, last) == (EPOCHS, _train(0), _train(EPOCHS - 1))
    n, _, _, first, last = _series(run, "Valid_LOSS")
    assert (n, first, last) == (EPOCHS, _valid(0), _valid(EPOCHS - 1))


def _voxelnet_log(split: str = "train") -> list[str]:
    """bw4sz/voxelnet log/train.txt @f2336051 (and HaoWu555/voxelnet @1d1b585d): voxelnet's
    ``{split}: {counter} @ epoch:{e}/{E} loss: .. reg_loss: .. cls_loss: .. forward time: ..`` a
    batch; a launch that stopped after two batches, then one that ran twelve. The counter after the
    split word had been read as a metric named ``train`` (1, 2, 1, 2, ...) and the steps taken from
    the order of the lines."""
    lines = []
    for launch in (2, 12):
        for i in range(1, launch + 1):
            loss = round(30.0 / i + 0.5 * (launch == 2), 4)
            lines.append(
                f"{split}: {i} @ epoch:0/160 loss: {loss:.4f} reg_loss: {loss / 3:.4f} "
                f"cls_loss: {2 * loss / 3:.4f} forward time: 12.9629 batch time: 14.0011 "
            )
    return lines


def test_the_count_after_the_split_word_and_before_its_at_sign_is_the_step(tmp_path):
    path = tmp_path / "train.txt"
    path.write_text("\n".join(_voxelnet_log()) + "\n")
    run = read_run(path)
    assert "train" not in run.series and run.roles["loss"] == "loss"
    n, lo, hi, first, last = _series(run, "loss")
    assert (n, lo, hi, first, last) == (14, 1, 12, 30.5, 2.5)
    assert run.series["loss"].steps.tolist()[:4] == [1, 2, 1, 2]
    assert any("falls back 1 time(s) (first from 2 to 1)" in note for note in run.notes)


def test_a_split_word_without_the_at_sign_keeps_its_value():
    from trainlint.readers.console.general import read_line

    rec = read_line("train: 1 epoch:0/160 loss: 28.6482")
    assert rec is not None and rec.step is None
    rec = read_line("val: 3 @ epoch:2/160 loss: 1.5")
    assert rec is not None and (rec.step, rec.split, rec.values) == (3.0, "val", {"val_loss": 1.5})
