"""Metric tables saved by habit rather than by a logger: CSV with ``;`` between cells and decimal
commas (pandas' ``to_csv(sep=";", decimal=",")``), TensorBoard's CSV download of one scalar tag
(readers/csv_log.py), and per-epoch tables pasted into a Markdown file; tables that are no
training run (a dataset, a docs page's results) are not taken for one."""

from __future__ import annotations

import pytest

from trainlint.api import read_run
from trainlint.readers import sniff


def _ends(run, name):
    s = run.series[name]
    return len(s.steps), float(s.steps[0]), float(s.steps[-1]), float(s.values[0]), float(s.values[-1])


def _loss(i):
    return round(2.5 - i / 10, 4)


def test_semicolons_and_decimal_commas_are_read_as_numbers(tmp_path):
    # df.to_csv("log.csv", sep=";", decimal=","), the frame indexed by epoch
    path = tmp_path / "log.csv"
    rows = "".join(f"{e};{_loss(e)};{_loss(e) + 0.1}\n".replace(".", ",") for e in range(1, 16))
    path.write_text("epoch;loss;val_loss\n" + rows)
    run = read_run(path)
    assert run.format == "csv" and run.roles["loss"] == "loss" and run.roles["eval_loss"] == "val_loss"
    assert _ends(run, "loss") == (15, 1.0, 15.0, 2.4, pytest.approx(1.0))
    assert any("decimal commas" in n for n in run.notes)
    # pandas' unnamed index column and tabs between cells
    tsv = tmp_path / "log.tsv"
    tsv.write_text("\tloss\n" + "".join(f"{i}\t{_loss(i)}\n".replace(".", ",") for i in range(12)))
    assert _ends(read_run(tsv), "loss") == (12, 0.0, 11.0, 2.5, pytest.approx(1.4))


def test_commas_stay_delimiters_and_a_dataset_is_no_run(tmp_path):
    plain = tmp_path / "plain.csv"  # a comma-delimited table is untouched
    plain.write_text("step,loss\n" + "".join(f"{i},{_loss(i)}\n" for i in range(12)))
    assert _ends(read_run(plain), "loss") == (12, 0.0, 11.0, 2.5, pytest.approx(1.4))
    data = tmp_path / "iris.csv"  # a European dataset names no metric: not claimed
    data.write_text("sepal_length;sepal_width;species\n" + "5,1;3,5;setosa\n" * 20)
    assert sniff(data) is None


def _tb_csv(path):
    rows = "".join(f"{1_700_000_000.25 + 3 * i},{50 * i},{_loss(i)}\n" for i in range(20))
    path.write_text("Wall time,Step,Value\n" + rows)
    return path


def test_a_tensorboard_csv_download_is_named_after_its_file(tmp_path):
    run = read_run(_tb_csv(tmp_path / "run-lightning_logs_version_0-tag-train_loss.csv"))
    assert list(run.series) == ["train_loss"] and run.roles["loss"] == "train_loss"
    assert _ends(run, "train_loss") == (20, 0.0, 950.0, 2.5, pytest.approx(0.6))
    assert float(run.series["train_loss"].wall[1]) == 1_700_000_003.25  # the wall time is the clock
    run = read_run(_tb_csv(tmp_path / "run-train-tag-epoch_loss.csv"))  # Keras' train run
    assert list(run.series) == ["train/epoch_loss"] and run.roles["loss"] == "train/epoch_loss"
    assert read_run(_tb_csv(tmp_path / "train_loss.csv")).roles["loss"] == "train_loss"  # renamed after it


def test_a_tensorboard_csv_download_whose_name_says_nothing_is_read_but_no_loss(tmp_path):
    run = read_run(_tb_csv(tmp_path / "export.csv"))
    assert list(run.series) == ["Value"] and "loss" not in run.roles
    assert any("not taken as the loss" in n for n in run.notes)


def _md_rows(n, start=1):
    return "".join(f"| {e} | {_loss(e)} | **{_loss(e) + 0.1:.4f}** |\n" for e in range(start, start + n))


