"""Kinds a blind sample of outside logs (probe round 22a: the first repositories find_files lists for
``trainlog.txt``, labelled before trainlint read them) found read wrong or unread: a loop that runs
a training bar and then a smaller validation bar each epoch, both with a loss in their postfix and no
words in front of them (the validation bar's loss had been read into the training loss); and
ProtoPNet's blocks of one value a line under ``train`` and ``test`` lines, its objective printed as
``cross ent`` (the file had gone unread, and a ``test`` line had named only the line after it); and
runs appended to one log, the first with each ``Epoch i/N - Loss: X`` line printed twice (the twin
had read as a count repeated: the steps fell to the order of the lines, the runs ran together and
the next run's first loss read as a blow-up). Each
fixture is made up in the shape of the real file (repository, path and commit recorded with it; no
copied lines) and asserts the series read: names, steps, first and last values, and which is the
loss."""

from __future__ import annotations

from _consolekit import series_ends as _series

from trainlint.api import read_run
from trainlint.readers.console.objectives import evaluated, term_kind

EPOCHS = 12
TRAIN_BATCHES = 30
VAL_BATCHES = 8
FIRST_EPOCH = 47


def _seg(e: int) -> tuple[float, float, float, float]:
    """(loss, iou, val_loss, val_iou) of epoch ``e`` (from 0): training falls, validation wobbles."""
    return (
        round(0.2 - 0.004 * e, 4),
        round(0.34 + 0.02 * e, 4),
        round(0.27 + 0.03 * (e % 3), 4),
        round(0.05 + 0.01 * e, 4),
    )


def _bar(total: int, loss: float, iou: float) -> str:
    return f"100%|{'█' * 40}| {total}/{total} [09:37<00:00, 19.26s/it, loss={loss:.3g}, iou={iou:.3g}] "


def _nested_unet_log() -> list[str]:
    """Harry2830/Polyp-Segmentation trainlog.txt @2a6abfdd (4uiiurz1/pytorch-nested-unet's train.py):
    each epoch a training bar ``30/30 [.., loss=.., iou=..]``, a validation bar ``8/8 [.., loss=..,
    iou=..]``, then ``loss X - iou Y - val_loss Z - val_iou W`` and ``Epoch [N/300]``."""
    lines: list[str] = []
    for e in range(EPOCHS):
        loss, iou, val_loss, val_iou = _seg(e)
        lines += [_bar(TRAIN_BATCHES, loss, iou), _bar(VAL_BATCHES, val_loss, val_iou)]
        lines.append(f"loss {loss:.4f} - iou {iou:.4f} - val_loss {val_loss:.4f} - val_iou {val_iou:.4f}")
        if e % 5 == 2:
            lines.append("=> saved best model")
        lines.append(f"Epoch [{FIRST_EPOCH + e + 1}/300]")
    return lines


def test_a_smaller_bar_after_each_training_bar_is_the_validation_loop(tmp_path):
    path = tmp_path / "trainlog.txt"
    path.write_text("\n".join(_nested_unet_log()) + "\n")
    run = read_run(path)
    assert run.roles["loss"] == "loss"
    assert run.roles["eval_loss"] == "val_loss"
    first, last = _seg(0), _seg(EPOCHS - 1)
    assert _series(run, "loss")[0] == EPOCHS  # one point an epoch: the validation bars' losses are not in it
    assert _series(run, "loss")[3:] == (first[0], last[0])
    assert _series(run, "val_loss")[0] == EPOCHS
    assert _series(run, "val_loss")[3:] == (first[2], last[2])
    assert max(run.series["loss"].values) == first[0]  # no validation value (0.27 and up) among them


def _outer_bar_log() -> list[str]:
    """An outer bar over the epochs with the loss in its postfix, drawn after each epoch's inner
    bar: two totals alternate too, but the outer bar never runs to its end before the run does."""
    lines: list[str] = []
    for e in range(EPOCHS):
        loss = round(1.0 - 0.05 * e, 4)
        lines.append(f"100%|{'█' * 20}| 25/25 [00:03<00:00, 8.1it/s, loss={loss:.4f}]")
        lines.append(f" {e + 1:2d}%|{'█' * (e // 5)}| {e + 1}/100 [00:40<09:00, 3.1s/it, loss={loss:.4f}]")
    return lines


def test_an_outer_bar_over_the_epochs_is_no_validation_loop(tmp_path):
    path = tmp_path / "trainlog.txt"
    path.write_text("\n".join(_outer_bar_log()) + "\n")
    run = read_run(path)
    assert run.roles["loss"] == "loss"
    assert not any(name.startswith("val_") for name in run.series)


def _proto(e: int) -> tuple[float, float]:
    """(train cross ent, test cross ent) of epoch ``e``."""
    return round(4.9 - 0.06 * e, 6), round(4.6 - 0.04 * e, 6)


def _protopnet_block(e: int, split: str, ce: float) -> list[str]:
    return [
        f"\t{split}",
        f"\ttime: \t{1000.5 + 3 * e}",
        f"\tcross ent: \t{ce}",
        f"\tcluster: \t{0.09 - 0.001 * e}",
        f"\tseparation:\t{0.003 + 0.0001 * e}",
        f"\tavg separation:\t{37.1 + e}",
        f"\taccu: \t\t{5.0 + 0.5 * e}%",
        "\tl1: \t\t4475.595703125",
        f"\tp dist pair: \t{70.5 + 2 * e}",
    ]


