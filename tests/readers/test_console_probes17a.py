"""Which recogniser's capture wins when several read a log (issue 29, probe round 17a): among
captures of the same rank and as many matched lines, the one whose training loss holds the most
points; an evaluation loss alone counts none. Each fixture is made up in the shape of the real file
(repository, path and commit recorded with it; no copied lines) and asserts the series read: names,
steps, first and last values, and which is the loss."""

from __future__ import annotations

import pytest
from _consolekit import series_ends as _series

from trainlint.api import read_run
from trainlint.readers.console.reader import recognise
from trainlint.readers.console.text import split_lines

EPOCHS = 12


def _train(e: int) -> float:
    return round(1.3 * 0.93**e, 4)


def _test(e: int) -> float:
    return round(1.6 * 0.9**e + 0.3, 4)


def _acc(e: int) -> float:
    return round(40.0 + 3.5 * e, 2)


def _epoch(e: int) -> list[str]:
    """A tqdm bar with a ``Loss=.. Batch_id=.. Accuracy=..`` description, kept only at its end
    (391/391 every epoch: one step for every bar), then the test pass's summary line."""
    bar = f"Loss={_train(e) + 0.0123456:.16f} Batch_id=390 Accuracy={_acc(e):.2f}: 100%|██████████| 391/391"
    correct = int(_acc(e) * 100 + 150)
    return [
        f"EPOCH: {e}",
        f"{bar} [00:15<00:00, 25.{e:02d}it/s]",
        "",
        f"Test set: Average loss: {_test(e):.4f}, Accuracy: {correct}/10000 ({correct / 100:.2f}%)",
        "",
    ]


def _table() -> list[str]:
    """The summary table printed at the end (prettytable): a row an epoch, the training and the
    test loss in columns of their own."""
    rule = "+-------+-------------------+---------------+-------+---------------+-----------+"
    out = [rule, "| Epoch | Training Accuracy | Test Accuracy |  Diff | Training Loss | Test Loss |", rule]
    for e in range(1, EPOCHS + 1):
        tr, te = _acc(e), _acc(e) + 1.5
        out.append(
            f"|  {e:>3}  |       {tr:.2f}%      |     {te:.2f}%    | {tr - te:.2f} |"
            f"     {_train(e):.4f}    |   {_test(e):.4f}  |"
        )
    return [*out, rule]


def _log() -> list[str]:
    lines = ["model running on:  cuda"]
    for e in range(1, EPOCHS + 1):
        lines += _epoch(e)
    return lines + _table()


@pytest.mark.parametrize("suffix", [".log", ".md"])
def test_a_summary_table_s_training_loss_beats_a_redrawn_bar_and_a_test_loss(tmp_path, suffix):
    """satyasundar/erav3-s8 training_logs.md @eda8032e: a Colab output (in a fenced block of a
    Markdown file) of 50 epochs, each a tqdm bar ``Loss=.. Batch_id=390 Accuracy=..`` at 391/391
    and a ``Test set: Average loss: ..`` line, then a table of ``Training Loss`` and ``Test Loss``
    by epoch. The bar's reader kept one ``Loss`` point (the same step every epoch), so the general
    reader's ``Test_Average_loss`` (its steps the count of correct answers) was taken as the loss;
    the table holds the training loss at every epoch."""
    lines = _log()
    p = tmp_path / f"training_logs{suffix}"
    body = ["## Training and validation logs", "", "```", *lines, "```"] if suffix == ".md" else lines
    p.write_text("\n".join(body) + "\n", encoding="utf-8")
    run = read_run(p)
    assert run.format == "console/column-table"
    assert run.roles["loss"] == "Training_Loss" and run.roles["eval_loss"] == "Test_Loss"
    assert _series(run, "Training_Loss") == (EPOCHS, 1.0, float(EPOCHS), _train(1), _train(EPOCHS))
    assert _series(run, "Test_Loss") == (EPOCHS, 1.0, float(EPOCHS), _test(1), _test(EPOCHS))
    assert "Test_Average_loss" not in run.series


def test_ties_go_to_the_capture_with_the_longer_training_loss():
    """Of two captures of the same rank and as many lines (the bar's and the table's), the one
    whose training loss holds more points comes first, then one that reads an evaluation loss too
    (the table's test loss: each complete bar is one epoch's point now, so the two training losses
    are as long); the general reader's test loss comes after."""
    caps = recognise(split_lines("\n".join(_log()) + "\n"), "\n".join(_log()))
    assert [c.framework for c in caps[:2]] == ["column-table", "tqdm-postfix"]
    assert caps[0].records == caps[1].records == EPOCHS
    assert len(caps[1].cols["Loss"][0]) == EPOCHS and "Test_Loss" in caps[0].cols
    assert "general" in [c.framework for c in caps[2:]]


def test_a_count_of_correct_answers_is_a_score_not_the_step(tmp_path):
    """pytorch/examples' MNIST test print, ``Test set: Average loss: 0.0452, Accuracy: 9860/10000
    (99%)``, read by the general reader (the log holds no training lines): the ``N/M`` after
    ``Accuracy`` is the share of correct answers, 0.986, never a counter; the steps had been the
    correct counts (9100 ... 10400), now they are the order of the evaluations."""
    lines = [
        f"Test set: Average loss: {0.1 / e:.4f}, Accuracy: {9000 + 60 * e}/10000 ({90 + e}%)" for e in range(1, 13)
    ]
    path = tmp_path / "test.log"
    path.write_text("\n".join(lines) + "\n")
    run = read_run(path)
    assert run.roles["loss"] == "Test_Average_loss"
    assert _series(run, "Test_Average_loss") == (12, 1.0, 12.0, 0.1, round(0.1 / 12, 4))
    assert _series(run, "Test_Accuracy") == (12, 1.0, 12.0, 0.906, 0.972)


def test_complete_bars_on_their_own_lines_are_one_epoch_each(tmp_path):
    """satyasundar/erav3-s8's Colab log keeps only each epoch's last render, ``Loss=1.26 Batch_id=390
    Accuracy=41.37: 100%|##########| 391/391 [..]``, one line an epoch: every bar ends at 391/391, so
    all twelve had been one point at step 391. A complete bar on a new line whose values changed is
    the next epoch's; the same bar drawn twice on one line is not."""
    bars = [
        f"Loss={_train(e):.4f} Batch_id=390 Accuracy={_acc(e):.2f}: 100%|##########| 391/391 [00:16<00:00, 23.52it/s]"
        for e in range(1, EPOCHS + 1)
    ]
    path = tmp_path / "train.log"
    path.write_text("\r".join([bars[0], bars[0]]) + "\n" + "\n".join(bars[1:]) + "\n")
    run = read_run(path)
    assert run.roles["loss"] == "Loss"
    assert _series(run, "Loss") == (EPOCHS, 391.0, 391.0 * EPOCHS, _train(1), _train(EPOCHS))
