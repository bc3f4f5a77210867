"""Real logs outside the corpus that the console sniffer missed or read in part (issue 29, probe round
15b): a ``.txt`` log whose training lines start late (after a long banner with no console noise in its
first 8 KiB, or after more than 128 KiB of setup prints), and clauses ``NAME is VALUE`` printed one
after another with no separator. Each fixture is made up in the shape of the real log (repository,
path and commit recorded with it; no copied lines) and asserts the series read: names, steps, first
and last values, and which is the loss."""

from __future__ import annotations

import random

from _consolekit import read_lines as _read
from _consolekit import series_ends as _series

from trainlint.api import read_run
from trainlint.readers import sniff


def _val(k: int, start: float) -> float:
    return round(start * 0.97**k + 0.05, 4)


def _bar(epoch: int, i: int, total: int, post: str) -> str:
    pct = 100 * i // total
    return f"Epoch {epoch}: {pct:3d}%|##        | {i}/{total} [00:{i % 60:02d}<00:30,  3.90it/s, v_num=0{post}]"


def _lightning_bars(epochs: int, total: int) -> str:
    """Lightning's tqdm bar, redrawn with ``\\r``, one line an epoch: ``train_loss`` in its postfix."""
    out = []
    for e in range(epochs):
        bars = [_bar(e, i, total, f", train_loss={_val(e * total + i, 2.0):.3f}") for i in range(1, total + 1)]
        out.append("\r".join(bars))
    return "\n".join(out)


def _banner(size: int) -> list[str]:
    """A banner of data statistics with no console noise (no level, no ``it/s``, no ``\\r``)."""
    lines = ["=" * 70, "PHASE I-B: SIMULATION AND DATA MODULES", "=" * 70, ""]
    k = 0
    while sum(len(x) + 1 for x in lines) < size:
        k += 1
        lines += [f"[Simulation Parameters {k}]", " Samples to generate: 10,000", " Cells per sample: 1,000"]
        lines += [f" Generated {j * 1000:,} / 10,000 samples..." for j in range(1, 11)]
        lines += [" Mean total counts: 1241057", " CPM-normalized bulk data mean: 200.00", ""]
    return lines


def test_a_long_banner_with_no_console_noise_before_the_first_bar(tmp_path):
    """hanv14/HP-VADE log_train.txt @7bf7644f: 13 KiB of simulation and dataloader statistics
    (headers of ``=``, ``Generated 1,000 / 10,000 samples...``) before Lightning's first bar: the
    first 8 KiB holds no console noise, so the file was never looked at further (NOT-CHECKED)."""
    p = tmp_path / "log_train.txt"
    p.write_text("\n".join(_banner(13_000)) + "\n" + _lightning_bars(3, 40) + "\n", encoding="utf-8")
    assert sniff(p).name == "console"
    run = read_run(p)
    assert run.roles["loss"] == "train_loss"
    # three epochs are fewer points than the trend rules need: a point at each redraw (probes16d)
    assert _series(run, "train_loss") == (120, 1.0, 120.0, round(_val(1, 2.0), 3), round(_val(120, 2.0), 3))


def _setup_prints(size: int) -> list[str]:
    lines = ["[2025-08-14 23:15:19,246] [INFO] [real_accelerator.py:260:get_accelerator] Setting ds_accelerator"]
    k = 0
    while sum(len(x) + 1 for x in lines) < size:
        k += 1
        lines.append(
            f"[WanVideoDataset __getitem__] -> Video longer than max_frame, crop from {k % 300} to {k % 300 + 25}"
        )
        lines.append(
            f"[Pipeline] model_fn -> noise_pred shape: torch.Size([1, 16, 7, 50, {k % 80}]), dtype: torch.float16"
        )
    return lines


def test_training_bars_that_start_after_the_first_128_kib(tmp_path):
    """FoxNickel/OmniAvatar train_log.txt @388ae108: a config dump, DeepSpeed's INFO lines and
    dataset/pipeline debug prints fill the first 280 KiB; Lightning's bars (``train_loss_step=...``)
    come after. The first 128 KiB holds console noise and no progress: the last 128 KiB is looked
    at too."""
    p = tmp_path / "train_log.txt"
    bars = [_bar(0, i, 100, f", train_loss_step={_val(i, 1.5):.3f}") for i in range(1, 31)]
    tail = [f"{b}\n[Pipeline] training_step -> loss: {_val(i + 1, 1.5):.4f}" for i, b in enumerate(bars)]
    p.write_text("\n".join(_setup_prints(280_000) + tail) + "\n", encoding="utf-8")
    assert p.stat().st_size > 2 * 128 * 1024
    assert sniff(p).name == "console"
    run = read_run(p)
    assert run.roles["loss"] == "train_loss_step"
    assert _series(run, "train_loss_step") == (30, 1.0, 30.0, round(_val(1, 1.5), 3), round(_val(30, 1.5), 3))


