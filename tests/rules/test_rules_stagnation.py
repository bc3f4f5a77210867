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


def _tts_run(eval_tail: float, eval_until: float = 125000):
    """A 125k-step TTS run logged every 1000 steps at a constant LR: the train loss falls from
    1.2 to about 0.45 by step 30k and then holds it; the eval loss, every 5000 steps, falls from
    0.80 and ends at ``eval_tail`` times its step-60k level."""
    rng = np.random.default_rng(7)
    steps = np.arange(1000, 126000, 1000, dtype=float)
    loss = 0.45 + 0.75 * np.exp(-(steps - 1000) / 8000) + rng.normal(0, 0.01, len(steps))
    es = np.arange(5000, 126000, 5000, dtype=float)
    ev = 0.52 + 0.28 * np.exp(-(es - 5000) / 40000)
    k = np.searchsorted(es, 60000)
    ev[k:] = ev[k] * (1 + (eval_tail - 1) * (es[k:] - es[k]) / (es[-1] - es[k]))
    keep = es <= eval_until
    return make_run(loss, steps=steps, lr=np.full(len(steps), 2e-4), eval_loss=ev[keep], eval_steps=es[keep])


def test_tl032_plateau_while_the_eval_loss_still_improves_stands_down():
    why = stood_down("TL032", _tts_run(eval_tail=0.9))  # eval 10% lower at the end, its best
    assert "eval loss was still improving" in why and "at the end, its best" in why


def test_tl032_plateau_fires_when_the_eval_loss_stopped_too():
    f = one("TL032", _tts_run(eval_tail=1.0))  # eval flat over the second half
    assert f.severity.value == "WARN" and f.evidence["lr_fraction"] == 1.0
    assert f.evidence["improvement"] < f.evidence["threshold"]
    f = one("TL032", _tts_run(eval_tail=1.05))  # eval rising: no stand-down either
    assert "plateau" in f.message


def test_tl032_eval_that_ended_long_before_the_run_does_not_stand_it_down():
    # the last evaluation at step 80k of 125k: whether the eval loss still improved is unknown
    assert one("TL032", _tts_run(eval_tail=0.9, eval_until=80000)).severity.value == "WARN"
