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


def _compact(tmp_path, doc, name):
    path = tmp_path / name  # pandas writes compact JSON, index labels as strings
    path.write_text(json.dumps(doc, separators=(",", ":")))
    return path


def test_pandas_to_json_default_orient_is_one_index_keyed_dict_per_column(tmp_path):
    # pd.DataFrame(history.history).to_json("history.json"): {"loss": {"0": 2.5, "1": 2.4, ..}, ..}
    loss = [2.5 - i / 10 for i in range(15)]
    doc = {
        "loss": {str(i): v for i, v in enumerate(loss)},
        "val_loss": {str(i): v + 0.1 for i, v in enumerate(loss)},
        "accuracy": {str(i): i / 15 for i in range(15)},
    }
    path = _compact(tmp_path, doc, "history.json")
    assert sniff(path).name == "json-records"
    run = read_run(path)
    assert run.roles["loss"] == "loss" and run.roles["eval_loss"] == "val_loss"
    assert _ends(run, "loss") == (15, 0.0, 14.0, 2.5, pytest.approx(1.1))
    # a frame indexed by dates: its rows are placed by their order, said in a note
    dated = {k: {f"2024-01-{i + 1:02d}": v for i, v in enumerate(col.values())} for k, col in doc.items()}
    run = read_run(_compact(tmp_path, dated, "dated.json"))
    assert _ends(run, "loss")[:3] == (15, 0.0, 14.0) and any("no step field" in n for n in run.notes)


def test_pandas_to_json_split_orient_steps_from_its_index_or_its_epoch_column(tmp_path):
    # df.set_index("epoch").to_json(orient="split"): the index (1..n) is the step
    rows = [[2.0 / e, 2.2 / e] for e in range(1, 13)]
    doc = {"columns": ["train_loss", "val_loss"], "index": list(range(1, 13)), "data": rows}
    run = read_run(_compact(tmp_path, doc, "log.json"))
    assert run.roles["loss"] == "train_loss"
    assert _ends(run, "train_loss") == (12, 1.0, 12.0, 2.0, pytest.approx(2 / 12))
    # an "epoch" column beside the default index (0..n-1): the column gives the step
    doc = {"columns": ["epoch", "loss"], "index": list(range(12)), "data": [[e * 2, 1.0 / e] for e in range(1, 13)]}
    run = read_run(_compact(tmp_path, doc, "log2.json"))
    assert _ends(run, "loss") == (12, 2.0, 24.0, 1.0, pytest.approx(1 / 12))


def test_pandas_lookalikes_are_refused_or_not_claimed(tmp_path):
    # a config whose "columns" names a loss but holds no table, class weights of a loss by index
    cfg = _write(tmp_path, {"columns": ["loss", "acc"], "data": "data/train.csv", "lr": 0.1}, "cfg.json")
    assert sniff(cfg) is None
    ragged = _compact(tmp_path, {"columns": ["loss", "acc"], "index": [0, 1], "data": [[1.0], [2.0, 3.0]]}, "r.json")
    with pytest.raises(ReadError, match="without a list of records"):
        read_as(ragged, "json-records")
    weights = _compact(tmp_path, {"loss_weights": {"0": 1.0, "1": 2.0}}, "weights.json")
    with pytest.raises(ReadError, match="without a list of records"):
        read_as(weights, "json-records")


def _triples(n=20):
    return [[1_700_000_000.5 + 3.2 * i, 100 * i, 2.5 - i / 10] for i in range(n)]


def test_a_tensorboard_scalar_download_is_named_after_its_file(tmp_path):
    # TensorBoard's "download data" (JSON) of Keras' validation run's tag epoch_loss
    run = read_run(_compact(tmp_path, _triples(), "run-validation-tag-epoch_loss.json"))
    assert list(run.series) == ["validation/epoch_loss"]  # an eval loss, judged as the loss with a note
    assert run.roles["loss"] == "validation/epoch_loss" and any("only loss logged is an eval" in n for n in run.notes)
    s = run.series["validation/epoch_loss"]
    assert _ends(run, "validation/epoch_loss") == (20, 0.0, 1900.0, 2.5, pytest.approx(0.6))
    assert s.wall is not None and float(s.wall[0]) == 1_700_000_000.5  # the wall time is no metric
    run = read_run(_compact(tmp_path, _triples(), "run-exp_1-tag-train_loss.json"))
    assert run.roles["loss"] == "train_loss" and any("file name's tag" in n for n in run.notes)
    run = read_run(_compact(tmp_path, _triples(), "train_loss.json"))
    assert run.roles["loss"] == "train_loss"


def test_a_tensorboard_scalar_download_whose_name_says_nothing_is_no_loss(tmp_path):
    run = read_run(_compact(tmp_path, _triples(), "export.json"))
    assert list(run.series) == ["Value"] and "loss" not in run.roles
    assert any("not taken as the loss" in n for n in run.notes)
    # pairs of numbers or triples without a wall time of this century are not claimed
    assert sniff(_compact(tmp_path, [[0.5, 1, 2.0]] * 20, "points.json")) is None


def test_pandas_to_json_table_orient_names_its_columns_without_a_prefix(tmp_path):
    # df.to_json(orient="table"): a JSON Table Schema, then the records with the index as a field
    fields = [{"name": "index", "type": "integer"}, {"name": "loss", "type": "number"}]
    schema = {"fields": fields, "primaryKey": ["index"], "pandas_version": "1.4.0"}
    doc = {"schema": schema, "data": [{"index": i, "loss": 2.0 - i / 10} for i in range(12)]}
    run = read_run(_compact(tmp_path, doc, "history.json"))
    assert list(run.series) == ["loss"] and _ends(run, "loss") == (12, 0.0, 11.0, 2.0, pytest.approx(0.9))


def test_records_with_their_splits_nested_are_read_under_joined_names(tmp_path):
    # history.append({"epoch": e, "train": {"loss": .., "acc": ..}, "val": {"loss": ..}}); json.dump(history, f)
    doc = [{"epoch": e, "train": {"loss": 2.0 / e, "acc": e / 40}, "val": {"loss": 2.2 / e}} for e in range(1, 21)]
    run = read_run(_write(tmp_path, doc))
    assert run.roles["loss"] == "train/loss" and run.roles["eval_loss"] == "val/loss"
    assert _ends(run, "train/loss") == (20, 1.0, 20.0, 2.0, 0.1)
    assert _ends(run, "val/loss") == (20, 1.0, 20.0, 2.2, pytest.approx(0.11))


@pytest.mark.parametrize(("key", "steps_are"), [("epoch_{e}", "epochs"), ("Epoch {e}", "epochs"), ("step-{e}", None)])
def test_records_keyed_by_a_named_place(tmp_path, key, steps_are):
    doc = {key.format(e=e): {"train_loss": 1.0 / e, "val_loss": 1.1 / e} for e in range(1, 16)}
    run = read_run(_write(tmp_path, doc))
    assert run.roles["loss"] == "train_loss"
    assert _ends(run, "train_loss") == (15, 1.0, 15.0, 1.0, pytest.approx(1 / 15))
    assert run.meta.get("steps_are") == steps_are
