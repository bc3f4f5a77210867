"""The console-log reader: one test per recogniser, on real captures or exact-format samples."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from trainlint.api import read_run
from trainlint.readers import ReadError, sniff
from trainlint.readers.console import patterns
from trainlint.readers.console.text import Line, split_lines

DATA = Path(__file__).parent.parent / "data" / "console"


def series(run, name):
    s = run.series[name]
    return s.steps.tolist(), s.values.tolist()


def test_split_lines_applies_carriage_returns_backspaces_and_ansi():
    lines = split_lines("a\r\x1b[1mb\x1b[0m\n12345\b\b\b\b\bxy\r\ny\n\n")
    assert [(ln.no, ln.segments) for ln in lines] == [(1, ["a", "b"]), (2, ["xy"]), (3, ["y"])]
    assert lines[0].final == "b"


# ------------------------------------------------------------------ Keras (real captures)


def test_keras_series_come_from_epoch_final_lines():
    run = read_run(DATA / "keras_fit.txt")
    assert run.format == "console/keras"
    assert series(run, "loss") == ([1.0, 2.0, 3.0, 4.0], [0.6405, 0.5579, 0.5150, 0.5146])
    assert series(run, "val_loss")[1] == [0.5530, 0.5067, 0.5064, 0.5064]
    # ReduceLROnPlateau: printed as 0.0100, then 1.0000e-04 and 1.0000e-06
    assert series(run, "learning_rate")[1] == [0.01, 0.01, 1e-4, 1e-6]
    assert run.roles["loss"] == "loss" and run.roles["eval_loss"] == "val_loss"
    assert run.meta["planned_epochs"] == 4 and run.meta["completed"] is True
    assert run.events == []


def test_keras_nan_and_zero_exponent_values():
    run = read_run(DATA / "keras_nan.txt")
    # The first mid-epoch redraw shows a finite running loss (4.06e11); the epoch-final value is nan.
    assert all(math.isnan(v) for v in series(run, "loss")[1])
    assert series(run, "accuracy")[1] == [0.0, 0.0, 0.0]  # printed as 0.0000e+00
    raw = (DATA / "keras_nan.txt").read_bytes()
    assert b"loss: 406250127360.0000" in raw and b"0.0000e+00" in raw


def test_keras_log_cut_mid_epoch_records_the_plan_not_a_completion():
    run = read_run(DATA / "keras_cut.txt")
    assert series(run, "loss")[0] == [1.0, 2.0]  # epoch 3 never finished: its redraw is not a point
    assert run.meta["planned_epochs"] == 50 and run.meta["last_epoch"] == 3
    assert "completed" not in run.meta
    assert any("epoch 3/50 has no epoch-final line" in n for n in run.notes)


# ------------------------------------------------------------------ Lightning (real captures)


def test_lightning_tqdm_bar_one_point_per_epoch_at_the_global_step():
    run = read_run(DATA / "lightning_tqdm.txt")
    assert run.format == "console/lightning"
    assert series(run, "train_loss") == ([5.0, 10.0, 15.0], [2.23, 0.665, 0.272])
    assert series(run, "val_loss") == ([5.0, 10.0, 15.0], [1.74, 0.832, 0.456])
    assert series(run, "epoch")[1] == [0.0, 1.0, 2.0]
    assert run.meta["completed"] is True and run.meta["planned_epochs"] == 3
    assert b"\r" in (DATA / "lightning_tqdm.txt").read_bytes()


def test_lightning_rich_bar_metrics_wrapped_onto_following_lines():
    run = read_run(DATA / "lightning_rich.txt")
    assert run.format == "console/lightning-rich"
    assert series(run, "train_loss") == ([15.0], [0.272])
    assert series(run, "val_loss") == ([15.0], [0.456])


# ------------------------------------------------------------------ Hugging Face Trainer (real captures)


def test_hf_trainer_dicts_take_the_step_of_the_bar_drawn_after_them():
    run = read_run(DATA / "hf_trainer.txt")
    assert run.format == "console/hf-trainer"
    assert series(run, "loss") == ([5.0, 10.0, 15.0, 20.0], [8.614, 5.43, 4.603, 3.832])
    assert series(run, "eval_loss") == ([10.0, 20.0], [3.805, 2.963])
    assert series(run, "grad_norm")[1][0] == 6.262
    assert run.meta["max_steps"] == 20 and run.meta["completed"] is True
    assert run.meta["summary"]["train_loss"] == 5.62


def test_hf_trainer_without_bars_uses_the_epoch():
    run = read_run(DATA / "hf_trainer_notqdm.txt")
    assert series(run, "loss")[0] == [0.625, 1.25, 1.875, 2.5]
    assert run.meta["steps_are"] == "epochs"


# ------------------------------------------------------------------ exact-format samples


def test_pytorch_mnist_example():
    run = read_run(DATA / "pytorch_mnist.log")
    assert run.format == "console/pytorch-example"
    steps, values = series(run, "loss")
    assert len(steps) == 30 and steps[:2] == [0.0, 6016.0] and values[0] == 2.3
    assert steps[10] == 60000.0  # epoch 2 starts after 60000 samples
    assert series(run, "test_loss") == ([60000.0, 120000.0, 180000.0], [0.09, 0.045, 0.03])
    assert series(run, "test_accuracy")[1] == [0.975, 0.98, 0.985]
    assert run.roles["eval_loss"] == "test_loss"


def test_pytorch_line_with_a_tab_is_not_taken_for_a_csv_table():
    assert sniff(DATA / "pytorch_mnist.log").name == "console"


def test_detectron2_text_log():
    run = read_run(DATA / "detectron2.log")
    steps, values = series(run, "total_loss")
    assert len(steps) == 25 and steps[0] == 19.0 and values[0] == 2.029
    assert run.roles["loss"] == "total_loss" and run.roles["learning_rate"] == "lr"
    assert series(run, "step_time")[1][0] == 0.443
    assert "max_mem" not in run.series  # "2345M" is not a bare number
    assert run.meta["completed"] is True


def test_yolo_console_table():
    run = read_run(DATA / "yolo.log")
    assert series(run, "train/box_loss") == ([1.0, 2.0, 3.0], [1.12, 1.02, 0.92])
    assert series(run, "metrics/mAP50-95(B)")[1] == [0.35, 0.4, 0.45]
    assert np.allclose(series(run, "loss")[1], [1.12 + 1.45 + 1.2, 1.02 + 1.3 + 1.15, 0.92 + 1.15 + 1.1])
    assert run.meta["planned_epochs"] == 3 and run.meta["completed"] is True


def test_nanogpt_iter_and_eval_lines():
    run = read_run(DATA / "nanogpt.log")
    steps, values = series(run, "loss")
    assert steps[:3] == [0.0, 10.0, 20.0] and len(steps) == 31
    assert series(run, "val_loss")[0] == [0.0, 100.0, 200.0, 300.0]
    assert series(run, "step_time")[1][0] == pytest.approx(0.34512)  # printed in ms
    assert run.roles["eval_loss"] == "val_loss"


def test_llmc_step_table():
    run = read_run(DATA / "llmc.log")
    assert run.format == "console/llm.c"
    steps, _ = series(run, "loss")
    assert steps[0] == 1.0 and steps[-1] == 40.0
    assert series(run, "val_loss")[0] == [20.0, 40.0]
    assert run.meta["max_steps"] == 74
    assert run.roles["grad_norm"] == "grad_norm" and run.roles["throughput"] == "tokens_per_second"
    assert series(run, "step_time")[1][0] == pytest.approx(0.45397)


def test_fairseq_inner_lines_step_on_num_updates():
    run = read_run(DATA / "fairseq_hydra.log")
    steps, values = series(run, "loss")
    assert steps == [float(s) for s in range(100, 1001, 100)]
    assert series(run, "valid_loss") == ([500.0, 1000.0], [8.5, 7.5])
    assert run.roles["eval_loss"] == "valid_loss" and run.roles["grad_norm"] == "gnorm"
    assert any("fairseq-epoch line(s) not used" in n for n in run.notes)
    assert run.meta["completed"] is True


def test_fairseq_legacy_epoch_summaries():
    run = read_run(DATA / "fairseq_legacy.log")
    steps, values = series(run, "loss")
    assert steps == [1000.0, 2000.0, 3000.0, 4000.0, 5000.0]
    assert values[0] == 7.237
    assert series(run, "valid_loss")[0] == steps


def test_generic_epoch_lines_record_the_plan():
    run = read_run(DATA / "generic_epoch.txt")
    assert run.format == "console/generic-epoch"
    assert series(run, "train_loss")[0] == [float(e) for e in range(1, 13)]
    assert run.meta["planned_epochs"] == 20 and "completed" not in run.meta


def test_generic_step_lines():
    run = read_run(DATA / "generic_step.log")
    steps, values = series(run, "loss")
    assert steps[0] == 50.0 and steps[-1] == 1000.0 and values[0] == 3.6074
    assert run.roles["grad_norm"] == "grad_norm"
    assert run.meta["completed"] is True  # "Training completed." at the end


def test_progress_bar_redraws_are_not_taken_as_generic_lines(tmp_path):
    log = tmp_path / "bar.log"
    log.write_text(
        "Epoch 3: 50%|#####     | 5/10 [00:01<00:01, loss=0.42]\r"
        "Epoch 3: 60%|######    | 6/10 [00:01<00:01, loss=0.41]\n"
    )
    run = read_run(log)  # read by bar position, not as two "epoch 3" lines
    assert run.format == "console/tqdm-postfix"
    assert series(run, "loss") == ([5.0, 6.0], [0.42, 0.41])


def test_bars_without_a_loss_are_noise(tmp_path):
    log = tmp_path / "prep.log"
    log.write_text(
        "Map: 50%|#####     | 500/1000 [00:00<00:00]\rMap: 100%|##########| 1000/1000 [00:00<00:00]\n"
        "Downloading: 100%|##########| 1.2G/1.2G [00:10<00:00, 120MB/s]\n"
    )
    with pytest.raises(ReadError, match="no known training-progress lines found"):
        read_run(log)


def test_unmatched_console_file_is_not_checked():
    with pytest.raises(ReadError, match="^no known training-progress lines found$"):
        read_run(DATA / "not_training.log")


def test_sniffer_claims_console_names_and_progress_content_only(tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("remember to buy milk\n")
    table = tmp_path / "training.log"
    table.write_text("epoch,loss,val_loss\n0,0.5,0.6\n1,0.4,0.5\n")
    source = tmp_path / "crash.py"
    source.write_text('EXAMPLE = """\nTraceback (most recent call last):\nValueError: x\n"""\n')
    progress = tmp_path / "run_output"  # no suffix, but progress lines
    progress.write_text("step 1 loss=2.0\nstep 2 loss=1.9\n")
    assert sniff(notes) is None
    assert sniff(table).name == "csv"  # Keras CSVLogger's training.log stays with the CSV reader
    assert sniff(source) is None
    assert sniff(progress).name == "console"
    assert sniff(DATA / "not_training.log").name == "console"


def test_crlf_console_log(tmp_path):
    log = tmp_path / "train.log"
    log.write_bytes(b"step 10 loss=2.5\r\nstep 20 loss=2.4\r\n")
    run = read_run(log)
    assert series(run, "loss") == ([10.0, 20.0], [2.5, 2.4])


def test_user_pattern_wins_over_the_built_in_shapes(tmp_path):
    log = tmp_path / "custom.log"
    log.write_text("it=10 | objective 2.50 | step 1 loss=9\nit=20 | objective 2.25 | step 2 loss=9\n")
    run = read_run(log, patterns=[r"it=(?P<step>\d+) \| objective (?P<loss>[0-9.]+)"])
    assert run.format == "console/user-pattern"
    assert series(run, "loss") == ([10.0, 20.0], [2.5, 2.25])
    assert read_run(log).format == "console/generic-step"  # without the pattern


def test_user_pattern_must_name_a_metric():
    from trainlint.readers.console.reader import compile_user_pattern

    with pytest.raises(ValueError, match="names no metric"):
        compile_user_pattern(r"step (?P<step>\d+)")
    with pytest.raises(ValueError, match="not a valid regular expression"):
        compile_user_pattern(r"step (?P<step>\d+")


def test_keras2_progbar_with_backspaces_eta_and_lr(tmp_path):
    bs = "\b" * 90
    text = (
        "Epoch 1/3\n"
        "\r  1/469 [..............................] - ETA: 2:15 - loss: 2.3026 - accuracy: 0.0938"
        + bs
        + "\r 50/469 [===>..........................] - ETA: 1s - loss: 1.1000 - accuracy: 0.6500"
        + bs
        + "\r469/469 [==============================] - 3s 6ms/step - loss: 0.3614 - accuracy: 0.8984"
        " - val_loss: 0.1760 - val_accuracy: 0.9490 - lr: 0.0010\n"
        "Epoch 2/3\n"
        "\r  1/469 [..............................] - ETA: 3s - loss: 0.2000 - accuracy: 0.9300"
        + bs
        + "\r469/469 [==============================] - 3s 6ms/step - loss: 0.1912 - accuracy: 0.9441"
        " - val_loss: 0.1393 - val_accuracy: 0.9588 - lr: 0.0010\n"
        "\nEpoch 00002: ReduceLROnPlateau reducing learning rate to 0.00010000000474974513.\n"
        "Epoch 3/3\n"
        "469/469 - 3s - loss: 0.1500 - accuracy: 0.9500 - val_loss: 0.1300 - val_accuracy: 0.9600"
        " - lr: 1.0000e-04 - 3s/epoch - 6ms/step\n"
    )
    log = tmp_path / "nohup.out"
    log.write_text(text)
    run = read_run(log)
    assert run.format == "console/keras"
    assert series(run, "loss") == ([1.0, 2.0, 3.0], [0.3614, 0.1912, 0.15])
    assert series(run, "lr")[1] == [0.001, 0.001, 1e-4]
    assert run.roles["learning_rate"] == "lr" and run.meta["completed"] is True


def test_keras_early_stopping_is_a_normal_end(tmp_path):
    log = tmp_path / "fit.log"
    log.write_text(
        "Epoch 1/100\n5/5 - 0s - loss: 0.5 - val_loss: 0.6\n"
        "Epoch 2/100\n5/5 - 0s - loss: 0.4 - val_loss: 0.7\n"
        "Epoch 2: early stopping\nRestoring model weights from the end of the best epoch: 1.\n"
    )
    run = read_run(log)
    assert run.meta["completed"] is True and run.meta["early_stopped_epoch"] == 2
    assert run.meta["planned_epochs"] == 100


def test_lightning_validation_value_carried_over_is_not_a_new_point(tmp_path):
    """check_val_every_n_epoch=2: the bar keeps showing the old val_loss in epochs without validation."""

    def bar(e, n, post):
        return f"Epoch {e}: {n * 100 // 75:>3}%|#####     | {n}/75 [00:01<00:00, 50.1it/s, {post}]"

    text = (
        "\r".join(
            [
                bar(0, 1, "loss=0.90, v_num=1"),
                bar(0, 75, "loss=0.52, v_num=1"),
                bar(1, 75, "loss=0.45, v_num=1"),
                "Validation: 0it [00:00, ?it/s]",
                "Validation DataLoader 0: 100%|##| 4/4",
                bar(1, 75, "loss=0.42, v_num=1, val_loss=0.51"),
                bar(2, 30, "loss=0.40, v_num=1, val_loss=0.51"),
                bar(2, 75, "loss=0.39, v_num=1, val_loss=0.51"),
                bar(3, 75, "loss=0.35, v_num=1, val_loss=0.51"),
                "Validation: 0it [00:00, ?it/s]",
                bar(3, 75, "loss=0.35, v_num=1, val_loss=0.51"),
            ]
        )
        + "\n"
    )
    log = tmp_path / "lightning.log"
    log.write_text(text)
    run = read_run(log)
    assert run.format == "console/lightning"
    assert series(run, "loss") == ([75.0, 150.0, 225.0, 300.0], [0.52, 0.42, 0.39, 0.35])
    # epoch 1 validated (0.51); epoch 2 only carried it over; epoch 3 validated again and got 0.51 again
    assert series(run, "val_loss") == ([150.0, 300.0], [0.51, 0.51])
    assert "v_num" not in run.series


def test_tqdm_postfix_loss_in_a_hand_written_loop(tmp_path):
    def bar(n, loss):
        return f"epoch 1:  {n * 10:>3}%|{'#' * n:<10}| {n}/10 [00:0{n}<00:05,  2.00it/s, loss={loss}]"

    redraws = [bar(1, 2.5), bar(2, 2.4), bar(2, 2.4), bar(10, 2.0)]
    second = [b.replace("epoch 1", "epoch 2") for b in (bar(0, 2.0), bar(5, 1.5), bar(10, 1.2))]
    log = tmp_path / "notebook_output.txt"
    log.write_text(
        "\r".join(redraws)
        + "\n"
        + "\r".join(second)
        + "\n"
        + "Map: 100%|##########| 1000/1000 [00:00<00:00, 5000.00 examples/s]\n"
    )
    run = read_run(log)
    assert run.format == "console/tqdm-postfix"
    assert series(run, "loss") == ([1.0, 2.0, 10.0, 10.0 + 5.0, 20.0], [2.5, 2.4, 2.0, 1.5, 1.2])


def test_a_scripts_own_epoch_bar_is_no_lightning_bar(tmp_path):
    # dtv-net-ct-train-log-1277 (calibration): tqdm(desc=f"Epoch {e}") with set_postfix_str(f"loss:{x},epoch mean:{m:.2f}"),
    # redrawn with \r on one line an epoch, and a "validating..." bar after each epoch. Lightning's bar writes
    # "loss=0.52, v_num=0": this one is read at every batch by the tqdm postfix recogniser, not once an epoch
    def bar(desc, n, total, loss):
        return f"{desc}: {n * 100 // total:>3}%|#         | {n}/{total} [00:10<01:18,  6.03s/it, loss:{loss},epoch mean:{loss:.2f}]"

    lines = []
    for e in range(3):
        lines.append("\r".join(bar(f"Epoch {e}", n, 20, 100.0 - e * 20 - n) for n in range(1, 21)))
        lines.append("\r".join(bar("validating...", n, 5, 90.0 - e) for n in range(1, 6)))
    log = tmp_path / "train.log"
    log.write_text("\n".join(lines) + "\n")
    run = read_run(log)
    assert run.format == "console/tqdm-postfix"
    steps, values = series(run, "loss")
    assert (len(steps), steps[0], steps[-1], values[0], values[-1]) == (60, 1.0, 60.0, 99.0, 40.0)
    # the validation bar's loss is an evaluation, at the training step it followed, not a training point
    assert series(run, "val_loss") == ([20.0, 40.0, 60.0], [90.0, 89.0, 88.0])


def test_a_loss_in_a_bar_description_of_several_words(tmp_path):
    # pbar.set_description(f"Epoch {epoch}/{epochs} loss: {loss:.4f}"), the loss set every other redraw and
    # each redraw on its own line (a bar written to a file): a point each time the description changes
    def bar(e, n, loss):
        return f"Epoch {e}/3 loss: {loss:.4f}: {n:3d}%|{'#' * (n // 10):<10}| {n}/100 [00:10<00:00, 9.50it/s]"

    lines = [bar(e, n, 3.0 - 0.1 * e - 0.001 * (n // 10 * 10)) for e in range(1, 4) for n in range(10, 101, 5)]
    log = tmp_path / "train.log"
    log.write_text("\n".join(lines) + "\n")
    run = read_run(log)
    assert run.format == "console/tqdm-postfix" and run.roles["loss"] == "loss"
    steps, values = series(run, "loss")
    assert (len(steps), steps[0], steps[-1], values[0], values[-1]) == (30, 10.0, 300.0, 2.89, pytest.approx(2.6))


def test_pytorch_imagenet_example_epochs_count_from_zero(tmp_path):
    log = tmp_path / "imagenet.log"
    log.write_text(
        "Epoch: [0][   0/5005]\tTime  5.112 ( 5.112)\tData  4.001 ( 4.001)\tLoss 6.9412e+00 (6.9412e+00)\t"
        "Acc@1   0.00 (  0.00)\tAcc@5   0.39 (  0.39)\n"
        "Epoch: [0][5000/5005]\tTime  0.212 ( 0.250)\tData  0.001 ( 0.010)\tLoss 3.1000e+00 (4.2000e+00)\t"
        "Acc@1  35.20 ( 20.10)\tAcc@5  60.00 ( 45.00)\n"
        "Test: [  0/196]\tTime  2.000 ( 2.000)\tLoss 2.9000e+00 (2.9000e+00)\tAcc@1  40.00 ( 40.00)\n"
        " * Acc@1 41.234 Acc@5 66.789\n"
    )
    run = read_run(log)
    assert run.format == "console/pytorch-example"
    assert series(run, "loss") == ([0.0, 5000.0], [6.9412, 3.1])
    assert series(run, "val_acc1") == ([5005.0], [41.234])
    assert series(run, "step_time")[1] == [5.112, 0.212]


def test_hf_trainer_older_float_dicts_with_nan(tmp_path):
    log = tmp_path / "train.out"
    log.write_text(
        "\r  0%|          | 0/30 [00:00<?, ?it/s]\r 33%|###3      | 10/30 [00:02<00:04,  4.90it/s]"
        "\r                                                \r{'loss': 2.1234, 'grad_norm': inf, "
        "'learning_rate': 4.5e-05, 'epoch': 0.33}\n\r 33%|###3      | 10/30 [00:02<00:04,  4.90it/s]"
        "\r 67%|######6   | 20/30 [00:04<00:02,  4.90it/s]"
        "\r{'loss': nan, 'grad_norm': nan, 'learning_rate': 2.5e-05, 'epoch': 0.67}\n"
        "\r 67%|######6   | 20/30 [00:04<00:02,  4.90it/s]\r 70%|#######   | 21/30 [00:04<00:02,  4.90it/s]"
    )
    run = read_run(log)
    steps, values = series(run, "loss")
    assert steps == [10.0, 20.0] and values[0] == 2.1234 and math.isnan(values[1])
    assert series(run, "grad_norm")[1][0] == math.inf
    assert run.meta["max_steps"] == 30 and "completed" not in run.meta


def test_progress_after_a_long_banner_in_a_plain_txt_is_found(tmp_path):
    log = tmp_path / "run42.txt"
    log.write_text(
        "/opt/lib/site-packages/x.py:12: UserWarning: something harmless happened\n" * 200
        + "step 10 loss=2.5\nstep 20 loss=2.4\n"
    )
    assert log.stat().st_size > 8192
    assert sniff(log).name == "console"
    assert series(read_run(log), "loss") == ([10.0, 20.0], [2.5, 2.4])


def test_a_text_dataset_named_train_txt_is_not_a_console_log(tmp_path):
    data = tmp_path / "train.txt"
    data.write_text("The quick brown fox jumps over the lazy dog.\n" * 50)
    assert sniff(data) is None
    big = tmp_path / "shard_0001.txt"  # a long corpus shard is not read past its first 8 KB
    big.write_text("A sentence of prose, nothing printed by a training loop.\n" * 400 + "step 10 loss=2.5\n")
    assert sniff(big) is None


def test_lightning_rich_bar_under_a_terminal():
    """Captured under a pty: Rich redraws with cursor moves, and shows an epoch's validation
    loss only on the next epoch's bar."""
    run = read_run(DATA / "lightning_rich_tty.txt")
    assert run.format == "console/lightning-rich"
    assert series(run, "train_loss") == ([5.0, 10.0, 15.0], [2.229, 0.665, 0.272])
    # 4.864 is the sanity check before training; not an epoch's value
    assert series(run, "val_loss") == ([5.0, 10.0, 15.0], [1.738, 0.832, 0.456])
    assert run.meta["completed"] is True


