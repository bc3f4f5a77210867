"""Line shapes seen in real training logs found outside the corpus (issue 29, probe round 10c: slurm
outputs, W&B ``output.log`` copies, ``checkpoints/log.txt``, ``log_train.txt``). Each fixture is made
up in the shape of the real log (repository, path and commit recorded with it; no copied lines) and
asserts the series read: names, steps, first and last values, and which is the loss."""

from __future__ import annotations

from _consolekit import read_lines as _read
from _consolekit import series_ends as _series


def _loss(k: int, start: float = 0.34) -> float:
    return round(start * 0.95**k, 4)


def test_a_training_loss_named_so_beats_a_bare_loss_on_other_lines(tmp_path):
    """yuki-younai/MOERec wandb/latest-run/files/output.log @2551a20: each epoch prints
    "train loss = X" and then "loss: Y, Performance is better... saving the model" (the validation
    loss, printed without a split). The training lines name their loss: that is the loss, not the
    bare name the alias order would take first."""
    lines = ["model already setting"]
    for e in range(12):
        lines.append(f"train loss = {_loss(e)}")
        lines.append(f"loss: {_loss(e, 0.38)}, Performance is better... saving the model")
    run = _read(tmp_path, lines, "output.log")
    assert run.roles["loss"] == "train_loss"
    assert _series(run, "train_loss") == (12, 1.0, 12.0, 0.34, _loss(11))
    assert _series(run, "loss") == (12, 1.0, 12.0, 0.38, _loss(11, 0.38))
    assert any("loss = train_loss" in n for n in run.notes)


def test_a_bare_loss_alone_is_still_the_loss(tmp_path):
    """The stand-down: the bare loss is the training loss where no line names another."""
    run = _read(tmp_path, [f"loss: {_loss(e)}" for e in range(12)])
    assert run.roles["loss"] == "loss"


def test_split_and_count_in_a_bracketed_frame(tmp_path):
    """xyxdegithub/cwt_swinTransformer wandb/latest-run/files/output.log @1588a7d, the ML2021/2022
    course homework template: "[ Train | 001/100 ] loss = 1.79012, acc = 0.35120", then
    "[ Valid | 001/100 ] loss = ..., acc = ..." and, on a new best, the same Valid line again with
    " -> best" after it. The frame names the split and the epoch; a line printed again on the next
    line is one record."""
    lines = []
    for e in range(1, 13):
        lines.append(" 98%|#########8| 130/132 [00:29<00:00,  4.42it/s]")
        lines.append(f"[ Train | {e:03d}/100 ] loss = {_loss(e, 1.8):.5f}, acc = {0.3 + e / 100:.5f}")
        valid = f"[ Valid | {e:03d}/100 ] loss = {_loss(e, 1.7):.5f}, acc = {0.35 + e / 100:.5f}"
        lines.append(valid)
        if e % 3 == 1:
            lines += [valid + "  -> best ", f"Best model found at epoch {e}, saving model"]
    run = _read(tmp_path, lines, "output.log")
    assert run.roles["loss"] == "loss" and run.roles["eval_loss"] == "Valid_loss"
    assert _series(run, "loss") == (12, 1.0, 12.0, round(_loss(1, 1.8), 5), round(_loss(12, 1.8), 5))
    assert _series(run, "Valid_loss") == (12, 1.0, 12.0, round(_loss(1, 1.7), 5), round(_loss(12, 1.7), 5))


def test_only_the_valid_lines_of_the_template(tmp_path):
    """The same template where only the Valid lines reached the log (the W&B copy above): the
    validation loss, once an epoch (the repeated "-> best" line is not a second point)."""
    lines = []
    for e in range(1, 13):
        valid = f"[ Valid | {e:03d}/100 ] loss = {_loss(e, 1.7):.5f}, acc = {0.35 + e / 100:.5f}"
        lines += [valid, valid + "  -> best "] if e % 2 else [valid]
    run = _read(tmp_path, lines, "output.log")
    assert _series(run, "Valid_loss") == (12, 1.0, 12.0, round(_loss(1, 1.7), 5), round(_loss(12, 1.7), 5))


