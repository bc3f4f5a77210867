"""The live history: columns built record by record equal the run they record, whatever the
mix of dense and sparse metrics; the running quantities follow each record in O(1)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trainlint import running
from trainlint.live.history import LiveRun
from trainlint.running import Grow, Running


class _Tensor:
    """A framework scalar: a number behind ``.item()``."""

    def __init__(self, v: float) -> None:
        self.v = v

    def item(self) -> float:
        return self.v


def _stream(seed: int) -> list[tuple[float, float, dict]]:
    """Records whose metrics come and go: a metric appears late, one is missing now and then,
    values come as ints, numpy floats, tensors, text ("nan") and unusable text."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(400):
        m: dict = {"loss": float(rng.normal(2, 0.1))}
        if i % 7:
            m["learning_rate"] = 1e-4 if i % 3 else np.float32(1e-4)
        if i >= 50 and rng.random() < 0.8:
            m["grad_norm"] = _Tensor(float(rng.random())) if i % 5 else 1
        if i % 50 == 49:
            m["eval_loss"] = "nan" if i == 199 else float(rng.random())
        if i % 11 == 0:
            m["phase"] = "train"  # not a number: never a column
        out.append((float(i), 1000.0 + i, m))
    return out


def _expected(stream) -> dict[str, tuple[list, list, list]]:
    cols: dict[str, tuple[list, list, list]] = {}
    for step, wall, m in stream:
        for name, value in m.items():
            if isinstance(value, str):
                if value != "nan":
                    continue
                value = math.nan
            v = float(value.item() if isinstance(value, _Tensor) else value)
            s, vs, w = cols.setdefault(name, ([], [], []))
            s.append(step)
            vs.append(v)
            w.append(wall)
    return cols


def test_views_equal_the_run_at_every_point_of_a_mixed_stream():
    stream = _stream(0)
    live = LiveRun()
    for k, (step, wall, m) in enumerate(stream, 1):
        live.append(step, dict(m), wall)
        if k in (1, 30, 51, 52, 120, 199, 200, 333, len(stream)):  # views at irregular points
            run = live.view()
            want = _expected(stream[:k])
            assert list(run.series) == list(want)
            for name, (s, v, w) in want.items():
                got = run.series[name]
                assert got.steps.tolist() == s and got.wall.tolist() == w, (k, name)
                np.testing.assert_array_equal(got.values, np.array(v))
    assert live.records == len(stream)
    assert live.columns["loss"].steps is None  # logged at every record: it shares the records' steps
    assert live.columns["learning_rate"].steps is not None  # missing from some: its own


def test_a_record_with_a_dense_column_missing_and_a_name_without_a_number():
    """As many names as the dense columns, one of them no column and its value no number: the
    record lacks a dense column (which becomes sparse); nothing raises, nothing shifts."""
    live = LiveRun()
    live.append(1.0, {"loss": 1.0, "lr": 0.1}, 0.0)
    live.append(2.0, {"loss": 0.9, "lr": 0.1}, 0.0)
    live.append(3.0, {"loss": 0.8, "note": None}, 0.0)
    live.append(4.0, {"loss": 0.7, "lr": 0.05}, 0.0)
    run = live.view()
    assert list(run.series) == ["loss", "lr"]
    assert run.series["loss"].steps.tolist() == [1.0, 2.0, 3.0, 4.0]
    assert run.series["loss"].values.tolist() == [1.0, 0.9, 0.8, 0.7]
    assert run.series["lr"].steps.tolist() == [1.0, 2.0, 4.0] and run.series["lr"].values.tolist() == [0.1, 0.1, 0.05]


def test_earlier_views_are_not_changed_by_later_records():
    live = LiveRun()
    for i in range(100):
        live.append(float(i), {"loss": float(i)}, 0.0)
    first = live.view().series["loss"]
    for i in range(100, 1000):
        live.append(float(i), {"loss": -1.0}, 0.0)
    assert first.values.tolist() == [float(i) for i in range(100)]


def test_running_quantities_and_alarms():
    live = LiveRun()
    alarms = []
    values = [3.0, 2.0, 2.5, 4.5, math.nan, 1.0, math.inf, 2.1]
    for i, v in enumerate(values):
        alarms.append(live.append(float(i), {"loss": v, "grad_norm": 1.0}))
    loss = live.running["loss"]
    assert alarms == [None, None, None, "loss jump", "non-finite loss", None, "non-finite loss again", "loss jump"]
    assert (loss.points, loss.non_finite, loss.first_non_finite, loss.best, loss.best_step) == (8, 2, 4.0, 1.0, 5.0)
    assert live.append(8.0, {"loss": 1.0, "grad_norm": math.nan}) == "non-finite grad_norm"


