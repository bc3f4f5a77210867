"""Real logs outside the corpus that trainlint read wrong or not at all (issue 29, probe round 16a: a
blind sample of ``train.log``, ``log.txt`` and ``logs/train.log`` files taken in the order a file index
lists them): an evaluation line tagged ``[Diff-Val(Test-Normal)]`` read into the training loss, a Keras
CSVLogger file whose lines end in bare carriage returns, a hand-printed column table with a ``Acc%``
and a Greek-letter column and a mark after the best epochs' rows, and PaddlePaddle's legacy C++
trainer. Each fixture is made up in the shape of the real log (repository, path and commit recorded
with it; no copied lines) and asserts the series read: names, steps, first and last values, and which
is the loss."""

from __future__ import annotations

from _consolekit import read_lines as _read
from _consolekit import series_ends as _series

from trainlint.api import read_run
from trainlint.readers import sniff


def _val(k: int, start: float) -> float:
    return round(start * 0.93**k + 0.01, 6)


def test_a_bracketed_tag_naming_validation_makes_the_line_an_evaluation(tmp_path):
    """2021010740135/EDT_CODE train.log @c39babd4: ``[Train] Epoch 001: loss = ..`` and
    ``[Diff-Val(Test-Normal)] Epoch 001 (Deterministic): loss = ..`` each epoch: the validation line's
    loss was read into the training loss (two points an epoch, steps from the order of the lines)."""
    lines = ["2026-05-12 12:05:29,877 - INFO - 🚀 启动 Phase 3: Diffusion Manifold Learning"]
    for e in range(1, 13):
        t = f"2026-05-12 12:{e:02d}:33,486 - INFO - "
        lines.append(f"{t}[Train] Epoch {e:03d}: loss = {_val(e, 0.02):.6f}")
        lines.append(f"{t}[Diff-Val(Test-Normal)] Epoch {e:03d} (Deterministic): loss = {_val(e, 0.008):.6f}")
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "loss"
    assert _series(run, "loss") == (12, 1.0, 12.0, _val(1, 0.02), _val(12, 0.02))
    assert _series(run, "Val_loss") == (12, 1.0, 12.0, _val(1, 0.008), _val(12, 0.008))


def test_a_lowercase_bracketed_module_name_stays_a_frame(tmp_path):
    """A logger's name in brackets (``[val_utils]``) is no phase: the line stays a training line."""
    lines = [f"[2024-01-01 10:00:{i:02d}][val_utils][INFO] - step {i * 10} loss: {_val(i, 2.0)}" for i in range(12)]
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "loss"
    assert _series(run, "loss") == (12, 0.0, 110.0, _val(0, 2.0), _val(11, 2.0))


def test_a_csv_whose_lines_end_in_bare_carriage_returns(tmp_path):
    """19090418G/dissertation_deep_learning train.log @4db5294d: Keras' CSVLogger written with ``\\r``
    line ends (doubled, and no newline anywhere): one line to every reader, "no numeric columns"."""
    rows = ["epoch,acc,loss,lr,val_acc,val_loss"]
    rows += [
        f"{e},{0.5 + e / 50:.4f},{_val(e, 0.75)},1e-04,{0.6 + e / 100:.4f},{_val(e, 0.8) + 0.1}" for e in range(22)
    ]
    p = tmp_path / "train.log"
    p.write_bytes("\r\r".join(rows).encode() + b"\r\r")
    assert sniff(p).name == "csv"
    run = read_run(p)
    assert run.roles["loss"] == "loss"
    assert run.roles["eval_loss"] == "val_loss"
    assert _series(run, "loss") == (22, 0.0, 21.0, _val(0, 0.75), _val(21, 0.75))


def _table_row(ep: int, star: bool) -> str:
    loss = _val(ep, 0.7)
    mark = " ★" if star else ""
    return f"{ep:>6}  {loss:.4f} {loss - 0.0005:.4f} 0.00001 0.0000 0.0000  {50 + ep / 4:.2f}% 0.5000 0.000{mark}"