def test_a_section_banner_names_the_split_of_the_lines_after_it(tmp_path):
    """Jia-Baos/LeNet checkpoints/log.txt @132be31: "======training epoch 1======" then
    "Epoch 0 | loss = 0.033 | current = 0.915", then "======validate epoch 1======" and the same
    line shape for the validation. The banner says which split the lines after it are."""
    lines = []
    for e in range(12):
        lines += ["2022-03-06 10:54:37", f"======================training epoch {e + 1}======================"]
        lines += [f"Epoch {e} | loss = {_loss(e, 0.033):.4f} | current = 0.915", "Training consumes 53.71 second", ""]
        lines += [f"======================validate epoch {e + 1}======================"]
        lines += [f"Epoch {e} | loss = {_loss(e, 0.04):.4f} | current = 0.905", "Validation consumes 3.77 second"]
    run = _read(tmp_path, lines, "log.txt")
    assert run.roles["loss"] == "loss" and run.roles["eval_loss"] == "val_loss"
    assert _series(run, "loss") == (12, 0.0, 11.0, round(_loss(0, 0.033), 4), round(_loss(11, 0.033), 4))
    assert _series(run, "val_loss") == (12, 0.0, 11.0, round(_loss(0, 0.04), 4), round(_loss(11, 0.04), 4))


def test_a_banner_without_a_split_word_changes_nothing(tmp_path):
    """The stand-down: a decorated banner that names no split ("===== epoch 3 =====") is a header."""
    lines = []
    for e in range(12):
        lines += [f"===== epoch {e} =====", f"loss = {_loss(e)} | acc = 0.9"]
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "loss" and "eval_loss" not in run.roles
    assert _series(run, "loss") == (12, 0.0, 11.0, 0.34, _loss(11))


