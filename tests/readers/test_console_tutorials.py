"""Training loops copied verbatim from tutorials and courses, print statement and all (issue 29, round 9):
each fixture is built from the exact format string of the widely copied source (repository and path
recorded with it; the format facts only, no code), each asserting the series read: names, steps,
first and last values. Stand-down tests keep the lookalikes unread."""

from __future__ import annotations

import time

import pytest
from _consolekit import read_lines as _read
from _consolekit import series_ends as _series

from trainlint.readers import ReadError


def _loss(k: int) -> float:
    return round(2.3 * 0.95**k, 4)


def test_keras_guide_training_loop_from_scratch(tmp_path):
    """keras-team/keras-io guides/writing_a_training_loop_from_scratch.py (and the TensorFlow guide it
    replaced, copied into many repositories): print("\\nStart of epoch %d" % (epoch,)), every 200 steps
    print("Training loss (for one batch) at step %d: %.4f" % (step, float(loss_value))) and
    print("Seen so far: %s samples" % ((step + 1) * batch_size)), then "Training acc over epoch: %.4f",
    "Validation acc: %.4f", "Time taken: %.2fs". The step counts inside the epoch: the epoch header
    places it."""
    lines = []
    for e in range(3):
        lines += ["", "Start of epoch %d" % (e,)]
        for s in range(0, 800, 200):
            lines.append("Training loss (for one batch) at step %d: %.4f" % (s, _loss(4 * e + s // 200)))
            lines.append("Seen so far: %s samples" % ((s + 1) * 64))
        lines += ["Training acc over epoch: %.4f" % (0.8 + e / 100), "Validation acc: %.4f" % (0.79 + e / 100)]
        lines.append("Time taken: %.2fs" % 3.21)
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "Training_loss"
    # the epoch's length is not printed: its last step and one printing interval more (800)
    assert _series(run, "Training_loss") == (12, 0.0, 2200.0, 2.3, _loss(11))
    assert list(run.series["Training_loss"].steps[3:6]) == [600.0, 800.0, 1000.0]


def test_an_aside_before_a_counter_that_places_a_name(tmp_path):
    # the guide's older wording ("for 1 batch"), the step given as %s
    lines = ["Training loss (for 1 batch) at step %s: %s" % (s, _loss(s // 100)) for s in range(0, 1200, 100)]
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "Training_loss" and "for" not in run.series
    assert _series(run, "Training_loss") == (12, 0.0, 1100.0, 2.3, _loss(11))


def makemore_lines(pad: bool = True) -> list[str]:
    """karpathy/nn-zero-to-hero lectures/makemore (part 3 onwards, copied into many notebooks):
    print(f'{i:7d}/{max_steps:7d}: {loss.item():.4f}') every 10000 steps."""
    if pad:
        return [f"{i:7d}/{200000:7d}: {_loss(i // 10000):.4f}" for i in range(0, 200000, 10000)]
    return [f"{i}/{20}: {_loss(i):.4f}" for i in range(20)]


def test_makemore_loss_without_a_name(tmp_path):
    run = _read(tmp_path, ["torch.Size([182625, 3]) torch.Size([182625])", "12097", *makemore_lines()])
    assert run.format == "console/karpathy-makemore" and run.roles["loss"] == "loss"
    assert _series(run, "loss") == (20, 0.0, 190000.0, 2.3, _loss(19))
    assert run.meta["max_steps"] == 200000


def test_a_count_and_a_value_without_the_lectures_padding_is_not_read(tmp_path):
    # "3/20: 0.8123" (a fold's, a file's or a class's score) names nothing: no loss is guessed
    with pytest.raises(ReadError):
        _read(tmp_path, makemore_lines(pad=False))


def _charrnn(global_count: bool) -> list[str]:
    out = []
    for e in range(3):
        for b in range(0, 50, 5):
            n, total = (e * 50 + b, 3 * 50) if global_count else (b, 50)
            out.append(f"{n}/{total} (epoch {e}), train_loss = {_loss(e * 10 + b // 5):.3f}, time/batch = {0.05:.3f}")
    return out


def test_char_rnn_tensorflow_count_across_epochs(tmp_path):
    """sherjilozair/char-rnn-tensorflow train.py: print("{}/{} (epoch {}), train_loss = {:.3f}, time/batch =
    {:.3f}".format(e * num_batches + b, num_epochs * num_batches, e, train_loss, end - start)): the count
    goes on across epochs, it is the step."""
    run = _read(tmp_path, _charrnn(global_count=True))
    assert run.roles["loss"] == "train_loss"
    assert _series(run, "train_loss") == (30, 0.0, 145.0, 2.3, pytest.approx(_loss(29), abs=5e-4))


def test_char_rnn_copies_counting_inside_the_epoch(tmp_path):
    # the copies that print "{b}/{num_batches} (epoch {e})": the count starts again each epoch
    run = _read(tmp_path, _charrnn(global_count=False))
    assert _series(run, "train_loss") == (30, 0.0, 145.0, 2.3, pytest.approx(_loss(29), abs=5e-4))
    assert list(run.series["train_loss"].steps[9:11]) == [45.0, 50.0]


def test_pytorch_quickstart_test_error_block(tmp_path):
    """pytorch/tutorials beginner_source/basics/quickstart_tutorial.py (and optimization_tutorial.py):
    print(f"Epoch {t+1}\\n-------------------------------"), print(f"loss: {loss:>7f}  [{current:>5d}/{size:>5d}]")
    every 100 batches, and test()'s print(f"Test Error: \\n Accuracy: {(100*correct):>0.1f}%, Avg loss:
    {test_loss:>8f} \\n"): the split is named on the line before the values."""
    text = []
    for t in range(5):
        text.append(f"Epoch {t + 1}\n-------------------------------")
        for b in range(0, 938, 100):
            text.append(f"loss: {_loss(10 * t + b // 100):>7f}  [{b * 64:>5d}/{60000:>5d}]")
        text.append(f"Test Error: \n Accuracy: {(50.0 + t):>0.1f}%, Avg loss: {_loss(10 * t + 9) + 0.1:>8f} \n")
    run = _read(tmp_path, "\n".join([*text, "Done!"]).split("\n"))
    assert run.roles["loss"] == "loss" and run.roles["eval_loss"] == "Test_Avg_loss"
    assert _series(run, "loss") == (50, 0.0, 297600.0, 2.3, _loss(49))
    assert _series(run, "Test_Avg_loss") == (5, 57600.0, 297600.0, pytest.approx(_loss(9) + 0.1), _loss(49) + 0.1)
    assert run.series["Test_Accuracy"].values[-1] == 54.0


def test_a_split_title_names_only_the_line_right_after_it(tmp_path):
    # "Validation:" then a line that names its own split, then training lines: nothing renamed twice, and
    # the training lines after it stay training lines
    lines = []
    for e in range(1, 13):
        lines += [f"epoch {e} loss: {_loss(e):.4f}", "Validation:", f"val_loss: {_loss(e) + 0.2:.4f}"]
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "loss" and run.roles["eval_loss"] == "val_loss"
    assert _series(run, "loss") == (12, 1.0, 12.0, _loss(1), _loss(12))
    assert not any(n.startswith("Validation_") or n.startswith("val_val") for n in run.series)


def test_pytorch_examples_vae(tmp_path):
    """pytorch/examples vae/main.py: the MNIST example's 'Train Epoch: {} [{}/{} ({:.0f}%)]\\tLoss: {:.6f}',
    then '====> Epoch: {} Average loss: {:.4f}' and '====> Test set loss: {:.4f}' each epoch."""
    lines = []
    for e in range(1, 11):
        for b in range(0, 469, 50):
            k = e * 10 + b // 50
            lines.append(f"Train Epoch: {e} [{b * 128}/60000 ({100.0 * b / 469:.0f}%)]\tLoss: {100 * _loss(k):.6f}")
        lines.append(f"====> Epoch: {e} Average loss: {100 * _loss(e * 10 + 5):.4f}")
        lines.append(f"====> Test set loss: {100 * _loss(e * 10 + 9) + 2:.4f}")
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "loss" and run.roles["eval_loss"] == "test_loss"
    assert _series(run, "test_loss") == (
        10,
        60000.0,
        600000.0,
        pytest.approx(100 * _loss(19) + 2),
        pytest.approx(100 * _loss(109) + 2),
    )
    assert _series(run, "loss")[:3] == (100, 0.0, 597600.0)


def test_pytorch_examples_fast_neural_style(tmp_path):
    """pytorch/examples fast_neural_style/neural_style/neural_style.py: "{}\\tEpoch {}:\\t[{}/{}]\\tcontent:
    {:.6f}\\tstyle: {:.6f}\\ttotal: {:.6f}".format(time.ctime(), e + 1, count, len(train_dataset), ...): the
    total (content + style) is what is minimised."""
    stamp = time.ctime(0)
    lines = [
        f"{stamp}\tEpoch {e}:\t[{c}/83000]\tcontent: {50 * _loss(k):.6f}\tstyle: {30 * _loss(k):.6f}\ttotal: {80 * _loss(k):.6f}"
        for k, (e, c) in enumerate((e, c) for e in (1, 2) for c in range(4000, 84000, 8000))
    ]
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "loss"
    assert _series(run, "loss") == (20, 4000.0, 159000.0, pytest.approx(80 * 2.3), pytest.approx(80 * _loss(19)))
    assert run.series["style_loss"].values[0] == pytest.approx(30 * 2.3)


def test_udacity_values_ending_in_an_ellipsis(tmp_path):
    """udacity/deep-learning-v2-pytorch recurrent-neural-networks/char-rnn: print("Epoch: {}/{}...".format(e+1,
    epochs), "Step: {}...".format(counter), "Loss: {:.4f}...".format(loss.item()), "Val Loss:
    {:.4f}".format(np.mean(val_losses))): the training loss is the one followed by dots."""
    lines = [
        f"Epoch: {c // 100 + 1}/{20}..."
        + f" Step: {c}..."
        + f" Loss: {_loss(c // 10):.4f}..."
        + f" Val Loss: {_loss(c // 10) + 0.1:.4f}"
        for c in range(10, 310, 10)
    ]
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "Loss" and run.roles["eval_loss"] == "Val_Loss"
    assert _series(run, "Loss") == (30, 10.0, 300.0, _loss(1), _loss(30))


def test_udacity_part3_two_dots(tmp_path):
    """udacity/deep-learning-v2-pytorch intro-to-pytorch Part 5/8: print("Epoch: {}/{}.. ".format(e+1, epochs),
    "Training Loss: {:.3f}.. ".format(..), "Test Loss: {:.3f}.. ".format(..), "Test Accuracy: {:.3f}".format(..))."""
    lines = [
        f"Epoch: {e + 1}/{30}.. "
        + f" Training Loss: {_loss(e):.3f}.. "
        + f" Test Loss: {_loss(e) + 0.1:.3f}.. "
        + f" Test Accuracy: {0.8:.3f}"
        for e in range(30)
    ]
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "Training_Loss" and run.roles["eval_loss"] == "Test_Loss"
    assert _series(run, "Training_Loss") == (30, 1.0, 30.0, 2.3, pytest.approx(_loss(29), abs=5e-4))


def test_a_version_number_is_no_value_with_an_ellipsis():
    from trainlint.readers.console.general import read_line

    assert read_line("torch version 1.13.1 loss 0.5").values == {"loss": 0.5}


def test_tensorflow_tutorials_epoch_summary_after_the_batch_lines(tmp_path):
    """tensorflow/docs site/en/tutorials/text/nmt_with_attention (and the transformer tutorial of TF 2.0-2.4):
    print(f'Epoch {epoch + 1} Batch {batch} Loss {batch_loss.numpy():.4f}') every 100 batches, then
    print(f'Epoch {epoch + 1} Loss {total_loss / steps_per_epoch:.4f}') and 'Time taken for 1 epoch {:.2f} sec\\n':
    the epoch's line in the batch lines' shape sums them up, it is no training point."""
    lines = []
    for e in range(10):
        for b in range(0, 400, 100):
            lines.append(f"Epoch {e + 1} Batch {b} Loss {_loss(4 * e + b // 100):.4f}")
        lines += [f"Epoch {e + 1} Loss {_loss(4 * e + 2):.4f}", f"Time taken for 1 epoch {12.3:.2f} sec", ""]
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "Loss"
    assert _series(run, "Loss") == (40, 0.0, 3900.0, 2.3, _loss(39))
    assert len(run.series["summary_Loss"].values) == 10


def test_epoch_lines_without_batch_lines_stay_the_training_series(tmp_path):
    # "Epoch 3 Loss 0.5" alone (no batch lines): each line is a training point
    run = _read(tmp_path, [f"Epoch {e} Loss {_loss(e):.4f}" for e in range(1, 13)])
    assert _series(run, "Loss") == (12, 1.0, 12.0, _loss(1), _loss(12))
