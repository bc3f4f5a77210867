"""Python 2's ``print`` of several values prints a tuple (``('Epoch: ', 6)``): the console reader
reads the line Python 3 would have printed of the same values (readers/console/frames.py
``py2_print``), and a list of values after a loss's name as Keras returns it (``[loss, metric]``)."""

from __future__ import annotations

import pytest
from _consolekit import read_lines as _read
from _consolekit import series_ends as _series

from trainlint.readers import ReadError
from trainlint.readers.console.frames import py2_print


def _dcgan(epochs: range) -> list[str]:
    # dcgan-theano-py2-nohup-out-1364 (calibration), rajathkmp/DCGAN dcgan.py under Python 2:
    # print('Epoch: ', epoch); every 5th epoch print('after epoch: ', epoch) and
    # print ('dcgan Loss: ', dcganLoss, '\t discriminator loss', discriminatorLoss), each loss the
    # list Keras' train_on_batch returns for a model compiled with metrics=['accuracy']: [loss, acc]
    lines = ["Using Theano backend.", "('Training Data: ', (70000, 28, 28))", "('Number of epochs: ', 200)"]
    for e in epochs:
        lines.append(f"('Epoch: ', {e})")
        if e % 5 == 0 or e == 1:
            g, d = 0.9504697322845459 + 0.001 * e, 0.5477794408798218 - 0.0001 * e
            lines.append(f"('after epoch: ', {e})")
            lines.append(
                f"('dcgan Loss: ', [array({g!r}, dtype=float32), array(0.1171875, dtype=float32)], "
                f"'\\t discriminator loss', [array({d!r}, dtype=float32), array(0.7890625, dtype=float32)])"
            )
    return lines + ["Peace"]


def test_a_keras_gan_printed_by_python_2_reads_each_models_loss_at_its_epoch(tmp_path):
    run = _read(tmp_path, _dcgan(range(1, 201)), "nohup.out")
    assert run.format == "console/general" and run.roles["loss"] == "dcgan_Loss"
    assert _series(run, "dcgan_Loss") == (41, 1.0, 200.0, 0.9504697322845459 + 0.001, pytest.approx(1.1504697))
    assert _series(run, "discriminator_loss") == (41, 1.0, 200.0, pytest.approx(0.547679), pytest.approx(0.527779))
    assert "after_epoch" not in run.series  # "after epoch: 5" is the epoch counter, not a metric
    assert not any(0.1171875 in s.values or 0.7890625 in s.values for s in run.series.values())  # the accuracies
    assert any("first of a list of values" in n for n in run.notes)


@pytest.mark.parametrize(
    ("lines", "name", "ends"),
    [
        ([f"('loss', {0.53 - 0.01 * i})" for i in range(20)], "loss", (20, 1.0, 20.0, 0.53, pytest.approx(0.34))),
        (
            [f"('Iter', {100 * i}, 'loss', {0.25 + 1.0 / i})" for i in range(1, 16)],
            "loss",
            (15, 100.0, 1500.0, 1.25, pytest.approx(0.25 + 1 / 15)),
        ),
        (
            [ln for e in range(1, 13) for ln in (f"(u'Epoch', {e})", f"(u'train loss:', {3.0 / e})")],
            "train_loss",
            (12, 1.0, 12.0, 3.0, 0.25),
        ),
    ],
    ids=["name-value", "iter-and-loss", "unicode-label-under-an-epoch-header"],
)
def test_python_2_tuple_prints_read_as_python_3_prints_them(tmp_path, lines, name, ends):
    run = _read(tmp_path, lines, "train.log")
    assert run.roles["loss"] == name and _series(run, name) == ends


def test_a_list_after_a_name_that_says_no_loss_is_not_read(tmp_path):
    # a loss, then a list under a name of its own (per-class accuracies): only the loss is read
    lines = [f"('Epoch', {e}, 'loss', {1.0 / (e + 1)}, 'class acc', [{0.5 + 0.01 * e}, 0.9, 0.7])" for e in range(20)]
    run = _read(tmp_path, lines, "train.log")
    assert _series(run, "loss") == (20, 0.0, 19.0, 1.0, 0.05) and not any("acc" in n for n in run.series)
    with pytest.raises(ReadError):  # and with no loss at all, nothing
        _read(tmp_path, [f"('Epoch', {e}, 'scores', [array({0.5 + 0.01 * e}, dtype=float32), 0.9])" for e in range(20)])


@pytest.mark.parametrize(
    "lines",
    [
        [f"('{k}', {v})" for k, v in zip(("lr", "momentum", "batch_size", "epochs", "seed", "loss_weight"), range(6))],
        [f"({i}, {i * 7 % 13})" for i in range(50)],  # tuples of ids, no label
        [f"('sample_{i}.jpg', {i % 10})" for i in range(50)],  # a dataset listing: file and label
    ],
    ids=["config-dump", "id-pairs", "file-label-listing"],
)
def test_tuple_prints_that_are_no_progress_never_become_a_run(tmp_path, lines):
    with pytest.raises(ReadError):
        _read(tmp_path, lines, "train.log")


def test_py2_print_unwraps_only_a_tuple_that_starts_with_a_string():
    assert py2_print("('Epoch: ', 6)") == "Epoch:  6"
    assert py2_print("('a, b', 'c)', 3)") == "a, b c) 3"  # commas and brackets inside strings
    assert py2_print("('\\t loss', 0.5, \"it's\")") == "\t loss 0.5 it's"
    assert py2_print("('\\x1b[31mloss\\x1b[0m', 0.5)") == "loss 0.5"  # a colour code, escaped by repr
    assert py2_print("('x',)") == "('x',)"  # a tuple of one: Python 3 prints the same
    assert py2_print("(1, 2)") == "(1, 2)"  # no label first: a value
    assert py2_print("('loss', [0.5, 0.4)") == "('loss', [0.5, 0.4)"  # not closed
    assert py2_print("(main.py 222) loss 0.5") == "(main.py 222) loss 0.5"
