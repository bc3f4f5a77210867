"""Loss files found by a blind sample of outside logs (issue 29, probe round 18c: the first
repositories ``find_files`` lists for ``train.txt`` and ``loss.txt``, labelled before trainlint read
them). A file named for its loss whose rows hold the values as the loop printed them: a torch
tensor's repr, a tuple of the row's values, the counter led by its word; or whose lines are each a
printed list (or a delimited row) of a whole series. Each fixture is made up in the shape of the
real file (repository, path and commit recorded with it; no copied lines) and asserts the series
read: names, steps, first and last values, and which is the loss."""

from __future__ import annotations

from _consolekit import series_ends as _series

from trainlint.api import read_run

N = 40


def _loss(k: int) -> float:
    return round(0.4 * 0.9**k + 0.001, 4)


def _val(k: int) -> float:
    return round(0.3 * 0.92**k + 0.002, 4)


def test_printed_tensors_after_the_epoch_are_the_loss(tmp_path):
    """Brucia323/E-commerce-technology-system loss.txt @84b52ab1: ``print(epoch, loss, file=f)`` of
    a CUDA tensor, ``0 tensor(0.4010, device='cuda:0', grad_fn=<MseLossBackward0>)``, 500 epochs.
    No row had been a bare number, so nothing was read."""
    rows = [f"{k} tensor({_loss(k):.4f}, device='cuda:0', grad_fn=<MseLossBackward0>)" for k in range(N)]
    path = tmp_path / "loss.txt"
    path.write_text("\n".join(rows))
    run = read_run(path)
    assert run.format == "console/loss-file" and run.roles["loss"] == "loss"
    assert _series(run, "loss") == (N, 0.0, N - 1.0, _loss(0), _loss(N - 1))


def test_tensorflow_scalars_after_the_step_are_the_loss(tmp_path):
    """Deeplink-Network/DeepBrew loss.txt @802f4911 (and MRVNY/IAR-Meta-RL loss.txt @82780f4e): seen
    while sampling, ``print(step, loss)`` of an eager TensorFlow scalar, ``0, tf.Tensor(10.2136,
    shape=(), dtype=float32)``. Its ``shape=()`` had kept the value wrapped, as a torch tensor's is
    not; a console line of one reads the same."""
    rows = [f"{k}, tf.Tensor({_loss(k)}, shape=(), dtype=float32)" for k in range(N)]
    path = tmp_path / "loss.txt"
    path.write_text("\n".join(rows) + "\n")
    run = read_run(path)
    assert run.format == "console/loss-file" and run.roles["loss"] == "loss"
    assert _series(run, "loss") == (N, 0.0, N - 1.0, _loss(0), _loss(N - 1))
    log = tmp_path / "train.log"
    log.write_text("".join(f"step {k}: loss = tf.Tensor({_loss(k)}, shape=(), dtype=float32)\n" for k in range(N)))
    assert _series(read_run(log), "loss") == (N, 0.0, N - 1.0, _loss(0), _loss(N - 1))


def test_epoch_words_and_tensors_under_run_headers(tmp_path):
    """GabrielScinteie/BachelorThesis loss.txt @9bebc3c1: a run a block, ``Iteratie: 3`` over ten
    lines ``Epoca 0: tensor(1.8924, grad_fn=<DivBackward0>)`` (Romanian: epoch): the counter led by
    its word and the value in a tensor's repr. The headers are no rows; the epochs restart each
    block (the steps as written)."""
    lines = []
    for run_no in (1, 2, 3):
        lines.append(f"Iteratie: {run_no}")
        lines += [f"Epoca {e}: tensor({_loss(e) + run_no:.4f}, grad_fn=<DivBackward0>)" for e in range(10)]
    path = tmp_path / "loss.txt"
    path.write_text("\n".join(lines) + "\n")
    run = read_run(path)
    assert run.format == "console/loss-file" and run.roles["loss"] == "loss"
    assert _series(run, "loss") == (30, 0.0, 9.0, _loss(0) + 1, round(_loss(9) + 3, 4))


def test_rows_printed_as_tuples_are_the_loss_and_the_next_column(tmp_path):
    """Khoi-Huynh13/MIAD---Electrical-Insulator loss.txt @728ceb52: ``f.write(str((train, val)))``
    an epoch, ``(0.010506058001218866, 0.002518052787599253)``, two runs appended. The first value
    is the file's loss, the second ``loss_2``, as in a row of two bare values."""
    rows = [f"({_loss(k)!r}, {_val(k)!r})" for k in range(N)]
    path = tmp_path / "loss.txt"
    path.write_text("\n".join(rows) + "\n")
    run = read_run(path)
    assert run.roles["loss"] == "loss"
    assert _series(run, "loss") == (N, 1.0, float(N), _loss(0), _loss(N - 1))
    assert _series(run, "loss_2") == (N, 1.0, float(N), _val(0), _val(N - 1))


def test_a_printed_list_a_line_is_a_series_a_line(tmp_path):
    """CaduRomaniello/NFL-play-classification-GNN loss.txt @6e0ebe98: two lines, each a Python list
    of 300 floats (``[0.05415830605223451, 0.013707894818160633, ...]``), the training losses and
    then another series. The whole file is no one list, so nothing had been read (the CSV reader
    took the commas for a table of one row). The head a sniff sees cuts the second list: it is
    still the loss file's."""
    first = [0.05 * 0.99**k + 0.001 for k in range(300)]
    second = [0.012 * 0.995**k + 0.002 for k in range(300)]
    path = tmp_path / "loss.txt"
    path.write_text(str(first) + "\n" + str(second))
    run = read_run(path)
    assert run.format == "console/loss-file" and run.roles["loss"] == "loss"
    assert _series(run, "loss") == (300, 1.0, 300.0, first[0], first[-1])
    assert _series(run, "loss_2") == (300, 1.0, 300.0, second[0], second[-1])


def test_comma_rows_with_a_trailing_comma_a_series_each(tmp_path):
    """Lordworms/machine_learning_refined loss.txt @3d2a9c1b: ``f.write(str(v) + ",")`` per epoch,
    the 20 losses on one line, then two blank lines and the 20 accuracies on another. The losses
    are the file's loss; the next row is ``loss_2``, never the loss."""
    acc = [round(0.83 + 0.004 * k, 4) for k in range(20)]
    path = tmp_path / "loss.txt"
    path.write_text("".join(f"{_loss(k)}," for k in range(20)) + "\n\n\n" + "".join(f"{a}," for a in acc))
    run = read_run(path)
    assert run.roles["loss"] == "loss"
    assert _series(run, "loss") == (20, 1.0, 20.0, _loss(0), _loss(19))
    assert _series(run, "loss_2") == (20, 1.0, 20.0, acc[0], acc[-1])


def test_a_file_named_otherwise_or_rows_too_short_stay_unread(tmp_path):
    """A list a line is read only in a file whose name says loss, and only where every line holds
    ten values or more (``train.txt`` of feature rows is a dataset)."""
    rows = "\n".join(str([round(0.1 * k + j, 3) for k in range(12)]) for j in range(3))
    data = tmp_path / "train.txt"
    data.write_text(rows + "\n")
    assert not _readable(data)
    short = tmp_path / "loss.txt"
    short.write_text("[0.5, 0.4, 0.3]\n[0.6, 0.5, 0.4]\n")
    assert not _readable(short)


def _readable(path) -> bool:
    """Whether trainlint reads any series from ``path``."""
    try:
        return bool(read_run(path).series)
    except Exception:  # noqa: BLE001 - unread files raise; that is the answer here
        return False
