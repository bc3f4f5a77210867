"""Line shapes seen in real training logs of older and less common frameworks found outside the
corpus (issue 29, probe round 12b: Caffe's glog files, Chainer's PrintReport tables). Each fixture
is made up in the shape of the real log (repository, path and commit recorded with it; no copied
lines) and asserts the series read: names, steps, first and last values, and which is the loss."""

from __future__ import annotations

import math

import pytest
from _consolekit import read_lines as _read
from _consolekit import series_ends as _series

from trainlint.discover import match_file
from trainlint.readers import sniff


def _loss(k: int, start: float = 3.5) -> float:
    return round(start * 0.95**k, 4)


def _caffe_log(iters: int = 12) -> list[str]:
    """A Caffe solver log as glog writes it: its three-line file header, the solver's parameters
    and the net's definition (prototxt, tens of kilobytes before the first progress line), then
    the solver's lines behind glog's ``I0712 22:28:03.868899 32223 solver.cpp:189] `` frame."""
    lines = [
        "Log file created at: 2015/07/12 22:28:03",
        "Running on machine: host-pc",
        "Log line format: [IWEF]mmdd hh:mm:ss.uuuuuu threadid file:line] msg",
        "I0712 22:28:04.027757 32223 solver.cpp:32] Initializing solver from parameters: ",
        "test_iter: 100",
        "base_lr: 0.01",
        "I0712 22:28:04.031060 32223 net.cpp:42] Initializing net from parameters: ",
        'name: "GoogleNet"',
    ]
    for n in range(300):  # the net's layers: no progress line within the sniffer's head
        lines += ["layer {", f'  name: "conv{n}/3x3"', '  type: "Convolution"', f'  bottom: "conv{n - 1}/3x3"', "}"]
    for k in range(iters):
        t = f"I0712 22:{30 + k:02d}:04.0{k:02d}472 32223"
        if k % 4 == 0:
            lines.append(f"{t} solver.cpp:266] Iteration {40 * k}, Testing net (#0)")
            lines.append(f"{t} solver.cpp:315]     Test net output #0: loss3/loss3 = {_loss(k, 4.0)} (* 1 = 1 loss)")
        lines.append(f"{t} solver.cpp:189] Iteration {40 * k}, loss = {_loss(k, 11.5)}")
        lines.append(f"{t} solver.cpp:204]     Train net output #0: loss1/loss1 = 7.1 (* 0.3 = 2.1 loss)")
        lines.append(f"{t} solver.cpp:464] Iteration {40 * k}, lr = 0.01")
    return lines


@pytest.mark.parametrize("name", ["caffe.INFO", "caffe.jin-PC.jin.log.INFO.20150703-144016.30328"])
def test_a_glog_file_is_claimed_by_its_name(tmp_path, name):
    """JirenJin/training-experiments caffe.INFO and caffe.jin-PC.jin.log.INFO.20150703-144016.30328
    @9c6418d: glog names its files <program>.<host>.<user>.log.INFO.<date>-<time>.<pid> (and links
    <program>.INFO to the newest); the head is the net's definition, so only the name says it is a
    log. It was read only when named on the command line (every reader tried), never found in a
    folder, and `trainlint series` refused it."""
    run = _read(tmp_path, _caffe_log(), name)
    assert run.roles["loss"] == "loss"
    assert _series(run, "loss") == (12, 0.0, 440.0, 11.5, _loss(11, 11.5))
    assert match_file(tmp_path / name) is not None  # a folder's walk finds it


@pytest.mark.parametrize(
    "name", ["caffe.WARNING", "caffe.host.user.log.ERROR.20141025-153657.31294", "notes.INFO.txt", "run.log.INFO.2015"]
)
def test_other_names_are_not_claimed_as_glog_files(tmp_path, name):
    """Only the INFO link and glog's dated INFO files are claimed (yindaz/caffe log/ @25147aa holds
    caffe.INFO beside caffe.WARNING, caffe.ERROR and their dated files: those repeat only the
    warnings), and names that merely hold INFO are left to the readers' content sniffing."""
    path = tmp_path / name
    path.write_text("\n".join(_caffe_log()) + "\n", encoding="utf-8")
    assert sniff(path) is None


