"""The general line reader (readers/console/general/): every shape listed under "Why" in
issue 29, each written here exactly as the real log printed it, read into named series with
their steps and first and last values; and the junk it must never turn into a run."""

from __future__ import annotations

import pytest
from _consolekit import read_lines as _read
from _consolekit import series_ends as _series

from trainlint.api import read_run
from trainlint.readers import ReadError
from trainlint.readers.console.general import MAX_LINE, MAX_NAMES, read_line, strip_frame


def test_average_meter_progress_meter_shape(tmp_path):
    # pytorch/examples imagenet/main.py: ProgressMeter("Epoch: [{}]") and AverageMeter "{name} {val} ({avg})"
    lines = [
        f"Epoch: [{e}][{i:>3}/250]\tTime  1.154 ( 1.408)\tData  0.371 ( 0.374)\tLoss {12.6 - 0.01 * (e * 25 + i // 10):.4e} (12.3890)"
        for e in range(2)
        for i in range(0, 250, 10)
    ]
    run = _read(tmp_path, lines)
    assert run.format == "console/general"
    assert _series(run, "Loss") == (50, 0.0, 490.0, 12.6, pytest.approx(12.6 - 0.49))
    assert set(run.series) >= {"Time", "Data", "Loss"}


def test_swin_logger_with_ansi_colours(tmp_path):
    lines = [
        f"\x1b[32m[2023-03-01 10:00:00 swin_tiny]\x1b[0m\x1b[33m(main.py 230)\x1b[0m: INFO Train: [{e}/50][{i}/500]\t"
        f"eta 0:01:00 lr 0.002997\ttime 0.0047 (0.0154)\tloss {2.3039 - 0.001 * (e * 10 + i // 50):.4f} (2.3091)\t"
        "grad_norm 1.2 (1.3)\tmem 1000MB"
        for e in range(3)
        for i in range(0, 500, 50)
    ]
    run = _read(tmp_path, lines, "output.log")
    assert _series(run, "loss") == (30, 0.0, 1450.0, 2.3039, pytest.approx(2.3039 - 0.029))
    assert run.series["lr"].values[0] == 0.002997 and "eta" not in run.series


def test_swin_logger_epoch_counter_only(tmp_path):
    lines = [
        f"INFO Train: [{e}/50]  lr 0.002997  time 0.0047 (0.0154)  loss {2.3039 - 0.01 * e:.4f} (2.3091)  Acc@1 10.000 (9.802)"
        for e in range(1, 21)
    ]
    run = _read(tmp_path, lines)
    assert _series(run, "loss") == (20, 1.0, 20.0, pytest.approx(2.2939), pytest.approx(2.1039))
    assert run.series["Acc@1"].values[-1] == 10.0


def test_python_logging_with_the_epoch_on_its_own_line(tmp_path):
    lines = []
    for e in range(1, 13):
        lines += [
            f"2023-01-01 10:00:{e:02d},000 - __main__ - INFO - Epoch: {e:02d}",
            f"2023-01-01 10:00:{e:02d},500 - __main__ - INFO - Train loss: {4.4186 - 0.1 * e:.4f}, Validation loss: {3.8718 - 0.05 * e:.4f}",
        ]
    run = _read(tmp_path, lines)
    assert _series(run, "Train_loss") == (12, 1.0, 12.0, pytest.approx(4.3186), pytest.approx(3.2186))
    assert _series(run, "Validation_loss")[4] == pytest.approx(3.2718)
    assert run.roles["eval_loss"] == "Validation_loss" and run.meta["steps_are"] == "epochs"


def test_epoch_n_of_m_header_then_epoch_loss(tmp_path):
    lines = []
    for e in range(1, 31):
        lines += [f"EPOCH {e} of 30", "Training...", f"EPOCH loss: {0.9 - 0.01 * e:.4f}"]
    run = _read(tmp_path, lines)
    assert _series(run, "EPOCH_loss") == (30, 1.0, 30.0, 0.89, 0.6)


def test_name_equals_value_with_semicolons(tmp_path):
    lines = [f"train accuracy = {0.0996 + 0.01 * i:.4f}; train loss = {3.3223 - 0.05 * i:.4f}" for i in range(20)]
    run = _read(tmp_path, lines)
    assert _series(run, "train_loss") == (20, 1.0, 20.0, 3.3223, pytest.approx(2.3723))
    assert _series(run, "train_accuracy")[3] == 0.0996


def test_mixed_separators_and_nan(tmp_path):
    lines = [
        f"train_Accuracy =  0.1000 train_Loss :  {'nan' if i > 5 else '2.3026'} val_Accuracy: 0.0995 val_loss: nan"
        for i in range(15)
    ]
    run = _read(tmp_path, lines)
    n, first, last, v0, vlast = _series(run, "train_Loss")
    assert (n, first, last, v0) == (15, 1.0, 15.0, 2.3026) and vlast != vlast  # NaN kept as NaN
    assert run.roles["eval_loss"] == "val_loss"


def test_multiword_names_and_an_inner_counter(tmp_path):
    lines = [
        f"epoch={e} i={i}/530 total loss={0.64213 - 0.0001 * i:.5f} spectro loss=0.65470 vocoder loss=-0.01257"
        for e in range(2)
        for i in range(1, 530, 25)
    ]
    run = _read(tmp_path, lines)
    assert _series(run, "total_loss") == (44, 1.0, 1056.0, 0.64203, 0.58953)
    assert run.roles["loss"] == "total_loss"
    assert run.series["vocoder_loss"].values[0] == -0.01257


def test_olmo_blocks_under_a_step_header(tmp_path):
    lines = []
    for s in range(1, 16):
        lines += [
            f"2024-02-01 00:00:{s:02d}.000\tINFO\t[olmo.train:816, rank=0]\t[step={s}/739328]",
            f"    train/CrossEntropyLoss={11.33 - 0.1 * s:.2f}",
            f"    train/Perplexity={83000 - 100 * s}",
            "    optim/total_grad_norm=1.5",
        ]
    run = _read(tmp_path, lines)
    assert _series(run, "train/CrossEntropyLoss") == (15, 1.0, 15.0, 11.23, pytest.approx(9.83))
    assert _series(run, "train/Perplexity")[2] == 15.0
    assert run.roles["loss"] == "train/CrossEntropyLoss" and "rank" not in run.series


