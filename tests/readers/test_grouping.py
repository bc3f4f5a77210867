"""Discovery groups the files of one run and judges it once; complementary series are merged."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest
from test_grouping_runs import hf_run, lightning_run

from trainlint import api
from trainlint.discover import walk
from trainlint.model import Run
from trainlint.readers import READERS, load_readers
from trainlint.readers.base import Reader
from trainlint.readers.grouping import find_group, merge_into, read_group, registered


def _state(steps, losses, global_step=None) -> str:
    hist = [{"step": s, "loss": v, "learning_rate": 1e-4, "epoch": s / 100} for s, v in zip(steps, losses)]
    return json.dumps({"global_step": global_step or steps[-1], "log_history": hist})


def _write(path: Path, text: str, mtime: float | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    if mtime is not None:
        os.utime(path, (mtime, mtime))
    return path


@pytest.fixture
def stub_events():
    """A reader of TensorBoard event files built on tensorboard's own loader, for as long as the
    project's own "tfevents" reader is not registered (the real one wins once it is)."""
    load_readers()
    if registered("tfevents"):
        yield "tfevents"
        return
    acc_mod = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")

    def read(path: Path) -> Run:
        acc = acc_mod.EventAccumulator(str(path))
        acc.Reload()
        run = Run(str(path), "tfevents-stub", files=[str(path)])
        for tag in acc.Tags()["scalars"]:
            ev = acc.Scalars(tag)
            run.add(tag, [e.step for e in ev], [e.value for e in ev], [e.wall_time for e in ev])
        return run

    stub = Reader("tfevents-stub", lambda p, h: p.name.startswith("events.out.tfevents."), read, -100)
    READERS.insert(0, stub)
    try:
        yield stub.name
    finally:
        READERS.remove(stub)


@pytest.fixture(scope="module")
def hf_dir(tmp_path_factory) -> Path:
    return hf_run(tmp_path_factory.mktemp("hf") / "out")


@pytest.fixture(scope="module")
def pl_dir(tmp_path_factory) -> Path:
    return lightning_run(tmp_path_factory.mktemp("pl"))


def _logs(result):
    return [r for r in result.reports if r.kind == "log"]


# ---------------------------------------------------------------- HF output dirs


@pytest.mark.slow
def test_hf_output_dir_judged_once_newest_copy_wins(hf_dir):
    reports = _logs(api.doctor([hf_dir]))
    assert len(reports) == 1, [r.source for r in reports]
    rep = reports[0]
    assert rep.source == str(hf_dir)
    assert rep.files[0] == str(hf_dir / "checkpoint-40" / "trainer_state.json")
    assert any("checkpoint-20/trainer_state.json (step 20)" in n for n in rep.notes), rep.notes
    assert rep.summary["last_step"] == 40.0
    assert not any("checkpoint-" in str(item.path.parent.name) for item in walk(hf_dir) if item.inspector.kind == "log")


@pytest.mark.slow
def test_hf_trainer_state_gains_a_clock_from_its_event_file(hf_dir, stub_events):
    run = read_group(find_group(hf_dir))
    events = [f for f in run.files if "events.out.tfevents." in f]
    assert len(events) == 1 and "/runs/" in events[0]
    assert run.format.startswith("hf-trainer-state+")
    loss = run.get("loss") if run.roles else run.series["loss"]
    assert loss.wall is not None and np.isfinite(loss.wall).all()
    st = run.series["step_time"]
    assert len(st) == len(loss) - 1 and (st.values >= 0).all()
    assert np.allclose(st.values, np.diff(loss.wall) / np.diff(loss.steps))
    assert run.meta["step_time_derived"] is True


