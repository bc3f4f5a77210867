"""Kinds a blind sample of outside logs (probe round 28c: training scripts named ``train_<model or
task>``; the files ``train_mnist.log``, ``train_bert.log``, ``train_lstm.log``, ``train_resnet.log``,
``train_ppo.log``, ``train_unet.log``, ``train_cnn.log``, ``train_dqn.log`` and ``train_sft.log``,
labelled before trainlint read them) found read wrong: python's warning printed on Windows
(``C:\\...\\module.py:8: FutureWarning: ...``) read as a pair ``module.py: 8``, a series of its
line number, because a name could start right after a path's backslash (never after a POSIX
path's slash). A warning from a file named like a loss (``dice_loss.py``) read as a loss beside
the printed one, and where no other loss was printed it became the loss, flat at its line number
(a false loss-flat FAIL). Each fixture is made up in the shape of the real file (repository, path
and commit recorded with it; no copied lines) and asserts the series read: names, steps, first
and last values, and which is the loss."""

from __future__ import annotations

import pytest
from _consolekit import read_lines as _read
from _consolekit import series_ends as _series

from trainlint.api import judge
from trainlint.readers import ReadError

_SITE = "C:\\Users\\someone\\AppData\\Local\\Programs\\Python\\Python311\\Lib\\site-packages"


def _val_loss(k: int) -> float:
    return round(2.0e-5 - 1.0e-6 * k, 9)


def _chunks_log() -> list[str]:
    """LivingW123/SAS-Analysis-Laser train_cnn.log @234a7f537b082b14155384278647f869c2076d9e (a Keras
    regressor trained chunk by chunk on Windows): after each chunk one ``chunk N | +S samples (total
    T) | val_loss X | best Y | lr Z | wall Ws`` line, each behind python's two-line warning from a
    module inside site-packages, its path written with backslashes."""
    lines = ["Generating 5,000 validation samples...", "Model: cnn_regressor"]
    for k in range(1, 16):
        lines.append(f"{_SITE}\\onnx_export\\export_lib.py:8: FutureWarning: np.object will be a scalar type.")
        lines.append('  if not hasattr(np, "object"):')
        best = min(_val_loss(j) for j in range(1, k + 1))
        lines.append(
            f"chunk {40 + k:3d} | +51,200 samples (total {51200 * k:,}) | val_loss {_val_loss(k):.3e} "
            f"| best {best:.3e} | lr 1.0e-05 | wall 31.{k % 10}s"
        )
    return lines


def test_a_windows_warning_path_is_no_metric(tmp_path):
    run = _read(tmp_path, _chunks_log(), "train_cnn.log")
    assert run.format == "console/general"
    assert not any(name.endswith(".py") for name in run.series)
    assert set(run.series) == {"chunk", "total", "val_loss", "best", "lr", "wall"}
    assert run.roles["loss"] == "val_loss" and run.roles["learning_rate"] == "lr"
    assert _series(run, "val_loss") == (15, 1.0, 15.0, 1.9e-5, 5.0e-6)
    assert _series(run, "chunk")[3:] == (41.0, 55.0)


def _loss(e: int) -> float:
    return round(0.9 / (1 + 0.2 * e), 4)


def _loss_module_log(loss: bool = True) -> list[str]:
    """The same shape where the warning comes from the project's own loss module (a made-up
    ``losses\\dice_loss.py:57: UserWarning``, printed at each epoch as in the file above), ahead of
    a Keras-style ``Epoch e/20 - loss X - accuracy Y`` line."""
    lines = []
    for e in range(1, 21):
        lines.append("C:\\work\\seg\\losses\\dice_loss.py:57: UserWarning: target size differs from input size.")
        lines.append("  return F.mse_loss(pred, target)")
        shown = f" - loss {_loss(e):.4f}" if loss else ""
        lines.append(f"Epoch {e}/20{shown} - accuracy {0.5 + e / 50:.4f}")
    return lines


def test_a_windows_warning_from_a_loss_module_is_no_loss(tmp_path):
    run = _read(tmp_path, _loss_module_log(), "train_unet.log")
    assert not any(name.endswith(".py") for name in run.series)
    assert run.roles["loss"] == "train_loss"  # the Keras-style line's loss, named as Keras' history does
    assert _series(run, "train_loss") == (20, 1.0, 20.0, _loss(1), _loss(20))
    codes = {f.code for f in judge(run).findings}
    assert "TL030" not in codes and "TL031" not in codes


def test_a_windows_warning_from_a_loss_module_is_no_flat_loss(tmp_path):
    with pytest.raises(ReadError, match="no known training-progress lines"):
        _read(tmp_path, _loss_module_log(loss=False), "train_unet.log")
