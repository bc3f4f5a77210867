"""Readers against well-formed and nasty inputs: a correct read, or a one-line ReadError."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from trainlint.api import read_run
from trainlint.readers import ReadError, sniff


def hf_state(entries, **top):
    return json.dumps(
        {"global_step": 30, "max_steps": 30, "logging_steps": 10, **top, "log_history": entries}, indent=2
    )


TRAIN = [
    {"step": 10, "epoch": 0.1, "loss": 2.0, "grad_norm": 1.5, "learning_rate": 1e-4},
    {"step": 20, "epoch": 0.2, "loss": 1.5, "grad_norm": 1.2, "learning_rate": 9e-5},
    {"step": 20, "epoch": 0.2, "eval_loss": 1.7, "eval_runtime": 3.0},
    {"step": 30, "epoch": 0.3, "loss": 1.2, "grad_norm": 1.0, "learning_rate": 8e-5},
    {"step": 30, "epoch": 0.3, "train_runtime": 100.0, "train_loss": 1.5, "total_flos": 1e12},
]


def test_hf_trainer_state(tmp_path):
    p = tmp_path / "trainer_state.json"
    p.write_text(hf_state(TRAIN, best_model_checkpoint="out/checkpoint-20"))
    run = read_run(p)
    assert run.format == "hf-trainer-state"
    assert run.roles["loss"] == "loss" and run.roles["eval_loss"] == "eval_loss"
    assert run.get("loss").steps.tolist() == [10, 20, 30]
    assert run.get("loss").values.tolist() == [2.0, 1.5, 1.2]
    assert run.get("eval_loss").steps.tolist() == [20]
    assert "train_loss" not in run.series  # the final summary entry is excluded
    assert run.meta["max_steps"] == 30 and run.meta["completed"] is True
    assert run.meta["best_model_checkpoint"] == "out/checkpoint-20"


def test_hf_saved_control_state(tmp_path):
    """transformers 4.39+ save the callbacks' state with the Trainer's: should_training_stop and
    EarlyStoppingCallback's patience counter reach the meta, on the fast path and the general one
    (an entry with a text value takes the general one); an older file has neither."""
    import json

    control = {
        "TrainerControl": {"args": {"should_epoch_stop": False, "should_training_stop": True}, "attributes": {}},
        "EarlyStoppingCallback": {
            "args": {"early_stopping_patience": 3, "early_stopping_threshold": 0.0},
            "attributes": {"early_stopping_patience_counter": 3},
        },
    }
    for entries in (TRAIN[:4], [*TRAIN[:4], {"step": 30, "note": "text"}]):
        p = tmp_path / "trainer_state.json"
        p.write_text(
            json.dumps({"global_step": 20, "max_steps": 90, "log_history": entries, "stateful_callbacks": control})
        )
        meta = read_run(p).meta
        assert (meta["stop_requested"], meta["patience_counter"], meta["patience"]) == (True, 3, 3)
    p.write_text(hf_state(TRAIN))
    assert "stop_requested" not in read_run(p).meta and "patience" not in read_run(p).meta


def test_hf_found_by_content_not_name(tmp_path):
    p = tmp_path / "state-copy.txt"
    p.write_text(hf_state(TRAIN))
    assert sniff(p).name == "hf-trainer-state"


def test_hf_truncated_file_is_salvaged(tmp_path):
    text = hf_state(TRAIN[:4])
    p = tmp_path / "trainer_state.json"
    p.write_text(text[: text.index('"step": 30')])  # killed mid-write
    run = read_run(p)
    assert run.get("loss").values.tolist() == [2.0, 1.5]
    assert run.damage and run.damage[0].kind == "truncated"
    assert run.damage[0].evidence["entries_recovered"] == 3
    assert run.meta["max_steps"] == 30


def test_hf_nasty_values_are_reported_not_coerced(tmp_path):
    entries = [
        {"step": 1, "loss": 1.0},
        {"step": 2, "loss": True},
        {"step": 3, "loss": "NaN"},
        {"step": 4, "loss": 1e308},
        {"step": 5, "loss": "high"},
        {"step": 6, "loss": 10**400},
    ]
    p = tmp_path / "trainer_state.json"
    p.write_text(hf_state(entries))
    run = read_run(p)
    loss = run.get("loss")
    assert loss.steps.tolist() == [1, 3, 4]
    assert math.isnan(loss.values[1]) and loss.values[2] == 1e308
    notes = " | ".join(run.notes)
    assert "boolean" in notes and "text 'NaN' read as nan" in notes
    assert "(text) at log_history[4]" in notes and "too large" in notes


def test_hf_json_nan_tokens(tmp_path):
    p = tmp_path / "trainer_state.json"
    p.write_text(
        hf_state([{"step": 1, "loss": 1.0, "grad_norm": 2.0}, {"step": 2, "loss": 0.9, "grad_norm": float("inf")}])
    )
    assert "Infinity" in p.read_text()
    assert np.isinf(read_run(p).get("grad_norm").values[1])


def test_jsonl_with_bom_banner_and_bare_numbers(tmp_path):
    lines = [
        "Starting training run 7",
        '{"step": 1, "loss": 3.0, "lr": 0.001}',
        "123",
        '{"step": 2, "loss": 2.5, "lr": 0.001, "ok": true}',
        "",
        '{"step": 3, "loss": "inf"}',
    ]
    p = tmp_path / "metrics.jsonl"
    p.write_bytes(b"\xef\xbb\xbf" + "\n".join(lines).encode())
    run = read_run(p)
    assert run.format == "jsonl"
    assert run.get("loss").values[:2].tolist() == [3.0, 2.5] and np.isinf(run.get("loss").values[2])
    assert run.roles["learning_rate"] == "lr"
    notes = " | ".join(run.notes)
    assert "byte-order mark" in notes
    assert "skipped 2 non-object line(s): line(s) 1, 3" in notes
    assert "ok: 1 value(s) not a real number (boolean)" in notes
    assert not run.damage


def test_jsonl_broken_line_is_damage_not_fatal(tmp_path):
    p = tmp_path / "log.jsonl"
    p.write_text('{"step": 1, "loss": 2.0}\n{"step": 2, "loss": 1.0}\n{"step": 3, "lo')
    run = read_run(p)
    assert run.get("loss").values.tolist() == [2.0, 1.0]
    assert run.damage[0].kind == "skipped-lines" and run.damage[0].evidence["first_line"] == 3


def test_jsonl_without_step_uses_record_numbers(tmp_path):
    p = tmp_path / "log.jsonl"
    p.write_text('{"loss": 2.0}\n{"loss": 1.0}\n')
    run = read_run(p)
    assert run.get("loss").steps.tolist() == [0, 1]
    assert any("record numbers" in n for n in run.notes)


def test_lightning_sparse_csv(tmp_path):
    p = tmp_path / "metrics.csv"
    p.write_text(
        "epoch,step,train_loss_step,val_loss,lr-AdamW\n0,9,2.0,,\n0,9,,,0.001\n0,19,1.5,,\n0,19,,1.8,\n1,29,1.2,,\n"
    )
    run = read_run(p)
    assert run.format == "csv"
    assert run.roles["loss"] == "train_loss_step" and run.roles["eval_loss"] == "val_loss"
    assert run.roles["learning_rate"] == "lr-AdamW"
    assert run.get("loss").steps.tolist() == [9, 19, 29]
    assert run.get("eval_loss").values.tolist() == [1.8]


def test_keras_csvlogger_steps_are_epochs(tmp_path):
    p = tmp_path / "training.log"
    p.write_text("epoch,accuracy,loss,val_accuracy,val_loss\n0,0.5,1.0,0.5,1.1\n1,0.6,0.8,0.55,nan\n")
    run = read_run(p)
    assert run.get("loss").steps.tolist() == [0, 1]
    assert math.isnan(run.get("eval_loss").values[1])
    assert run.meta["steps_are"] == "epochs"


def test_catboost_learn_error_tsv_judges_its_objective(tmp_path):
    # catboost_info/learn_error.tsv, as every CatBoost fit writes it: "iter", the objective
    # (loss_function), then custom metrics; the objective's name need not say "loss"
    info = tmp_path / "catboost_info"
    info.mkdir()
    p = info / "learn_error.tsv"
    p.write_text("iter\tRMSE\tMAE\n" + "".join(f"{i}\t{1.0 / (i + 1):.6g}\t{0.8 / (i + 1):.6g}\n" for i in range(50)))
    run = read_run(p)
    assert run.meta["written_by"] == "catboost" and run.roles["loss"] == "RMSE"
    assert run.get("loss").steps.tolist()[:2] == [0, 1] and run.get("loss").values[-1] == pytest.approx(0.02)
    assert "objective" in run.meta["role_reasons"]["loss"]
    p.write_text("iter\tMultiClass\n0\t2.5\n1\t2.1\n")
    assert read_run(p).roles["loss"] == "MultiClass"
    other = tmp_path / "rmse.tsv"  # the same table under another name: nothing says RMSE is a loss
    other.write_text("iter\tRMSE\n0\t1.0\n1\t0.5\n")
    assert sniff(other) is None


def test_tsv_with_bom_and_semicolons(tmp_path):
    p = tmp_path / "a.tsv"
    p.write_bytes(b"\xef\xbb\xbfstep\tloss\n1\t2.0\n2\t1.0\n")
    assert read_run(p).get("loss").values.tolist() == [2.0, 1.0]
    q = tmp_path / "b.csv"
    q.write_text("step;loss\n1;2,0\n2;1,5\n3;1.234,5\n")  # decimal commas between semicolons are read
    run = read_run(q)
    assert run.get("loss").values.tolist() == [2.0, 1.5]  # 1.234,5 (thousands?) stays text, reported
    assert any("loss: 1 value(s) not a real number (text)" in n for n in run.notes)
    r = tmp_path / "c.csv"
    r.write_text('step,loss\n1,"2,0"\n')  # a quoted comma in a comma table: text, never coerced
    with pytest.raises(ReadError, match=r"loss: 1 value\(s\) not a real number \(text\)"):
        read_run(r)


@pytest.mark.parametrize(
    "content", [b"", b"\x00\x01\x02garbage\xff" * 100, b"{", b"not a log at all\n", b'{"step": 1, "loss"']
)
def test_unreadable_inputs_raise_one_line_read_error(tmp_path, content):
    p = tmp_path / "trainer_state.json"
    p.write_bytes(content)
    with pytest.raises(ReadError) as err:
        read_run(p)
    assert "\n" not in str(err.value) and str(err.value)


def test_directory_named_like_a_log(tmp_path):
    d = tmp_path / "trainer_state.json"
    d.mkdir()
    with pytest.raises(ReadError):
        read_run(d)


def test_missing_path():
    with pytest.raises(ReadError, match="no such file"):
        read_run("/nonexistent/trainer_state.json")


def _as_dict(cols):
    from trainlint.model import Run

    run = Run("x", "jsonl")
    cols.into(run)
    return {k: (s.steps.tolist(), s.values.tolist()) for k, s in run.series.items()}


def test_jsonl_bulk_path_equals_general_path():
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from trainlint.model import Run
    from trainlint.readers.jsonl import _general, _Template

    num = st.one_of(st.integers(-(10**6), 10**6), st.floats(allow_nan=False, allow_infinity=False, width=64))

    @settings(max_examples=60, deadline=None)
    @given(st.lists(st.tuples(num, num), min_size=1, max_size=30), st.booleans())
    def check(rows, compact):
        seps = (",", ":") if compact else (", ", ": ")
        text = (
            "\n".join(json.dumps({"step": i, "loss": a, "lr": b}, separators=seps) for i, (a, b) in enumerate(rows))
            + "\n"
        )
        fast = _Template.whole_file(text)
        assert fast is not None
        assert _as_dict(fast[0]) == _as_dict(_general(text, Run("x", "jsonl")))

    check()


def test_jsonl_bulk_path_declines_odd_lines():
    from trainlint.readers.jsonl import _Template

    base = '{"step": 1, "loss": 2.0}\n{"step": 2, "loss": 1.5}\n'
    assert _Template.whole_file(base) is not None
    for odd in (
        '{"step": 3, "loss": 1.0, "loss": 9.0}\n',
        '{"loss": 1.0, "step": 3}\n',
        '{"step": 3, "loss": NaN}\n',
        '{"step": 3, "loss": 1e999}\n',
        "banner\n",
    ):
        assert _Template.whole_file(base + odd) is None, odd


def test_jsonl_overflowing_literal_is_reported(tmp_path):
    p = tmp_path / "m.jsonl"
    p.write_text('{"step": 1, "loss": 2.0}\n{"step": 2, "loss": ' + "9" * 400 + "}\n")
    run = read_run(p)
    assert run.get("loss").values.tolist() == [2.0]
    assert any("too large for a float" in n for n in run.notes)


def test_a_reader_of_another_package_sniffs_in_its_priority(tmp_path):
    """Sniffing imports the built-in readers one by one (readers.SNIFF_ORDER); a reader another
    package registered still comes in its priority, before the built-in ones here."""
    from trainlint.readers import READERS, sniff
    from trainlint.readers.base import reader

    before = list(READERS)
    try:

        @reader("mine", priority=1)
        class Mine:
            def sniff(self, path, head):
                return path.suffix == ".mine"

            def read(self, path):
                raise AssertionError("not read here")

        path = tmp_path / "trainer_state.mine"
        path.write_text('{"log_history": [{"step": 1, "loss": 2.0}]}')
        assert sniff(path).name == "mine"
        assert sniff(path.rename(tmp_path / "trainer_state.json")).name == "hf-trainer-state"
    finally:
        READERS[:] = before


def test_one_summary_entry_test_serves_the_trainer_state_paths_and_the_console(tmp_path, monkeypatch):
    """hf_trainer_state.is_summary_entry (its SUMMARY_KEYS) decides the final summary for the
    trainer_state.json fast path, its general path and the console's printed Trainer dicts: a
    key added to the test (monkeypatched) makes that entry the summary in all three."""
    from trainlint.readers import hf_trainer_state

    entries = [{"step": s, "loss": 2.0 - s / 100} for s in (10, 20, 30)] + [{"step": 30, "run_done": 1.0}]
    flat = tmp_path / "flat" / "trainer_state.json"
    mixed = tmp_path / "mixed" / "trainer_state.json"  # a text value: the fast path declines it
    console = tmp_path / "train.log"
    for p in (flat, mixed):
        p.parent.mkdir()
    flat.write_text(hf_state(entries))
    mixed.write_text(hf_state([{**entries[0], "note": "warm"}, *entries[1:]]))
    console.write_text(
        "".join(f"{s}%|#| {s}/30 [00:01<00:01]\n{{'loss': {2 - s / 100}, 'epoch': {s / 30}}}\n" for s in (10, 20, 30))
        + "{'loss': 1.0, 'run_done': 1.0, 'epoch': 1.0}\n"
    )

    def summaries():
        runs = [read_run(flat), read_run(mixed), read_run(console)]
        assert [r.format for r in runs] == ["hf-trainer-state", "hf-trainer-state", "console/hf-trainer"]
        return [(r.meta.get("completed", False), "run_done" in r.series) for r in runs]

    assert summaries() == [(False, True)] * 3  # not a summary key: a step's metric
    monkeypatch.setattr(hf_trainer_state, "SUMMARY_KEYS", (*hf_trainer_state.SUMMARY_KEYS, "run_done"))
    assert hf_trainer_state.is_summary_entry({"step": 30, "run_done": 1.0})
    assert summaries() == [(True, False)] * 3
