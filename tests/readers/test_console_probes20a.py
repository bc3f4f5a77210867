"""Kinds a blind, mechanically picked sample of outside logs (probe round 20a: the first repositories
find_files lists for ``stdout.txt``, ``train_output.txt`` and ``output.txt``, labelled before trainlint
read them) found unread or read wrong: cuda-convnet's cost lines. Each fixture is made up in the shape
of the real file (repository, path and commit recorded with it; no copied lines) and asserts the series
read: names, steps, first and last values, and which is the loss."""

from __future__ import annotations

import pytest
from _consolekit import series_ends as _series

from trainlint.api import read_run
from trainlint.readers.base import ReadError

BATCHES = 24  # training batches (data-batch files 1-800 in the real run: their numbers are not a count)
TEST_FREQ = 8


def _logprob(i: int) -> float:
    return round(0.69 * 0.98**i, 6)


def _test(i: int) -> float:
    return round(0.5 * 0.97**i, 6)


def _convnet_log(*, progress: bool = False, nan_at: int | None = None) -> list[str]:
    """HoldenCaulfieldRye/pipe-classification train_output.txt @d70c64d8 (noccn's ``ccn-train`` on
    cuda-convnet): the option table, then a line a training batch ``12.351... logprob:  0.693156,
    0.324219 (0.698 sec)`` (epoch.batch, the logreg cost's negative log-probability and error rate,
    the batch's time), and every ``--test-freq`` batches a ``Test output`` block: its costs line, the
    layers' weight norms, ``Train error last N batches``. ``progress``: cuda-convnet2's position
    ``12.351 (43.88%)...``. ``nan_at``: the batch whose cost is NaN, its line ending ``^ got nan or
    inf!`` and the run."""
    lines = ["Training ConvNet", "Minibatch size                : 128   [DEFAULT]", "=" * 25]
    for i in range(1, BATCHES + 1):
        where = f"12.{350 + i} ({100 * i / 800:.2f}%)..." if progress else f"12.{350 + i}..."
        if i == nan_at:
            lines.append(f"{where} logprob:  nan, 0.500000 ^ got nan or inf!")
            break
        lines.append(f"{where} logprob:  {_logprob(i):.6f}, {0.3 - 0.004 * i:.6f} (1.{400 + i} sec)")
        if i % TEST_FREQ == 0:
            lines += [
                "=" * 25,
                f"Testing {TEST_FREQ} batches",
                "",
                "======================Test output======================",
                f"logprob:  {_test(i):.6f}, 0.117188 ",
                "------------------------------------------------------- ",
                "Layer 'conv1' weights[0]: 5.045999e-03 [2.540322e-08] ",
                "Train error last 800 batches: 0.658048",
                "======================================================= (2.581 sec)",
            ]
    return lines


def test_cuda_convnet_s_cost_lines_are_read(tmp_path):
    """No line of a cuda-convnet console had been read ("no training-progress lines found"): its
    position ``12.351...`` is no step word and its cost layer ``logprob`` no loss word. Now the
    training lines are the loss (the logreg cost's first value), their count the step, and the test
    output's cost the evaluation loss, at the batch before it."""
    path = tmp_path / "train_output.txt"
    path.write_text("\n".join(_convnet_log()) + "\n")
    run = read_run(path)
    assert run.format == "console/cuda-convnet"
    assert run.roles["loss"] == "logprob"
    assert run.roles["eval_loss"] == "test_logprob"
    assert _series(run, "logprob") == (BATCHES, 1, BATCHES, _logprob(1), _logprob(BATCHES))
    assert _series(run, "logprob_error") == (BATCHES, 1, BATCHES, 0.296, round(0.3 - 0.004 * BATCHES, 6))
    n = BATCHES // TEST_FREQ
    assert _series(run, "test_logprob") == (n, TEST_FREQ, BATCHES, _test(TEST_FREQ), _test(BATCHES))


