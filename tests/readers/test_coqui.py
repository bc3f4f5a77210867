"""Coqui TTS trainer text log (trainer_0_log.txt)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from trainlint.api import read_run
from trainlint.readers import ReadError, sniff

SAMPLE = Path(__file__).parent.parent / "data" / "console" / "coqui" / "trainer_0_log.txt"


def test_sample_training_and_eval_blocks():
    run = read_run(SAMPLE)
    assert run.format == "coqui" and sniff(SAMPLE).name == "coqui"
    loss = run.get("loss")
    assert loss.steps.tolist() == [0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110]
    assert loss.values[0] == 0.06  # the current value, not the running average in brackets
    assert run.roles == {
        "loss": "loss",
        "eval_loss": "eval_loss",
        "learning_rate": "current_lr",
        "grad_norm": "grad_norm",
        "step_time": "step_time",
    }
    ev = run.get("eval_loss")
    # the eval before training sits at step 0; each later one at the end of its epoch
    assert ev.steps.tolist() == [0, 40, 80, 120] and ev.values.tolist() == [4.88, 2.75, 2.68, 2.71]
    assert run.series["eval_loss_mel_ce"].values[1] == pytest.approx(2.73)
    assert run.get("grad_norm").values[1] == 1.4
    assert loss.wall is not None and loss.wall[1] - loss.wall[0] == 70.0  # TIME stamps, 01:10:00 -> 01:11:10


def test_sample_best_model_and_checkpoints_go_into_meta():
    run = read_run(SAMPLE)
    assert run.meta["best_step"] == 80 and run.meta["best_steps"] == [40, 80]
    assert run.meta["checkpoints"] == [50, 100] and run.meta["last_checkpoint_step"] == 100
    assert run.meta["planned_epochs"] == 4 and run.meta["steps_per_epoch"] == 40
    assert run.meta["completed"] is True  # the last of the planned epochs ended with its evaluation
    assert run.events == []


def test_ansi_codes_do_not_leak_into_names():
    run = read_run(SAMPLE)
    assert all("\x1b" not in name and "[" not in name for name in run.series)


def test_coqui_log_without_blocks_is_a_read_error(tmp_path):
    log = tmp_path / "trainer_0_log.txt"
    log.write_text(" > Training Environment:\n | > Backend: Torch\n > EPOCH: 0/10\n")
    with pytest.raises(ReadError, match="no Coqui training or evaluation blocks"):
        read_run(log)


def test_coqui_crash_is_recorded(tmp_path):
    text = SAMPLE.read_text()
    log = tmp_path / "trainer_0_log.txt"
    log.write_text(
        text[: text.index(" > CHECKPOINT : /runs/tiny-run/checkpoint_100.pth")]
        + 'Traceback (most recent call last):\n  File "train.py", line 9\n'
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB\n"
    )
    run = read_run(log)
    assert [e["signature"] for e in run.events] == ["cuda-out-of-memory"]
    assert "completed" not in run.meta


def test_real_xtts_log(evidence):
    path = evidence / "xtts-coqui-diverged" / "trainer_0_log.txt"
    start = time.perf_counter()
    run = read_run(path)
    elapsed = time.perf_counter() - start
    loss = run.get("loss")
    assert len(loss) == 1459 and loss.steps[-1] == 72900  # run_meta.json: loss_points 1459, final_step 72900
    assert run.meta["best_step"] == 49880
    assert run.meta["checkpoints"] == [10000, 20000, 30000, 40000, 50000, 60000, 70000]
    assert run.meta["last_checkpoint_step"] == 70000
    assert (
        "trainer bookkeeping: best model at step 49880, last checkpoint at step 70000, log ends at step 72900"
        in run.notes
    )
    assert run.get("eval_loss").steps.tolist() == [0, 24940, 49880]
    assert run.meta["planned_epochs"] == 1000 and "completed" not in run.meta
    assert run.events == []
    assert loss.wall[-1] - loss.wall[0] == pytest.approx(35131, abs=60)  # run_meta.json: wall_seconds 35131
    assert elapsed < 5.0  # generous on a shared machine; benchmarks/ measures the real speed
