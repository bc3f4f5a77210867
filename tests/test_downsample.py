import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trainlint.downsample import minmax_downsample, sparkline


def test_short_series_is_returned_whole():
    s, v = minmax_downsample(np.arange(10), np.linspace(1, 0, 10), 500)
    assert len(s) == 10 and v[0] == 1.0


def test_spike_and_nan_survive_a_million_points():
    n = 1_000_000
    v = np.linspace(3.0, 1.0, n)
    v[123_457] = 50.0  # one spike
    v[876_543] = np.nan  # one NaN
    s, d = minmax_downsample(np.arange(n), v, 500)
    assert len(d) <= 500
    assert 50.0 in d and 123_457 in s
    assert np.isnan(d).sum() == 1 and s[np.isnan(d)][0] == 876_543
    assert np.all(np.diff(s) > 0)  # step order kept
    assert d[0] == 3.0  # the first bucket keeps the start (its max)


def test_inf_only_bucket_and_min_points():
    v = np.full(1000, np.inf)
    s, d = minmax_downsample(np.arange(1000), v, 10)
    assert len(d) <= 10 and np.isinf(d).all()
    with pytest.raises(ValueError):
        minmax_downsample(np.arange(3), np.ones(3), 1)


def test_sparkline_shape_and_marks():
    line = sparkline(np.linspace(4, 1, 1000), 7)
    assert len(line) == 7 and line[0] == "█" and line[-1] == "▁"
    v = np.linspace(4, 1, 1000)
    v[500] = np.nan
    assert "!" in sparkline(v, 7)
    spiky = np.ones(1000)
    spiky[300] = 9.0
    assert "█" in sparkline(spiky, 7)


def test_judged_run_carries_downsampled_curves():
    from trainlint.engine import judge_run
    from trainlint.model import Run, Series
    from trainlint.roles import assign_roles

    n = 5000
    v = np.linspace(3.0, 1.0, n)
    v[2500] = 40.0
    run = Run(source="x.jsonl", format="jsonl", series={"loss": Series("loss", np.arange(n), v)})
    run.roles = assign_roles(run.series)
    report = judge_run(run)
    c = report.curves["loss"]
    assert c["points"] == n and len(c["values"]) <= 1000 and 40.0 in c["values"]
    assert "curves" not in report.to_dict() and report.to_dict(curves=True)["curves"]["loss"]["name"] == "loss"


# The implementation before the all-finite fast path and the split of the last bucket: kept as
# the reference the current one must equal, index for index.
def _reference_kept(values: np.ndarray, buckets: int) -> np.ndarray:
    n = len(values)
    width = -(-n // buckets)  # ceil
    rows = -(-n // width)
    padded = np.full(rows * width, np.nan)
    padded[:n] = values
    grid = padded.reshape(rows, width)
    real = (np.arange(rows * width) < n).reshape(rows, width)
    finite = np.isfinite(grid)
    lo = np.argmin(np.where(finite, grid, np.inf), axis=1)
    hi = np.argmax(np.where(finite, grid, -np.inf), axis=1)
    bad = real & ~finite
    has_bad = bad.any(axis=1)
    first_bad = np.argmax(bad, axis=1)
    lo = np.where(has_bad, first_bad, lo)
    has_finite = finite.any(axis=1)
    hi = np.where(has_finite, hi, lo)
    base = np.arange(rows) * width
    idx = np.concatenate([base + lo, base + hi])
    return np.unique(idx[idx < n])


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.floats(allow_nan=True, allow_infinity=True, width=64) | st.floats(-10, 10),
        min_size=1,
        max_size=400,
    ),
    st.integers(1, 60),
)
def test_kept_indices_equal_the_reference(values, buckets):
    from trainlint.downsample import _kept_indices

    a = np.array(values, dtype=np.float64)
    np.testing.assert_array_equal(_kept_indices(a, buckets), _reference_kept(a, buckets))


def test_an_early_50x_spike_shows_with_the_end_level():
    """Issue 33: a run that went 1.4 → 7.5 with an early spike to 70 was drawn as a falling curve."""
    from trainlint.downsample import spark

    v = np.linspace(1.4, 7.5, 1000)
    v[100] = 70.0
    drawn = spark(v, 16)
    assert drawn.text[0] == "▁" and drawn.text[-1] == "█", drawn  # the climb to the end level
    assert drawn.text[1] == "↑" and drawn.above == (1,) and not drawn.log  # the spike, above the scale
    old_shape = np.linspace(2.0, 1.0, 1000)
    old_shape[80] = 100.0  # 50x: still a falling curve with its spike
    assert spark(old_shape, 16).text.startswith("█↑▇")


def test_sparkline_log_scale_past_two_orders_of_magnitude():
    from trainlint.downsample import spark

    decay = 1000.0 * np.exp(-np.linspace(0, 9, 1000))  # 1000 → 0.12
    drawn = spark(decay, 16)
    assert drawn.log and len(set(drawn.text)) >= 7, drawn  # every level used, not 15 cells of ▁
    assert not spark(np.linspace(50, 1, 1000), 16).log  # 50x: linear


def test_sparkline_last_cell_is_the_last_point():
    from trainlint.downsample import spark

    v = np.linspace(3, 1, 1000)
    v[-1] = np.nan  # a blow-up on the last step only
    assert spark(v, 16).text[-1] == "!"
    v[-1] = 3.0  # back at the start level at the very end
    assert spark(v, 16).text[-1] == "█"
    wobble = np.tile([1.0, 1.5], 500)  # an oscillation is not a spike
    assert "↑" not in spark(wobble, 16).text


def test_curve_text_marks_best_point_spike_and_log_scale():
    from trainlint.report.common import curve_text

    v = np.linspace(1.4, 7.5, 200)
    v[20] = 70.0
    text = curve_text({"steps": list(range(0, 400, 2)), "values": v.tolist()})
    assert "1.4 → 7.5 (+436 %), best 1.4 @0, ↑ 70 @40" in text, text
    decay = (1000.0 * np.exp(-np.linspace(0, 9, 200))).tolist()
    text = curve_text({"steps": list(range(200)), "values": decay})
    assert " (log) 1000 → 0.1234 (−100 %)" in text and "best" not in text, text
