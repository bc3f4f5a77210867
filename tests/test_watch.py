"""`trainlint watch` on logs that grow while it runs."""

from __future__ import annotations

import json
import math
import threading
import time

import numpy as np

from trainlint.live.follow import CsvFollower, JsonlFollower, TrainerStateFollower
from trainlint.live.watch import watch


def test_jsonl_follower_reads_only_complete_new_lines(tmp_path):
    p = tmp_path / "m.jsonl"
    p.write_text('{"step": 1, "loss": 2.0}\n{"step": 2, "lo')
    f = JsonlFollower(p)
    assert [r[0] for r in f.poll()] == [1.0]
    assert f.poll() == []
    with open(p, "a") as fh:
        fh.write('ss": 1.5}\n')
    assert [(r[0], r[2]) for r in f.poll()] == [(2.0, {"loss": 1.5})]


def test_csv_and_trainer_state_followers(tmp_path):
    c = tmp_path / "metrics.csv"
    c.write_text("step,loss\n1,2.0\n")
    cf = CsvFollower(c)
    assert [(r[0], r[2]) for r in cf.poll()] == [(1.0, {"loss": 2.0})]
    with open(c, "a") as fh:
        fh.write("2,1.0\n")
    assert [(r[0], r[2]) for r in cf.poll()] == [(2.0, {"loss": 1.0})]
    t = tmp_path / "trainer_state.json"
    t.write_text(json.dumps({"log_history": [{"step": 1, "loss": 2.0}]}))
    tf = TrainerStateFollower(t)
    assert len(tf.poll()) == 1 and tf.poll() == []
    time.sleep(0.01)
    t.write_text(json.dumps({"log_history": [{"step": 1, "loss": 2.0}, {"step": 2, "loss": 1.0}]}))
    assert [(r[0], r[2]) for r in tf.poll()] == [(2.0, {"loss": 1.0})]


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

    res = watch([(p, "jsonl")], interval=1.0, max_time=200, clock=lambda: clock["t"], sleep=sleep,
                emit=lambda path, f: emitted.append((clock["t"], f.code)))
    stall = [t for t, code in emitted if code == "TL450"]
    assert stall and 60 <= stall[0] - 10 <= 75  # min_seconds=60 dominates a 1 s cadence
    assert res.verdict.value == "WARN"


def test_watch_json_envelope(cli, tmp_path):
    p = tmp_path / "m.jsonl"
    p.write_text("".join(json.dumps({"step": i, "loss": 1.0 / (i + 1)}) + "\n" for i in range(30)))
    r = cli("watch", p, "--interval", "0.05", "--idle-exit", "0.2", "--format", "json")
    assert r.code == 0 and r.json()["command"] == "watch"
    assert r.json()["reports"][0]["source"] == str(p)


def test_event_file_follower_reads_records_as_they_are_flushed(tmp_path):
    import tfevents_writers as writers

    from trainlint.live.follow import EventFollower
    from trainlint.readers import read_run

    src = tmp_path / "full"
    src.mkdir()
    data = writers.torch_new_style(src).read_bytes()  # tensor scalars: the follower decodes both layouts
    live = tmp_path / "events.out.tfevents.live"
    f = EventFollower(live)
    seen = []
    for cut in range(0, len(data) + 1, 97):  # the writer flushes at arbitrary byte positions
        live.write_bytes(data[:cut])
        seen += f.poll()
    live.write_bytes(data)
    seen += f.poll()
    whole = read_run(writers.only_file(src))
    for tag, series in whole.series.items():
        got = [(s, m[tag]) for s, _, m in seen if tag in m]
        assert [s for s, _ in got] == series.steps.tolist(), tag
        np.testing.assert_array_equal(np.array([v for _, v in got]), series.values)
    assert not f.broken


def test_watch_a_run_folder_follows_each_growing_log(cli, tmp_path):
    import shutil
    from pathlib import Path

    run = tmp_path / "out"
    shutil.copytree(Path(__file__).resolve().parents[1] / "evidence" / "hf-healthy-s0", run)
    (run / "checkpoint-40").mkdir()
    shutil.copy(run / "trainer_state.json", run / "checkpoint-40" / "trainer_state.json")  # a snapshot
    r = cli("watch", run, "--interval", "0.05", "--idle-exit", "0.3", "--format", "json")
    reps = r.json()["reports"]
    names = sorted(Path(x["source"]).name for x in reps)
    assert len(names) == 2 and names[1] == "trainer_state.json" and names[0].startswith("events.out.tfevents")
    assert all(x["verdict"] == "PASS" for x in reps) and r.code == 0