def test_a_list_of_names_then_the_list_of_their_values(tmp_path):
    """erikdengerud/GPTime-Series job.out @619f8f9: a logging line "Epoch 10    [Avg. Loss, Loss]:
    [10.4449, 7.1693], 0" every 10 epochs. Each name takes its value."""
    lines = ["2021-08-08 15:23:17,220 - GPTime.model.train - INFO - Training model."]
    for e in range(10, 130, 10):
        avg, last = _loss(e // 10, 10.4), _loss(e // 10, 7.2)
        lines.append(
            f"2021-08-08 15:24:33,421 - GPTime.model.train - INFO - Epoch {e:<5} [Avg. Loss, Loss]: [{avg}, {last}], 0"
        )
    run = _read(tmp_path, lines, "job.out")
    assert _series(run, "Avg_Loss") == (12, 10.0, 120.0, _loss(1, 10.4), _loss(12, 10.4))
    assert _series(run, "Loss") == (12, 10.0, 120.0, _loss(1, 7.2), _loss(12, 7.2))


def test_a_list_of_names_and_a_list_of_another_length_is_left_alone(tmp_path):
    """The stand-down: two names, three values: not zipped (Keras' [loss, metric] list stays as it is)."""
    from trainlint.readers.console.general import read_line

    rec = read_line("Epoch 3 [a, b]: [0.5, 0.4, 0.3]")
    assert rec is not None and "a" not in rec.values and "b" not in rec.values


def test_validate_names_the_evaluation_split(tmp_path):
    """obfasina/Inverse_Problems_GNN wandb/latest-run/files/output.log @af7764b: "Train Loss: 35429.9
    Validate Loss 100120.6" each epoch. "Validate" is the evaluation's split word."""
    lines = [f"Train Loss: {_loss(e, 3e4)} Validate Loss {_loss(e, 9e4)}" for e in range(12)]
    run = _read(tmp_path, lines, "output.log")
    assert run.roles["loss"] == "Train_Loss" and run.roles["eval_loss"] == "Validate_Loss"
    assert _series(run, "Validate_Loss") == (12, 1.0, 12.0, _loss(0, 9e4), _loss(11, 9e4))


def test_the_objective_term_on_the_evaluation_split_is_the_eval_loss(tmp_path):
    """mshanahan/Emotion-Neural-Net job.out @b273a41: "##### EPOCH 0 #####" banners, then
    "TRAIN CROSS ENTROPY: 0.4785" and "VALID CROSS ENTROPY: 0.5316" and a confusion matrix. No name
    says loss: the training term is the loss, the same term of the validation split the eval loss."""
    lines = []
    for e in range(12):
        lines += [f"################### EPOCH {e} #####################", "#" * 50, ""]
        lines += [f"TRAIN CROSS ENTROPY: {_loss(e, 0.48)}", f"VALID CROSS ENTROPY: {_loss(e, 0.53)}"]
        lines += ["VALIDATION CONFUSION MATRIX:", "[[9 0 0]", " [0 7 1]", " [1 0 8]]"]
        lines += ["VALIDATION CLASSIFICATION RATE:0.875", "BEST FOUND", ""]
    run = _read(tmp_path, lines, "job.out")
    assert run.roles["loss"] == "TRAIN_CROSS_ENTROPY" and run.roles["eval_loss"] == "VALID_CROSS_ENTROPY"
    assert _series(run, "VALID_CROSS_ENTROPY") == (12, 0.0, 11.0, _loss(0, 0.53), _loss(11, 0.53))


def test_first_order_model_log_scores(tmp_path):
    """yaoluxun/Thin-Plate-Spline-Motion-Model checkpoints/log.txt @8812d62, first-order-model's
    logger.py (Logger.log_scores): "00000012) perceptual - 54.56717; equivariance_value - 0.20584;
    warp_loss - 0.47446" once an epoch. Each term is a series at its epoch; the loss is their sum
    (train.py minimises sum(loss_values)). Was taken for a ';'-delimited table and not read."""
    lines = []
    for e in range(12):
        p, q, w = _loss(e, 54.0), _loss(e, 0.21), _loss(e, 0.48)
        lines.append(f"{e:08d}) perceptual - {p:.5f}; equivariance_value - {q:.5f}; warp_loss - {w:.5f}")
    run = _read(tmp_path, lines, "log.txt")
    assert run.format == "console/first-order-model-log"
    assert run.roles["loss"] == "perceptual+equivariance_value+warp_loss"
    assert _series(run, "warp_loss") == (12, 0.0, 11.0, round(_loss(0, 0.48), 5), round(_loss(11, 0.48), 5))
    total = run.series["perceptual+equivariance_value+warp_loss"]
    assert abs(float(total.values[0]) - (54.0 + 0.21 + 0.48)) < 1e-4


def test_a_numbered_list_of_name_dash_value_needs_the_whole_line(tmp_path):
    """The stand-down: a line with prose after the terms is not the logger's line."""
    from trainlint.readers.console.motion import log_scores
    from trainlint.readers.console.text import split_lines

    lines = split_lines("001) apples - 3; pears - 4 and more\n002) apples - 2; pears - 5 and more\n")
    assert log_scores(lines) is None


def test_a_section_ends_at_a_record_with_other_counters(tmp_path):
    """The stand-down: after "---------- Validation ----------" and its counter-less "loss 0.6",
    the next step's training line ("step 200 loss 0.4") is training again, with no banner of its own."""
    lines = []
    for k in range(1, 13):
        lines.append(f"step {100 * k} loss {_loss(k)}")
        lines += ["---------- Validation ----------", f"loss {_loss(k, 0.5)}"]
    run = _read(tmp_path, lines)
    assert _series(run, "loss") == (12, 100.0, 1200.0, _loss(1), _loss(12))
    assert _series(run, "Validation_loss") == (12, 100.0, 1200.0, _loss(1, 0.5), _loss(12, 0.5))