def test_a_printed_table_with_a_percent_and_a_greek_column_and_best_marks(tmp_path):
    """Adam-Sm1th/GG train.log @6079e860: ``    Ep    Loss  L_bit  L_mean  L_var  L_amp    Acc%      α
    atk`` printed twice, then a row an epoch, ``★`` after the rows that beat the best: the header's
    ``Acc%`` and ``α`` and the file's capital ``Loss`` hid the table (NOT-CHECKED)."""
    header = "    Ep    Loss  L_bit  L_mean  L_var  L_amp    Acc%      α   atk"
    lines = ["Device     : cuda", "=" * 76, header, header, "=" * 76]
    lines += [_table_row(ep, ep % 3 == 1) for ep in range(1, 31)]
    lines += ["=" * 76, "训练完成。最佳 bit accuracy : 57.50%"]
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "Loss"
    assert _series(run, "Loss") == (30, 1.0, 30.0, round(_val(1, 0.7), 4), round(_val(30, 0.7), 4))
    assert _series(run, "Acc%") == (30, 1.0, 30.0, 50.25, 57.5)
    assert _series(run, "atk")[0] == 30


def test_paddle_v1_trainer_pass_and_test_lines(tmp_path):
    """Ayle3125/traffic_prediction train.log @6793297b: ``paddle_trainer``'s glog lines, ``Pass=N
    Batch=B samples=S AvgCost=X Eval: ..`` at each pass's end (after a run of ``--dot_period`` dots),
    ``Test samples=S cost=X Eval: ..`` after it, and ``Batch=1000 .. AvgCost= CurrentCost=`` within the
    pass: no line was read (NOT-CHECKED)."""
    frame = "I0305 23:00:{:02d}.177073    35 {}]  "
    lines = ["I0305 22:58:50.970368    35 Util.cpp:155] commandline: paddle_trainer --num_passes=12"]
    for p in range(12):
        ev = "Eval: classification_error_evaluator=0.130656 classification_error_evaluator=0.1307"
        lines.append(
            frame.format(p, "TrainerInternal.cpp:165")
            + f"Batch=1000 samples=128000 AvgCost={_val(p, 11.5) + 0.3:.5g} CurrentCost={_val(p, 11.5):.5g} {ev}"
        )
        lines.append(
            "." * 47
            + frame.format(p, "TrainerInternal.cpp:182")
            + f"Pass={p} Batch=1472 samples=188399 AvgCost={_val(p, 11.0):.6g} {ev}"
        )
        lines.append(frame.format(p, "Tester.cpp:127") + f"Test samples=91292 cost={_val(p, 10.5):.6g} {ev}")
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "loss"
    assert run.roles["eval_loss"] == "test_loss"
    assert _series(run, "loss") == (12, 0.0, 11.0, float(f"{_val(0, 11.0):.6g}"), float(f"{_val(11, 11.0):.6g}"))
    assert _series(run, "test_loss") == (12, 0.0, 11.0, float(f"{_val(0, 10.5):.6g}"), float(f"{_val(11, 10.5):.6g}"))


def test_a_hand_aligned_table_header_with_two_word_names(tmp_path):
    """10zinten/Indian-Currency-Recognition logs/train.log @de915f1f: ``Training Summary:`` then a
    header ``train loss   va_loss  train_acc   val_acc`` (``train loss`` one name: two spaces part the
    names) and a row an epoch: the header's five words over four columns hid the table (NOT-CHECKED)."""
    lines = ["=" * 65, "HYPERPARAMETERS:", "model =ResNet50", "nb_epoches =12", "", "Training Summary:"]
    lines.append("train loss   va_loss  train_acc   val_acc")
    for e in range(12):
        loss, acc = _val(e, 1.25), 0.5 + e / 30
        lines.append(f"  {loss:.6f}  {0.4 + e / 40:.6f}   {acc:.6f}  {0.4 + e / 40:.6f}")
    lines.append("Remarks: Still overfitting ")
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "train_loss"
    assert _series(run, "train_loss") == (12, 0.0, 11.0, _val(0, 1.25), _val(11, 1.25))
    assert _series(run, "train_acc")[0] == 12