def test_utf16_console_log_from_powershell(tmp_path):
    log = tmp_path / "train.log"
    log.write_bytes("step 10 loss=2.5\r\nstep 20 loss=2.4\r\n".encode("utf-16"))  # with its BOM
    assert sniff(log).name == "console"
    run = read_run(log)
    assert series(run, "loss") == ([10.0, 20.0], [2.5, 2.4])
    assert any("UTF-16" in n for n in run.notes)


def test_generic_step_total_is_the_planned_length(tmp_path):
    log = tmp_path / "train.log"
    log.write_text("".join(f"step {s}/1000 | loss {3 - s / 100:.2f} | lr 1e-4\n" for s in range(10, 130, 10)))
    run = read_run(log)
    assert run.meta["max_steps"] == 1000 and run.meta["last_step"] == 120.0
    assert "completed" not in run.meta


def test_user_pattern_with_epoch_and_kv_groups(tmp_path):
    log = tmp_path / "custom.log"
    log.write_text("[E 1] metrics :: loss=0.9 acc=0.5\n[E 2] metrics :: loss=0.7 acc=0.6\n")
    run = read_run(log, patterns=[r"\[E (?P<epoch>\d+)\] metrics :: (?P<kv>.*)"])
    assert series(run, "loss") == ([1.0, 2.0], [0.9, 0.7])
    assert series(run, "acc")[1] == [0.5, 0.6]


