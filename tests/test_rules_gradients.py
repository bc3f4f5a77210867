import numpy as np
from _rulekit import decay, make_run, not_checked, one, silent, stood_down

RNG = np.random.default_rng(0)


def test_tl050_exploding_stretch():
    gn = np.abs(RNG.normal(1.0, 0.1, 200))
    gn[100:150] = 50.0
    f = one("TL050", make_run(decay(200), grad_norm=gn))
    assert f.severity.value == "WARN" and f.evidence["ratio"] > 10
    assert 95 <= f.evidence["start_step"] <= 115 and f.evidence["stretch_fraction"] >= 0.1


def test_tl050_fails_when_it_lasts_to_end():
    gn = np.abs(RNG.normal(1.0, 0.1, 200))
    gn[120:] = 40.0
    assert one("TL050", make_run(decay(200), grad_norm=gn)).severity.value == "FAIL"


def test_tl050_silent_on_lone_spike_and_not_checked():
    gn = np.abs(RNG.normal(1.0, 0.1, 200))
    gn[100] = 500
    silent("TL050", make_run(decay(200), grad_norm=gn))
    assert "grad_norm" in not_checked("TL050", make_run(decay(200)))


def test_tl051_zero_grad_no_learning_fails():
    loss = 2.0 + RNG.normal(0, 0.02, 100)
    f = one("TL051", make_run(loss, grad_norm=np.zeros(100)))
    assert f.severity.value == "FAIL" and f.evidence["zero_points"] == 100


def test_tl051_collapse_warns():
    loss = 2.0 + RNG.normal(0, 0.02, 100)
    gn = np.concatenate([np.full(30, 1.0), np.full(70, 1e-6)])
    f = one("TL051", make_run(loss, grad_norm=gn))
    assert f.severity.value == "WARN" and f.evidence["ratio"] <= 1e-3


def test_tl051_stands_down_when_loss_improved():
    why = stood_down("TL051", make_run(decay(100), grad_norm=np.zeros(100)))
    assert "loss fell" in why
    silent("TL051", make_run(decay(100), grad_norm=np.full(100, 0.5)))
