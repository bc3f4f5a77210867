"""Readers of the logs other tools keep: Lightning/Keras/YOLO tables, LLaMA-Factory and
Detectron2 JSON lines, MLflow stores, W&B run folders."""

from __future__ import annotations

import json
import math
import sqlite3
from pathlib import Path

import numpy as np
import pytest
from _stores import _db, _mlruns, _real_wandb_folder, _write

from trainlint import api
from trainlint.readers import ReadError, read_run, sniff

# Byte for byte as Lightning 2.6 CSVLogger and Keras 3 CSVLogger wrote them (CRLF included).
LIGHTNING_CSV = (
    "epoch,step,train_loss_epoch,train_loss_step,val_loss\r\n"
    "0,3,,3.321938991546631,\r\n0,7,,1.1435790061950684,\r\n0,11,,0.7926343083381653,\r\n"
    "0,15,,0.3524448573589325,\r\n0,15,,,0.0058536953292787075\r\n0,15,0.9208528399467468,,\r\n"
    "1,19,,0.004865191411226988,\r\n1,23,,0.002,\r\n1,23,,,0.001\r\n1,23,0.0031,,\r\n"
)
KERAS_LOG = (
    "epoch,loss,val_loss\r\n0,9.658802032470703,7.759509563446045\r\n"
    "1,8.669391632080078,7.069188594818115\r\n2,7.856459140777588,6.510934352874756\r\n"
    "3,7.12144660949707,5.920131683349609\r\n"
)


def _logs(result):
    return [r for r in result.reports if r.kind == "log"]


# ---------------------------------------------------------------- tables


def test_lightning_metrics_csv_steps_and_epoch_aggregates(tmp_path):
    run = api.read_run(_write(tmp_path / "metrics.csv", LIGHTNING_CSV.encode()))
    assert run.format == "csv" and run.meta["written_by"] == "lightning"
    assert run.roles["loss"] == "train_loss_step" and run.roles["eval_loss"] == "val_loss"
    assert list(run.get("loss").steps) == [3, 7, 11, 15, 19, 23]
    assert list(run.series["train_loss_epoch"].steps) == [15, 23]
    assert run.meta["epoch_aggregates"] == ["train_loss_epoch"]
    assert run.get("eval_loss").values[1] == pytest.approx(0.001)


def test_keras_training_log_epochs_and_val_columns(tmp_path):
    run = api.read_run(_write(tmp_path / "training.log", KERAS_LOG.encode()))
    assert run.meta["written_by"] == "keras" and run.meta["steps_are"] == "epochs"
    assert list(run.get("loss").steps) == [0, 1, 2, 3]
    assert run.get("eval_loss").values[-1] == pytest.approx(5.920131683349609)


YOLO_PADDED = (
    "                  epoch,         train/box_loss,         train/cls_loss,         train/dfl_loss,"
    "   metrics/precision(B),      metrics/recall(B),           val/box_loss,           val/cls_loss,"
    "           val/dfl_loss,                  x/lr0\n"
    "                      1,                 1.2000,                 3.0000,                 1.1000,"
    "                0.12345,                 0.2345,                 1.3000,                 3.3000,"
    "                 1.2000,               0.070297\n"
    "                      2,                 1.1000,                 2.5000,                 1.0500,"
    "                0.22345,                 0.3345,                 1.2500,                 2.9000,"
    "                 1.1500,               0.040297\n"
)
YOLO_PLAIN = (
    "epoch,time,train/box_loss,train/cls_loss,train/dfl_loss,metrics/mAP50(B),val/box_loss,"
    "val/cls_loss,val/dfl_loss,lr/pg0,lr/pg1,lr/pg2\n"
    "1,12.5,1.2,3.0,1.1,0.1,1.3,3.3,1.2,0.07,0.0033,0.0033\n"
    "2,24.9,1.1,2.5,1.05,0.2,1.25,2.9,1.15,0.04,0.0065,0.0065\n"
)


@pytest.mark.parametrize("text", [YOLO_PADDED, YOLO_PLAIN], ids=["padded-8.0", "plain-8.3"])
def test_yolo_results_sum_the_loss_parts(tmp_path, text):
    run = api.read_run(_write(tmp_path / "results.csv", text))
    assert run.format == "csv" and run.meta["written_by"] == "ultralytics"
    assert run.roles["loss"] == "train/loss" and run.roles["eval_loss"] == "val/loss"
    assert list(run.get("loss").values) == pytest.approx([5.3, 4.65])
    assert list(run.get("eval_loss").values) == pytest.approx([5.8, 5.3])
    assert run.roles["learning_rate"] == "lr/pg0"
    assert run.get("learning_rate").values[0] == pytest.approx(0.070297 if "x/lr0" in text else 0.07)
    assert any("sum of train/box_loss, train/cls_loss, train/dfl_loss" in n for n in run.notes)
    wall = run.get("loss").wall
    assert (wall is None) if "x/lr0" in text else list(wall) == [12.5, 24.9]


