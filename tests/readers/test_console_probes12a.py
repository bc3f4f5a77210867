"""Reading gaps that earlier probes of real logs outside the corpus found and left (issue 29, probe
round 12a): nanoGPT's evaluation lines alone, a bare loss under an epoch's header or after a tqdm
bar, counters glued to the names next to them, GluonCV's detection losses. Each fixture is made up
in the shape of the real log (repository, path and commit recorded with it; no copied lines) and
asserts the series read: names, steps, first and last values, and which is the loss."""

from __future__ import annotations

import pytest
from _consolekit import read_lines as _read
from _consolekit import series_ends as _series

from trainlint.readers.console.general import read_line
from trainlint.readers.console.objectives import objective, term_kind


def _loss(k: int, start: float = 4.2) -> float:
    return round(start * 0.93**k, 4)


_BAR = "100%|██████████| 38/38 [00:01<00:00, 31.62it/s]"


def test_nanogpt_evaluations_alone_take_the_train_split_as_the_loss(tmp_path):
    """P4B10SL/ng-video-lecture 'HyperParam_Variation/7 HyperParameter_Variation_Results.txt'
    @0b6131c (and the outputs pasted in gakonst/mpp-nanogpt-modal README.md @26e4b8f): Karpathy's
    lecture gpt.py, like nanoGPT with no ``iter N: loss`` lines, prints only
    ``step 500: train loss 2.0611, val loss 5.8975``. The train split's loss is the training loss,
    never the validation loss beside it."""
    lines = ["10.788929 M parameters"]
    lines += [f"step {500 * k}: train loss {_loss(k):.4f}, val loss {_loss(k) + 0.1:.4f}" for k in range(11)]
    run = _read(tmp_path, lines, "output.txt")
    assert run.roles["loss"] == "eval_train_loss" and run.roles["eval_loss"] == "val_loss"
    assert _series(run, "eval_train_loss") == (11, 0.0, 5000.0, 4.2, _loss(10))
    assert _series(run, "val_loss") == (11, 0.0, 5000.0, 4.3, pytest.approx(_loss(10) + 0.1))


def test_nanogpt_iteration_lines_stay_the_loss_beside_the_evaluations(tmp_path):
    """sigmalyj/nanoGPT log_train.txt @66daf55: both kinds of lines; the ``iter`` lines' loss is
    the training loss, the evaluation's train split stays a metric of its own."""
    lines = ["tokens per iteration will be: 16,384"]
    for it in range(0, 200, 10):
        if it % 100 == 0:
            lines.append(f"step {it}: train loss {_loss(it // 10):.4f}, val loss {_loss(it // 10):.4f}")
        lines.append(f"iter {it}: loss {_loss(it // 10):.4f}, time 561.12ms, mfu 3.21%")
    run = _read(tmp_path, lines, "log_train.txt")
    assert run.roles["loss"] == "loss" and run.roles["eval_loss"] == "val_loss"
    assert _series(run, "loss") == (20, 0.0, 190.0, 4.2, _loss(19))
    assert _series(run, "eval_train_loss")[0] == 2


def test_a_bare_loss_under_each_epoch_header(tmp_path):
    """nathanjjohnson7/transformer_implementation train_logs.txt @460e921: ``print("Epoch", e)``,
    then ``print(loss)`` alone on the next line, then sample translations. The number is the loss,
    its step the header's epoch."""
    lines = []
    for e in range(13):
        if e % 2 == 0:
            lines.append(f"************* saved_model ********************  {e}")
        lines += [f"Epoch {e}", f"{_loss(e, 0.0072)!r}", "Input: you re resilient .", "", "Target: vous etes .", ""]
    run = _read(tmp_path, lines, "train_logs.txt")
    assert run.roles["loss"] == "loss"
    assert _series(run, "loss") == (13, 0.0, 12.0, 0.0072, _loss(12, 0.0072))
    assert any("bare number" in n for n in run.notes)


@pytest.mark.parametrize(
    "header", ["Epoch {e}/15", "epoch: {e}", "Epoch {e}\n" + _BAR], ids=["of-total", "colon", "bar-between"]
)
def test_a_bare_loss_under_other_epoch_headers(tmp_path, header):
    """The same print under a header of ``Epoch 3/15`` or ``epoch: 3``, or with the epoch's tqdm
    bar between the header and the number: the step is still the header's."""
    lines = []
    for e in range(1, 13):
        lines += [*header.format(e=e).split("\n"), f"{_loss(e):.4f}"]
    run = _read(tmp_path, lines)
    assert _series(run, "loss") == (12, 1.0, 12.0, _loss(1), _loss(12))


