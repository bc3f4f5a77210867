import numpy as np
from _rulekit import decay, make_run, not_checked, one, silent


def test_tl040_all_zero_fails_fraction_warns():
    f = one("TL040", make_run(decay(50), lr=np.zeros(50)))
    assert f.severity.value == "FAIL" and f.evidence["fraction"] == 1.0
    lr = np.full(50, 1e-4)
    lr[10:30] = 0
    f = one("TL040", make_run(decay(50), lr=lr))
    assert f.severity.value == "WARN" and f.evidence["zero_points"] == 20 and f.step == 11


def test_tl040_ignores_first_and_decayed_end_zeros():
    lr = np.concatenate([[0.0], np.linspace(1e-4, 0, 49)])
    lr[-5:] = 0
    silent("TL040", make_run(decay(50), lr=lr))
    assert "learning_rate" in not_checked("TL040", make_run(decay(50)))


def test_tl041_lr_still_rising():
    lr = np.linspace(0, 1e-4, 50)
    f = one("TL041", make_run(decay(50), lr=lr))
    assert f.severity.value == "WARN" and f.evidence["last_lr"] == 1e-4 and "still rising" in f.message


def test_tl041_warmup_longer_than_run_and_peak_not_reached():
    lr = np.full(50, 1e-4)
    f = one("TL041", make_run(decay(50), lr=lr, meta={"warmup_steps": 500}))
    assert f.evidence["warmup_steps"] == 500
    f = one("TL041", make_run(decay(50), lr=lr, meta={"learning_rate": 1e-3}))
    assert f.evidence["configured_lr"] == 1e-3 and "below the configured" in f.message


def test_tl041_silent_on_finished_warmup():
    lr = np.concatenate([np.linspace(0, 1e-4, 10), np.linspace(1e-4, 0, 40)])
    silent("TL041", make_run(decay(50), lr=lr))
    silent("TL041", make_run(decay(50), lr=np.full(50, 1e-4)))


def test_tl040_step_is_the_first_judged_zero_not_the_warmup_zero():
    lr = np.full(50, 1e-4)
    lr[0] = 0.0
    lr[20:40] = 0.0
    f = one("TL040", make_run(decay(50), lr=lr))
    assert f.severity.value == "WARN" and f.step == 21 and f.evidence["zero_points"] == 20
