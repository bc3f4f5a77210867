"""rules.stats.median and quantiles are np.median and np.percentile, bit for bit, on every input
the rules give them; and judging a run never loads numpy.ma (np.median would: 8 ms a start).
Also the small mask helper the rules share (trailing_run), and local_stats on long series."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from trainlint.rules import stats
from trainlint.rules.stats import median, quantiles

FLOATS = st.floats(allow_nan=True, allow_infinity=True, width=64)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@settings(max_examples=300, deadline=None)
@given(arrays(np.float64, st.integers(0, 60), elements=FLOATS))
def test_median_of_a_vector_is_np_median(a):
    np.testing.assert_array_equal(median(a), np.median(a))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@settings(max_examples=200, deadline=None)
@given(
    arrays(
        np.float64,
        st.tuples(st.integers(1, 8), st.integers(1, 12)),
        elements=st.floats(-1e6, 1e6) | st.sampled_from([0.0, -0.0, np.inf, -np.inf, 1.5]),
    )
)
def test_median_of_rows_is_np_median(a):
    got, want = median(a, axis=1), np.median(a, axis=1)
    np.testing.assert_array_equal(got, want)
    assert np.signbit(got).tolist() == np.signbit(want).tolist()


@given(arrays(np.int64, st.integers(0, 30), elements=st.integers(-(10**6), 10**6)))
def test_median_of_integers_is_np_median(a):
    if len(a):
        assert median(a) == np.median(a)


@settings(max_examples=300, deadline=None)
@given(
    arrays(np.float64, st.integers(1, 80), elements=st.floats(-1e12, 1e12)),
    st.lists(st.floats(0, 100), min_size=1, max_size=4),
)
def test_quantiles_are_np_percentile(a, qs):
    assert quantiles(a, qs) == np.percentile(a, qs).tolist()


def test_judging_a_run_does_not_import_numpy_ma(tmp_path):
    log = tmp_path / "m.jsonl"
    log.write_text("".join(f'{{"step": {i}, "loss": {3 - i / 100 + (i % 7) / 50:.4f}}}\n' for i in range(300)))
    code = "import sys; from trainlint import api; api.doctor([sys.argv[1]]); print('numpy.ma' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code, str(log)], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@given(st.lists(st.booleans(), max_size=40))
def test_trailing_run_counts_the_true_points_at_the_end(bits):
    from trainlint.rules.stats import trailing_run

    expected = len(bits) - len("".join("1" if b else "0" for b in bits).rstrip("1"))
    assert trailing_run(np.array(bits, bool)) == expected


@settings(max_examples=60, deadline=None)
@given(st.integers(3, 400), st.integers(200_001, 230_000), st.booleans())
def test_long_series_statistics_are_their_blocks_at_each_point(window, n, spread):
    """local_stats of a long series: each point gets the median (and scaled MAD) of the block of
    ``window`` points it falls in; the points past the last whole block get the last block's."""
    values = np.random.default_rng(n).normal(1.0, 0.1, n)
    assert stats.blockwise(n, window)
    med, dev = stats.local_stats(values, window, spread=spread)
    m = n // window
    rows = values[: m * window].reshape(m, window)
    idx = np.minimum(np.arange(n) // window, m - 1)
    assert np.array_equal(med, np.median(rows, axis=1)[idx])
    if spread:
        mad = np.median(np.abs(rows - np.median(rows, axis=1)[:, None]), axis=1) * 1.4826
        assert np.array_equal(dev, mad[idx])
    else:
        assert dev is None