def test_stale_top_level_state_loses_to_a_longer_checkpoint_copy(tmp_path):
    _write(tmp_path / "trainer_state.json", _state([5, 10, 15], [3.0, 2.5, 2.0]), mtime=2_000_000)
    _write(
        tmp_path / "checkpoint-30" / "trainer_state.json",
        _state([5, 10, 15, 20, 25, 30], [3.0, 2.5, 2.0, 1.8, 1.7, 1.6]),
        mtime=1_000_000,
    )
    _write(tmp_path / "checkpoint-15" / "trainer_state.json", _state([5, 10, 15], [3.0, 2.5, 2.0]))
    run = read_group(find_group(tmp_path))
    assert run.files == [str(tmp_path / "checkpoint-30" / "trainer_state.json")]
    assert run.summary()["last_step"] == 30.0
    note = next(n for n in run.notes if n.startswith("older copies"))
    assert "trainer_state.json (step 15)" in note and "checkpoint-15/trainer_state.json (step 15)" in note


def test_a_run_folder_reads_as_one_run_wherever_a_log_is_accepted(tmp_path):
    _write(tmp_path / "trainer_state.json", _state([5, 10, 15], [3.0, 2.5, 2.0]), mtime=1_000_000)
    _write(tmp_path / "checkpoint-20" / "trainer_state.json", _state([5, 10, 15, 20], [3.0, 2.5, 2.0, 1.9]))
    run = api.read_run(tmp_path)
    assert run.format == "hf-trainer-state" and run.meta["run_group"] == "hf-output"
    assert run.summary()["last_step"] == 20.0 and run.source == str(tmp_path)


def test_same_length_copies_the_newest_wins(tmp_path):
    _write(tmp_path / "checkpoint-10" / "trainer_state.json", _state([5, 10], [3.0, 2.0]), mtime=1_000_000)
    _write(tmp_path / "trainer_state.json", _state([5, 10], [3.0, 2.0]), mtime=2_000_000)
    run = read_group(find_group(tmp_path))
    assert run.files == [str(tmp_path / "trainer_state.json")]


def test_a_lone_trainer_state_is_judged_as_a_file(tmp_path):
    state = _write(tmp_path / "healthy" / "trainer_state.json", _state([5, 10, 15], [3.0, 2.5, 2.0]))
    _write(tmp_path / "healthy" / "run_meta.json", json.dumps({"seed": 42}))
    reports = _logs(api.doctor([tmp_path]))
    assert [r.source for r in reports] == [str(state)]


def test_model_config_and_dataset_are_linked_to_the_run(tmp_path):
    _write(tmp_path / "trainer_state.json", _state([5, 10, 15], [3.0, 2.5, 2.0]))
    _write(tmp_path / "config.json", json.dumps({"model_type": "qwen2", "vocab_size": 151936}))
    _write(tmp_path / "train.jsonl", '{"text": "hello"}\n')
    _write(tmp_path / "tokenizer.json", "{}")
    reports = _logs(api.doctor([tmp_path]))
    assert [r.source for r in reports] == [str(tmp_path)]
    run = read_group(find_group(tmp_path))
    assert run.meta["vocab_size"] == 151936
    assert run.meta["dataset_path"] == str(tmp_path / "train.jsonl")
    assert run.meta["tokenizer_path"] == str(tmp_path / "tokenizer.json")


def test_vocab_size_from_a_checkpoint_config_and_nested_text_config(tmp_path):
    _write(tmp_path / "checkpoint-10" / "trainer_state.json", _state([5, 10], [3.0, 2.0]))
    _write(tmp_path / "checkpoint-10" / "config.json", json.dumps({"text_config": {"vocab_size": 32000}}))
    _write(tmp_path / "checkpoint-9" / "config.json", json.dumps({"vocab_size": 1}))
    _write(tmp_path / "trainer_state.json", _state([5, 10], [3.0, 2.0]))
    run = read_group(find_group(tmp_path))
    assert run.meta["vocab_size"] == 32000
    assert run.meta["model_config_path"].endswith("checkpoint-10/config.json")
    assert "linked to this run: vocab_size 32000, model_config checkpoint-10/config.json" in run.notes


