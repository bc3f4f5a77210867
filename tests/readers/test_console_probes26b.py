"""Kinds a blind sample of outside logs (probe round 26b: the first repositories find_files lists
for ``log/train.log``, then ``outputs/train.log``, labelled before trainlint read them) found
judged wrong: a Keras fit() that stopped short of its ``Epoch k/N`` plan and after which the script
went on (its summary, the model saved) read as a run cut off (TL080), where fit() returns early
only when a callback (EarlyStopping with verbose=0, which prints nothing) ended it; and a loop's
closing ``Training complete.`` / ``TRAINING COMPLETE`` line was no completion record. Each fixture
is made up in the shape of the real file (repository, path and commit recorded with it; no
copied lines) and asserts the series read: names, steps, first and last values, and which is the
loss."""

from __future__ import annotations

from _consolekit import OOM_TRACEBACK
from _consolekit import read_lines as _read
from _consolekit import series_ends as _series

from trainlint.api import judge

PLANNED = 30
RAN = 9


def _keras_loss(e: int) -> float:
    return round(0.05 / e, 5)


def _keras_head_log() -> list[str]:
    """Dasperin/Crack-Detection- outputs/train.log @be15dd1773659a9bb48e84fe89a3be0a4158bc88: a
    dense head fit on cached features, Keras 3 at verbose=2 (``N/N - 0s - 1ms/step - accuracy:
    ... - loss: ... - val_loss: ... - learning_rate: ...``), planned for more epochs than it ran,
    the learning rate halved late (a plateau callback), no early-stopping line; then the script's
    own lines: curves saved, a metrics dict with the epochs run, the model saved."""
    lines = ["[fit] features: (12000, 640), val features: (4000, 640)", " Total params: 82,049"]
    for e in range(1, RAN + 1):
        lr = "1.0000e-03" if e < 7 else "5.0000e-04"
        lines += [
            f"Epoch {e}/{PLANNED}",
            f"94/94 - 0s - 2ms/step - accuracy: {0.98 + e / 1000:.4f} - loss: {_keras_loss(e)} "
            f"- val_accuracy: 0.9900 - val_loss: {0.004 + abs(e - 4) / 1000:.4f} - learning_rate: {lr}",
        ]
    return lines


_AFTER_FIT = [
    "[fit] curves written -> out/curves.png",
    f"[fit] summary: {{'epochs_ran': {RAN}, 'best_val_accuracy': 0.9931}}",
    "[fit] model written -> out/head.keras",
]


def test_a_keras_fit_the_script_went_on_after_is_no_cut_off_run(tmp_path):
    run = _read(tmp_path, _keras_head_log() + _AFTER_FIT)
    assert run.format == "console/keras"
    assert run.roles["loss"] == "loss" and run.roles["eval_loss"] == "val_loss"
    assert _series(run, "loss") == (RAN, 1.0, float(RAN), _keras_loss(1), _keras_loss(RAN))
    assert run.meta["completed"] is True
    assert any(f"epoch {RAN} of {PLANNED}" in note for note in run.notes)
    assert "TL080" not in {f.code for f in judge(run).findings}
    # a log that ends at the fit, ends in a traceback, or goes into an epoch it never ends: cut off
    for tail in ([], OOM_TRACEBACK, [f"Epoch {RAN + 1}/{PLANNED}", "[fit] curves written -> out/curves.png"]):
        run = _read(tmp_path, _keras_head_log() + tail)
        assert run.meta.get("completed") is not True
        assert "TL080" in {f.code for f in judge(run).findings}


def _gait_log(closing: str) -> list[str]:
    """Amogha-Mayya/Temporal-Gait-Occlusion-Detection outputs/train.log
    @783ee50338534ee2e3dba30f383f764c545e4017: ``[time] [INFO] [Epoch 00k] Train  loss=... acc=...``
    then the same for ``Val``, a saved-best line now and then, and at the end ``Training
    complete.``; Eiqbal25/fyp_call_analysis outputs/train.log
    @638f81a19009a3efeeedf26791a3e9c917d4e6c1 closes with ``train: TRAINING COMPLETE``."""
    lines = ["[2026-01-02 10:00:00] [INFO] Starting training for 12 epochs (starting from 0)"]
    for e in range(12):
        lines += [
            f"[2026-01-02 10:{e:02d}:10] [INFO] [Epoch {e:03d}] Train  loss={0.3 - e / 100:.4f}  acc=0.9{e:02d}",
            f"[2026-01-02 10:{e:02d}:40] [INFO] [Epoch {e:03d}] Val    loss={0.28 - e / 120:.4f}  acc=0.9{e:02d}",
        ]
    return lines + [f"[2026-01-02 10:59:59] [INFO] {closing}"]


def test_a_closing_training_complete_line_is_a_completion_record(tmp_path):
    for closing in ("Training complete.", "train: TRAINING COMPLETE", "Training completed!"):
        run = _read(tmp_path, _gait_log(closing))
        assert run.format == "console/general" and run.roles["loss"] == "loss"
        assert _series(run, "loss") == (12, 0.0, 11.0, 0.3, 0.19)
        assert run.meta.get("completed") is True, closing
    for progress in ("Training complete: 40%", "Training completed 3 of 12 folds"):
        assert _read(tmp_path, _gait_log(progress)).meta.get("completed") is not True, progress
