import numpy as np
from _rulekit import decay, make_run, not_checked, one, silent, stood_down

RNG = np.random.default_rng(0)


def _wall(sec):
    return np.cumsum(sec)


def test_tl085_cliff_from_wall_clock():
    sec = RNG.uniform(0.9, 1.1, 200)
    sec[120:] *= 3
    f = one("TL085", make_run(decay(200), wall=_wall(sec)))
    assert f.severity.value == "WARN" and 2.5 < f.evidence["ratio"] < 3.5
    assert 100 <= f.step <= 140 and "wall-clock" in f.evidence["source"]
    assert "TL085" in stood_down("TL086", make_run(decay(200), wall=_wall(sec)))


def test_tl086_gradual_slowdown_from_metric():
    sec = np.linspace(0.5, 1.5, 200) + RNG.normal(0, 0.01, 200)
    run = make_run(decay(200), step_time=sec)
    f = one("TL086", run)
    assert 2.0 < f.evidence["ratio"] < 3.0 and "step_time" in f.evidence["source"]
    assert "gradually" in stood_down("TL085", run)


def test_timing_floor_and_not_checked():
    sec = RNG.uniform(0.001, 0.002, 200)
    sec[100:] *= 5
    silent("TL085", make_run(decay(200), step_time=sec))  # 5x but only milliseconds
    silent("TL086", make_run(decay(200), step_time=RNG.uniform(0.9, 1.1, 200)))
    assert "wall-clock" in not_checked("TL085", make_run(decay(200)))


def test_tl087_periodic_stalls():
    sec = RNG.uniform(0.9, 1.1, 500)
    sec[49::50] = 30.0
    f = one("TL087", make_run(decay(500), step_time=sec))
    assert f.evidence["stalls"] == 10 and f.evidence["period"] == 50
    assert f.severity.value == "WARN" and f.evidence["lost_fraction"] > 0.3


def test_tl087_cheap_stalls_note_and_irregular_stand_down():
    sec = RNG.uniform(0.9, 1.1, 500)
    sec[49::50] = 6.0
    assert one("TL087", make_run(decay(500), step_time=sec)).severity.value == "NOTE"
    sec = RNG.uniform(0.9, 1.1, 500)
    sec[[10, 30, 200, 210, 450]] = 30.0
    assert "irregular" in stood_down("TL087", make_run(decay(500), step_time=sec))


def test_tl088_loader_bound():
    run = make_run(decay(100), step_time=np.full(100, 1.0), data_time=np.full(100, 0.6))
    f = one("TL088", run)
    assert f.evidence["share"] == 0.6 and f.evidence["metric"] == "data_time"
    silent("TL088", make_run(decay(100), step_time=np.full(100, 1.0), loader_time=np.full(100, 0.05)))
    assert "loader_time" in not_checked("TL088", make_run(decay(100), step_time=np.full(100, 1.0)))


def test_tl090_stall_in_the_middle():
    sec = RNG.uniform(9, 11, 100)
    sec[60] = 3600
    f = one("TL090", make_run(decay(100), wall=_wall(sec)))
    assert abs(f.evidence["gap_seconds"] - 3600) < 1e-6 and f.step == 60 and not f.evidence["live"]
    assert "after step 60" in f.message


def test_tl090_live_gap_and_quiet_log():
    wall = _wall(RNG.uniform(9, 11, 100))
    f = one("TL090", make_run(decay(100), wall=wall), extra={"now": wall[-1] + 7200})
    assert f.evidence["live"] and "since the last record" in f.message
    silent("TL090", make_run(decay(100), wall=wall))
    assert "wall-clock" in not_checked("TL090", make_run(decay(100)))


def test_stalls_at_eval_steps_are_by_design():
    sec = RNG.uniform(0.9, 1.1, 500)
    sec[49::50] = 30.0  # the record after each eval (every 50 steps) took 30 s
    run = make_run(
        decay(500), step_time=sec, eval_loss=np.linspace(2, 1, 10), eval_steps=np.arange(49, 500, 50, dtype=float)
    )
    f = one("TL087", run)
    assert f.severity.value == "NOTE" and f.evidence["scheduled_share"] == 1.0 and "evaluation" in f.message


def test_gap_at_an_eval_is_not_a_hang_unless_much_longer_than_usual():
    sec = RNG.uniform(9, 11, 300)
    sec[[100, 200]] = 900  # two 15-minute evaluations
    ev = dict(eval_loss=[2.0, 1.5, 1.2], eval_steps=[100, 200, 300])
    silent("TL090", make_run(decay(300), wall=_wall(sec), **ev))
    sec[200] = 20000  # the second evaluation hung for 5.5 hours
    f = one("TL090", make_run(decay(300), wall=_wall(sec), **ev))
    assert abs(f.evidence["gap_seconds"] - 20000) < 1e-6
