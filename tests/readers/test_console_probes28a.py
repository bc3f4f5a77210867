"""Kinds a blind sample of outside logs (probe round 28a: small-model scripts named by their
architecture, the find_files lists for ``cnn.log``, ``mlp.log`` and ``rnn.log``, labelled before
trainlint read them) found read wrong: a Keras script calling ``fit(epochs=1)`` in its own loop
(``Epoch 1/1`` before every epoch) had read as one point, each fit taken for the same epoch 1; a
Keras 3 ``fit()`` of two epochs whose bar is redrawn on a line of its own at every batch had read as
its two epoch-final points; and TensorFlow's start-up GPU probe (``failed call to cuInit:
CUDA_ERROR_NO_DEVICE``, after which it trains on the CPU) had read as a crash. Each fixture is made
up in the shape of the real file (repository, path and commit recorded with it; no copied lines)
and asserts the series read: names, steps, first and last values, and which is the loss."""

from __future__ import annotations

from _consolekit import read_lines as _read
from _consolekit import series_ends as _series

from trainlint.api import judge

FITS = 12


def _loss(k: int) -> float:
    return round(0.30 - 0.012 * k, 4)


def _one_epoch_fits_log() -> list[str]:
    """jain-anshul/segmenting-retina-unet cnn.log @8b008ad5707787047f97e8c14407cdfaaedc3a01 (Keras 1):
    an outer loop printing its iteration and learning rate, then ``fit(epochs=1)``: ``Epoch 1/1``,
    the checkpoint callback's line, Keras 1's ``44s - loss: .. - acc: .. - val_loss: .. - val_acc: ..``,
    then the script's own evaluation prints (confusion counts, ``VALIDATION DATA``)."""
    lines = ["Check: final output of the network:", "(None, 2)"]
    for k in range(1, FITS + 1):
        lines += ["", "", f"{k}  iteration", "0.01  learning rate", "", "TRAIN DATA"]
        lines += ["Train on 9000 samples, validate on 900 samples", "Epoch 1/1"]
        lines.append(f"Epoch 00000: val_loss improved from {0.3:.5f} to {0.25 - 0.01 * k:.5f}, saving model")
        lines.append(
            f"41s - loss: {_loss(k)} - acc: {0.90 + k / 1000:.4f} - val_loss: {0.25 - 0.01 * k:.4f}"
            f" - val_acc: {0.91 + k / 1000:.4f}"
        )
        lines += ["(9000,) (9000,)", f"8100 {k}", "", "VALIDATION DATA", f"0.92 {0.25 - 0.01 * k}"]
        lines.append("Validation Loss decreased. Great work")
    return lines


def test_one_epoch_fits_in_a_loop_are_the_loops_epochs(tmp_path):
    run = _read(tmp_path, _one_epoch_fits_log(), "cnn.log")
    assert run.format == "console/keras"
    assert run.roles["loss"] == "loss" and run.roles["eval_loss"] == "val_loss"
    assert _series(run, "loss") == (FITS, 1.0, float(FITS), _loss(1), _loss(FITS))
    assert _series(run, "val_loss") == (FITS, 1.0, float(FITS), 0.24, round(0.25 - 0.01 * FITS, 4))
    assert any("fit()s of one epoch each" in note for note in run.notes)
    assert not any("falls back" in note for note in run.notes)


BATCHES = 40


def _running_mean(epoch: int, i: int) -> float:
    return round(4.6 / (1.0 + 0.02 * ((epoch - 1) * BATCHES + i)), 4)


def _keras3_bar(i: int, rest: str) -> str:
    done = "\x1b[32m" + "━" * (20 * i // BATCHES) + "\x1b[0m\x1b[37m" + "━" * (20 - 20 * i // BATCHES) + "\x1b[0m"
    return f"\x1b[1m{i:>3}/{BATCHES}\x1b[0m {done} \x1b[1m3:2{i % 10}\x1b[0m 268ms/step - {rest}"


def _two_epoch_fit_log() -> list[str]:
    """danielruijs/dd2424-project rnn.log @f61eef9ebcefa0e870a20083989eec915daea716 (Keras 3, ANSI
    colours kept): a model summary, ``Epoch k/2``, the bar redrawn on a line of its own at each
    batch (the running mean of the loss), a callback's sample text after the full bar, the bar drawn
    full again with ``val_loss``; after fit, ``evaluate()``'s bar of another total."""
    lines = ["Vocabulary size: 107", 'Model: "base_rnn"', " Total params: 1,448,811 (5.53 MB)"]
    for epoch in (1, 2):
        lines.append(f"Epoch {epoch}/2")
        lines.append("")
        lines += [_keras3_bar(i, f"loss: {_running_mean(epoch, i)}") for i in range(1, BATCHES + 1)]
        lines += [f"--- Generating text after epoch {epoch} ---", "Harry looked at the door.", "_" * 40]
        last = _running_mean(epoch, BATCHES)
        lines.append(_keras3_bar(BATCHES, f"loss: {last} - val_loss: {round(1.6 - 0.1 * epoch, 4)}"))
    lines += [f"\x1b[1m{i:>2}/9\x1b[0m ━━━━ 1s 140ms/step - loss: {1.46 + i / 100}" for i in range(1, 10)]
    return lines


def test_a_fit_of_two_epochs_is_read_at_each_redraw_of_its_bar(tmp_path):
    run = _read(tmp_path, _two_epoch_fit_log(), "rnn.log")
    assert run.format == "console/keras"
    assert run.roles["loss"] == "loss" and run.roles["eval_loss"] == "val_loss"
    last = 2 * BATCHES
    assert _series(run, "loss") == (last, 1.0, float(last), _running_mean(1, 1), _running_mean(2, BATCHES))
    assert _series(run, "val_loss") == (2, float(BATCHES), float(last), 1.5, 1.4)
    assert run.meta.get("completed") is True


def _tf_cpu_log() -> list[str]:
    """didadida-r/tf-cnn cnn.log @46f2fbbe8345bdb9bd4d9384b3a151c009f1f9b9 (TensorFlow 1 under Kaldi
    scripts): the CUDA libraries opened, ``failed call to cuInit: CUDA_ERROR_NO_DEVICE`` logged at
    error level, the diagnostics after it, then ``step N/M loss: X`` and a validation line every ten
    steps, training on the CPU to its end."""
    lines = [
        "I tensorflow/stream_executor/dso_loader.cc:135] successfully opened CUDA library libcudnn.so.5 locally",
        "E tensorflow/stream_executor/cuda/cuda_driver.cc:509] failed call to cuInit: CUDA_ERROR_NO_DEVICE",
        "I tensorflow/stream_executor/cuda/cuda_diagnostics.cc:158] retrieving CUDA diagnostic information",
        "------- training neural net ----------",
    ]
    for step in range(60):
        lines.append(f"step {step}/600 loss: {5.0 / (1 + step / 8):.6f}")
        if step % 10 == 9:
            lines.append(f"validation loss at step {step + 1}: {5.2 / (1 + step / 8):.6f}, the acc is: 0.5")
    return lines + ["------- decoding testing sets ----------"]


def test_tensorflows_gpu_probe_at_start_up_is_no_crash(tmp_path):
    run = _read(tmp_path, _tf_cpu_log(), "cnn.log")
    assert run.roles["loss"] == "loss"
    assert _series(run, "loss")[:3] == (60, 0.0, 59.0)
    assert not [ev for ev in run.events if ev.get("type") == "crash"]
    assert "TL081" not in {f.code for f in judge(run).findings}
