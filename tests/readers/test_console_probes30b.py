"""Kinds a blind sample of outside logs (probe round 30b: training-history CSV files, Keras'
CSVLogger and scripts' own writers, the repositories find_files lists for ``training_log.csv``,
labelled before trainlint read them) found read wrong: a Keras CSVLogger(append=True) around
``model.fit(epochs=1)`` called in a loop writes ``epoch`` 0 on every row, and every point had read
at step 0; an AlphaZero script's ``eval_loss`` beside ``eval_win`` and ``eval_draw`` (the evaluation
games lost) had read as the eval loss. Each fixture is made up in the shape of the real file
(repository, path and commit recorded with it; no copied lines) and asserts the series read:
names, steps, first and last values, and which is the loss."""

from __future__ import annotations

import math

from trainlint.api import read_run

ROWS = 14


def _write(path, header: list[str], rows: list[list[str]]) -> None:
    path.write_text("\n".join(",".join(r) for r in [header, *rows]) + "\n")


def _loss(i: int) -> float:
    return round(0.2 + 0.5 * math.exp(-0.3 * i), 6)


def _one_epoch_rows(epoch: str = "0") -> list[list[str]]:
    return [
        [epoch, f"{0.8 + i / 100:.4f}", f"{_loss(i):.6f}", f"{0.85 + i / 200:.4f}", f"{_loss(i) * 0.9:.6f}"]
        for i in range(ROWS)
    ]


KERAS = ["epoch", "accuracy", "loss", "val_accuracy", "val_loss"]


def test_an_epoch_column_stuck_at_zero_counts_the_rows(tmp_path):
    """Areya911/AgriSmart training_log.csv @8f2375622a6968520ed163620d3900d01cfe1666 (Keras'
    CSVLogger appending, ``fit`` called for one epoch at a time: ``epoch`` is 0 on every row)."""
    path = tmp_path / "training_log.csv"
    _write(path, KERAS, _one_epoch_rows())
    run = read_run(path)
    assert run.roles["loss"] == "loss" and run.roles["eval_loss"] == "val_loss"
    loss = run.series["loss"]
    assert list(loss.steps) == list(range(ROWS))
    assert loss.values[0] == _loss(0) and loss.values[-1] == _loss(ROWS - 1)
    assert list(run.series["val_loss"].steps) == list(range(ROWS))


def test_the_stuck_epoch_reads_the_same_by_the_csv_module(tmp_path):
    """The same table with an empty cell (the csv module's path, not the dense one): the same steps."""
    rows = _one_epoch_rows()
    rows[3][1] = ""
    path = tmp_path / "training_log.csv"
    _write(path, KERAS, rows)
    loss = read_run(path).series["loss"]
    assert list(loss.steps) == list(range(ROWS))
    assert loss.values[-1] == _loss(ROWS - 1)
    # a train row, then a val row, filling other cells at one epoch: the epochs stay the steps
    sparse = [r for e in range(ROWS) for r in ([str(e), f"{_loss(e):.6f}", ""], [str(e), "", f"{_loss(e):.6f}"])]
    _write(path, ["epoch", "loss", "val_loss"], sparse)
    run = read_run(path)
    assert list(run.series["loss"].steps) == list(range(ROWS))
    assert list(run.series["val_loss"].steps) == list(range(ROWS))


def test_rows_count_on_from_the_first_repeated_epoch(tmp_path):
    """A resumed run (``initial_epoch=5``) whose epochs advance, then a stretch fit one epoch at a
    time: the epochs are the steps until an epoch repeats, then rows count on from there; a log
    whose epochs advance (every Keras log) keeps its epochs."""
    rows = _one_epoch_rows()
    for i in range(4):
        rows[i][0] = str(5 + i)
    for i in range(4, ROWS):
        rows[i][0] = "8"
    path = tmp_path / "training_log.csv"
    _write(path, KERAS, rows)
    loss = read_run(path).series["loss"]
    assert list(loss.steps) == list(range(5, 5 + ROWS))
    _write(path, KERAS, [[str(5 + i), *r[1:]] for i, r in enumerate(_one_epoch_rows())])
    assert list(read_run(path).series["loss"].steps) == list(range(5, 5 + ROWS))


def test_a_games_lost_count_beside_games_won_is_no_eval_loss(tmp_path):
    """Alex-code145/Yolah training_log.csv @e673f6922d023b77d06479100f91608e6f8ff137 (an AlphaZero
    loop's own CSV writer: ``iter,games,replay,avg_result,policy_loss,value_loss,policy_entropy,
    eval_games,eval_win,eval_draw,eval_loss``, the last four counts of evaluation games)."""
    header = [
        "iter",
        "games",
        "avg_result",
        "policy_loss",
        "value_loss",
        "eval_games",
        "eval_win",
        "eval_draw",
        "eval_loss",
    ]
    rows = []
    for i in range(1, ROWS + 1):
        won = min(i, 16)
        rows.append(
            [str(i), "16", "0.1", f"{8.3 - 0.1 * i:.4f}", f"{1.0 - 0.02 * i:.4f}", "16", str(won), "0", str(16 - won)]
        )
    path = tmp_path / "training_log.csv"
    _write(path, header, rows)
    run = read_run(path)
    assert "eval_loss" not in run.roles
    assert run.roles["loss"] == "policy_loss+value_loss"
    loss = run.series[run.roles["loss"]]
    assert loss.steps[0] == 1 and loss.steps[-1] == ROWS
    assert math.isclose(loss.values[0], 8.2 + 0.98) and math.isclose(
        loss.values[-1], 8.3 - 0.1 * ROWS + 1.0 - 0.02 * ROWS
    )
    assert list(run.series["eval_loss"].values[:2]) == [15.0, 14.0]  # still read, a count


def test_a_wins_losses_tally_is_no_loss(tmp_path):
    """The tally written plural (``episode,reward,wins,losses``: games won and lost so far, no
    loss logged): no loss to judge; a ``loss`` beside a ``win`` flag alone (no ``draw``) stays the
    network's loss, and a ``val_loss`` beside a ``win_rate`` the eval loss."""
    path = tmp_path / "training_log.csv"
    _write(path, ["episode", "reward", "wins", "losses"], [[str(i), "1.0", str(i), str(ROWS - i)] for i in range(ROWS)])
    run = read_run(path)
    assert "loss" not in run.roles and "eval_loss" not in run.roles
    assert list(run.series["losses"].values[:2]) == [float(ROWS), float(ROWS - 1)]
    rows = [[str(i), f"{_loss(i):.6f}", str(i % 2), f"{i / ROWS:.3f}", f"{_loss(i):.6f}"] for i in range(ROWS)]
    _write(path, ["episode", "loss", "win", "win_rate", "val_loss"], rows)
    run = read_run(path)
    assert run.roles["loss"] == "loss" and run.roles["eval_loss"] == "val_loss"