def test_user_pattern_without_a_position_counts_records(tmp_path):
    log = tmp_path / "custom.log"
    log.write_text("objective 2.5\nnoise\nobjective 2.25\n")
    run = read_run(log, patterns=[r"^objective (?P<loss>[0-9.]+)$"])
    assert series(run, "loss") == ([0.0, 1.0], [2.5, 2.25])


def test_hf_trainer_info_banner_gives_the_plan(tmp_path):
    log = tmp_path / "train.log"
    log.write_text(
        "***** Running training *****\n  Num examples = 6,400\n  Num Epochs = 3\n"
        "  Total optimization steps = 2,400\n"
        "\r  0%|          | 0/2400 [00:00<?, ?it/s]\r{'loss': 2.5, 'learning_rate': 5e-05, 'epoch': 0.01}\n"
        "\r  1%|          | 10/2400 [00:02<08:00,  4.90it/s]\n"
    )
    run = read_run(log)
    assert run.meta["planned_epochs"] == 3 and run.meta["max_steps"] == 2400
    assert series(run, "loss") == ([10.0], [2.5])


def test_megatron_iteration_and_validation_lines():
    run = read_run(DATA / "megatron.log")
    assert run.format == "console/megatron"
    steps, values = series(run, "loss")
    assert steps[:2] == [10.0, 20.0] and values[0] == 10.1006  # printed as 1.010060E+01
    assert series(run, "val_loss")[0] == [100.0, 200.0]
    assert series(run, "step_time")[1][0] == pytest.approx(1.2375)  # elapsed time per iteration (ms): 1237.5
    assert run.meta["max_steps"] == 500000
    assert run.roles["learning_rate"] == "learning_rate" and run.roles["grad_norm"] == "grad_norm"