def test_cuda_convnet2_s_progress_and_a_nan_cost_are_read(tmp_path):
    """cuda-convnet2 prints the epoch's progress in the position (``12.351 (43.88%)...``); a NaN
    cost ends its line with ``^ got nan or inf!`` instead of the time: that point is read, NaN."""
    path = tmp_path / "train_output.txt"
    path.write_text("\n".join(_convnet_log(progress=True, nan_at=20)) + "\n")
    run = read_run(path)
    assert run.roles["loss"] == "logprob"
    points, first, last, v0, _ = _series(run, "logprob")
    assert (points, first, last, v0) == (20, 1, 20, _logprob(1))
    assert run.series["logprob"].values[-1] != run.series["logprob"].values[-1]  # NaN


def _marvin_log(*, epochs: bool) -> list[str]:
    """FelixZhang00/fecnn train_output.txt @7cbc2f63 (a fork of Marvin; Marvin's own
    tools/lab_viewer/files/test.txt prints the same without ``Epoch e``): the net's layer table, then a
    ``Training: ... Testing:`` header and two columns: every 100 iterations ``Epoch 0  Iteration 100
    learning_rate = 0.0099 loss = 0.78 * 1  eval = 0.79`` at the left, every 200 the test pass's
    ``Epoch 0  Iteration 200 loss = 0.34 * 1  eval = 0.92`` indented to the right column."""
    lines = ["=" * 60, "  Training:" + " " * 76 + "Testing:", "=" * 60]
    pad = " " * (88 if epochs else 81)
    for it in range(0, 1100, 100):
        where = f"Epoch {it // 500}  " if epochs else ""
        if it % 200 == 0:
            lines.append(f"{pad}{where}Iteration {it} loss = {_test(it // 100):g} * 1  eval = 0.9   ")
        lines.append(
            f"{where}Iteration {it}  learning_rate = {0.01 * 0.99**it:g} loss = {_logprob(it // 100):g} * 1  eval = 0.95   "
        )
    return lines + ["After Train 1000 Iterations Needs Time: Time passes 22.1424 seconds"]


def test_marvin_s_test_column_is_not_the_training_loss(tmp_path):
    """Marvin's test pass prints in the right column, its lines the training lines' shape without the
    learning rate: the general line reader had taken both for training records, 17 points where 11
    are training ones. Now the right column's lines are the test loss."""
    for epochs in (True, False):
        path = tmp_path / f"train_output_{epochs}.txt"
        path.write_text("\n".join(_marvin_log(epochs=epochs)) + "\n")
        run = read_run(path)
        assert run.format == "console/marvin"
        assert run.roles["loss"] == "loss" and run.roles["eval_loss"] == "test_loss"
        assert _series(run, "loss") == (11, 0, 1000, _logprob(0), _logprob(10))
        assert _series(run, "test_loss") == (6, 0, 1000, _test(0), _test(10))
        assert _series(run, "learning_rate")[:3] == (11, 0, 1000)


def test_splits_sizes_are_no_losses(tmp_path):
    """CHARUMATHIBALA/NUTRITION-RECOMMANDATION-SYSTEM train_output.txt @2d9618c5: a retraining script
    prints each model's split sizes, ``    Train: 72044  Test: 18012``, then its scores and a
    classification report. The bare split words had named a ``Train_loss`` and a ``Test_loss`` of
    sample counts, judged as a run; whole numbers after every split word are the splits' sizes: no
    loss is read, the log is not taken for a training log. A split's decimal value stays its loss."""
    lines = []
    for k, (train, test) in enumerate([(72044, 18012), (319, 80), (1567, 392), (4100, 1025)]):
        lines += [f"  MODEL {k + 1}", f"    Train: {train}  Test: {test}", f"    Accuracy  : 0.95{k}0  [PASS]", ""]
    path = tmp_path / "train_output.txt"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(ReadError, match="not a training log"):
        read_run(path)
    path.write_text("".join(f"Epoch {e} Train: {0.9 - 0.05 * e:.4f}  Test: {1.0 - 0.04 * e:.4f}\n" for e in range(12)))
    run = read_run(path)
    assert run.roles["loss"] == "Train_loss" and run.roles["eval_loss"] == "Test_loss"
    assert _series(run, "Train_loss") == (12, 0, 11, 0.9, 0.35)
