"""Severities on runs nobody tuned on (issue 30 §2): each known false-alarm class with a firing
case and its numbers, a stand-down (or NOTE) case, and a synthetic series of the real shape."""

from __future__ import annotations

import numpy as np
from _rulekit import judge, make_run, one, silent, stood_down

# ---------------------------------------------------------------- TL031/TL032: fast drop, then little


def _sft(n: int = 128, drop_points: int = 4, lr_end: float = 1.0, seed: int = 2):
    """An SFT run of ``n`` steps logged at every step: 5 warm-up steps to a 2e-5 LR (held, or
    decayed linearly to ``lr_end`` of it), the loss 2.4 to about 1.0 within its first
    ``drop_points`` steps and then drifting 1.0 to 0.98 in noise of 0.03."""
    rng = np.random.default_rng(seed)
    t = np.arange(n, dtype=float)
    loss = 1.0 - 0.02 * t / n + 1.4 * np.exp(-t / (drop_points / 3)) + rng.normal(0, 0.03, n)
    lr = 2e-5 * np.minimum(1.0, (t + 1) / 5) * np.linspace(1.0, lr_end, n)
    return make_run(loss, lr=lr)


def test_sft_128_steps_that_fell_in_its_first_steps_is_no_plateau_nor_dead():
    run = _sft(drop_points=10)  # 2.4 to ~1.05 by step 6 of 128: the first 5%, past the old 3 points
    silent("TL031", run)
    assert "first few logged points" in stood_down("TL032", run)
    # a slower start at the same constant LR is a plateau, but a NOTE (see below), not a WARN
    assert one("TL032", _sft(drop_points=15)).severity.value == "NOTE"


def test_the_same_loss_spread_over_the_first_third_with_a_decaying_lr_is_a_plateau():
    run = _sft(drop_points=40, lr_end=0.5)  # a slow descent, then nothing, the LR still at 50%
    f = one("TL032", run)
    assert f.severity.value == "WARN" and abs(f.evidence["lr_fraction"] - 0.5) < 0.01
    assert f.evidence["improvement"] < f.evidence["threshold"] and f.evidence["constant_lr"] is False


def test_tl032_at_a_constant_lr_is_a_note():
    # a loss that fell 3 -> 1 over the first fifth and held it, at a constant 1e-3 after warm-up
    t = np.arange(200, dtype=float)
    loss = 1.0 + 2.0 * np.exp(-t / 15) + np.random.default_rng(0).normal(0, 0.02, 200)
    lr = 1e-3 * np.minimum(1.0, (t + 1) / 10)
    f = one("TL032", make_run(loss, lr=lr))
    assert f.severity.value == "NOTE" and f.evidence["constant_lr"] is True
    assert f.evidence["lr_fraction"] == 1.0 and "constant LR" in f.message
    # the LR held at 99.5% of its peak is still constant; at 90% it is a schedule still high
    assert one("TL032", make_run(loss, lr=np.r_[lr[:100], lr[100:] * 0.995])).severity.value == "NOTE"
    assert one("TL032", make_run(loss, lr=np.r_[lr[:100], lr[100:] * 0.9])).severity.value == "WARN"


# ---------------------------------------------------------------- TL031: eval loss still improving


def _tts(eval_end: float):
    """A 125k-step TTS run logged every 1000 steps whose train loss holds 0.45 (noise 0.01) from
    its first logged point; its eval loss, every 5000 steps, goes 0.80 to ``eval_end`` linearly."""
    rng = np.random.default_rng(7)
    steps = np.arange(1000, 126000, 1000, dtype=float)
    loss = 0.45 + rng.normal(0, 0.01, len(steps))
    es = np.arange(5000, 126000, 5000, dtype=float)
    ev = np.linspace(0.80, eval_end, len(es))
    return make_run(loss, steps=steps, eval_loss=ev, eval_steps=es)


def test_tl031_stands_down_while_the_eval_loss_improves_to_the_end():
    why = stood_down("TL031", _tts(eval_end=0.60))
    assert "eval loss was still improving: 0.8 at its first evaluation (step 5000) to 0.6" in why


def test_tl031_fires_when_the_eval_loss_did_not_improve_either():
    f = one("TL031", _tts(eval_end=0.80))
    assert f.severity.value == "WARN" and abs(f.evidence["start_level"] - 0.45) < 0.01
    assert one("TL031", _tts(eval_end=0.95)).severity.value == "WARN"  # eval worse: no stand-down


# ---------------------------------------------------------------- TL031 per segment


def _two_segments(second_start: float):
    """A log holding two launches (the step counter back to 1): the first falls 3.0 to 1.0 over
    100 steps; the second, 100 steps, holds ``second_start`` in noise of 0.02."""
    rng = np.random.default_rng(4)
    t = np.arange(100, dtype=float)
    first = 1.0 + 2.0 * np.exp(-t / 20) + rng.normal(0, 0.02, 100)
    second = second_start + rng.normal(0, 0.02, 100)
    steps = np.r_[t + 1, t + 1]
    return make_run(np.r_[first, second], steps=steps)


def _tl031(rep):
    return [f for f in rep.findings if f.code == "TL031"]


def test_a_segment_that_continues_where_the_last_one_ended_is_a_note():
    (f,) = _tl031(judge(_two_segments(second_start=1.0)))
    assert f.severity.value == "NOTE" and f.evidence["segment"] == 2
    assert abs(f.evidence["previous_segment_end"] - 1.0) < 0.03
    assert "continues from where the previous one ended" in f.message


def test_a_segment_that_starts_over_and_learns_nothing_is_a_warn():
    (f,) = _tl031(judge(_two_segments(second_start=3.0)))
    assert f.severity.value == "WARN" and f.evidence["segment"] == 2
    assert f.evidence["previous_segment_end"] is None
