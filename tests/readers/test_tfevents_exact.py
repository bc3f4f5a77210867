"""Exactness: trainlint's event-file reader against tensorboard's EventAccumulator (test-only),
on files written by every writer style and on a real Lightning event file."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from tfevents_writers import WRITERS, ea_points

from trainlint.readers import read_run
from trainlint.roles import assign_roles

ROOT = Path(__file__).resolve().parents[2]


def bits(a: np.ndarray) -> np.ndarray:
    return np.asarray(a, dtype=np.float64).view(np.uint64)


def assert_same_as_ea(path: Path) -> dict:
    ref = ea_points(path)
    run = read_run(path)
    assert run.format == "tfevents"
    assert sorted(run.series) == sorted(ref)
    for tag, (steps, wall, values) in ref.items():
        s = run.series[tag]
        assert len(s) == len(values), tag
        assert np.array_equal(s.steps, steps), tag
        assert np.array_equal(bits(s.values), bits(values)), tag
        assert np.array_equal(bits(s.wall), bits(wall)), tag
    assert not run.damage
    return run


STYLES = [pytest.param(s, marks=pytest.mark.slow) if s == "lightning" else s for s in sorted(WRITERS)]


@pytest.mark.parametrize("style", STYLES)  # lightning: slow to import
def test_same_as_event_accumulator(style, tmp_path):
    path = WRITERS[style](tmp_path)
    run = assert_same_as_ea(path)
    assert sum(len(s) for s in run.series.values()) > 20


def test_writer_specifics(tmp_path):
    run = assert_same_as_ea(WRITERS["torch"](tmp_path / "a"))
    loss = run.series["train/loss"].values
    assert np.isnan(loss[3]) and loss[5] == np.inf and loss[6] == -np.inf
    assert run.series["big_step"].steps[0] == 2.0**40
    assert "weights" not in run.series and "img" not in run.series and "note" not in run.series
    assert any("not read as scalars" in n for n in run.notes)

    run = assert_same_as_ea(WRITERS["odd-tensors"](tmp_path / "b"))
    assert run.series["half"].values[0] == 1.5
    assert run.series["half_content"].values[0] == -2.25
    assert run.series["int64"].values[0] == -7
    assert list(run.series["half"].steps) == [-5, 0, 3, 2**35]


@pytest.mark.slow
def test_lightning_hparams_and_roles(tmp_path):
    run = assert_same_as_ea(WRITERS["lightning"](tmp_path / "c"))
    assert run.meta["hparams"] == {"lr": 0.001, "batch_size": 32.0, "optimizer": "AdamW", "amp": True}
    roles = assign_roles(run.series)
    assert roles["loss"] == "train/loss" and roles["eval_loss"] == "val/loss"
    assert roles["learning_rate"] == "train/learning_rate"


def test_real_lightning_file(evidence):
    path = next((evidence / "fish-speech-lightning").glob("events.out.tfevents.*"))
    run = assert_same_as_ea(path)
    assert len(run.series["val/loss"]) == 82 and len(run.series["train/loss"]) == 41
    assert run.meta["hparams"]["trainer/max_steps"] == 8080
    roles = assign_roles(run.series)
    assert roles["loss"] == "train/loss" and roles["eval_loss"] == "val/loss"
    assert roles["learning_rate"] == "lr-AdamW/pg1" and roles["grad_norm"] == "train/grad_norm"
    val = run.series["val/loss"]
    assert val.steps[int(np.argmin(val.values))] == 99 and val.values[-1] > 16


def test_doctor_reads_real_event_file(evidence, cli):
    res = cli("doctor", evidence / "fish-speech-lightning", "--format", "json")
    reports = [r for r in res.json()["reports"] if r.get("format") == "tfevents"]
    assert len(reports) == 1 and reports[0]["verdict"] != "NOT-CHECKED"
    roles = reports[0]["summary"]["roles"]
    assert roles["loss"] == "train/loss" and roles["eval_loss"] == "val/loss"


def test_doctor_on_a_cut_real_file_warns_and_judges_the_rest(evidence, cli, tmp_path):
    real = next((evidence / "fish-speech-lightning").glob("events.out.tfevents.*"))
    cut = tmp_path / real.name
    data = real.read_bytes()
    cut.write_bytes(data[: len(data) - 1000])
    report = cli("doctor", cut, "--format", "json").json()["reports"][0]
    tl100 = [f for f in report["findings"] if f["code"] == "TL100"]
    assert len(tl100) == 1 and tl100[0]["category"] == "integrity"
    assert "file cut short at byte" in tl100[0]["message"] and "lost" in tl100[0]["message"]
    assert report["summary"]["roles"]["eval_loss"] == "val/loss"
    assert report["summary"]["loss_points"] >= 40


def test_benchmark_layouts_match_event_accumulator(tmp_path):
    """The benchmark's generated file (every scalar layout, images, histograms) reads exactly."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_tfevents", ROOT / "benchmarks" / "bench_tfevents.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    path = tmp_path / "events.out.tfevents.1.bench"
    bench.generate(path, 6000)  # > BULK_MIN short records: the bulk data-CRC path
    run = assert_same_as_ea(path)
    assert sum(len(s) for s in run.series.values()) == 6000
