"""The event-file reader on hand-built files: framing, damage, resync, sniffing, folders.

Files are built here byte by byte (no writer library needed), so these tests run
with the core dependencies only.
"""

from __future__ import annotations

import struct

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trainlint.model import Run
from trainlint.options import ReadOptions
from trainlint.readers import ReadError, read_run, sniff
from trainlint.readers.tensorboard import records as _tfrecord
from trainlint.readers.tensorboard.events import decode_bytes, points_to_series
from trainlint.readers.tensorboard.records import masked_crc


# ---- a tiny protobuf writer -------------------------------------------------------------
def varint(v: int) -> bytes:
    v &= (1 << 64) - 1
    out = bytearray()
    while True:
        b, v = v & 0x7F, v >> 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def ld(field: int, payload: bytes) -> bytes:
    return varint(field << 3 | 2) + varint(len(payload)) + payload


def event(step: int, wall: float = 100.0, values: bytes = b"", extra: bytes = b"") -> bytes:
    out = b"\x09" + struct.pack("<d", wall) + (b"\x10" + varint(step) if step else b"")
    return out + extra + (ld(5, values) if values else b"")


def simple(tag: str, v: float) -> bytes:
    return ld(1, ld(1, tag.encode()) + b"\x15" + struct.pack("<f", v))


def tensor_scalar(tag: str, v: float) -> bytes:
    tensor = b"\x08\x01\x12\x00" + ld(5, struct.pack("<f", v))
    meta = ld(1, ld(1, b"scalars"))
    return ld(1, ld(1, tag.encode()) + ld(8, tensor) + ld(9, meta))


def histogram(tag: str) -> bytes:
    return ld(1, ld(1, tag.encode()) + ld(5, b"\x09" + struct.pack("<d", 1.0)))


def record(data: bytes) -> bytes:
    head = struct.pack("<Q", len(data))
    return head + struct.pack("<I", masked_crc(head)) + data + struct.pack("<I", masked_crc(data))


def small_file() -> tuple[bytes, list[int]]:
    """A file of 9 records and the offsets where each record starts (plus the end)."""
    datas = [event(0, 99.0, extra=ld(3, b"brain.Event:2"))]
    for i in range(8):
        vals = simple("train/loss", 1.0 / (i + 1)) if i % 3 else tensor_scalar("val/loss", 2.0 + i)
        if i == 4:
            vals += histogram("h")
        datas.append(event(i * 10, 100.0 + i, vals))
    recs = [record(d) for d in datas]
    bounds = list(np.cumsum([0] + [len(r) for r in recs]))
    return b"".join(recs), bounds


def points(buf: bytes, verify_data: bool = True) -> tuple[dict, list]:
    pts, damage = decode_bytes(buf, verify_data)
    run = Run(source="x", format="tfevents")
    points_to_series(pts, run)
    return {k: (list(s.steps), list(s.values), list(s.wall)) for k, s in run.series.items()}, damage


# ---- reading ----------------------------------------------------------------------------
def test_reads_hand_built_file():
    buf, _ = small_file()
    got, damage = points(buf)
    assert not damage
    assert got["train/loss"][0] == [10, 20, 40, 50, 70]
    assert got["val/loss"][1] == [2.0, 5.0, 8.0]
    assert got["val/loss"][2] == [100.0, 103.0, 106.0]
    assert "h" not in got


def test_read_run_and_sniff(tmp_path):
    buf, _ = small_file()
    p = tmp_path / "anything.bin"
    p.write_bytes(buf)
    assert sniff(p).name == "tfevents"
    run = read_run(p)
    assert run.format == "tfevents" and run.meta["file_version"] == "brain.Event:2"
    other = tmp_path / "data.tfrecord"  # a TFRecord of something else: not an event file
    other.write_bytes(record(b"\x0a\x03abc"))
    assert sniff(other) is None or sniff(other).name != "tfevents"


@pytest.mark.parametrize("content", [b"", b"hello world, not an event file\n" * 3, bytes(range(256)) * 4])
def test_garbage_is_a_one_line_read_error(tmp_path, content):
    p = tmp_path / "events.out.tfevents.123.host"
    p.write_bytes(content)
    with pytest.raises(ReadError) as err:
        read_run(p)
    assert "\n" not in str(err.value) and str(err.value)