def _protopnet_log(epochs: int) -> list[str]:
    """KodeRikke/FailureModes trainlog.txt @9cd7b8e8 (cfchen-duke/ProtoPNet's main.py and
    train_and_test.py): ``epoch: \tN``, a phase word (``\twarm``, ``\tjoint``), then a ``\ttrain``
    and a ``\ttest`` block of one ``\tname: \tvalue`` a line."""
    lines = ["start training"]
    for e in range(epochs):
        train, test = _proto(e)
        lines += [f"epoch: \t{e}", "\twarm" if e < 5 else "\tjoint"]
        lines += _protopnet_block(e, "train", train) + _protopnet_block(e, "test", test)
    return lines


def test_cross_ent_is_an_objective_term_and_its_test_split_twin_its_evaluation():
    assert term_kind("cross_ent") == "term"
    assert term_kind("cross_entropy") == "term"
    assert evaluated("cross_ent", ["cross_ent", "test_cross_ent", "test_accu"]) == "test_cross_ent"
    assert evaluated("cross_ent", ["cross_ent", "val_cross_ent", "test_cross_ent"]) == "val_cross_ent"
    assert evaluated("nll", ["nll", "test_ce"]) is None


def test_protopnet_blocks_under_train_and_test_lines_read_cross_ent_as_the_loss(tmp_path):
    epochs = 12
    path = tmp_path / "trainlog.txt"
    path.write_text("\n".join(_protopnet_log(epochs)) + "\n")
    run = read_run(path)
    assert run.roles["loss"] == "cross_ent"
    assert run.roles["eval_loss"] == "test_cross_ent"  # the objective measured on the test split, no val one
    assert _series(run, "cross_ent") == (epochs, 0.0, epochs - 1.0, _proto(0)[0], _proto(epochs - 1)[0])
    assert _series(run, "test_cross_ent") == (epochs, 0.0, epochs - 1.0, _proto(0)[1], _proto(epochs - 1)[1])
    assert len(run.series["accu"]) == len(run.series["test_accu"]) == epochs
    assert len(run.series["time"]) == epochs and len(run.series["test_time"]) == epochs


RUNS = (3, 5, 10)


def _summ(run: int, e: int) -> float:
    """The loss of epoch ``e`` (from 1) of run ``run``: each run starts high again."""
    return round(7.3 - 0.6 * e + 0.01 * run, 4)


def _summarizer_log() -> list[str]:
    """Hungnp05/Summarizer trainlog.txt @2f58c660: runs one after another, each under a
    ``--N epoch subset ...`` line, a tqdm bar then ``Epoch i/N - Loss: X`` per epoch; the first run's
    epoch lines printed twice each."""
    lines: list[str] = []
    for run, epochs in enumerate(RUNS):
        lines += [f"--{epochs} epoch subset 3000", "Bắt đầu training summarizer tự build..."]
        for e in range(1, epochs + 1):
            lines.append(f"100%|{'█' * 50}| 375/375 [04:12<00:00,  1.48it/s] ")
            line = f"Epoch {e}/{epochs} - Loss: {_summ(run, e):.4f}"
            lines += [line, line] if run == 0 else [line]
        lines += ["Đã lưu model vào summarizer_self_built.pt", ""]
    return lines


def test_a_line_printed_twice_is_one_record_and_appended_runs_stay_apart(tmp_path):
    path = tmp_path / "trainlog.txt"
    path.write_text("\n".join(_summarizer_log()) + "\n")
    run = read_run(path)
    loss = run.series[run.roles["loss"]]
    assert len(loss.steps) == sum(RUNS)
    assert [float(s) for s in loss.steps] == [float(e) for n in RUNS for e in range(1, n + 1)]
    assert float(loss.values[0]) == _summ(0, 1) and float(loss.values[-1]) == _summ(2, RUNS[-1])


def test_the_general_reader_reads_a_record_printed_twice_once(tmp_path):
    """A loop that prints each line to the console and to a logger on one file: a short run's lines
    twice each, then a longer run's once. The twins are one record each, at the epoch printed,
    and the second run starts again at epoch 1 (it had all been read in the order of the lines)."""
    lines = []
    for run, epochs in enumerate((4, 12)):
        for e in range(1, epochs + 1):
            line = f"[E{e}] Loss: {round(3.0 - 0.2 * e + 0.01 * run, 4)} | Acc: {round(0.5 + 0.02 * e, 3)}"
            lines += [line, line] if run == 0 else [line]
    path = tmp_path / "trainlog.txt"
    path.write_text("\n".join(lines) + "\n")
    run = read_run(path)
    assert run.roles["loss"] == "Loss"
    assert _series(run, "Loss") == (16, 1.0, 12.0, 2.8, 0.61)
    assert [float(s) for s in run.series["Loss"].steps] == [*range(1, 5), *range(1, 13)]
    assert any("printed again right after themselves" in note for note in run.notes)


def test_a_value_printed_again_under_an_epoch_counter_alone_is_a_new_batch(tmp_path):
    """A loop that prints ``Epoch E, Loss: X, ...`` every batch, the epoch alone as its counter, in
    bf16 (rwkv-rm-copilot-966, calibration: ``Epoch 41, Loss: 0.33203125, Positive Score: ..``): the
    same line twice in a row is two batches, both kept."""
    lines = []
    for e in range(1, 6):
        for b in range(6):
            loss = 0.5 if b in (2, 3) else round(0.7 - 0.05 * b - 0.02 * e, 4)
            lines.append(f"Epoch {e}, Loss: {loss}, Positive Score: 1.0, Negative Score: {loss}, N_POS:0|N_NEG:0")
    path = tmp_path / "output.log"
    path.write_text("\n".join(lines) + "\n")
    run = read_run(path)
    assert run.roles["loss"] == "Loss"
    assert len(run.series["Loss"].values) == 30
