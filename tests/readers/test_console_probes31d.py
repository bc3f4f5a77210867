"""Kinds a blind sample of outside logs (probe round 31d: repositories 25 on of those find_files
lists for ``wandb/latest-run/files/output.log``, W&B's capture of a run's console, labelled before
trainlint read them) found read or judged wrong: a YOLOv10 table whose loss columns are named for
the head they belong to (``box_om ... dfl_oo``: one-to-many and one-to-one) had read no loss at all;
a CatBoost regressor's ``learn`` value (an RMSE) near ln 9 had read as a model at chance over 9
classes. Each fixture is made up in the shape of the real file (repository, path and commit
recorded with it; no copied lines) and asserts the series read: names, steps, first and last
values, and which is the loss."""

from __future__ import annotations

from _consolekit import read_lines as _read
from _consolekit import series_ends as _series

from trainlint.api import judge

YOLO_EPOCHS = 30
_HEADS = ("box_om", "cls_om", "dfl_om", "box_oo", "cls_oo", "dfl_oo")
_YOLO_HEADER = "      Epoch    GPU_mem" + "".join(f"{c:>11}" for c in _HEADS) + "  Instances       Size"


def _term(e: int, j: int) -> float:
    """Loss term ``j`` at epoch ``e``: from about 4 down towards 1.5."""
    return round(1.5 + (2.5 + 0.2 * j) * 0.9 ** (e - 1), 3)


def _yolov10_log() -> list[str]:
    """chandana-koganti14/NuInseg wandb/latest-run/files/output.log
    @0d9ca1eef91f29a9cfb2b75d07530d4e53330b93 (THU-MIG YOLOv10 trainer): before each epoch's row
    the header names the six loss terms of its two heads, the row ends in a tqdm bar, then the
    validation bar and the ``all`` row of box precision, recall and mAPs."""
    lines = ["Starting training for 30 epochs...", ""]
    for e in range(1, YOLO_EPOCHS + 1):
        terms = "".join(f"{_term(e, j):>11}" for j in range(len(_HEADS)))
        lines += [
            _YOLO_HEADER,
            f"{e:>7}/{YOLO_EPOCHS}      1.02G{terms}        121        512: 100%|##########| 90/90 [00:15<00:00,  5.9it/s]",
            "                 Class     Images  Instances      Box(P          R      mAP50  mAP50-95): 100%|##########| 9/9",
            f"                   all        120       5100      0.{40 + e}      0.{30 + e}      0.{35 + e}      0.{10 + e}",
            "",
        ]
    return lines + [f"{YOLO_EPOCHS} epochs completed in 0.201 hours."]


def test_yolov10_head_terms_are_the_loss(tmp_path):
    run = _read(tmp_path, _yolov10_log(), "output.log")
    assert run.format == "console/yolo" and run.roles["loss"] == "loss"
    assert _series(run, "train/box_om_loss") == (
        YOLO_EPOCHS,
        1.0,
        float(YOLO_EPOCHS),
        _term(1, 0),
        _term(YOLO_EPOCHS, 0),
    )
    assert _series(run, "train/dfl_oo_loss")[3:] == (_term(1, 5), _term(YOLO_EPOCHS, 5))
    first = sum(_term(1, j) for j in range(len(_HEADS)))
    last = sum(_term(YOLO_EPOCHS, j) for j in range(len(_HEADS)))
    n, s0, s1, v0, v1 = _series(run, "loss")
    assert (n, s0, s1) == (YOLO_EPOCHS, 1.0, float(YOLO_EPOCHS))
    assert abs(v0 - first) < 1e-9 and abs(v1 - last) < 1e-9
    assert run.series["metrics/mAP50(B)"].values[-1] == float(f"0.{35 + YOLO_EPOCHS}")


def _learn(i: int) -> float:
    """An RMSE on ratings at iteration ``i``: 2.42 at the first, then sliding from 2.209 past
    ln 9 (2.197) to 2.180."""
    return 2.4204 if i == 0 else round(2.209 - 0.0029 * i / 100, 7)


def _catboost_log() -> list[str]:
    """minzai0116/pro-recsys-bookratingprediction-recsys-06 wandb/latest-run/files/output.log
    @56de51e1eeeca445acad0667e6b30e78c10f59cb: CatBoost's verbose lines every 100 iterations of a
    regressor on book ratings (learn and test RMSE, best so far, time), then bestTest and the
    shrink, between the script's own banners."""
    lines = ["--------------- CatBoost Train/Valid Split ---------------", ">>> Loading Data..."]
    for i in (*range(0, 1000, 100), 999):
        test = round(_learn(i) - 0.045, 7)
        lines.append(f"{i}:\tlearn: {_learn(i)}\ttest: {test}\tbest: {test} ({i})\ttotal: {i // 4 + 1}s\tremaining: 1m")
    return lines + ["", "bestTest = 2.1345", "bestIteration = 999", "", "Shrink model to first 1000 iterations."]


def test_catboost_learn_near_ln_k_is_no_chance_level(tmp_path):
    run = _read(tmp_path, _catboost_log(), "output.log")
    assert run.format == "console/catboost" and run.roles["loss"] == "learn"
    assert run.meta["loss_unnamed"] is True  # the reader says which function goes unsaid, not the rule
    assert _series(run, "learn") == (11, 0.0, 999.0, _learn(0), _learn(999))
    findings = {f.code: f for f in judge(run).findings}
    assert "TL033" not in findings
