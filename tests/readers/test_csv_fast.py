"""The dense-table fast path of the CSV reader reads exactly what the csv-module path reads,
and declines every table it does not fully understand."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trainlint.readers import csv_log

CELL = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False, width=32).map(repr),
    st.integers(-(10**6), 10**6).map(str),
    st.sampled_from(["nan", "NaN", "inf", "-inf", "1e-05", " 0.5", "2.5 ", "1_000"]),
)
NAMES = st.lists(
    st.sampled_from(["step", "epoch", "loss", "train_loss", "lr", "grad_norm", "val_loss", "acc", "_step"]),
    min_size=2,
    max_size=6,
    unique=True,
)


def _both(tmp_path, text: str, monkeypatch):
    path = tmp_path / "metrics.csv"
    path.write_text(text)
    reader = csv_log.CsvReader()
    fast = reader.read(path)
    with monkeypatch.context() as mp:
        mp.setattr(csv_log, "_dense", lambda *a: None)
        general = reader.read(path)
    return fast, general


def _bits(x: np.ndarray) -> bytes:
    """The array's bytes with every NaN the same NaN: a NaN's sign bit carries nothing a reader
    reads (numpy's arithmetic may set it where Python's float("nan") does not), and comparing it
    made this test fail now and then under load (two helpers saw it; Hypothesis could not replay)."""
    return np.where(np.isnan(x), np.nan, x).tobytes()


def _same(a, b) -> None:
    assert list(a.series) == list(b.series)
    for name in a.series:
        assert _bits(a.series[name].steps) == _bits(b.series[name].steps), name
        assert _bits(a.series[name].values) == _bits(b.series[name].values), name
    assert a.notes == b.notes and a.meta == b.meta and a.damage == b.damage


@settings(max_examples=150, deadline=None)
@given(NAMES, st.data(), st.sampled_from([",", "\t", ";"]), st.booleans())
def test_dense_fast_path_equals_the_csv_module_path(tmp_path_factory, monkeypatch_session, names, data, delim, end_nl):
    rows = data.draw(st.lists(st.lists(CELL, min_size=len(names), max_size=len(names)), min_size=1, max_size=30))
    text = delim.join(names) + "\n" + "\n".join(delim.join(r) for r in rows) + ("\n" if end_nl else "")
    tmp = tmp_path_factory.mktemp("c")
    fast, general = _both(tmp, text, monkeypatch_session)
    assert csv_log._dense(text, names, delim) is not None  # the fast path did read it
    _same(fast, general)


@pytest.mark.parametrize(
    "body",
    [
        "1,2.5\n\n2,2.4\n",  # a blank row
        "1,2.5\n2,\n",  # an empty (sparse) cell
        "1,2.5,9\n2,2.4\n",  # ragged
        '1,"2.5"\n2,2.4\n',  # quoted
        "1,2.5\r\n2,2.4\r\n",  # CRLF
        "1,true\n2,2.4\n",  # a boolean
        "1,abc\n2,2.4\n",  # text
    ],
)
def test_dense_fast_path_declines_what_it_does_not_read(tmp_path, monkeypatch, body):
    text = "step,loss\n" + body
    assert csv_log._dense(text, ["step", "loss"], ",") is None
    fast, general = _both(tmp_path, text, monkeypatch)
    _same(fast, general)


@pytest.fixture(scope="module")
def monkeypatch_session():
    with pytest.MonkeyPatch.context() as mp:
        yield mp


@pytest.mark.parametrize("block", [1, 2, 7])
def test_dense_fast_path_in_blocks(tmp_path, monkeypatch, block):
    """Rows are converted a block at a time (bounded temporaries); the blocks join seamlessly."""
    monkeypatch.setattr(csv_log, "_DENSE_ROWS", block)
    text = "step,loss,lr\n" + "".join(f"{i},{3 - i / 10:.3f},{1e-4 * (i % 3)}\n" for i in range(17))
    fast, general = _both(tmp_path, text, monkeypatch)
    _same(fast, general)
    assert fast.series["loss"].values.tolist() == [round(3 - i / 10, 3) for i in range(17)]


def test_an_epoch_counted_on_past_two_to_the_53_agrees_on_both_paths(tmp_path, monkeypatch):
    """Hypothesis's draw (a helper's worktree, round 32f): an epoch column repeating 2**53 is
    counted on from there. Adding 1 a row stalls at 2**53 (its float spacing is 2) where the dense
    path adds the count to the base: both now add the count to the base."""
    text = "epoch,loss\n9007199254740992.0,0.0\n9007199254740992.0,0.0\n0.0,0.0"
    fast, general = _both(tmp_path, text, monkeypatch)
    _same(fast, general)
    assert list(general.series["loss"].steps) == [2.0**53, 2.0**53, 2.0**53 + 2]  # 2**53 + 1 rounds to 2**53
