"""Metric tables and JSON logs of real training scripts found outside the corpus (round 14e):
made-up rows in the shapes seen, each test naming where its shape was seen."""

from __future__ import annotations

import json

import pytest

from trainlint.api import read_run
from trainlint.readers import reader_named
from trainlint.readers.base import ReadError
from trainlint.readers.stream import open_stream


def _ends(run, name):
    s = run.series[name]
    return len(s.steps), float(s.steps[0]), float(s.steps[-1]), float(s.values[0]), float(s.values[-1])


def _gan_rows(epochs, batches, first_batch=0):
    rows = []
    for e in range(epochs):
        for b in range(first_batch, first_batch + batches):
            rows.append(f"{e},{b},{0.7 + 0.01 * (e * batches + b)},{1.4 - 0.01 * (e * batches + b)}\n")
    return rows


def test_a_batch_count_that_restarts_each_epoch_makes_the_step(tmp_path):
    # shape seen in 0111yoyo/GAN1202 training_log.csv @ 6e82f106d7114ab0c9eee3350512244c3d76009f:
    # csv.writer rows [epoch, batch_idx, g_loss, d_loss] once a batch, the batch from 0 each epoch
    path = tmp_path / "training_log.csv"
    path.write_text("Epoch,Batch,Gen Loss,Disc Loss\n" + "".join(_gan_rows(3, 21)))
    run = read_run(path)
    assert run.roles["loss"] == "Gen Loss" and "Batch" not in run.series
    n, first, last, v0, v1 = _ends(run, "Gen Loss")
    assert (n, first, last) == (63, 0.0, 62.0) and v0 == pytest.approx(0.7) and v1 == pytest.approx(1.32)
    assert run.meta.get("steps_are") != "epochs"
    assert any("Batch counts again from 0 each Epoch" in note for note in run.notes)


def test_a_one_based_iter_column_per_epoch_and_a_running_count(tmp_path):
    per_epoch = tmp_path / "log.csv"  # epoch,iter,loss: iter 1..3 in each epoch, epochs from 1
    per_epoch.write_text(
        "epoch,iter,loss\n" + "".join(f"{e},{i},{3 - 0.1 * (3 * e + i)}\n" for e in (1, 2, 3, 4) for i in (1, 2, 3))
    )
    run = read_run(per_epoch)
    assert [float(s) for s in run.series["loss"].steps] == [float(s) for s in range(1, 13)]
    running = tmp_path / "running.csv"  # a batch count that goes on across epochs stays the step
    running.write_text("epoch,batch,loss\n" + "".join(f"{b // 5},{b},{2 - b / 100}\n" for b in range(20)))
    steps = [float(s) for s in read_run(running).series["loss"].steps]
    assert steps == [float(b) for b in range(20)]
    lightning = tmp_path / "metrics.csv"  # Lightning's epoch,step: a global step, untouched
    lightning.write_text("epoch,step,train_loss\n" + "".join(f"{s // 10},{s},{2 - s / 100}\n" for s in range(30)))
    assert [float(s) for s in read_run(lightning).series["train_loss"].steps] == [float(s) for s in range(30)]


def test_the_batch_steps_are_the_same_streamed(tmp_path):
    path = tmp_path / "training_log.csv"
    text = "Epoch,Batch,Gen Loss,Disc Loss\n" + "".join(_gan_rows(3, 7))
    path.write_text("")
    stream, steps = open_stream(path, reader_named("csv")), []
    for cut in range(0, len(text), 97):  # a writer flushing anywhere, even inside a row
        with open(path, "a") as fh:
            fh.write(text[cut : cut + 97])
        frag = stream.poll()
        if frag is not None and "Gen Loss" in frag.series:
            steps += frag.series["Gen Loss"].steps.tolist()
    frag = stream.poll()
    if frag is not None and "Gen Loss" in frag.series:
        steps += frag.series["Gen Loss"].steps.tolist()
    assert steps == read_run(path).series["Gen Loss"].steps.tolist() == [float(s) for s in range(21)]


