"""Kinds a blind sample of outside logs (probe round 27b, classic vision: the repositories
find_files lists for ``mnist.log``, ``cifar10.log``, ``resnet.log`` and ``unet.log``, labelled
before trainlint read them) found read wrong: a logging record framed by pipes with the logger's
name before its level (``%(asctime)s | %(name)s | %(levelname)s | %(filename)s:%(funcName)s:%(lineno)d
| %(message)s``) kept its frame, so the tutorial's ``[epoch, batch]`` count no longer led the line
(the steps fell back to the records' order) and the frame's line number read as a metric. Each
fixture is made up in the shape of the real file (repository, path and commit recorded with it; no
copied lines) and asserts the series read: names, steps, first and last values, and which is the
loss."""

from __future__ import annotations

from _consolekit import read_lines as _read
from _consolekit import series_ends as _series


def _tutorial_loss(k: int) -> float:
    return round(2.3 - 0.07 * k, 3)


def _pipe_framed_tutorial_log() -> list[str]:
    """AdityaAS/gt_ice_demo cifar10.log @1eddf48b6032770081f1a85c2fd5790267dd792c: the PyTorch
    CIFAR-10 tutorial's ``[epoch, batch] loss: x`` every 2000 mini-batches, written through a
    logging handler whose format separates the time, the logger (``root``), the level and the
    place (``file.py:<module>:line``) by `` | ``; a closing ``Finished Training`` record."""
    lines = []
    for epoch in (1, 2):
        for i in range(2000, 12001, 2000):
            k = (epoch - 1) * 6 + i // 2000
            stamp = f"2022-03-0{epoch} 10:{k:02d}:11,{100 + k}"
            lines.append(
                f"{stamp} | root | INFO | cifar_train.py:<module>:88 | [{epoch}, {i:5d}] loss: {_tutorial_loss(k):.3f}"
            )
    lines.append("2022-03-02 10:59:00,001 | root | INFO | cifar_train.py:<module>:92 | Finished Training")
    return lines


def test_a_pipe_framed_record_keeps_the_tutorial_count(tmp_path):
    run = _read(tmp_path, _pipe_framed_tutorial_log(), "cifar10.log")
    assert run.format == "console/general"
    assert run.roles["loss"] == "loss"
    assert set(run.series) == {"loss"}
    # the epoch and the count inside it, counted over the epochs (12000 a epoch), not the order
    assert _series(run, "loss") == (12, 2000.0, 24000.0, _tutorial_loss(1), _tutorial_loss(12))


def _pipe_framed_step_log() -> list[str]:
    """The same frame around a step line, a dotted logger name and another level (made up after
    the cifar10.log above): the place's line number is the frame's, no metric."""
    return [
        f"2024-05-06 11:{s:02d}:00,5{s:02d} | trainer.loop | WARNING | loop.py:fit:141 | step {s * 50} lr=0.001 loss={1.9 - 0.1 * s:.2f}"
        for s in range(1, 16)
    ]


def test_a_pipe_framed_logger_name_and_place_are_no_metrics(tmp_path):
    run = _read(tmp_path, _pipe_framed_step_log())
    assert run.roles["loss"] == "loss" and run.roles["learning_rate"] == "lr"
    assert set(run.series) == {"loss", "lr"}
    assert _series(run, "loss") == (15, 50.0, 750.0, 1.8, 0.4)
