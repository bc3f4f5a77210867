import numpy as np
from _rulekit import decay, judge, make_run, not_checked, one, silent


def _resumed_run():
    a = decay(100, start=3, end=1, seed=1)
    b = decay(80, start=1.3, end=0.9, seed=2)
    steps = np.concatenate([np.arange(1, 101), np.arange(61, 141)]).astype(float)
    return make_run(np.concatenate([a, b]), steps=steps)


def test_tl095_reports_resume_points():
    f = one("TL095", _resumed_run())
    assert f.severity.value == "NOTE" and f.evidence["resumes"] == 1 and f.evidence["segments"] == 1
    assert f.evidence["resume_points"] == [[100.0, 61.0]] and "100 -> 61" in f.message
    assert f.evidence["resets_to_start"] == 0 and "stitched" in f.message


def test_tl095_silent_and_not_checked():
    silent("TL095", make_run(decay(50)))
    assert "no series" in not_checked("TL095", make_run([1.0]))


def test_stitched_trajectory():
    from trainlint.rules.segments import split_segments

    (seg,) = split_segments(_resumed_run())
    loss = seg.series["loss"]
    assert loss.steps.tolist() == list(range(1, 61)) + list(range(61, 141))
    assert loss.values[60] == _resumed_run().series["loss"].values[100]  # step 61 from the restart


def test_resumed_run_judged_as_its_real_trajectory_not_one_broken_curve():
    # read as one curve, the jump back and the repeated steps would look broken
    rep = judge(_resumed_run())
    assert rep.verdict.value == "PASS", [f.message for f in rep.findings]
    assert [f.code for f in rep.findings] == ["TL095"]
    assert "TL010" in rep.checks.ran and "TL095" in rep.checks.ran


def test_findings_name_their_segment():
    a = decay(100, start=3, end=1, seed=1)
    b = np.concatenate([decay(40, start=1.3, end=1.0, seed=2), np.linspace(1.0, 6.0, 60)])
    steps = np.concatenate([np.arange(1, 101), np.arange(0, 100)]).astype(float)
    rep = judge(make_run(np.concatenate([a, b]), steps=steps, lr=np.full(200, 1e-4)))
    div = [f for f in rep.findings if f.code == "TL010"]
    assert len(div) == 1 and div[0].evidence["segment"] == 2 and div[0].message.startswith("segment 2/2")
    res = [f for f in rep.findings if f.code == "TL095"][0]
    assert res.evidence["resets_to_start"] == 1 and res.evidence["segments"] == 2


def test_a_series_logged_in_one_launch_only_is_judged_with_that_launch():
    # the shape of anice1/Tensorflow-Revision's W&B capture (round 31d): a learning-rate range test of
    # 10 epochs, then fits that count their epochs from 1 again; the learning rate is printed in the
    # first fit only. Within the first segment's steps, it is the first segment's (it had been put
    # with the last fit's two epochs because it starts where that one starts, at step 1)
    from trainlint.rules.segments import split_segments

    loss = np.concatenate([decay(10, start=2, end=1, seed=1), decay(6, start=1.2, end=0.8, seed=2), [0.7, 0.6]])
    steps = np.concatenate([np.arange(1, 11), np.arange(1, 7), np.arange(1, 3)]).astype(float)
    run = make_run(loss, steps=steps, lr=np.geomspace(1e-3, 8e-3, 10))
    segs = split_segments(run)
    assert len(segs) == 3 and [len(s.series["loss"]) for s in segs] == [10, 6, 2]
    assert "learning_rate" in segs[0].series and all("learning_rate" not in s.series for s in segs[1:])
    # a series past the last segment's start and beyond its steps is still the last one's
    run = make_run(loss, steps=steps, eval_loss=[0.9, 0.8], eval_steps=[2.0, 12.0])
    assert "eval_loss" in split_segments(run)[-1].series


def _sweep(runs=188, bad=range(2, 188, 5), points=30, trial=True):
    """The real shape (issue 30 §3.6): one file holding a sweep of ``runs`` short runs appended
    one after the other (each from step 1), some going NaN part-way; a synthetic series."""
    rng = np.random.default_rng(0)
    steps, loss, ids = [], [], []
    for r in range(runs):
        curve = 0.3 + 2.0 * np.exp(-np.arange(points) / 6) + rng.normal(0, 0.01, points)
        if r in bad:
            curve[12:] = np.nan
        steps.append(np.arange(1, points + 1))
        loss.append(curve)
        ids.append(np.full(points, r))
    extra = {"trial": np.concatenate(ids).astype(float)} if trial else {}
    return make_run(np.concatenate(loss), steps=np.concatenate(steps).astype(float), **extra)


def test_a_sweep_log_is_one_fail_naming_the_runs_that_went_nan():
    bad = list(range(2, 188, 4))[:40]
    rep = judge(_sweep(bad=bad))
    nan = [f for f in rep.findings if f.code == "TL001"]
    assert len(nan) == 1 and nan[0].severity.value == "FAIL" and rep.verdict.value == "FAIL"
    f = nan[0]
    assert f.evidence["runs"] == 188 and f.evidence["runs_flagged"] == 40
    assert f.evidence["run_names"][:3] == ["trial 2", "trial 6", "trial 10"]
    assert (
        f.message.startswith("40 of 188 runs in this file: trial 2, trial 6, trial 10,") and "(+28 more)" in f.message
    )
    assert [e["segment"] for e in f.evidence["runs_found"]][:2] == [3, 7]


def test_few_appended_runs_keep_one_finding_each_and_runs_without_a_number_are_counted():
    rep = judge(_sweep(runs=4, bad=[1, 3]))
    assert [f.evidence["run_name"] for f in rep.findings if f.code == "TL001"] == ["trial 1", "trial 3"]
    rep = judge(_sweep(runs=12, bad=[1, 3], trial=False))
    (f,) = [f for f in rep.findings if f.code == "TL001"]
    assert f.evidence["run_names"] == ["run 2", "run 4"] and "2 of 12 runs" in f.message


def test_tl089_needs_the_guard_log_to_say_there_was_no_recovery():
    """No guard log beside the run: whether a guard rolled it back is unknown (NOT-CHECKED);
    a guard log without recoveries is a run the guard never rolled back (silent)."""
    assert "no guard log beside this run" in not_checked("TL089", make_run(decay(100)))
    silent("TL089", make_run(decay(100), events=[{"type": "guard-log", "recoveries": 0}]))
    odd = [{"type": "recovery", "code": "TL001"}, "not a record"]  # no skipped_steps: not a recovery
    assert "no guard log" in not_checked("TL089", make_run(decay(100), events=odd))