# ---------------------------------------------------------------- LLaMA-Factory and Detectron2

LLAMA = (
    '{"current_steps": 5, "total_steps": 20, "loss": 1.5184, "lr": 4.9e-05, "epoch": 0.25, '
    '"percentage": 25.0, "elapsed_time": "0:00:28", "remaining_time": "0:01:24"}\n'
    '{"current_steps": 10, "total_steps": 20, "loss": 1.2, "lr": 3.5e-05, "epoch": 0.5, '
    '"percentage": 50.0, "elapsed_time": "0:00:55", "remaining_time": "0:00:55"}\n'
    '{"current_steps": 10, "total_steps": 20, "eval_loss": 1.3, "epoch": 0.5, '
    '"percentage": 50.0, "elapsed_time": "0:01:02", "remaining_time": "0:01:02"}\n'
    '{"current_steps": 15, "total_steps": 20, "loss": 1.1, "lr": 1.5e-05, "epoch": 0.75, '
    '"percentage": 75.0, "elapsed_time": "1 day, 0:01:30", "remaining_time": "0:00:30"}\n'
)


def test_llamafactory_trainer_log(tmp_path):
    run = api.read_run(_write(tmp_path / "trainer_log.jsonl", LLAMA))
    assert run.format == "llamafactory" and run.meta["max_steps"] == 20
    loss = run.get("loss")
    assert list(loss.steps) == [5, 10, 15]
    assert list(loss.wall) == [28.0, 55.0, 86490.0]
    assert run.roles["learning_rate"] == "lr" and list(run.get("eval_loss").steps) == [10]
    assert not {"percentage", "total_steps", "elapsed_time"} & set(run.series)


def _d2_line(it: int, loss: float, t: float = 0.25) -> str:
    return json.dumps(
        {
            "data_time": 0.002,
            "eta_seconds": 100.0,
            "fast_rcnn/cls_accuracy": 0.9,
            "iteration": it,
            "loss_box_reg": 0.1,
            "loss_cls": 0.5,
            "lr": 0.0004,
            "time": t,
            "total_loss": loss,
        }
    )


def _d2_file(path: Path) -> Path:
    first = [_d2_line(19 + 20 * i, 3.0 / (i + 1)) for i in range(5)] + ['{"bbox/AP": 12.5, "iteration": 99}']
    second = [_d2_line(19 + 20 * i, 2.0 / (i + 1), 0.3) for i in range(8)]
    return _write(path, "\n".join(first + second) + "\n")


def test_detectron2_appended_launches_are_split(tmp_path):
    path = _d2_file(tmp_path / "metrics.json")
    assert sniff(path).name == "detectron2"
    run = read_run(path)
    assert run.format == "detectron2" and run.meta["launch"] == 2 and run.meta["launches"] == 2
    assert len(run.series["total_loss"]) == 8 and run.series["total_loss"].values[0] == 2.0
    assert list(run.series["step_time"].values[:1]) == [0.3]
    assert any("run1: lines 1-6, iterations 19-99" in n for n in run.notes)
    reports = _logs(api.doctor([tmp_path]))
    assert [r.source for r in reports] == [f"{path}#run1", f"{path}#run2"]
    assert [r.summary["loss_points"] for r in reports] == [5, 8]


def test_detectron2_single_launch_is_one_report(tmp_path):
    path = _write(tmp_path / "metrics.json", "\n".join(_d2_line(19 + 20 * i, 1.0) for i in range(4)) + "\n")
    assert [r.source for r in _logs(api.doctor([tmp_path]))] == [str(path)]


# ---------------------------------------------------------------- MLflow file store


def test_mlflow_file_store_run(tmp_path):
    folder = _mlruns(tmp_path)
    reports = _logs(api.doctor([tmp_path / "mlruns"]))
    assert [r.source for r in reports] == [str(folder)]
    assert reports[0].format == "mlflow-run"
    run = api.read_run(folder)
    loss = run.get("loss")
    assert run.roles["loss"] == "train/loss" and list(loss.steps) == [10, 20, 30, 40]
    assert math.isnan(loss.values[-1]) and loss.wall[1] == pytest.approx(1700000001.0)
    assert run.meta["run_name"] == "bright-owl-42" and run.meta["experiment"] == "tiny"
    assert run.meta["params"] == {"learning_rate": "0.001"} and run.meta["completed"] is True


