import numpy as np
from _rulekit import decay, make_run, not_checked, one, silent, stood_down

EV_STEPS = np.arange(20, 201, 20, dtype=float)


def _overfit_run(meta=None):
    train = decay(200, start=2, end=0.1, noise=0.01)
    ev = np.array([1.8, 1.5, 1.4, 1.5, 1.7, 1.9, 2.1, 2.3, 2.5, 2.6])
    return make_run(train, eval_loss=ev, eval_steps=EV_STEPS, meta=meta)


def test_tl060_names_best_step():
    f = one("TL060", _overfit_run())
    assert f.severity.value == "WARN" and f.step == 60 and f.evidence["best_eval"] == 1.4
    assert abs(f.evidence["ratio"] - 2.5 / 1.4) < 1e-9 and "step 60" in f.message
    assert f.evidence["nearest_checkpoint"] is None


def test_tl060_nearest_checkpoint():
    f = one("TL060", _overfit_run({"checkpoints": [50, 100, 150, 200]}))
    assert f.evidence["nearest_checkpoint"] == 50 and "checkpoint: step 50" in f.message
    f = one("TL060", _overfit_run({"best_model_checkpoint": "out/checkpoint-60"}))
    assert f.evidence["nearest_checkpoint"] == 60


def test_tl060_stands_down_when_train_rises_too():
    train = np.linspace(1, 3, 200)
    run = make_run(train, eval_loss=np.linspace(1, 3, 10) + [0, -0.1, 0, 0, 0, 0, 0, 0, 0, 0], eval_steps=EV_STEPS)
    assert "train loss did not fall" in stood_down("TL060", run)


def test_tl060_silent_when_eval_improves():
    run = make_run(decay(200), eval_loss=np.linspace(2, 1.2, 10), eval_steps=EV_STEPS)
    silent("TL060", run)
    assert "eval_loss" in not_checked("TL060", make_run(decay(200)))


def test_tl065_eval_tracks_train():
    train = decay(200, noise=0.0)
    run = make_run(train, eval_loss=train[EV_STEPS.astype(int) - 1] * 1.001, eval_steps=EV_STEPS)
    f = one("TL065", run)
    assert f.evidence["median_relative_gap"] < 0.01 and f.evidence["evaluations"] == 10


def test_tl066_eval_below_train_every_time():
    train = decay(200, noise=0.01)
    run = make_run(train, eval_loss=train[EV_STEPS.astype(int) - 1] * 0.9, eval_steps=EV_STEPS)
    f = one("TL066", run)
    assert abs(f.evidence["median_relative_gap"] - 0.1) < 0.03 and "dropout" in f.message
    silent("TL065", run)


def test_leakage_silent_on_normal_gap_and_not_checked():
    train = decay(200, noise=0.01)
    run = make_run(train, eval_loss=train[EV_STEPS.astype(int) - 1] * 1.1, eval_steps=EV_STEPS)
    silent("TL065", run)
    silent("TL066", run)
    few = make_run(train, eval_loss=[1.0, 1.0], eval_steps=[50, 100])
    assert "needs at least 5" in not_checked("TL066", few)


def test_tl070_no_generalization():
    train = decay(200, start=4, end=1, noise=0.02)
    ev = np.array([3.0, 3.1, 3.05, 3.2, 3.3, 3.25, 3.4, 3.5, 3.45, 3.6])
    f = one("TL070", make_run(train, eval_loss=ev, eval_steps=EV_STEPS))
    assert f.severity.value == "FAIL" and f.evidence["eval_first"] == 3.0
    assert f.evidence["train_drop"] > 0.5 and f.evidence["evaluations"] == 10


def test_tl070_silent_when_eval_improved_once():
    train = decay(200, start=4, end=1, noise=0.02)
    ev = np.array([3.0, 2.5, 3.05, 3.2, 3.3, 3.25, 3.4, 3.5, 3.45, 3.6])
    silent("TL070", make_run(train, eval_loss=ev, eval_steps=EV_STEPS))
    assert "eval_loss" in not_checked("TL070", make_run(train))


def test_tl061_best_model_long_before_the_end():
    train = decay(200, start=2, end=0.5)
    ev = np.linspace(2.0, 1.0, 10)
    ev[4:] = 1.3  # best at step 80 (index 3), later evaluations no better
    ev[3] = 1.0
    run = make_run(train, eval_loss=ev, eval_steps=EV_STEPS, meta={"best_model_checkpoint": "out/checkpoint-80"})
    f = one("TL061", run)
    assert f.step == 80 and f.evidence["later_evals"] == 6 and abs(f.evidence["stale_fraction"] - 0.6) < 1e-9
    assert "best_model_checkpoint" in f.message


def test_tl061_stands_down_when_best_is_latest_eval_and_not_checked():
    train = decay(200, start=2, end=0.5)
    run = make_run(train, eval_loss=[3.0, 2.5, 2.4], eval_steps=[0, 60, 120], meta={"best_step": 120})
    assert "latest" in stood_down("TL061", run)
    run = make_run(train, eval_loss=np.linspace(2, 1, 10), eval_steps=EV_STEPS, meta={"best_global_step": 190})
    silent("TL061", run)
    assert "no best model" in not_checked("TL061", make_run(train))