def test_thousands_separators_in_generic_lines(tmp_path):
    log = tmp_path / "titan.log"
    log.write_text(
        "[titan] 2026-01-05 12:00:00,000 - root - INFO - step:  1  loss: 12.2500  memory: 30.25GiB(31.83%)"
        "  tps: 1,234  tflops: 12.34  mfu: 12.34%\n"
        "[titan] 2026-01-05 12:00:10,000 - root - INFO - step: 10  loss:  9.1000  memory: 30.25GiB(31.83%)"
        "  tps: 12,345  tflops: 12.34  mfu: 12.34%\n"
    )
    run = read_run(log)
    assert series(run, "loss") == ([1.0, 10.0], [12.25, 9.1])
    assert series(run, "tps")[1] == [1234.0, 12345.0]
    assert "memory" not in run.series  # "30.25GiB" is not a bare number


@pytest.mark.parametrize(
    "end",
    [
        "Training completed. Do not forget to share your model on huggingface.co/models =)",
        "`Trainer.fit` stopped: `max_steps=30` reached.",
        "Monitored metric val_loss did not improve in the last 3 records. Best score: 0.512. Signaling Trainer to stop.",
        "Stopping training early as no improvement observed in last 50 epochs. Best results observed at epoch 12",
        "total average iteration time: 452.123456 ms",
        "[after training is done] datetime: 2026-01-05 04:00:00",
        "[11/29 10:19:30 d2.engine.hooks]: Total training time: 0:03:48 (0:00:08 on hooks)",
        "2021-03-01 10:30:00 | INFO | fairseq_cli.train | done training in 3298.8 seconds",
        "3 epochs completed in 0.010 hours.",
    ],
)
def test_normal_end_lines(tmp_path, end):
    log = tmp_path / "train.log"
    log.write_text("step 10 loss=2.5\nstep 20 loss=2.4\n" + end + "\n")
    assert read_run(log).meta.get("completed") is True
    log.write_text("step 10 loss=2.5\nstep 20 loss=2.4\n")
    assert "completed" not in read_run(log).meta


