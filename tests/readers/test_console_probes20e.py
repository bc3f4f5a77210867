"""Kinds a blind sample of outside logs (probe round 20e: the first repositories find_files lists for
``stdout.log`` and ``log/training.log``, labelled before trainlint read them) found read wrong: a
configuration's repr (yacs' ``CfgNode({..})``, argparse's ``Namespace(..)``) printed at each launch
read as a metric stream, and a loss whose components were logged at steps too far apart to sum left
the log unchecked. Each fixture is made up in the shape of the real file (repository, path and commit
recorded with it; no copied lines) and asserts the series read: names, steps, first and last values,
and which is the loss."""

from __future__ import annotations

import pytest
from _consolekit import series_ends as _series

from trainlint.api import read_run
from trainlint.readers.base import ReadError
from trainlint.readers.console.general import read_line

LAUNCHES = 4
ITERS = 12


def _config(stamp: str) -> str:
    """PySlowFast's ``Train with config:`` line: the whole yacs CfgNode on one line, nested nodes and
    all, a loss's settings among them (``KILL_LOSS_EXPLOSION_FACTOR``, ``LOSS_FUNC``)."""
    return (
        f"[{stamp}][INFO] train_net.py:  527: CfgNode({{'BN': CfgNode({{'USE_PRECISE_STATS': True, "
        "'NUM_BATCHES_PRECISE': 200, 'WEIGHT_DECAY': 0.0}), 'TRAIN': CfgNode({'ENABLE': True, "
        "'KILL_LOSS_EXPLOSION_FACTOR': 0.0, 'DATASET': 'kinetics', 'BATCH_SIZE': 64, 'EVAL_PERIOD': 10}), "
        "'TEST': CfgNode({'ENABLE': True, 'BATCH_SIZE': 64, 'NUM_ENSEMBLE_VIEWS': 10}), "
        "'MODEL': CfgNode({'ARCH': 'slowfast', 'NUM_CLASSES': 400, 'LOSS_FUNC': 'cross_entropy', "
        "'DROPOUT_RATE': 0.5}), 'SOLVER': CfgNode({'BASE_LR': 0.1, 'MAX_EPOCH': 196, 'MOMENTUM': 0.9}), "
        "'NUM_GPUS': 8, 'RNG_SEED': 0, 'LOG_PERIOD': 10})"
    )


def _launch(n: int) -> list[str]:
    """A launch's config, then the model's printed modules (PySlowFast's ``misc.py: Model:``)."""
    stamp = f"06/{17 + n} 21:17:00"
    model = [
        f"    (pathway0_res{k}): ResBlock(branch2=BottleneckTransform(), relu=ReLU(inplace=True))" for k in range(40)
    ]
    return [
        f"[{stamp}][INFO] train_net.py:  526: Train with config:",
        _config(stamp),
        f"[{stamp}][INFO] misc.py:  186: Model:",
        "SlowFast(",
        *model,
        ")",
    ]


def _loss(i: int) -> float:
    return round(3.6 * 0.97**i, 5)


def _iter(i: int) -> str:
    """EdoWhite/slowfast stdout.log @2bffa73f: PySlowFast's ``json_stats`` line every LOG_PERIOD iterations."""
    return (
        f'[06/21 18:{i:02d}:49][INFO] logging.py:   99: json_stats: {{"_type": "train_iter_", "dt": 1.21416, '
        f'"epoch": "1/2", "eta": "0:12:10", "gpu_mem": "19.35G", "grad_norm": 6.47215, "iter": "{10 * i}/316", '
        f'"loss": {_loss(i):.5f}, "lr": 0.00954, "top1_err": 75.00000, "top5_err": 59.37500}}'
    )


def test_a_yacs_config_repr_is_no_metric_line():
    """CodingIsCodeine/M2MVT_FULLFINAL stdout.log @f0ac870d and DRMALEK/Resource-Efficient-PySlowFast
    stdout.log @ddd3f661: a config dump at each launch, and nothing else, had been read as a run whose
    loss was ``KILL_LOSS_EXPLOSION_FACTOR`` (0.0 at every launch: FAIL, the loss exactly zero)."""
    assert read_line(_config("06/17 21:17:00")) is None
    assert read_line("2025-07-06 06:31:11 - Edge_LLM - INFO - Namespace(lr=0.0002, loss_scale=1.0, seed=0)") is None
    rec = read_line('json_stats: {"_type": "train_iter_", "iter": "10/316", "loss": 3.55658, "lr": 0.00986}')
    assert rec is not None and rec.values["loss"] == 3.55658