def test_tl065_one_percent_gap_of_pretraining_is_fine():
    train = decay(200, noise=0.0)
    run = make_run(train, eval_loss=train[EV_STEPS.astype(int) - 1] * 1.01, eval_steps=EV_STEPS)
    silent("TL065", run)


def test_tl066_interval_average_lag_alone_does_not_fire():
    # a logger that averages the train loss over each 5-step interval trails a falling loss;
    # an eval of the same loss at the interval's end is below it at every evaluation
    steps = np.arange(5, 205, 5, dtype=float)
    true = lambda s: 0.2 + 2 * np.exp(-s / 40)  # noqa: E731
    logged = np.array([true(np.arange(s - 4, s + 1)).mean() for s in steps])
    ev_steps = np.arange(10, 201, 10, dtype=float)
    run = make_run(logged, steps=steps, eval_loss=true(ev_steps), eval_steps=ev_steps)
    silent("TL066", run)


def _vit_finetune(last_eval: float):
    """An HF image-classification fine-tune of 10 epochs (320 steps, logged every 10, evaluated
    every 100): train 1.91 to 0.03, eval 1.01 at step 100 and 0.90 at step 200, where the
    Trainer keeps its best model; the eval at step 300 is ``last_eval``."""
    steps = np.arange(10, 330, 10, dtype=float)
    train = 0.03 + 1.88 * np.exp(-(steps - 10) / 60)
    meta = {"best_model_checkpoint": "vit-base-cat-emotions\\\\checkpoint-200", "max_steps": 320}
    return make_run(train, steps=steps, eval_loss=[1.01, 0.90, last_eval], eval_steps=[100, 200, 300], meta=meta)


def test_tl061_stale_best_whose_eval_held_within_5_percent_is_a_note():
    f = one("TL061", _vit_finetune(0.927))  # 3% above the best
    assert f.severity.value == "NOTE" and f.evidence["stale_fraction"] == 0.375
    assert abs(f.evidence["eval_above_best"] - 0.03) < 1e-9 and "cost nothing measurable" in f.message


def test_tl061_stale_best_whose_eval_got_worse_warns():
    f = one("TL061", _vit_finetune(1.08))  # 20% above the best: the tail overfit
    assert f.severity.value == "WARN" and f.evidence["eval_above_best"] > 0.05 and "NOTE" not in f.message


def _at_chance(level: float, seed: int = 0):
    """The shape of a classifier that learned nothing: train and eval loss both sit at ``level``
    with batch noise (a binary one at ln 2 = 0.6931: 0.6929-0.6934 for 200 steps)."""
    rng = np.random.default_rng(seed)
    train = level + rng.normal(0, 0.0002, 200)
    ev = level + rng.normal(0, 0.0001, 10)
    return make_run(train, eval_loss=ev, eval_steps=EV_STEPS, lr=np.full(200, 1e-3))


def test_tl065_stands_down_when_train_and_eval_sit_at_chance():
    """Issue 30 §4: train and eval agree because both are at chance (TL033's finding), not
    because the data overlap."""
    import math

    from _rulekit import judge

    for k, extra in ((2, None), (10, None), (10, {"num_classes": 10})):
        run = _at_chance(math.log(k))
        why = stood_down("TL065", run, extra)
        assert f"ln {k}" in why and "TL033" in why, why
        rep = judge(run, extra)
        codes = {f.code: f.severity.value for f in rep.findings}
        assert codes.get("TL033") == "FAIL" and "TL065" not in codes, codes
    # the same agreement at a level that is no chance level is still the leak it looks like
    f = one("TL065", _at_chance(0.55))
    assert f.evidence["median_relative_gap"] < 0.002


# ---------------------------------------------------------------- TL060: a rise within the eval loss's own noise

# The calibration part's protac-diffusion-train-1036, first segment: 100 epochs of a val loss that
# bounces 0.10-0.17 around its plateau; back at its best at epoch 96, it ends at 0.1085.
PROTAC_VAL = [0.4164, 0.3301, 0.3046, 0.2841, 0.2019, 0.2611, 0.2941, 0.2285, 0.1914, 0.2263]
PROTAC_VAL += [0.2063, 0.234, 0.2393, 0.2539, 0.2373, 0.1725, 0.1926, 0.1636, 0.2295, 0.1852]
PROTAC_VAL += [0.1898, 0.2151, 0.1594, 0.1663, 0.1661, 0.1594, 0.1579, 0.1357, 0.1387, 0.1435]
PROTAC_VAL += [0.1945, 0.1558, 0.1584, 0.1565, 0.1643, 0.1972, 0.119, 0.1579, 0.1644, 0.1609]
PROTAC_VAL += [0.1285, 0.1393, 0.1364, 0.1523, 0.1664, 0.1884, 0.1756, 0.1683, 0.1584, 0.1418]
PROTAC_VAL += [0.15, 0.1761, 0.1548, 0.1405, 0.1421, 0.1203, 0.154, 0.1535, 0.1638, 0.128]
PROTAC_VAL += [0.1628, 0.1647, 0.1206, 0.1301, 0.1564, 0.1522, 0.1077, 0.1425, 0.1581, 0.1015]
PROTAC_VAL += [0.1458, 0.1307, 0.1494, 0.1211, 0.2132, 0.1286, 0.1383, 0.1392, 0.1471, 0.109]
PROTAC_VAL += [0.1616, 0.1103, 0.1551, 0.1665, 0.1013, 0.1344, 0.1252, 0.1071, 0.1423, 0.1735]
PROTAC_VAL += [0.1037, 0.1066, 0.1139, 0.1128, 0.1062, 0.1014, 0.1248, 0.113, 0.1237, 0.1085]

