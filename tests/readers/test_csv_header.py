"""CSV headers are read as the csv module reads them: a quoted name holding the delimiter, a
doubled quote or a line break is one column, and the values stay under their own names."""

from __future__ import annotations

import csv
import io

from hypothesis import example, given, settings
from hypothesis import strategies as st

from trainlint.api import read_run
from trainlint.readers import csv_log, sniff

ODD = st.text(alphabet=st.sampled_from('ab,;"\n é_/'), min_size=1, max_size=8).filter(
    lambda s: s.strip() and s.strip().lower() not in csv_log.STEP_COLUMNS and s == s.strip()
)


def _write(path, names, rows, delim=","):
    buf = io.StringIO()
    w = csv.writer(buf, delimiter=delim, lineterminator="\n")
    w.writerow(names)
    w.writerows(rows)
    path.write_text(buf.getvalue())


@settings(max_examples=100, deadline=None)
@given(st.lists(ODD, min_size=1, max_size=4, unique=True), st.sampled_from([",", ";"]))
@example(extra=[",,\n,;", ","], delim=";")  # as wide with "," as with ";" over the first row only
def test_quoted_header_names_keep_their_values(tmp_path_factory, extra, delim):
    names = ["step", "loss", *extra]
    rows = [[i, 2.0 - i / 100, *[10 * (j + 1) + i for j in range(len(extra))]] for i in range(20)]
    path = tmp_path_factory.mktemp("c") / "metrics.csv"
    _write(path, names, rows, delim)
    run = csv_log.CsvReader().read(path)
    assert not run.damage, run.notes
    for j, name in enumerate(extra):
        assert run.get(name).values.tolist() == [10.0 * (j + 1) + i for i in range(20)], name
    assert run.get("loss").values.tolist() == [2.0 - i / 100 for i in range(20)]


def test_a_header_with_a_comma_in_a_quoted_name_is_recognised_and_read(tmp_path):
    """It was split at the quoted comma: every row then had 'the wrong number of fields' (a
    false TL100) and each value sat under its neighbour's name."""
    path = tmp_path / "metrics.csv"
    _write(path, ["step", "loss", 'acc "top,1"', "line\nbreak"], [[i, 1.0 / (i + 1), 0.5, 7] for i in range(10)])
    assert sniff(path) is not None and sniff(path).name == "csv"
    run = csv_log.CsvReader().read(path)
    assert not run.damage and not run.notes
    assert run.get('acc "top,1"').values.tolist() == [0.5] * 10
    assert run.get("line\nbreak").values.tolist() == [7.0] * 10


def test_a_cost_column_is_a_loss_only_beside_a_step_or_epoch_column(tmp_path):
    # 'cost' is the objective's classic name (Theano's tutorials, TF1 scripts: iter,cost), and as often money or
    # seconds in a table: a billing export's 'date,service,cost' is no training log
    from trainlint.api import read_run

    bill = tmp_path / "billing.csv"
    _write(bill, ["date", "service", "cost"], [[f"2024-01-{d:02d}", "gpu", f"{12.5 * d:.2f}"] for d in range(1, 20)])
    reader = sniff(bill)
    assert reader is None or reader.name != "csv"
    theano = tmp_path / "cost.csv"
    _write(theano, ["iter", "cost"], [[i * 100, f"{2.3 - 0.1 * i:.2f}"] for i in range(15)])
    assert sniff(theano).name == "csv"
    run = read_run(theano)
    assert run.roles["loss"] == "cost" and run.series["cost"].values[-1] == 0.9
    assert csv_log._is_metric_header(["epoch", "cost", "accuracy"])
    assert not csv_log._is_metric_header(["region", "total_cost"])
    assert csv_log._is_metric_header(["region", "loss"])  # a name saying loss needs nothing more


def test_comment_lines_before_the_header_are_skipped(tmp_path):
    # a run's settings written as comments above the table (f.write(f"# lr={lr}\n") before the writer's header)
    path = tmp_path / "metrics.csv"
    rows = "".join(f"{e},{2.0 / e},{2.2 / e}\n" for e in range(1, 21))
    path.write_text("# run 3\n# lr=0.001, batch_size=32\n\nepoch,loss,val_loss\n" + rows)
    run = read_run(path)
    assert run.format == "csv" and run.roles["loss"] == "loss"
    s = run.series["loss"]
    assert (len(s.steps), float(s.steps[0]), float(s.steps[-1]), float(s.values[-1])) == (20, 1.0, 20.0, 0.1)


def test_a_commented_header_over_numbers_is_the_header(tmp_path):
    # np.savetxt("history.csv", arr, delimiter=",", header="epoch,loss,val_loss") marks its header with "# "
    path = tmp_path / "history.csv"
    rows = "".join(f"{float(e):.18e},{2.0 / e:.18e},{2.2 / e:.18e}\n" for e in range(1, 21))
    path.write_text("# epoch,loss,val_loss\n" + rows)
    run = read_run(path)
    assert run.roles["loss"] == "loss" and run.roles["eval_loss"] == "val_loss"
    assert len(run.series["loss"].steps) == 20 and float(run.series["loss"].values[-1]) == 0.1


def _search_results(rows: list[tuple[int, int, int, float, float]]) -> str:
    return "d_model,num_heads,num_layers,train_loss,val_loss\n" + "".join(
        f"{d:.1f},{h:.1f},{n:.1f},{t},{v}\n" for d, h, n, t, v in rows
    )


def test_a_search_results_table_is_no_training_run(tmp_path):
    """Made up in the shape of danielruijs/dd2424-project hp_tuning/hparams_table_transformer.csv
    (round 32f): one row per transformer configuration, no step column, sorted by val loss (so the
    losses climb down the rows and read as a diverging curve)."""
    import pytest

    from trainlint.readers.base import ReadError

    grid = [(d, h, n) for n in (2, 1) for d in (128, 384) for h in (2, 6, 10)]
    rows = [(d, h, n, round(0.9 + 0.1 * i, 3), round(1.1 + 0.1 * i, 3)) for i, (d, h, n) in enumerate(grid)]
    path = tmp_path / "hparams_table.csv"
    path.write_text(_search_results(rows))
    with pytest.raises(ReadError, match="results table, not a training run"):
        read_run(path)


def test_a_step_less_table_with_one_setting_column_is_still_a_run(tmp_path):
    # a step-less loss table with a learning rate beside it (a schedule's lr, one value per row) reads as rows
    path = tmp_path / "history.csv"
    path.write_text(
        "lr,loss,val_loss\n" + "".join(f"{1e-3 * 0.9**i:.6f},{2.0 - 0.1 * i},{2.1 - 0.09 * i}\n" for i in range(12))
    )
    run = read_run(path)
    assert run.meta["steps_are"] == "rows" and len(run.series["loss"].finite()) == 12
    # and two settings that never repeat a value (a run's own columns, not a grid) read as rows too
    path.write_text(
        "lr,dropout,loss\n" + "".join(f"{1e-3 * 0.9**i:.6f},{0.5 - 0.01 * i},{2.0 - 0.1 * i}\n" for i in range(12))
    )
    assert len(read_run(path).series["loss"].finite()) == 12
    # where a grid's settings repeat, the same columns make it a results table
    from trainlint.readers.csv_log import SETTING_COLUMNS

    assert SETTING_COLUMNS == 2