def test_a_resume_into_the_same_log_is_noted(tmp_path):
    log = tmp_path / "nohup.out"
    log.write_text(
        "step 100 loss=2.0\nstep 200 loss=1.9\nstep 300 loss=1.8\nKilled\n"
        "step 200 loss=1.9\nstep 300 loss=1.8\nstep 400 loss=1.7\n"
    )
    run = read_run(log)
    assert run.meta["step_resets"] == [{"from": 300.0, "to": 200.0}]
    assert series(run, "loss")[0] == [100.0, 200.0, 300.0, 200.0, 300.0, 400.0]
    (ev,) = run.events
    assert ev["signature"] == "killed" and ev["resumed"] is True


def test_torchrun_rank_prefixes_keep_rank_zero(tmp_path):
    log = tmp_path / "torchrun.log"
    log.write_text(
        "[rank0]: step 100 loss=2.00\n[rank1]: step 100 loss=2.10\n"
        "[rank0]: step 200 loss=1.90\n[rank1]: step 200 loss=1.95\n"
        "[default0]:Epoch 1/2\n"
    )
    run = read_run(log)
    assert series(run, "loss") == ([100.0, 200.0], [2.0, 1.9])


def _megatron_line(i: int) -> str:
    return (
        f" iteration {i * 10:8d}/    1000 | consumed samples: {i * 640:8d} | elapsed time per iteration (ms): 512.3 |"
        f" learning rate: 1.000E-04 | global batch size:    64 | lm loss: {8 - i * 0.1:.6E} | loss scale: 1.0 |"
        " grad norm: 1.234 | number of skipped iterations:   0 | number of nan iterations:   0 |"
    )