# ---- damage -----------------------------------------------------------------------------
def test_cut_at_every_offset():
    buf, bounds = small_file()
    expected = {b: points(buf[:b])[0] for b in bounds[1:]}
    for k in range(len(buf) + 1):
        whole = max(b for b in bounds if b <= k)
        if whole == 0:
            with pytest.raises(ReadError):
                decode_bytes(buf[:k])
            continue
        got, damage = points(buf[:k])
        assert got == expected[whole], k
        if k == whole:
            assert not damage, k
        else:
            assert [d.kind for d in damage] == ["truncated"], k
            assert damage[0].evidence["bytes_lost"] == k - whole
            assert f"lost {k - whole} bytes" in damage[0].message


def test_flip_every_byte():
    buf, bounds = small_file()
    expected = [points(buf[: bounds[i]] + buf[bounds[i + 1] :])[0] for i in range(len(bounds) - 1)]
    for k in range(len(buf)):
        i = max(j for j, b in enumerate(bounds) if b <= k)
        flipped = bytearray(buf)
        flipped[k] ^= 0xFF
        got, damage = points(bytes(flipped))
        assert got == expected[i], k
        assert damage and {d.kind for d in damage} == {"corrupt"}, k
        assert sum(d.evidence["records_skipped"] for d in damage) == 1


def test_flip_every_byte_without_data_crc_never_raises():
    buf, _ = small_file()
    for k in range(len(buf)):
        for mask in (0x01, 0xFF):
            flipped = bytearray(buf)
            flipped[k] ^= mask
            try:
                points(bytes(flipped), verify_data=False)
            except ReadError:
                pass


def test_resync_skips_garbage_and_counts_bytes():
    buf, bounds = small_file()
    junk = b"\x07" * 37
    damaged = buf[: bounds[3]] + junk + buf[bounds[3] :]
    got, damage = points(damaged)
    assert got == points(buf)[0]
    assert len(damage) == 1 and damage[0].kind == "corrupt"
    assert damage[0].evidence["offset"] == bounds[3] and damage[0].evidence["bytes_skipped"] == 37


def test_huge_length_is_never_trusted():
    buf, bounds = small_file()
    head = struct.pack("<Q", 1 << 60)
    liar = head + struct.pack("<I", masked_crc(head)) + b"\x09" * 20
    got, damage = points(buf + liar)
    assert got == points(buf)[0]
    assert damage[0].kind == "truncated" and damage[0].evidence["bytes_lost"] == len(liar)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_random_damage_never_raises(data):
    buf, _ = small_file()
    b = bytearray(buf)
    for _ in range(data.draw(st.integers(1, 6))):
        pos = data.draw(st.integers(0, len(b) - 1))
        op = data.draw(st.sampled_from(["flip", "cut", "insert"]))
        if op == "flip":
            b[pos] ^= data.draw(st.integers(1, 255))
        elif op == "cut":
            del b[pos : pos + data.draw(st.integers(1, 40))]
        else:
            b[pos:pos] = data.draw(st.binary(min_size=1, max_size=40))
        if not b:
            break
    for verify in (True, False):
        try:
            points(bytes(b), verify_data=verify)
        except ReadError:
            pass


