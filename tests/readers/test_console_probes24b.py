"""Kinds a blind sample of outside logs (probe round 24b: the first repositories not in the corpus that
find_files lists for ``log_train.txt``, then ``finetune.log``, labelled before trainlint read them)
found read wrong: glue-factory's training line ``[E 0 | it 100] loss {total .., last .., ...}`` had
lost its counters to the frame stripper and its loss's name to the braces (``total``, ``last``), so the
run read as the fifteen ``New best val: loss/total=..`` notices; and a ``step S/N`` count with no epoch
on its line, starting again after each epoch's summary line, read as five relaunches into one log.
Each fixture is made up in the shape of the real file (repository, path and commit recorded with it;
no copied lines) and asserts the series read: names, steps, first and last values, and which is the
loss."""

from __future__ import annotations

from _consolekit import read_lines as _read
from _consolekit import series_ends as _series

from trainlint.api import judge

ITERS = 600  # a glue-factory epoch's iterations, logged every 100
EVERY = 100
EPOCHS = 4


def _total(epoch: int, it: int) -> float:
    return round(1.9 - 0.04 * epoch - 0.0001 * it, 4)


def _val(epoch: int) -> float:
    return round(0.7 - 0.05 * epoch, 4)


def _glue_factory_log() -> list[str]:
    """Ethrora/lg_w-_da finetune.log @d5620a8542166c780bbba8afc19cf720f38f11ec (glue-factory,
    LightGlue fine-tuned on MegaDepth): a timestamped logger frame, ``[E e | it i] loss {total ..,
    last .., ...}`` every 100 iterations (the count starts again each epoch), an evaluation bar, a
    ``[Validation] {... loss/total ..}`` line, and when the value is the best so far a ``Saving
    checkpoint`` line and ``New best val: loss/total=..``."""
    lines = [
        "[07/26/2025 10:27:00 gluefactory INFO] Starting experiment sp+lg_probe",
        "[07/26/2025 10:27:13 gluefactory INFO] Training loader has 600 batches",
    ]
    for e in range(EPOCHS):
        lines.append(f"[07/26/2025 1{e}:00:00 gluefactory INFO] Starting epoch {e}")
        for it in range(0, ITERS, EVERY):
            t = _total(e, it)
            lines.append(
                f"[07/26/2025 1{e}:{it // 10:02d}:00 gluefactory INFO] [E {e} | it {it}] loss {{total {t:.3E}, "
                f"last {t / 2:.3E}, assignment_nll {t / 2:.3E}, num_matchable 4.812E+02, row_norm 8.701E-01}}"
            )
        lines.append("Evaluation: 100%|##########| 30/30 [00:40<00:00,  1.30s/it]")
        v = _val(e)
        lines.append(
            f"[07/26/2025 1{e}:59:00 gluefactory INFO] [Validation] {{match_recall 8.1E-01, "
            f"loss/total {v:.3E}, loss/last {v:.3E}, loss/num_matchable 3.7E+02}}"
        )
        lines.append(
            f"[07/26/2025 1{e}:59:05 gluefactory.utils.experiments INFO] Saving checkpoint checkpoint_best.tar"
        )
        lines.append(f"[07/26/2025 1{e}:59:05 gluefactory INFO] New best val: loss/total={v + 0.000123}")
    return lines


def test_a_glue_factory_loss_group_with_its_epoch_and_iteration(tmp_path):
    run = _read(tmp_path, _glue_factory_log(), "finetune.log")
    assert run.format == "console/general"
    assert run.roles["loss"] == "loss/total"
    n, s0, s1, v0, v1 = _series(run, "loss/total")
    assert (n, s0, s1) == (EPOCHS * ITERS // EVERY, 0.0, float((EPOCHS - 1) * ITERS + ITERS - EVERY))
    assert (v0, v1) == (_total(0, 0), _total(EPOCHS - 1, ITERS - EVERY))
    assert "loss/last" in run.series and "total" not in run.series
    ev = run.roles["eval_loss"]
    assert _series(run, ev)[0] == EPOCHS and _series(run, ev)[3:] == (_val(0), _val(EPOCHS - 1))


BATCHES = 328
LOGGED = 20  # the count is printed every 20 batches


def _step_loss(epoch: int, s: int) -> float:
    return round(0.60 - 0.01 * epoch - 0.00002 * s, 5)


def _log_sentinel_log() -> list[str]:
    """Lukas1121/LogSentinel finetune.log @37b9bbe525e4359d13ab2c0d1af60c9627d7e62e (a hand-written
    fine-tuning loop): an indented ``step S/328  loss X`` every 20 batches with no epoch on the line,
    then after each epoch a blank line, ``[Unfrozen] Epoch e/500 -- train: X  val: Y  ppl: Z  (70s)``
    and a patience or ``New best saved`` line; the next epoch's count starts again at 20."""
    lines = ["  Loaded existing training log (15 epochs).", "  Phase 2 -- Unfrozen"]
    for e in range(1, 5):
        for s in range(LOGGED, BATCHES, LOGGED):
            lines.append(f"    step {s:4d}/{BATCHES}  loss {_step_loss(e, s):.5f}")
        lines += ["", f"[Unfrozen] Epoch {e}/500 -- train: {_step_loss(e, 300):.4f}  val: 0.6{e}00  ppl: 1.85  (70s)"]
        lines.append(f"  No improvement -- patience {e}/5")
    return lines


def test_a_step_count_that_starts_again_after_each_epoch_line_is_inside_the_epoch(tmp_path):
    run = _read(tmp_path, _log_sentinel_log(), "finetune.log")
    assert run.format == "console/general" and run.roles["loss"] == "loss"
    per = len(range(LOGGED, BATCHES, LOGGED))
    n, s0, s1, v0, v1 = _series(run, "loss")
    assert (n, s0, s1) == (4 * per, float(LOGGED), float(3 * BATCHES + (BATCHES // LOGGED) * LOGGED))
    assert (v0, v1) == (_step_loss(1, LOGGED), _step_loss(4, (BATCHES // LOGGED) * LOGGED))
    assert list(run.series["loss"].steps) == sorted(run.series["loss"].steps)
    assert not any("falls back" in note for note in run.notes)
    assert "TL095" not in {f.code for f in judge(run).findings}
    # with no epoch line between, the count starting again is still read as a relaunch into the log
    bare = _read(tmp_path, [ln for ln in _log_sentinel_log() if "Epoch" not in ln], "bare.log")
    assert _series(bare, "loss")[1:3] == (float(LOGGED), float((BATCHES // LOGGED) * LOGGED))
    assert any("falls back" in note for note in bare.notes)