def test_store_run_folders_leave_user_artifacts_to_other_inspectors(tmp_path):
    from trainlint.readers.grouping import find_group

    folder = _mlruns(tmp_path)
    art = _write(folder / "artifacts" / "train_log.jsonl", '{"step": 1, "loss": 2.0}\n')
    claims = find_group(folder).claims()
    assert folder / "metrics" / "train" / "loss" in claims and art not in claims
    assert str(art) in [r.source for r in _logs(api.doctor([tmp_path]))]
    wb = _wandb_history_folder(tmp_path)
    saved = _write(wb / "files" / "my_metrics.jsonl", '{"step": 1, "loss": 2.0}\n')
    claims = find_group(wb).claims()
    assert wb / "files" / "wandb-history.jsonl" in claims and saved not in claims


def test_mlflow_failed_run_and_damaged_metric_lines(tmp_path):
    folder = _mlruns(tmp_path, status=4)
    with open(folder / "metrics" / "lr", "a") as fh:
        fh.write("garbage\n1700000009000 0.001")  # a torn last line: no step
    run = api.read_run(folder)
    assert run.meta["mlflow_status"] == "FAILED" and run.meta["completed"] is False
    assert any("MLflow records this run as FAILED" in n for n in run.notes)
    assert any("line(s) 5, 6" in d.message for d in run.damage)
    assert len(run.series["lr"]) == 4  # a torn line without its step is damage, not a point


# ---------------------------------------------------------------- MLflow SQLite store


def test_mlflow_sqlite_store_each_run_judged(tmp_path):
    db = _db(tmp_path / "mlflow.db")
    before = sorted(p.name for p in tmp_path.iterdir())
    assert sniff(db).name == "mlflow-sqlite"
    reports = _logs(api.doctor([tmp_path]))
    assert [r.source for r in reports] == [f"{db}#aaa", f"{db}#bbb"]  # the deleted run is left out
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing written beside the database
    run = read_run(db)
    assert run.meta["run_id"] == "bbb" and run.meta["mlflow_status"] == "FAILED"
    loss = run.series["loss"]
    assert list(loss.steps) == [5, 10, 15] and math.isnan(loss.values[-1])
    assert list(loss.wall) == [2.0, 2.1, 2.2] and run.meta["params"] == {"lr": "0.1"}
    assert any("holds 2 runs" in n for n in run.notes)


def test_sqlite_file_that_is_not_mlflow_is_not_sniffed(tmp_path):
    con = sqlite3.connect(tmp_path / "other.db")
    con.execute("CREATE TABLE t (x)")
    con.commit()
    con.close()
    assert sniff(tmp_path / "other.db") is None


# ---------------------------------------------------------------- W&B run folders


def _wandb_history_folder(root: Path) -> Path:
    folder = root / "wandb" / "run-20240101_120000-abc123xy"
    rows = [
        {"_step": i, "_runtime": 1.0 + i, "_timestamp": 1700000000.0 + 2 * i, "loss": 2.0 - 0.1 * i, "lr": 1e-3}
        for i in range(6)
    ]
    _write(folder / "files" / "wandb-history.jsonl", "\n".join(json.dumps(r) for r in rows) + "\n")
    _write(folder / "files" / "wandb-summary.json", json.dumps({"loss": 1.5, "_runtime": 6, "_wandb": {"x": 1}}))
    _write(folder / "files" / "config.yaml", "wandb_version: 1\nlr:\n  value: 0.001\n")
    return folder


def test_wandb_history_folder(tmp_path):
    folder = _wandb_history_folder(tmp_path)
    reports = _logs(api.doctor([tmp_path]))
    assert [r.source for r in reports] == [str(folder)]  # the history file is not judged twice
    run = api.read_run(folder)
    assert run.format == "wandb-run" and list(run.get("loss").steps) == list(range(6))
    assert run.get("loss").wall[1] == pytest.approx(1700000002.0)
    assert run.meta["summary"] == {"loss": 1.5}
    assert not {"_runtime", "_timestamp", "_step"} & set(run.series)


def test_wandb_folder_without_history_is_not_checked(tmp_path):
    folder = tmp_path / "wandb" / "offline-run-20240101_120000-zz9"
    _write(folder / "files" / "wandb-metadata.json", "{}")
    reports = _logs(api.doctor([tmp_path]))
    assert len(reports) == 1 and reports[0].verdict.value == "NOT-CHECKED"
    assert "neither wandb-history.jsonl nor a run-*.wandb file" in reports[0].unjudged


def test_not_a_store_raises_a_one_line_reason(tmp_path):
    folder = tmp_path / "mlruns" / "0" / "deadbeef"
    _write(folder / "meta.yaml", "status: 3\n")
    (folder / "metrics").mkdir()
    with pytest.raises(ReadError, match="no metric values"):
        read_run(folder)


