"""The spike search on a long series computes the noise only in the blocks where a point already
stands above its level (rules.spikes._scores). It must find exactly the spikes, peaks, baselines and
scores that the full computation over every block finds."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trainlint.rules import spikes
from trainlint.rules.stats import blockwise, local_noise, local_stats


def _full_scores(values: np.ndarray, window: int, ratio: float) -> tuple[np.ndarray, np.ndarray]:
    """The computation over every point (what _scores did for every series before)."""
    med, dev = local_stats(values, window)
    floor = np.maximum(np.minimum(dev, local_noise(values, window)), 0.01 * np.abs(med)) + 1e-12
    return med, (values - med) / floor


def _series(seed: int, n: int, spikes_at: int, nans: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    values = 0.9 + 2.0 * np.exp(-np.arange(n) / (n / 8)) + rng.normal(0, 0.03, n)
    values[rng.integers(1, n, spikes_at)] *= rng.uniform(1.2, 6.0, spikes_at)
    values[rng.integers(0, n, nans)] = np.nan
    return values


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(30_000, 80_000),
    spikes_at=st.integers(0, 300),
    nans=st.integers(0, 5),
    frac=st.sampled_from([0.001, 0.01, 0.1]),
)
def test_long_series_spikes_match_the_full_computation(seed, n, spikes_at, nans, frac):
    values = _series(seed, n, spikes_at, nans)
    window = int(max(7, min(51, round(n * frac)))) | 1
    assert blockwise(n, window)  # the restricted path is the one under test
    fast = spikes.find_spikes(values, 8.0, 1.5, frac)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(spikes, "_scores", _full_scores)
        full = spikes.find_spikes(values, 8.0, 1.5, frac)
    for name in ("start", "end", "peak", "baseline", "score"):
        np.testing.assert_array_equal(getattr(fast, name), getattr(full, name), err_msg=name)


def test_the_restricted_search_still_finds_a_spike_with_its_numbers():
    values = _series(0, 50_000, 0, 0)
    values[30_000] = values[30_000] * 4
    sp = spikes.find_spikes(values, 8.0, 1.5, 0.1)
    assert sp.peak.tolist() == [30_000]
    assert sp.score[0] > 8.0 and values[30_000] / sp.baseline[0] == pytest.approx(4.0, rel=0.05)
