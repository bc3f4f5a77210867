"""Kinds a blind sample of outside logs (probe round 20d: the first repositories find_files lists for
``output.log``, ``training.txt``, ``log.out`` and ``logs/run.log``) found unread: spaCy v2's training
loop printing its losses dict, a running sum over each epoch's batches (``Losses {'ner': 172.94}``).
Each fixture is made up in the shape of the real file (repository, path and commit recorded with it;
no copied lines) and asserts the series read: names, steps, first and last values, and which is the
loss."""

from __future__ import annotations

from _consolekit import series_ends as _series

from trainlint.api import read_run

EPOCHS = 4
BATCHES = 15


def _batch(e: int, b: int) -> float:
    """A batch's loss: falls over the epochs, a little noise over the batches."""
    return round(40.0 * 0.5**e + 0.25 * (b % 3), 4)


def _running(e: int, b: int) -> float:
    return round(sum(_batch(e, i) for i in range(b + 1)), 4)


def _spacy_v2_log() -> list[str]:
    """0kamrulhasan0/Date-Entity-Recognition output.log @c07d3ee7: ``Training Start !``, then
    ``print("Losses", losses)`` after every ``nlp.update`` (the dict emptied at each epoch's start, so
    each value is the epoch's sum so far), then ``Training End !``, ``Saved model to  model`` and a
    table of predictions."""
    lines = ["Training Start !"]
    for e in range(EPOCHS):
        lines += [f"Losses {{'ner': {_running(e, b)}}}" for b in range(BATCHES)]
    return [*lines, "Training End !", "Saved model to  model", "Compare Negative Data Points:", "-" * 50]


def test_spacy_v2_running_losses_are_read_as_each_batch_s_loss(tmp_path):
    """Unread before (no known training-progress lines); now each line is a batch: its loss the rise of
    the running sum from the line before, a fall of the sum an epoch's start."""
    path = tmp_path / "output.log"
    path.write_text("\n".join(_spacy_v2_log()) + "\n")
    run = read_run(path)
    assert run.format == "console/spacy-v2"
    assert run.roles["loss"] == "loss_ner"
    n, first_step, last_step, first, last = _series(run, "loss_ner")
    assert (n, first_step, last_step) == (EPOCHS * BATCHES, 1.0, EPOCHS * BATCHES)
    assert first == _batch(0, 0) and abs(last - _batch(EPOCHS - 1, BATCHES - 1)) < 1e-6
    mid = run.series["loss_ner"].values[BATCHES]  # the second epoch's first batch: its own value
    assert abs(mid - _batch(1, 0)) < 1e-6
    assert _series(run, "epoch")[2:] == (EPOCHS * BATCHES, 1.0, float(EPOCHS))


def test_spacy_v2_losses_printed_once_an_epoch_are_read_as_they_are(tmp_path):
    """The same loop printing after each epoch (``print("Losses", losses)`` outside the batch loop, two
    pipes trained): each value is the epoch's, the loss the pipes' sum."""
    epochs = 12
    lines = [f"Losses at iteration {e}: {{'tagger': {_batch(e, 0)}, 'ner': {_batch(e, 1)}}}" for e in range(epochs)]
    path = tmp_path / "train.log"
    path.write_text("\n".join(lines) + "\n")
    run = read_run(path)
    assert run.format == "console/spacy-v2"
    assert run.roles["loss"] == "loss_tagger+loss_ner"
    assert _series(run, "loss_ner") == (epochs, 1.0, float(epochs), _batch(0, 1), _batch(epochs - 1, 1))
    assert _series(run, "loss_tagger") == (epochs, 1.0, float(epochs), _batch(0, 0), _batch(epochs - 1, 0))
    assert "epoch" not in run.series