# ---- bulk paths agree with the one-at-a-time path -----------------------------------------
def test_chunking_pattern_walk_and_bulk_crcs_agree(monkeypatch):
    recs = [record(event(0, 1.0, extra=ld(3, b"brain.Event:2")))]
    for i in range(3000):  # sizes repeat (period 3) until the step varint grows
        recs.append(record(event(i, 10.0 + i, simple("a", i * 0.5))))
        recs.append(record(event(i, 10.0 + i, simple("bb", -i))))
        if i % 500 == 0:
            recs.append(record(event(i, 10.0 + i, tensor_scalar("ccc" * (i % 7), 1.5))))
    buf = b"".join(recs)
    ref = points(buf)[0]
    assert len(ref["a"][0]) == 3000 and ref["bb"][1][-1] == -2999
    monkeypatch.setattr(_tfrecord, "CHUNK", 7)
    assert points(buf)[0] == ref
    monkeypatch.setattr(_tfrecord, "BULK_MIN", 10**9)  # data CRCs by the library only
    assert points(buf)[0] == ref
    flipped = bytearray(buf)
    flipped[len(buf) // 2] ^= 0x10  # inside some record: its data or its header
    got, damage = points(bytes(flipped))
    assert [d.kind for d in damage] == ["corrupt"]
    assert sum(len(v[0]) for v in got.values()) == sum(len(v[0]) for v in ref.values()) - 1
    offs, end = _tfrecord._offsets(buf, _tfrecord.Mem(buf), 0, 10**6)
    assert end == len(buf) and list(offs) == list(np.cumsum([0] + [len(r) for r in recs])[:-1])


def test_multi_value_and_long_tag_events():
    long_tag = "x" * 300
    vals = simple("a", 1.0) + simple(long_tag, 2.0) + tensor_scalar("b", 3.0)
    buf = record(event(5, 1.0, vals)) + record(event(6, 2.0, simple("a", 4.0)))
    got, _ = points(buf)
    assert got["a"][:2] == ([5, 6], [1.0, 4.0])
    assert got[long_tag][1] == [2.0] and got["b"][1] == [3.0]


def test_session_restart_supersedes_earlier_points():
    session_start = ld(7, b"\x08\x01")
    recs = [record(event(s, 1.0 + s, simple("loss", float(s)))) for s in range(10)]
    recs.append(record(event(6, 50.0, extra=session_start)))
    recs += [record(event(s, 60.0 + s, simple("loss", 100.0 + s))) for s in range(6, 9)]
    pts, _ = decode_bytes(b"".join(recs))
    run = Run(source="x", format="tfevents")
    points_to_series(pts, run)
    assert list(run.series["loss"].steps) == [0, 1, 2, 3, 4, 5, 6, 7, 8]
    assert run.series["loss"].values[-1] == 108.0
    assert run.meta["resumes"][0]["at_step"] == 6 and run.meta["resumes"][0]["points_superseded"] == 4


# ---- folders ----------------------------------------------------------------------------
def _write_run(path, steps, wall0, offset=0.0):
    recs = [record(event(0, wall0, extra=ld(3, b"brain.Event:2")))]
    recs += [record(event(s, wall0 + s, simple("train/loss", s + offset) + simple("lr", 0.1))) for s in steps]
    path.write_bytes(b"".join(recs))


def test_folder_merges_resumed_files(tmp_path, cli):
    _write_run(tmp_path / "events.out.tfevents.200.host.2.0", range(5, 15), 2000.0, offset=0.5)
    _write_run(tmp_path / "events.out.tfevents.100.host.1.0", range(0, 10), 1000.0)
    run = read_run(tmp_path)
    loss = run.series["train/loss"]
    assert list(loss.steps) == list(range(15))
    assert list(loss.values[:5]) == [0, 1, 2, 3, 4] and loss.values[5] == 5.5
    assert run.meta["resumes"] == [
        {"file": "events.out.tfevents.200.host.2.0", "at_step": 5.0, "points_superseded": 10}
    ]
    assert any("resume" in n for n in run.notes)
    res = cli("doctor", tmp_path, "--format", "json")
    reports = res.json()["reports"]
    assert len(reports) == 1 and reports[0]["source"] == str(tmp_path)
    assert reports[0]["summary"]["roles"]["loss"] == "train/loss"


def test_folder_keeps_damage_per_file(tmp_path):
    _write_run(tmp_path / "events.out.tfevents.100.host.1.0", range(0, 10), 1000.0)
    _write_run(tmp_path / "events.out.tfevents.200.host.2.0", range(10, 20), 2000.0)
    cut = tmp_path / "events.out.tfevents.200.host.2.0"
    cut.write_bytes(cut.read_bytes()[:-9])
    run = read_run(tmp_path)
    assert len(run.series["train/loss"]) == 19
    assert [d.kind for d in run.damage] == ["truncated"]
    assert run.damage[0].evidence["file"] == cut.name and "resumes" not in run.meta


def _tensor_run(path, tag, steps, wall0, base):
    recs = [record(event(0, wall0, extra=ld(3, b"brain.Event:2")))]
    recs += [record(event(s, wall0 + s, tensor_scalar(tag, base + s))) for s in steps]
    path.write_bytes(b"".join(recs))


def test_keras_train_and_validation_subfolders(tmp_path, cli):
    (tmp_path / "train").mkdir()
    (tmp_path / "validation").mkdir()
    _tensor_run(tmp_path / "train" / "events.out.tfevents.1.h.1.0.v2", "epoch_loss", range(5), 10.0, 1.0)
    _tensor_run(tmp_path / "validation" / "events.out.tfevents.1.h.1.1.v2", "epoch_loss", range(5), 10.5, 2.0)
    run = read_run(tmp_path)
    assert sorted(run.series) == ["train/epoch_loss", "validation/epoch_loss"]
    assert run.meta["layout"] == "keras" and len(run.files) == 2
    assert list(run.series["validation/epoch_loss"].values) == [2.0, 3.0, 4.0, 5.0, 6.0]
    res = cli("doctor", tmp_path, "--format", "json")
    reports = res.json()["reports"]
    assert [r["source"] for r in reports] == [str(tmp_path)]
    roles = reports[0]["summary"]["roles"]
    assert roles["loss"] == "train/epoch_loss" and roles["eval_loss"] == "validation/epoch_loss"


def test_hf_runs_folder_is_one_run_with_resume(tmp_path, cli):
    runs = tmp_path / "runs"
    (runs / "Jan01_10-00-00_host").mkdir(parents=True)
    (runs / "Jan01_12-00-00_host").mkdir()
    _write_run(runs / "Jan01_10-00-00_host" / "events.out.tfevents.100.host.1.0", range(0, 20), 1000.0)
    _write_run(runs / "Jan01_12-00-00_host" / "events.out.tfevents.200.host.2.0", range(15, 30), 5000.0, 0.25)
    run = read_run(runs)
    assert run.meta["layout"] == "hf-runs"
    assert list(run.series["train/loss"].steps) == list(range(30))
    resume = run.meta["resumes"][0]
    assert resume["at_step"] == 15 and resume["points_superseded"] == 10  # 5 steps x 2 tags
    reports = cli("doctor", tmp_path, "--format", "json").json()["reports"]
    assert [r["source"] for r in reports] == [str(runs)]


def test_bulk_crcs_match_the_library():
    google_crc32c = pytest.importorskip("google_crc32c")
    rng = np.random.default_rng(0)
    buf = rng.integers(0, 256, 50_000, dtype=np.uint8).tobytes()
    starts = np.sort(rng.integers(0, 49_000, 3000))
    ends = starts + rng.integers(0, 200, 3000)  # short (bulk) and long (one call each)
    mem = _tfrecord.Mem(buf)
    ref = np.array([google_crc32c.value(buf[a:b]) for a, b in zip(starts, ends)], dtype=np.uint32)
    short = (ends - starts) <= _tfrecord.SHORT
    assert np.array_equal(_tfrecord._bulk_crcs(mem, starts[short], ends[short]), ref[short])
    head = np.array([0, 1, 0, 1, 2, 0]), np.array([2, 3, 5, 8, 6, 1])  # records at the file's start
    want = np.array([google_crc32c.value(buf[a:b]) for a, b in zip(*head)], dtype=np.uint32)
    assert np.array_equal(_tfrecord._bulk_crcs(mem, *head), want)
    pos = rng.integers(0, 49_000, 5000)
    assert np.array_equal(
        _tfrecord.length_crc_ok_mem(mem, pos)[0], _tfrecord.length_crc_ok(np.frombuffer(buf, np.uint8), pos)
    )


def test_data_crc_can_be_skipped(tmp_path):
    buf, bounds = small_file()
    b = bytearray(buf)
    b[bounds[3] - 5] ^= 0x01  # a byte of the float in record 2 (its data ends 4 bytes before the next)
    p = tmp_path / "events.out.tfevents.1.h"
    p.write_bytes(bytes(b))
    assert [d.kind for d in read_run(p).damage] == ["corrupt"]
    run = read_run(p, options=ReadOptions(tfevents_data_crc=False))
    assert not run.damage and len(run.series["train/loss"]) == 5


def test_lone_train_subfolder_is_not_a_keras_run(tmp_path):
    (tmp_path / "train").mkdir()
    _write_run(tmp_path / "train" / "events.out.tfevents.1.h.1.0", range(3), 10.0)
    assert sniff(tmp_path) is None
    assert sorted(read_run(tmp_path / "train").series) == ["lr", "train/loss"]


def test_folder_of_unreadable_event_files(tmp_path):
    (tmp_path / "events.out.tfevents.1.h.1.0").write_bytes(b"")
    (tmp_path / "events.out.tfevents.2.h.1.0").write_bytes(b"garbage" * 10)
    with pytest.raises(ReadError) as err:
        read_run(tmp_path)
    assert "no readable event file" in str(err.value)


# ---- complete records of a growing file (scan_records) -------------------------------------
def test_scan_records_reads_the_complete_records_at_the_start():
    buf, bounds = small_file()
    spans = [(b + 12, e - 4) for b, e in zip(bounds, bounds[1:])]
    framing = _tfrecord.scan(buf)
    assert spans == list(zip(framing.starts.tolist(), framing.ends.tolist()))  # what the reader frames
    for k in range(len(buf) + 1):  # a file cut anywhere: the whole records before the cut
        whole = max(i for i, b in enumerate(bounds) if b <= k)
        assert _tfrecord.scan_records(buf[:k]) == (spans[:whole], bounds[whole], False), k
    third = bounds[3]  # from a later offset: spans stay offsets in buf, bytes used count from there
    assert _tfrecord.scan_records(buf, third) == (spans[3:], len(buf) - third, False)


def test_scan_records_skips_a_bad_data_crc_and_sticks_at_a_bad_length_crc():
    buf, bounds = small_file()
    spans = [(b + 12, e - 4) for b, e in zip(bounds, bounds[1:])]
    data_hit = bytearray(buf)
    data_hit[bounds[2] + 14] ^= 0xFF  # inside record 2's data
    assert _tfrecord.scan_records(bytes(data_hit)) == (spans[:2] + spans[3:], len(buf), False)
    length_hit = bytearray(buf)
    length_hit[bounds[4] + 9] ^= 0xFF  # record 4's length CRC
    assert _tfrecord.scan_records(bytes(length_hit)) == (spans[:4], bounds[4], True)
    assert _tfrecord.scan_records(bytes(length_hit), bounds[4]) == ([], 0, True)


@settings(max_examples=150, deadline=None)
@given(
    words=st.lists(st.binary(max_size=70), min_size=1, max_size=8),
    picks=st.lists(st.integers(0, 7), min_size=1, max_size=60),
    slots=st.sampled_from([1, 2, 1 << 16]),
    rounds=st.integers(1, 8),
)
def test_group_spans_groups_exactly_equal_bytes(words, picks, slots, rounds):
    """Each span's representative is the first span holding the same bytes, or -1 (left to the
    caller: longer than 64 bytes, or not reached in ``rounds``), whatever the hash does: with
    1 or 2 slots every string collides and each round settles one string per slot."""
    from trainlint.readers.tensorboard import fast

    spans, buf = [], bytearray(b"\xff" * 3)
    for i in picks:
        w = words[i % len(words)]
        spans.append((len(buf), len(buf) + len(w)))
        buf += w + bytes([0xA5, i])  # different bytes after each span
    a, z = (np.array(c, dtype=np.int64) for c in zip(*spans))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(fast, "_SLOTS", slots)
        rep = fast.group_spans(fast.Mem(bytes(buf)), a, z, rounds=rounds)
    first: dict[bytes, int] = {}
    for i, (x, y) in enumerate(spans):
        first.setdefault(bytes(buf[x:y]), i)
        assert rep[i] in ((-1, first[bytes(buf[x:y])]) if y - x <= 64 else (-1,))
    short = {bytes(buf[x:y]) for x, y in spans if y - x <= 64}
    if len(short) <= rounds:  # every round settles at least one string
        assert all(rep[i] >= 0 for i, (x, y) in enumerate(spans) if y - x <= 64)
