"""Shapes found by a blind sample of outside logs (issue 29, probe round 19a): the first logs
find_files lists at ``out.log``, ``run.log`` and ``train.out``, labelled before trainlint read
them. Each fixture is made up in the shape of the real file (repository, path and commit recorded
with it; no copied lines) and asserts the series read: names, steps, first and last values, and
which is the loss."""

from __future__ import annotations

from _consolekit import series_ends as _series

from trainlint.api import read_run


def _epochs(lines: list[str], epochs: int, batches: int, every: int, scale: float) -> None:
    for e in range(1, epochs + 1):
        lines.append(f"Epoch: {e:03d}/{epochs:03d} | Current Learning Rate: 0.010000")
        for b in range(0, batches, every):
            lines.append(
                f"Epoch: {e:03d}/{epochs:03d} | Batch {b:04d}/{batches:04d} | Loss: {scale / (e + b / 100):.4f}"
            )
        lines.append(f"**Epoch: {e:03d}/{epochs:03d} | Train. Acc.: {90 + e * 0.4:.3f}% | Loss: {0.2 / e:.4f}")
        lines.append(f"**Epoch: {e:03d}/{epochs:03d} | Test. Acc.: {92 + e * 0.3:.3f}% | Loss: {0.1 / e:.4f}")
        lines.append(f"Time elapsed: {0.5 * e:.2f} min")


def test_a_test_line_twin_of_a_train_line_holds_the_evaluation_loss(tmp_path):
    """PiakoCode/Handwritten-Digit-Recognition train.out @7e252bfd: batch lines ``Epoch: 001/020 |
    Batch 0050/0469 | Loss: 0.4454``, then after each epoch ``**Epoch: 001/020 | Train. Acc.: 95.060%
    | Loss: 0.1574`` and ``**Epoch: 001/020 | Test. Acc.: 97.430% | Loss: 0.0829``: two lines alike but
    for the split word on the accuracy. The test line's bare ``Loss`` had been merged into the
    training loss; it is the evaluation loss, and the train line sums up the epoch's batches."""
    lines = ["python train.py", "now using device:  cuda", "Training ResNet18 for 12 epochs with lr 0.01..."]
    _epochs(lines, 12, 469, 50, 2.0)
    path = tmp_path / "train.out"
    path.write_text("\n".join(lines) + "\n")
    run = read_run(path)
    assert run.format == "console/general"
    assert run.roles["loss"] == "Loss" and run.roles["eval_loss"] == "eval_Loss"
    n, s0, _s1, v0, v1 = _series(run, "Loss")
    assert (n, s0, v0, v1) == (120, 0.0, 2.0, round(2.0 / (12 + 450 / 100), 4))
    n, _s0, _s1, v0, v1 = _series(run, "eval_Loss")
    assert (n, v0, v1) == (12, 0.1, round(0.1 / 12, 4))
    assert _series(run, "summary_Loss")[0] == 12 and _series(run, "Test._Acc")[0] == 12


def test_a_lone_test_line_beside_the_batch_lines_stays_as_it_was(tmp_path):
    """Without its training twin a less printed shape holding the loss keeps today's reading (its
    names half the main shape's): the twin rule needs both lines."""
    lines = []
    for e in range(1, 13):
        for b in range(0, 400, 50):
            lines.append(f"Epoch: {e:03d}/012 | Batch {b:04d}/0400 | Loss: {2.0 / (e + b / 100):.4f}")
        lines.append(f"**Epoch: {e:03d}/012 | Test. Acc.: {92 + e * 0.3:.3f}% | Loss: {0.1 / e:.4f}")
    path = tmp_path / "train.out"
    path.write_text("\n".join(lines) + "\n")
    run = read_run(path)
    assert run.roles["loss"] == "Loss" and "eval_Loss" not in run.series
