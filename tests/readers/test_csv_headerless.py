"""A CSV without a header line (``f.write(f"{epoch},{loss},{val_loss}\\n")`` rows): its columns
are named column_1..column_n, a growing whole-number first column is the step, and nothing names
the loss, so the run is NOT-CHECKED with the --map that would choose one; --map then reads it."""

from __future__ import annotations

from trainlint.readers import csv_log


def _rows(n: int = 30) -> str:
    return "".join(f"{i},{2.5 - 0.05 * i:.4f},{2.6 - 0.04 * i:.4f}\n" for i in range(1, n + 1))


def test_headerless_columns_are_named_and_counted(tmp_path):
    path = tmp_path / "train_log.csv"
    path.write_text(_rows())
    run = csv_log.CsvReader().read(path)
    assert sorted(run.series) == ["column_2", "column_3"]
    loss = run.get("column_2")
    assert loss.steps.tolist() == [float(i) for i in range(1, 31)]
    assert loss.values[0] == 2.45 and loss.values[-1] == 1.0
    assert run.get("column_3").values[-1] == 1.4
    assert run.meta["no_loss"] == "no header line names the columns; use --map loss=column_2"


def test_headerless_without_counter_numbers_rows(tmp_path):
    path = tmp_path / "log.csv"
    path.write_text("".join(f"{2.5 - 0.05 * i:.4f},{0.1 * i:.2f}\n" for i in range(20)))
    run = csv_log.CsvReader().read(path)
    assert sorted(run.series) == ["column_1", "column_2"]
    assert run.get("column_1").steps.tolist() == [float(i) for i in range(20)]
    assert run.get("column_1").values[0] == 2.5
    assert "use --map loss=column_1" in run.meta["no_loss"]


def test_headerless_csv_end_to_end(cli, tmp_path):
    path = tmp_path / "train_log.csv"
    path.write_text(_rows())
    res = cli("doctor", path)
    assert res.code == 2, res.out
    assert "no header line names the columns; use --map loss=column_2" in res.out
    mapped = cli("doctor", path, "--map", "loss=column_2")
    assert mapped.code == 0, mapped.out
    assert "PASS" in mapped.out and "2.45" in mapped.out


def test_headerless_loss_file_named_by_its_name(cli, tmp_path):
    """A file named for its loss, a counter beside one value column: read without --map."""
    path = tmp_path / "train_loss.csv"
    path.write_text("".join(f"{i},{2.5 - 0.05 * i:.4f}\n" for i in range(1, 31)))
    res = cli("doctor", path)
    assert res.code == 0 and "30 points" in res.out, res.out
