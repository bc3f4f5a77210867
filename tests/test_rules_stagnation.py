import math

import numpy as np
from _rulekit import decay, make_run, not_checked, one, silent, stood_down


def test_tl030_flat_loss():
    f = one("TL030", make_run(np.full(50, 2.5)))
    assert f.severity.value == "FAIL" and f.evidence["level"] == 2.5
    silent("TL030", make_run(decay(50)))


def test_tl031_dead_run_numbers():
    loss = 2.0 + np.random.default_rng(0).normal(0, 0.05, 200)
    f = one("TL031", make_run(loss))
    assert f.severity.value == "WARN"
    assert abs(f.evidence["start_level"] - 2.0) < 0.05 and abs(f.evidence["end_level"] - 2.0) < 0.05
    assert f.evidence["improvement"] < f.evidence["threshold"]


def test_tl031_silent_when_learning_and_stands_down_on_rise():
    silent("TL031", make_run(decay(200)))
    assert "TL010" in stood_down("TL031", make_run(np.linspace(1, 5, 100)))
    assert "needs at least 20" in not_checked("TL031", make_run(decay(10)))


def test_tl032_plateau_with_high_lr():
    loss = decay(200, start=3, end=1, tau=15, noise=0.02)
    f = one("TL032", make_run(loss, lr=np.full(200, 1e-3)))
    assert f.severity.value == "WARN" and f.evidence["lr_fraction"] == 1.0
    assert abs(f.evidence["end_level"] - 1.0) < 0.05 and f.step == 101


def test_tl032_stands_down_when_lr_decayed_or_still_learning():
    loss = decay(200, start=3, end=1, tau=15, noise=0.02)
    lr = 1e-3 * 0.5 * (1 + np.cos(np.linspace(0, np.pi, 200)))
    assert "decayed" in stood_down("TL032", make_run(loss, lr=lr))
    silent("TL032", make_run(decay(200, tau=100), lr=np.full(200, 1e-3)))
    assert "learning_rate" in not_checked("TL032", make_run(loss))
    assert "zero" in stood_down("TL032", make_run(loss, lr=np.zeros(200)))


def test_tl033_stuck_at_uniform_fails():
    v = 32000
    loss = math.log(v) + np.random.default_rng(0).normal(0, 0.05, 100)
    f = one("TL033", make_run(loss), extra={"vocab_size": v})
    assert f.severity.value == "FAIL" and abs(f.evidence["ln_v"] - math.log(v)) < 1e-9
    assert f.evidence["classes"] == v and "vocab_size from option" in f.message


def test_tl033_ends_at_uniform_warns_from_meta():
    loss = np.concatenate([np.linspace(6.0, 2.4, 60), np.full(40, math.log(10))])
    f = one("TL033", make_run(loss, meta={"num_classes": 10}))
    assert f.severity.value == "WARN" and "num_classes from log metadata" in f.message


def test_tl033_high_start_is_fine_and_unknown_v_not_checked():
    loss = decay(100, start=math.log(50000) + 1, end=3.0)
    silent("TL033", make_run(loss), extra={"vocab_size": 50000})
    assert "unknown" in not_checked("TL033", make_run(loss))


def test_tl032_stands_down_on_a_rise():
    loss = np.concatenate([decay(100, tau=10), np.linspace(1.0, 4.0, 100)])
    assert "rose" in stood_down("TL032", make_run(loss, lr=np.full(200, 1e-3)))


def test_noisy_but_large_drops_are_never_dead_or_plateau():
    rng = np.random.default_rng(3)
    loss = np.linspace(8, 3, 41) * (1 + rng.normal(0, 0.3, 41))  # very noisy, 60% drop
    silent("TL031", make_run(loss))
    loss = np.concatenate([np.full(20, 5.0), np.linspace(5, 3.5, 21)]) * (1 + rng.normal(0, 0.3, 41))
    silent("TL032", make_run(loss, lr=np.full(41, 1e-4)))