def test_a_multi_node_launchers_host_labels_keep_one_hosts_lines(tmp_path):
    """pdsh / DeepSpeed's multi-node runner label each line with its host; the start-up of every
    node, then the node that prints the progress (a shape a round-10 probe met on a multi-node
    Megatron log): the megatron recogniser reads the iterations at their steps, once each."""
    log = tmp_path / "multinode.log"
    start = "".join(
        f"{h}: > initializing torch distributed ...\n{h}: > setting random seeds ...\n"
        for h in ("worker-0", "worker-1")
    )
    start += "worker-1: > building GPT model ...\n" * 2
    body = "".join(
        f"worker-1: {_megatron_line(i)}\nworker-0: [after step] memory (MB) | allocated: 1.0\n" for i in range(1, 31)
    )
    log.write_text(start + body)
    run = read_run(log)
    assert run.format == "console/megatron"
    steps, values = series(run, "loss")
    assert steps[:2] == [10.0, 20.0] and len(steps) == 30 and values[0] == 7.9 and values[-1] == 5.0


def test_srun_task_labels_keep_one_tasks_lines_and_a_glued_counter_is_no_host(tmp_path):
    log = tmp_path / "srun.log"
    log.write_text(
        "".join(f"{t}: Epoch {i}/20 - loss: {2 - i * 0.05:.4f}\n" for i in range(1, 21) for t in (0, 1, 2, 3))
    )
    assert series(read_run(log), "train_loss")[0] == [float(i) for i in range(1, 21)]
    glued = tmp_path / "glued.log"  # "Epoch3: " is the line's own counter, not a host
    glued.write_text("".join(f"Epoch{i % 3}: loss {2 - i * 0.05:.4f}\n" for i in range(1, 31)))
    assert len(series(read_run(glued), "loss")[0]) == 30


def test_torchvision_reference_metric_logger(tmp_path):
    log = tmp_path / "detr.log"
    log.write_text(
        "Epoch: [0]  [0/6]  eta: 0:00:25  lr: 0.001004  loss: 8.2773 (8.2773)  loss_classifier: 0.7230 (0.7230)"
        "  time: 4.1973  data: 1.1906  max mem: 2547\n"
        "Epoch: [0]  [5/6]  eta: 0:00:00  lr: 0.005000  loss: 2.4622 (4.1605)  loss_classifier: 0.5505 (0.5914)"
        "  time: 0.9761  data: 0.2334  max mem: 2670\n"
        "Epoch: [0] Total time: 0:00:05 (0.9880 s / it)\n"
        "Epoch: [1]  [0/6]  eta: 0:00:09  lr: 0.005000  loss: 1.7961 (1.7961)  loss_classifier: 0.4389 (0.4389)"
        "  time: 1.6615  data: 1.3112  max mem: 2852\n"
    )
    run = read_run(log)
    assert run.format == "console/pytorch-example"
    assert series(run, "loss") == ([0.0, 5.0, 6.0], [8.2773, 2.4622, 1.7961])  # the current value, not the average
    assert series(run, "lr")[1] == [0.001004, 0.005, 0.005]
    assert series(run, "step_time")[1][0] == 4.1973


