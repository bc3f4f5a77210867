"""Kinds a blind sample of outside logs (probe round 26a: the first repositories find_files lists for
``logs/train.log``, labelled before trainlint read them) found read wrong: a structured logger's
JSON lines in a file named ``train.log`` whose first line is an event record with no metric
(``{"msg": "episode_start"}``) and whose metrics sit in a nested object on the lines after it
(``"metrics": {"lr": .., "loss": ..}``). The JSON-lines reader looked at the first object only, and
read nested objects only in files named as JSON data, so no reader claimed the file; tried reader by
reader, it read as a LLaMA-Factory log holding only ``episode`` and ``step``, with no loss. Each
fixture is made up in the shape of the real file (repository, path and commit recorded with it; no
copied lines) and asserts the series read: names, steps, first and last values, and which is the
loss."""

from __future__ import annotations

import json

from _consolekit import read_lines as _read
from _consolekit import series_ends as _series

from trainlint.api import judge

UPDATES = 24


def _record(second: int, msg: str, **fields: object) -> str:
    return json.dumps(
        {"time": f"2024-03-02T08:{second // 60:02d}:{second % 60:02d}", "lvl": "INFO", "msg": msg, **fields}
    )


def _structured_log(loss_of) -> list[str]:
    """555-zlq/Airsim-Simulation logs/train.log @ab06a560d52b15af1c03011aeb7c3c910caa33e6 (a JSON
    logger's lines: an ``episode_start`` record, then per step a ``step_after`` record nesting
    per-agent rewards and a ``policy_update`` record nesting ``{"lr": .., "loss": ..}``)."""
    lines = [_record(0, "episode_start", episode=1)]
    for k in range(1, UPDATES + 1):
        lines.append(_record(2 * k, "step_after", episode=1, step=k, reward={"a1": 0.1 * k, "a2": -0.2 * k}))
        lines.append(_record(2 * k + 1, "policy_update", episode=1, step=k, metrics={"lr": 0.0005, "loss": loss_of(k)}))
    lines.append(_record(2 * UPDATES + 2, "episode_end", episode=1, reward_sum=-12.5))
    return lines


def test_a_train_log_of_json_lines_opening_with_an_event_reads_its_nested_loss(tmp_path):
    run = _read(tmp_path, _structured_log(lambda k: round(2.0 / k, 4)), "train.log")
    assert run.format == "jsonl"
    assert run.roles["loss"] == "metrics/loss" and run.roles["learning_rate"] == "metrics/lr"
    assert _series(run, "metrics/loss") == (UPDATES, 1.0, float(UPDATES), 2.0, round(2.0 / UPDATES, 4))


def test_a_loss_stuck_at_zero_in_such_lines_is_judged(tmp_path):
    run = _read(tmp_path, _structured_log(lambda k: 0.0), "train.log")
    assert run.roles["loss"] == "metrics/loss"
    assert _series(run, "metrics/loss") == (UPDATES, 1.0, float(UPDATES), 0.0, 0.0)
    assert "TL005" in {f.code for f in judge(run).findings}
