"""Kinds a blind sample of outside logs (probe round 20c: the first repositories find_files lists for
``logs/log.log``, ``console.log`` and ``train_log.log``, labelled before trainlint read them) found
unread or read wrong: values printed in braces after their names (``loss : {0.3926}``), a count inside
the epoch that fell once because the log was cut in its second epoch, a validation line whose
split word stands in a banner (``#####Valid##### Epoch: 50, ..``), and a split word in parentheses
after a name (``Loss(val): 6.49``). Each fixture is made up in the
shape of the real file (repository, path and commit recorded with it; no copied lines) and asserts
the series read: names, steps, first and last values, and which is the loss."""

from __future__ import annotations

from _consolekit import series_ends as _series

from trainlint.api import read_run
from trainlint.readers.console.general import read_line
from trainlint.readers.console.text import unbrace_values

PER_EPOCH = 40  # batches an epoch in the braced log
SEEN = 25  # batches of the second epoch the log holds (it was cut there)
EPOCHS = 20  # the banner log's epochs


def _loss(e: int, s: int) -> float:
    return round(1.65 * 0.98 ** ((e - 1) * PER_EPOCH + s), 7)


def _braced_log() -> list[str]:
    """D641593/Lane_Segmentation train_log.log @fd3c881b: python logging's ``INFO epoch: {1/300}, step:
    {1/8250}, loss : {1.6534357}, lr : {0.0001000}`` a batch (a format string's doubled braces), the
    batch count starting again each epoch, the log cut in the second of 300 epochs."""
    lines = ["2022-02-11 16:22:52,432 INFO train using cuda"]
    for e, n in ((1, PER_EPOCH), (2, SEEN)):
        for s in range(1, n + 1):
            lines.append(
                f"2022-02-11 16:{22 + e}:{s:02d},129 INFO epoch: {{{e}/300}}, step: {{{s}/{PER_EPOCH}}}, "
                f"loss : {{{_loss(e, s):.7f}}}, lr : {{{0.0001 - 1e-7 * (e - 1):.7f}}}"
            )
    return lines


def test_values_printed_in_braces_after_their_names_are_read(tmp_path):
    """The log had been unread: no shape took a value inside braces. Now the braces go (a number or an
    N/M count alone inside them), and the batch count inside each epoch gives the step: the first
    epoch's 40 batches, then the second's, one series of 65 points at steps 1-65."""
    path = tmp_path / "train_log.log"
    path.write_text("\n".join(_braced_log()) + "\n")
    run = read_run(path)
    assert run.roles["loss"] == "loss"
    assert run.roles["learning_rate"] == "lr"
    n = PER_EPOCH + SEEN
    assert _series(run, "loss") == (n, 1.0, float(n), _loss(1, 1), _loss(2, SEEN))
    assert _series(run, "lr")[0] == n


def test_only_a_number_or_a_count_in_braces_is_unwrapped():
    assert unbrace_values("epoch: {2/300}, step: {7/8250}, loss : {0.3926410}") == (
        "epoch: 2/300, step: 7/8250, loss : 0.3926410"
    )
    assert unbrace_values("lr={1e-05} acc:{ 0.5 } loss = {0.25}") == "lr=1e-05 acc:0.5 loss = 0.25"
    # a dict, a set of several values, an f-string's field, a brace with no name before it: as printed
    for kept in ("stats: {'loss': 0.5}", "ids: {1, 2}", "loss: {loss:.4f}", "{0.5} loss 0.4"):
        assert unbrace_values(kept) == kept


def test_a_count_inside_the_epoch_that_fell_once_is_an_epoch_s_end(tmp_path):
    """The same log unbraced (``Epoch: 1/3, Step: 1/40, Loss: ..``), cut in its second epoch: the
    generic step shape had kept the count inside the epoch as the step (one fall, taken for a
    restart), and the points of both epochs lay on steps 1-40. The general reader composes the epoch
    and its count, and its steps never fall: it is taken now."""
    lines = [ln.replace("{", "").replace("}", "") for ln in _braced_log()]
    path = tmp_path / "train_log.log"
    path.write_text("\n".join(lines) + "\n")
    run = read_run(path)
    n = PER_EPOCH + SEEN
    assert run.roles["loss"] == "loss"
    assert _series(run, "loss") == (n, 1.0, float(n), _loss(1, 1), _loss(2, SEEN))


def test_a_run_appended_after_a_restart_still_falls_once(tmp_path):
    """A run relaunched into the same log (epoch and count both start again) falls in both readers'
    steps: the log keeps its two runs, one after the other, each of 40 points."""
    one = [ln for ln in _braced_log() if "epoch: {1/" in ln]
    path = tmp_path / "train_log.log"
    path.write_text("\n".join(one + one) + "\n")
    run = read_run(path)
    n, _, _, first, last = _series(run, "loss")
    assert (n, first, last) == (2 * PER_EPOCH, _loss(1, 1), _loss(1, PER_EPOCH))


def _r(e: int) -> float:
    return round(7.63 * 0.95**e, 4)


