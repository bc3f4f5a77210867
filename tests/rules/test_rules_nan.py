import numpy as np
from _rulekit import decay, judge, make_run, not_checked, one, silent, stood_down


def test_tl001_fires_with_first_step_and_count():
    loss = decay(50)
    loss[[30, 44]] = np.nan
    f = one("TL001", make_run(loss))
    assert f.severity.value == "FAIL" and f.step == 31
    assert f.evidence["count"] == 2 and "step 31" in f.message and not f.evidence["non_finite_to_end"]


def test_tl001_single_nan_recovered_from_is_a_warn_naming_the_step():
    """Issue 30 §4: one NaN the run recovers from is a WARN naming its step; FAIL when it
    recurs, when the run ends on it, or with fail_count=1 (the old rule)."""
    loss = decay(50)
    loss[30] = np.nan
    f = one("TL001", make_run(loss))
    assert f.severity.value == "WARN" and f.step == 31 and f.evidence["recovered"] is True
    assert "step 31" in f.message and "recovered (the 19 point(s) after it are finite)" in f.message
    assert one("TL001", make_run(loss), fail_count=1).severity.value == "FAIL"
    loss[40] = np.inf
    assert one("TL001", make_run(loss)).severity.value == "FAIL"
    ends = decay(50)
    ends[-1] = np.nan
    f = one("TL001", make_run(ends))
    assert f.severity.value == "FAIL" and f.evidence["non_finite_to_end"]
    # a run still training whose latest point is the NaN: a WARN until the next points show it
    f = one("TL001", make_run(ends), extra={"live": True})
    assert f.severity.value == "WARN" and "latest point" in f.message


def test_tl001_silent_on_finite_loss():
    silent("TL001", make_run(decay(50)))


def test_tl002_nan_eval_loss():
    run = make_run(decay(50), eval_loss=[2.0, 1.5, np.inf, np.inf], eval_steps=[10, 20, 30, 40])
    f = one("TL002", run)
    assert f.severity.value == "FAIL" and f.step == 30 and f.evidence["count"] == 2
    assert "infinite" in f.message and f.evidence["non_finite_to_end"]


def test_tl002_not_checked_without_eval():
    assert "eval_loss" in not_checked("TL002", make_run(decay(50)))
    silent("TL002", make_run(decay(50), eval_loss=[2.0, 1.5], eval_steps=[10, 20]))


def test_tl003_isolated_overflow_steps_warn_with_count():
    gn = np.full(60, 0.5)
    gn[[10, 40]] = np.inf
    f = one("TL003", make_run(decay(60), grad_norm=gn))
    assert f.severity.value == "WARN" and f.evidence["count"] == 2 and f.step == 11
    assert "2 of 60" in f.message


def test_tl003_one_skipped_step_in_a_thousand_is_a_note():
    """The calibration part's dat55-project4-trainer-state-824: 1,000 steps of an fp16 fine-tune
    logged at every step, the loss 4.2 to 0.02, one infinite grad norm at step 222: the loss
    scaler skipped one update in a thousand."""
    rng = np.random.default_rng(3)
    t = np.arange(1000)
    loss = (4.2 * np.exp(-t / 60) + 0.02) * rng.lognormal(0, 0.1, 1000)
    gn = 1.5 * rng.lognormal(0, 0.2, 1000)
    gn[221] = np.inf
    f = one("TL003", make_run(loss, grad_norm=gn))
    assert f.severity.value == "NOTE" and f.evidence["count"] == 1 and f.step == 222
    assert "(0.1% of the points, threshold 1%: a NOTE)" in f.message
    gn[[300, 420, 555, 610, 777, 801, 860, 905, 950, 990, 995]] = np.inf  # 12 in 1,000: over 1%
    f = one("TL003", make_run(loss, grad_norm=gn))
    assert f.severity.value == "WARN" and f.evidence["count"] == 12 and "1.2% of the points" in f.message


def test_tl003_poisoned_when_non_finite_to_the_end():
    gn = np.full(60, 0.5)
    gn[50:] = np.nan
    f = one("TL003", make_run(decay(60), grad_norm=gn))
    assert f.severity.value == "FAIL" and f.evidence["tail_points"] == 10 and "last 10" in f.message


def test_tl003_poisoned_when_loss_zero_at_bad_grad():
    gn = np.full(60, 0.5)
    gn[20] = np.inf
    loss = decay(60)
    loss[20] = 0.0
    f = one("TL003", make_run(loss, grad_norm=gn))
    assert f.severity.value == "FAIL" and f.evidence["loss_zero_at_bad"] == 1


def test_tl003_poisoned_when_loss_non_finite():
    gn, loss = np.full(60, 0.5), decay(60)
    gn[20], loss[[21, 30]] = np.inf, np.nan
    assert one("TL003", make_run(loss, grad_norm=gn)).severity.value == "FAIL"
    loss[30] = 1.0  # one non-finite loss the run recovered from: the same skipped step (TL001 WARN)
    assert one("TL003", make_run(loss, grad_norm=gn)).severity.value == "WARN"


def test_tl003_silent_and_not_checked():
    silent("TL003", make_run(decay(60), grad_norm=np.full(60, 0.5)))
    assert "grad_norm" in not_checked("TL003", make_run(decay(60)))


def test_tl004_hf_filter_hides_nan():
    gn = np.full(60, 0.5)
    gn[10] = np.inf
    run = make_run(decay(60), grad_norm=gn, fmt="hf-trainer-state")
    f = one("TL004", run)
    assert f.severity.value == "NOTE" and f.evidence["grad_norm_non_finite"] == 1
    assert "logging_nan_inf_filter" in f.message
    run = make_run(decay(60), eval_loss=[2.0, np.nan, 1.0], eval_steps=[10, 20, 30])
    f = one("TL004", run)
    assert f.severity.value == "WARN" and f.evidence["eval_loss_non_finite"] == 1


