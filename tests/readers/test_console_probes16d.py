"""Real logs outside the corpus that earlier probes left read in part (issue 29, probe round 16d):
Lightning's bars of a run of few epochs (one point an epoch was all that was read). Each fixture is made up in the shape of the real log or of the source
that writes it (repository, path and commit recorded with it; no copied lines) and asserts the series
read: names, steps, first and last values, and which is the loss."""

from __future__ import annotations

import math

from _consolekit import read_lines as _read
from _consolekit import series_ends as _series


def _bar(epoch: int, i: int, total: int, post: str) -> str:
    pct = 100 * i // total
    return f"Epoch {epoch}: {pct:3d}%|##        | {i}/{total} [00:{i % 60:02d}<00:30,  3.90it/s{post}]"


def test_one_lightning_epoch_is_read_at_each_step_of_its_bar(tmp_path):
    """hanv14/HP-VADE log_train.txt @7bf7644f0d8a0e5a7b34e0722852c961367e03f9: one epoch of 4282
    steps, each bar drawn twice on its line (first without a postfix, then ``v_num=0,
    train_loss=inf.0``), the script's NaN warnings printed between the bars; the epoch's last
    redraw adds ``val_loss``. Read one point an epoch, the run had one loss point: each step is
    a point, and the loss goes non-finite at the first step."""
    lines = ["=" * 70, "PHASE II: TRAINING", "=" * 70]
    total = 40
    for i in range(1, total + 1):
        loss = "inf.0" if i == 1 else "nan.0"
        lines.append(_bar(0, i, total, "") + "\r" + _bar(0, i, total, f", v_num=0, train_loss={loss}"))
        lines += ["⚠ WARNING: NaN detected in training!", "  loss_recon: nan"]
    lines.append(_bar(0, total, total, ", v_num=0, train_loss=nan.0, val_loss=nan.0"))
    lines.append("Best model saved at: checkpoints/hp_vade-epoch=00-val_loss=nan.ckpt")
    run = _read(tmp_path, lines, "log_train.txt")
    assert run.format == "console/lightning"
    assert run.roles["loss"] == "train_loss" and run.roles["eval_loss"] == "val_loss"
    n, first, last, v0, v1 = _series(run, "train_loss")
    assert (n, first, last) == (40, 1.0, 40.0) and math.isinf(v0) and math.isnan(v1)
    n, first, last, _, v1 = _series(run, "val_loss")
    assert (n, first, last) == (1, 40.0, 40.0) and math.isnan(v1)
    assert "v_num" not in run.series


def _losses(k: int) -> float:
    return round(2.0 * 0.97**k + 0.05, 3)


def test_few_lightning_epochs_read_per_step_with_their_epoch_values_once_an_epoch(tmp_path):
    """The same with three epochs and ``self.log(..., on_step=True, on_epoch=True)``: the bar shows
    ``train_loss_step`` (each step's) and, from the second epoch on, ``train_loss_epoch`` (the
    epoch's mean, the same on every redraw of the next epoch) and ``val_loss``: the step values
    at each redraw, the epoch values once an epoch as before."""
    lines, total = [], 30
    for e in range(3):
        renders = []
        for i in range(1, total + 1):
            post = f", v_num=3, train_loss_step={_losses(e * total + i):.3f}"
            if e:
                post += f", val_loss={0.9 - 0.1 * e:.3f}, train_loss_epoch={_losses(e * total):.3f}"
            renders.append(_bar(e, i, total, post))
        lines.append("\r".join(renders))
    run = _read(tmp_path, lines)
    assert run.format == "console/lightning" and run.roles["loss"] == "train_loss_step"
    assert _series(run, "train_loss_step") == (90, 1.0, 90.0, _losses(1), _losses(90))
    assert _series(run, "train_loss_epoch") == (2, 60.0, 90.0, _losses(30), _losses(60))
    # a validation value first shown on an epoch's bar is the epoch before's (as before)
    assert _series(run, "val_loss")[:3] == (2, 30.0, 60.0)


def test_ten_lightning_epochs_stay_one_point_an_epoch(tmp_path):
    """Ten epochs are ten points: the epoch-final redraws, as before."""
    lines, total = [], 30
    for e in range(10):
        lines.append(
            "\r".join(_bar(e, i, total, f", v_num=0, loss={_losses(e * total + i):.3f}") for i in range(1, 31))
        )
    run = _read(tmp_path, lines)
    assert run.format == "console/lightning"
    assert _series(run, "loss") == (10, 30.0, 300.0, _losses(30), _losses(300))


def test_a_loss_the_bar_shows_once_an_epoch_stays_one_point_an_epoch(tmp_path):
    """``train_loss`` logged on_epoch only: the bar shows the last epoch's value on every redraw of
    the next; nothing changes inside an epoch, so there is no step value: one point an epoch."""
    lines, total = [], 30
    for e in range(4):
        post = f", v_num=0, train_loss={_losses(e):.3f}" if e else ", v_num=0"
        lines.append("\r".join(_bar(e, i, total, post) for i in range(1, total + 1)))
    run = _read(tmp_path, lines)
    assert run.format == "console/lightning"
    assert _series(run, "train_loss") == (3, 60.0, 120.0, _losses(1), _losses(3))
