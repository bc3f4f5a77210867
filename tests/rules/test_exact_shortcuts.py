"""The rules' exact shortcuts (issue 31): a cheap bound or an early return that skips work gives the
findings the full computation gives, on any series. Each property runs the rule with and without
its shortcut and compares the report (findings, numbers and the checks' outcomes)."""

from __future__ import annotations

import numpy as np
import pytest
from _rulekit import apply, make_run
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from numpy.lib.stride_tricks import sliding_window_view

from trainlint.rules import blowup, divergence, stats


@settings(max_examples=200, deadline=None)
@given(arrays(np.float64, st.integers(1, 300), elements=st.floats(-1e6, 1e6)), st.integers(1, 320))
def test_sliding_extreme_is_the_windows_min_and_max(v, w):
    w = min(w, len(v))
    win = sliding_window_view(v, w)
    np.testing.assert_array_equal(stats.sliding_extreme(v, w, np.minimum), win.min(axis=1))
    np.testing.assert_array_equal(stats.sliding_extreme(v, w, np.maximum), win.max(axis=1))


@settings(max_examples=200, deadline=None)
@given(arrays(np.float64, st.integers(1, 300), elements=st.floats(-1e6, 1e6)), st.integers(1, 320))
def test_the_envelope_holds_the_centred_median(v, w):
    med = stats.centred_median(v, w)
    lo, hi = stats.centred_median_envelope(v, w)
    assert np.all(lo <= med) and np.all(med <= hi)


@st.composite
def losses(draw: st.DrawFn) -> np.ndarray:
    """A noisy decay, sometimes with a blow-up of any height, place and length, sometimes one that
    lasts to the end, sometimes a steep fall at the start; up to past the coarse limit (2,000)."""
    n = draw(st.sampled_from([3, 12, 20, 25, 60, 200, 999, 2500]))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    start = draw(st.sampled_from([1.5, 3.0, 10.0, 50.0]))
    v = 1.0 + (start - 1.0) * np.exp(-np.arange(n) / max(1.0, n * draw(st.sampled_from([0.02, 0.1, 0.3]))))
    v = v * np.exp(rng.normal(0, draw(st.sampled_from([0.0, 0.02, 0.3])), n))
    if draw(st.booleans()):
        a = draw(st.integers(0, n - 1))
        b = a + draw(st.integers(1, n))
        v[a:b] *= draw(st.sampled_from([2.5, 3.5, 8.0, 40.0]))
    return v


def _report(code: str, v: np.ndarray) -> tuple[list, dict]:
    rep = apply(code, make_run(v))
    return [f.to_dict() for f in rep.findings], rep.checks.to_dict()


def _all_candidates(v: np.ndarray, window: int, factor: float) -> np.ndarray:
    return np.ones(len(v), dtype=bool)


@settings(max_examples=150, deadline=None)
@given(losses())
def test_tl011_bound_gives_the_full_computations_findings(v):
    fast = _report("TL011", v)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(divergence, "_too_short_to_blow_up", lambda *a: False)
        full = _report("TL011", v)
    assert fast == full


@settings(max_examples=150, deadline=None)
@given(losses())
def test_tl012_bound_gives_the_full_computations_findings(v):
    fast = _report("TL012", v)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(blowup, "blowup_candidates", _all_candidates)
        full = _report("TL012", v)
    assert fast == full


def test_the_bound_skips_a_healthy_decay_and_not_a_blowup():
    """The shortcut is taken on a plain decay (it saves the median) and not on a real blow-up."""
    healthy = 0.9 + 2.0 * np.exp(-np.arange(2000) / 250) + np.random.default_rng(0).normal(0, 0.03, 2000)
    assert divergence._too_short_to_blow_up(healthy, 3.0, 0.1)
    broken = healthy.copy()
    broken[800:1100] = 9.0
    assert not divergence._too_short_to_blow_up(broken, 3.0, 0.1)
    assert [f["code"] for f in _report("TL011", broken)[0]] == ["TL011"]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@settings(max_examples=150, deadline=None)
@given(
    arrays(np.float64, st.integers(3, 400), elements=st.floats(-1e3, 1e3) | st.just(np.nan)),
    st.integers(1, 80),
    st.data(),
)
def test_the_spread_at_some_points_is_the_spread_computed_everywhere(v, window, data):
    """The spike search on a short series computes the MAD and the successive-difference noise
    only where a point stands above its median: at those points they are the full computation's."""
    at = np.array(sorted(data.draw(st.sets(st.integers(0, len(v) - 1), min_size=1))))
    _, dev = stats.local_stats(v, window, exact_limit=10**9)
    noise = stats.local_noise(v, window)
    got_dev, got_noise = stats.window_spread_at(v, window, at)
    np.testing.assert_array_equal(got_dev, dev[at])
    np.testing.assert_array_equal(got_noise, noise[at])
