"""The state the live rules keep across the judgements of a growing run (issue 31): a judgement
that extends it from the points new since the last gives exactly the findings, numbers and
checks of a judgement that computes everything from the whole history (doctor's)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trainlint import running
from trainlint.engine import judge_run
from trainlint.live import history
from trainlint.live.history import LiveRun
from trainlint.rules.kept import CoarseBlocks, Stamps
from trainlint.rules.stats import coarse, coarse_size
from trainlint.running import Ordered


def _small_blocks(mp: pytest.MonkeyPatch, block: int = 64, sample: int = 8) -> None:
    """Blocks of a few points, so that short series have many (the code reads the module's),
    and the live history feeding the kept states between judgements every few hundred records."""
    mp.setattr(running, "BLOCK", block)
    mp.setattr(running, "SAMPLE", sample)
    mp.setattr(history, "FEED", 333)


values_lists = st.one_of(
    st.lists(  # ties: plateaus and repeated values, and a few other values
        st.one_of(st.sampled_from([0.0, 1.0, 2.5, -3.0]), st.integers(-5, 5).map(float), st.floats(-1e6, 1e6)),
        min_size=1,
        max_size=900,
    ),
    st.tuples(st.integers(0, 2**16), st.integers(1, 3000)).map(  # many distinct values
        lambda a: np.random.default_rng(a[0]).normal(size=a[1]).tolist()
    ),
)


@given(values_lists, st.data())
@settings(max_examples=150, deadline=None)
def test_ordered_selects_what_a_partition_gives(values, data):
    v = np.array(values)
    n = len(v)
    with pytest.MonkeyPatch.context() as mp:
        _small_blocks(mp)
        state = Ordered()
        for cut in sorted(data.draw(st.lists(st.integers(0, n), max_size=4))) + [n]:
            state.update(v[:cut])  # extended judgement by judgement
        lo = data.draw(st.integers(0, n - 1))
        hi = data.draw(st.integers(lo + 1, n))
        ranks = sorted(set(data.draw(st.lists(st.integers(0, hi - lo - 1), min_size=1, max_size=4))) | {(hi - lo) // 2})
        got = state.select(v, ranks, lo, hi)
    want = np.sort(v[lo:hi])
    assert [got[k] for k in ranks] == [want[k] for k in ranks]


def _stream(seed: int, n: int, shape: dict) -> list[tuple[float, float, dict]]:
    """A run's records: a falling noisy loss with, as ``shape`` asks, NaNs, a flat stretch,
    spikes, printed rounding, a restart, step-time cliffs and stalls, grad-norm spikes, a
    gradient that vanishes, a learning rate at zero."""
    rng = np.random.default_rng(seed)
    i = np.arange(n)
    loss = 0.8 + 2.0 * np.exp(-i / max(1, n / 6)) + rng.normal(0, 0.02, n)
    if shape["flat"]:
        a = int(rng.integers(0, n // 2))
        loss[a : a + n // 3] = loss[a]
    for k in rng.integers(50, n, shape["spikes"]):
        loss[k] *= rng.uniform(1.5, 6)
    if shape["rounded"]:
        loss = np.round(loss, 3)
    loss[rng.random(n) < shape["nan"]] = math.nan
    grad = np.abs(rng.normal(1, 0.1, n))
    for k in rng.integers(50, n, shape["spikes"]):
        grad[k] *= 8
    if shape["vanish"]:  # the gradient collapses, or is logged as zero, from a third of the run on
        grad[n // 3 :] = 0.0 if seed % 2 else grad[n // 3 :] * 1e-5
        if seed % 3 == 0:
            loss[:] = loss[0]  # and the loss does not improve: TL051 fires
    sec = np.where(i > shape["cliff"] * n, 0.3, 0.1) + rng.uniform(0, 0.01, n)
    if shape["stalls"]:
        sec[i % 997 == 500] += 400.0  # long pauses, regular: stalls, and a silent log for TL090
    wall = 1000.0 + np.cumsum(sec)
    steps = i.astype(float)
    if shape["restart"]:
        steps[n // 2 :] -= n // 4  # a resumed run: the steps go back (two segments)
    wall[rng.random(n) < shape["nan"]] = math.nan
    lr = {
        "flat": np.full(n, 1e-3),
        "zero": np.where(i < 5, 1e-3, 0.0),  # zero from the sixth record on: TL040
        "decay": np.maximum(1e-3 * (1 - 2 * i / n), 0.0),  # decays to zero half-way: legitimate
        "gap": np.where((i > n // 4) & (i < n // 2), 0.0, 1e-3),  # zero for a quarter of the run
        # zero for a third of the run, then a decay to zero over its last tenth (the tail not judged)
        "both": np.where(
            (i > n // 4) & (i < 7 * n // 12), 0.0, np.maximum(1e-3 * np.minimum(1, 10 * (0.9 - i / n)), 0)
        ),
    }[shape["lr"]]
    return [
        (steps[k], wall[k], {"loss": float(loss[k]), "grad_norm": float(grad[k]), "learning_rate": float(lr[k])})
        for k in range(n)
    ]


def _same(live, batch) -> None:
    assert [f.to_dict() for f in live.findings] == [f.to_dict() for f in batch.findings]
    assert live.checks == batch.checks


shapes = st.fixed_dictionaries(
    {
        "flat": st.booleans(),
        "spikes": st.integers(0, 12),
        "rounded": st.booleans(),
        "nan": st.sampled_from([0.0, 0.0, 0.002]),
        "cliff": st.sampled_from([0.3, 0.7, 2.0]),
        "stalls": st.booleans(),
        "restart": st.sampled_from([False, False, True]),
        "vanish": st.booleans(),
        "lr": st.sampled_from(["flat", "zero", "decay", "gap", "both"]),
    }
)


@given(st.integers(0, 2**16), st.integers(4000, 9000), shapes, st.lists(st.floats(0.05, 0.95), max_size=4))
@settings(max_examples=20, deadline=None)
def test_kept_state_gives_the_findings_of_the_whole_history(seed, n, shape, cuts):
    """Judged at growing lengths with the kept state (blocks of 64 points, so that these runs
    have many) and from the whole history each time: the same report, at every length."""
    records = _stream(seed, n, shape)
    marks = sorted({int(c * n) for c in cuts} | {n})
    with pytest.MonkeyPatch.context() as mp:
        _small_blocks(mp)
        live = LiveRun()
        done = 0
        for mark in marks:
            for step, wall, metrics in records[done:mark]:
                live.append(step, metrics, wall)
            done = mark
            run = live.view()
            _same(judge_run(run, curves=False, states=live.states), judge_run(run, curves=False))


def test_the_kept_state_serves_long_runs_at_full_block_size():
    """At the real block size, on a run long enough for many blocks (the benchmark's shape):
    the same report as from the whole history, and the state did serve it."""
    records = _stream(
        7,
        40_000,
        dict(
            flat=False,
            spikes=6,
            rounded=False,
            nan=0.001,
            cliff=0.6,
            stalls=True,
            restart=False,
            vanish=False,
            lr="decay",
        ),
    )
    live = LiveRun()
    for k, (step, wall, metrics) in enumerate(records, 1):
        live.append(step, metrics, wall)
        if k in (10_000, 25_000, 40_000):
            run = live.view()
            _same(judge_run(run, curves=False, states=live.states), judge_run(run, curves=False))
    kinds = {key.split()[0] for key in live.states}
    assert {"ordered", "stamps", "block", "on", "coarse"} <= kinds, sorted(live.states)


@given(st.integers(0, 2**16), st.integers(1, 3000), st.lists(st.integers(1, 3000), max_size=6))
@settings(max_examples=100, deadline=None)
def test_kept_coarse_blocks_equal_the_whole_series_block_medians(seed, n, cuts):
    """kept.CoarseBlocks extended cut by cut, across doublings of the block size (at most 50
    blocks here): the block medians and steps stats.coarse takes from the whole series."""
    rng = np.random.default_rng(seed)
    values = np.round(rng.normal(size=n), 1)  # ties
    steps = np.arange(n, dtype=np.float64) * 2
    state = CoarseBlocks(max_points=50)
    for cut in sorted(c for c in cuts if c <= n) + [n]:
        s, v = steps[:cut], values[:cut]
        kept = coarse(s.copy(), v.copy(), 50, kept=state)  # fresh arrays: no cached answer
        want = coarse(s.copy(), v.copy(), 50)
        assert np.array_equal(kept[0], want[0]) and np.array_equal(kept[1], want[1])
    b = coarse_size(n, 50)
    assert -(-n // b) <= 50 and (b == 1 or -(-n // (b // 2)) > 50)  # the smallest power of two


def test_a_run_whose_series_are_rewritten_drops_its_state():
    """A resumed run (split into segments) is judged without the kept state, which is dropped,
    so that a later judgement does not extend it from other series."""
    live = LiveRun()
    for step, wall, metrics in _stream(
        1,
        5000,
        dict(
            flat=False, spikes=3, rounded=False, nan=0.0, cliff=2.0, stalls=False, restart=True, vanish=False, lr="flat"
        ),
    ):
        live.append(step, metrics, wall)
    live.states["ordered sentinel"] = Ordered()
    run = live.view()
    _same(judge_run(run, curves=False, states=live.states), judge_run(run, curves=False))
    assert live.states == {}


@given(st.integers(0, 2**16), st.integers(2, 400), st.lists(st.integers(0, 400), max_size=5))
@settings(max_examples=100, deadline=None)
def test_kept_stamps_equal_the_whole_run_clock(seed, n, cuts):
    """kept.Stamps extended cut by cut: the clock, the seconds per step and the gaps that
    stats.wall_clock, stats.step_seconds and TL090 take from the whole series."""
    rng = np.random.default_rng(seed)
    steps = np.cumsum(rng.choice([1.0, 1.0, 2.0, 0.0, -5.0], n))  # repeats and steps going back
    wall = 100.0 + np.cumsum(rng.choice([0.5, 0.0, 30.0, -1.0], n))
    wall[rng.random(n) < 0.1] = math.nan
    state = Stamps()
    for cut in sorted(c for c in cuts if c <= n) + [n]:
        state.update(steps[:cut], wall[:cut])
    keep = np.isfinite(wall)
    s, w = steps[keep], wall[keep]
    ds, dw = np.diff(s), np.diff(w)
    ok = (ds > 0) & np.isfinite(dw) & (dw >= 0)
    gaps = dw.copy()
    gaps[ds < 0] = 0.0
    assert state.count == len(s) and state.last == ((s[-1], w[-1]) if len(s) else None)
    assert state.sec_steps.view().tolist() == s[1:][ok].tolist()
    assert state.sec.view().tolist() == (dw[ok] / ds[ok]).tolist()
    assert state.positive.view().tolist() == gaps[gaps > 0].tolist()
    assert state.top == (gaps.max() if len(gaps) else -math.inf)


@given(values_lists, st.data())
@settings(max_examples=100, deadline=None)
def test_ordered_counts_what_a_comparison_counts(values, data):
    v = np.array(values)
    n = len(v)
    with pytest.MonkeyPatch.context() as mp:
        _small_blocks(mp)
        state = Ordered()
        state.update(v)
        lo = data.draw(st.integers(0, n - 1))
        hi = data.draw(st.integers(lo + 1, n))
        x = data.draw(st.one_of(st.sampled_from(values), st.floats(-1e6, 1e6)))
        assert state.count(v, x, lo, hi) == int(np.sum(v[lo:hi] <= x))


class _Broken:
    """A kept state whose feeding fails."""

    def feed(self, run, memo):
        raise ValueError("broken state")


def test_a_state_that_fails_to_feed_is_dropped_not_raised():
    """Feeding happens inside Guard.observe: a failing state must not raise into the training
    loop; the states are dropped and the next judgement builds them again, with the same report."""
    records = _stream(
        3,
        9000,
        dict(
            flat=False,
            spikes=4,
            rounded=False,
            nan=0.0,
            cliff=0.6,
            stalls=False,
            restart=False,
            vanish=False,
            lr="flat",
        ),
    )
    live = LiveRun()
    for k, (step, wall, metrics) in enumerate(records, 1):
        live.append(step, metrics, wall)
        if k == 5000:
            judge_run(live.view(), curves=False, states=live.states)
            assert live.states
            live.states["broken"] = _Broken()
    assert "broken" not in live.states  # dropped at the next feeding, with the others
    run = live.view()
    _same(judge_run(run, curves=False, states=live.states), judge_run(run, curves=False))
