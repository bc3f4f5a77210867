"""Kinds a blind sample of outside logs (probe round 23a: repositories 16 on of those find_files lists
for ``trainlog.txt``, then ``logs/training.txt``, labelled before trainlint read them) found read
wrong: a Lightning run of few epochs read at each step its bar was drawn at, where Lightning redraws
the ended epoch's bar at ``0/N`` (with that epoch's last postfix) before it names the next epoch:
the redraw had read as a point at step 0 holding the epoch's last loss, so the run's first steps
(a loss a hundred times higher, falling) read as a blow-up. Each fixture is made up in the shape of
the real file (repository, path and commit recorded with it; no copied lines) and asserts the
series read: names, steps, first and last values, and which is the loss."""

from __future__ import annotations

from _consolekit import read_lines as _read
from _consolekit import series_ends as _series

from trainlint.api import judge

TOTAL = 20
EPOCHS = 3


def _loss(k: int) -> float:
    """The loss after global step ``k``: from about 1200 down to about 7."""
    return round(7.0 + 1200.0 * 0.7**k, 1)


def _bar(epoch: int, i: int, post: str) -> str:
    pct = 100 * i // TOTAL
    return f"Epoch {epoch}: {pct:3d}%|##        | {i}/{TOTAL} [00:{i:02d}<00:07,  5.80it/s{post}]"


def _post(k: int, epoch_vals: str) -> str:
    return f", v_num=dq7a, train/loss_step_step={_loss(k):.4g}{epoch_vals}" if k else ""


def _traj_llm_log() -> list[str]:
    """imjaegyun/Traj-LLM trainlog.txt @6330fdb294b32f43be158177e368def6864e75a8 (Lightning TQDM bar,
    ``self.log("train/loss_step", on_step=True, on_epoch=True)``): each epoch's renders joined by
    ``\\r`` on one line (each step drawn twice: the count, then the postfix); after the epoch, the
    validation bars, the epoch's bar at N/N with ``val/loss`` and ``train/loss_step_epoch``, then
    the same bar reset to ``0/N`` (its postfix the ended epoch's) before ``Epoch e+1: 0%``."""
    lines = ["Sanity Checking DataLoader 0: 100%|##########| 2/2 [00:00<00:00,  7.16it/s]"]
    epoch_vals = ""
    for e in range(EPOCHS):
        renders = [_bar(e, 0, _post(e * TOTAL, epoch_vals))]
        for i in range(1, TOTAL + 1):
            k = e * TOTAL + i
            renders += [_bar(e, i, _post(k - 1, epoch_vals)), _bar(e, i, _post(k, epoch_vals))]
        lines.append("\r".join(renders))
        lines.append("Validation DataLoader 0: 100%|##########| 5/5 [00:00<00:00, 22.56it/s]")
        epoch_vals = f", val/loss={8.3 - 0.4 * e:.3f}, train/loss_step_epoch={_loss(e * TOTAL + 10):.4g}"
        k = (e + 1) * TOTAL
        lines.append("\r".join([_bar(e, TOTAL, _post(k, epoch_vals)), _bar(e, 0, _post(k, epoch_vals))]))
    return lines


def test_a_lightning_bar_reset_to_zero_is_no_step(tmp_path):
    run = _read(tmp_path, _traj_llm_log(), "trainlog.txt")
    assert run.format == "console/lightning"
    assert run.roles["loss"] == "train/loss_step_step" and run.roles["eval_loss"] == "val/loss"
    last = EPOCHS * TOTAL
    assert _series(run, "train/loss_step_step") == (last, 1.0, float(last), _loss(1), _loss(last))
    assert _series(run, "val/loss")[:3] == (EPOCHS, float(TOTAL), float(last))
    codes = {f.code for f in judge(run).findings}
    assert "TL012" not in codes and "TL010" not in codes


