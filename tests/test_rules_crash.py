import numpy as np
from _rulekit import decay, judge, make_run, not_checked, one, silent, stood_down

CRASH = {"type": "crash", "signature": "CUDA out of memory", "line": 812}


def test_tl080_stopped_early_warns():
    run = make_run(decay(50), steps=np.arange(10, 510, 10), meta={"max_steps": 1000})
    f = one("TL080", run)
    assert f.severity.value == "WARN" and f.evidence["reached"] == 500 and f.evidence["planned"] == 1000
    assert "50%" in f.message and "no completion record" in f.message


def test_tl080_fails_when_crashed():
    run = make_run(decay(50), meta={"max_steps": 1000}, events=[CRASH])
    f = one("TL080", run)
    assert f.severity.value == "FAIL" and "CUDA out of memory" in f.message


def test_tl080_epochs_plan():
    run = make_run(decay(50), epoch=np.linspace(0, 1.5, 50), meta={"num_train_epochs": 3})
    f = one("TL080", run)
    assert f.evidence["unit"] == "epochs" and f.evidence["reached"] == 1.5


def test_tl080_complete_silent_stand_down_not_checked():
    silent("TL080", make_run(decay(50), steps=np.arange(5, 255, 5), meta={"max_steps": 250}))
    silent("TL080", make_run(decay(50), steps=np.arange(5, 255, 5), meta={"max_steps": 253, "logging_steps": 5}))
    assert "completion" in stood_down("TL080", make_run(decay(50), meta={"max_steps": 1000, "completed": True}))
    assert "planned length unknown" in not_checked("TL080", make_run(decay(50)))


def test_tl081_crash_event():
    f = one("TL081", make_run(decay(50), events=[{"type": "progress"}, CRASH]))
    assert f.severity.value == "FAIL" and f.evidence["line"] == 812 and f.step == 50
    assert "line 812" in f.message


def test_tl081_scanned_clean_and_unknown():
    silent("TL081", make_run(decay(50), meta={"crash_scanned": True}))
    assert "no crash records" in not_checked("TL081", make_run(decay(50)))


def test_crashed_run_verdict_fail():
    rep = judge(make_run(decay(50), meta={"max_steps": 1000}, events=[CRASH]))
    assert rep.verdict.value == "FAIL"
    assert {f.code for f in rep.findings} >= {"TL080", "TL081"}


def test_tl081_relaunched_crash_is_warn_and_console_formats_are_scanned():
    ev = dict(CRASH, resumed=True)
    f = one("TL081", make_run(decay(50), events=[ev]))
    assert f.severity.value == "WARN" and f.evidence["resumed"] and "relaunched" in f.message
    silent("TL081", make_run(decay(50), fmt="console/keras"))
    silent("TL081", make_run(decay(50), fmt="coqui"))


def test_tl080_planned_epochs_from_console_metadata():
    run = make_run(decay(50), meta={"planned_epochs": 1000, "last_epoch": 3})
    f = one("TL080", run)
    assert f.evidence["planned"] == 1000 and f.evidence["reached"] == 3 and f.evidence["unit"] == "epochs"
