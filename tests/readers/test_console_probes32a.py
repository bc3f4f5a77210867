"""Kinds a blind sample of outside logs (probe round 32a: log-like files naming a loss ten times or
more, found by a scan of mirrored repositories; ``logs/slurm-3652.out`` and ``logs/slurm-3937.out``
of FalsoMoralista/FGDCC, two W&B ``output.log`` captures and a ``bert.log``, labelled before
trainlint read them) found read wrong: the I-JEPA logger's family, whose counter carries its total
(``[1,   100/ 2562]``) and whose values are bracketed ``[name: value]`` pairs, had read no loss at
all: the counter and every pair after it were stripped as a logger's frame. Each fixture is made up
in the shape of the real file (repository, path and commit recorded with it; no copied lines) and
asserts the series read: names, steps, first and last values, and which is the loss."""

from __future__ import annotations

from _consolekit import read_lines as _read
from _consolekit import series_ends as _series

from trainlint.readers.console.general.lines import strip_frame

ITERS = 1200  # the loader's length, printed as the counter's total
EVERY = 200  # a line every 200 iterations
EPOCHS = 3


def _ae_loss(k: int) -> float:
    """The reconstruction loss at the ``k``-th printed line: from about 2.1 down towards 1.4."""
    return round(1.4 + 0.7 * 0.85**k, 4)


def _ijepa_family_log() -> list[str]:
    """FalsoMoralista/FGDCC logs/slurm-3652.out @a03fc85880b1e40b23dee7ec0049c661aa6f663d (an I-JEPA
    fork's autoencoder stage): a root-logger line every 100 iterations, ``[epoch, i/ n]``, a dash,
    a bracketed phase tag, then the loss, the learning rate and the memory as bracketed
    ``[name: value]`` pairs and the step time in parentheses; an epoch header between epochs."""
    lines = ["INFO:root:loaded params...", "Training"]
    k = 0
    for e in range(1, EPOCHS + 1):
        lines.append(f"INFO:root: - - Epoch: {e} - - ")
        for i in range(0, ITERS, EVERY):
            lines.append(
                f"INFO:root:[{e}, {i:5d}/ {ITERS}] - [Stage Training] [Stage Loss: {_ae_loss(k):.4f}] "
                f"[stage lr: {1.5e-4 + 1e-6 * k:.2e}][mem: 7.98e+03]({310.0 - k / 10:.1f} ms)"
            )
            k += 1
    return lines


def test_an_epoch_count_with_its_total_and_bracketed_pairs_are_read(tmp_path):
    run = _read(tmp_path, _ijepa_family_log(), "slurm-1.out")
    assert run.roles["loss"] == "Stage_Loss"
    points = EPOCHS * ITERS // EVERY
    last_step = float((EPOCHS - 1) * ITERS + ITERS - EVERY)
    assert _series(run, "Stage_Loss") == (points, 0.0, last_step, _ae_loss(0), _ae_loss(points - 1))


def test_a_bracketed_pair_with_a_decimal_value_is_no_frame():
    # the same family's pairs first on a line: a record, kept; a whole-number "[rank: 0]" stays a frame
    assert strip_frame("INFO:root:[rank: 0] [Stage Loss: 1.9905] [stage lr: 1.51e-04]") == (
        "[Stage Loss: 1.9905] [stage lr: 1.51e-04]"
    )
    assert strip_frame("[loss: nan] [grad: inf]") == "[loss: nan] [grad: inf]"
