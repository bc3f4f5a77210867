"""Each reader's stream: what ``watch`` follows is what ``doctor`` reads, taken as the file grows."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from trainlint.readers import read_run, reader_named, sniff
from trainlint.readers.stream import MAX_POLL, Reread, open_stream, records

ROOT = Path(__file__).resolve().parents[2]


def _follow(path: Path, data: bytes, cut: int, fmt: str | None = None) -> dict[str, tuple[list, list]]:
    """Write ``data`` to ``path`` ``cut`` bytes at a time (a writer flushing anywhere, even inside
    a line or a record), polling the stream after each write; returns every series seen."""
    path.write_bytes(b"")
    stream = None
    seen: dict[str, tuple[list, list]] = {}
    start = 0
    for end in [*range(cut, len(data), cut), len(data)]:
        with open(path, "ab") as fh:
            fh.write(data[start:end])
        start = end
        polls = 2 if end == len(data) else 1  # the last poll finds the file quiet
        if stream is None:
            reader = reader_named(fmt) if fmt else sniff(path)
            if reader is None:
                continue
            stream = open_stream(path, reader)
        for _ in range(polls):
            frag = stream.poll()
            for name, s in (frag.series if frag is not None else {}).items():
                steps, values = seen.setdefault(name, ([], []))
                steps += s.steps.tolist()
                values += s.values.tolist()
    return seen


def _same_as_doctor(path: Path, seen: dict[str, tuple[list, list]], fmt: str | None = None) -> None:
    whole = read_run(path, fmt)
    assert set(seen) == set(whole.series), (sorted(seen), sorted(whole.series))
    for name, s in whole.series.items():
        assert seen[name][0] == s.steps.tolist(), name
        np.testing.assert_array_equal(np.array(seen[name][1]), s.values, err_msg=name)


def test_jsonl_stream_reads_only_complete_new_lines(tmp_path):
    p = tmp_path / "m.jsonl"
    p.write_text('{"step": 1, "loss": 2.0}\n{"step": 2, "lo')
    stream = open_stream(p, reader_named("jsonl"))
    assert [(r[0], r[2]) for r in records(stream.poll())] == [(1.0, {"loss": 2.0})]
    assert stream.poll() is None  # the half-written line waits
    with open(p, "a") as fh:
        fh.write('ss": 1.5}\n')
    assert [(r[0], r[2]) for r in records(stream.poll())] == [(2.0, {"loss": 1.5})]


@pytest.mark.parametrize("cut", [7, 64, 1000])
def test_jsonl_stream_equals_the_reader_at_any_flush_boundary(tmp_path, cut):
    rows = [{"step": i, "loss": 2.0 / (i + 1), "lr": 1e-3} for i in range(60)]
    rows[30]["eval_loss"] = 1.2
    rows[40]["loss"] = "NaN"
    data = "".join(json.dumps(r) + "\n" for r in rows).encode()
    p = tmp_path / "m.jsonl"
    _same_as_doctor(p, _follow(p, data, cut, "jsonl"), "jsonl")


@pytest.mark.parametrize("cut", [9, 120, 100_000])
def test_jsonl_stream_splits_appended_runs_as_the_reader_does(tmp_path, cut):
    """Three runs appended to one file with no step field, the epoch going back to its start (the
    shape of Ardbiu/chip-ood's metrics.jsonl): followed a flush at a time, the steps restart where
    the whole-file read restarts them, so that the guard's segments are doctor's."""
    rows = [
        {"epoch": k, "train_loss": round(2.0 - 0.05 * k - 0.01 * r, 4)}
        for r, n in enumerate((9, 2, 20))
        for k in range(1, n + 1)
    ]
    rows.insert(5, {"epoch": 3, "train_loss": 1.9})  # a back that is no restart: not to the first epoch
    data = "".join(json.dumps(r) + "\n" for r in rows).encode()
    p = tmp_path / "m.jsonl"
    seen = _follow(p, data, cut, "jsonl")
    _same_as_doctor(p, seen, "jsonl")
    assert seen["train_loss"][0][:12] == [*range(10), 0, 1]


@pytest.mark.parametrize("cut", [7, 100, 100_000])
def test_csv_stream_starts_the_rows_again_at_a_repeated_header_as_the_reader_does(tmp_path, cut):
    """A CSV logger opened again in append mode writes its header again: the row numbers start
    again there, in a poll after the one that read the first run's rows too (they had gone on)."""
    rows = ["accuracy,loss,val_loss"]
    for r in range(2):
        rows += ["accuracy,loss,val_loss"] if r else []
        rows += [f"{0.6 + 0.01 * e:.4f},{2.0 - 0.05 * e - 0.01 * r:.4f},{2.1 - 0.05 * e:.4f}" for e in range(12)]
    p = tmp_path / "log.csv"
    seen = _follow(p, ("\n".join(rows) + "\n").encode(), cut, "csv")
    _same_as_doctor(p, seen, "csv")
    assert seen["loss"][0] == [*range(12), *range(12)]


@pytest.mark.parametrize("cut", [5, 50, 10_000])
def test_csv_stream_equals_the_reader_lightning_and_keras(tmp_path, cut):
    lightning = "epoch,step,train_loss_step,val_loss\n" + "".join(
        f"0,{i},{2.0 / (i + 1)},\n" if i % 10 else f"0,{i},,{1.0 / (i + 1)}\n" for i in range(50)
    )
    keras = "epoch,loss,val_loss\n" + "".join(f"{e},{1.5 - e / 10},{1.6 - e / 12}\n" for e in range(12))
    for name, text in (("metrics.csv", lightning), ("training.log", keras)):
        p = tmp_path / name
        _same_as_doctor(p, _follow(p, text.encode(), cut, "csv"), "csv")
    stream = open_stream(p, reader_named("csv"))
    assert stream.poll() is not None
    with open(p, "a") as fh:
        fh.write("12,0.2,0.3\n")
    assert [(r[0], r[2]) for r in records(stream.poll())] == [(12.0, {"epoch": 12.0, "loss": 0.2, "val_loss": 0.3})]


@pytest.mark.parametrize("cut", [97, 4096])
def test_event_stream_reads_records_as_they_are_flushed(tmp_path, cut):
    import tfevents_writers as writers

    src = tmp_path / "full"
    src.mkdir()
    data = writers.torch_new_style(src).read_bytes()  # tensor scalars: both layouts decoded
    live = tmp_path / "events.out.tfevents.live"
    _same_as_doctor(live, _follow(live, data, cut, "tfevents"))


def test_event_stream_stops_at_a_broken_length_and_doctor_reports_it(tmp_path):
    import tfevents_writers as writers

    src = tmp_path / "full"
    src.mkdir()
    data = bytearray(writers.torch_new_style(src).read_bytes())
    pos = 0
    for _ in range(10):  # the tenth record's length field is damaged: no record boundary after it
        pos += 12 + int.from_bytes(data[pos : pos + 8], "little") + 4
    data[pos : pos + 8] = b"\xff" * 8
    live = tmp_path / "events.out.tfevents.live"
    live.write_bytes(bytes(data))
    stream = open_stream(live, reader_named("tfevents"))
    first = stream.poll()
    assert first is not None and stream.stuck and stream.offset == pos
    assert stream.poll() is None  # stays where the framing broke, no guessing
    assert read_run(live).damage  # the reader reports the damage when the file is judged


def test_event_folder_stream_picks_up_a_new_file_in_the_same_folder(tmp_path):
    import tfevents_writers as writers

    src = tmp_path / "src"
    src.mkdir()
    data = writers.torch_new_style(src).read_bytes()
    run = tmp_path / "run"
    run.mkdir()
    (run / "events.out.tfevents.1.host.1.0").write_bytes(data)
    stream = open_stream(run, reader_named("tfevents-folder"))
    first = stream.poll()
    assert first is not None and stream.poll() is None
    (run / "events.out.tfevents.2.host.1.0").write_bytes(data)  # a restart writes a second file
    second = stream.poll()
    assert second is not None
    assert {n: len(s) for n, s in second.series.items()} == {n: len(s) for n, s in first.series.items()}


def test_trainer_state_rewritten_whole_gives_only_the_new_entries(tmp_path):
    t = tmp_path / "trainer_state.json"
    hist = [{"step": 1, "loss": 2.0}]
    t.write_text(json.dumps({"max_steps": 10, "log_history": hist}))
    stream = open_stream(t, reader_named("hf-trainer-state"))
    assert isinstance(stream, Reread)
    assert [(r[0], r[2]) for r in records(stream.poll())] == [(1.0, {"loss": 2.0})]
    assert stream.poll() is None  # unchanged
    hist.append({"step": 2, "loss": 1.0})
    t.write_text(json.dumps({"max_steps": 10, "log_history": hist}))
    os.utime(t, ns=(1, 10**18))
    frag = stream.poll()
    assert [(r[0], r[2]) for r in records(frag)] == [(2.0, {"loss": 1.0})]
    assert frag.meta["max_steps"] == 10


def test_console_log_followed_through_the_readers_whole_read(tmp_path):
    lines = ["Loading checkpoint shards: 100%", "***** Running training *****"]
    lines += [
        f"{{'loss': {2.5 - i / 50:.4f}, 'grad_norm': 1.0, 'learning_rate': 5e-05, 'epoch': {i / 60:.2f}}}"
        for i in range(60)
    ]
    p = tmp_path / "train.log"
    seen = _follow(p, ("\n".join(lines) + "\n").encode(), 512)
    assert sniff(p).name == "console"
    _same_as_doctor(p, seen)


def test_a_replaced_file_is_read_again_from_the_start(tmp_path):
    p = tmp_path / "m.jsonl"
    p.write_text("".join(json.dumps({"step": i, "loss": 1.0}) + "\n" for i in range(5)))
    stream = open_stream(p, reader_named("jsonl"))
    assert len(stream.poll().series["loss"]) == 5
    p.unlink()
    p.write_text(json.dumps({"step": 0, "loss": 3.0}) + "\n")
    frag = stream.poll()
    assert stream.restarted and frag.series["loss"].values.tolist() == [3.0]


def test_a_poll_reads_only_the_new_bytes(tmp_path, monkeypatch):
    """Cost per poll follows what arrived, not the file's size."""
    import trainlint.readers.stream as stream_mod

    p = tmp_path / "m.jsonl"
    p.write_text("".join(json.dumps({"step": i, "loss": 1.0 / (i + 1)}) + "\n" for i in range(20_000)))
    stream = open_stream(p, reader_named("jsonl"))
    stream.poll()
    read = []
    real = stream_mod.Tail.new_bytes
    monkeypatch.setattr(stream_mod.Tail, "new_bytes", lambda self: (b := real(self), read.append(len(b)))[0])
    line = json.dumps({"step": 20_000, "loss": 0.5}) + "\n"
    with open(p, "a") as fh:
        fh.write(line)
    assert len(stream.poll().series["loss"]) == 1
    assert read == [len(line)]
    assert MAX_POLL >= 1 << 20


def test_records_merge_series_by_step_and_keep_each_series_order(tmp_path):
    from trainlint.model import Run

    frag = Run("x", "jsonl")
    frag.add("loss", [0, 1, 2, 1, 2], [5, 4, 3, 9, 8])  # a resume: steps fall back
    frag.add("eval_loss", [2], [3.5])
    got = [(s, m) for s, _, m in records(frag)]
    assert [m.get("loss") for _, m in got if "loss" in m] == [5, 4, 3, 9, 8]
    assert any(s == 2.0 and m.get("eval_loss") == 3.5 and "loss" in m for s, m in got)  # one record at step 2


def test_every_reader_can_be_followed():
    from trainlint.readers import load_readers

    for r in load_readers():
        stream = open_stream(ROOT, r)
        assert hasattr(stream, "poll"), r.name


def test_evidence_runs_followed_equal_doctor(tmp_path):
    for name in ("hf-healthy-s0", "lightning-nan_filter_off-s0"):
        run = tmp_path / name
        shutil.copytree(ROOT / "evidence" / name, run)
        for f in sorted(run.rglob("*")):
            reader = sniff(f) if f.is_file() else None
            if reader is None:
                continue
            _same_as_doctor(f, _follow(f, f.read_bytes(), 4093, reader.name), reader.name)


def test_a_reread_fragment_carries_only_the_events_and_damage_not_yet_sent(tmp_path):
    """A whole-read input read again gives each crash event, damage and note once, as its points."""
    from trainlint.model import Damage, Run, Series

    p = tmp_path / "train.log"
    reads = []

    def read(path):
        n = path.stat().st_size
        run = Run(str(path), "console", events=[{"kind": "oom", "line": i} for i in range(n)])
        run.damage = [Damage("truncated", f"at byte {i}") for i in range(n // 2)]
        run.notes = [f"note {i}" for i in range(n)]
        run.series["loss"] = Series("loss", np.arange(n, dtype=float), np.ones(n))
        reads.append(n)
        return run

    stream = Reread(p, "console", read, every_change=True)
    p.write_bytes(b"xx")
    first = stream.poll()
    p.write_bytes(b"xxxxxx")
    second = stream.poll()
    assert [e["line"] for e in first.events] == [0, 1] and [e["line"] for e in second.events] == [2, 3, 4, 5]
    assert [d.message for d in second.damage] == ["at byte 1", "at byte 2"] and second.notes[0] == "note 2"
    assert len(second.series["loss"]) == 4


def _yolo_table() -> bytes:
    head = "epoch,train/box_loss,train/cls_loss,val/box_loss,val/cls_loss,x/lr0"
    rows = [
        f"{e},{1.0 - 0.02 * e:.3f},{0.5 - 0.01 * e:.3f},{1.1 - 0.02 * e:.3f},{0.6 - 0.01 * e:.3f},0.01"
        for e in range(30)
    ]
    return ("\n".join([head, *rows]) + "\n").encode()


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("results.csv", _yolo_table()),
        (
            "learn_error.tsv",
            ("iter\tMultiClass\n" + "".join(f"{i}\t{2.5 - 0.001 * i:.6f}\n" for i in range(400))).encode(),
        ),
    ],
)
def test_a_table_the_reader_shapes_is_followed_into_the_same_shape(tmp_path, name, data):
    """The shape the reader gives a tool's table (ultralytics: the summed ``train/loss`` and
    ``val/loss``, ``lr/pg0``; CatBoost's learn_error.tsv, whose header says no loss) is given to
    every fragment the stream reads, not only to the first (or to none)."""
    path = tmp_path / name
    seen = _follow(path, data, 97)
    _same_as_doctor(path, seen)
    assert "train/loss" in seen or "MultiClass" in seen


def test_calibration_logs_followed_equal_the_whole_read(tmp_path):
    """Every calibration log that `watch` follows by its own stream (JSON lines, CSV, event files;
    console logs are read again whole), written in seven flushes cut anywhere, gives the whole-file
    read's series: the stream had missed YOLO's summed loss and learning-rate names, CatBoost's
    table and a CSV header written again (each mended, each found by this test)."""
    from _calibration import calibration_logs

    from trainlint.readers.stream import Reread

    followed = 0
    for _, path in calibration_logs():
        reader = sniff(path)
        if reader is None or isinstance(open_stream(path, reader), Reread):
            continue
        try:
            read_run(path, reader.name)
        except Exception:  # what the reader refuses, doctor reports; nothing to follow
            continue
        data = path.read_bytes()
        copy = tmp_path / f"{followed}" / path.name
        copy.parent.mkdir()
        _same_as_doctor(path, _follow(copy, data, max(4096, len(data) // 7), reader.name), reader.name)
        followed += 1
    if followed < 20:
        pytest.skip(f"{followed} calibration logs with a stream here (the corpus cache is not fetched)")


@pytest.mark.parametrize("cut", [7, 64, 4096])
def test_csv_stream_follows_a_table_whose_lines_end_in_a_bare_cr(tmp_path, cut):
    rows = "".join(f"{i},{2.0 / i:.6f},{0.1 * i:.1f}\r" for i in range(1, 41))
    data = ("epoch,train_loss,val_acc\r" + rows).encode()
    p = tmp_path / "metrics.csv"
    seen = _follow(p, data, cut, "csv")
    assert seen["train_loss"][0][:2] == [1.0, 2.0] and len(seen["train_loss"][0]) == 40
    assert seen["train_loss"][1][-1] == pytest.approx(0.05)
    _same_as_doctor(p, seen, "csv")


def test_csv_stream_keeps_crlf_lines_whole(tmp_path):
    data = ("step,loss\r\n" + "".join(f"{i},{1.0 / i}\r\n" for i in range(1, 21))).encode()
    p = tmp_path / "metrics.csv"
    seen = _follow(p, data, 5, "csv")
    assert len(seen["loss"][0]) == 20
    _same_as_doctor(p, seen, "csv")
