import numpy as np
from _rulekit import decay, make_run, not_checked, one, silent, stood_down


def _diverging(n=100):
    loss = decay(n, start=3, end=1, noise=0.02)
    loss[60:] = np.linspace(1.2, 5.0, n - 60)
    return loss


def test_tl010_fires_with_best_step_and_ratio():
    f = one("TL010", make_run(_diverging()))
    assert f.severity.value == "FAIL"
    assert f.evidence["ratio"] >= 2.0 and 40 <= f.evidence["best_step"] <= 65
    assert f.evidence["steps_past_best"] == 100 - f.evidence["best_step"]
    assert "diverged" in f.message and "threshold 2x" in f.message


def test_tl010_warn_when_eval_kept_improving():
    run = make_run(_diverging(), eval_loss=[2.0, 1.8, 1.6, 1.5], eval_steps=[25, 50, 75, 100])
    f = one("TL010", run)
    assert f.severity.value == "WARN" and f.evidence["eval_last"] == 1.5


def test_tl010_last_point_blip_does_not_fire():
    loss = decay(100)
    loss[-1] = 10.0
    silent("TL010", make_run(loss))
    loss = decay(100)
    loss[-7:] = 5.0  # short rise: below the stretch
    assert "only over" in stood_down("TL010", make_run(loss))


def test_tl010_not_checked_short():
    assert "needs at least 10" in not_checked("TL010", make_run([1.0, 2.0, 3.0]))


def test_tl011_blowup_that_comes_back():
    loss = decay(200, start=3, end=1, noise=0.02)
    loss[80:120] = 9.0 + np.random.default_rng(1).normal(0, 0.3, 40)
    f = one("TL011", make_run(loss))
    assert f.severity.value == "FAIL"
    assert 78 <= f.evidence["start_step"] <= 90 and 110 <= f.evidence["end_step"] <= 121
    assert f.evidence["peak"] > 9 and f.evidence["stretch_fraction"] >= 0.1
    assert "came back" in f.message


def test_tl011_silent_on_short_blowup_and_healthy():
    loss = decay(200)
    loss[80:85] = 9.0
    silent("TL011", make_run(loss))
    silent("TL011", make_run(decay(200)))


def test_tl011_stands_down_when_it_lasts_to_end():
    assert "TL010" in stood_down("TL011", make_run(_diverging(200)))