def test_step_dash_dash_train_and_test_accuracy(tmp_path):
    lines = [
        f"Step {s} -- Train loss: {2.63 - 0.001 * s:.3f}, Train Acc: 0.128 Test Acc: 0.119" for s in range(8, 240, 8)
    ]
    run = _read(tmp_path, lines)
    # the generic step shape once read "Train Acc" and "Test Acc" as one "Acc": both readers keep them apart
    assert run.format in ("console/general", "console/generic-step") and run.roles["loss"] == "Train_loss"
    assert _series(run, "Train_loss") == (29, 8.0, 232.0, 2.622, pytest.approx(2.398))
    assert _series(run, "Train_Acc")[3:] == (0.128, 0.128) and _series(run, "Test_Acc")[3:] == (0.119, 0.119)


def test_phase_summaries_sharing_a_metric_name(tmp_path):
    """``Epoch [e]/[n]  Training Phase Loss: ..  Accuracy: ..`` then ``Validation Phase Loss: ..  Accuracy: ..``
    (a calibration log's shape): the validation summary is an evaluation with its own accuracy, not a
    second value of the training loss (the generic epoch shape took the validation loss for ``Loss``)."""
    lines = []
    for e in range(12):
        lines += [
            f"2018-01-27 10:42:38,904 INFO    : train --- Current batch:1600/1600  loss:[ 0.6{e}]",
            f"2018-01-27 10:42:38,904 INFO    : Epoch [{e}]/[199] \t Training Phase Loss: {0.07 - 0.001 * e:.4f} \t Accuracy: 0.{60 + e}",
            f"2018-01-27 10:42:58,879 INFO    : Epoch [{e}]/[199] \t Validation Phase Loss: {0.06 - 0.001 * e:.4f} \t Accuracy: 0.{70 + e}",
        ]
    run = _read(tmp_path, lines)
    # the batch line's NumPy array of one ("loss:[ 0.60]") is the training loss; the summaries keep their names
    assert run.roles["loss"] == "loss" and run.roles["eval_loss"] == "Validation_Phase_Loss"
    assert _series(run, "loss") == (12, 1.0, 12.0, 0.6, 0.611)
    assert _series(run, "Training_Phase_Loss") == (12, 1.0, 12.0, 0.07, pytest.approx(0.059))
    assert _series(run, "Validation_Phase_Loss") == (12, 1.0, 12.0, 0.06, pytest.approx(0.049))
    assert _series(run, "Accuracy")[3:] == (0.6, 0.71) and _series(run, "eval_Accuracy")[3:] == (0.7, 0.81)


def _hf_line(i, rec):
    return f"  {i}%|▏         | {i * 220}/22184 [01:40<1:00:00, 4.96it/s]{rec}"


def test_hf_dict_printed_right_after_the_tqdm_bar(tmp_path):
    lines = [
        _hf_line(i, f"{{'loss': {2.5609 - 0.01 * i:.4f}, 'learning_rate': 4.9e-05, 'epoch': 0.{i:02d}}}")
        for i in range(1, 94)
    ]
    run = _read(tmp_path, lines)
    assert run.format == "console/hf-trainer"
    assert _series(run, "loss") == (93, 220.0, 20460.0, 2.5509, pytest.approx(1.6309))
    evals = lines + [_hf_line(95, "{'eval_loss': 1.9, 'eval_runtime': 10.0, 'epoch': 0.95}")]
    run = _read(tmp_path, evals, "with_eval.log")
    assert run.roles["loss"] == "loss" and len(run.series["loss"].steps) == 93
    assert run.series["eval_loss"].steps.tolist() == [20900.0]


def test_hf_pasted_broken_run_is_read_and_judged(tmp_path):
    from trainlint.api import Options, doctor
    from trainlint.config import Settings

    lines = [
        _hf_line(i, f"{{'loss': 0.0, 'grad_norm': nan, 'learning_rate': 4.9e-05, 'epoch': 0.{i:02d}}}")
        for i in range(1, 40)
    ]
    path = tmp_path / "broken.log"
    path.write_text("\n".join(lines) + "\n")
    rep = doctor([path], Options(settings=Settings())).reports[0]
    assert rep.verdict.value == "FAIL" and {"TL003", "TL005"} <= {f.code for f in rep.findings}


def test_epoch_line_printed_after_a_tqdm_bar_without_a_newline(tmp_path):
    lines = [
        f"100%|██████████| 100/100 [00:10<00:00, 9.5it/s]Epoch {e}, Training loss: {3.96 - 0.1 * e:.2f}, Validation loss: 3.5"
        for e in range(1, 13)
    ]
    run = _read(tmp_path, lines)
    assert _series(run, "Training_loss") == (12, 1.0, 12.0, 3.86, 2.76)


def test_500_lines_of_preamble_before_the_first_progress_line(tmp_path):
    pre = [f"encoder.layers.{i}.weight: torch.Size([{i + 1}, 768]) mean: {0.001 * i:.4f}" for i in range(250)]
    pre += [f"config.{k}_{i}: {i * 0.5}" for i, k in enumerate(["lr", "dropout", "warmup", "seed", "batch"] * 50)]
    lines = pre + [f"epoch {e} | train loss: {1.0 / e:.4f} | acc: {0.5 + 0.01 * e:.3f}" for e in range(1, 21)]
    run = _read(tmp_path, lines)
    assert _series(run, run.roles["loss"]) == (20, 1.0, 20.0, 1.0, 0.05)
    assert not any(name.startswith(("config", "encoder", "mean")) for name in run.series)


