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


FLAT = decay(50, start=2.3, end=2.2)  # a loss that shows the cost of the low LR: it hardly moved


def test_tl041_lr_still_rising():
    lr = np.linspace(0, 1e-4, 50)
    f = one("TL041", make_run(FLAT, lr=lr))
    assert f.severity.value == "WARN" and f.evidence["last_lr"] == 1e-4 and "still rising" in f.message


def test_tl041_warmup_longer_than_run_and_peak_not_reached():
    lr = np.full(50, 1e-4)
    f = one("TL041", make_run(FLAT, lr=lr, meta={"warmup_steps": 500}))
    assert f.evidence["warmup_steps"] == 500
    f = one("TL041", make_run(FLAT, lr=lr, meta={"learning_rate": 1e-3}))
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


def _all_warmup(loss: np.ndarray, *, every: int = 20) -> tuple[np.ndarray, np.ndarray]:
    """A short fine-tune that is all warm-up, as detectron2 logs one: 300 iterations logged every
    20, WARMUP_ITERS 1000 so the LR rises linearly to 0.3 of its base 2.5e-4 at the end."""
    steps = np.arange(every - 1, every * len(loss), every, dtype=float)
    return steps, 2.5e-4 * (0.001 + 0.999 * (steps + 1) / 1000)


def test_tl041_short_finetune_whose_loss_fell_well_is_a_note():
    # total_loss 2.6 falling fast then settling near 0.55 over the 15 logged points
    rng = np.random.default_rng(3)
    loss = 0.55 + 2.05 * np.exp(-np.arange(15) / 2.5) + rng.normal(0, 0.02, 15)
    steps, lr = _all_warmup(loss)
    f = one("TL041", make_run(loss, steps=steps, lr=lr, meta={"warmup_steps": 1000}))
    assert f.severity.value == "NOTE" and "longer than the run" in f.message and "fell well anyway" in f.message
    assert f.evidence["loss_end"] / f.evidence["loss_start"] < 0.5 and f.evidence["tail_share"] < 0.1
    # the same all-warm-up run whose LR rise is all it shows (no warmup_steps in the log)
    f = one("TL041", make_run(loss, steps=steps, lr=lr))
    assert f.severity.value == "NOTE" and "still rising" in f.message


def test_tl041_warns_where_the_loss_shows_the_cost():
    steps, lr = _all_warmup(np.zeros(15))
    # flat: 2.21 to 2.11 over the run (fell to 95% of its start, threshold 50%)
    flat = np.linspace(2.21, 2.11, 15)
    f = one("TL041", make_run(flat, steps=steps, lr=lr, meta={"warmup_steps": 1000}))
    assert f.severity.value == "WARN" and "fell well" not in f.message
    # fell to a third but still falling as fast at the end: far from where it was heading
    falling = np.linspace(3.0, 1.0, 15)
    f = one("TL041", make_run(falling, steps=steps, lr=lr, meta={"warmup_steps": 1000}))
    assert f.severity.value == "WARN"
    # too few loss points to tell: the WARN stands (7 points, needs 8)
    fell = 0.55 + 2.05 * np.exp(-np.arange(7) / 1.2)
    short = one("TL041", make_run(fell, steps=steps[:7], lr=lr[:7], meta={"warmup_steps": 1000}))
    assert short.severity.value == "WARN"
