"""Kinds a blind sample of outside logs (probe round 25a: the first repositories of those find_files
lists for ``logs/train.txt``, then ``log/log.txt``, labelled before trainlint read them) found read
wrong: a Keras ``fit()`` of one epoch, which prints no ``Epoch k/N`` header, only ``Train on N
samples`` and then its bar's redraws (each with the running mean of the loss), read nothing at all:
the Keras reader places a point only at an epoch header's final redraw. Each fixture is made up in
the shape of the real file (repository, path and commit recorded with it; no copied lines) and
asserts the series read: names, steps, first and last values, and which is the loss."""

from __future__ import annotations

from _consolekit import read_lines as _read
from _consolekit import series_ends as _series

SAMPLES = 40960
BATCH = 2048


def _running_loss(fit: int, k: int) -> float:
    """The running mean after ``k`` batches of fit number ``fit``: falls from about 0.12."""
    return round(0.004 * (fit + 1) + 0.12 / (1 + 0.4 * k), 4)


def _frame(count: int, fit: int, eta: int) -> str:
    done = int(30 * count / SAMPLES)
    bar = ("=" * (done - 1) + (">" if count < SAMPLES else "=") if done else "") + "." * (30 - done)
    tail = f"ETA: {eta}s" if count < SAMPLES else "21s 512us/sample"
    return f"{count:>5}/{SAMPLES} [{bar}] - {tail} - loss: {_running_loss(fit, count // BATCH):.4f}"


def _fit_lines(fit: int, sep: str) -> list[str]:
    """One ``fit(epochs=1)``: its ``Train on`` line, a TensorFlow warning, then the redraws."""
    frames = [_frame(c, fit, (SAMPLES - c) // 1000) for c in range(BATCH, SAMPLES + 1, BATCH)]
    return [
        f"Train on {SAMPLES} samples",
        "2020-08-07 10:16:37.913284: W tensorflow/core/grappler/optimizers/implementation_selector.cc:310] Skipping",
        sep.join(frames),
        "Completed in 25.1 seconds",
    ]


def _gecko_log(sep: str) -> list[str]:
    """NCAR/gecko-ml logs/train.txt @4223355c1091fce8ea105e4c7c2e7dee0d6cc01e (tf.keras 2.0, one
    ``fit(epochs=1)`` per emulator model): a YAML warning and TensorFlow's start-up lines, then per
    model ``Train on N samples`` and the bar, its redraws run together on one line (the count
    right-aligned to N's width, so a six-digit count touches the loss before it)."""
    lines = ["train.py:31: YAMLLoadWarning: calling yaml.load() without Loader=... is deprecated"]
    for fit in range(3):
        lines += _fit_lines(fit, sep)
    return lines


def test_a_keras_fit_of_one_epoch_reads_its_redraws(tmp_path):
    run = _read(tmp_path, _gecko_log(""), "train.txt")
    assert run.format == "console/keras" and run.roles["loss"] == "loss"
    per_fit = SAMPLES // BATCH
    n, s0, s1, v0, v1 = _series(run, "loss")
    assert (n, s0, s1) == (3 * per_fit, float(BATCH), float(SAMPLES))
    assert (v0, v1) == (_running_loss(0, 1), _running_loss(2, per_fit))
    steps = list(run.series["loss"].steps)
    assert steps[: per_fit + 1] == [float(c) for c in range(BATCH, SAMPLES + 1, BATCH)] + [float(BATCH)]


def test_redraws_each_after_a_carriage_return_read_the_same(tmp_path):
    run = _read(tmp_path, _gecko_log("\r"), "train.txt")
    assert run.format == "console/keras" and run.roles["loss"] == "loss"
    assert _series(run, "loss")[:3] == (3 * (SAMPLES // BATCH), float(BATCH), float(SAMPLES))


def test_an_evaluate_bar_after_the_fit_is_not_read(tmp_path):
    lines = _fit_lines(0, "")
    lines.append("".join(_frame(c, 5, 1).replace("loss: ", "loss: 9") for c in (BATCH, SAMPLES)))
    run = _read(tmp_path, lines, "train.txt")
    n, _, s1, _, v1 = _series(run, "loss")
    assert (n, s1, v1) == (SAMPLES // BATCH, float(SAMPLES), _running_loss(0, SAMPLES // BATCH))


def _glow_log(epochs: int) -> list[str]:
    """Donmiao/glow logs/train.txt @a30d2f320c2820e3042f619f01a58a9aed81f19a (openai/glow's
    train.py; WillDreamer/Glow @b54911d952161f0c29677f61b2b3d1b018ed9c83 the same): the
    hyperparameters as one JSON line, then one JSON line per epoch whose counts are numbers but
    whose loss and bits are strings formatted to four places."""
    lines = ['{"verbose": false, "problem": "mnist", "n_batch_train": 64, "lr": 0.001, "epochs": 40, "seed": 0}']
    for e in range(1, epochs + 1):
        loss = 4.2 - 0.05 * e
        lines.append(
            f'{{"epoch": {e}, "n_processed": {50176 * e}, "n_images": {50176 * e}, "train_time": {90 * e}, '
            f'"loss": "{loss:.4f}", "bits_x": "{loss:.4f}", "bits_y": "0.0000", "pred_loss": "1.0000"}}'
        )
    return lines


def test_a_loss_written_as_a_string_among_numbers_is_read(tmp_path):
    run = _read(tmp_path, _glow_log(30), "train.txt")
    assert run.format == "jsonl" and run.roles["loss"] == "loss"
    n, s0, s1, v0, v1 = _series(run, "loss")
    assert (n, v0, v1) == (30, 4.15, 2.7)
    assert s1 - s0 == 29.0 and "n_images" in run.series
    assert not any(note.startswith("loss: ") for note in run.notes)
