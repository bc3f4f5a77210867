"""trainlint.arrays.unique is np.unique on every input the readers and rules give it, and none of
the helpers imports numpy.ma (np.unique, np.median and np.percentile would: 8 ms of a start).
The medians and quantiles are compared with numpy in tests/rules/test_stats_median.py."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from trainlint.arrays import unique


@settings(max_examples=300, deadline=None)
@given(
    arrays(
        np.float64,
        st.tuples(st.integers(0, 40)) | st.tuples(st.integers(0, 6), st.integers(0, 6)),
        elements=st.sampled_from([0.0, -0.0, 1.5, -2.0, 3.0, np.nan, np.inf, -np.inf]),
    )
)
def test_unique_of_floats_is_np_unique(a):
    np.testing.assert_array_equal(unique(a), np.unique(a))


@given(arrays(np.int64, st.integers(0, 40), elements=st.integers(-5, 5)))
def test_unique_of_integers_is_np_unique(a):
    got = unique(a)
    assert got.dtype == np.int64 and got.tolist() == np.unique(a).tolist()


def test_the_helpers_keep_numpy_ma_out():
    code = (
        "import sys, numpy as np\n"
        "from trainlint.arrays import median, quantiles, unique\n"
        "a = np.array([3.0, 1.0, np.nan, 1.0])\n"
        "unique(a); median(a); median(a.reshape(2, 2), axis=1); quantiles(a[:2], [10, 90])\n"
        "print('numpy.ma' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