def _banner_log() -> list[str]:
    """TisonWang-SS/ImgDenoising train_log.log @a895f25f: a GAN's ``#####Train##### Epoch: 1, UNetR_Loss:
    7.6319, UNetG_Loss: -0.6770,           Discriminator_Loss: -1.7515,`` then ``#####Valid##### Epoch: 1,
    mae_loss: 0.0232, psnr_loss: 31.4175,           ssim_loss: 0.6822,`` each epoch, a tqdm bar before
    each, and the training time at the end."""
    lines = ["Training on cuda."]
    for e in range(1, EPOCHS + 1):
        lines.append(f"100%|{'#' * 20}| 92/92 [02:10<00:00,  1.42s/it]")
        lines.append(
            f"#####Train##### Epoch: {e}, UNetR_Loss: {_r(e):.4f}, UNetG_Loss: {0.5 + 0.01 * e:.4f},"
            f"           Discriminator_Loss: {-1.7 + 0.05 * e:.4f},"
        )
        lines.append(f"100%|{'#' * 20}| 12/12 [00:05<00:00,  2.20it/s]")
        lines.append(
            f"#####Valid##### Epoch: {e}, mae_loss: {0.023 - 0.0005 * e:.4f}, psnr_loss: {31.4 + 0.3 * e:.4f},"
            f"           ssim_loss: {0.68 + 0.01 * e:.4f},"
        )
    return [*lines, "-" * 60, "Total training time: 6:21:26.208473", "Done!"]


def test_a_validation_line_s_split_word_in_a_banner_keeps_its_metrics_out_of_the_loss(tmp_path):
    """The ``#####Valid#####`` lines had been merged into the training records: the loss was the sum
    of the generator's losses and the validation's ``mae_loss``, ``psnr_loss`` (31 to 37) and
    ``ssim_loss``. Now the banner's word names the line's split: the validation's metrics are its own,
    and the loss the generator's (the discriminator's left out, no total printed)."""
    path = tmp_path / "train_log.log"
    path.write_text("\n".join(_banner_log()) + "\n")
    run = read_run(path)
    assert run.roles["loss"] == "UNetG_Loss+UNetR_Loss"
    assert run.roles["eval_loss"] == "Valid_mae_loss+Valid_psnr_loss+Valid_ssim_loss"
    assert "psnr_loss" not in run.series
    assert _series(run, "UNetR_Loss") == (EPOCHS, 1.0, float(EPOCHS), _r(1), _r(EPOCHS))
    n, first, last = _series(run, "Valid_psnr_loss")[0], *_series(run, "Valid_psnr_loss")[3:]
    assert (n, first, last) == (EPOCHS, 31.7, round(31.4 + 0.3 * EPOCHS, 4))


def test_a_banner_of_equals_signs_names_the_split_too(tmp_path):
    lines = [
        ln.replace("#####Train#####", "===== Train =====").replace("#####Valid#####", "===== Valid =====")
        for ln in _banner_log()
    ]
    path = tmp_path / "train_log.log"
    path.write_text("\n".join(lines) + "\n")
    run = read_run(path)
    assert run.roles["loss"] == "UNetG_Loss+UNetR_Loss"
    assert _series(run, "Valid_ssim_loss")[0] == EPOCHS


def _mf(n: int) -> tuple[float, float]:
    return round(6.55 * 0.9**n + 1.6, 6), round(6.49 * 0.9**n + 1.9, 6)


def _aside_log() -> list[str]:
    """ECNUJason/datamining_hw2 train_log.log @a6fed19d: a matrix factorisation's ``- test.py:108 -
    train_log - [Prompt]Epoch:0, Current step: 1000, Loss(train): 6.551672, Loss(val): 6.492640,
    alpha:0.030000`` every 1000 steps, a saved matrix's two lines now and then."""
    lines = ["2019-04-29 00:54:10,622 - test.py:37 - train_log - first info message"]
    for n in range(1, 31):
        train, val = _mf(n)
        lines.append(
            f"2019-04-29 00:54:{n:02d},064 - test.py:108 - train_log - [Prompt]Epoch:{n // 16}, Current step: "
            f"{1000 * n}, Loss(train): {train:.6f}, Loss(val): {val:.6f}, alpha:0.030000"
        )
        if n % 5 == 0:
            lines += [
                f"2019-04-29 00:54:{n:02d},587 - test.py:169 - train_log - ",
                "[Saved Matrix P to file: P.csv]",
                "",
            ]
    return lines


def test_a_split_word_in_parentheses_after_a_name_names_its_split(tmp_path):
    """``Loss(train): .., Loss(val): ..``: both asides had been dropped, the two values named ``Loss``,
    and the first kept: the validation loss was lost. An evaluation split's word alone in the aside
    now names its value (``Loss_val``, the evaluation loss); the training one stays ``Loss``."""
    path = tmp_path / "train_log.log"
    path.write_text("\n".join(_aside_log()) + "\n")
    run = read_run(path)
    assert run.roles["loss"] == "Loss"
    assert run.roles["eval_loss"] == "Loss_val"
    assert _series(run, "Loss") == (30, 1000.0, 30000.0, _mf(1)[0], _mf(30)[0])
    assert _series(run, "Loss_val") == (30, 1000.0, 30000.0, _mf(1)[1], _mf(30)[1])


def test_an_aside_that_is_no_split_word_still_goes():
    rec = read_line("Epoch 3, Acc(train): 0.5, Acc(test): 0.6, Training Loss (avg over last 100): 0.18")
    assert rec is not None and rec.values == {"Acc": 0.5, "Acc_test": 0.6, "Training_Loss": 0.18}
