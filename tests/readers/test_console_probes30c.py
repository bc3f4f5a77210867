"""Kinds a blind sample of outside logs (probe round 30c: JSON-lines metric logs written by training
scripts, the repositories find_files lists for ``train_log.jsonl``, then ``metrics.jsonl``, labelled
before trainlint read them) found read wrong: a config record opening the file, holding the run's
length ``num_steps``, had been taken for where the step counter is, so every record after it (each
holding ``step``) was placed at its record number, one step late; and a loss logged as a target
loss beside a rescaled copy of it (``loss_scaled``) and a regulariser term (``vicreg_loss``) had read
as the sum of all three, the copy added to the loss it copies. Each fixture is made up in the shape of the real
file (repository, path and commit recorded with it; no copied lines) and asserts the series read:
names, steps, first and last values, and which is the loss."""

from __future__ import annotations

import json
import math

from trainlint.api import read_run

STEPS = 40


def _write(path, records: list[dict]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


def _pg_loss(k: int) -> float:
    """A policy-gradient surrogate loss: small, negative, flat by design."""
    return round(-0.02 - 0.005 * math.sin(0.9 * k), 6)


def _config_then_steps(with_event: bool) -> list[dict]:
    """bmtlima/On-Policy-Distillation train_log.jsonl @bdb4b8922d1aa4d3d313441c2e00de7058d2c7bf
    (an on-policy distillation loop: one config record holding ``num_steps``, then a record per step
    from step 0 with ``train/...`` metrics, then a closing record)."""
    event = (lambda name: {"event": name}) if with_event else (lambda name: {})
    records = [{**event("config"), "lr": 2e-6, "num_steps": STEPS, "batch_size": 64, "seed": 7}]
    for k in range(STEPS):
        lr = 2e-6 * min(1.0, (k + 1) / 8)
        records.append({**event("step"), "step": k, "train/loss": _pg_loss(k), "train/lr": lr, "train/kl": 0.1})
    records.append({**event("done"), "num_steps": STEPS})
    return records


def test_a_config_record_s_num_steps_is_not_the_step_counter(tmp_path):
    for with_event in (True, False):  # the general path (text fields), the bulk path (numbers only)
        path = tmp_path / f"train_log_{with_event}.jsonl"
        _write(path, _config_then_steps(with_event))
        run = read_run(path)
        assert run.roles["loss"] == "train/loss"
        loss = run.series["train/loss"]
        assert len(loss.steps) == STEPS
        assert loss.steps[0] == 0 and loss.steps[-1] == STEPS - 1
        assert loss.values[0] == _pg_loss(0) and loss.values[-1] == _pg_loss(STEPS - 1)


def _target(k: int) -> float:
    return round(0.3 + 0.8 * math.exp(-k / 40), 6)


def test_a_rescaled_copy_of_the_loss_is_not_summed_with_it(tmp_path):
    """I-M-Comet/FM metrics.jsonl @a02418a22ec91678df0f18496c00cf1558406fed (a JEPA-style trainer's
    record per update: ``loss_tgt_mean``, the target loss; ``loss_scaled``, the loss divided for
    accumulation; ``vicreg_loss`` 0.0 throughout, the term off; no plain ``loss``)."""
    records = []
    for k in range(200):
        records.append(
            {
                "loss_tgt_mean": _target(k),
                "loss_scaled": round(_target(k) / 13, 6),
                "lr": 3e-5,
                "grad_norm": 1.0,
                "vicreg_loss": 0.0,
                "vicreg_var": 0.0,
                "step": k,
            }
        )
    path = tmp_path / "metrics.jsonl"
    _write(path, records)
    run = read_run(path)
    # the target loss and the regulariser (off in this run: 0 throughout), not the rescaled copy
    assert run.roles["loss"] == "loss_tgt_mean+vicreg_loss"
    loss = run.series["loss_tgt_mean+vicreg_loss"]
    assert loss.steps[0] == 0 and loss.steps[-1] == 199
    assert loss.values[0] == _target(0) and loss.values[-1] == _target(199)


def test_components_are_still_summed_without_the_rescaled_copy(tmp_path):
    """The same shape with three terms beside the rescaled copy (one 0 throughout, as a single-class
    detector's class term): the loss is the sum of the terms, the copy left out."""
    records = [
        {"step": k, "box_loss": 0.5 - 0.002 * k, "cls_loss": 0.4, "aux_loss": 0.0, "loss_scaled": 0.1}
        for k in range(30)
    ]
    path = tmp_path / "metrics.jsonl"
    _write(path, records)
    run = read_run(path)
    assert run.roles["loss"] == "aux_loss+box_loss+cls_loss"
    loss = run.series["aux_loss+box_loss+cls_loss"]
    assert math.isclose(loss.values[0], 0.9) and math.isclose(loss.values[-1], 0.5 - 0.002 * 29 + 0.4)
