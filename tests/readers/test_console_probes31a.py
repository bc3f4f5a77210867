"""Kinds a blind sample of outside logs (probe round 31a: repositories find_files lists for
``training.out``, a cluster or batch job's captured output, labelled before trainlint read them)
found read wrong: a CatBoost run whose ``learn`` column is an evaluation metric where higher is
better (``eval_metric="Accuracy"``: it rises round after round) had been taken as the loss and
judged a dead run; an old loop's data file, a ``#``-commented header of names parted by tabs
(``#Epoch<TAB>Training Error<TAB>Testing Error``) over tab-separated rows, had not been read at
all. Each fixture is made up in the shape of the real file (repository, path and commit recorded
with it; no copied lines) and asserts the series read: names, steps, first and last values, and
which is the loss."""

from __future__ import annotations

import pytest
from _consolekit import read_lines as _read
from _consolekit import series_ends as _series

from trainlint.readers.base import ReadError

ROUNDS = 60
EPOCHS = 40


def _catboost_score_log() -> list[str]:
    """Thalaivar/DDP training.out @9450d52473169aed8de52b7a03960e6475d4f1f4: a slurm job's output,
    logging lines of a clustering pipeline, ``Learning rate set to ..``, then CatBoost's
    ``N:\\tlearn: v\\ttotal: t\\tremaining: r`` lines whose ``learn`` value climbs from about one
    half towards one (an accuracy: no test set given), then the scheduler's epilogue."""
    lines = ["INFO:pipeline.clustering:embedded (3200, 92) to 35D with 36 clusters", "Learning rate set to 0.081"]
    for i in range(ROUNDS):
        score = round(0.5 + 0.45 * (1.0 - 0.95**i) + (0.002 if i % 9 == 4 else 0.0), 7)
        lines.append(f"{i}:\tlearn: {score:.7f}\ttotal: {i + 1}.2s\tremaining: {ROUNDS - i}m 3s")
    return [*lines, "-" * 40, "State: COMPLETED (exit code 0)"]


def _catboost_loss_log() -> list[str]:
    """The same shape with its default objective (``Logloss``) on the learning set: it falls."""
    return [f"{i}:\tlearn: {0.69 * 0.97**i:.7f}\ttotal: {i + 1}.1s\tremaining: {ROUNDS - i}m 1s" for i in range(ROUNDS)]


def test_a_catboost_learn_value_that_rises_is_no_loss(tmp_path):
    run = _read(tmp_path, _catboost_score_log(), "training.out")
    assert run.format == "console/catboost"
    assert "loss" not in run.roles
    n, s0, s1, v0, v1 = _series(run, "learn")
    assert (n, s0, s1, v0) == (ROUNDS, 0.0, float(ROUNDS - 1), 0.5)
    assert v1 > 0.9
    assert any("higher is better" in note for note in run.notes)
    falling = _read(tmp_path, _catboost_loss_log(), "falling.out")  # its default objective: still the loss
    assert falling.format == "console/catboost" and falling.roles["loss"] == "learn"
    assert _series(falling, "learn")[:4] == (ROUNDS, 0.0, float(ROUNDS - 1), 0.69)


def _error_table_log() -> list[str]:
    """faxmishok/AI_heart-disease-prediction-pw7 training.out @634748ed0175a77fb9c704e787edf27ad4882643
    (a hand-written network's per-epoch errors written as a data file): one ``#``-commented header,
    its names parted by tabs and holding spaces, then ``epoch<TAB>train<TAB>test`` rows of floats."""
    rows = [f"{e}\t{0.09 + 0.55 * 0.93**e!r}\t{0.11 + 0.52 * 0.94**e!r}" for e in range(EPOCHS)]
    return ["#Epoch\tTraining Error\tTesting Error", *rows]


def test_a_tab_parted_header_naming_a_training_error_is_a_table(tmp_path):
    run = _read(tmp_path, _error_table_log(), "training.out")
    assert run.format == "console/column-table"
    assert run.roles["loss"] == "Training_Error" and run.roles["eval_loss"] == "Testing_Error"
    last = EPOCHS - 1
    assert _series(run, "Training_Error") == (EPOCHS, 0.0, float(last), 0.09 + 0.55, 0.09 + 0.55 * 0.93**last)
    assert _series(run, "Testing_Error")[:4] == (EPOCHS, 0.0, float(last), 0.11 + 0.52)
    # an error rate beside an accuracy (``#Epoch  Training Error  Accuracy``) is a classification error: no loss
    rates = [f"{e}\t{0.3 - 0.005 * e:.3f}\t{0.7 + 0.005 * e:.3f}" for e in range(EPOCHS)]
    with pytest.raises(ReadError):
        _read(tmp_path, ["#Epoch\tTraining Error\tAccuracy", *rates], "rates.out")
