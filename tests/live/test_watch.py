"""`trainlint watch` on logs that grow while it runs."""

from __future__ import annotations

import json
import math
import threading
import time

from _consolekit import crashed_log

from trainlint.live.watch import watch


def _writer(path, n_good, then_nan, delay):
    def run():
        for i in range(n_good + then_nan):
            loss = 1.0 / (i + 1) + 0.5 if i < n_good else math.nan
            with open(path, "a") as fh:
                fh.write(json.dumps({"step": i, "loss": loss, "lr": 1e-3}).replace("NaN", '"NaN"') + "\n")
            time.sleep(delay)

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t


def test_watch_until_fail_exits_1_soon_after_nan(cli, tmp_path):
    p = tmp_path / "live.jsonl"
    p.write_text(json.dumps({"step": -1, "loss": 2.0, "lr": 1e-3}) + "\n")
    _writer(p, 20, 30, 0.05)
    t0 = time.time()
    r = cli("watch", p, "--until", "FAIL", "--interval", "0.1", "--max-time", "60")
    assert r.code == 1, r.out + r.err
    assert "FAIL TL001 non-finite-loss" in r.out
    assert time.time() - t0 < 30


def test_watch_reports_a_stall(tmp_path):
    p = tmp_path / "live.jsonl"
    p.write_text("")
    clock = {"t": 0.0}
    emitted = []

    def sleep(dt):
        clock["t"] += dt
        k = int(clock["t"])
        if clock["t"] <= 10:  # one record a second for ten seconds, then silence
            with open(p, "a") as fh:
                fh.write(json.dumps({"step": k, "loss": 1.0 / (k + 1)}) + "\n")

    res = watch(
        p,
        interval=1.0,
        max_time=200,
        clock=lambda: clock["t"],
        sleep=sleep,
        emit=lambda path, f: emitted.append((clock["t"], f.code)),
    )
    stall = [t for t, code in emitted if code == "TL450"]
    assert stall and 60 <= stall[0] - 10 <= 75  # min_seconds=60 dominates a 1 s cadence
    assert res.verdict.value == "WARN"


def test_watch_json_envelope(cli, tmp_path):
    p = tmp_path / "m.jsonl"
    p.write_text("".join(json.dumps({"step": i, "loss": 1.0 / (i + 1)}) + "\n" for i in range(30)))
    r = cli("watch", p, "--interval", "0.05", "--idle-exit", "0.2", "--format", "json")
    assert r.code == 0 and r.json()["command"] == "watch"
    assert r.json()["reports"][0]["source"] == str(p)


def test_watch_a_run_folder_follows_each_growing_log(cli, tmp_path):
    import shutil
    from pathlib import Path

    run = tmp_path / "out"
    shutil.copytree(Path(__file__).resolve().parents[2] / "evidence" / "hf-healthy-s0", run)
    (run / "checkpoint-40").mkdir()
    shutil.copy(run / "trainer_state.json", run / "checkpoint-40" / "trainer_state.json")  # a snapshot
    r = cli("watch", run, "--interval", "0.05", "--idle-exit", "0.3", "--format", "json")
    reps = r.json()["reports"]
    # one run, as doctor groups it: the trainer state and the event files of the output folder
    assert [x["source"] for x in reps] == [str(run)], reps
    assert reps[0]["format"] == "hf-trainer-state+tfevents"
    assert reps[0]["verdict"] == "PASS" and r.code == 0


def _fake_loop(paths, **kw):
    """watch() on a fake clock: returns (result, seconds the loop ran)."""
    clock = {"t": 0.0}

    def sleep(dt):
        clock["t"] += dt

    res = watch(paths, interval=1.0, clock=lambda: clock["t"], sleep=sleep, **kw)
    return res, clock["t"]