# The calibration part's safety-binary-classifier-train-log-1013: 22 evaluations every 200 steps
# that swing 0.11-0.27 between neighbours; the best (0.1131) is one low evaluation.
SAFETY_VAL = [0.3097, 0.1506, 0.1806, 0.1201, 0.1495, 0.1469, 0.1344, 0.1468, 0.1369, 0.2691, 0.233]
SAFETY_VAL += [0.1131, 0.1899, 0.1305, 0.1763, 0.1387, 0.173, 0.1267, 0.1434, 0.1661, 0.2589, 0.2325]


def test_tl060_a_rise_within_a_plateau_s_bounce_is_a_note():
    steps = np.arange(1, 101, dtype=float)
    run = make_run(decay(100, start=0.6, end=0.15, noise=0.005), eval_loss=PROTAC_VAL, eval_steps=steps)
    f = one("TL060", run)
    assert f.severity.value == "NOTE" and f.evidence["best_eval"] == 0.1013 and f.evidence["best_step"] == 85
    assert abs(f.evidence["ratio"] - 0.113 / 0.1013) < 1e-9
    assert 0.018 < f.evidence["eval_noise"] < 0.021 and f.evidence["rise_over_noise"] < 1
    assert "noise around a plateau" in f.message and "0.598" in f.message and "came back to 0.1014" in f.message


def test_tl060_one_low_evaluation_the_curve_never_comes_back_to_still_warns():
    # safety-binary-classifier-train-log-1013 (adjudicated: true but benign) is 2.4x its noise
    # above its best, but never back within 5% of it: the shape of a real rise (the calibration
    # part's 4cast2-training-log-441, broken, is the same), so it stays a WARN that gives its noise
    steps = np.arange(200, 4401, 200, dtype=float)
    run = make_run(decay(22, start=0.36, end=0.08, noise=0.003), steps=steps, eval_loss=SAFETY_VAL, eval_steps=steps)
    f = one("TL060", run)
    assert f.severity.value == "WARN" and f.evidence["best_step"] == 2400 and f.evidence["ratio"] > 2
    assert 2 < f.evidence["rise_over_noise"] < 3 and abs(f.evidence["eval_noise"] - 0.0494) < 0.001


def _noisy_climb(climb: float):
    """30 evaluations: a fall to 0.5 by the 10th, then a steady climb of ``climb`` per evaluation,
    with a swing of +-0.02 between neighbours; the train loss keeps falling."""
    i = np.arange(30, dtype=float)
    ev = np.where(i < 10, 0.5 + 0.5 * (1 - i / 10) ** 2, 0.5 + climb * (i - 10))
    ev += 0.02 * np.where(i % 2 == 0, 1.0, -1.0)
    steps = (i + 1) * 20
    return make_run(decay(600, start=2, end=0.1, noise=0.01), eval_loss=ev, eval_steps=steps)


def test_tl060_a_sustained_climb_through_the_same_swing_still_warns():
    f = one("TL060", _noisy_climb(0.02))  # 0.485 at its best, 0.86 at the end: 20 evaluations of climb
    assert f.severity.value == "WARN" and abs(f.evidence["best_eval"] - 0.485) < 1e-9 and f.evidence["best_step"] == 200
    assert abs(f.evidence["end_eval"] - 0.86) < 1e-9 and 7 < f.evidence["rise_over_noise"] < 8.5
    assert "noise" not in f.message


def test_tl060_a_slow_climb_within_the_swing_still_warns():
    # 0.004 per evaluation: the end is under 3x the noise above the best (0.484) and the curve is
    # within 5% of its best just after it, but only in the first third of the stretch that follows
    f = one("TL060", _noisy_climb(0.004))
    assert f.severity.value == "WARN" and 1 < f.evidence["rise_over_noise"] < 2 and f.evidence["best_eval"] == 0.484


def test_tl060_a_plateau_whose_later_evaluations_climb_is_no_bounce():
    steps = np.arange(1, 101, dtype=float)
    run = make_run(decay(100, start=0.6, end=0.15, noise=0.005), eval_loss=PROTAC_VAL, eval_steps=steps)
    assert one("TL060", run).severity.value == "NOTE"  # its climb after the best: -0.95 standard errors
    assert one("TL060", run, climb_z=-1.0).severity.value == "WARN"
