"""Kinds a blind sample of outside logs (probe round 30a: the repositories find_files lists for
Weights & Biases' console capture ``wandb/latest-run/files/output.log``, labelled before trainlint
read them) found unread: a DARTS architecture search, whose ``logging`` prefix is a month, a day and
a 12-hour time (``%m/%d %I:%M:%S %p``: the ``PM`` stayed on each line) and whose progress rows name
none of their columns (``train 050 2.092995e+00 21.29 73.62``: the step in the epoch, the loss's
running mean in ``%e`` form, top-1, top-5). Each fixture is made up in the shape of the real file
(repository, path and commit recorded with it; no copied lines) and asserts the series read: names,
steps, first and last values, and which is the loss."""

from __future__ import annotations

from _consolekit import read_lines as _read
from _consolekit import series_ends as _series

from trainlint.readers.console.darts import darts_log
from trainlint.readers.console.frames import unframe
from trainlint.readers.console.reader import recognise
from trainlint.readers.console.text import split_lines

EPOCHS = 3
ROWS = 6  # train rows an epoch (steps 000, 050, ... 250)


def _loss(k: int) -> float:
    """The training loss's running mean at the k-th train row: from about 2.3 down."""
    return round(2.3 - 0.04 * k, 6)


def _stamp(k: int, half: str = "PM") -> str:
    return f"06/14 0{1 + k // 60 % 9}:{k % 60:02d}:07 {half}"


def _darts_search_log() -> list[str]:
    """AI-Tech-Research-Lab/AsquaredM wandb/latest-run/files/output.log
    @7adccf8f0b6d5738909d2c223a8bb4d0ab3721b8 (DARTS train_search.py): ``epoch N lr X`` and the
    genotype before each epoch, a tensor of architecture weights printed bare, ``train NNN`` rows
    every 50 steps, ``train_acc``, then the ``valid NNN`` rows of the validation pass and
    ``valid_acc``."""
    lines = ["06/14 01:00:01 PM gpu device = 0", "06/14 01:00:02 PM param size = 1.686136MB"]
    k = 0
    for e in range(EPOCHS):
        lines += [f"{_stamp(k)} epoch {e} lr {0.025 - 0.001 * e:e}", f"{_stamp(k)} genotype = [('none', 0)]"]
        lines += ["arch-parameters :", "tensor([[0.2000, 0.1998, 0.2001],", "        [0.1999, 0.1998, 0.2000]])"]
        for i in range(ROWS):
            k += 1
            lines.append(f"{_stamp(k)} train {50 * i:03d} {_loss(k):e} {20.0 + k:f} {70.0 + k / 2:f}")
        lines.append(f"{_stamp(k)} train_acc {20.0 + k:f}")
        for i in range(4):
            lines.append(f"{_stamp(k)} valid {50 * i:03d} {1.9 - 0.1 * e + 0.01 * i:e} {30.0 + e:f} {85.0:f}")
        lines.append(f"{_stamp(k)} valid_acc {30.0 + e:f}")
    return lines


def test_darts_unnamed_rows_read_as_the_loss(tmp_path):
    run = _read(tmp_path, _darts_search_log(), "output.log")
    assert run.format == "console/darts"
    assert run.roles["loss"] == "train_loss" and run.roles["eval_loss"] == "valid_loss"
    last = EPOCHS * ROWS
    assert _series(run, "train_loss") == (last, 1.0, float(last), _loss(1), _loss(last))
    assert _series(run, "train_top1")[3:] == (21.0, 20.0 + last)
    # each validation pass's last row, at the training row it follows
    assert _series(run, "valid_loss") == (EPOCHS, float(ROWS), float(last), 1.93, 1.73)
    assert _series(run, "epoch")[:3] == (EPOCHS, 1.0, float(2 * ROWS + 1))


def _unframed(text: str) -> str:
    return unframe(split_lines(text))[0].final


def test_a_twelve_hour_stamp_is_a_prefix():
    assert _unframed("05/31 03:17:12 PM train 000 2.345711e+00 6.250000 54.687500") == (
        "train 000 2.345711e+00 6.250000 54.687500"
    )
    assert _unframed("12/01 11:59:59 AM epoch 3 loss 0.5") == "epoch 3 loss 0.5"
    # a word that only starts with the letters stays
    assert _unframed("05/31 03:17:12 PMx loss 0.5").startswith("PMx")


def test_darts_rows_read_but_three_plain_numbers_are_no_darts_row():
    darts = [f"train {50 * i:03d} {2.0 - 0.01 * i:e} {20.0 + i:f} {70.0 + i:f}" for i in range(30)]
    plain = [f"train {50 * i:03d} {2.0 - 0.01 * i:.4f} {20.0 + i:f} {70.0 + i:f}" for i in range(30)]
    assert recognise(split_lines("\n".join(darts)), "\n".join(darts))[0].framework == "darts"
    assert all(c.framework != "darts" for c in recognise(split_lines("\n".join(plain)), "\n".join(plain)))


def test_a_darts_row_of_a_long_run_of_digits_reads_in_linear_time():
    import time

    text = "\n".join(["train 000 1.000000e+00 " + "1" * 300_000, "epoch 1 lr " + "2" * 300_000 + "x"] * 2)
    start = time.perf_counter()
    assert darts_log(split_lines(text)) is None
    assert time.perf_counter() - start < 3.0
