"""Kinds a blind sample of outside logs (probe round 29c: console logs named after the framework that
wrote them, ``tensorflow.log``, ``pytorch.log``, ``keras.log``, ``deepspeed.log``, ``megatron.log``,
``train_ddp.log``, labelled before trainlint read them) found unread or read with the wrong steps:

- TensorFlow's speech_commands ``train.py`` line, ``Step #N: rate R, accuracy A%, cross entropy X``:
  the count behind a number sign was no counter, and ``cross entropy`` printed before its value with a
  space read as ``entropy`` (no loss), so the log was unread;
- Keras' ``history.history`` printed through a logger whose frame is not Python logging's usual one
  (``<time> -<logger>-INFO-<module>:{'val_loss': [..], 'loss': [..]}``): the dict was looked for only
  at the line's start, so the log was unread;
- ``iteration index: N, batch loss: X``: the count named ``iteration index`` was a metric, so the
  steps came from the order of the records.

Each fixture is made up in the shape of the real file (repository, path and commit recorded with it;
no copied lines) and asserts the series read: names, steps, first and last values, and which is the
loss."""

from __future__ import annotations

from _consolekit import read_lines as _read
from _consolekit import series_ends as _series

STEPS = 60


def _xent(step: int) -> float:
    """A keyword-spotting model's cross entropy: from 2.5 down towards 1.5."""
    return round(1.5 + 1.0 / (1.0 + step / 20.0), 6)


def _kws_log() -> list[str]:
    """purice93/ML-KWS-for-MCU tensorflow.log @0c318fea61d571f4686e9cee5b9931cb5360fd4b (TensorFlow's
    speech_commands train.py through a ``%(asctime)s - %(name)s - %(levelname)s - %(message)s``
    logger): deprecation warnings, ``Training from step: 0``, then a ``Step #N:`` line a step
    (the learning rate as ``rate``, the batch accuracy in percent, the loss as ``cross entropy``),
    and at step 0 a confusion matrix and a validation accuracy line."""
    head = "2021-03-02 09:15:{:02d},100 - tensorflow - {} - {}"
    lines = [
        head.format(0, "WARNING", "From train.py:80: The name tf.Session is deprecated."),
        head.format(1, "INFO", "Training from step: 0 "),
    ]
    for step in range(STEPS):
        acc = 10.0 + step
        body = f"Step #{step}: rate 0.001000, accuracy {acc:.2f}%, cross entropy {_xent(step):.6f}"
        lines.append(head.format(step % 60, "INFO", body))
        if step == 0:
            lines.append(head.format(2, "INFO", "Confusion Matrix:"))
            lines.append(" [[ 12   0   3]")
            lines.append(" [  4   9   0]]")
            lines.append(head.format(3, "INFO", "Step 0: Validation accuracy = 9.00% (N=3000)"))
    return lines


def test_a_step_behind_a_number_sign_and_cross_entropy_written_apart(tmp_path):
    run = _read(tmp_path, _kws_log(), "tensorflow.log")
    assert run.roles["loss"] == "cross_entropy"
    assert _series(run, "cross_entropy") == (STEPS, 0.0, float(STEPS - 1), _xent(0), _xent(STEPS - 1))
    assert _series(run, "accuracy")[:3] == (STEPS, 0.0, float(STEPS - 1))


def _history_line(epochs: int) -> str:
    """A Keras ``History.history`` printed as Python prints a dict: the validation lists first."""
    val = [round(3.0 + 0.25 * e, 4) for e in range(epochs)]
    loss = [round(1.2 / (1.0 + 0.3 * e), 4) for e in range(epochs)]
    acc = [round(0.6 + 0.02 * e, 4) for e in range(epochs)]
    return f"{{'val_loss': {val}, 'val_acc': {[0.2] * epochs}, 'loss': {loss}, 'acc': {acc}}}"


def _relic_log() -> list[str]:
    """liguoliguoli/keras_on_relic keras.log @73dacaa2cea5178dc1e02eafbd7d02554bbece2c (a Keras
    transfer-learning script's logger, format ``%(asctime)s -%(name)s-%(levelname)s-%(module)s:%(message)s``):
    its settings one a line (``name   :   value``), errors of failed attempts, then the fit's
    ``history.history`` on one line, then ``evaluate()``'s ``[loss, acc]``."""
    frame = "2019-04-02 10:{:02d}:07,311 -relic_cls-{}-transfer_learning:{}"
    lines = [frame.format(0, "INFO", f"{name:<20}:   {value}") for name, value in (("batch_size", 16), ("epoches", 8))]
    lines.append(frame.format(1, "ERROR", "Error when checking target: expected dense_2 to have shape (None, 10)"))
    lines.append(frame.format(5, "INFO", _history_line(8)))
    lines.append(frame.format(6, "INFO", "[0.5131, 0.8275]"))
    return lines


def test_a_printed_history_behind_a_logging_frame(tmp_path):
    run = _read(tmp_path, _relic_log(), "keras.log")
    assert run.format == "console/history-dict"
    assert run.roles["loss"] == "loss" and run.roles["eval_loss"] == "val_loss"
    assert _series(run, "loss") == (8, 1.0, 8.0, 1.2, round(1.2 / 3.1, 4))
    assert _series(run, "val_loss") == (8, 1.0, 8.0, 3.0, 4.75)


def _batch_loss(i: int) -> float:
    return round(40.0 + 160.0 / (1.0 + i / 100.0), 6)


def _sign_log() -> list[str]:
    """WayenVan/sign_language_rgb train_ddp.log @c90c92cf42361fa83ec6afd551697058958a1c0d (a Hydra
    logger, ``[time][main.Trainner][INFO] - ``): before each logged batch the GPU memory, then
    ``iteration index: N, batch loss: X`` every hundred iterations (here one launch that ran on)."""
    frame = "[2024-05-11 08:{:02d}:{:02d},120][main.Trainer][INFO] - {}"
    lines = [frame.format(0, 0, "epoch 0, lr=[0.0001]")]
    for k, i in enumerate(range(0, 1500, 100)):
        lines.append(frame.format(k // 60, k % 60, f"max memory: {2100000000 + k}, memory: 1363976704"))
        lines.append(frame.format(k // 60, k % 60, f"iteration index: {i}, batch loss: {_batch_loss(i)}"))
    return lines


def test_an_iteration_index_is_the_step(tmp_path):
    run = _read(tmp_path, _sign_log(), "train_ddp.log")
    assert run.roles["loss"] == "batch_loss"
    assert _series(run, "batch_loss") == (15, 0.0, 1400.0, _batch_loss(0), _batch_loss(1400))
    assert "iteration_index" not in run.series
