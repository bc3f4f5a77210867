"""Kinds a blind sample of outside logs (probe round 32d: a mechanical scan of repositories 30 on of
those find_files lists for ``train.log``, labelled before trainlint read them) found read or judged
wrong: a logging module's ``Epoch: e/50, Iteration step: N, loss: x`` had read its steps from the
order of the records (``Iteration step`` was a metric, not the step), so three runs appended to one
file (the step counter back at its first value at each launch) read as one run; read at their own
steps, the third run (resumed from the first one's checkpoint after a launch cut off after two
logged steps) had been judged a dead run started afresh. Each fixture is made up in the shape of
the real file (repository, path and commit recorded with it; no copied lines) and asserts the
series read: names, steps, first and last values, and which is the loss."""

from __future__ import annotations

from _consolekit import read_lines as _read
from _consolekit import series_ends as _series

from trainlint.api import judge

EVERY = 500  # iterations between two logged losses
PER_EPOCH = 2


def _loss(k: int, start: float = 6.0, rate: float = 0.99) -> float:
    """The loss at the ``k``-th logged step of a run: from ``start`` down by ``rate`` a step, a little noisy."""
    return round(start * rate**k + 0.05 * (k % 3), 4)


def _launch(epochs: int, logged: int, start: float, rate: float, day: int) -> list[str]:
    """One launch's logging lines: ``logged`` losses at ``EVERY`` iterations apart, the step counter
    from ``EVERY``; after each epoch's losses its top-1 and top-5 accuracies."""
    lines: list[str] = []
    for k in range(1, logged + 1):
        e = (k - 1) // PER_EPOCH
        stamp = f"2024-03-{day:02d} 10:{k % 60:02d}:07,415 INFO:"
        lines.append(f"{stamp} Epoch: {e}/{epochs}, Iteration step: {k * EVERY}, loss: {_loss(k, start, rate)}")
        if k % PER_EPOCH == 0:
            lines.append(f"{stamp} ==============Epoch: {e}/{epochs},top 1 acc: 0.{10 + e}==============")
            lines.append(f"{stamp} ==============Epoch: {e}/{epochs},top 5 acc: 0.{30 + e}==============")
    return lines


def _classifier_log() -> list[str]:
    """AnyaForger198517/DeepLearning-Homework train.log @2bad41af40f3a18f59d47f1f33a2e969b008b04e
    (an image classifier's Python logging lines): a 50-epoch run stopped in its 30th epoch, a
    12-epoch launch cut off after two losses, then a 20-epoch run resumed from the first one's
    weights (its loss where the first run ended), the iteration step back at its first value at
    each launch."""
    return _launch(50, 60, 6.0, 0.99, 1) + _launch(12, 2, 3.3, 0.999, 3) + _launch(20, 40, 3.3, 0.999, 5)


def test_an_iteration_step_is_the_step_and_each_launch_a_segment(tmp_path):
    run = _read(tmp_path, _classifier_log())
    assert run.format == "console/general"
    assert run.roles["loss"] == "loss"
    assert "Iteration_step" not in run.series
    assert _series(run, "loss") == (102, float(EVERY), 40.0 * EVERY, _loss(1), _loss(40, 3.3, 0.999))
    findings = {f.code: f for f in judge(run).findings}
    assert findings["TL095"].evidence["segments"] == 3


def test_a_run_resumed_after_a_cut_off_launch_continues_the_first(tmp_path):
    run = _read(tmp_path, _classifier_log())
    findings = {f.code: f for f in judge(run).findings}
    dead = findings["TL031"]
    assert dead.severity == "NOTE" and dead.evidence["segment"] == 3
    assert abs(dead.evidence["previous_segment_end"] - _loss(58)) < 0.2
