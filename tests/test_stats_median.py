"""rules.stats.median is np.median, bit for bit, on every input the rules give it."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from trainlint.rules.stats import median

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
