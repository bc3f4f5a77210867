"""Parquet and Arrow metric tables (a W&B history export, a metrics DataFrame saved to Parquet)."""

from __future__ import annotations

import numpy as np
import pytest

pa = pytest.importorskip("pyarrow")
import pyarrow.feather as feather  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402

from trainlint.api import doctor  # noqa: E402
from trainlint.readers import read_run, reader_named, sniff  # noqa: E402
from trainlint.readers.stream import open_stream  # noqa: E402


def _wandb_history(path, n=300, nan_from=200):
    loss = np.r_[2.0 / np.arange(1, nan_from + 1) + 0.5, np.full(n - nan_from, np.nan)]
    table = pa.table(
        {
            "_step": np.arange(n),
            "_timestamp": 1.7e9 + np.arange(n, dtype=float),
            "train/loss": loss,
            "train/learning_rate": np.full(n, 1e-4),
            "eval/loss": pa.array([1.0 - i / 1000 if i % 50 == 0 else None for i in range(n)], pa.float64()),
            "run_name": ["x"] * n,  # text: not a metric
        }
    )
    pq.write_table(table, path)
    return path


def test_a_parquet_history_reads_steps_clock_nan_and_sparse_columns(tmp_path):
    p = _wandb_history(tmp_path / "history.parquet")
    assert sniff(p).name == "arrow-table"
    run = read_run(p)
    loss = run.series["train/loss"]
    assert loss.steps[0] == 0 and loss.steps[-1] == 299 and len(loss) == 300
    assert np.isnan(loss.values[200:]).all() and np.isfinite(loss.values[:200]).all()  # a NaN stays a NaN
    assert len(run.series["eval/loss"]) == 6  # nulls are metrics not logged on that row, not NaN
    assert loss.wall is not None and loss.wall[1] - loss.wall[0] == 1.0
    assert "run_name" not in run.series and "_step" not in run.series


def test_doctor_judges_a_metric_table_and_leaves_a_dataset_to_the_dataset_inspector(tmp_path):
    _wandb_history(tmp_path / "history.parquet")
    pq.write_table(pa.table({"text": ["a b c"] * 10, "label": [1] * 10}), tmp_path / "data.parquet")
    n = 120
    feather.write_feather(
        pa.table({"step": np.arange(n), "loss": 2.0 / np.arange(1, n + 1) + 0.5}), tmp_path / "m.arrow"
    )
    kinds = {r.source.rsplit("/", 1)[1]: (r.kind, r.format, r.verdict.value) for r in doctor(tmp_path).reports}
    assert kinds["history.parquet"] == ("log", "arrow-table", "FAIL")  # TL001: the NaN loss
    assert kinds["m.arrow"] == ("log", "arrow-table", "PASS")
    assert kinds["data.parquet"][0] == "dataset"


def test_without_pyarrow_an_arrow_table_is_not_checked_with_the_reason(tmp_path, monkeypatch):
    import trainlint.readers.arrow_table as mod

    n = 50
    p = tmp_path / "m.arrow"
    feather.write_feather(pa.table({"step": np.arange(n), "loss": np.linspace(2, 1, n)}), p)

    def missing():
        raise mod.ReadError("reading a Parquet/Arrow metric table needs pyarrow (pip install 'trainlint[data]')")

    monkeypatch.setattr(mod, "_pyarrow", missing)
    monkeypatch.setattr(mod, "_has_pyarrow", lambda: False)
    rep = doctor(p).reports[0]
    assert rep.verdict.value == "NOT-CHECKED" and "needs pyarrow" in rep.unjudged


def test_a_metric_table_is_followed_by_reading_it_again(tmp_path):
    p = _wandb_history(tmp_path / "history.parquet", n=100, nan_from=100)
    stream = open_stream(p, reader_named("arrow-table"))
    assert len(stream.poll().series["train/loss"]) == 100
    _wandb_history(p, n=150, nan_from=150)
    stream.poll()  # the file changed: read again once it stops changing
    frag = stream.poll() or stream.poll()
    assert frag is None or len(frag.series["train/loss"]) == 50
