"""Real logs outside the corpus that earlier probes left read in part (issue 29, probe round 16d):
Lightning's bars of a run of few epochs (one point an epoch was all that was read), icefall's
``log-train-*`` (junk series ``over`` and ``is`` beside the losses), and skorch's ``history.json``
(read already: held here). Each fixture is made up in the shape of the real log or of the source
that writes it (repository, path and commit recorded with it; no copied lines) and asserts the series
read: names, steps, first and last values, and which is the loss."""

from __future__ import annotations

import json
import math

from _consolekit import read_lines as _read
from _consolekit import series_ends as _series

from trainlint.api import read_run


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


def test_icefall_frames_and_memory_lines_make_no_series(tmp_path):
    """k2-fsa/icefall@5c142d4c60c9b14f9b255df6819f0c72ff5f0645 egs/librispeech/ASR/zipformer/train.py: the
    ``log-train-*`` lines (``loss[loss=.., over 3287.00 frames. ], tot_loss[...]``, icefall/utils.py
    MetricsTracker), ``Epoch N, validation: loss=.., over 123456.00 frames.`` and ``Maximum memory
    allocated so far is 23456MB`` after each validation. The frames and the memory were series named
    ``over``, ``eval_over`` and ``is``; the losses stay as they were read."""
    lines = []
    for e in range(1, 4):
        for b in range(0, 1000, 50):
            loss = round(0.9 - 0.1 * e - 0.0001 * b, 4)
            lines.append(
                f"2024-01-01 10:00:00,000 INFO [train.py:1198] (0/8) Epoch {e}, batch {b}, "
                f"loss[loss={loss:.4g}, simple_loss={loss + 0.1:.4g}, pruned_loss={loss - 0.1:.4g}, "
                f"over {3000 + b}.00 frames. ], tot_loss[loss={loss + 0.01:.4g}, simple_loss={loss + 0.11:.4g}, "
                f"pruned_loss={loss - 0.09:.4g}, over {650000 + b}.00 frames. ], batch size: 57, lr: 4.50e-02, "
            )
        lines.append(
            f"2024-01-01 10:30:00,000 INFO [train.py:1230] (0/8) Epoch {e}, validation: loss={0.6 - 0.1 * e:.4g}, "
            f"simple_loss={0.7 - 0.1 * e:.4g}, over 123456.00 frames. "
        )
        lines.append(
            f"2024-01-01 10:30:00,000 INFO [train.py:1231] (0/8) Maximum memory allocated so far is {20000 + e}MB"
        )
    run = _read(tmp_path, lines, "log-train-2024-01-01-10-00-00-0")
    assert run.roles["loss"] == "loss" and run.roles["eval_loss"] == "eval_loss"
    assert not {"over", "eval_over", "is"} & set(run.series)
    assert _series(run, "loss") == (60, 1.0, 60.0, 0.8, 0.505)
    assert _series(run, "pruned_loss")[0] == 60
    assert _series(run, "eval_loss") == (3, 20.0, 60.0, 0.5, 0.3)


def test_a_metric_named_like_the_words_stays_read_in_its_clause(tmp_path):
    """``avg loss so far is 0.024`` is read as before: the clause names its value, not ``is``."""
    lines = [f"avg loss so far is {_losses(i):.4f}" for i in range(1, 13)]
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "loss_so_far" and "is" not in run.series
    assert _series(run, "loss_so_far") == (12, 1.0, 12.0, _losses(1), _losses(12))


def test_skorch_history_json_is_read_by_epoch(tmp_path):
    """skorch-dev/skorch skorch/history.py (``History.to_file``: ``json.dump(self.to_list(), f)``, what
    ``net.save_params(f_history='history.json')`` writes): a list of epochs, each with its ``batches``
    (a dict a batch: ``train_loss``/``train_batch_size``, then ``valid_loss``/``valid_batch_size``), the
    epoch's ``train_loss`` and ``valid_loss`` and a ``*_best`` flag for each. The epoch series are
    read, ``train_loss`` is the loss and ``valid_loss`` the evaluation loss (no change was needed)."""
    history = []
    for e in range(1, 13):
        batches = [{"train_loss": _losses(8 * e + b), "train_batch_size": 128} for b in range(8)]
        batches += [{"valid_loss": _losses(e) + 0.1, "valid_batch_size": 128} for _ in range(2)]
        history.append(
            {
                "batches": batches,
                "epoch": e,
                "train_batch_count": 8,
                "valid_batch_count": 2,
                "dur": 1.25,
                "train_loss": _losses(8 * e),
                "train_loss_best": True,
                "valid_loss": _losses(e) + 0.1,
                "valid_loss_best": True,
                "valid_acc": 0.5 + e / 100,
                "valid_acc_best": True,
            }
        )
    p = tmp_path / "history.json"
    p.write_text(json.dumps(history), encoding="utf-8")
    run = read_run(p)
    assert run.roles["loss"] == "train_loss" and run.roles["eval_loss"] == "valid_loss"
    assert _series(run, "train_loss") == (12, 1.0, 12.0, _losses(8), _losses(96))
    assert _series(run, "valid_loss")[:3] == (12, 1.0, 12.0)
