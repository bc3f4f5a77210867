"""Console logs of toolkits probed in round 14c (issue 29): logs seen outside the corpus, each fixture
made up in the shape of the real log (repository, path and commit recorded with it; no copied lines),
asserting the series read: names, steps, first and last values, and which is the loss."""

from __future__ import annotations

import pytest
from _consolekit import read_lines as _read
from _consolekit import series_ends as _series

from trainlint.readers import ReadError


def _evaluator(k: int, width: int) -> list[str]:
    """detectron2's ``DatasetEvaluator`` progress line, wrapped by a terminal ``width`` columns wide."""
    line = (
        f"[12/23 16:{30 + k // 60:02d}:{k % 60:02d} d2.evaluation.evaluator]: Inference done {10 * k + 11}/1383. "
        f"Dataloading: 0.0017 s / iter. Inference: {0.60 - k / 1000:.4f} s / iter. Eval: 0.0003 s / iter. "
        f"Total: {0.61 - k / 1000:.4f} s / iter. ETA=0:13:{k % 60:02d}"
    )
    return [line[:width], line[width:]]


@pytest.mark.parametrize("width", [103, 124, 125])
def test_a_wrapped_evaluator_line_gives_no_loss(tmp_path, width):
    """Boycott0915/CDFSOD-benchmark-personal check_log02.txt, check_log03.txt, check_log04.txt @4cb4326:
    detectron2 evaluations alone (``--eval-only``), each progress line cut by the terminal; the part
    cut off began ``Eval: 0.0003 s / iter`` (read as the eval split's loss), ``ce: 0.4493 s / iter``
    (the end of "Inference", read as a cross-entropy) or ``val: 0.0004 s / iter``: seconds an
    iteration, no loss. The log is no training log."""
    lines = ["[12/23 16:29:30 d2.evaluation.evaluator]: Start inference on 1383 batches"]
    for k in range(30):
        lines += _evaluator(k, width)
    with pytest.raises(ReadError):
        _read(tmp_path, lines)


def test_wrapped_evaluator_lines_beside_training_lines_leave_the_loss(tmp_path):
    """The same evaluator lines after a hand-written loop's own prints: the loop's loss is the loss."""
    lines = [f"step {10 * k} | loss {2.0 - k / 20:.3f} | lr 0.001" for k in range(20)]
    for k in range(12):
        lines += _evaluator(k, 104)
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "loss" and "eval_loss" not in run.roles
    assert _series(run, "loss") == (20, 0.0, 190.0, 2.0, 1.05)
    assert not {"ce", "Eval_loss", "eval_loss", "val_loss"} & set(run.series)