def test_a_readme_with_prose_and_a_per_epoch_table_is_read_for_the_table(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text(
        "# Fine-tuning\n\nWe trained for 12 epochs | batch 32.\n\n"
        "| Epoch | Train Loss | Val Loss |\n|:-----:|-----------:|:---------|\n" + _md_rows(12) + "| 13 | 1.2 | - |\n"
        "\nThe best checkpoint is epoch 12.\n"
    )
    assert sniff(readme).name == "markdown-table"
    run = read_run(readme)
    assert list(run.series) == ["Train Loss", "Val Loss"] and run.meta["steps_are"] == "epochs"
    assert run.roles["loss"] == "Train Loss" and run.roles["eval_loss"] == "Val Loss"
    assert _ends(run, "Train Loss") == (13, 1.0, 13.0, 2.4, 1.2)
    assert _ends(run, "Val Loss") == (12, 1.0, 12.0, 2.5, pytest.approx(1.4))  # "-" is no value


def test_a_plain_text_file_that_is_a_pasted_table_is_read(tmp_path):
    txt = tmp_path / "results.txt"
    txt.write_text("| step | loss |\n|---|---|\n" + "".join(f"| {100 * i} | {_loss(i)} |\n" for i in range(15)))
    assert _ends(read_run(txt), "loss") == (15, 0.0, 1400.0, 2.5, pytest.approx(1.1))


def test_a_table_whose_epoch_cells_say_of_how_many_takes_the_epoch(tmp_path):
    log = tmp_path / "training.md"  # "| 3/12 | ..." as a notebook's summary prints its epoch
    log.write_text("| Epoch | Loss |\n|---|---|\n" + "".join(f"| {e}/12 | {_loss(e)} |\n" for e in range(1, 13)))
    assert sniff(log).name == "markdown-table"
    assert _ends(read_run(log), "Loss") == (12, 1.0, 12.0, 2.4, pytest.approx(1.3))
    bad = tmp_path / "fractions.md"  # a ratio that does not grow is no step
    bad.write_text("| epoch | loss |\n|---|---|\n" + "".join(f"| 1/{e} | 0.{e} |\n" for e in range(1, 13)))
    assert sniff(bad) is None


def test_markdown_without_a_training_table_stays_unrecognised(tmp_path):
    docs = tmp_path / "results.md"  # a docs page's results: three models, no step
    docs.write_text(
        "## Results\n\n| model | loss | acc |\n|---|---|---|\n| a | 0.5 | 91 |\n| b | 0.4 | 92 |\n| c | 0.3 | 93 |\n"
    )
    assert sniff(docs) is None
    howto = tmp_path / "howto.md"  # a step column that counts a few instructions
    howto.write_text("| Step | Action |\n|---|---|\n" + "".join(f"| {i} | run cell {i} |\n" for i in range(1, 6)))
    assert sniff(howto) is None
    shuffled = tmp_path / "sweep.md"  # 12 rows whose "epoch" does not grow: a sweep's table, not a run
    shuffled.write_text("| epoch | loss |\n|---|---|\n" + "".join(f"| {e % 3 + 1} | 0.{e} |\n" for e in range(12)))
    assert sniff(shuffled) is None


def test_a_console_log_with_a_small_table_in_it_keeps_its_reader(tmp_path):
    log = tmp_path / "train.log"  # a table, but most of the head is the log's own lines
    log.write_text(
        "".join(f"Epoch {e} step {e * 10} loss {_loss(e)}\n" for e in range(1, 41))
        + "| epoch | loss |\n|---|---|\n"
        + "".join(f"| {e} | {_loss(e)} |\n" for e in range(1, 11))
    )
    assert getattr(sniff(log), "name", None) != "markdown-table"


def test_a_table_without_its_outer_pipes_is_read_too(tmp_path):
    path = tmp_path / "results.md"  # GitHub's table without the outer pipes
    path.write_text(
        "epoch | loss | val_loss\n--- | --- | ---\n" + "".join(f"{e} | {_loss(e)} | -\n" for e in range(1, 13))
    )
    run = read_run(path)
    assert list(run.series) == ["loss"] and _ends(run, "loss") == (12, 1.0, 12.0, 2.4, pytest.approx(1.3))