def test_appended_runs_fall_back_and_are_noted(tmp_path):
    run1 = [
        f"[2024-01-01 00:00:00] epoch {e} iter {i}/100 loss: {2.0 - 0.01 * i:.3f} lr: 0.001"
        for e in range(1, 4)
        for i in (50, 100)
    ]
    run2 = [
        f"[2024-01-02 00:00:00] epoch {e} iter {i}/100 loss: {1.9 - 0.01 * i:.3f} lr: 0.001"
        for e in range(1, 4)
        for i in (50, 100)
    ]
    run = _read(tmp_path, ["general reader sweep"] + run1 + run2)
    n, first, last, *_ = _series(run, "loss")
    assert n == 12 and run.meta["step_resets"] == [{"from": 300.0, "to": 50.0}]  # epochs counted from 1


def test_keras_evaluate_after_fit_keeps_the_last_epoch(tmp_path):
    lines = [
        "Epoch 1/2",
        "1875/1875 [==============================] - 5s 2ms/step - loss: 1.9640 - accuracy: 0.3000 - val_loss: 1.5000 - val_accuracy: 0.4000",
        "Epoch 2/2",
        "1875/1875 [==============================] - 5s 2ms/step - loss: 7.3970 - accuracy: 0.3500 - val_loss: 1.4000 - val_accuracy: 0.4500",
        "313/313 [==============================] - 1s 2ms/step - loss: 14.4400 - accuracy: 0.1000",
    ]
    run = _read(tmp_path, lines)
    assert run.format == "console/keras"
    assert run.series["loss"].values.tolist() == [1.964, 7.397]
    assert run.series["val_loss"].values.tolist() == [1.5, 1.4]


def test_line_shapes_are_listed_with_samples_and_roles(tmp_path):
    lines = []
    for e in range(1, 6):
        lines += [f"Epoch: [{e}][{i}/50] Loss 0.{9 - e}{i:02d} (0.5) lr 0.01" for i in (10, 20, 30)]
        lines.append(f"Test: [50/50] Loss 0.{9 - e}5 Acc 0.5")
    run = _read(tmp_path, lines + ["warmup: 42"])
    shapes = {tuple(s["names"]): s for s in run.meta["line_shapes"]}
    assert shapes[("Loss", "lr")]["roles"] == ["training"] and shapes[("Loss", "lr")]["records"] == 15
    assert shapes[("Test_Acc", "Test_Loss")]["roles"] == ["evaluation"] and len(shapes[("Loss", "lr")]["samples"]) == 3
    assert shapes[("warmup",)]["roles"] == ["not used"]
    assert run.series["Test_Loss"].steps.tolist() == [30.0, 80.0, 130.0, 180.0, 230.0]
    assert any(n.startswith("line shape {Loss, lr}: 15 record(s), training; e.g. line 1:") for n in run.notes)


def test_a_config_dump_never_becomes_a_run(tmp_path):
    import random

    rng = random.Random(7)
    names = ["".join(rng.choice("abcdefghijklmnop") for _ in range(8)) for _ in range(400)]
    lines = [f"{n}: {rng.random() * 100:.3f}" for n in names] + [f"{n}_loss = {rng.random():.3f}" for n in names[:50]]
    with pytest.raises(ReadError):
        _read(tmp_path, lines, "config.log")


def test_a_one_line_dump_of_many_pairs_never_becomes_a_run(tmp_path):
    """A line may carry up to MAX_NAMES pairs (verl prints 50 to 90 a step), so a config printed on one
    line reads as a record; printed once, with each name once, it is still not a run."""
    pairs = " - ".join(f"cfg/param_{k}:{k * 0.5}" for k in range(MAX_NAMES - 5))
    with pytest.raises(ReadError):
        _read(tmp_path, ["starting", f"config: train_loss:0.5 - {pairs}", "done"], "config.log")


def test_loguru_location_is_a_frame_not_a_series(tmp_path):
    """loguru's default format '{time} | {level: <8} | {name}:{function}:{line} - {message}' (as a
    hand-written GPT pre-training log printed it): the source line number after the function name
    is not a value of a metric called 'train'; nor is '{name}:{line}' one of 'yolox.core.trainer'."""
    lines = [
        f"2026-02-03 13:24:{s % 60:02d}.939 | INFO     | __main__:train:172 - Step {s * 100}, Loss: {6.2713 - 0.05 * s:.4f}"
        for s in range(1, 16)
    ]
    lines.insert(5, "2026-02-03 13:25:24.716 | INFO     | __main__:train:176 - Epoch 1 completed. Average loss: 4.4899")
    run = _read(tmp_path, lines)
    assert _series(run, "Loss") == (15, 100.0, 1500.0, pytest.approx(6.2213), pytest.approx(5.5213))
    assert "train" not in run.series and run.roles["loss"] == "Loss"
    assert strip_frame("2024-01-01 10:00:00 | INFO     | yolox.core.trainer:261 - epoch: 1/300") == "epoch: 1/300"
    assert strip_frame("12:00:01 | DEBUG | __main__:<module>:12 - loss 0.5") == "loss 0.5"
    assert strip_frame("epoch:3 - loss: 0.5") == "epoch:3 - loss: 0.5"  # a counter, not a location


def test_frames_are_stripped_and_long_lines_bounded():
    assert strip_frame("2024-01-01 10:00:00,123 - root - INFO - loss: 1.0") == "loss: 1.0"
    assert strip_frame("INFO:__main__:loss=1.0") == "loss=1.0"
    assert strip_frame("[rank0]: [12/03 10:00:01] train.py:120 | loss 1.0") == "loss 1.0"
    assert strip_frame("[Val] loss: 2.0") == "Val: loss: 2.0"
    rec = read_line("loss: 1.0 " + "x: 2 " * 1_000_000)
    assert rec is None or len(rec.text) > MAX_LINE  # a dump of pairs is not a progress line
    assert read_line("\x00\x01\xff" * 10_000) is None