def test_the_learning_rate_state_gives_the_warmup_and_the_zero_alarm():
    warm = LiveRun()
    got = [
        warm.append(float(i), {"loss": 1.0, "learning_rate": lr}) for i, lr in enumerate([0.0, 1e-4, 2e-4, 2e-4, 1e-4])
    ]
    lr = warm.running["learning_rate"]
    assert got == [None] * 5 and lr.peak == 2e-4 and lr.since_peak == 2 and lr.moved
    zero = LiveRun()
    got = [zero.append(float(i), {"loss": 1.0, "learning_rate": 0.0}) for i in range(4)]
    assert got == [None, None, "learning rate zero", "learning rate zero"]
    assert not Running("schedule").lo <= 1e-4 <= Running("schedule").hi  # judged value by value until it moves


def _state(r: Running) -> dict:
    return {k: getattr(r, k) for k in Running.__slots__}


def test_the_live_running_state_is_the_one_pass_state_of_the_finished_series():
    rng = np.random.default_rng(3)
    for trial in range(40):
        live = LiveRun()
        n = int(rng.integers(1, 300))
        loss = rng.lognormal(0, 1, n) * rng.choice([1, 1, 1, -1], n)
        loss[rng.random(n) < 0.05] = rng.choice([math.nan, math.inf, -math.inf])
        lr = np.where(np.arange(n) < trial % 7, 0.0, rng.random(n) * 1e-3)
        lr[rng.random(n) < 0.03] = math.nan
        for i in range(n):
            m = {"loss": float(loss[i]), "learning_rate": float(lr[i])}
            if i % 3 == 0:
                m["grad_norm"] = float(loss[i] * 2)
            live.append(float(2 * i), m)
        run = live.view()
        for role, kind in (("loss", "jump"), ("learning_rate", "schedule"), ("grad_norm", "finite")):
            s = run.series[run.roles[role]]
            got, want = _state(live.running[role]), _state(Running.of(s.steps, s.values, kind))
            assert got.keys() == want.keys()
            for key in got:  # NaN equals NaN here (a best step before any finite value)
                assert got[key] == want[key] or got[key] != got[key] and want[key] != want[key], (trial, role, key)


def test_a_record_as_long_as_the_dense_columns_with_another_name_is_taken_whole():
    stream = [
        (0.0, 10.0, {"a": 1.0, "b": 2.0}),
        (1.0, 11.0, {"a": 1.5, "c": 3.0}),  # as many names as dense columns, one of them new
        (2.0, 12.0, {"a": "text", "d": 4.0}),  # one unusable, then a new one
        (3.0, 13.0, {"a": 2.5, "c": 3.5, "d": 4.5}),
    ]
    live = LiveRun()
    for step, wall, m in stream:
        live.append(step, dict(m), wall)
    run = live.view()
    want = _expected(stream)
    assert {name: (s.steps.tolist(), s.values.tolist(), s.wall.tolist()) for name, s in run.series.items()} == want


def test_an_int_too_large_for_a_float_is_an_infinity_not_an_error():
    """A metric logged as a Python int above ~1e308 (a counter gone wild): the guard takes it as
    an infinity, which the non-finite rule judges, instead of raising OverflowError."""
    from trainlint.live import Guard

    g = Guard()
    for i in range(5):
        g.observe(i + 1, loss=1.0 / (i + 1))
    g.observe(6, loss=10**400)
    rep = g.close()
    assert "TL001" in {f.code for f in rep.findings}


class _Counted(np.ndarray):
    """A buffer that counts the points written into it (``WRITES``)."""

    WRITES = [0]

    def __setitem__(self, key, value) -> None:
        _Counted.WRITES[0] += np.asarray(self[key]).size
        super().__setitem__(key, value)


class _CountingNumpy:
    """numpy, whose ``empty`` makes counted buffers."""

    def __getattr__(self, name):
        return getattr(np, name)

    def empty(self, *args, **kwargs):
        return np.empty(*args, **kwargs).view(_Counted)


@given(st.lists(st.one_of(st.integers(0, 3), st.integers(0, 300)), max_size=60), st.sampled_from([(), (3,)]))
@settings(max_examples=100, deadline=None)
def test_a_growing_array_never_copies_its_whole_history_at_once(chunks, row):
    """Grow (of numbers, or of rows as Ordered keeps) extended chunk by chunk holds the chunks
    in order (earlier views unchanged), and no extend writes more than four times the values
    it appends (its own, and a share of the copy into the next buffer): no extend copies the
    whole history (a doubling copy of a long live column held the training loop, issue 31)."""
    size = int(np.prod(row))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(running, "np", _CountingNumpy())
        g, want, views = Grow(row=row), np.empty((0, *row)), []
        for i, k in enumerate(chunks):
            chunk = np.arange(len(want) * size, (len(want) + k) * size, dtype=np.float64).reshape(k, *row)
            _Counted.WRITES[0] = 0
            g.extend(chunk.tolist() if i % 2 else chunk)
            assert _Counted.WRITES[0] <= 4 * k * size, (len(want), k, _Counted.WRITES[0])
            want = np.concatenate((want, chunk))
            views.append(g.view())
            assert np.array_equal(g.view(), want)
        assert all(np.array_equal(v, want[: len(v)]) for v in views)
