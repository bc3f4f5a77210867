"""The spike search computes the noise only where a point already stands above its level (in the
blocks of a long series, the windows of a short one: rules.spikes._spike_points). It must find exactly
the spikes, peaks, baselines and scores that the full computation over every block or window finds."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trainlint.rules import spikes
from trainlint.rules.stats import local_noise, local_stats, median


def _reference_find_spikes(values, z, ratio, frac, max_window=51):
    """The spike search as it was before the restricted noise and the point-wise events."""
    n = len(values)
    window = int(max(7, min(max_window, round(n * frac)))) | 1
    med, dev = local_stats(values, window)
    floor = np.maximum(np.minimum(dev, local_noise(values, window)), 0.01 * np.abs(med)) + 1e-12
    score = (values - med) / floor
    mask = (score > z) & (values > ratio * med) & (med > 0)
    edges = np.flatnonzero(np.diff(np.concatenate(([0], mask.view(np.int8), [0]))))
    starts, ends = edges[::2], edges[1::2]
    if len(starts) == 0:
        return spikes.Spikes(*(np.zeros(0, dtype=int),) * 3, np.zeros(0), np.zeros(0))
    pts = np.flatnonzero(mask)
    eid = np.cumsum(np.isin(pts, starts)) - 1
    order = np.lexsort((-values[pts], eid))
    peak = pts[order[np.r_[0, np.flatnonzero(np.diff(eid[order])) + 1]]]
    pre = median(np.stack([values[np.maximum(starts - k, 0)] for k in (1, 2, 3)]), axis=0)
    jump = (starts > 0) & (values[peak] > ratio * pre)
    return spikes.Spikes(starts[jump], ends[jump], peak[jump], med[peak][jump], score[peak][jump])


def _series(seed: int, n: int, spikes_at: int, nans: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    values = 0.9 + 2.0 * np.exp(-np.arange(n) / (n / 8)) + rng.normal(0, 0.03, n)
    values[rng.integers(1, n, spikes_at)] *= rng.uniform(1.2, 6.0, spikes_at)
    values[rng.integers(0, n, nans)] = np.nan
    return values


def test_the_restricted_search_still_finds_a_spike_with_its_numbers():
    values = _series(0, 50_000, 0, 0)
    values[30_000] = values[30_000] * 4
    sp = spikes.find_spikes(values, 8.0, 1.5, 0.1)
    assert sp.peak.tolist() == [30_000]
    assert sp.score[0] > 8.0 and values[30_000] / sp.baseline[0] == pytest.approx(4.0, rel=0.05)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@settings(max_examples=100, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(20, 4_000) | st.integers(30_000, 80_000),  # short (exact windows) and long (blocks)
    spikes_at=st.integers(0, 300),
    nans=st.integers(0, 5),
    frac=st.sampled_from([0.001, 0.01, 0.1]),
)
def test_spikes_equal_the_reference_search_on_short_and_long_series(seed, n, spikes_at, nans, frac):
    values = _series(seed, n, spikes_at, nans)
    got, want = spikes.find_spikes(values, 8.0, 1.5, frac), _reference_find_spikes(values, 8.0, 1.5, frac)
    for name in ("start", "end", "peak", "baseline", "score"):
        np.testing.assert_array_equal(getattr(got, name), getattr(want, name), err_msg=name)
