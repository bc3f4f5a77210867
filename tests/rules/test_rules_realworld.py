"""Rule calibration on shapes real runs have (issue 15 §4): each change has a firing case with
its numbers and a stand-down case."""

from __future__ import annotations

import math

import numpy as np
from _rulekit import decay, judge, make_run, not_checked, one, silent, stood_down

from trainlint.config import Settings
from trainlint.inspectors.comparison import Baseline, compare_run
from trainlint.model import Run
from trainlint.roles import assign_roles

EV = np.arange(20, 201, 20, dtype=float)


# ---------------------------------------------------------------- TL066: a steady gap is a NOTE


def test_tl066_steady_gap_is_a_note_naming_regularisers():
    train = decay(200, noise=0.01)
    run = make_run(train, eval_loss=train[EV.astype(int) - 1] * 0.6, eval_steps=EV)
    f = one("TL066", run)
    assert f.severity.value == "NOTE" and abs(f.evidence["median_relative_gap"] - 0.4) < 0.03
    assert "dropout" in f.message and "SpecAugment" in f.message and "label smoothing" in f.message


def test_tl066_growing_gap_is_a_warn():
    train = decay(200, noise=0.01)
    shrink = np.linspace(0.95, 0.6, len(EV))  # eval ever further below train
    run = make_run(train, eval_loss=train[EV.astype(int) - 1] * shrink, eval_steps=EV)
    f = one("TL066", run)
    assert f.severity.value == "WARN" and f.evidence["gap_late"] - f.evidence["gap_early"] > 0.2
    assert "grew" in f.message


# ---------------------------------------------------------------- TL031/TL032: early drop


def test_tl031_tl032_silent_when_the_drop_is_in_the_first_points():
    # SFT at constant LR after warm-up: 2.4 at the first logged step, then flat around 0.9
    rng = np.random.default_rng(1)
    loss = 0.9 + rng.normal(0, 0.03, 200)
    loss[0] = 2.4
    run = make_run(loss, lr=np.full(200, 2e-5))
    silent("TL031", run)
    assert "first few logged points" in stood_down("TL032", run)


def test_tl031_tl032_still_fire_on_a_dead_flat_run():
    rng = np.random.default_rng(1)
    loss = 0.9 + rng.normal(0, 0.03, 200)
    run = make_run(loss, lr=np.full(200, 2e-5))
    assert one("TL031", run).severity.value == "WARN"
    f = one("TL032", run)
    assert f.evidence["lr_fraction"] == 1.0


# ---------------------------------------------------------------- TL005: printed 0 after decay


def test_tl005_smooth_decay_into_printed_zero_is_convergence():
    # a tiny model memorising 4 samples, printed with 4 decimals
    loss = np.round(2.0 * np.exp(-np.arange(100) / 8.0), 4)
    assert (loss[-10:] == 0).all()
    assert "convergence" in stood_down("TL005", make_run(loss))


def test_tl005_jump_to_exact_zero_stays_a_fail():
    loss = np.round(decay(100, start=2.0, end=0.8, noise=0.01), 4)
    loss[-10:] = 0.0
    f = one("TL005", make_run(loss))
    assert f.severity.value == "FAIL" and f.evidence["tail_points"] == 10


# ---------------------------------------------------------------- TL033: chance without a count


def test_tl033_chance_over_five_classes_with_accuracy():
    rng = np.random.default_rng(0)
    loss = math.log(5) + rng.normal(0, 0.01, 100)
    acc = 0.2 + rng.normal(0, 0.01, 100)
    f = one("TL033", make_run(loss, accuracy=acc))
    assert f.severity.value == "FAIL" and f.evidence["classes"] == 5 and f.evidence["inferred"]
    assert "= ln 5" in f.message and "chance over 5 classes" in f.message and "1/5" in f.message


def test_tl033_accuracy_far_from_one_over_k_is_not_chance():
    rng = np.random.default_rng(0)
    loss = math.log(5) + rng.normal(0, 0.01, 100)
    acc = 0.7 + rng.normal(0, 0.01, 100)
    assert "unknown" in not_checked("TL033", make_run(loss, accuracy=acc))


