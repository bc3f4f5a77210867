"""Kinds a blind sample of outside logs (probe round 22c: the first repositories find_files lists for
``pretrain.log`` and ``train_history.txt``, labelled before trainlint read them) found read wrong:
a line that says how long an epoch took (``Time taken for 1 epoch 658.69 sec``, TensorFlow's
seq2seq tutorials) had given a series named ``epoch``, taken as the epoch counter, holding seconds,
and a series ``for`` of ones; a ``heldout=`` value beside ``train=`` was no eval loss; a gradient
norm written in bars (``|g| 4.55``) was unread. Each fixture is made up in the shape of the real
file (repository, path and commit recorded with it; no copied lines) and asserts the series read:
names, steps, first and last values, and which is the loss."""

from __future__ import annotations

from pathlib import Path

from _consolekit import series_ends as _series

from trainlint.api import read_run
from trainlint.readers.console.general import read_line

EPOCHS = 12
EVERY = 100
BATCHES = 400


def _loss(i: int) -> float:
    return round(7.1 * 0.97**i, 4)


def _seq2seq_log() -> list[str]:
    """Fors3cDream/AutoMaster train_history.txt @5cf5ca18: a TensorFlow seq2seq loop in the shape of the
    NMT tutorial: ``Epoch E Batch B Loss x`` every 100 batches, a checkpoint line, the epoch's mean
    ``Epoch E Loss x``, then ``Time taken for 1 epoch S sec`` and an empty line."""
    lines = ["Building the model ...", "Starting the training ..."]
    for e in range(1, EPOCHS + 1):
        for b in range(EVERY, BATCHES + 1, EVERY):
            lines.append(f"Epoch {e} Batch {b} Loss {_loss(4 * (e - 1) + b // EVERY - 1):.4f}")
        lines.append(f"Saving checkpoint for epoch {e} at ckpt/seq2seq/ckpt-{e} ,best loss {_loss(4 * e - 2)}")
        lines += [f"Epoch {e} Loss {_loss(4 * e - 2):.4f}", f"Time taken for {1} epoch {650 + 3.7 * e} sec", ""]
    return lines


def _read(tmp_path: Path, lines: list[str]):
    path = tmp_path / "train_history.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return read_run(path)


def test_an_epochs_time_is_no_epoch_counter():
    assert read_line("Time taken for 1 epoch 658.6991763114929 sec").values == {"epoch_time": 658.6991763114929}
    assert read_line("Time taken for 1 epoch: 25.31 secs").values == {"epoch_time": 25.31}
    # a preposition is no metric's name ("early stop after 28 epochs")
    assert read_line("[pretrain] early stop after 28 epochs (no improvement for 6)") is None


def test_seq2seq_epoch_time_lines_make_no_epoch_series(tmp_path):
    run = _read(tmp_path, _seq2seq_log())
    assert run.roles["loss"] == "Loss"
    n = EPOCHS * BATCHES // EVERY
    assert _series(run, "Loss") == (n, 100.0, float(EPOCHS * BATCHES), 7.1, _loss(n - 1))
    assert "epoch" not in run.roles and "epoch" not in run.series and "for" not in run.series
    assert len(run.series["summary_Loss"].values) == EPOCHS
    times = run.series["epoch_time"].values
    assert len(times) == EPOCHS and times[0] == 653.7


def _encoder_pretrain_log() -> list[str]:
    """bjorvack/lorcana-training pretrain.log @664b473c: ``[pretrain] epoch   E/40  train=x  heldout=y  lr=z``
    an epoch (``(best)`` after a new best held-out value), then an early stop and the best epoch."""
    lines = ["  self.transformer = nn.TransformerEncoder(encoder_layer, num_layers=cfg.n_layers)"]
    for e in range(1, EPOCHS + 1):
        best = "  (best)" if e % 3 else "  "
        lines.append(
            f"[pretrain] epoch {e:3d}/40  train={30 * 0.8**e:.4f}  heldout={26 * 0.82**e:.4f}  lr={3e-4 * 0.97**e:.2e}{best}"
        )
    lines += [f"[pretrain] early stop after {EPOCHS} epochs (no improvement for 6)", "pretrain-encoder: best epoch 9"]
    return lines


def test_heldout_is_the_eval_split(tmp_path):
    run = _read(tmp_path, _encoder_pretrain_log())
    assert run.roles["loss"] == "train_loss" and run.roles["eval_loss"] == "heldout_loss"
    assert _series(run, "train_loss") == (EPOCHS, 1.0, float(EPOCHS), 24.0, round(30 * 0.8**EPOCHS, 4))
    assert _series(run, "heldout_loss") == (EPOCHS, 1.0, float(EPOCHS), 21.32, round(26 * 0.82**EPOCHS, 4))
    assert "after" not in run.series


def _lm_pretrain_log() -> list[str]:
    """Rocket-Ramuel/Aria-AI pretrain.log @d585a37b: a small LM's loop printing ``step S/5000  loss x  lr y
    |g| n  Tm`` every 10 steps (the gradient norm written as a norm's bars, the minutes since the start)."""
    lines = ["model: 6.52M params (4.43M non-embedding)", "data: 4.89M train tokens, 43360 chat examples"]
    for i, step in enumerate([1, *range(10, 10 * EPOCHS + 1, 10)]):
        lines.append(
            f"step {step}/5000  loss {9.04 * 0.97**i:.4f}  lr {3e-6 * step:.2e}  |g| {4.5 * 0.9**i:.2f}  {0.1 * i:.1f}m"
        )
    return lines


def test_a_gradient_norm_written_in_bars(tmp_path):
    run = _read(tmp_path, _lm_pretrain_log())
    assert run.roles["loss"] == "loss" and run.roles["grad_norm"] == "grad_norm"
    n = EPOCHS + 1
    assert _series(run, "loss") == (n, 1.0, float(10 * EPOCHS), 9.04, round(9.04 * 0.97**EPOCHS, 4))
    assert _series(run, "grad_norm") == (n, 1.0, float(10 * EPOCHS), 4.5, round(4.5 * 0.9**EPOCHS, 2))
    assert run.meta["max_steps"] == 5000  # the plan of ``step S/5000`` kept: the run stopped short of it
    assert read_line("epoch 3 | loss 0.5 | ||g||=0.91 | lr 1e-3").values == {
        "loss": 0.5,
        "grad_norm": 0.91,
        "lr": 0.001,
    }