def test_tl004_stands_down_when_loss_shows_nan():
    loss = decay(60)
    loss[5] = np.nan
    assert "TL001" in stood_down("TL004", make_run(loss, grad_norm=np.full(60, np.nan)))
    assert "grad_norm" in not_checked("TL004", make_run(decay(60)))
    silent("TL004", make_run(decay(60), grad_norm=np.full(60, 0.5)))


def test_tl005_all_zero_to_end_and_scattered():
    f = one("TL005", make_run(np.zeros(30)))
    assert f.severity.value == "FAIL" and f.evidence["zero_points"] == 30
    loss = decay(60)
    loss[45:] = 0.0
    f = one("TL005", make_run(loss))
    assert f.severity.value == "FAIL" and f.step == 46 and f.evidence["tail_points"] == 15
    loss = decay(60)
    loss[[7, 22, 33]] = 0.0
    f = one("TL005", make_run(loss))
    assert f.severity.value == "WARN" and f.evidence["zero_points"] == 3 and "8, 23, 34" in f.message


def test_tl005_silent_and_stand_down_near_zero_loss():
    silent("TL005", make_run(decay(60)))
    loss = np.abs(decay(60, start=1e-4, end=1e-5, noise=1e-6))
    loss[10] = 0.0
    assert "near zero" in stood_down("TL005", make_run(loss))


def test_tl005_zeros_only_before_the_first_update_stand_down_within_the_share():
    """A DQN prints its loss as 0 until the replay buffer fills: zeros at the first points only,
    up to ``max_lead_share`` of the run, stand down; a longer zero start, or the same start with a
    lower threshold, is still scattered zeros (a WARN naming the steps)."""
    loss = decay(60)
    loss[:4] = 0.0  # 4 of 60: under a tenth
    assert "before its first non-zero value" in stood_down("TL005", make_run(loss))
    f = one("TL005", make_run(loss), max_lead_share=0.05)
    assert f.severity.value == "WARN" and f.evidence["zero_points"] == 4 and "1, 2, 3, 4" in f.message
    loss = decay(60)
    loss[:8] = 0.0  # 8 of 60: over a tenth
    assert one("TL005", make_run(loss)).evidence["zero_points"] == 8


def test_tl001_loss_undefined_before_the_first_update_is_a_note():
    """An RL agent logs its loss as an average over the updates so far: NaN until the replay
    buffer fills (PFRL's scores.txt, wwwshwww/PFRL_impl result/scores.txt at b6b28a43: SAC's
    average_q_func1_loss and average_q_func2_loss NaN on the first row, n_updates 0). A NaN prefix
    followed by finite points to the end is a loss not yet defined: a NOTE naming the steps."""
    loss = decay(50)
    loss[:6] = np.nan
    f = one("TL001", make_run(loss))
    assert f.severity.value == "NOTE" and f.step == 1
    assert f.evidence["undefined_points"] == 6 and f.evidence["defined_from"] == 7
    assert "first 6 point(s)" in f.message and "steps 1-6" in f.message and "finite from step 7" in f.message
    one_nan = decay(50)
    one_nan[0] = np.nan
    f = one("TL001", make_run(one_nan))
    assert f.severity.value == "NOTE" and "at step 1," in f.message
    # grad norms isolated non-finite with the loss only undefined at the start: not a poisoned run
    gn = np.full(50, 0.5)
    gn[20] = np.inf
    assert one("TL003", make_run(loss, grad_norm=gn)).severity.value != "FAIL"


def test_tl001_non_finite_after_an_undefined_start_is_judged_as_ever():
    """The prefix does not hide a NaN that comes after the loss was defined, nor a loss that is
    NaN from the first point to the last, nor one whose only finite point is the last."""
    loss = decay(50)
    loss[:6] = np.nan
    loss[[30, 40]] = np.nan
    f = one("TL001", make_run(loss))
    assert f.severity.value == "FAIL" and f.step == 31 and f.evidence["count"] == 2
    assert "after it was defined" in f.message and "first 6 point(s)" in f.message
    loss[40] = 0.5
    f = one("TL001", make_run(loss))
    assert f.severity.value == "WARN" and f.step == 31
    ends = decay(50)
    ends[:6] = np.nan
    ends[-1] = np.nan
    assert one("TL001", make_run(ends)).severity.value == "FAIL"
    dead = np.full(50, np.nan)
    f = one("TL001", make_run(dead))
    assert f.severity.value == "FAIL" and f.evidence["non_finite_to_end"]
    late = np.full(50, np.nan)
    late[-1] = 1.0
    assert one("TL001", make_run(late)).severity.value == "FAIL"


def test_a_loss_infinite_for_a_stretch_is_judged_without_numpy_warnings():
    """A loss that overflows to inf epoch after epoch (a notebook's training loop printing
    ``tensor(inf)``: fanbyprinciple/fastai dlwp_book/ch5_mechanics_of_learning/
    simplest-model-parameter-estimation (1).ipynb @ b514aca954f973c05e9f269e91036095c450aa50) is judged
    with no RuntimeWarning printed (inf - inf in the summed-loss test)."""
    import warnings

    loss = decay(50)
    loss[10:20] = np.inf
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rep = judge(make_run(loss))
    f = next(f for f in rep.findings if f.code == "TL001")
    assert f.severity.value == "FAIL" and f.step == 11