def test_a_trainer_state_read_alone_takes_the_vocab_size_of_the_config_beside_it(tmp_path):
    """Judged as one file (a checkpoint-N/trainer_state.json named on the command line), the state
    still knows its model's vocabulary: TL035 needs it to judge a first loss against ln V."""
    from trainlint.readers import read_run

    state = tmp_path / "checkpoint-500" / "trainer_state.json"
    _write(state, _state([5, 10], [18.9, 12.0]))
    assert "vocab_size" not in read_run(state).meta
    _write(state.parent / "config.json", json.dumps({"model_type": "qwen2", "vocab_size": 151646}))
    run = read_run(state)
    assert run.meta["vocab_size"] == 151646 and run.meta["model_config_path"] == str(state.parent / "config.json")


def test_without_a_config_the_tokenizer_beside_the_state_gives_the_vocabulary(tmp_path):
    from trainlint.readers import read_run

    state = tmp_path / "trainer_state.json"
    _write(state, _state([5, 10], [18.9, 12.0]))
    tokenizer = {"model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "c": 151642}}, "added_tokens": [{"id": 151645}]}
    _write(tmp_path / "tokenizer.json", json.dumps(tokenizer))
    run = read_run(state)
    assert run.meta["vocab_size"] == 151646 and run.meta["vocab_source"] == str(tmp_path / "tokenizer.json")
    assert read_group(find_group(tmp_path)).meta["vocab_size"] == 151646
    _write(tmp_path / "tokenizer.json", json.dumps({"model": {"type": "Unigram", "vocab": [["a", 0.0]] * 300}}))
    assert read_run(state).meta["vocab_size"] == 300
    _write(tmp_path / "tokenizer.json", "[1, 2]")  # no tokenizer: no vocabulary, no error
    assert "vocab_size" not in read_run(state).meta


# ---------------------------------------------------------------- merging


def _run(steps, loss, wall=None, name="loss") -> Run:
    run = Run("x", "fmt")
    run.add(name, steps, loss, wall)
    return run


def test_merge_lends_clock_and_takes_missing_roles():
    primary = _run([10, 20, 30, 40], [3.0, 2.0, 1.5, 1.2])
    other = _run([10, 20, 30, 40], [3.0, 2.0, 1.5, 1.2], [100.0, 110.0, 130.0, 160.0], name="train/loss")
    other.add("eval/loss", [20, 40], [2.5, 2.0], [111.0, 161.0])
    assert merge_into(primary, other, "events")
    assert "eval/loss" in primary.series
    assert list(primary.series["loss"].wall) == [100.0, 110.0, 130.0, 160.0]
    st = primary.series["step_time"]
    assert list(st.steps) == [20, 30, 40] and list(st.values) == [1.0, 2.0, 3.0]
    assert list(primary.series["it/s"].values) == pytest.approx([1.0, 0.5, 1 / 3])


def test_merge_refuses_a_record_of_another_run():
    primary = _run([10, 20, 30, 40], [3.0, 2.0, 1.5, 1.2])
    other = _run([1, 2, 3, 4], [3.0, 2.0, 1.5, 1.2], [1.0, 2.0, 3.0, 4.0])
    assert not merge_into(primary, other, "elsewhere.log")
    assert primary.series["loss"].wall is None and "step_time" not in primary.series
    assert any("do not match" in n for n in primary.notes)


def test_merge_refuses_another_launch_logged_at_the_same_steps():
    primary = _run([10, 20, 30, 40], [3.0, 2.0, 1.5, 1.2])
    other = _run([10, 20, 30, 40], [2.9, 2.2, 1.7, 1.0], [1.0, 2.0, 3.0, 4.0])
    assert not merge_into(primary, other, "runs/old/events")
    assert primary.series["loss"].wall is None


def test_merge_accepts_float32_rounding_and_matching_nan():
    primary = _run([10, 20, 30], [3.0000001, 0.1234567, float("nan")])
    other = _run([10, 20, 30], [np.float32(3.0000001), np.float32(0.1234567), np.nan], [1.0, 2.0, 3.0])
    assert merge_into(primary, other, "events")
    assert list(primary.series["loss"].wall) == [1.0, 2.0, 3.0]


def test_two_launches_clock_the_run_together():
    primary = _run([10, 20, 30, 40, 50, 60], [3.0, 2.0, 1.5, 1.2, 1.1, 1.0])
    first = _run([10, 20, 30], [3.0, 2.0, 1.5], [100.0, 110.0, 120.0])
    second = _run([40, 50, 60], [1.2, 1.1, 1.0], [500.0, 505.0, 510.0])
    assert merge_into(primary, first, "runs/a/events")  # half the steps: still the same run
    assert merge_into(primary, second, "runs/b/events")
    assert list(primary.series["loss"].wall) == [100.0, 110.0, 120.0, 500.0, 505.0, 510.0]
    st = primary.series["step_time"]
    assert list(st.values) == [1.0, 1.0, 38.0, 0.5, 0.5]  # the restart gap shows as one slow interval
    assert sum("derived from the wall clock" in n for n in primary.notes) == 1


def test_merge_keeps_the_primary_clock_and_step_time():
    primary = _run([10, 20], [3.0, 2.0], [5.0, 6.0])
    primary.add("step_time", [10, 20], [0.1, 0.1])
    other = _run([10, 20], [3.0, 2.0], [100.0, 200.0])
    merge_into(primary, other, "x")
    assert list(primary.series["loss"].wall) == [5.0, 6.0]
    assert list(primary.series["step_time"].values) == [0.1, 0.1]


# ---------------------------------------------------------------- Lightning and Coqui folders


@pytest.mark.slow
def test_lightning_version_folder_is_one_run_with_hparams(pl_dir):
    reports = _logs(api.doctor([pl_dir.parent.parent]))
    assert [r.source for r in reports] == [str(pl_dir)]
    run = read_group(find_group(pl_dir))
    assert run.meta["hparams"] == {"lr": 0.05}
    assert run.meta["run_group"] == "lightning"
    assert str(pl_dir / "metrics.csv") in run.files


@pytest.mark.slow
def test_lightning_csv_gains_a_clock_from_its_event_file(pl_dir, stub_events):
    run = read_group(find_group(pl_dir))
    assert run.files[0] == str(pl_dir / "metrics.csv") and len(run.files) == 2
    loss = run.series["train_loss_step"]
    assert loss.wall is not None and np.isfinite(loss.wall).all()
    assert "step_time" in run.series


def test_coqui_run_folder_groups_text_log_and_events(tmp_path, stub_events):
    _write(tmp_path / "trainer_0_log.txt", "x\n")
    (tmp_path / "events.out.tfevents.1.host.1.0").write_bytes(b"\x00")
    _write(tmp_path / "config.json", "{}")
    group = find_group(tmp_path)
    assert group.convention == "coqui"
    names = [p.name for p in group.logs]
    assert "events.out.tfevents.1.host.1.0" in names


def test_unrecognised_event_files_form_no_group(tmp_path):
    load_readers()
    if registered("tfevents"):
        pytest.skip("a tfevents reader is registered")
    _write(tmp_path / "hparams.yaml", "lr: 0.1\n")
    (tmp_path / "events.out.tfevents.1.host.1.0").write_bytes(b"\x00" * 16)
    assert find_group(tmp_path) is None
    assert _logs(api.doctor([tmp_path])) == []


def test_evidence_every_log_judged_once(evidence):
    reports = _logs(api.doctor([evidence]))
    states = sorted(r.source for r in reports if r.source.endswith("trainer_state.json"))
    assert len(states) == 6
    assert not any(r.source.endswith("run_meta.json") for r in reports)
    assert len({r.source for r in reports}) == len(reports)


def test_cli_names_the_files_of_a_run(cli, tmp_path):
    _write(tmp_path / "out" / "checkpoint-10" / "trainer_state.json", _state([5, 10], [3.0, 2.0]))
    _write(tmp_path / "out" / "checkpoint-20" / "trainer_state.json", _state([5, 10, 15, 20], [3.0, 2.0, 1.8, 1.7]))
    _write(tmp_path / "out" / "config.json", json.dumps({"vocab_size": 1000}))
    r = cli("doctor", tmp_path, "--format", "json")
    reports = [rep for rep in r.json()["reports"] if rep["kind"] == "log"]
    assert len(reports) == 1
    rep = reports[0]
    assert rep["source"] == str(tmp_path / "out")
    assert rep["files"] == [str(tmp_path / "out" / "checkpoint-20" / "trainer_state.json")]
    assert any("checkpoint-10/trainer_state.json (step 10)" in n for n in rep["notes"])
    text = cli("doctor", tmp_path / "out")
    assert str(tmp_path / "out") in text.out and "older copies not judged" not in text.err


def test_a_reader_bug_in_a_run_folder_is_not_checked_not_a_traceback(tmp_path, monkeypatch):
    from trainlint.readers import grouping

    _write(tmp_path / "trainer_state.json", _state([5, 10], [3.0, 2.0]))
    _write(tmp_path / "checkpoint-10" / "trainer_state.json", _state([5, 10], [3.0, 2.0]))

    def broken(group, options=None):
        raise KeyError("boom")

    monkeypatch.setattr(grouping, "read_group", broken)
    monkeypatch.delenv("TRAINLINT_DEBUG", raising=False)
    reports = _logs(api.doctor([tmp_path]))
    assert len(reports) == 1 and reports[0].verdict.value == "NOT-CHECKED"
    assert reports[0].unjudged == "could not read this run: KeyError: 'boom'"
    assert str(tmp_path / "trainer_state.json") in reports[0].files


def test_llamafactory_output_dir_trainer_log_gives_the_clock(tmp_path):
    losses = [2.123456, 1.51844, 1.20001, 0.012345]
    _write(tmp_path / "trainer_state.json", _state([5, 10, 15, 20], losses))
    rows = [
        {
            "current_steps": 5 * (i + 1),
            "total_steps": 20,
            "loss": round(v, 4),
            "lr": 1e-4,
            "epoch": 0.1,
            "percentage": 25.0 * (i + 1),
            "elapsed_time": f"0:00:{10 * (i + 1):02d}",
            "remaining_time": "0:00:10",
        }
        for i, v in enumerate(losses)
    ]
    _write(tmp_path / "trainer_log.jsonl", "\n".join(json.dumps(r) for r in rows) + "\n")
    reports = _logs(api.doctor([tmp_path]))
    assert [r.source for r in reports] == [str(tmp_path)]
    assert reports[0].files == [str(tmp_path / "trainer_state.json"), str(tmp_path / "trainer_log.jsonl")]
    run = read_group(find_group(tmp_path))
    assert run.format == "hf-trainer-state+llamafactory"
    assert list(run.series["loss"].wall) == [10.0, 20.0, 30.0, 40.0]
    assert list(run.series["step_time"].values) == [2.0, 2.0, 2.0]


def test_damage_to_a_companion_file_is_the_runs_damage(tmp_path):
    """A run judged from trainer_state.json plus a cut event file reports the cut (TL100)."""
    import json

    from trainlint.api import Options, doctor
    from trainlint.config import Settings

    tb = __import__("pytest").importorskip("torch.utils.tensorboard")
    out = tmp_path / "out"
    (out / "runs").mkdir(parents=True)
    hist = [{"step": s, "loss": 2.0 / s, "learning_rate": 1e-3} for s in range(1, 31)]
    (out / "trainer_state.json").write_text(json.dumps({"global_step": 30, "log_history": hist}))
    w = tb.SummaryWriter(str(out / "runs"))
    for e in hist:
        w.add_scalar("train/loss", e["loss"], e["step"])
    w.close()
    ev = next((out / "runs").glob("events.out.tfevents*"))
    size = len(ev.read_bytes()) - 7
    ev.write_bytes(ev.read_bytes()[:size])
    (rep,) = [r for r in doctor([out], Options(settings=Settings())).reports if r.kind == "log"]
    assert len(rep.files) == 2
    hits = [f for f in rep.findings if f.code == "TL100"]
    assert hits and hits[0].message.startswith("runs/events.out.tfevents")
    assert hits[0].evidence["kind"] == "truncated" and hits[0].evidence["file_size"] == size
    assert 7 < hits[0].evidence["bytes_lost"] < 64  # the record the cut went through
