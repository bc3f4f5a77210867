"""Shapes found by a blind sample of outside logs (issue 29, probe round 18d): the first logs
find_files lists at ``output/log.txt`` and ``output/train.log``, labelled before trainlint read
them. Each fixture is made up in the shape of the real file (repository, path and commit recorded
with it; no copied lines) and asserts the series read: names, steps, first and last values, and
which is the loss."""

from __future__ import annotations

import pytest
from _consolekit import read_lines
from _consolekit import series_ends as _series

from trainlint.api import read_run
from trainlint.readers.base import ReadError


def _terms(k: int) -> list[float]:
    return [round(0.5 * 0.8**k, 6), round(0.02 * 0.7**k, 6), round(0.3 * 0.85**k, 6)]


def _cell(vals: list[float]) -> str:
    return "[" + ", ".join(f"{v:.2e}" for v in vals) + "]"


def test_deepxde_s_table_of_loss_terms_is_read_as_their_sum(tmp_path):
    """Debashis-Gupta/790_project output/log.txt @0176ccd6: DeepXDE's TrainingDisplay, ``Step
    Train loss  Test loss  Test metric`` over rows whose losses are lists of the loss terms (PDE
    residual, boundary, initial condition), printed every 1000 steps by Adam, then a second
    ``model.train`` (L-BFGS) printing the header again and going on from the step reached. The
    file had been no training log trainlint recognised; the training loss is the terms' sum."""
    lines = ["Compiling model...", "'compile' took 1.176812 s", "", "Training model...", ""]
    lines.append("Step      Train loss                        Test loss                         Test metric")
    for k in range(16):
        lines.append(f"{k * 1000:<10}{_cell(_terms(k)):<34}{_cell(_terms(k)):<34}[]  ")
    lines += ["", "Best model at step 15000:", "  train loss: 3.00e-02", "  test loss: 3.00e-02", ""]
    lines += ["Compiling model...", "", "Training model...", ""]
    lines.append("Step      Train loss                        Test loss                         Test metric")
    for k in range(15, 21):
        lines.append(f"{k * 1000:<10}{_cell(_terms(k)):<34}{_cell(_terms(k)):<34}[1.23e-01]  ")
    run = read_lines(tmp_path, lines, "log.txt")
    assert run.format == "console/deepxde"
    assert run.roles["loss"] == "train_loss" and run.roles["eval_loss"] == "test_loss"
    first, last = sum(float(f"{v:.2e}") for v in _terms(0)), sum(float(f"{v:.2e}") for v in _terms(20))
    n, s0, s1, v0, v1 = _series(run, "train_loss")
    assert (n, s0, s1) == (21, 0.0, 20000.0) and abs(v0 - first) < 1e-12 and abs(v1 - last) < 1e-12
    assert _series(run, "train_loss_term1")[:3] == (21, 0.0, 20000.0)
    assert _series(run, "test_metric") == (6, 15000.0, 20000.0, 0.123, 0.123)


def _fit(e: int, scale: float) -> float:
    return round(scale * 0.7**e + 0.005, 5)


def test_a_run_tag_before_the_epoch_counter_frames_bare_train_and_val_values(tmp_path):
    """mobilazy/CNN-LSTM_geo output/train.log @5b3ac472: a logger line ``asctime | INFO | <tag> |
    Epoch 1/40 - train: 14.46  val: 9.71  lr: 1.00e-03``, the tag naming which of two models is
    trained (``with_depth``, then ``no_depth``), after two launches that crashed on a missing CSV.
    The split words alone name the losses once a counter frames them; the tag before the counter
    had kept the line unread (no training-progress lines found)."""
    lines = [
        "2025-08-26 09:17:48,461 | INFO | Using device: cuda",
        "2025-08-26 09:17:48,463 | ERROR | Failed to read CSV: CSV file not found: data.csv",
        "2025-08-26 10:03:19,001 | INFO | Using device: cuda",
    ]
    for tag, n, scale in (("with_depth", 12, 14.0), ("no_depth", 10, 13.0)):
        for e in range(1, n + 1):
            lines.append(
                f"2025-08-26 10:03:{20 + e:02d},098 | INFO | {tag} | Epoch {e}/40 - "
                f"train: {_fit(e, scale):.5f}  val: {_fit(e, scale * 0.7):.5f}  lr: 1.00e-03"
            )
        lines.append(f"2025-08-26 10:03:40,115 | INFO | Early stopping at epoch {n} (no val improvement for 8 epochs)")
    run = read_lines(tmp_path, lines, "train.log")
    assert run.format == "console/general"
    assert run.roles["loss"] == "train_loss" and run.roles["eval_loss"] == "val_loss"
    assert _series(run, "train_loss") == (22, 1.0, 10.0, _fit(1, 14.0), _fit(10, 13.0))
    assert _series(run, "val_loss")[0] == 22