def test_mindformers_logger_frame_is_no_series(tmp_path):
    """Kahsolt/MindSpore-2024-AI-model-develop-challenge, P2#模型微调赛题/stage1/experiments/finetune_trials/
    run-1/worker_0.log @6ce1c96: MindFormers' ``- mindformers[mindformers/core/callback/callback.py:316] -
    INFO - { Epoch:[  1/  5], step:[    2/  234], loss: 1.292, per_step_time: 3173ms, lr: .., overflow
    cond: False, loss_scale: 1.0`` and a progress line after each. The logger's location in brackets
    had been read as a series (the callback's source line, 316, at every step)."""
    frame = "2024-07-06 21:{:02d}:{:02d},257 - mindformers[mindformers/core/callback/callback.py:{}] - INFO - "
    lines = [frame.format(0, 0, 919).replace("callback/callback.py", "trainer/utils.py") + "Will be Training epochs:2"]
    for e in (1, 2):
        for s in range(2, 24, 2):
            k = (e - 1) * 11 + s // 2
            loss = round(1.6 - k / 50, 3)
            lines.append(
                frame.format(k // 60, k % 60, 316)
                + f"{{ Epoch:[{e:3d}/{2:3d}], step:[{s:5d}/{22:5d}], loss: {loss:.3f}, "
                f"per_step_time: 3173ms, lr: {1e-4 / k:.7g}, overflow cond: False, loss_scale: 1.0"
            )
            lines.append(
                frame.format(k // 60, k % 60, 326) + f"  {k * 4.5:.1f}% |███       | 5.04126 samples/s/p  0:04:07 }}"
            )
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "loss" and run.roles["learning_rate"] == "lr"
    assert _series(run, "loss") == (22, 2.0, 44.0, 1.58, 1.16)
    assert not any(".py" in name or "mindformers" in name for name in run.series)


def test_a_bracketed_step_count_beside_the_batch_size(tmp_path):
    """Anson-Saju-George/DA-AT-VFI train.log @7aa5b67: ``[000500/50000] X4K    | loss 0.0488 | VRAM
    9.8/15.9GB (62%) | GPU 98% | 3.14 it/s | ETA 271.3 min | batch 16`` every 500 iterations. The
    bracketed count had been taken for an epoch and ``batch 16`` (the batch size, on every line) for
    the count inside it: steps 16 .. 792016. The bracketed count is the step."""
    lines = ["Unified VFI Training", "Batch=16 | Workers=10 | LR=5e-05"]
    for k in range(24):
        data = ("X4K", "WMS", "VIMEO")[k % 3]
        lines.append(
            f"[{500 * k:06d}/50000] {data:<6} | loss {0.06 - k / 1000:.4f} | VRAM 9.8/15.9GB (62%) | GPU 98% "
            f"| 3.14 it/s | ETA {271.3 - k:.1f} min | batch 16"
        )
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "loss"
    assert _series(run, "loss") == (24, 0.0, 11500.0, 0.06, 0.037)


def test_a_batch_counted_inside_a_bracketed_epoch_stays_the_count(tmp_path):
    """The shape the rule keeps: ``[2/4], batch_id: 1000, loss: ..``, a batch counted inside the epoch."""
    lines = []
    for e in range(1, 4):
        for b in (0, 500, 1000):
            lines.append(f"[{e}/4], batch_id: {b}, loss: {2.0 - e / 10 - b / 10000:.3f}")
    run = _read(tmp_path, lines)
    s = run.series["loss"]
    assert len(s.steps) == 9 and list(s.steps) == sorted(s.steps) and s.steps[-1] > 1000


def _wenet(e: int, b: int, split: str, loss: float, rank: int = 0) -> str:
    tail = f"lr 0.00032621 rank {rank}" if split == "TRAIN" else f"history loss {loss - 0.5:.6f} rank {rank}"
    return (
        f"2023-01-30 18:{b // 100 % 60:02d}:07,107 DEBUG {split} Batch {e}/{b} loss {loss:.6f} "
        f"loss_att {loss * 0.8:.6f} loss_ctc {loss * 1.3:.6f} {tail}"
    )


def test_wenet_cross_validation_lines_are_the_evaluation(tmp_path):
    """WeNet's ``wenet/bin/train.py`` (wenet-e2e/wenet issue #941, a user's log: ``DEBUG TRAIN Batch
    4/203700 loss 12.646465 loss_att 10.921429 loss_ctc 16.671551 lr 0.00032621 rank 0``, then ``DEBUG
    CV Batch 4/0 loss 28.517015 .. history loss 27.957858 rank 2``; issue #846: ``INFO Epoch 74 CV info
    cv_loss 7.627509962902044``). CV is the cross-validation set, WeNet's (and Kaldi's, ESPnet's)
    held-out data: its batches had been read as training loss points, and ``cv_loss`` was no eval loss."""
    lines = []
    for e in range(3):
        for b in range(0, 1200, 100):
            lines.append(_wenet(e, b, "TRAIN", 20.0 - e - b / 1000))
        for b in range(0, 300, 100):
            lines.append(_wenet(e, b, "CV", 30.0 - e))
        lines.append(f"2023-01-30 19:00:00,000 INFO Epoch {e} CV info cv_loss {28.0 - e:.6f}")
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "loss" and run.roles["eval_loss"] == "cv_loss"
    assert len(run.series["loss"].steps) == 36
    assert max(run.series["loss"].values) < 21.0
    assert list(run.series["cv_loss"].values) == [28.0, 27.0, 26.0]


def test_wenet_cv_info_alone_is_the_eval_loss(tmp_path):
    """wenet-e2e/wenet issue #846: a log grepped for its epochs' ``Epoch N CV info cv_loss X`` lines
    beside the training batches: ``cv_loss`` is the eval loss, one point an epoch."""
    lines = []
    for e in range(12):
        lines += [_wenet(e, b, "TRAIN", 12.0 - e / 2 - b / 1000) for b in (0, 100, 200)]
        lines.append(f"2021-12-05 10:00:32,073 INFO Epoch {e} CV info cv_loss {9.0 - e / 4:.6f}")
    run = _read(tmp_path, lines)
    assert run.roles["eval_loss"] == "cv_loss" and len(run.series["cv_loss"].steps) == 12