# ------------------------------------------------------------------ bad input (issue 29 "Bad input")


def _doctor(path):
    from trainlint.api import Options, doctor
    from trainlint.config import Settings

    result = doctor([path], Options(settings=Settings()))
    return [r for r in result.reports if r.kind == "log"], result


def test_a_200_mb_single_line_of_pairs_is_bounded_and_never_a_run(tmp_path):
    """One line of 200 MB, no newline, of ``name: number`` pairs (a dump written without line breaks):
    read within the line bound, in a few seconds and well under the file's size in memory, and not a run."""
    import random
    import time
    import tracemalloc

    rng = random.Random(3)
    unit = "".join(f"{''.join(rng.choice('abcdefgh') for _ in range(6))}: {rng.random():.4f} " for _ in range(1000))
    path = tmp_path / "train.log"
    with open(path, "wb") as fh:
        fh.writelines([unit.encode()] * ((200 << 20) // len(unit)))
    start = time.perf_counter()
    tracemalloc.start()
    try:
        with pytest.raises(ReadError, match="no known training-progress lines"):
            read_run(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert time.perf_counter() - start < 20.0
    assert peak < path.stat().st_size // 4  # the line is skipped as it streams past, never held whole


def test_a_binary_file_with_progress_text_inside_is_not_judged(tmp_path):
    """A checkpoint saved under a log's name, its bytes holding strings that look like progress lines."""
    import random

    rng = random.Random(5)
    blob = bytearray(rng.randbytes(64 << 10))
    for i in range(20):
        at = 1000 + i * 3000
        blob[at : at + 30] = f"\nepoch {i} loss: {2.0 - 0.1 * i:.3f}\n".encode().ljust(30, b"\0")
    path = tmp_path / "train.log"
    path.write_bytes(bytes(blob))
    logs, result = _doctor(path)
    assert not logs or all(r.verdict.value == "NOT-CHECKED" for r in logs)
    assert "Traceback" not in str(result.empty_reason or "")


def test_a_config_dump_through_doctor_is_not_checked_with_one_line(tmp_path):
    """A file of random ``name: number`` pairs (each name printed once, a few twice): NOT-CHECKED, one line."""
    import random

    rng = random.Random(11)
    names = ["".join(rng.choice("abcdefghijklmnop_") for _ in range(9)) for _ in range(500)]
    lines = [f"{n}: {rng.random() * 10:.4f}" for n in names] + [f"{n}: {rng.random():.4f}" for n in names[:40]]
    path = tmp_path / "run_config.log"
    path.write_text("\n".join(lines) + "\n")
    logs, result = _doctor(path)
    assert all(r.verdict.value == "NOT-CHECKED" for r in logs)
    reason = next((r.unjudged for r in logs if r.unjudged), None) or result.empty_reason or ""
    assert reason and "\n" not in reason


# Shapes of the console wave's calibration logs (tests/realworld/manifest.toml, ids 900-999), each
# written here as the real log printed it.


def test_a_clause_that_says_its_value(tmp_path):
    # prednet-paddle-train-906: "Epoch N, Step M, total used time T (s), avg loss so far is X"
    lines = []
    for e in range(4):
        lines += [
            f"Epoch {e}, Step {k}, total used time {30.5 * k:.6f} (s), avg loss so far is {0.11 - 0.002 * (e * 5 + k // 25):.6f}"
            for k in range(0, 125, 25)
        ]
        lines.append(f"Epoch {e}, val loss is {0.05 - 0.001 * e:.6f}, val mse is {0.02 - 0.001 * e:.6f}.")
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "loss_so_far"
    assert _series(run, "loss_so_far") == (20, 0.0, 475.0, 0.11, pytest.approx(0.072))
    assert run.roles["eval_loss"] == "val_loss" and run.series["val_loss"].values.tolist() == [
        0.05,
        0.049,
        0.048,
        0.047,
    ]


def test_a_name_placed_by_its_counters_before_is(tmp_path):
    # e2e-asr-confidence-loss-915: "Loss at epoch N and iteration M is X", "NCE Loss at ..." between
    lines = []
    for e in range(5):
        for i in (0, 500, 1000):
            lines.append(f"Loss at epoch {e} and iteration {i} is {8.0 / (1 + e * 3 + i / 500):.6f}")
            lines.append(f"NCE Loss at epoch {e} and iteration {i} is {-1.8 + 0.1 * e:.6f}")
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "Loss"
    # the iteration starts again each epoch: a count inside it, the epoch taken as 1000 + one interval
    assert _series(run, "Loss") == (15, 0.0, 7000.0, 8.0, pytest.approx(8.0 / 15))
    assert len(run.series["NCE_Loss"].values) == 15


def test_an_aside_between_a_name_and_its_colon(tmp_path):
    # scalingdown-training-911: "Training Loss (avg over last 100): X", "Validation Loss (avg over last 100): X"
    head = "2024-10-31 21:42:51,429 - INFO - Stage 1, Epoch 1, Batch"
    lines = []
    for b in range(25, 325, 25):
        lines.append(f"{head} {b}, Training Loss (avg over last 100): {2.44 - 0.001 * b:.4f}")
        if b % 100 == 0:
            lines.append(f"{head} {b}, Validation Loss (avg over last 100): {2.0 - 0.001 * b:.4f}")
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "Training_Loss"
    assert _series(run, "Training_Loss") == (12, 25.0, 300.0, 2.415, 2.14)
    assert run.roles["eval_loss"] == "Validation_Loss" and len(run.series["Validation_Loss"].values) == 3


def test_split_words_alone_name_the_splits_losses(tmp_path):
    # nice-train-900: "Epoch    1/1000 | train: NLL (bpd) | val: NLL (bpd) | z_mean: .. | z_std: .. | lr: .."
    lines = [
        f"Epoch {e:>4}/1000 | train: {1090.19 - 20 * e:.4f} ({2.0061 - 0.04 * e:.4f} bpd) | val: {1078.67 - 20 * e:.4f} "
        f"({1.9849 - 0.04 * e:.4f} bpd) | z_mean: 0.002 | z_std: 0.246 | lr: 0.000100"
        for e in range(1, 31)
    ]
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "train_loss" and run.roles["eval_loss"] == "val_loss"
    assert _series(run, "train_loss") == (30, 1.0, 30.0, 1070.19, pytest.approx(490.19))
    # a split word after a name names that name's split: never a loss
    accuracy = [f"Accuracy - train: {0.5 + 0.01 * e:.2f} val: {0.4 + 0.01 * e:.2f}" for e in range(30)]
    assert read_line(accuracy[0]).values == {"train": 0.5, "val": 0.4}


def test_an_epoch_done_summary_is_not_an_evaluation(tmp_path):
    # paddle-sign-train-904 (PaddleRec's tools/trainer.py): batch lines, then "epoch: N done, ..."
    lines = []
    for e in range(5):
        for b in range(0, 2000, 500):
            lines.append(
                f"2022-04-12 17:06:10,849 - INFO - epoch: {e}, batch_id: {b}, AUC:0.900000, ACC:0.880000, "
                f"loss:{0.5 - 0.01 * (e * 4 + b // 500):.6f}, avg_reader_cost: 0.00012 sec, avg_batch_cost: 0.56 sec"
            )
        lines.append(
            f"2022-04-12 17:24:35,400 - INFO - epoch: {e} done, AUC: 0.9,ACC: 0.88,loss:{0.3 - 0.01 * e:.6f}, epoch time: 1105.58 s"
        )
    run = _read(tmp_path, lines)
    assert _series(run, "loss") == (20, 0.0, 9500.0, 0.5, pytest.approx(0.31))
    assert "eval_loss" not in run.series and run.series["summary_loss"].values.tolist() == [0.3, 0.29, 0.28, 0.27, 0.26]


def test_hf_dicts_with_string_values_printed_after_all_the_bars(tmp_path):
    # qwen3-vl-modify-train-917: transformers formats a logged float as f"{v:.4g}" (a string in the
    # printed dict), and the dicts (stdout) come as a block after the bars (stderr, unbuffered)
    bars = "".join(f"\r  {i * 100 // 600}%|▏         | {i}/600 [00:0{i % 10}<00:00, 6.36s/it]" for i in range(1, 601))
    dicts = [
        str(
            {
                "loss": f"{2.725 - 0.01 * k:.4g}",
                "grad_norm": "4.406",
                "learning_rate": "2.875e-06",
                "epoch": f"{0.05 * k:.4g}",
            }
        )
        for k in range(1, 21)
    ]
    run = _read(tmp_path, [bars] + dicts)
    assert run.format == "console/hf-trainer" and run.roles["loss"] == "loss"
    assert _series(run, "loss") == (20, 0.05, 1.0, 2.715, pytest.approx(2.525))


def test_a_tqdm_postfix_string_of_name_and_value(tmp_path):
    # llm-sft-925: pbar.set_postfix_str(f"loss {loss:.4f}") on a bar described "SFT"
    lines = [
        f"SFT: {s * 100 // 375:>3}%|████▉     | {s}/375 [24:18<33:19, 10.41s/it, loss {6.05 / s:.4f}]"
        for s in range(1, 376)
    ]
    run = _read(tmp_path, lines)
    assert run.format == "console/tqdm-postfix" and run.roles["loss"] == "loss"
    assert _series(run, "loss") == (375, 1.0, 375.0, 6.05, pytest.approx(0.0161))


def test_a_colon_closing_the_value(tmp_path):
    # image-caption-generator's root-logger lines (realworld image-caption-generator-train-1010):
    # logging.info("count: %d, loss:%f: " % ...), every 50 batches under a "train epoch: N" line
    lines = []
    for e in range(2):
        lines.append(f"INFO:root:train epoch: {e}")
        lines += [f"INFO:root:count: {i * 50}, loss:{1082.527588 / (1 + e * 20 + i):f}: " for i in range(20)]
    run = _read(tmp_path, lines)
    assert run.format == "console/general"
    assert _series(run, "loss") == (40, 1.0, 40.0, 1082.527588, pytest.approx(1082.527588 / 40))
    r = read_line("eta 0:01:23 loss 0.5 time 10:23:45")  # a time's fields are not closing colons
    assert r is not None and r.values == {"loss": 0.5}


def test_a_bracketed_epoch_counter_is_a_counter_and_an_appended_run_restarts_it(tmp_path):
    # protac-diffusion-train-1036 (calibration): a nohup file of two trainings, each "[epoch 001] .. [epoch 100]";
    # "[epoch 001]" is the counter, not a frame like "[INFO]": the second training restarts the steps at 1
    lines = ["nohup: ignoring input", "[run] training node diffusion"]
    lines += [
        f"[epoch {e:03d}] train_loss={0.59 - 0.004 * e:.4f} val_loss={0.42 - 0.003 * e:.4f}" for e in range(1, 11)
    ]
    lines += ["[run] training edge diffusion", "[train] device=cuda batch_size=8 hidden_dim=128"]
    lines += [
        f"[epoch {e:03d}] train_loss={0.69 - 0.002 * e:.4f} val_loss={0.60 - 0.001 * e:.4f}" for e in range(1, 11)
    ]
    run = _read(tmp_path, lines)
    loss = run.series["train_loss"]
    assert loss.steps.tolist() == [*range(1, 11), *range(1, 11)]
    assert (loss.values[0], loss.values[-1]) == (pytest.approx(0.586), pytest.approx(0.67))
    assert run.meta["step_resets"] == [{"from": 10.0, "to": 1.0}]
    assert read_line("[Epoch 3] loss: 0.2").epoch == 3.0 and read_line("[step 12] loss=0.1").step == 12.0
    assert strip_frame("[INFO] [epoch 2] loss 0.3") == "[epoch 2] loss 0.3"


def test_a_split_word_alone_after_the_counter_names_the_lines_split(tmp_path):
    # issue 29 (found by the nlpft helper): "Epoch 3 Train, loss: 0.7" then "Epoch 3 Val, loss: 0.5" is a
    # training stream and an evaluation stream, not one "loss" that takes the validation value of each epoch
    lines = []
    for e in range(1, 13):
        lines.append(f"Epoch {e} Train, loss: {1.9 - 0.1 * e:.4f}, acc: {0.50 + 0.02 * e:.3f}")
        lines.append(f"Epoch {e} Val, loss: {2.1 - 0.05 * e:.4f}, acc: {0.45 + 0.02 * e:.3f}")
    run = _read(tmp_path, lines)
    assert run.format == "console/general" and "loss" not in run.series
    assert _series(run, "Train_loss") == (12, 1.0, 12.0, pytest.approx(1.8), pytest.approx(0.7))
    assert _series(run, "Val_loss") == (12, 1.0, 12.0, pytest.approx(2.05), pytest.approx(1.5))
    assert run.roles["loss"] == "Train_loss" and run.roles["eval_loss"] == "Val_loss"
    assert read_line("Step 100 Validation - loss: 0.3, acc: 0.9").values == {
        "Validation_loss": 0.3,
        "Validation_acc": 0.9,
    }
    # a value right after the word is that split's own number; no word, no split
    assert read_line("Epoch 3 train: 0.7, val: 0.8").split == "" and read_line("Epoch 3, loss: 0.5").split == ""


def _chinese_ner_log(loss_line: str, duplicate: bool = False) -> list[str]:
    # ner-heatice-train-1183 and ner-bilstm-idcnn-crf-train-1184 (calibration): the ChineseNER trainer's
    # logger, 'iteration:E stepS/174,NER loss:X' about twice an iteration (S runs on across iterations),
    # each iteration closed by a conlleval block
    lines, step = [], 0
    for it in range(1, 16):
        for _ in range(2 if it % 4 else 1):
            step += 100
            at = f"{2020}-05-17 12:{it:02d}:{step % 60:02d},394 - log\\train.log - INFO - "
            lines += [at + loss_line.format(it=it, s=step % 174, t=step, v=30.0 / step)] * (2 if duplicate else 1)
        lines += [
            f"2020-05-17 12:{it:02d}:59,000 - log\\train.log - INFO - evaluate:dev",
            f"2020-05-17 12:{it:02d}:59,001 - log\\train.log - INFO - processed 219197 tokens with 7707 phrases; "
            f"found: 7808 phrases; correct: {2267 + 300 * it}.",
            f"2020-05-17 12:{it:02d}:59,002 - log\\train.log - INFO - accuracy:  {92.94 + 0.1 * it:.2f}%; "
            f"precision:  {21.03 + it:.2f}%; recall:  {14.48 + it:.2f}%; FB1:  {17.15 + it:.2f}",
        ]
    return lines


def test_an_outer_iteration_counter_does_not_keep_one_loss_an_iteration(tmp_path):
    # the generic step shape took 'iteration:E' for the step and kept the last loss of each iteration
    # (101 of 174 points); the general reader keeps every loss line, in order
    run = _read(tmp_path, _chinese_ner_log("iteration:{it} step{s}/174,NER loss:{v:9.6f}"))
    assert run.format == "console/general"
    assert _series(run, "NER_loss") == (27, 1.0, 27.0, pytest.approx(0.3), pytest.approx(30.0 / 2700, abs=1e-6))
    assert run.roles["loss"] == "NER_loss"
    # a step counter whose every line is written twice (two logging handlers) repeats its value: one
    # point a step stays (the general reader reads each twin once since probe 22a: as the log written once)
    twice = _read(tmp_path, _chinese_ner_log("step:{t} NER loss:{v:9.6f}", duplicate=True))
    once = _read(tmp_path, _chinese_ner_log("step:{t} NER loss:{v:9.6f}"))
    assert len(twice.series[twice.roles["loss"]].values) == 27
    assert (twice.format, twice.roles["loss"], set(twice.series)) == (once.format, once.roles["loss"], set(once.series))


def test_an_epoch_cut_short_to_e_in_brackets_numbers_the_steps_counted_inside_it(tmp_path):
    # skeleton-hw-lora-train-log-1237 (calibration): a LoRA loop printing f"[E{epoch}] step {step} loss {loss:.4f}"
    # every 10 steps, the step counted inside the epoch; "[E1]" is the epoch, not a frame like "[INFO]", so
    # the step falling back to 0 at "[E2]" is the next epoch, not a relaunch of the run
    lines = ["총 학습 스텝 수: 300"]
    for e in (1, 2, 3):
        lines += [f"[E{e}] step {s} loss {1.0 / (e * 100 + s + 1):.4f}" for s in range(0, 100, 10)]
        lines.append(f"Epoch {e} avg-loss {0.5 / e:.4f}")
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "loss" and not run.meta.get("step_resets")
    assert _series(run, "loss") == (30, 0.0, 290.0, 0.0099, pytest.approx(0.0026))
    assert read_line("[Ep 3] step 10 loss 0.5").epoch == 3.0 and read_line("[Errno 2] loss 0.5").epoch is None


def test_a_printed_step_and_value_tuple_after_its_name(tmp_path):
    # audio-velocity-loss-txt-1244 (calibration): losses.append((epoch, loss.item())), then f.write(f'loss: {loss}\n')
    lines = [f"loss: ({e}, {2.3e7 - 1e6 * e})" for e in range(20)]
    run = _read(tmp_path, lines, "loss.txt")
    assert run.format == "console/general" and run.roles["loss"] == "loss"
    assert _series(run, "loss") == (20, 0.0, 19.0, 2.3e7, 4.0e6)
    rec = read_line("val acc = (3, 0.91)")
    assert rec is not None and rec.step == 3.0 and rec.values == {"val_acc": 0.91}
    odd = read_line("loss: (0.5, 0.7)")  # not a step: the pair is left as written
    assert odd is None or odd.step is None


def test_a_value_that_ends_its_sentence_with_a_full_stop(tmp_path):
    # te-gcn-chinese-named-log-1342 (calibration): the ST-GCN family's processor prints
    # self.print_log('\tMean training loss: {:.4f}.'.format(...)); the full stop ends the sentence
    lines = []
    for e in range(1, 21):
        lines += [
            f"[ Fri Oct 18 02:05:31 2024 ] Training epoch: {e}",
            f"[ Fri Oct 18 02:09:12 2024 ] \tMean training loss: {4.0 / e:.4f}.",
        ]
        lines += [
            f"[ Fri Oct 18 02:28:52 2024 ] \tMean test loss of 63 batches: {3.0 / e}.",
            "[ Fri Oct 18 02:28:52 2024 ] \tTop1: 70.35%",
        ]
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "Mean_training_loss"
    assert _series(run, "Mean_training_loss") == (20, 1.0, 20.0, 4.0, 0.2)
    assert read_line("version 1.2.3 loaded") is None or "version" not in read_line("version 1.2.3 loaded").values


def test_cost_is_the_loss_and_a_cost_in_seconds_is_a_duration(tmp_path):
    # scae-theano-sda-slurm-out-1345 (calibration): Theano's deep-learning tutorial SdA prints
    # 'Pre-training layer %i, epoch %d, cost ' then the mean cost; no name says loss
    lines = [f"Pre-training layer 0, epoch {e}, cost  {0.2 - 0.001 * e:.6f}" for e in range(30)]
    run = _read(tmp_path, lines, "slurm.out")
    assert run.format == "console/general" and run.roles["loss"] == "cost"
    assert _series(run, "cost") == (30, 0.0, 29.0, 0.2, pytest.approx(0.171))
    rec = read_line("iter 100 acc 0.91 cost 0.45s")  # the timing habit of many loops: never a loss
    assert rec is not None and "cost" not in rec.values and rec.values["cost_time"] == 0.45
    jieba = read_line("Loading model cost 0.884 seconds.")  # jieba's word splitter, in every Chinese NLP log
    assert jieba is not None and jieba.values == {"cost_time": 0.884}
    assert read_line("epoch 3 loss 0.5 min 0.3").values == {"loss": 0.5, "min": 0.3}  # a name after a value is no unit


def test_a_name_glued_to_the_dash_before_it(tmp_path):
    # fgdcc-plantnet-nohup-out-1348 (calibration): logger.info('[%d, %5d/%5d] - train_losses - Parent Class:
    # %.4f -' 'Autoencoder Loss (total): %.4f ...'): the name after the lone dash is "Autoencoder Loss", a
    # component, not the loss; the per-epoch 'Loss %.4f' (the objective) is
    rec = read_line(
        "[1,   250/ 2562] - train_losses - Parent Class: 6.444 - Children class: 0.692 -Autoencoder Loss (total): 386.299"
    )
    assert rec is not None and rec.values == {
        "Parent_Class": 6.444,
        "Children_class": 0.692,
        "Autoencoder_Loss": 386.299,
    }
    assert "Adam" not in read_line("lr-Adam 0.001 step 3").values  # a hyphenated name stays whole
    assert (
        read_line("python train.py --lr 0.1 --epochs 10") is None
        or "lr" not in read_line("python train.py --lr 0.1").values
    )


def test_a_name_placed_by_the_counter_after_it(tmp_path):
    # a knowledge-graph recommender's train.py: logging.info("using time %.4f, training loss at epoch %d: %.4f")
    lines = [
        f"2021-09-03 14:45:29,779 - train.py[line:152] - INFO: using time 304.2764, training loss at epoch {e}: {112.6 - 0.5 * e:.4f}"
        for e in range(40)
    ]
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "training_loss"
    assert _series(run, "training_loss") == (40, 0.0, 39.0, 112.6, pytest.approx(93.1))
    rec = read_line("Loss after step 100: 2.31, lr 0.001")
    assert rec.step == 100.0 and rec.values == {"Loss": 2.31, "lr": 0.001}


def test_a_total_printed_with_its_terms_ngcf_kgat(tmp_path):
    # NGCF/KGAT and their forks: 'Epoch %d [%.1fs]: train==[%.5f=%.5f + %.5f + %.5f]' and, every 10
    # epochs, 'Epoch %d [%.1fs + %.1fs]: train==[..], recall=[%s], precision=[%s], hit=[%s], ndcg=[%s]'
    lines = ["KGAT: dataset=last-fm, lr=0.0001, regs=[1e-5,1e-5], node_dropout=[0.1], mess_dropout=[0.1]"]
    for e in range(30):
        total = 60.0 / (e + 1)
        train = f"train==[{total:.5f}={total * 0.1:.5f} + {total * 0.85:.5f} + {total * 0.05:.5f}]"
        if e % 10 == 9:
            lines.append(f"Epoch {e} [166.8s + 69.8s]: {train}, recall=[0.07654, 0.15581], ndcg=[0.12241, 0.20278]")
        else:
            lines.append(f"Epoch {e} [188.2s]: {train}")
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "train_loss"
    assert _series(run, "train_loss") == (30, 0.0, 29.0, 60.0, pytest.approx(2.0))
    assert read_line("Epoch 3 [1.0s]: loss==[0.5=0.4 + 0.1]").values == {"loss": 0.5}


def test_bare_splits_after_an_epoch_counter_and_sizes_that_are_not_losses(tmp_path):
    # a cross-validated LSTM's print: "  Epoch %3d | train=%.6f | val=%.6f | lr=%.2e" under fold headers
    # that give the split sizes with thousands separators ("  Train: 543,368 | Valid: 544,539")
    lines = []
    for fold in (1, 2):
        lines += [f"=== Fold {fold}/5 ===", f"  Train: {543368 * fold:,} | Valid: 544,539"]
        lines += [
            f"  Epoch {e:3d} | train={0.0007 - 0.00001 * e:.6f} | val=0.000453 | lr=5.00e-04" for e in range(1, 13)
        ]
        lines.append("  Early stop at epoch 12")
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "train_loss" and run.roles["eval_loss"] == "val_loss"
    assert _series(run, "train_loss")[0] == 24 and run.series["train_loss"].values[0] == pytest.approx(0.00069)
    assert "Train_loss" not in run.series and "Valid_loss" not in run.series


def test_a_numpy_array_of_one_printed_with_its_sign_padding(tmp_path):
    # catvsdog-resnet-pretrained-35 (calibration): logging.info of "Current batch:%d/%d  loss:%s" % (.., loss.data.numpy())
    # prints a NumPy array of one, padded for a sign it does not have; then a per-epoch summary line
    lines = []
    for e in range(3):
        lines += [
            f"2018-01-28 21:43:00,197 INFO    : train --- Current batch:{b}/1600  loss:[ {0.5 - 0.01 * (8 * e + b // 200):.8f}]"
            for b in range(200, 1800, 200)
        ]
        lines.append(
            f"2018-01-28 21:46:54,057 INFO    : Epoch [{e}]/[4] \t Training Phase Loss: 0.0226 \t Accuracy: 0.9048"
        )
    run = _read(tmp_path, lines)
    assert _series(run, "loss") == (24, 200.0, 4800.0, 0.49, pytest.approx(0.26))
    # NumPy's other prints of one value: no padding, two dimensions, exponent form, a negative value
    for text, value in (("[0.026]", 0.026), ("[[ 0.026]]", 0.026), ("[ 2.3e-01]", 0.23), ("[-0.5]", -0.5)):
        assert read_line(f"step 3 loss: {text}").values == {"loss": value}
    # an array of several values, or a count in brackets, stays unread
    assert read_line("step 3 loss: [ 0.1  0.2]").values == {}
    assert read_line("Epoch [ 3] loss 0.5").epoch == 3.0


def test_an_evaluation_loops_batch_lines_give_way_to_its_summary(tmp_path):
    # catvsdog-resnet-pretrained-35 (calibration): the validation loop prints its batches' losses, then the
    # evaluation's summary; each batch line is one batch's value, the summary is the evaluation's
    def epoch(e: int, summary: bool) -> list[str]:
        out = [
            f"INFO    : train --- Current batch:{b}/800  loss:[ {0.5 - 0.01 * e:.4f}]" for b in range(200, 1000, 200)
        ]
        out += [f"INFO    : val --- Current batch:{b}/400  loss:[ {0.3 + 0.1 * (b // 200):.4f}]" for b in (200, 400)]
        if summary:
            out.append(f"INFO    : Epoch [{e}]/[9] \t Validation Phase Loss: {0.2 - 0.01 * e:.4f} \t Accuracy: 0.98")
        return out

    run = _read(tmp_path, [ln for e in range(6) for ln in epoch(e, True)])
    assert run.roles["eval_loss"] == "Validation_Phase_Loss" and "val_loss" not in run.series
    assert _series(run, "Validation_Phase_Loss") == (6, 800.0, 4800.0, 0.2, pytest.approx(0.15))
    assert any("evaluation record(s) of an evaluation's batches" in n for n in run.notes)
    # without a summary line the batch lines are all the evaluation there is: kept
    run = _read(tmp_path, [ln for e in range(6) for ln in epoch(e, False)], "nosummary.log")
    assert run.roles["eval_loss"] == "val_loss" and len(run.series["val_loss"]) == 6


def test_a_record_a_line_is_judged_after_the_header_only():
    # OLMo-style blocks: a "[step=N/M]" header, then one line per metric, read as one record. The first block
    # printed its perplexity alone: the next block's first line has that shape, but a header lies between them,
    # so it says nothing of whether the lines after the header are a record a line
    from trainlint.readers.console.general import records
    from trainlint.readers.console.text import split_lines

    text = ["[step=0/100]", "train/Perplexity=60000.5"]
    for s in range(1, 6):
        text += [f"[step={s}/100]", f"train/Perplexity={600.0 / s:.1f}", f"train/CrossEntropyLoss={11.33 - s:.2f}"]
    recs = records(split_lines("\n".join(text) + "\n"))
    assert [sorted(r.values) for r in recs[1:]] == [["train/CrossEntropyLoss", "train/Perplexity"]] * 5
    assert [r.step for r in recs] == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    assert recs[-1].values == {"train/Perplexity": 120.0, "train/CrossEntropyLoss": 6.33}


def test_iteration_lines_a_shape_keyed_by_the_epoch_would_overwrite(tmp_path):
    # dlinear-brain-etth2-336-96-1302 (calibration): Time-Series-Library's exp_main.py prints
    # "\titers: {i+1}, epoch: {epoch+1} | loss: {loss:.7f}" every 100 iterations (twice an epoch of 256), then the
    # epoch's summary; a shape keyed by the epoch keeps one iteration line an epoch, the general reader both
    lines = []
    for e in range(1, 11):
        for i in (100, 200):
            lines += [
                f"\titers: {i}, epoch: {e} | loss: {0.9 - 0.04 * e - 0.0001 * i:.7f}",
                "\tspeed: 0.0584s/iter; left time: 143.6299s",
            ]
        lines += [
            f"Epoch: {e} cost time: 0.8947696685791016",
            f"Epoch: {e}, Steps: 256 | Train Loss: {0.8 - 0.04 * e:.7f} Vali Loss: 0.3894133 Test Loss: 0.5159522",
        ]
    run = _read(tmp_path, lines)
    assert run.format == "console/general" and run.roles["loss"] == "loss"
    assert _series(run, "loss") == (20, 100.0, 2000.0, pytest.approx(0.85), pytest.approx(0.48))
    assert len(run.series["summary_Train_Loss"]) == 10  # the epoch's summary beside its evaluation
