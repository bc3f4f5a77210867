"""Kinds a blind sample of outside logs (probe round 21b: the first repositories find_files lists for
``logs/train.out``, ``train.err`` and ``log/log.log``, labelled before trainlint read them) found
unread: a learned codec's rate-distortion objective printed as a bare ``L`` behind a bracketed
``[ep E step S ...]`` header, and a PPO loop's policy and value losses glued to their letter
(``ploss``, ``vloss``) beside a mean episode length (``steps=209.7``) and a wins/losses/draws triple
(``w=4/6/0``). Each fixture is made up in the shape of the real file (repository, path
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


UPDATES = 30


def _ppo(u: int) -> tuple[float, float]:
    """(ploss, vloss) of update ``u``."""
    return round(-0.0165 - 0.0001 * u, 4), round(19.1 + 0.5 * (u % 7), 1)


def _ppo_line(u: int) -> str:
    """ganascimento/ashborn-arena logs/train.out @77c38b65: a PPO self-play loop's
    ``  [ N] ep=E  r= R steps=S ploss=.. vloss=   .. ent=.. w=a/b/c (Ns)`` every 10 episodes."""
    ploss, vloss = _ppo(u)
    return (
        f"  [{u:4d}] ep={10 * u:<5d} r={20 + u / 3:6.1f} steps={150 + u % 9:5.1f} ploss={ploss:.4f} "
        f"vloss={vloss:7.1f} ent={1.2 + 0.01 * (u % 5):.3f} w={u}/{u + 2}/0 ({7 * u}s)"
    )


def test_one_letter_glued_to_the_loss_word_is_a_component_but_not_a_split_letter():
    from trainlint.role_structure import parse
    from trainlint.roles import assign_roles

    assert parse("ploss").kind == "part" and parse("ploss").part == "p"
    assert parse("Gloss").kind == "part"
    assert parse("vloss").kind is None and parse("tloss").kind is None  # train / validation as often
    assert assign_roles(["r", "ploss", "vloss", "ent"])["loss"] == "ploss"
    rec = read_line(_ppo_line(12))
    assert rec is not None and rec.inner is None and rec.step is None and rec.epoch == 120.0
    assert rec.values["steps"] == 153.0  # "steps=153.0": a mean, no counter
    rec = read_line("Epoch 2 batch 10/250 loss=0.5")
    assert rec is not None and rec.inner == (10.0, 250.0)  # a count is still a count


def test_a_ppo_log_of_glued_policy_and_value_losses_reads_the_policy_loss(tmp_path):
    path = tmp_path / "train.out"
    lines = ["nohup: ignoring input", "", "=" * 60, "  Phase 1 | teams=[1] | 300 episodes", "=" * 60]
    path.write_text("\n".join(lines + [_ppo_line(u) for u in range(1, UPDATES + 1)]) + "\n")
    run = read_run(path)
    assert run.roles["loss"] == "ploss"
    assert _series(run, "ploss") == (UPDATES, 10.0, 10.0 * UPDATES, _ppo(1)[0], _ppo(UPDATES)[0])
    assert len(run.series["vloss"]) == UPDATES
    # the mean episode length printed with a point is a metric, and the wins/losses/draws no counter:
    # the steps are the episodes, written in order (they had gone back and forth with "steps=151.0")
    assert len(run.series["steps"]) == UPDATES
    assert list(run.series["ploss"].steps) == sorted(run.series["ploss"].steps)
