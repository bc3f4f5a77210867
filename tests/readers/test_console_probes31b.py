"""Kinds a blind sample of outside logs (probe round 31b: the repositories find_files lists for
``train_output.log``, a training script's captured console, labelled before trainlint read them)
found read wrong: DeepfakeBench's logger names its loss ``training-loss, overall: X`` (the split's
loss, a comma, then the part), which had read as a pair ``overall`` with no loss in its name, so
the log read as no training at all; an Ultralytics YOLO run piped through PowerShell's
``Tee-Object`` (UTF-16, its ``━`` bar read back as code page 437: ``ΓöüΓöü``) had matched no epoch
row. Each fixture is made up in the shape of the real file (repository, path and commit recorded
with it; no copied lines) and asserts the series read: names, steps, first and last values, and
which is the loss."""

from __future__ import annotations

from _consolekit import read_lines as _read
from _consolekit import series_ends as _series

from trainlint.api import read_run

ITERS = 900  # iterations an epoch
EVERY = 300  # iterations between two loss lines
EPOCHS = 4


def _train_loss(it: int) -> float:
    return round(0.05 + 0.9 / (1.0 + it / 400.0), 6)


def _test_loss(e: int) -> float:
    return round(0.52 + 0.11 * e, 6)


def _stamp(k: int) -> str:
    return f"2025-03-0{1 + k // 1000} 1{k % 10}:{k % 60:02d}:{(7 * k) % 60:02d},{k % 1000:03d} - INFO - "


def _deepfakebench_log() -> list[str]:
    """ToExperienceMore/DeepFakesBench train_output.log @483567ca35c6ac52787f348a4fd1d76e578b08d0
    (DeepfakeBench's trainer: every few hundred iterations ``Iter: N    training-loss, overall: X``
    written by the logger right after the epoch's tqdm bar on the same line, then a
    ``training-metric, acc: ...`` line; after each epoch a test block ``dataset: NAME    step: N
    testing-loss, overall: X`` and its metrics)."""
    lines = ["--------------- Configuration ---------------", "nEpochs: 4", "rec_iter: 300"]
    for e in range(EPOCHS):
        lines.append(f"{_stamp(e)}===> Epoch[{e}] start!")
        for i in range(0, ITERS, EVERY):
            it = e * ITERS + i
            pct = 100 * i // ITERS
            bar = f"{pct:3d}%|##        | {i}/{ITERS} [02:{i % 60:02d}<11:00,  1.21s/it]"
            lines.append(f"{bar}{_stamp(it)}Iter: {it}    training-loss, overall: {_train_loss(it)}    ")
            lines.append(
                f"{_stamp(it)}Iter: {it}    training-metric, acc: {0.7 + e * 0.05}    training-metric, auc: 0.8"
            )
        step = (e + 1) * ITERS - 1
        lines.append(f"{_stamp(step)}dataset: Celeb-X    step: {step}    testing-loss, overall: {_test_loss(e)}    ")
        lines.append(
            f"{_stamp(step)}dataset: Celeb-X    step: {step}    testing-metric, acc: 0.74    testing-metric, auc: 0.8"
        )
        lines.append(f"{_stamp(step)}===> Test Done!")
    return lines


def test_a_split_loss_then_its_part_after_a_comma_is_the_loss(tmp_path):
    run = _read(tmp_path, _deepfakebench_log(), "train_output.log")
    assert run.format == "console/general"
    assert run.roles["loss"] == "training-loss_overall"
    assert run.roles["eval_loss"] == "testing-loss_overall"
    last = (EPOCHS - 1) * ITERS + ITERS - EVERY
    n = EPOCHS * ITERS // EVERY
    assert _series(run, "training-loss_overall") == (n, 0.0, float(last), _train_loss(0), _train_loss(last))
    # each test at the training step printed before it (the reader's rule for an evaluation)
    first_test = ITERS - EVERY
    assert _series(run, "testing-loss_overall") == (
        EPOCHS,
        first_test,
        float(last),
        _test_loss(0),
        _test_loss(EPOCHS - 1),
    )


YOLO_EPOCHS = 12
BATCHES = 5


def _box(e: int, b: int) -> float:
    return round(1.7 - 0.04 * e - 0.01 * b, 3)


def _cls(e: int, b: int) -> float:
    return round(2.9 - 0.15 * e - 0.02 * b, 3)


def _dfl(e: int, b: int) -> float:
    return round(1.6 - 0.02 * e, 3)


def _cp437_bar(done: int) -> str:
    """Ultralytics' own bar (``━`` done, ``─`` to go) as its UTF-8 reads in code page 437."""
    return "Γöü" * done + "ΓöÇ" * (12 - done)


def _yolo_tee_log() -> list[str]:
    """Muhammad-Umair-Ahmad/Aerial-Guided-Autonomous-Rover train_output.log
    @ea385bb68937fd39b9d11c22acd409c8cb5e879f (``python train.py 2>&1 | Tee-Object``: UTF-16 LE,
    CRLF, PowerShell's error record first; the ``Epoch GPU_mem box_loss cls_loss dfl_loss
    Instances Size`` header before each epoch, one row a batch behind ``ESC[K`` with the bar as
    cp437 mojibake, the ``all`` validation row after; early stopping before the planned epochs)."""
    lines = [
        "python : WARNING: something was written to STDERR",
        "    + FullyQualifiedErrorId : NativeCommandError",
        "Starting training for 150 epochs...",
    ]
    for e in range(1, YOLO_EPOCHS + 1):
        lines += ["", "      Epoch    GPU_mem   box_loss   cls_loss   dfl_loss  Instances       Size", ""]
        for b in range(BATCHES + 1):
            pct = 100 * b // BATCHES
            row = f"{e:>7}/150         0G {_box(e, b):>10} {_cls(e, b):>10} {_dfl(e, b):>10} {18:>10} {640:>10}"
            lines.append(f"\x1b[K{row}: {pct}% {_cp437_bar(12 * b // BATCHES)} {b}/{BATCHES} 3.1s/it")
        lines.append(
            "\x1b[K                 Class     Images  Instances      Box(P          R      mAP50  mAP50-95): 100%"
        )
        lines.append(
            f"                   all          4          4      0.5          1      {0.1 + 0.07 * e:.3f}      0.3"
        )
    lines.append(f"{YOLO_EPOCHS} epochs completed in 0.101 hours.")
    return lines


def test_a_yolo_row_with_its_bar_read_as_cp437_is_an_epoch(tmp_path):
    path = tmp_path / "train_output.log"
    path.write_bytes(b"\xff\xfe" + "\r\n".join(_yolo_tee_log()).encode("utf-16-le"))
    run = read_run(path)
    assert run.format == "console/yolo"
    assert run.roles["loss"] == "loss"
    first = _box(1, BATCHES) + _cls(1, BATCHES) + _dfl(1, BATCHES)
    last = _box(YOLO_EPOCHS, BATCHES) + _cls(YOLO_EPOCHS, BATCHES) + _dfl(YOLO_EPOCHS, BATCHES)
    points, s0, s1, v0, v1 = _series(run, "loss")
    assert (points, s0, s1) == (YOLO_EPOCHS, 1.0, float(YOLO_EPOCHS))
    assert abs(v0 - first) < 1e-9 and abs(v1 - last) < 1e-9
    assert _series(run, "train/box_loss")[3:] == (_box(1, BATCHES), _box(YOLO_EPOCHS, BATCHES))