def test_a_log_of_config_dumps_alone_is_not_read(tmp_path):
    lines = [line for n in range(LAUNCHES) for line in _launch(n)]
    path = tmp_path / "stdout.log"
    path.write_text("\n".join([*lines, "[06/20 23:09:17][INFO] train_net.py:  611: Start epoch: 1"]) + "\n")
    with pytest.raises(ReadError):
        read_run(path)


def test_a_slowfast_log_reads_its_json_stats_not_its_config(tmp_path):
    """The config's nested ``'TEST': CfgNode({..})`` had also made ``eval_BATCH_SIZE`` and the like, one
    point each, beside the ``json_stats`` training stream."""
    lines = [line for n in range(LAUNCHES) for line in _launch(n)] + [_iter(i) for i in range(1, ITERS + 1)]
    path = tmp_path / "stdout.log"
    path.write_text("\n".join(lines) + "\n")
    run = read_run(path)
    assert run.roles["loss"] == "loss"
    assert not [n for n in run.series if n.upper() == n or "BATCH_SIZE" in n]
    assert _series(run, "loss") == (ITERS, 10.0, 10.0 * ITERS, _loss(1), _loss(ITERS))


EPOCHS = 12
BATCH_LINES = 3  # "0/2", "1/2", "2/2": a line every few batches
PSEUDO_FROM = 9  # the epoch a pseudo-label loss joins the epoch's summary


def _mil(e: int, i: int) -> float:
    return round(0.7 * 0.8 ** (e * BATCH_LINES + i) + 0.02, 4)


def _mgs_log() -> list[str]:
    """2387734392xs-max/MGS log/training.log @e30337e7: ``i/2 MIL Loss: .., CMA_A2V_A2B: .., CMA_V: ..``
    lines in an epoch, then its summary ``av_loss:.. | v_loss:..`` (and ``| pseudo_loss:..`` in late
    epochs) and ``Epoch e/50: av_auc:.. | v_auc:..``. The loss's components (MIL_Loss, av_loss, v_loss,
    pseudo_loss) had been summed, and as they share too few steps no loss was taken: not checked."""
    lines = ["2026-03-21 09:15:39,876 INFO Starting training with arguments:"]
    for e in range(EPOCHS):
        lines.append(f"2026-03-21 09:18:11,901 INFO Current Lambda_a2b: {0.1 * e:.2f}, Current Lambda_a2n: 0.00")
        for i in range(BATCH_LINES):
            lines.append(
                f"2026-03-21 09:18:11,902 INFO {i}/{BATCH_LINES - 1} MIL Loss: {_mil(e, i):.4f}, "
                f"CMA_A2V_A2B: {7.1 - 0.1 * e:.4f}, CMA_V: {2.0 - 0.1 * e:.4f}, CMA_A: {2.07 - 0.1 * e:.4f}"
            )
        pseudo = f" | pseudo_loss:{0.96 + 0.001 * e:.4f}" if e >= PSEUDO_FROM else ""
        lines.append(f"2026-03-21 09:26:55,548 INFO av_loss:{0.13 + 0.01 * e:.4f} | v_loss:0.4899{pseudo}")
        lines.append(f"2026-03-21 09:26:55,548 INFO Epoch {e}/50: av_auc:0.7726 | v_auc:0.6406 | av_ap:0.7727")
    return lines


def test_loss_components_logged_at_steps_too_far_apart_take_the_most_logged(tmp_path):
    path = tmp_path / "training.log"
    path.write_text("\n".join(_mgs_log()) + "\n")
    run = read_run(path)
    assert run.roles["loss"] == "MIL_Loss"
    n, _, _, first, last = _series(run, "MIL_Loss")
    assert (n, first, last) == (EPOCHS * BATCH_LINES, _mil(0, 0), _mil(EPOCHS - 1, BATCH_LINES - 1))
    assert "not summed" in run.meta["role_reasons"]["loss"]
    assert len(run.series["av_loss"]) == EPOCHS