def test_poll_times_are_not_a_clock_for_timing_rules(tmp_path):
    # 200 records arriving in bursts of 50: poll-derived stamps would look like periodic stalls
    p = tmp_path / "m.jsonl"
    p.write_text("")
    lines = [json.dumps({"step": i, "loss": 2.0 / (i + 1) + 0.5}) + "\n" for i in range(200)]
    clock = {"t": 0.0}

    def sleep(dt):
        clock["t"] += dt
        k = int(clock["t"])
        if k % 20 == 0 and k // 20 < 4:
            with open(p, "a") as fh:
                fh.writelines(lines[50 * (k // 20) : 50 * (k // 20 + 1)])

    with open(p, "a") as fh:
        fh.writelines(lines[:50])
    res = watch(p, interval=1.0, idle_exit=30, clock=lambda: clock["t"], sleep=sleep)
    rep = res.reports[0]
    assert not {f.code for f in rep.findings} & {"TL085", "TL086", "TL087", "TL090"}
    from trainlint.api import doctor

    reasons, by_doctor = dict(rep.checks.not_checked), dict(doctor([p]).reports[0].checks.not_checked)
    for code in ("TL085", "TL086", "TL087", "TL090"):
        assert reasons[code] == by_doctor[code] and "no wall-clock" in reasons[code], (code, reasons.get(code))


def test_watch_uses_an_event_files_own_clock(tmp_path):
    import shutil
    from pathlib import Path

    src = next((Path(__file__).resolve().parents[2] / "evidence" / "hf-slowdown-s0" / "runs").glob("events.*"))
    p = tmp_path / src.name
    shutil.copy(src, p)
    res, _ = _fake_loop(p, idle_exit=5)
    assert "TL085" in {f.code for f in res.reports[0].findings}  # as doctor finds on the same bytes


def test_trainer_state_metadata_reaches_the_rules(tmp_path):
    t = tmp_path / "trainer_state.json"
    hist = [{"step": s, "loss": 2.0 / s + 0.3, "learning_rate": 1e-4} for s in range(10, 410, 10)]
    t.write_text(json.dumps({"max_steps": 1200, "global_step": 400, "log_history": hist}))
    res, _ = _fake_loop(t, idle_exit=5)
    assert "TL080" in {f.code for f in res.reports[0].findings}  # stopped at 400 of 1200 planned
    hist.append({"step": 400, "train_runtime": 12.0, "total_flos": 1.0})
    t.write_text(json.dumps({"max_steps": 1200, "global_step": 400, "log_history": hist}))
    res, _ = _fake_loop(t, idle_exit=5)
    assert "TL080" not in {f.code for f in res.reports[0].findings}  # completed (early stopping)


def _doctor_fail_inputs():
    from pathlib import Path

    from trainlint.api import doctor

    root = Path(__file__).resolve().parents[2]
    result = doctor([root / "examples", root / "evidence"])
    return [
        (Path(r.source), sorted({f.code for f in r.findings if f.severity.value == "FAIL"}))
        for r in result.reports
        if r.verdict.value == "FAIL"
    ]


def test_until_fail_stops_on_every_fail_doctor_gives(tmp_path):
    import shutil

    cases = _doctor_fail_inputs()
    assert len(cases) >= 10
    for i, (src, codes) in enumerate(cases):
        dst = tmp_path / str(i) / src.name
        dst.parent.mkdir()
        (shutil.copytree if src.is_dir() else shutil.copy)(src, dst)
        res, ran = _fake_loop(dst, until="FAIL", idle_exit=100)
        assert ran <= 100, src
        got = sorted({f.code for r in res.reports for f in r.findings if f.severity.value == "FAIL"})
        assert res.exit_code == 1 and got == codes, (src, got, codes)


def test_a_log_growing_one_record_per_poll_is_not_rejudged_every_poll(tmp_path, monkeypatch):
    # constant cost per record: the guard's schedule decides, not the poll loop (which once
    # judged the whole history after every poll that brought a record)
    from trainlint.live import guard as guard_mod

    calls = []
    real = guard_mod.judge_run
    monkeypatch.setattr(guard_mod, "judge_run", lambda *a, **k: calls.append(1) or real(*a, **k))
    p = tmp_path / "m.jsonl"
    p.write_text("")
    n = 1200
    clock = {"t": 0.0}

    def sleep(dt):
        clock["t"] += dt
        i = int(clock["t"])
        if i <= n:
            with open(p, "a") as fh:
                fh.write(json.dumps({"step": i, "loss": 2.0 / i + 0.5 + 0.01 * math.sin(i)}) + "\n")

    res = watch(p, interval=1.0, idle_exit=3, clock=lambda: clock["t"], sleep=sleep)
    assert res.reports[0].summary["loss_points"] == n
    scheduled = len(calls)  # the end judges the finished file as doctor does, not through the guard
    assert scheduled < n / 4, scheduled
    assert scheduled >= 1  # it still judged as the log grew (the guard's schedule decides how often)


def test_a_fail_in_the_last_records_is_reported_at_the_end_not_by_a_quiet_poll(tmp_path):
    # the guard's schedule alone decides when to judge (data, not poll timing); what it has
    # not judged when the log goes quiet is judged at the end, as doctor judges the file
    p = tmp_path / "m.jsonl"
    lines = [{"step": i, "loss": 2.0 / (i + 1) + 0.5} for i in range(300)]
    lines += [{"step": 300 + i, "loss": 0.6 * 1.08**i} for i in range(40)]  # diverges at the end, all finite
    p.write_text("".join(json.dumps(r) + "\n" for r in lines))
    res, ran = _fake_loop(p, until="FAIL", idle_exit=5)
    assert res.exit_code == 1
    assert "FAIL" in {f.severity.value for f in res.reports[0].findings}


def test_watch_leaves_alone_what_a_folder_scan_leaves_alone(tmp_path):
    """The folders doctor's scan skips (a virtual environment, installed-package metadata, a
    cache) are not followed by watch either; the run beside them is."""
    from trainlint.live.targets import Scanner
    from trainlint.options import Options

    line = json.dumps({"step": 1, "loss": 1.0}) + "\n"
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "metrics.jsonl").write_text(line * 30)
    for junk in ("env", "pkg-1.0.dist-info", "wandb_cache"):
        (tmp_path / junk).mkdir()
        (tmp_path / junk / "metrics.jsonl").write_text(line * 30)
    (tmp_path / "env" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    new, _ = Scanner([tmp_path], Options()).scan()
    assert [t.path.relative_to(tmp_path).as_posix() for t in new] == ["run/metrics.jsonl"]


def test_watch_honours_the_live_modes(tmp_path):
    # an eval loss below the train loss by a growing gap (TL066, judged from half the planned
    # steps): a log without a plan shows it only in the final report, never in a poll's findings
    p = tmp_path / "m.jsonl"
    p.write_text("")
    n, per_poll = 1000, 20
    clock = {"t": 0.0}
    emitted = []

    def sleep(dt):
        clock["t"] += dt
        k = int(clock["t"]) - 1  # the first sleep writes the first records
        with open(p, "a") as fh:
            for i in range(k * per_poll, min(n, (k + 1) * per_poll)):
                rec = {"step": i, "loss": 2.0 - 0.2 * i / n, "learning_rate": 1e-3 * (1 - i / n)}
                if i % 20 == 19:
                    rec["eval_loss"] = rec["loss"] * (0.95 - 0.4 * min(1.0, i / 300))
                fh.write(json.dumps(rec) + "\n")

    res = watch(
        p,
        interval=1.0,
        idle_exit=3,
        clock=lambda: clock["t"],
        sleep=sleep,
        emit=lambda path, f: emitted.append(f.code),
    )
    assert res.reports[0].summary["loss_points"] == n
    assert "TL066" not in emitted and "TL066" in {f.code for f in res.reports[0].findings}


def test_a_traceback_in_the_log_stops_watch_until_fail_at_once(tmp_path):
    """The reader's events reach the guard: a log that ends in a traceback is TL081 live, so
    ``--until FAIL`` stops at the first poll. It had waited for the idle exit (100 s here) and
    found the crash only in the final report."""
    p = crashed_log(tmp_path, steps=59)
    res, ran = _fake_loop(p, until="FAIL", idle_exit=100)
    assert ran < 5 and res.exit_code == 1
    assert [f.code for r in res.reports for f in r.findings] == ["TL081"]