def test_yolov5_console_table_counts_epochs_from_zero(tmp_path):
    log = tmp_path / "yolov5.log"
    log.write_text(
        "\n     Epoch   gpu_mem       box       obj       cls    labels  img_size\n"
        "     0/299     3.23G   0.04523   0.06178   0.02281       220       640:  50%|#####     | 59/118 [00:30<00:30]"
        "\r     0/299     3.23G   0.04400   0.06000   0.02200       220       640: 100%|##########| 118/118 "
        "[01:00<00:00]\n"
        "               Class     Images     Labels          P          R     mAP@.5 mAP@.5:.95: 100%|#| 8/8 "
        "[00:03<00:00]\n"
        "                 all        128        929      0.651      0.552      0.611      0.451\n"
        "EarlyStopping: Training stopped early as no improvement observed in last 100 epochs.\n"
    )
    run = read_run(log)
    assert run.format == "console/yolo"
    assert series(run, "train/obj_loss") == ([0.0], [0.06])
    assert series(run, "loss")[1] == [pytest.approx(0.044 + 0.06 + 0.022)]
    assert series(run, "metrics/mAP50(B)")[1] == [0.611]
    assert run.meta["planned_epochs"] == 300 and run.meta["completed"] is True


def test_fairseq_json_log_format(tmp_path):
    log = tmp_path / "fairseq.log"
    log.write_text(
        '2021-03-01 10:01:40 | INFO | train_inner | {"epoch": 1, "update": 0.091, "loss": "12.817", "nll_loss": '
        '"12.672", "ppl": "6527.64", "wps": "21045.4", "num_updates": "100", "lr": "1.25975e-05", "gnorm": "2.591"}\n'
        '2021-03-01 10:03:20 | INFO | train_inner | {"epoch": 1, "update": 0.181, "loss": "11.9", "num_updates": '
        '"200", "lr": "2.5e-05", "gnorm": "2.1"}\n'
        '2021-03-01 10:18:30 | INFO | valid | {"epoch": 1, "valid_loss": "9.514", "valid_ppl": "481.42", '
        '"valid_num_updates": "200"}\n'
    )
    run = read_run(log)
    assert run.format == "console/fairseq"
    assert series(run, "loss") == ([100.0, 200.0], [12.817, 11.9])
    assert series(run, "valid_loss") == ([200.0], [9.514])
    assert run.roles["grad_norm"] == "gnorm" and run.roles["eval_loss"] == "valid_loss"


def test_openmmlab_mmengine_and_mmcv_lines(tmp_path):
    log = tmp_path / "mmdet.log"
    log.write_text(
        "2023/05/01 12:00:00 - mmengine - INFO - Epoch(train)  [1][ 50/1000]  base_lr: 2.0000e-02 lr: 2.0000e-02  "
        "eta: 1 day, 0:00:00  time: 0.5000  data_time: 0.0100  memory: 3000  grad_norm: 10.5  loss: 1.2345  "
        "loss_cls: 0.5000\n"
        "2023/05/01 12:00:30 - mmengine - INFO - Epoch(train)  [1][100/1000]  base_lr: 2.0000e-02 lr: 2.0000e-02  "
        "eta: 23:59:00  time: 0.4900  data_time: 0.0100  memory: 3000  grad_norm: 9.5  loss: 1.1000  loss_cls: 0.4500\n"
        "2023/05/01 13:00:00 - mmengine - INFO - Epoch(val) [1][500/500]    coco/bbox_mAP: 0.3700  "
        "coco/bbox_mAP_50: 0.5800  data_time: 0.0100  time: 0.1000\n"
    )
    run = read_run(log)
    assert run.format == "console/openmmlab"
    assert series(run, "loss") == ([50.0, 100.0], [1.2345, 1.1])
    assert series(run, "val/coco/bbox_mAP") == ([100.0], [0.37])
    assert "eta" not in run.series and run.roles["grad_norm"] == "grad_norm"
    old = tmp_path / "mmcv.log"
    old.write_text(
        "2022-01-01 12:00:00,000 - mmdet - INFO - Epoch [1][50/7330]\tlr: 1.990e-03, eta: 1 day, 0:00:00, "
        "time: 0.500, data_time: 0.050, memory: 3000, loss_rpn_cls: 0.5000, loss: 1.5000, grad_norm: 10.0\n"
        "2022-01-01 12:00:25,000 - mmdet - INFO - Epoch [2][50/7330]\tlr: 2.000e-02, eta: 23:00:00, "
        "time: 0.400, data_time: 0.050, memory: 3000, loss_rpn_cls: 0.4000, loss: 1.2000, grad_norm: 9.0\n"
    )
    run = read_run(old)
    assert series(run, "loss") == ([50.0, 7380.0], [1.5, 1.2])
    assert series(run, "step_time")[1] == [0.5, 0.4]


_KV_NAME = st.sampled_from(["loss", "lr", "grad_norm", "eta", "train_loss", "acc", "Loss", "tok/s"])
_KV_VALUE = st.sampled_from(["3.2870", "5.63e-07", "nan", "1,234", "12ms", "0.5%", "inf", "-1", "x"])


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["step", "Step", "iter", "global_step", "Iteration"]),
            st.integers(0, 50),
            st.one_of(st.none(), st.integers(1, 99)),
            st.lists(st.tuples(_KV_NAME, st.sampled_from(["=", ": ", " "]), _KV_VALUE), max_size=4),
        ),
        min_size=1,
        max_size=25,
    )
)
def test_plain_pattern_shortcut_reads_what_the_general_path_reads(rows):
    """The shortcut for the generic name=value shapes (LinePattern.plain) gives the same capture
    as the general per-pattern path."""
    lines = [
        Line(i + 1, [f"{kw} {n}{'' if m is None else f'/{m}'} " + " ".join(f"{k}{sep}{v}" for k, sep, v in kv)])
        for i, (kw, n, m, kv) in enumerate(rows)
    ]

    def read():
        caps = patterns.apply_patterns(lines, patterns.PATTERNS)
        return [(c.framework, c.cols, c.lines, c.meta) for c in caps]

    fast = read()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(patterns.LinePattern, "plain", property(lambda self: False))
        general = read()
    assert repr(fast) == repr(general)  # repr: NaN values compare equal as text


