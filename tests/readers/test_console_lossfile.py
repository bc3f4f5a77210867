"""Loss files a training loop appends to (``loss.txt``, ``logs/loss.log``): one value a line, or a
step and a value; named by the file's name, and only read where the name says loss."""

from __future__ import annotations

import pytest
from _consolekit import read_lines as _read
from _consolekit import series_ends as _series

from trainlint.readers import ReadError
from trainlint.readers.console.handwritten import loss_name


def test_one_value_a_line_is_the_loss_at_its_order(tmp_path):
    # netllm-loss-912, ssd-pytorch-loss-913: f.write(f"{loss}\n") after each batch
    run = _read(tmp_path, [f"{2.5 / (1 + i):.6f}" for i in range(40)], "loss.txt")
    assert run.format == "console/loss-file" and run.roles["loss"] == "loss"
    assert _series(run, "loss") == (40, 1.0, 40.0, 2.5, pytest.approx(2.5 / 40, rel=1e-4))


def test_step_value_pairs_keep_their_steps_and_a_restart_is_noted(tmp_path):
    lines = [f"{s} {3.0 - 0.01 * s:.4f}" for s in range(0, 300, 10)] + [
        f"{s},{3.0 - 0.01 * s:.4f}" for s in range(0, 50, 10)
    ]
    run = _read(tmp_path, lines, "train_loss.log")
    assert run.roles["loss"] == "train_loss"
    assert _series(run, "train_loss") == (35, 0.0, 40.0, 3.0, 2.6)
    assert any("falls back 1 time" in n for n in run.notes)


def test_a_header_line_is_tolerated_and_nan_is_kept(tmp_path):
    run = _read(tmp_path, ["Training Loss"] + [f"{1.0 / (i + 1):.4f}" for i in range(20)] + ["nan"], "losses.txt")
    assert run.roles["loss"] == "loss" and len(run.series["loss"].values) == 21


@pytest.mark.parametrize("name", ["data.txt", "scores.log", "loss.txt"])
def test_bare_numbers_not_named_loss_or_too_few_are_not_a_run(tmp_path, name):
    lines = [f"{0.1 * i:.3f}" for i in range(100 if name != "loss.txt" else 9)]
    with pytest.raises(ReadError):
        _read(tmp_path, lines, name)


def test_a_file_of_mostly_prose_named_loss_is_not_a_loss_file(tmp_path):
    # (Mayra-99/atelier-linux-p1ia logs/loss.log, grep output of its own logs): read as console lines
    lines = [f"./logs/training.log:Epoch {e} : Loss = {1.0 / e:.2f}" for e in range(1, 13)]
    run = _read(tmp_path, lines, "loss.log")
    assert run.format != "console/loss-file" and run.roles["loss"] == "Loss"
    assert _series(run, "Loss") == (12, 1.0, 12.0, 1.0, 0.08)


def test_the_series_is_named_by_the_file():
    assert loss_name("loss") == "loss" and loss_name("losses") == "loss"
    assert loss_name("val_loss") == "val_loss" and loss_name("train") is None


def test_junk_named_loss_is_never_a_run(tmp_path):
    """A binary file, one 20 MB line of digits, and a config dump, each named like a loss file."""
    import time

    from trainlint.api import read_run

    (tmp_path / "loss.bin.txt").write_bytes(b"\x00\x01" * 4096 + b"1.0\n" * 50)
    big = tmp_path / "loss.log"
    big.write_bytes(b"1" * (20 << 20))
    start = time.perf_counter()
    for path in (tmp_path / "loss.bin.txt", big):
        with pytest.raises(ReadError):
            read_run(path)
    assert time.perf_counter() - start < 10.0
    with pytest.raises(ReadError):
        _read(tmp_path, [f"lr_{i}: {0.1 * i}" for i in range(50)], "loss_config.log")


def test_two_values_a_row_without_a_header_are_the_loss_and_a_second_column(tmp_path):
    # altfast-sft-loss-txt-1241 (calibration): df.to_csv('loss.txt', sep='\t', index=False, header=False) of
    # Loss_Train and Loss_Val; reco-sys-mse-loss-txt-1240: "train,test" MSE rows. The first row is data, not a header.
    rows = [f"{2.6 - 0.03 * i}\t{2.61 - 0.02 * i}" for i in range(41)]
    run = _read(tmp_path, rows, "loss.txt")
    assert run.format == "console/loss-file" and run.roles["loss"] == "loss"
    assert _series(run, "loss") == (41, 1.0, 41.0, 2.6, pytest.approx(1.4))
    assert _series(run, "loss_2") == (41, 1.0, 41.0, 2.61, pytest.approx(1.81))
    comma = _read(tmp_path, [f"{s},{1.3 + 0.01 * s},{1.5 + 0.01 * s}" for s in range(12)], "loss_log.txt")
    assert _series(comma, "loss") == (12, 0.0, 11.0, 1.3, pytest.approx(1.41))


def test_a_table_of_losses_under_a_header_is_left_to_the_table_readers(tmp_path):
    rows = ["Epoch\tLoss_train\tLoss_test"] + [f"{e}\t{30.0 / e:.4f}\t{24.0 / e:.4f}" for e in range(1, 41)]
    run = _read(tmp_path, rows, "loss_log.txt")
    assert run.format != "console/loss-file" and run.roles["loss"] == "Loss_train"


def test_one_printed_list_of_the_losses_is_the_loss_in_its_order(tmp_path):
    # torchic-mnist-loss-txt-1243 (calibration): std::fs::write("./loss.txt", format!("{:?}", losses)), one line;
    # Python's f.write(str(losses)) is the same shape, and NumPy's print wraps "[0.33 0.13 ...]" over lines
    losses = [0.33006555, 0.13408972, 0.08825967, 0.06295489, 0.047282077, 0.036671806, 0.028341116, 0.022399697]
    losses += [0.019161189, 0.015187284]
    run = _read(tmp_path, ["[" + ", ".join(str(v) for v in losses) + "]"], "loss.txt")
    assert run.format == "console/loss-file" and _series(run, "loss") == (10, 1.0, 10.0, 0.33006555, 0.015187284)
    wrapped = ["[" + " ".join(f"{v:.4f}" for v in losses[:6]), " " + " ".join(f"{v:.4f}" for v in losses[6:]) + "]"]
    assert _series(_read(tmp_path, wrapped, "loss.txt"), "loss") == (10, 1.0, 10.0, 0.3301, 0.0152)
    with pytest.raises(ReadError):
        _read(tmp_path, ["[" + ", ".join(str(v) for v in losses) + ", 'done']"], "loss.txt")