def test_a_console_log_framed_by_a_bracketed_time_is_no_json_document(tmp_path):
    """A PySlowFast stdout.log whose first ``json_stats`` records fall in the file's head (a relaunch
    after a few iterations, its config dump printed again: the shape of EdoWhite/slowfast stdout.log
    @2bffa73f, shorter): its first line ``[06/17 21:17:00][INFO] ..`` starts with a bracket and its head
    repeats a quoted ``"loss"`` key, so it had been claimed as a JSON document and left NOT-CHECKED."""
    lines: list[str] = []
    for n in range(LAUNCHES):
        lines += [*_launch(n)[:2], *(_iter(i) for i in range(3 * n + 1, 3 * n + 4))]
    path = tmp_path / "stdout.log"
    path.write_text("\n".join(lines) + "\n")
    run = read_run(path)
    assert run.format == "console/general" and run.roles["loss"] == "loss"
    assert _series(run, "loss") == (ITERS, 10.0, 10.0 * ITERS, _loss(1), _loss(ITERS))


def _slowfast_epochs(epochs: int = 5, iters: int = 10) -> list[str]:
    """PySlowFast's json_stats over whole epochs (the meters' ``log_iter_stats`` / ``log_epoch_stats``,
    facebookresearch/SlowFast slowfast/utils/meters.py; the shape of Cory-M/SlowFast stdout.log
    @e5e7b639): ``train_iter`` records every 10 iterations, one ``train_epoch`` record averaging the
    epoch (``"RAM": "10/200G"``), and a ``val_epoch`` record. The epoch's quoted ``"1/196"`` had been
    read as a count and ``RAM``'s ``10/200G`` as another, so the epoch averages were mixed into the
    loss (the step count falling back at each epoch) and the validation errors read as training ones."""
    out = []
    frame = "[05/20 00:24:04][INFO] logging.py:   99: json_stats: "
    for e in range(1, epochs + 1):
        for it in range(10, 10 * iters + 1, 10):
            out.append(
                frame + f'{{"_type": "train_iter", "dt": 0.3, "epoch": "{e}/196", "eta": "1 day", "gpu_mem": "4.45G", '
                f'"iter": "{it}/{10 * iters}", "loss": {6.0 - 0.5 * e - 0.003 * it:.4f}, "lr": 0.1, "top1_err": 90.0}}'
            )
        out.append(
            frame + f'{{"_type": "train_epoch", "dt": 0.3, "epoch": "{e}/196", "gpu_mem": "4.45G", '
            f'"loss": {6.2 - 0.5 * e:.4f}, "lr": 0.1, "RAM": "10/200G", "top1_err": 91.0}}'
        )
        out.append(
            frame + f'{{"_type": "val_epoch", "epoch": "{e}/196", "time_diff": 0.1, "top1_err": {88.0 - e:.1f}, '
            f'"min_top1_err": {88.0 - e:.1f}, "RAM": "10/200G"}}'
        )
    return out


def test_slowfast_epoch_averages_and_validation_records_keep_out_of_the_loss(tmp_path):
    path = tmp_path / "stdout.log"
    path.write_text("\n".join(_slowfast_epochs()) + "\n")
    run = read_run(path)
    assert run.roles["loss"] == "loss"
    n, lo, hi, first, last = _series(run, "loss")
    assert (n, lo, hi, first, last) == (50, 10, 500, 5.47, 3.2)
    assert _series(run, "summary_loss")[0] == 5 and run.series["summary_loss"].values[-1] == 3.7
    assert run.series["val_top1_err"].values.tolist() == [87.0, 86.0, 85.0, 84.0, 83.0]
    assert not any("falls back" in note for note in run.notes)


def test_a_quoted_count_keeps_its_name_and_a_size_with_a_unit_is_no_count():
    rec = read_line('_type: "train_epoch", epoch: "3/196", loss: 4.2, RAM: "10/200G"')
    assert rec is not None and (rec.epoch, rec.inner, rec.split) == (3.0, None, "")
    rec = read_line('_type: "val_iter", epoch: "3/196", iter: "20/40", top1_err: 80.0')
    assert rec is not None and (rec.epoch, rec.inner, rec.split) == (3.0, (20.0, 40.0), "val")
    assert rec.values == {"val_top1_err": 80.0}
