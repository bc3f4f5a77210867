"""The streaming engine: same findings as doctor, findings announced once, stop policy."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from _consolekit import crashed_log

from trainlint.api import read_run
from trainlint.engine import judge_run
from trainlint.live import Guard
from trainlint.live.replay import replay
from trainlint.model import Run
from trainlint.readers.stream import records

ROOT = Path(__file__).resolve().parents[2]


def corpus(evidence_dir: Path | None) -> list[Path]:
    from trainlint.discover import walk

    paths = [item.path for item in walk(ROOT / "examples") if item.inspector.kind == "log"]
    if evidence_dir is not None:
        paths += [item.path for item in walk(evidence_dir) if item.inspector.kind == "log"]
    return paths


def finding_dicts(report):
    return [f.to_dict() for f in report.findings]


def _evidence_or_none():
    from conftest import EVIDENCE

    return EVIDENCE if EVIDENCE.is_dir() else None


@pytest.mark.parametrize("path", corpus(_evidence_or_none()), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_replay_gives_doctors_findings(path):
    try:
        run = read_run(path)
    except Exception as exc:  # unreadable corpus files are the readers' tests' business
        pytest.skip(f"unreadable: {exc}")
    if not run.has("loss"):
        pytest.skip("no loss series")
    _, live = replay(run)
    assert finding_dicts(live) == finding_dicts(judge_run(run))


def test_records_group_series_by_step():
    run = Run("x", "t")
    run.add("loss", [1, 2, 3], [3.0, 2.0, 1.0])
    run.add("eval_loss", [2], [2.5])
    run.add("loss2", [2, 2], [1.0, 1.1])  # repeated step: a resume
    recs = [(s, m) for s, _, m in records(run)]
    assert recs == [
        (1.0, {"loss": 3.0}),
        (2.0, {"loss": 2.0, "eval_loss": 2.5, "loss2": 1.0}),
        (2.0, {"loss2": 1.1}),
        (3.0, {"loss": 1.0}),
    ]


def test_nan_is_announced_at_once_and_stops():
    """The first NaN is a WARN at once (the run may recover from one: issue 30 §4); the second
    is judged at once too, FAILs and stops the run."""
    g = Guard(stop_on="FAIL")
    announced = []
    for i in range(2000):
        loss = 3.0 / (1 + i / 30) if i < 1500 else math.nan  # still improving: nothing else to say
        lr = 1e-3 * 0.5 * (1 + math.cos(math.pi * i / 2000))
        announced += [(i, f.code, f.severity.value) for f in g.observe(i, loss=loss, lr=lr)]
        if g.should_stop:
            break
    assert announced == [(1500, "TL001", "WARN"), (1501, "TL001", "FAIL")]
    assert g.should_stop and g.stop_reason.code == "TL001"


def test_warn_only_by_default_and_announced_once(tmp_path):
    log = tmp_path / "guard.jsonl"
    g = Guard(log_path=log)
    seen = []
    for i in range(400):
        seen += [
            (f.code, f.severity.value) for f in g.observe(i, loss=math.nan if i >= 100 else 1.0 / (i + 1), lr=1e-3)
        ]
    # the first NaN a WARN (it may be recovered from), the second a FAIL: then never again
    assert seen == [("TL001", "WARN"), ("TL001", "FAIL")] and not g.should_stop
    g.close()
    lines = log.read_text().splitlines()
    assert '"type": "start"' in lines[0] and '"type": "end"' in lines[-1]
    assert sum('"type": "finding"' in line for line in lines) == 2


def test_grace_keeps_slow_categories_from_stopping_during_warmup():
    g = Guard(stop_on="FAIL", warmup_steps=1000)
    for i in range(300):
        g.observe(i, loss=1.0 + 0.01 * math.sin(i), learning_rate=0.0)
    assert any(f.code == "TL040" for f in g.current)  # lr-zero found, but the run was not stopped
    assert not g.should_stop


def test_judging_is_amortised():
    g = Guard()
    calls = []
    real = g._judge
    g._judge = lambda n: (calls.append(n), real(n))[1]
    rng = np.random.default_rng(0)
    for i in range(5000):
        g.observe(i, loss=1.0 + 0.01 * rng.standard_normal(), lr=1e-3)
    assert len(calls) < g.growth * (2 + math.log(5000 / g.growth))  # ~growth * ln(n), not one per step


def test_doctor_reads_the_guard_log(cli, tmp_path):
    log = tmp_path / "out" / "trainlint-guard.jsonl"
    g = Guard(stop_on="FAIL", log_path=log)
    for i in range(100):
        g.observe(i, loss=math.nan if i >= 50 else 1.0 + 1.0 / (i + 1), lr=1e-3)
        if g.should_stop:
            break
    data = cli("doctor", log, "--format", "json").json()
    rep = data["reports"][0]
    assert rep["format"] == "trainlint-guard" and rep["verdict"] == "FAIL"
    assert [f["code"] for f in rep["findings"]] == ["TL001"]
    assert any("stopped the run at step 51" in n for n in rep["notes"])  # the NaN recurred at 51
    assert any("no end record" in n for n in rep["notes"])


def test_scheduled_judgements_build_no_curves_only_the_final_report_does(monkeypatch):
    import trainlint.engine as engine

    built = []
    real = engine.curves_of
    monkeypatch.setattr(engine, "curves_of", lambda run, *a, **k: built.append(len(run.series)) or real(run, *a, **k))
    g = Guard()
    for i in range(3000):
        g.observe(i, loss=3.0 / (1 + i / 30), lr=1e-3)
    assert g.judged_records > 0 and built == []  # the guard judged, and drew nothing
    assert g.close().curves["loss"]["points"] == 3000 and len(built) == 1


def flat_warmup_stream(with_lr: bool, seed: int = 0, n: int = 600):
    """A healthy 10-class classifier: the loss sits at ln 10 through a 60-step warm-up, then falls."""
    rng = np.random.default_rng(seed)
    for i in range(n):
        if i < 60:
            loss, lr = math.log(10) + rng.normal(0, 0.002), 1e-3 * (i + 1) / 60
        else:
            loss = 0.3 + (math.log(10) - 0.3) * math.exp(-(i - 60) / 80) + rng.normal(0, 0.02)
            lr = 1e-3 * 0.5 * (1 + math.cos(math.pi * (i - 60) / (n - 60)))
        metrics = {"loss": loss, "grad_norm": 1.0 + 0.1 * rng.standard_normal()}
        if with_lr:
            metrics["learning_rate"] = lr
        yield i, metrics


@pytest.mark.parametrize("with_lr", [True, False])
@pytest.mark.parametrize("seed", [0, 1])
def test_flat_warmup_healthy_run_never_fails(with_lr, seed):
    g = Guard(stop_on="FAIL")
    for step, metrics in flat_warmup_stream(with_lr, seed):
        g.observe(step, wall_time=float(step), **metrics)
    assert not g.should_stop
    assert not [f for _, _, f in g.timeline if f.severity.value == "FAIL"]
    assert g.close().verdict.value != "FAIL"


def test_a_whole_run_rule_runs_only_at_the_end_and_the_report_says_so():
    from trainlint.registry import REGISTRY

    assert REGISTRY.get("TL033").live == "end"
    g = Guard()
    rng = np.random.default_rng(0)
    for i in range(300):  # stuck at chance over 10 classes from start to end
        g.observe(i, loss=math.log(10) + rng.normal(0, 0.002))
    assert "TL033" not in {f.code for _, _, f in g.timeline}
    report = g.close()
    assert "TL033" in {f.code for f in report.findings if f.severity.value == "FAIL"}
    assert any(n.startswith("TL033 loss-at-uniform judges the whole run") for n in report.notes)


def test_an_unknown_live_mode_is_refused():
    from trainlint.registry import rule

    with pytest.raises(ValueError, match="live mode"):
        rule(
            code="TL999", name="x-test", category="nan", severity="WARN", summary="", explanation="", live="sometimes"
        )(lambda ctx: None)


def test_the_schedule_is_a_function_of_the_record_count_alone():
    def judged(clock):
        g = Guard(clock=clock)
        calls = []
        real = g._judge
        g._judge = lambda n: (calls.append(n), real(n))[1]
        for i in range(200):
            g.observe(i, loss=1.0 + 0.01 * math.sin(i))
        return calls

    ticks = iter(range(10**6))
    assert judged(lambda: 0.0) == judged(lambda: float(next(ticks)) ** 3)
    assert judged(lambda: 0.0) == [40, 50, 62, 77, 96, 120, 150, 187]


def test_a_run_that_stays_nan_is_not_rejudged_at_every_record():
    g = Guard()
    calls = []
    real = g._judge
    g._judge = lambda n: (calls.append(n), real(n))[1]
    for i in range(400):
        g.observe(i, loss=1.0 / (i + 1) if i < 100 else math.nan)
    assert 100 + 1 in calls  # the first NaN judged at once
    assert len([n for n in calls if n > 101]) <= (400 - 101) // 4  # at most every 4th record, not each


def test_an_lr_zero_from_the_start_is_judged_at_once_a_warmup_from_zero_is_not():
    g = Guard(stop_on="FAIL")
    for i in range(10):
        g.observe(i, loss=2.0 - 0.01 * i, learning_rate=0.0)
        if g.should_stop:
            break
    assert g.stop_reason.code == "TL040" and g.history.records == 3
    g = Guard(stop_on="FAIL", meta={"max_steps": 1000})
    for i in range(39):  # a linear warm-up that starts at 0
        g.observe(i, loss=2.0 / (1 + i / 10), learning_rate=1e-3 * i / 60)
    assert g.judged_records == 0  # no alarm: only the schedule judges, from record 40
    for i in range(39, 60):
        g.observe(i, loss=2.0 / (1 + i / 10), learning_rate=1e-3 * i / 60)
    assert g.judged_records == 50 and not g.timeline  # neither warmup-unfinished nor run-incomplete yet


def test_a_single_nan_recovered_from_warns_as_doctor_does():
    """The live guard on a run with one NaN it recovers from: a WARN at that step, never a
    stop with stop_on="FAIL", and doctor's findings at close; a NaN that recurs FAILs and
    stops the run at the record that repeats it."""
    from _rulekit import decay, make_run

    loss = decay(200)
    loss[120] = np.nan
    guard = Guard(stop_on="FAIL")
    for i, v in enumerate(loss):
        guard.observe(i + 1, loss=float(v), lr=1e-4)
    tl001 = [(f.severity.value, f.step) for _, _, f in guard.timeline if f.code == "TL001"]
    assert tl001 == [("WARN", 121)] and not guard.should_stop
    doctor = judge_run(make_run(loss, lr=np.full(200, 1e-4)))
    closed = guard.close()
    assert [(f.code, f.severity, f.message) for f in closed.findings] == [
        (f.code, f.severity, f.message) for f in doctor.findings
    ]
    assert [f.severity.value for f in doctor.findings if f.code == "TL001"] == ["WARN"]
    loss[125] = np.nan
    guard = Guard(stop_on="FAIL")
    for i, v in enumerate(loss):
        guard.observe(i + 1, loss=float(v), lr=1e-4)
        if guard.should_stop:
            break
    assert guard.should_stop and guard.stop_reason.code == "TL001" and i == 125


def test_a_blowup_in_warmup_is_flagged_live_when_it_happens():
    """TL012 judges points (live "always"): the guard flags a warm-up blow-up (7.97 -> 805) at the
    judgement after it, not only at the end."""
    g = Guard()
    loss = [7.97, 805.0, 420.0, 120.0, 25.0, 3.7] + [3.7 - 0.05 * i for i in range(40)]
    for i, value in enumerate(loss):
        g.observe(10 * (i + 1), loss=value)
    assert "TL012" in {f.code for _, _, f in g.timeline if f.severity.value == "FAIL"}


def test_replay_keeps_a_restart_and_a_crash_as_doctor_does(tmp_path):
    """The guard is fed each series in its written order, as watch feeds a poll, and is handed the
    reader's events: a run appended after a restart and a traceback at the end give the final
    findings doctor gives (TL095 and TL081). Replay had sorted the records by step, which merged
    the two runs, and dropped the crash: on 47 of 359 calibration logs of the real-log corpus its
    final findings had not been doctor's."""
    path = crashed_log(tmp_path, runs=2)
    run = read_run(path)
    _, live = replay(run)
    assert finding_dicts(live) == finding_dicts(judge_run(run))
    assert {"TL081", "TL095"} <= {f.code for f in live.findings}


def test_a_saved_trainer_state_is_judged_live_as_the_format_it_is(tmp_path):
    """A trainer_state.json saved with a checkpoint, training to go on: TL080 is a NOTE for doctor,
    since the format says the file is a snapshot; the guard's run had been of format "live", so the
    same rule had said WARN there (11 calibration logs)."""
    history = [{"step": s, "loss": round(2.0 - s / 100, 3), "learning_rate": 5e-5} for s in range(5, 101, 5)]
    state = {
        "global_step": 100,
        "max_steps": 846,
        "log_history": history,
        "stateful_callbacks": {"TrainerControl": {"args": {"should_training_stop": False}}},
    }
    path = tmp_path / "trainer_state.json"
    path.write_text(json.dumps(state))
    run = read_run(path)
    _, live = replay(run)
    assert finding_dicts(live) == finding_dicts(judge_run(run))
    assert [f.severity.value for f in live.findings if f.code == "TL080"] == ["NOTE"]