def test_a_tag_without_a_counter_is_still_a_name(tmp_path):
    """The frame needs its counter: ``Accuracy | train: 0.98  val: 0.95`` names accuracies (no
    loss is read from the split words alone)."""
    lines = [f"Accuracy | train: {0.5 + e / 40:.3f}  val: {0.45 + e / 40:.3f}" for e in range(1, 13)]
    path = tmp_path / "train.log"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(ReadError):
        read_run(path)


def _mean(e: int) -> float:
    return round(3.2 * 0.95**e, 4)


def test_an_epoch_s_mean_loss_beats_a_bare_loss_printed_ten_times_less(tmp_path):
    """ByeByeChen/st-gcn-master-improved output/log.txt @957e1935: st-gcn's processor log,
    ``[mm.dd.yy|hh:mm:ss] Training epoch: N`` then a tab and ``mean_loss: x``, an ``Eval epoch: N``
    section every fifth epoch with its own ``mean_loss`` and ``Top1``, and in some of the runs
    appended to the log a few ``Iter 0 Done. | loss: 1.48 | lr: 0.010000`` lines. The bare
    ``loss`` (9 points) had been taken over the 534 ``mean_loss`` points by the alias order."""
    lines: list[str] = []
    for e in range(40):
        lines += [f"[03.24.23|10:{e:02d}:11] Training epoch: {e}"]
        if e % 10 == 0:
            lines += [f"[03.24.23|10:{e:02d}:20] \tIter {e * 100} Done. | loss: {_mean(e) + 0.1:.4f} | lr: 0.010000"]
        lines += [
            f"[03.24.23|10:{e:02d}:31] \tmean_loss: {_mean(e)}",
            f"[03.24.23|10:{e:02d}:31] Time consumption:",
            f"[03.24.23|10:{e:02d}:31] Done.",
        ]
        if e % 5 == 4:
            lines += [
                f"[03.24.23|10:{e:02d}:40] Eval epoch: {e}",
                f"[03.24.23|10:{e:02d}:50] \tmean_loss: {_mean(e) + 0.5:.4f}",
                f"[03.24.23|10:{e:02d}:50] \tTop1: {40 + e}.00%",
                f"[03.24.23|10:{e:02d}:50] \tTop5: {80 + e / 4:.2f}%",
                f"[03.24.23|10:{e:02d}:50] Done.",
            ]
    run = read_lines(tmp_path, lines, "log.txt")
    assert run.roles["loss"] == "mean_loss"
    assert _series(run, "mean_loss") == (40, 0.0, 39.0, _mean(0), _mean(39))
    assert "eval_mean_loss" in run.series and run.roles["eval_loss"] == "eval_mean_loss"
    assert len(run.series["loss"].steps) == 3  # the first, before any epoch closed, placed nowhere


def _diff() -> list[str]:
    """A ``git diff`` as silent_speech's training script logs it at its start: hunks whose code
    assigns numbers to loss names (a blank context line left empty)."""
    out = ["be71135adc89793578f304adb405cea80a5b2b9a", "", "diff --git a/train.py b/train.py"]
    out += ["index 94d0de0..222c88e 100644", "--- a/train.py", "+++ b/train.py"]
    for k in range(4):
        out += [
            f"@@ -{40 + 20 * k},5 +{40 + 20 * k},6 @@ def train_model(trainset, devset, n_epochs=200):",
            "     losses = []",
            "-    train_loss = 0",
            "+    train_loss= 0",
            "+    eval_loss= 0",
            "",
            "     for batch_idx, batch in enumerate(loader):",
            "         optim.zero_grad()",
        ]
    return out