def test_tl033_reads_a_percent_accuracy_by_its_highest_point():
    """A percent accuracy whose late half sits below 1 (%) is still percent: 0.9 is 0.009 here,
    1/100 at chance, not 0.9 (as TL034 reads it: one accuracy reader for both rules)."""
    loss = np.full(100, math.log(100))
    acc = np.r_[np.full(50, 3.0), np.full(50, 0.9)]
    f = one("TL033", make_run(loss, accuracy=acc))
    assert f.severity.value == "FAIL" and f.evidence["classes"] == 100
    assert abs(f.evidence["accuracy"] - 0.009) < 1e-9


def test_tl033_ending_at_ln_k_suggests_the_class_count():
    loss = np.r_[np.linspace(3.0, math.log(10), 60), np.full(40, math.log(10))]
    f = one("TL033", make_run(loss))
    assert f.severity.value == "NOTE" and "--num-classes 10" in f.message


def test_tl033_a_learning_run_is_not_chance():
    assert "unknown" in not_checked("TL033", make_run(decay(200)))


# ---------------------------------------------------------------- too short


def test_too_short_log_says_so_in_the_summary():
    rep = judge(make_run(decay(12)))
    assert rep.summary["too_short"] is True and rep.summary["trend_rules_need"] == 20
    assert rep.summary["loss_points_finite"] == 12
    assert rep.verdict.value == "PASS"  # the point checks (NaN, zero, crash) ran and passed
    assert "too_short" not in judge(make_run(decay(50))).summary


# ---------------------------------------------------------------- interleaved writers


def test_interleaved_writers_are_two_writers_not_hundreds_of_resumes():
    # a second process started 40 steps later appends to the same log: lines alternate
    a, b = decay(150, seed=1), decay(150, seed=2) * 1.1
    steps, loss = [], []
    for i in range(190):
        if i < 150:
            steps.append(i + 1.0)
            loss.append(a[i])
        if i >= 40:
            steps.append(i - 39.0)
            loss.append(b[i - 40])
    run = make_run(np.array(loss), steps=np.array(steps))
    f = one("TL095", run)
    assert f.severity.value == "WARN" and f.evidence["writers"] == 2
    assert f.evidence["writer_points"] == [150, 150] and "resumes" in f.message
    assert f.evidence["backward_steps"] > 100
    rep = judge(run)
    assert not [x for x in rep.findings if x.code in ("TL020", "TL010", "TL011")]


def test_one_resume_is_still_a_resume():
    loss = np.r_[decay(100), decay(60)[40:]]
    steps = np.r_[np.arange(1, 101), np.arange(81, 101) + 0.0].astype(float)
    f = one("TL095", make_run(loss, steps=steps))
    assert f.severity.value == "NOTE" and "writers" not in f.evidence


# ---------------------------------------------------------------- TL070: one window


def test_tl070_stands_down_when_the_first_eval_came_after_the_drop():
    train = decay(200, start=3, end=0.1, noise=0.005, tau=10)  # fell before step 20
    ev = np.linspace(0.30, 0.45, len(EV))  # and the eval loss only rose afterwards
    reason = stood_down("TL070", make_run(train, eval_loss=ev, eval_steps=EV))
    assert "first evaluation (step 20)" in reason and "TL060" in reason


def test_tl070_quotes_the_train_drop_from_the_first_eval():
    train = decay(200, start=4, end=1, noise=0.02)
    ev = np.array([3.0, 3.1, 3.05, 3.2, 3.3, 3.25, 3.4, 3.5, 3.45, 3.6])
    f = one("TL070", make_run(train, eval_loss=ev, eval_steps=EV))
    assert f.evidence["train_start"] < 3.2  # the level at step 20, not at step 1 (about 4)


# ---------------------------------------------------------------- compare: gaps in nats


