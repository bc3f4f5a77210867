"""Kinds a blind sample of outside logs (probe round 21b: the first repositories find_files lists for
``logs/train.out``, ``train.err`` and ``log/log.log``, labelled before trainlint read them) found
unread: a learned codec's rate-distortion objective printed as a bare ``L`` behind a bracketed
``[ep E step S ...]`` header. Each fixture is made up in the shape of the real file (repository, path
and commit recorded with it; no copied lines) and asserts the series read: names, steps, first and
last values, and which is the loss."""

from __future__ import annotations

from _consolekit import series_ends as _series

from trainlint.api import read_run
from trainlint.readers.console.general import read_line, strip_frame
from trainlint.readers.console.objectives import founds, objective

STEPS = 14
EVERY = 20
PER_EPOCH = 256


def _rd(i: int) -> tuple[float, float, float]:
    """(L, D, R): the objective L = D + lambda * R, falling."""
    d = round(0.35 * 0.95**i, 4)
    r = round(0.45 * 0.97**i, 4)
    return round(d + 0.01 * r, 4), d, r


def _codec_line(i: int) -> str:
    """Darmasus/Darma logs/train.out @795ea94c: ``[ep E step S t= Ns vram= NMB] L=.. D=.. PSNR= .. R=.. bpp``
    every 20 steps, a ``saved checkpoints/...`` line at each epoch's end."""
    step = i * EVERY
    loss, d, r = _rd(i)
    return (
        f"[ep {step // PER_EPOCH} step {step:5d} t={5 + 2 * step:7d}s vram= 5904MB] "
        f"L={loss:.4f}  D={d:.4f}  PSNR={4.7 + 0.1 * i:5.2f}  R={r:.4f} bpp"
    )


def _codec_log() -> list[str]:
    lines: list[str] = []
    for i in range(STEPS):
        lines.append(_codec_line(i))
        if (i + 1) * EVERY % PER_EPOCH < EVERY:
            lines.append(f"saved checkpoints/base.pt (epoch {i * EVERY // PER_EPOCH}, step {(i + 1) * EVERY})")
    return lines


def test_a_capital_l_founds_the_objective_a_lower_case_l_does_not():
    assert founds("L")
    assert not founds("l")
    assert objective(["L", "D", "PSNR", "R"]) is not None
    assert objective(["L", "D", "PSNR", "R"]).names == ("L",)  # type: ignore[union-attr]
    assert objective(["l", "PSNR"]) is None


def test_a_bracketed_epoch_and_step_header_keeps_its_counters():
    assert strip_frame("[ep 3 step   940 t=   1785s vram= 5904MB] L=0.5311").startswith("ep 3 step   940")
    assert strip_frame("[train.py] loss=0.5") == "loss=0.5"  # a tag is still a frame
    rec = read_line(_codec_line(3))
    assert rec is not None and rec.values["L"] == _rd(3)[0]


def test_a_rate_distortion_log_reads_l_as_its_loss_at_its_steps(tmp_path):
    path = tmp_path / "train.out"
    path.write_text("\n".join(_codec_log()) + "\n")
    run = read_run(path)
    assert run.roles["loss"] == "L"
    assert _series(run, "L") == (STEPS, 0.0, float((STEPS - 1) * EVERY), _rd(0)[0], _rd(STEPS - 1)[0])
    assert {"D", "R", "PSNR"} <= set(run.series)
