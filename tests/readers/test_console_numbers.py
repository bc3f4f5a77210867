"""Files of bare numbers a training loop writes (readers/console/numbers.py): read only where the
file's name or a header line names the loss, and the run says what was assumed; files of numbers
that are datasets, ids, evaluations or accuracies stand down."""

from __future__ import annotations

import pytest
from _consolekit import read_lines as _read
from _consolekit import series_ends as _series

from trainlint.readers import ReadError
from trainlint.readers.console.numbers import train_log_name

# cityscapes-road-car-seg-log-train-1260 (calibration), log_train.txt: f.write(f"{epoch} {loss}\n") per epoch
_LOSSES = [0.345724, 0.253627, 0.217457, 0.19007, 0.17253, 0.155955, 0.146898, 0.138625, 0.129119, 0.124139]
_LOSSES += [0.11809, 0.114175, 0.108288, 0.10553, 0.10339, 0.099963, 0.096701, 0.091803, 0.090544, 0.088178]


def test_epoch_value_rows_in_a_file_named_a_training_log_are_its_loss(tmp_path):
    run = _read(tmp_path, [f"{e} {v}" for e, v in enumerate(_LOSSES)], "log_train.txt")
    assert run.format == "console/numbers" and run.roles["loss"] == "loss"
    assert _series(run, "loss") == (20, 0.0, 19.0, 0.345724, 0.088178)
    assert any("column 2 of 2 taken as the loss" in n and "log_train.txt" in n and "--map" in n for n in run.notes)


@pytest.mark.parametrize("name", ["train_history.txt", "training_log.dat", "train.log", "TrainLog.txt"])
def test_one_column_of_values_in_a_training_log_is_its_loss_at_its_order(tmp_path, name):
    run = _read(tmp_path, [str(v) for v in _LOSSES], name)
    assert _series(run, "loss") == (20, 1.0, 20.0, 0.345724, 0.088178)


@pytest.mark.parametrize(
    ("header", "sep"),
    [("# epoch loss acc", " "), ("epoch loss acc", "  "), ("#epoch  loss  acc", "\t")],
    ids=["savetxt-header", "plain-header", "tab-rows"],
)
def test_a_header_line_names_the_columns_whatever_the_file_is_named(tmp_path, header, sep):
    # np.savetxt("history.txt", np.c_[epochs, losses, accs], header="epoch loss acc") writes "# epoch loss acc"
    # (a header of names apart by commas, tabs or semicolons is a delimited table's: the CSV reader's)
    rows = [sep.join(f"{v:.18e}" for v in (e + 1, loss, 0.5 + 0.02 * e)) for e, loss in enumerate(_LOSSES)]
    run = _read(tmp_path, [header, *rows], "history.txt")
    assert run.roles["loss"] == "loss" and _series(run, "loss") == (20, 1.0, 20.0, 0.345724, 0.088178)
    assert _series(run, "acc") == (20, 1.0, 20.0, 0.5, pytest.approx(0.88))
    assert any("header line names the columns" in n for n in run.notes)


@pytest.mark.parametrize("name", ["log_train.txt", "loss.txt"])
def test_rows_written_newest_first_are_read_in_the_order_of_their_steps(tmp_path, name):
    # a log rewritten with the newest line first: the step falls at every row
    rows = [f"{e} {v}" for e, v in reversed(list(enumerate(_LOSSES)))]
    run = _read(tmp_path, rows, name)
    assert _series(run, "loss") == (20, 0.0, 19.0, 0.345724, 0.088178)
    assert any("written newest first" in n for n in run.notes)


@pytest.mark.parametrize(
    ("name", "rows"),
    [
        ("train.txt", [f"{e} {v}" for e, v in enumerate(_LOSSES)]),  # a dataset split's name: x y pairs
        ("log_val.txt", [f"{e} {v}" for e, v in enumerate(_LOSSES)]),  # an evaluation
        ("train_acc_log.txt", [f"{e} {1 - v}" for e, v in enumerate(_LOSSES)]),  # an accuracy: it rises
        ("log_test.txt", [str(1 - v) for v in _LOSSES]),
        ("log_train.txt", [f"{e} {v} {1 - v}" for e, v in enumerate(_LOSSES)]),  # two unnamed values: which?
        ("log_train.txt", [f"{i} {i * 37 % 11}" for i in range(40)]),  # ids and labels: whole numbers
        ("numbers.txt", [f"{e} {v}" for e, v in enumerate(_LOSSES)]),  # nothing names anything
    ],
    ids=["dataset-split", "eval-log", "accuracy-log", "test-values", "two-unnamed", "id-label", "no-name"],
)
def test_numbers_nothing_names_as_a_training_loss_are_not_a_run(tmp_path, name, rows):
    with pytest.raises(ReadError):
        _read(tmp_path, rows, name)


@pytest.mark.parametrize(
    "lines",
    [
        ["# x y"] + [f"{0.1 * i:.2f} {0.5 * i:.3f}" for i in range(30)],  # a dataset's columns
        ["epoch acc"] + [f"{e} {0.5 + 0.01 * e}" for e in range(30)],  # an accuracy table
        ["# lr momentum"] + ["0.1 0.9"] * 30,
    ],
    ids=["dataset-columns", "accuracy-table", "config-rows"],
)
def test_a_header_that_names_no_loss_is_not_a_run(tmp_path, lines):
    with pytest.raises(ReadError):
        _read(tmp_path, lines, "history.txt")


def test_the_names_that_say_a_training_log():
    from pathlib import PurePath

    says = ["log_train.txt", "train_log.txt", "training_history.txt", "train.log", "trainLog.txt", "train.out"]
    not_says = ["train.txt", "log_val.txt", "train_acc_log.txt", "log.txt", "train_ids.log", "test_log.txt"]
    assert all(train_log_name(PurePath(n)) for n in says)
    assert not any(train_log_name(PurePath(n)) for n in not_says)


@pytest.mark.parametrize("fmt", ["{:.18e}", "{:.0f}"], ids=["savetxt-floats", "whole-numbers"])
def test_a_loss_file_whose_first_column_counts_the_rows_takes_it_as_the_step(tmp_path, fmt):
    # np.savetxt("loss.txt", np.c_[epochs, losses]) writes the epoch as "1.000000000000000000e+00": the
    # counter, not the loss (read as the loss, it rose 0 to 19: a false alarm)
    rows = [f"{fmt.format(e)} {v:.18e}" for e, v in enumerate(_LOSSES)]
    run = _read(tmp_path, rows, "loss.txt")
    assert run.format == "console/loss-file" and run.roles["loss"] == "loss" and set(run.series) == {"loss"}
    assert _series(run, "loss") == (20, 0.0, 19.0, 0.345724, 0.088178)
