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
