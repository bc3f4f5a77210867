"""Kinds a blind sample of outside logs (probe round 19b: the first repositories find_files lists for
``log.log``, ``training_log.txt``, ``log_train.txt``, ``results/train.log`` and ``logs/output.log``)
found read wrong: an evaluation's lines taken for training ones behind a ``[fold 0],`` tag or a split
word closed by a full stop, and a split word glued to the loss word (``trloss``, ``valloss``). Each
fixture is made up in the shape of the real file (repository, path and commit recorded with it; no
copied lines) and asserts the series read: names, steps, first and last values, and which is the loss."""

from __future__ import annotations

from _consolekit import series_ends as _series

from trainlint.api import read_run
from trainlint.readers.console.general import read_line
from trainlint.role_structure import parse

STEPS = 30  # training lines: a "Train Step" line every ten batches
EPOCHS = 3


def _train(i: int) -> float:
    return round(2.2 * 0.97**i, 6)


def _val(e: int, i: int) -> float:
    return round(0.9 * 0.9**e + 0.001 * i, 6)


def _fold_log() -> list[str]:
    """610265158/torch_classfier_com log.log @028afb9d (the same logger in 610265158/moa log.log
    @b819a632): ``[time] [INFO] [fold 0], Train Step 10, summary_loss: .., accuracy: ..`` every ten
    batches, then the evaluation's batches ``[fold 0], Val Step 0, summary_loss: ..`` and its summary
    ``[fold 0], [RESULT]: VAL. Epoch: 0, summary_loss: ..``, every epoch."""
    lines = ["[2020-12-06 21:53:47,725] [INFO] [x] Get dataset from csv "]
    n = 0
    for e in range(EPOCHS):
        for _ in range(STEPS // EPOCHS):
            n += 1
            lines.append(
                f"[2020-12-06 21:54:{n:02d},979] [INFO] [fold 0], Train Step {10 * n}, summary_loss: {_train(n):.6f}, "
                f"accuracy: {0.2 + 0.01 * n:.6f}, time: 0.199544, speed 160 images/persec "
            )
        for i in range(4):
            lines.append(
                f"[2020-12-06 21:55:{e:02d},172] [INFO] [fold 0], Val Step {10 * i}, summary_loss: {_val(e, i):.6f}, "
                f"acc: 0.676471, time: 0.042003 "
            )
        lines.append(
            f"[2020-12-06 21:55:{e:02d},900] [INFO] [fold 0], [RESULT]: VAL. Epoch: {e}, "
            f"summary_loss: {_val(e, 3):.5f}, accuracy: 0.70000, time: 1.2 "
        )
    return lines


def test_an_evaluation_s_lines_behind_a_fold_tag_are_not_training_ones(tmp_path):
    """The ``Val Step`` and ``[RESULT]: VAL.`` lines had been read as training records (the comma after
    the ``[fold 0]`` tag hid the split word leading the line; the full stop after ``VAL`` glued it to
    ``Epoch``; the generic step shape read ``Val Step`` as a training step): the training loss mixed the
    evaluation's losses into its own. Now the training loss is the ``Train Step`` lines' alone."""
    path = tmp_path / "log.log"
    path.write_text("\n".join(_fold_log()) + "\n")
    run = read_run(path)
    assert run.roles["loss"] == "summary_loss"
    assert run.roles["eval_loss"] == "Val_summary_loss"
    assert _series(run, "summary_loss") == (STEPS, 10.0, 10.0 * STEPS, _train(1), _train(STEPS))
    n, _, _, first, last = _series(run, "Val_summary_loss")
    assert (n, first, last) == (4 * EPOCHS, _val(0, 0), _val(EPOCHS - 1, 3))


def test_a_split_word_after_a_tag_and_its_comma_names_the_line_s_split():
    rec = read_line("[fold 2], Val Step 10, summary_loss: 0.761740, acc: 0.731638")
    assert rec is not None and rec.split == "Val" and rec.step == 10.0
    assert rec.values == {"Val_summary_loss": 0.76174, "Val_acc": 0.731638}
    train = read_line("[fold 2], Train Step 10, summary_loss: 2.147573")
    assert train is not None and train.values == {"summary_loss": 2.147573}


def test_a_split_word_closed_by_a_full_stop_before_its_epoch():
    rec = read_line("[RESULT]: VAL. Epoch: 4, summary_loss: 0.73349, time:1.27948")
    assert rec is not None and rec.split == "VAL" and rec.epoch == 4.0
    assert rec.values == {"VAL_summary_loss": 0.73349, "VAL_time": 1.27948}
    train = read_line("[RESULT]: Train. Epoch: 4, summary_loss: 0.75682")
    assert train is not None and train.epoch == 4.0 and train.values == {"summary_loss": 0.75682}


def test_a_split_word_glued_to_the_loss_word():
    """GraphmindDartmouth/DISGEN logs/output.log @3f768c7b: ``Epoch: 50, trloss: 1.0511, trroc: ..,
    valloss: 0.5603, ..., testloss_1: 0.5198, ...``: no name had been a loss (``trloss`` is one word),
    so the log was not checked."""
    assert (parse("trloss").split, parse("trloss").kind) == ("train", "total")
    assert (parse("valloss").split, parse("valloss").kind) == ("eval", "total")
    assert parse("testloss_1").split == "test"
    assert (parse("Trainloss").split, parse("Trainloss").kind) == ("train", "total")
    assert parse("trroc").kind is None and parse("tracc").split is None


def test_a_log_of_glued_split_losses_is_read(tmp_path):
    lines = ["Working on data:  bbbp", "Criterion name:  pair_loss_cos"]
    for e in range(1, 25):
        lines.append(
            f"Epoch: {e}, trloss: {1.3 * 0.97**e:.4f}, trroc: 0.8397, tracc: 0.7691, valloss: {0.7 * 0.98**e:.4f}, "
            f"valroc: 0.8010, testloss_1: {0.6 * 0.98**e:.4f}, testroc_1: 0.8533, "
        )
    path = tmp_path / "output.log"
    path.write_text("\n".join(lines) + "\n")
    run = read_run(path)
    assert run.roles["loss"] == "trloss" and run.roles["eval_loss"] == "valloss"
    assert _series(run, "trloss") == (24, 1.0, 24.0, round(1.3 * 0.97, 4), round(1.3 * 0.97**24, 4))