def test_a_long_text_with_no_console_noise_stays_unclaimed(tmp_path):
    """A dataset's ``train.txt`` (sentences, no console noise anywhere) is never a console log, even
    where a line says ``loss``; nor is a long binary file named ``.txt``."""
    words = "the model reduced the loss of information in the corpus across every sentence".split()
    rng = random.Random(7)
    p = tmp_path / "train.txt"
    p.write_text("\n".join(" ".join(rng.choices(words, k=12)) for _ in range(30_000)) + "\n", encoding="utf-8")
    assert sniff(p) is None
    b = tmp_path / "weights.txt"
    b.write_bytes(bytes(rng.randrange(256) for _ in range(300_000)))
    assert sniff(b) is None


def test_two_is_clauses_with_no_separator(tmp_path):
    """HoustonJ2013/Capstone_DL_Object_detection train_log.txt @ed683fb2 (a Keras PSPNet loop):
    ``0/10105 in 0 epoch finished at time 0:00:28.35 from start, Loss is 2.64 Acc is 0.41``; the two
    clauses were one, so nothing was read. Each clause is read, and ``in 0`` is no metric."""
    lines = ["Namespace(batch_size=2, learning_rate=1e-05, num_epoch=1, optimizer='Adam')"]
    lines.append("No. 10105 of batches for each epoch")
    for i in range(25):
        loss, acc = _val(i, 2.6), round(0.4 + i / 100, 6)
        lines.append(
            f"{i}/10105 in 0 epoch finished at time 0:00:{28 + 2 * i:02d}.354570 from start, Loss is {loss:.6f} Acc is {acc:.6f}"
        )
    run = _read(tmp_path, lines, "train_log.txt")
    assert run.roles["loss"] == "Loss" and "in" not in run.series
    assert _series(run, "Loss") == (25, 0.0, 24.0, _val(0, 2.6), _val(24, 2.6))
    assert _series(run, "Acc") == (25, 0.0, 24.0, 0.4, 0.64)


def test_an_is_clause_placed_by_its_counters_stays_one(tmp_path):
    """``Loss at epoch 0 and iteration 500 is 0.21``: one clause (its counters in its name), as before."""
    lines = [f"Loss at epoch 0 and iteration {i * 100} is {_val(i, 1.0):.4f}" for i in range(1, 13)]
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "Loss"
    assert _series(run, "Loss") == (12, 100.0, 1200.0, _val(1, 1.0), _val(12, 1.0))


def _speedometer(names: dict[str, float], batches: int) -> list[str]:
    """MXNet before 1.0: one line a metric, each with the batch's count and speed."""
    lines = []
    for k in range(1, batches + 1):
        for name, start in names.items():
            lines.append(
                f"Epoch[0] Batch [{20 * k}]\tSpeed: {250 + k}.5 samples/sec\tTrain-{name}={_val(k, start):.6f}"
            )
    lines += [f"Epoch[0] Train-{name}={_val(batches, start):.6f}" for name, start in names.items()]
    return lines + ["Epoch[0] Time cost=106.624"]


def test_mxnet_before_1_0_one_line_a_metric_of_the_same_batch(tmp_path):
    """BingzheWu/ssd-sign train.log @e74f1bd0 (MXNet's SSD example): ``Epoch[145] Batch [20]\\tSpeed:
    36.22 samples/sec\\tTrain-Acc=0.77``, then the same batch's ``Train-ObjectAcc=`` and
    ``Train-SmoothL1=`` lines. Each line had been a step of its own, the names glued to the speed
    (``samples/sec_Train-SmoothL1``): the lines of one batch are one step, and the loss is the
    objective term SmoothL1."""
    run = _read(tmp_path, _speedometer({"Acc": 0.2, "ObjectAcc": 0.1, "SmoothL1": 40.0}, 12))
    assert run.format == "console/mxnet" and not any("samples/sec" in n for n in run.series)
    assert run.roles["loss"] == "Train-SmoothL1"
    assert _series(run, "Train-SmoothL1") == (12, 0.0, 11.0, _val(1, 40.0), _val(12, 40.0))
    assert _series(run, "Train-Acc")[:3] == (12, 0.0, 11.0) and _series(run, "samples_per_sec")[0] == 12


def test_mxnet_before_1_0_two_objective_terms_summed(tmp_path):
    """The SSD example's own metric (MultiBoxMetric): ``Train-CrossEntropy=`` and
    ``Train-SmoothL1=`` lines of the same batch; the loss is their sum."""
    run = _read(tmp_path, _speedometer({"CrossEntropy": 1.9, "SmoothL1": 0.3}, 12))
    loss = run.roles["loss"]
    assert set(loss.split("+")) == {"Train-CrossEntropy", "Train-SmoothL1"}
    n, first, last, v0, _ = _series(run, loss)
    assert (n, first, last) == (12, 0.0, 11.0) and abs(v0 - _val(1, 1.9) - _val(1, 0.3)) < 1e-9