def test_wandb_binary_history_read_without_wandb(tmp_path):
    folder = _real_wandb_folder(tmp_path)
    reports = _logs(api.doctor([tmp_path]))
    assert [r.source for r in reports] == [str(folder)]
    run = api.read_run(folder)
    loss = run.get("loss")
    assert list(loss.steps) == list(range(12)) + [20]
    assert loss.values[9] == pytest.approx(1.1) and math.isnan(loss.values[10]) and loss.values[-1] == 0.5
    assert list(run.get("eval_loss").steps) == [3, 7, 11]
    assert np.all(np.diff(loss.wall) >= 0) and loss.wall[0] > 1.7e9
    assert run.meta["exit_code"] == 0 and run.meta["history_rows"] == 13
    assert run.meta["summary"] == {"loss": 0.5, "lr": 0.001, "eval/loss": 1.9}
    assert not run.damage


def test_wandb_binary_cut_short_is_read_as_far_as_intact(tmp_path):
    folder = _real_wandb_folder(tmp_path)
    path = folder / "run-lpc857b6.wandb"
    data = path.read_bytes()
    path.write_bytes(data[: len(data) * 2 // 3])
    run = api.read_run(folder)
    assert run.damage and run.damage[0].kind == "truncated"
    assert "history read up to there" in run.damage[0].message
    assert 0 < len(run.get("loss")) < 13


def test_wandb_binary_flipped_byte_is_a_checksum_mismatch(tmp_path):
    folder = _real_wandb_folder(tmp_path)
    path = folder / "run-lpc857b6.wandb"
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    run = api.read_run(folder)
    assert run.damage and "checksum mismatch" in run.damage[0].message


KERAS_SCRIPT = r"""
import sys, numpy as np, keras
keras.utils.set_random_seed(0)  # the initial weights too: an unseeded run is a different run each time
m = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
m.compile(keras.optimizers.SGD(float(sys.argv[2])), "mse")
x = np.random.RandomState(0).randn(64, 4).astype("float32"); y = x.sum(1)
m.fit(x, y, epochs=12, validation_split=0.25, verbose=0, callbacks=[keras.callbacks.CSVLogger(sys.argv[1])])
"""


@pytest.mark.slow
@pytest.mark.parametrize(("lr", "verdict"), [(0.05, "PASS"), (3.0, "FAIL")])
def test_real_keras_csvlogger(tmp_path, lr, verdict):
    import importlib.util
    import os
    import subprocess
    import sys

    if importlib.util.find_spec("keras") is None or importlib.util.find_spec("torch") is None:
        pytest.skip("keras with the torch backend is not installed")
    out = tmp_path / "training.log"
    env = {**os.environ, "KERAS_BACKEND": "torch", "PYTHONWARNINGS": "ignore", "OMP_NUM_THREADS": "1"}
    proc = subprocess.run(
        [sys.executable, "-c", KERAS_SCRIPT, str(out), repr(lr)],
        capture_output=True,
        text=True,
        env=env,
        timeout=240,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert out.read_bytes().startswith(b"epoch,")
    reports = _logs(api.doctor([tmp_path]))
    assert len(reports) == 1 and reports[0].format == "csv"
    run = api.read_run(out)
    assert run.meta["written_by"] == "keras" and list(run.get("loss").steps) == list(range(12))
    assert reports[0].verdict.value == verdict, [f.message for f in reports[0].findings]


def test_wandb_nested_keys_are_joined_with_a_slash():
    from trainlint.readers.wandb_run import _items

    # HistoryRecord.item as wandb 0.31 writes wandb.log({"train": {"loss": 1.9}, "eval/loss": 1}):
    # nested_key (field 2) parts and value_json (field 16).
    nested = b"\x12\x05train\x12\x04loss\x82\x01\x031.9"
    flat = b"\x12\teval/loss\x82\x01\x011"
    record = b"\x0a" + bytes([len(nested)]) + nested + b"\x0a" + bytes([len(flat)]) + flat
    assert _items(record) == {"train/loss": 1.9, "eval/loss": 1}


def test_yaml_without_pyyaml(tmp_path, monkeypatch):
    import sys

    from trainlint.yamlfile import flatten, load_yaml

    path = _write(
        tmp_path / "hparams.yaml",
        "lr: 0.0001\nmodel:\n  _target_: x.Y\n  layers: 4\n  name: 'tiny'  # a comment\n"
        "betas:\n- 0.9\n- 0.95\nuse_amp: true\nnothing: null\n",
    )
    monkeypatch.setitem(sys.modules, "yaml", None)  # import yaml raises ImportError
    data = load_yaml(path)
    assert flatten(data) == {
        "lr": 0.0001,
        "model._target_": "x.Y",
        "model.layers": 4,
        "model.name": "tiny",
        "use_amp": True,
        "nothing": None,
    }
    meta = load_yaml(_write(tmp_path / "meta.yaml", "run_id: abc\nstatus: 4\nexperiment_id: '1'\ntags: []\n"))
    assert meta["status"] == 4 and meta["experiment_id"] == "1" and meta["tags"] == []