def test_the_lines_of_a_git_diff_logged_at_the_start_are_code_not_progress(tmp_path):
    """ChristianSquadro/EMG-based-Speech-Recognition-with-heterogenous-data output/log.txt
    @897f6915: silent_speech's log opens with the commit and ``git diff`` of the code (a diff of
    diffs here), and ``+    train_loss= 0`` lines in its hunks had been read as 7 points of a
    zero loss (FAIL loss-zero on a run that had not trained yet). A hunk's lines, counted by its
    ``@@ -a,b +c,d @@`` header, are code; the log after the diff is read."""
    lines = [*_diff(), "train / dev split: 8055 200"]
    path = tmp_path / "log.txt"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(ReadError):
        read_run(path)
    lines += [f"finished epoch {e} - training loss: {_mean(e):.4f} validation WER: {60 - e:.2f}" for e in range(1, 13)]
    path.write_text("\n".join(lines) + "\n")
    run = read_run(path)
    assert run.roles["loss"] == "training_loss"
    assert _series(run, "training_loss") == (12, 1.0, 12.0, _mean(1), _mean(12))
    assert "train_loss" not in run.series and "eval_loss" not in run.series


def test_each_split_led_segment_of_a_line_names_its_own_values(tmp_path):
    """hongnguyen1306/Deepsleepnet_check output/train.log @fd88d556: DeepSleepNet's epoch line,
    ``epoch 1 : train (517.15 sec): n=215300, loss=1.609 (0.000), acc=0.198, f1=0.179 | valid
    (3.22 sec): n=5400, loss=1.609 (0.000), acc=0.319, f1=0.097``. The validation segment's values
    (the same names again) had been dropped; each segment's split word names its values."""
    lines = ["INFO:root:"]
    for e in range(1, 13):
        lines += [
            f"epoch {e} : train (517.{e:02d} sec): n=215300, loss={_mean(e):.3f} (0.000), acc={0.2 + e / 50:.3f}, "
            f"f1={0.18 + e / 60:.3f} | valid (3.22 sec): n=5400, loss={_mean(e) + 0.3:.3f} (0.000), "
            f"acc={0.3 + e / 50:.3f}, f1={0.1 + e / 60:.3f}",
            "INFO:root:",
        ]
    run = read_lines(tmp_path, lines, "train.log")
    assert run.roles["loss"] == "train_loss" and run.roles["eval_loss"] == "valid_loss"
    assert _series(run, "train_loss") == (12, 1.0, 12.0, round(_mean(1), 3), round(_mean(12), 3))
    assert _series(run, "valid_loss") == (12, 1.0, 12.0, round(_mean(1) + 0.3, 3), round(_mean(12) + 0.3, 3))
    assert _series(run, "valid_acc")[3:] == (0.32, 0.54)


def test_a_counter_glued_between_rules_is_the_step_of_the_lines_under_it(tmp_path):
    """Ashecy/pinn-code output/log.txt @6408044c: a PINN script's banner
    ``-----...-----Iteration: 1000-----...-----`` over ``Loss: 2.60169e-02 Loss_u: .. Loss_v: ..
    L2: ..`` and a memory line, every 1000 iterations. The banner had not been read (the counter
    glued to the rules), so the steps were the records' order (1-10); now they are the iteration."""
    rule = "-" * 47
    lines = ["Using device: cuda", "Number of total random points: 10100"]
    for k in range(1, 11):
        lines += [
            f"{rule}Iteration: {k * 1000}{rule}",
            f"Loss: {_mean(k) / 100:.5e} Loss_u: {_mean(k) / 500:.3e} Loss_v: {_mean(k) / 400:.3e} L2: {1.1 / k:.3e}",
            f"Memory Usage -> CPU: 946.27 MB, GPU Allocated: 19.18 MB, Elapsed Time: {29.5 * k:.2f} seconds",
        ]
        if k == 2:
            lines += ["=" * 49 + "Adam Final" + "=" * 49, "Adam Optimization Phase: 2000 iterations completed"]
    run = read_lines(tmp_path, lines, "log.txt")
    assert run.roles["loss"] == "Loss"
    n, s0, s1, v0, v1 = _series(run, "Loss")
    assert (n, s0, s1) == (10, 1000.0, 10000.0)
    assert abs(v0 - _mean(1) / 100) < 1e-6 and abs(v1 - _mean(10) / 100) < 1e-6
