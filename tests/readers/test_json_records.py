"""A training history dumped as one JSON document (readers/json_records.py): each shape a loop
writes with ``json.dump``, read into named series with their steps; JSON lines, trainer_state.json
and documents that hold no table are left to their readers or refused with one line."""

from __future__ import annotations

import json

import pytest

from trainlint.api import read_run
from trainlint.readers import ReadError, sniff
from trainlint.readers import read_run as read_as


def _write(tmp_path, doc, name="history.json", indent=2):
    path = tmp_path / name
    path.write_text(json.dumps(doc, indent=indent))
    return path


def _ends(run, name):
    s = run.series[name]
    return len(s.steps), float(s.steps[0]), float(s.steps[-1]), float(s.values[0]), float(s.values[-1])


@pytest.mark.parametrize("indent", [2, None])
def test_a_list_of_epoch_records(tmp_path, indent):
    # json.dump(history, f, indent=2) of a loop's per-epoch dicts
    doc = [{"epoch": e, "train_loss": 2.0 / e, "val_loss": 2.2 / e, "lr": 0.001} for e in range(1, 21)]
    run = read_run(_write(tmp_path, doc, indent=indent))
    assert run.format == "json-records" and run.meta["steps_are"] == "epochs"
    assert run.roles["loss"] == "train_loss" and run.roles["eval_loss"] == "val_loss"
    assert _ends(run, "train_loss") == (20, 1.0, 20.0, 2.0, 0.1)


def test_one_list_per_split_under_keys(tmp_path):
    doc = {
        "config": {"lr": 0.1, "batch_size": 32},
        "train": [{"step": s, "loss": 3.0 - s / 100} for s in range(0, 200, 10)],
        "val": [{"step": s, "loss": 3.1 - s / 100} for s in range(0, 200, 50)],
    }
    run = read_run(_write(tmp_path, doc))
    assert run.roles["loss"] == "train/loss" and run.roles["eval_loss"] == "val/loss"
    assert _ends(run, "train/loss") == (20, 0.0, 190.0, 3.0, pytest.approx(1.1))
    assert len(run.series["val/loss"].steps) == 4 and "config/lr" not in run.series


def test_records_keyed_by_their_epoch_and_nested_under_a_key(tmp_path):
    doc = {"history": {str(e): {"loss": 1.0 / e, "acc": e / 20} for e in range(1, 16)}}
    run = read_run(_write(tmp_path, doc))
    assert _ends(run, "history/loss") == (15, 1.0, 15.0, 1.0, pytest.approx(1 / 15))


def test_keras_history_lists_are_one_point_an_epoch(tmp_path):
    # json.dump(model.fit(...).history, f)
    doc = {"loss": [1.0 / e for e in range(1, 13)], "val_loss": [1.2 / e for e in range(1, 13)], "accuracy": [0.5] * 12}
    run = read_run(_write(tmp_path, doc, indent=None))
    assert _ends(run, "loss") == (12, 1.0, 12.0, 1.0, pytest.approx(1 / 12))
    assert run.roles["eval_loss"] == "val_loss"


def test_sacred_metrics_series_with_their_steps(tmp_path):
    # Sacred's FileStorageObserver metrics.json: one series per metric, its steps, values and timestamps
    doc = {
        name: {"steps": list(range(0, 300, 20)), "timestamps": ["2024-01-01T00:00:00"] * 15, "values": vals}
        for name, vals in (
            ("train.loss", [2.0 - i / 10 for i in range(15)]),
            ("val.loss", [2.1 - i / 10 for i in range(15)]),
        )
    }
    run = read_run(_write(tmp_path, doc, "metrics.json"))
    assert run.roles["loss"] == "train.loss" and run.roles["eval_loss"] == "val.loss"
    assert _ends(run, "train.loss") == (15, 0.0, 280.0, 2.0, pytest.approx(0.6))


def test_records_without_a_step_are_placed_by_their_order_with_a_note(tmp_path):
    run = read_run(_write(tmp_path, [{"loss": 1.0 / (i + 1)} for i in range(10)]))
    assert _ends(run, "loss")[:3] == (10, 0.0, 9.0)
    assert any("no step field" in n for n in run.notes)


def test_json_lines_and_trainer_state_keep_their_readers(tmp_path):
    lines = tmp_path / "20240101.log.json"  # mmdetection's: an env line, then one record a line
    lines.write_text('{"env_info": "x"}\n' + "\n".join(json.dumps({"iter": i, "loss": 1.0}) for i in range(5)))
    assert getattr(sniff(lines), "name", None) != "json-records"
    state = _write(tmp_path, {"log_history": [{"step": 1, "loss": 0.5}], "global_step": 1}, "trainer_state.json")
    assert sniff(state).name == "hf-trainer-state"


def test_documents_without_a_loss_or_a_table_are_not_claimed_or_refused(tmp_path):
    assert sniff(_write(tmp_path, {"lr": 0.1, "epochs": 3}, "config.json")) is None  # names no loss
    # a config that names a loss once (its weight, its kind) is no table: not claimed in a folder scan
    assert sniff(_write(tmp_path, {"loss_weight": 0.5, "loss": "ce", "lr": 0.1}, "cfg0.json")) is None
    bad = _write(tmp_path, {"loss_weights": {"ce": 1.0, "dice": 0.5}, "aux_loss": 0.4, "main_loss": 1}, "cfg.json")
    with pytest.raises(ReadError, match="without a list of records"):
        read_as(bad, "json-records")
    cut = tmp_path / "cut.json"
    cut.write_text(json.dumps({"history": [{"epoch": e, "loss": 1.0 / e} for e in range(1, 6)]})[:-20])
    with pytest.raises(ReadError, match="not a whole JSON document"):
        read_run(cut)


def test_a_list_cut_short_is_read_as_far_as_it_is_whole(tmp_path):
    # a run killed while json.dump wrote its history: the whole records are read, the damage said
    text = json.dumps([{"epoch": e, "loss": 1.0 / e} for e in range(1, 13)], indent=2)
    cut = tmp_path / "history.json"
    cut.write_text(text[: text.rindex('"loss"')])
    run = read_run(cut)
    assert _ends(run, "loss") == (11, 1.0, 11.0, 1.0, pytest.approx(1 / 11))
    assert run.damage and run.damage[0].kind == "truncated" and run.damage[0].evidence["records"] == 11