_NUMBER = st.from_regex(r"[-+]?(\d{1,4}(\.\d{0,3})?|\.\d{1,3})([eE][-+]?\d{1,2})?", fullmatch=True)
_PLAIN_WORD = st.tuples(
    st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,4}", fullmatch=True),
    st.just("="),
    _NUMBER | st.text("0123456789.eE+-", min_size=1, max_size=6) | st.text("0123456789._,%smn", min_size=1, max_size=5),
).map("".join)
_ODD_WORD = st.tuples(
    st.text("ab_Z9é/.-@:", min_size=1, max_size=4),
    st.sampled_from(["=", "==", ":", ""]),
    st.text("0123456789.eE+-,_ %smnaIf", min_size=1, max_size=7) | _NUMBER,
).map("".join)
_WORD = _PLAIN_WORD | _PLAIN_WORD | _PLAIN_WORD | _ODD_WORD


def _expression_pairs(text, mode):
    with_expression = patterns._plain_pairs
    try:
        patterns._plain_pairs = lambda text, mode: None
        return patterns.parse_kv(text, mode)
    finally:
        patterns._plain_pairs = with_expression


@settings(max_examples=1000, deadline=None)
@given(st.lists(_WORD, max_size=5), st.sampled_from([" ", "  ", "\t", " \u00a0"]), st.sampled_from(["=", "any"]))
@example(["a=1_0"], " ", "=")  # float() takes it, the expression does not
@example(["a=1,000", "b=5."], " ", "any")
@example(["a=+.5e-3", "b=1e5", "c=-0"], " ", "=")
@example(["a=1e", "b=2"], " ", "=")
def test_plain_pairs_read_what_the_expression_reads(words, gap, mode):
    """The console's fast name=number reader returns the expression's pairs on every text it
    accepts (and declines the rest: units, separators, odd names, NaN spellings ...)."""
    text = gap.join(words)
    fast = patterns._plain_pairs(text, mode)
    if fast is not None:
        slow = _expression_pairs(text, mode)
        assert fast == slow and list(fast) == list(slow), text


def test_plain_pairs_take_the_common_line_and_leave_the_rest():
    assert patterns._plain_pairs("loss=3.2870 lr=5.63e-07 grad_norm=1.323", "=") == {
        "loss": 3.287,
        "lr": 5.63e-07,
        "grad_norm": 1.323,
    }
    for odd in ("loss=3.2 time=5ms", "loss=1,234", "train/loss=2", "loss=nan", "step 3 loss=2", "loss = 2"):
        assert patterns._plain_pairs(odd, "=") is None, odd


def test_progress_after_a_printed_torch_model_in_a_plain_txt_is_found(tmp_path):
    # te-gcn-chinese-named-log-1342 (calibration): a 训练日志.txt ("training log") opening with the model's
    # module dump (print(model): 400 lines, no warning or level word in its first 8 KB), then the
    # ST-GCN-family processor's "[ <date> ] Training epoch: N" / "\tMean training loss: X." records
    dump = "Model(\n" + "".join(
        f"  (l{i}): TCN_GCN_unit(\n    (conv): Conv2d(64, 64, kernel_size=(9, 1))\n  )\n" for i in range(200)
    )
    epochs = "".join(
        f"[ Fri Oct 18 02:05:31 2024 ] Training epoch: {e}\n[ Fri Oct 18 02:09:12 2024 ] \tMean training loss: {4.6 / e:.4f}.\n"
        for e in range(1, 11)
    )
    log = tmp_path / "训练日志.txt"
    log.write_text(dump + epochs, encoding="utf-8")
    assert len(dump) > 8192 and sniff(log).name == "console"
    steps, values = series(read_run(log), "Mean_training_loss")
    assert (steps[0], steps[-1], values[0], values[-1]) == (1.0, 10.0, 4.6, 0.46)
    prose = tmp_path / "notes.txt"  # prose that mentions a model is no dump: still not read past 8 KB
    prose.write_text("The model (a small one): Conv2d layers, as the paper says.\n" * 200 + "step 10 loss=2.5\n" * 3)
    assert sniff(prose) is None


def test_a_printed_keras_history_dict(tmp_path):
    # posematch-keras-history-dict-1359 (calibration): print(history.history) of a Keras fit, one line in a
    # 训练记录.txt; 80 epochs of 'acc', 'loss', 'val_acc', 'val_loss' (here 12)
    hist = {"acc": [0.08 + 0.07 * e for e in range(12)], "loss": [4.86 / (e + 1) for e in range(12)]}
    hist["val_acc"], hist["val_loss"] = hist["acc"][::-1], [3.87 / (e + 1) for e in range(12)]
    log = tmp_path / "训练记录.txt"
    log.write_text(str(hist) + "\n", encoding="utf-8")
    run = read_run(log)
    assert run.format == "console/history-dict" and run.roles == {**run.roles, "loss": "loss", "eval_loss": "val_loss"}
    assert series(run, "loss") == ([float(e) for e in range(1, 13)], hist["loss"])
    assert series(run, "val_acc")[1][-1] == hist["acc"][0]
    conf = tmp_path / "config.txt"  # a printed config: lists, but of settings, and no loss among them
    conf.write_text(str({"milestones": [30, 60, 90], "betas": [0.9, 0.999, 0.1], "lr": 0.1}) + "\n" * 3)
    with pytest.raises(ReadError):
        read_run(conf)