def test_json_lines_that_nest_their_splits(tmp_path):
    # shape seen in a README's runs/<name>/log.jsonl and a test's metrics.jsonl (json.dumps of
    # {"epoch": e, "train": {...}, "val": {...}} once an epoch), e.g. code id 35256098637, 70189342673
    path = tmp_path / "log.jsonl"
    lines = [
        {"epoch": e, "train": {"loss": 5.0 - 0.2 * e, "top1": e}, "val": {"loss": 5.1 - 0.15 * e, "top1": e}, "lr": 0.1}
        for e in range(12)
    ]
    path.write_text("".join(json.dumps(obj) + "\n" for obj in lines))
    run = read_run(path)
    assert run.format == "jsonl"
    assert run.roles["loss"] == "train/loss" and run.roles["eval_loss"] == "val/loss"
    assert _ends(run, "train/loss") == (12, 0.0, 11.0, 5.0, pytest.approx(2.8))
    assert _ends(run, "val/top1")[0] == 12 and "lr" in run.series
    config = tmp_path / "config.json"  # one line of nested settings: a config, not claimed
    config.write_text('{"optimizer": {"lr": 0.001}, "loss": {"name": "ce", "weight": 1.0}}\n')
    with pytest.raises(ReadError):
        read_run(config)


def _wandb_rows(runs, n=15):
    def cells(i):
        return "".join(f',"{2.0 - 0.1 * i + k}"' * 3 for k in range(runs))

    return "".join(f'"{10 * i}"{cells(i)}\n' for i in range(n))


def test_a_wandb_panel_export_drops_its_band_and_never_sums_its_runs(tmp_path):
    # the shape of a W&B panel's "Export CSV" as scripts read it (pandas names like
    # "playful-sun-1763 - train/loss", "..__MIN", "..__MAX": code ids 66001925019, 31450972624)
    one = tmp_path / "wandb_export_2024-12-27T01_42_23.467+01_00.csv"

    def band(run):
        return f'"{run} - train/loss","{run} - train/loss__MIN","{run} - train/loss__MAX"'

    one.write_text(f'"Step",{band("brisk-pond-1")}\n' + _wandb_rows(1))
    run = read_run(one)
    assert list(run.series) == ["train/loss"] and run.roles["loss"] == "train/loss"
    assert _ends(run, "train/loss") == (15, 0.0, 140.0, 2.0, pytest.approx(0.6))
    two = tmp_path / "wandb_export_two.csv"
    two.write_text(f'"Step",{band("playful-sun-1763")},{band("true-pond-1762")}\n' + _wandb_rows(2))
    run = read_run(two)
    assert sorted(run.series) == ["playful-sun-1763 - train/loss", "true-pond-1762 - train/loss"]
    assert run.roles["loss"] == "playful-sun-1763 - train/loss"
    assert any("a W&B export of 2 runs" in note for note in run.notes)


def test_a_keras_history_printed_into_a_json_string(tmp_path):
    # json.dump(str(history.history), f): shape seen in deep-projects/pcam-with-dvc-cc-sshfs
    # outputs/all-history.json @ 4d7a1030c9ba9bcc37ff21c3d385168bc2dee084 (written by 10+ scripts)
    history = {
        "loss": [round(0.9 - 0.02 * e, 4) for e in range(15)],
        "accuracy": [0.5 + e / 100 for e in range(15)],
        "val_loss": [round(0.95 - 0.015 * e, 4) for e in range(15)],
    }
    path = tmp_path / "all-history.json"
    path.write_text(json.dumps(str(history)))
    run = read_run(path)
    assert run.format == "json-records"
    assert run.roles["loss"] == "loss" and run.roles["eval_loss"] == "val_loss"
    assert _ends(run, "loss") == (15, 1.0, 15.0, 0.9, pytest.approx(0.62))
    assert any("printed dict" in note for note in run.notes)
    txt = tmp_path / "history.txt"  # the same string written to a .txt: the console reader's printed dict
    txt.write_text(json.dumps(str(history)))
    assert _ends(read_run(txt), "loss") == (15, 1.0, 15.0, 0.9, pytest.approx(0.62))
    config = tmp_path / "config.json"  # a JSON string that is no printed history: not claimed
    config.write_text(json.dumps("{'loss': 'mse', 'optimizer': 'adam'}"))
    with pytest.raises(ReadError):
        read_run(config)