def _lm(seed: int, floor: float, fmt_: str = "console/llm.c", n: int = 150) -> Run:
    rng = np.random.default_rng(seed)
    steps = np.arange(1, n + 1) * 10.0
    frac = steps / steps[-1]
    run = Run(source=f"lm{seed}.log", format=fmt_)
    run.add(
        "loss",
        steps,
        (floor + 2.0 * np.exp(-frac / 0.2)) * np.exp(rng.normal(0, 0.01, n)),
    )
    es = steps[9::10]
    run.add("val_loss", es, floor + 0.1 + 2.0 * np.exp(-es / steps[-1] / 0.2))
    run.roles = assign_roles(run.series)
    return run


def _compare(run: Run, base: Run):
    return compare_run(run, Baseline(sources=[base.source], runs=[base]), Settings(), "auto")


def test_cross_entropy_gap_of_half_a_nat_fails_at_a_small_ratio():
    base, run = _lm(1, 3.0), _lm(2, 3.6)  # ratio 1.2x, 0.6 nat
    f = next(f for f in _compare(run, base).findings if f.code == "TL150")
    assert f.severity.value == "FAIL" and f.evidence["basis"] == "nats"
    assert 0.55 < f.evidence["gap_nats"] < 0.65 and "judged in nats" in f.message


def test_same_gap_without_cross_entropy_is_judged_by_ratio():
    base, run = _lm(1, 3.0, "jsonl"), _lm(2, 3.6, "jsonl")
    f = next(f for f in _compare(run, base).findings if f.code == "TL150")
    assert f.severity.value == "WARN" and "nats" not in f.evidence.get("basis", "")


# ---------------------------------------------------------------- TL060: one point, early stop


def _tl060_run(ev, meta=None):
    train = decay(200, start=2, end=0.1, noise=0.01)
    return make_run(train, eval_loss=np.array(ev), eval_steps=EV, meta=meta)


def test_tl060_one_higher_last_point_is_not_a_trend():
    ev = [
        1.8,
        1.5,
        1.4,
        1.35,
        1.3,
        1.25,
        1.2,
        1.15,
        1.1,
        1.25,
    ]  # best at the 9th, last +14%
    assert "one point is not a trend" in stood_down("TL060", _tl060_run(ev))
    ev[-1] = 1.7  # +55%: large enough on its own
    assert one("TL060", _tl060_run(ev)).severity.value == "WARN"


def test_tl060_is_a_note_when_early_stopping_caught_the_rise():
    ev = [1.8, 1.5, 1.4, 1.5, 1.7, 1.9, 2.1, 2.3, 2.5, 2.6]
    f = one("TL060", _tl060_run(ev, meta={"early_stopped_epoch": 10}))
    assert f.severity.value == "NOTE" and "early stopping" in f.message
    assert one("TL060", _tl060_run(ev)).severity.value == "WARN"


def test_tl020_heavy_tailed_per_batch_losses_are_noise():
    # per-batch losses of a regression: one batch in ten far above the median
    rng = np.random.default_rng(3)
    loss = decay(2000, start=1.0, end=0.02, noise=0.001) * np.exp(rng.normal(0, 0.2, 2000))
    loss[rng.choice(np.arange(50, 1990), 150, replace=False)] *= 40
    f = one("TL020", make_run(loss))
    assert f.severity.value == "NOTE" and "heavy tail" in f.message and f.evidence["spikes"] > 60


def test_tl060_last_eval_just_after_the_last_train_point_is_compared():
    # HF logs the train loss every 500 steps and evaluates at the final step 27990
    steps = np.arange(500, 27501, 500, dtype=float)
    train = 0.03 + 0.8 * np.exp(-steps / 5000)
    ev_steps = np.array([2800, 5600, 8400, 11200, 14000, 16800, 19600, 22400, 25200, 27990.0])
    ev = np.array([0.53, 0.51, 0.56, 0.75, 0.81, 1.01, 1.06, 1.14, 1.18, 1.23])
    f = one("TL060", make_run(train, steps=steps, eval_loss=ev, eval_steps=ev_steps))
    assert f.severity.value == "WARN" and f.evidence["best_step"] == 5600
