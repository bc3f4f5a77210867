"""Metric tables in long form, one metric per row (``step,metric,value``): TensorBoard's data frame
of an experiment's scalars (``run,tag,step,value``: ``ExperimentFromDev.get_scalars()`` written
with ``to_csv``), MLflow's metric history (``key,value,timestamp,step``), a pandas ``melt``. Each
name becomes a series; split-named runs prefix their names; of other runs the first is read."""

from __future__ import annotations

import math

import pytest

from trainlint.readers import read_run, sniff
from trainlint.roles import apply_roles


def _write(path, header, rows):
    path.write_text(header + "\n" + "".join(",".join(map(str, r)) + "\n" for r in rows))
    return path


def _judged(path):
    run = read_run(path)
    apply_roles(run)
    return run


def _train(i):
    return round(2 * math.exp(-i / 20), 4)


def test_a_tensorboard_data_frame_is_pivoted_by_run_and_tag(tmp_path):
    rows = [
        (run, tag, i, _train(i) if tag == "epoch_loss" else 0.5 + i / 100)
        for run in ("train", "validation")
        for i in range(30)
        for tag in ("epoch_loss", "epoch_accuracy")
    ]
    path = _write(tmp_path / "scalars.csv", "run,tag,step,value", rows)
    assert sniff(path).name == "csv"
    run = _judged(path)
    assert run.roles["loss"] == "train/epoch_loss" and run.roles["eval_loss"] == "validation/epoch_loss"
    loss = run.get("loss")
    assert loss.steps.tolist() == list(range(30)) and loss.values[0] == 2.0 and loss.values[-1] == _train(29)
    assert run.get("validation/epoch_accuracy").values[-1] == pytest.approx(0.79)
    assert any("long table" in n and "'tag' column" in n and "4 name(s)" in n for n in run.notes)


def test_an_mlflow_metric_history_keeps_each_names_own_steps(tmp_path):
    rows = []
    for i in range(40):
        rows.append(("train_loss", _train(i), 1_700_000_000_000 + i, 10 * i))
        if i % 5 == 0:
            rows.append(("val_loss", round(2 * math.exp(-i / 30), 4), 1_700_000_000_000 + i, 10 * i))
    run = _judged(_write(tmp_path / "history.csv", "key,value,timestamp,step", rows))
    assert run.roles["loss"] == "train_loss" and run.roles["eval_loss"] == "val_loss"
    assert run.get("loss").steps[-1] == 390 and len(run.get("loss")) == 40
    assert run.get("eval_loss").steps.tolist() == [0, 50, 100, 150, 200, 250, 300, 350]


def test_without_a_step_column_each_names_rows_are_counted(tmp_path):
    rows = [r for i in range(25) for r in (("loss", _train(i)), ("lr", 0.001))]
    run = read_run(_write(tmp_path / "melted.csv", "metric,value", rows))
    assert run.get("loss").steps.tolist() == list(range(1, 26)) and run.get("lr").steps[-1] == 25
    assert any("each name's rows counted" in n for n in run.notes)


def test_of_a_sweeps_runs_the_first_is_read_and_the_rest_named(tmp_path):
    rows = [(r, "loss", i, _train(i) + off) for r, off in (("lr_0.1", 0), ("lr_0.01", 1)) for i in range(30)]
    run = read_run(_write(tmp_path / "sweep.csv", "run,tag,step,value", rows))
    assert run.get("loss").values[0] == 2.0 and len(run.get("loss")) == 30
    assert any("2 runs in the table: the first, 'lr_0.1', is read (lr_0.01 not)" in n for n in run.notes)


def test_a_long_table_naming_no_metric_and_a_wide_table_with_a_name_column_are_not_long(tmp_path):
    # a table of sizes in long form: nothing in it names a training metric
    rows = [("params", 1000 * i, i) for i in range(20)]
    assert sniff(_write(tmp_path / "sizes.csv", "name,value,step", rows)) is None
    # a wide table with an experiment's name in a column: its loss column is read as before
    wide = _write(tmp_path / "wide.csv", "name,step,loss", [("exp1", i, _train(i)) for i in range(20)])
    assert read_run(wide).get("loss").values[-1] == _train(19)


def test_a_long_table_is_followed_as_it_is_read(tmp_path):
    from test_stream import _follow, _same_as_doctor

    rows = [(run, "loss", i, _train(i)) for i in range(40) for run in ("train", "val")]
    data = ("run,tag,step,value\n" + "".join(",".join(map(str, r)) + "\n" for r in rows)).encode()
    path = tmp_path / "scalars.csv"
    seen = _follow(path, data, 37, "csv")
    assert len(seen["train/loss"][0]) == 40 and len(seen["val/loss"][0]) == 40
    _same_as_doctor(path, seen, "csv")


def test_rows_with_no_name_or_no_number_are_not_series(tmp_path):
    rows = [("train", "loss", i, _train(i)) for i in range(20)] + [("train", "", 20, 1.0), ("train", "loss", 21, "abc")]
    run = read_run(_write(tmp_path / "scalars.csv", "run,tag,step,value", rows))
    assert sorted(run.series) == ["train/loss"] and len(run.get("train/loss")) == 20
