"""Inputs are paths (issue 28 §4): every API entry point takes a str, a Path or an iterable of
them, and a str is one path, never its characters; doctor's tasks are typed and judged in this
process as discovery made them."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

import trainlint
from trainlint import api, parallel
from trainlint.discover import Item, walk

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ["hf-healthy/trainer_state.json", "keras-lr-zero/training.log", "lightning-nan/metrics.csv"]
EXAMPLES += ["plain-diverged/metrics.jsonl"]


def _json(result) -> str:
    return json.dumps(result.to_dict(), indent=1, allow_nan=False)


def _within(seconds: float, fn):
    """fn()'s value, or a failure when it is still running after ``seconds`` (a read that blocks
    for good must fail the test, not hang the suite)."""
    out: list = []
    worker = threading.Thread(target=lambda: out.append(fn()), daemon=True)
    worker.start()
    worker.join(seconds)
    assert out, f"still running after {seconds} s"
    return out[0]


def test_a_string_is_one_path_in_every_form(monkeypatch):
    monkeypatch.chdir(ROOT)
    forms = ["examples", "examples/", Path("examples"), ["examples"], ("examples",), iter([Path("examples")])]
    results = [trainlint.doctor(form) for form in forms]
    assert [r.source for r in results[0].reports] == [f"examples/{e}" for e in EXAMPLES]
    assert {_json(r) for r in results} == {_json(results[0])}
    assert results[0].exit_code == 1  # the diverged and NaN examples fail


def test_a_missing_folder_named_with_a_slash_never_walks_from_the_root(tmp_path):
    """`doctor("runs/")` once judged "r", "u", "n", "s" and "/": the whole file system."""
    result = _within(30, lambda: api.doctor(f"{tmp_path}/runs/"))
    assert [(r.source, r.unjudged) for r in result.reports] == [(f"{tmp_path}/runs/", "no such file or folder")]


def test_every_entry_point_takes_one_string_as_one_path(tmp_path):
    log = tmp_path / "metrics.jsonl"
    log.write_text("".join(f'{{"step": {i}, "loss": {3 - i / 40:.3f}}}\n' for i in range(60)))
    assert [r.source for r in api.compare(str(log), str(log)).reports] == [str(log)]
    assert [r.source for r in api.inspect_checkpoint(str(log)).reports] == [str(log)]
    assert [r.source for r in api.check_dataset(str(tmp_path / "none.jsonl")).reports] == [str(tmp_path / "none.jsonl")]
    assert [r.source for r in api.check_tokenizer(str(tmp_path)).reports] == [str(tmp_path)]
    assert [p for p, _ in api.followable_logs(str(tmp_path))] == [log]
    assert api.read_run(str(log)).source == str(log)
    assert [r.source for r in api.read_runs(str(log))] == [str(log)]
    two = api.check_tokenizer([tmp_path, str(tmp_path)])
    assert [r.source for r in two.reports] == [str(tmp_path)] * 2


def test_a_value_that_is_not_a_path_is_refused_in_one_line():
    with pytest.raises(TypeError, match="expected a path"):
        api.doctor(b"examples")
    with pytest.raises(TypeError, match="expected a path"):
        api.doctor([["examples"]])
    with pytest.raises(TypeError, match="expected a path"):
        api.read_run(["examples/plain-diverged/metrics.jsonl"])


def test_discovery_yields_items_that_carry_their_inspector_and_reader():
    items = list(walk(ROOT / "examples"))
    assert {it.path.name: it.match.name for it in items} == {
        "trainer_state.json": "hf-trainer-state",
        "training.log": "csv",
        "metrics.csv": "csv",
        "metrics.jsonl": "jsonl",
    }
    assert {it.inspector.key for it in items} == {"trainlint.inspectors.logs.LogInspector"}
    assert all(isinstance(it, Item) for it in items)


def test_an_item_crosses_a_process_boundary_by_name_and_comes_back_the_same():
    options = api.Options()
    tasks = parallel.plan([ROOT / "examples"], options)
    assert all(isinstance(t, Item) for t in tasks)
    for task in tasks:
        wire = parallel.sent(task)
        assert isinstance(wire, parallel.ItemRef) and wire.inspector == task.inspector.key
        if task.match is not None:
            assert wire.reader == task.match.name
        back = parallel.received(wire)
        assert back.inspector is task.inspector and back.match is task.match and back.path == task.path
        # compared as JSON: a NaN in a finding's evidence is not == to itself
        judged = [json.dumps(r.to_dict(curves=True)) for r in parallel.run_task(wire, options)]
        assert judged == [json.dumps(r.to_dict(curves=True)) for r in task.judge(options)]


def test_jobs_2_gives_the_in_process_result(tmp_path):
    paths = [ROOT / "examples", tmp_path / "nope"]
    assert _json(api.doctor(paths, jobs=2)) == _json(api.doctor(paths, jobs=1))


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_in_a_scanned_folder_never_blocks(tmp_path):
    for name in ("metrics.jsonl", "trainer_state.json", "events.out.tfevents.1.host"):
        os.mkfifo(tmp_path / name)
    result = _within(30, lambda: api.doctor(tmp_path))
    assert result.reports == [] and result.extra["skipped"]["a FIFO (named pipe), not a regular file"]["count"] == 3


def test_an_executor_gets_small_tasks_by_name_and_the_in_process_result():
    """What --ray hands a cluster: ItemRefs (an inspector's key and a reader's name), never the
    inspector or the reader themselves."""
    seen = []

    def inline_executor(ordered, options, env, run_task):
        for i, task in ordered:
            seen.append(task)
            yield i, run_task(task, options, env)

    result = api.doctor(ROOT / "examples", executor=inline_executor)
    assert [type(t) for t in seen] == [parallel.ItemRef] * 4
    assert {t.reader for t in seen} == {"hf-trainer-state", "csv", "jsonl"}
    assert _json(result) == _json(api.doctor(ROOT / "examples"))