def _print_report(names: list[str], rows: list[dict[str, float]]) -> list[str]:
    """Chainer's ``extensions.PrintReport`` as it prints: each column max(10, len(name)) wide
    and two spaces apart, a value left-aligned under its name (``{:<Wg}``), spaces where the
    observation has no value for the name (the validation columns between evaluations)."""
    widths = [max(10, len(n)) for n in names]
    out = ["  ".join(f"{n:{w}}" for n, w in zip(names, widths))]
    for row in rows:
        out.append("".join(f"{row[n]:<{w}g}  " if n in row else " " * (w + 2) for n, w in zip(names, widths)))
    return out


def test_a_print_report_table_with_blank_validation_cells(tmp_path):
    """espnet/espnet doc/espnet1_tutorial.md @1d1aeb2 (its train.log under --verbose 0) and
    chainer's examples: ESPnet1's exp/<dir>/train.log prints PrintReport's table every 100
    iterations, `epoch  iteration  main/loss  main/loss_ctc  ...  validation/main/loss ...
    elapsed_time  eps`, the validation cells blank except on the row after an evaluation, and
    Chainer's ProgressBar between the rows. A row of blanks was dropped (its cells did not
    match the names one to one): only the rows after an evaluation were read, at their epoch.
    Each value is placed under the name it starts under; the iteration is the step."""
    names = ["epoch", "iteration", "main/loss", "main/loss_ctc", "main/loss_att", "validation/main/loss"]
    names += ["validation/main/loss_ctc", "validation/main/loss_att", "main/acc", "validation/main/acc"]
    names += ["elapsed_time", "eps"]
    rows = []
    for k in range(1, 25):
        row = {"epoch": k // 8, "iteration": 100 * k, "main/loss": _loss(k, 120.0), "main/loss_ctc": 150.5}
        row |= {"main/loss_att": 80.25, "main/acc": 0.5 + k / 100, "elapsed_time": 60.5 * k, "eps": 1e-08}
        if k % 8 == 0:
            row |= {"validation/main/loss": _loss(k, 100.0), "validation/main/loss_ctc": 120.0}
            row |= {"validation/main/loss_att": 70.0, "validation/main/acc": 0.6}
        rows.append(row)
    lines = _print_report(names, rows)
    lines[9:9] = [
        "     total [#################.................................] 35.54%",
        "this epoch [#####.............................................] 10.84%",
        "     900 iter, 1 epoch / 3 epochs",
        "   0.71428 iters/sec. Estimated time to finish: 2 days, 16:23:34.613215.",
    ]
    run = _read(tmp_path, lines, "train.log")
    assert run.roles["loss"] == "main/loss"
    assert run.roles["eval_loss"] == "validation/main/loss"
    assert _series(run, "main/loss") == (24, 100.0, 2400.0, _loss(1, 120.0), _loss(24, 120.0))
    assert _series(run, "validation/main/loss") == (3, 800.0, 2400.0, _loss(8, 100.0), _loss(24, 100.0))
    assert _series(run, "epoch") == (24, 100.0, 2400.0, 0.0, 3.0)


def test_a_print_report_table_of_epochs_with_a_blank_first_evaluation(tmp_path):
    """chainer's examples/sentiment (its README's console output): `epoch  main/loss
    validation/main/loss  main/accuracy  validation/main/accuracy  elapsed_time`, one row an
    epoch, the first row's validation cells blank. Every row is read, at its epoch."""
    names = ["epoch", "main/loss", "validation/main/loss", "main/accuracy", "validation/main/accuracy"]
    names.append("elapsed_time")
    rows = [
        {"epoch": k, "main/loss": round(_loss(k, 1573.94), 2), "main/accuracy": 0.2 + k / 50, "elapsed_time": 1.1 * k}
        for k in range(1, 13)
    ]
    for row in rows[1:]:
        row |= {"validation/main/loss": row["main/loss"] * 1.1, "validation/main/accuracy": 0.4}
    run = _read(tmp_path, _print_report(names, rows), "train.log")
    assert run.roles["loss"] == "main/loss"
    assert _series(run, "main/loss") == (12, 1.0, 12.0, round(_loss(1, 1573.94), 2), round(_loss(12, 1573.94), 2))
    assert _series(run, "validation/main/loss")[:3] == (11, 2.0, 12.0)


def test_a_row_whose_values_do_not_start_under_the_names_is_not_placed(tmp_path):
    """A short row is placed only where every value starts where a name does: a right-aligned
    table's short row (the names' ends, not starts) keeps being left out."""
    lines = ["      epoch        loss    val_loss"]
    lines += [f"{k:>11d} {_loss(k):>11.4f} {_loss(k, 3.0):>11.4f}" for k in range(1, 11)]
    lines.insert(3, f"{3:>11d} {_loss(3):>11.4f}")
    run = _read(tmp_path, lines, "train.log")
    assert _series(run, "loss")[0] == 10


def test_sockeye_prints_perplexity_alone_its_log_is_the_loss(tmp_path):
    """edwardjhu/parabank-demo model/log @37e025e (Sockeye 1.18 on MXNet): the Speedometer line
    `Epoch[0] Batch [50]\\tSpeed: 76.66 samples/sec 1820.19 tokens/sec 0.35 updates/sec\\t
    perplexity=1873.457714` names no loss, and each checkpoint's `Checkpoint [1]\\t
    Validation-perplexity=308.94` is the evaluation. The log was NOT-CHECKED (no loss series):
    the perplexity is the exponential of the per-token cross-entropy Sockeye minimises, so its
    log is the loss (and the validation perplexity's the eval loss); both perplexities are kept."""
    frame = "[2018-08-28:13:41:56:INFO:sockeye.training:{}] "
    lines = [frame.format("fit") + "Early stopping by optimizing 'perplexity'"]
    for k in range(1, 25):
        ppl = round(1873.457714 * 0.8**k, 6)
        lines.append(
            frame.format("__call__") + f"Epoch[{k // 10}] Batch [{50 * k}]\tSpeed: 232.70 samples/sec "
            f"4790.23 tokens/sec 0.90 updates/sec\tperplexity={ppl}"
        )
        if k % 8 == 0:
            lines.append(frame.format("fit") + f"Checkpoint [{k // 8}]\tUpdates={400 * k} Epoch=0 Time-cost=46.8")
            lines.append(frame.format("fit") + f"Checkpoint [{k // 8}]\tTrain-perplexity={ppl}")
            lines.append(frame.format("fit") + f"Checkpoint [{k // 8}]\tValidation-perplexity={ppl * 1.5:.6f}")
            lines.append(frame.format("fit") + f"Validation-perplexity improved to {ppl * 1.5:.6f} (delta=inf).")
    run = _read(tmp_path, lines, "log")
    assert run.roles["loss"] == "loss"
    assert run.roles["eval_loss"] == "val_loss"
    n, _, _, first, last = _series(run, "loss")
    assert n == 24
    assert first == pytest.approx(math.log(1873.457714 * 0.8))
    assert last == pytest.approx(math.log(1873.457714 * 0.8**24), rel=1e-6)
    assert _series(run, "perplexity")[3] == round(1873.457714 * 0.8, 6)
    assert _series(run, "val_loss")[0] == 3
    assert _series(run, "val_perplexity")[0] == 3


def test_a_speedometer_line_that_names_its_loss_keeps_it(tmp_path):
    """MXNet's Speedometer with a loss metric beside the perplexity: the printed loss is kept,
    nothing is derived."""
    lines = [
        f"INFO:root:Epoch[0] Batch [{20 * k}]\tSpeed: 25.69 samples/sec\tperplexity={50.0 * 0.9**k:.4f}"
        f"\tRPNL1Loss={_loss(k):.4f}"
        for k in range(1, 13)
    ]
    run = _read(tmp_path, lines, "train.log")
    assert "loss" not in run.series
    assert run.roles["loss"] == "RPNL1Loss"


def test_opennmt_py_validation_perplexity_is_the_eval_loss(tmp_path):
    """kmilink/OpenNMT-Indonesia-Bima model/train.log @707e327 (OpenNMT-py): `[.. INFO] Step 50/ 5000;
    acc:  20.18; ppl: 908.07; xent: 6.81; lr: 0.00020; 4466/6179 tok/s;     32 sec`, and after each
    validation `Validation perplexity: 74.7542` and `Validation accuracy: 47.9167`. The training
    loss (xent) was read, the evaluation only as perplexity: no eval loss. The validation
    cross-entropy, ln of its perplexity, is the eval loss, at the step before it."""
    lines = ["[2025-09-21 08:38:44,812 INFO] Start training loop and validate every 500 steps..."]
    for k in range(1, 21):
        xent = _loss(k, 6.81)
        lines.append(
            f"[2025-09-21 08:39:16,816 INFO] Step {50 * k}/ 1000; acc:  {20 + k:.2f}; ppl: {math.exp(xent):.2f}; "
            f"xent: {xent:.2f}; lr: 0.00020; 4466/6179 tok/s;    {32 * k} sec"
        )
        if k % 5 == 0:
            lines.append(f"[2025-09-21 08:43:41,636 INFO] Validation perplexity: {math.exp(xent + 0.5):.4f}")
            lines.append(f"[2025-09-21 08:43:41,637 INFO] Validation accuracy: {40 + k:.4f}")
    lines.append("[2025-09-21 08:53:35,724 INFO] Training finished after not improving. Early Stop!")
    run = _read(tmp_path, lines, "train.log")
    assert run.roles["loss"] == "xent"
    assert run.roles["eval_loss"] == "val_loss"
    assert _series(run, "xent") == (20, 50.0, 1000.0, round(_loss(1, 6.81), 2), round(_loss(20, 6.81), 2))
    n, first_step, last_step, first, _ = _series(run, "val_loss")
    assert (n, first_step, last_step) == (4, 250.0, 1000.0)
    assert first == pytest.approx(_loss(5, 6.81) + 0.5, abs=1e-4)
    assert _series(run, "val_acc")[:3] == (4, 250.0, 1000.0)


def test_opennmt_py_early_stop_is_a_normal_end(tmp_path):
    """BitMap4/morphological-inflections train.log (calibration): OpenNMT-py stops early, "Decreasing
    patience: 0/2" then "Training finished after not improving. Early Stop!", at step 1600 of 100000
    planned: a completion record, not an incomplete run."""
    lines = [
        f"[2024-05-08 04:07:{k % 60:02d},516 INFO] Step {50 * k}/100000; acc:  {50 + k:.2f}; ppl: 2.5; "
        f"xent: {_loss(k, 3.29):.2f}; lr: 1.00000; 4466/6179 tok/s;    {k} sec"
        for k in range(1, 33)
    ]
    lines += [
        "[2024-05-08 04:08:04,516 INFO] Validation perplexity: 1.10",
        "[2024-05-08 04:08:04,516 INFO] Decreasing patience: 0/2",
        "[2024-05-08 04:08:04,516 INFO] Training finished after not improving. Early Stop!",
        "[2024-05-08 04:08:04,516 INFO] Best model found at step 1200",
    ]
    run = _read(tmp_path, lines, "train.log")
    assert run.meta.get("completed") is True
    assert not _read(tmp_path, lines[:-2], "train.log").meta.get("completed")
