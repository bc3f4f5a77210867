"""TL006 on console logs whose script says it skipped non-finite steps: the reader's ``skip`` event
and the rule's verdict, from lines in the shape of real logs."""

from __future__ import annotations

import pytest
from _consolekit import read_lines
from _rulekit import decay, make_run, not_checked, one, silent

from trainlint.api import doctor


def _bar_log(skips: list[int], message: str) -> list[str]:
    """A hand-written loop's tqdm postfix and its own guard's message: AdrianTuci1/thunder-1
    training.log @696d2f82 prints ``[WARNING] NaN loss detected! Skipping batch.`` between bars."""
    lines = []
    for i in range(1, 81):
        lines.append(f"Epoch 1:  {i}%|#   | {i}/80 [00:{i:02d}<00:10, 8.00it/s, loss={11.5 - 0.01 * i:.4f}]")
        if i in skips:
            lines.append(message)
    return lines


def test_a_loop_that_skips_nan_losses_is_a_warn_naming_the_first_line_and_the_count(tmp_path):
    run = read_lines(tmp_path, _bar_log([20, 41, 60], "[WARNING] NaN loss detected! Skipping batch."))
    [ev] = [e for e in run.events if e["type"] == "skip"]
    assert (ev["line"], ev["count"]) == (21, 3)
    f = one("TL006", run)
    assert f.severity.value == "WARN" and f.evidence["count"] == 3 and f.evidence["line"] == 21
    assert "NaN loss detected" in f.message


def test_one_skipped_update_is_a_note(tmp_path):
    """scalingdown's training.log shape: ``- WARNING - NaN detected in gradients of shared.weight. Skipping update.``"""
    message = "2024-11-08 15:38:27,130 - WARNING - NaN detected in gradients of shared.weight. Skipping update."
    f = one("TL006", read_lines(tmp_path, _bar_log([50], message)))
    assert f.severity.value == "NOTE" and f.evidence["count"] == 1


@pytest.mark.parametrize(
    "message",
    [
        "Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to 32768.0",  # apex amp
        "[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 65536, reducing to 32768",
        " number of skipped iterations:   0 | number of nan iterations:   0 |",  # Megatron's counters
        "loss is finite again after the skipped warm-up",
    ],
)
def test_a_loss_scaler_searching_its_scale_or_a_counter_is_no_skip(tmp_path, message):
    run = read_lines(tmp_path, _bar_log([10, 30, 50], message))
    assert not [e for e in run.events if e["type"] == "skip"]
    silent("TL006", run)


def test_formats_without_console_messages_are_not_checked():
    not_checked("TL006", make_run(decay(50)))
    # a run named console output whose reader never looked for the messages: no scan to trust
    assert "only console output" in not_checked("TL006", make_run(decay(50), fmt="console/general"))


def test_doctor_gives_the_run_a_warn_not_a_fail(tmp_path):
    p = tmp_path / "train.log"
    p.write_text("\n".join(_bar_log([5, 15, 25, 35], "NaN loss encountered, skipping this batch")) + "\n")
    rep = doctor(p).reports[0]
    assert rep.verdict.value == "WARN" and [f.code for f in rep.findings] == ["TL006"]


@pytest.mark.parametrize(
    "message",
    [
        "INFO: inf loss found at step 12, skipping the update",  # INFO holds "inf": one more "inf" is looked for
        "Non-finite gradients detected, skipping optimizer step",
        "WARNING - NAN loss encountered, skipping batch",
    ],
)
def test_a_log_full_of_info_lines_and_skipped_counters_still_shows_a_real_skip(tmp_path, message):
    """The whole-log look for a non-finite word before the line-by-line scan must not lose a log
    whose every line says INFO and skipped=0 (DeepSpeed's step lines) and one line says the skip."""
    lines = [f"[INFO] [logging.py:96:log_dist] [Rank 0] step={i}, skipped=0, loss={2 - i / 100:.3f}" for i in range(60)]
    lines[30:30] = [message, message]
    run = read_lines(tmp_path, lines)
    skip = [e for e in run.events if e["type"] == "skip"]
    assert len(skip) == 1 and skip[0]["count"] == 2 and skip[0]["text"] == message
    # without the message: no word says non-finite, and no event
    assert not [e for e in read_lines(tmp_path, lines[:30] + lines[32:]).events if e["type"] == "skip"]
