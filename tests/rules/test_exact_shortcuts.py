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

from trainlint.rules import blowup, divergence, spikes, stats


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


def _cold_block_medians(v: np.ndarray, w: int) -> np.ndarray:
    m = len(v) // w
    return stats.median(v[: m * w].reshape(m, w), axis=1)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.integers(0, 2), min_size=1, max_size=8),
    st.lists(st.integers(1, 400), min_size=1, max_size=8),
    st.sampled_from([3, 7, 51]),
    st.integers(0, 2**16),
)
def test_block_medians_from_the_cache_are_those_computed_afresh(which, sizes, w, seed):
    """Growing, shrinking, interleaved and edited series (an edit inside a prefix seen, -0.0
    for 0.0, a NaN) get the block medians computed from scratch, whatever the cache holds."""
    rng = np.random.default_rng(seed)
    base = [rng.normal(0, 1, 2000), rng.normal(0, 1, 2000), np.zeros(2000)]
    base[1][:300] = base[0][:300]  # two series sharing a prefix
    base[2][::7] = -0.0
    for i, (s, size) in enumerate(zip(which, sizes * 8)):
        v = base[s][: size * (i + 1)].copy()
        if i % 3 == 2 and len(v) > 5:
            v[rng.integers(0, len(v))] = [np.nan, -0.0, 1e9][i % 3]
        got = stats.block_medians(v, w)
        np.testing.assert_array_equal(got.view(np.int64), _cold_block_medians(v, w).view(np.int64))


def test_a_live_history_judged_again_gets_the_same_spikes():
    """find_spikes on each prefix of a long growing series (the guard's judgements) equals
    find_spikes with the cache emptied before each call."""
    rng = np.random.default_rng(3)
    v = 0.9 + 2.0 * np.exp(-np.arange(30_000) / 4000) + rng.normal(0, 0.03, 30_000)
    v[[5000, 12_345, 29_000]] *= 4
    for n in (9000, 15_000, 15_001, 29_999, 30_000):
        warm = spikes.find_spikes(v[:n], 8.0, 1.5, 0.1)
        stats._BLOCKS.clear()
        cold = spikes.find_spikes(v[:n], 8.0, 1.5, 0.1)
        for field in warm.__struct_fields__:
            np.testing.assert_array_equal(getattr(warm, field), getattr(cold, field))
        assert len(warm) >= 1
