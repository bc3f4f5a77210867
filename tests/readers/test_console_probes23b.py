"""Kinds a blind sample of outside logs (probe round 23b: the first repositories find_files lists for
``train_history.txt``, ``logs/stdout.txt`` and ``logs/console.log``, labelled before trainlint read
them) found unread: Keras' ``history.history`` printed after a few words and a colon,
``print("train history:", history.history)`` (the dict had been read only where the line opened
with its brace). The fixture is made up in the shape of the real file (repository, path and commit
recorded with it; no copied lines) and asserts the series read: names, steps, first and last
values, and which is the loss."""

from __future__ import annotations

import pytest
from _consolekit import series_ends as _series

from trainlint.api import read_run
from trainlint.readers import ReadError

EPOCHS = 14


def _history() -> dict[str, list[float]]:
    """A Keras fit's history: accuracy climbs, the losses fall."""
    return {
        "acc": [round(0.56 + 0.02 * e, 4) for e in range(EPOCHS)],
        "loss": [round(1.1 - 0.05 * e, 4) for e in range(EPOCHS)],
        "val_acc": [round(0.57 + 0.015 * e, 4) for e in range(EPOCHS)],
        "val_loss": [round(1.08 - 0.03 * e, 4) for e in range(EPOCHS)],
    }


@pytest.mark.parametrize("label", ["train history: ", "History = ", "final-history:"])
def test_a_printed_history_dict_after_a_label(tmp_path, label):
    # norahik/CDECNN train_history.txt @54f7f44c: ``train history: {'acc': [..50 values..], 'loss': [..],
    # 'val_acc': [..], 'val_loss': [..]}`` on one line, then `` accuracy: 0.76`` (the test accuracy)
    hist = _history()
    path = tmp_path / "train_history.txt"
    path.write_text(f"{label}{hist}\n accuracy: 0.7619\n")
    run = read_run(path)
    assert run.format == "console/history-dict"
    assert run.roles["loss"] == "loss"
    assert run.roles["eval_loss"] == "val_loss"
    assert _series(run, "loss") == (EPOCHS, 1.0, float(EPOCHS), hist["loss"][0], hist["loss"][-1])
    assert _series(run, "val_loss") == (EPOCHS, 1.0, float(EPOCHS), hist["val_loss"][0], hist["val_loss"][-1])
    assert _series(run, "acc")[3:] == (hist["acc"][0], hist["acc"][-1])


def test_a_labelled_config_dict_is_still_no_history(tmp_path):
    # the same label before a dict of settings: lists, but no loss among them, so nothing is read
    path = tmp_path / "config.txt"
    path.write_text("config: " + str({"milestones": [30, 60, 90], "betas": [0.9, 0.999, 0.1]}) + "\n" * 3)
    with pytest.raises(ReadError):
        read_run(path)
