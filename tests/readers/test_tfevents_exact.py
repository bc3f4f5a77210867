"""Exactness: trainlint's event-file reader against tensorboard's EventAccumulator (test-only),
on files written by every writer style and on a real Lightning event file."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from tfevents_writers import MULTI_STEPS, MULTI_TAGS, WRITERS, ea_points, multi_tag

from trainlint.readers import read_run
from trainlint.readers.tensorboard import events, fast, proto, records
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


def exact_points(path: Path) -> dict[str, tuple[list, list, list]]:
    """tag -> (steps, values, wall times), every record decoded by the exact one-at-a-time path."""
    buf = path.read_bytes()
    framing = records.scan(buf)
    out: dict[str, tuple[list, list, list]] = {}
    for a, z in zip(framing.starts.tolist(), framing.ends.tolist()):
        ev = proto.decode_event(buf, a, z)
        for v in ev.values:
            assert v.kind == "simple"
            steps, values, wall = out.setdefault(v.tag.decode(), ([], [], []))
            steps.append(ev.step)
            values.append(v.simple)
            wall.append(ev.wall)
    return out


@pytest.mark.parametrize("writer", ["tensorboardX", "torch"])
def test_multi_tag_layout_takes_the_fast_path_and_reads_as_the_exact_decoder(writer, tmp_path, monkeypatch):
    path = multi_tag(tmp_path, writer)
    buf = path.read_bytes()
    framing = records.scan(buf)
    mem = fast.Mem(buf)
    ok, _, _, after = fast.event_header(mem, framing.starts, framing.ends)
    quick = ok & (fast.quick_values(mem, after, framing.ends)["kind"] == 0)
    assert not quick[0] and quick[1:].all()  # all but the file-version record: one simple value each
    assert framing.starts.shape[0] == 1 + len(MULTI_STEPS) * len(MULTI_TAGS)

    off_fast: list[int] = []  # records the decoder sends past the bulk path
    generic = events._Decoder._generic_columns
    monkeypatch.setattr(
        events._Decoder,
        "_generic_columns",
        lambda self, recs, *a: off_fast.append(recs.size) or generic(self, recs, *a),
    )
    run = read_run(path)
    assert off_fast == [1]
    ref = exact_points(path)
    assert sorted(run.series) == sorted(ref) == sorted(MULTI_TAGS)
    for tag, (steps, values, wall) in ref.items():
        s = run.series[tag]
        assert list(s.steps) == [float(x) for x in steps] == [float(x) for x in MULTI_STEPS], tag
        assert np.array_equal(bits(s.values), bits(np.array(values))), tag
        assert np.array_equal(bits(s.wall), bits(np.array(wall))), tag
    assert_same_as_ea(path)