def test_a_bare_loss_after_the_tqdm_bar_on_its_line(tmp_path):
    """tianti1/ECGMind finetune.log @3417703: ``print(loss)`` right after the epoch's tqdm bar (no
    newline between them), an evaluation's ``val_loss:`` line later each epoch. The bare number
    is the training loss, ``val_loss`` the evaluation's (before: ``val_loss`` was taken)."""
    lines = []
    for e in range(12):
        lines.append(f"training: {_BAR}{' ' * 20}{_loss(e, 88.0)}")
        lines.append("validating: 100%|██████████| 10/10 [00:00<00:00, 24.07it/s]")
        lines.append(f"min_loss:None, max_f1:None, val_loss:{_loss(e, 16.0)}, val_f1:0.48")
    run = _read(tmp_path, lines, "finetune.log")
    assert run.roles["loss"] == "loss" and run.roles["eval_loss"] == "val_loss"
    assert _series(run, "loss") == (12, 1.0, 12.0, 88.0, _loss(11, 88.0))
    assert _series(run, "val_loss")[0] == 12


def test_a_bare_number_stays_out_where_a_name_says_the_training_loss(tmp_path):
    """A named training loss wins: a bare number after a bar (a metric printed unnamed) is then
    no record, and a number not right under a header nor after a bar never is one."""
    lines = []
    for e in range(12):
        lines += [f"Epoch {e}", f"{_BAR} 0.{50 + e}", f"train loss: {_loss(e):.4f}", "0.25"]
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "train_loss" and "loss" not in run.series
    assert _series(run, "train_loss") == (12, 0.0, 11.0, 4.2, _loss(11))


def test_a_counter_glued_to_the_loss_name(tmp_path):
    """FCChinen/PPO loss.txt @83b16de: ``print("idx: " + str(i) + "loss: " + str(loss))`` prints
    ``idx: 0loss: tensor(-0.0138, grad_fn=<NegBackward>)`` (before: read as a CSV of text)."""
    lines = [f"idx: {i}loss: tensor({-_loss(i, 0.0138):.4f}, grad_fn=<NegBackward>)" for i in range(20)]
    run = _read(tmp_path, lines, "loss.txt")
    assert run.roles["loss"] == "loss"
    assert _series(run, "loss") == (20, 0.0, 19.0, -0.0138, -_loss(19, 0.0138))


@pytest.mark.parametrize(
    ("text", "values", "epoch", "step"),
    [
        ("EP12 loss: 0.5", {"loss": 0.5}, 12.0, None),
        ("Ep3 | loss 0.3", {"loss": 0.3}, 3.0, None),
        ("epoch1 loss0.5", {"loss": 0.5}, 1.0, None),
        ("step1 loss=35.3125", {"loss": 35.3125}, None, 1.0),
        ("epoch=2loss=0.3", {"loss": 0.3}, 2.0, None),
    ],
)
def test_glued_counters_and_names(text, values, epoch, step):
    """A counter's name glued to its number, a number glued to the next name, a loss's name glued
    to its value: each read as if the space were there."""
    rec = read_line(text)
    assert rec is not None and rec.values == values and rec.epoch == epoch and rec.step == step


@pytest.mark.parametrize("text", ["top1: 0.5", "conv2d loss 0.3", "lr 1e-5 loss: 0.3", "step2_loss: 0.4"])
def test_names_with_digits_stay_whole(text):
    """Names that hold a number (``top1``, ``conv2d``, ``step2_loss``) and exponents stay as written."""
    rec = read_line(text)
    assert rec is not None and all(not k[0].isdigit() for k in rec.values)
    assert ("top1" in rec.values) == text.startswith("top1")
    assert ("step2_loss" in rec.values) == text.startswith("step2")


def test_gluoncv_detection_losses_are_summed(tmp_path):
    """Sparks-zs/mxnet-object-detection log/train.log @f4a757b (GluonCV's train_ssd.py):
    ``[Epoch 0][Batch 50], Speed: 0.563 samples/sec, CrossEntropy=9.23e-01, SmoothL1=2.18e-03,
    val_AP=0.169``. SSD's loss is the class term plus the box term (before: CrossEntropy alone)."""
    lines = [
        f"2020-08-31 14:53:06,644 - train_net.py[line:175] - INFO: [Epoch {e}][Batch {b}], Speed: 0.9 samples/sec, "
        f"CrossEntropy={_loss(2 * e + b // 50, 1.8):.2e}, SmoothL1={_loss(2 * e + b // 50, 0.003):.2e}, val_AP=0.2"
        for e in range(8)
        for b in (0, 50)
    ]
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "CrossEntropy+SmoothL1"
    assert _series(run, "CrossEntropy+SmoothL1")[:4] == (16, 0.0, 750.0, pytest.approx(1.8 + 0.003))


@pytest.mark.parametrize("name", ["SmoothL1", "smooth_l1", "RPN_SmoothL1", "smoothl1"])
def test_smooth_l1_is_an_objective_term(name):
    assert term_kind(name) == "term"
    assert objective(["CrossEntropy", name, "Speed"]).names == tuple(sorted(["CrossEntropy", name]))


@pytest.mark.parametrize("name", ["smooth_label", "smooth_l12", "smoothing"])
def test_other_smooth_names_are_no_term(name):
    assert term_kind(name) is None