def _asr_log() -> list[str]:
    """jpnevrones/dump trainlog.txt @8bdcf8aa9e64597bc7cfebc38c1cbfca6cddcd6b: a timestamped
    ``epoch:E,iters:I,global_step:G,loss:X`` every ten iterations, a validation block after each
    epoch (a word and character error rate per utterance, then the average loss); the run
    relaunched inside its second epoch with its epoch counter back at 2 while the global step
    goes on."""
    lines: list[str] = []
    step = 0
    for epoch, iters in ((2, 150), (3, 40), (2, 150), (3, 150), (4, 150), (5, 150)):  # the third block: the relaunch
        for i in range(0, iters, 10):
            step += 10 if step else 1
            loss = round(880.0 / (1.0 + 0.05 * step), 4)
            lines.append(f"07-23 14:{step % 60:02d}:51 epoch:{epoch},iters:{i},global_step:{step},loss:{loss}")
        if iters < 150:
            continue
        lines.append(f"07-23 16:30:06 Epoch:{epoch},begin validation, batch_num:73")
        for u in range(10):
            lines.append(f"07-23 16:30:1{u} Ground Truth :he was in reverie sliding along the borders")
            lines.append(f"07-23 16:30:1{u} Word Error Rate :0.{epoch}{u} Charchter Error Rate:0.3{u}")
        lines.append(f"07-23 16:34:43 Epoch:{epoch},end 73 validation, avg_loss:{200.0 / epoch}, cer:0.7,wer:0.9")
    return lines


def test_a_global_step_after_the_count_inside_the_epoch_is_the_step(tmp_path):
    lines = _asr_log()
    run = _read(tmp_path, lines, "trainlog.txt")
    assert run.format == "console/general" and run.roles["loss"] == "loss"
    first, last = lines[0], [x for x in lines if "global_step" in x][-1]
    n, s0, s1, v0, v1 = _series(run, "loss")
    assert (n, s0, s1) == (79, 1.0, float(last.split("global_step:")[1].split(",")[0]))
    assert (v0, v1) == (float(first.rsplit(":", 1)[1]), float(last.rsplit(":", 1)[1]))
    assert list(run.series["loss"].steps) == sorted(run.series["loss"].steps)
    assert not any("falls back" in note for note in run.notes)


def _unet_log(glued_at: int) -> list[str]:
    """hijihyo/pytorch-unet trainlog.txt @77e6147056b19732ac24ba75e98529ee6a3744ef: an epoch's
    header, then the training and validation averages behind bracketed tags, padded with spaces
    (what the tqdm bar left on the line), an early-stopping and a checkpoint line. In one epoch the
    bar was left unfinished and the next print glued after its closing bracket on the same line."""
    lines = ["Current device: cuda"]
    for e in range(1, 21):
        train = f"  [TRAIN DATA] avg. acc: {0.90 + e / 1000:.5f} avg. loss: {1.0 - 0.03 * e:.5f}" + " " * 30
        if e == glued_at:
            train = f"Epoch [{e}/100]: [100/135]  74%|#######   , loss=0.303 [01:17<00:24]" + train
        lines += [
            f"Epoch {e}:",
            train,
            f"  [VALID DATA] avg. acc: {0.93 + e / 1000:.5f} avg. loss: {0.98 - 0.03 * e:.5f}" + " " * 30,
            f"  [EARLY STOP] counter: 0 best score: -{0.98 - 0.03 * e:.5f}",
            f"  [CHECKPOINT] model_{e}.pt",
        ]
    return lines


def test_a_print_glued_after_an_unfinished_bar_is_a_line_of_its_own(tmp_path):
    run = _read(tmp_path, _unet_log(glued_at=13), "trainlog.txt")
    assert run.format == "console/general"
    assert run.roles["loss"] == "avg._loss" and run.roles["eval_loss"] == "VALID_avg._loss"
    assert _series(run, "avg._loss") == (20, 1.0, 20.0, 0.97, 0.4)
    assert _series(run, "VALID_avg._loss") == (20, 1.0, 20.0, 0.95, 0.38)
    assert list(run.series["VALID_avg._loss"].steps) == sorted(run.series["VALID_avg._loss"].steps)
