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
