"""gzip-compressed logs (``train.log.gz``, ``metrics.jsonl.gz``): read through a bounded inflate."""

from __future__ import annotations

import gzip
import json

import pytest

from trainlint import safeio
from trainlint.api import doctor
from trainlint.readers import read_run, sniff


def _jsonl(n: int, nan_from: int | None = None) -> bytes:
    rows = [
        {"step": i, "loss": "NaN" if nan_from is not None and i >= nan_from else 2.0 / (i + 1) + 0.5} for i in range(n)
    ]
    return "".join(json.dumps(r) + "\n" for r in rows).encode()


def test_a_gzipped_jsonl_log_is_read_and_judged_under_its_own_name(tmp_path):
    p = tmp_path / "metrics.jsonl.gz"
    p.write_bytes(gzip.compress(_jsonl(100, nan_from=80)))
    assert sniff(p).name == "jsonl"
    run = read_run(p)
    assert run.source == str(p) and len(run.series["loss"]) == 100
    assert run.notes[0].startswith("read from gzip")
    rep = doctor(tmp_path).reports[0]
    assert rep.source == str(p) and rep.verdict.value == "FAIL"
    assert "TL001" in {f.code for f in rep.findings}


def test_a_gzipped_console_log_and_several_members(tmp_path):
    lines = [f"{{'loss': {2.5 - i / 50:.4f}, 'learning_rate': 5e-05, 'epoch': {i / 60:.2f}}}\n" for i in range(60)]
    text = ("***** Running training *****\n" + "".join(lines)).encode()
    p = tmp_path / "train.log.gz"
    p.write_bytes(gzip.compress(text[:500]) + gzip.compress(text[500:]))  # two members, as `cat a.gz b.gz`
    assert sniff(p).name == "console"
    assert len(read_run(p).series["loss"]) == 60


def test_a_gzip_bomb_is_not_checked_within_the_bound(tmp_path, monkeypatch):
    p = tmp_path / "metrics.jsonl.gz"
    p.write_bytes(gzip.compress(_jsonl(20) + b" " * (8 << 20)))  # 8 MiB of padding inflates from a few KB
    monkeypatch.setattr(safeio, "MAX_GUNZIP", 1 << 20)
    monkeypatch.setattr(safeio.gunzip, "__kwdefaults__", {"limit": 1 << 20, "head": None})
    rep = doctor(p).reports[0]
    assert rep.verdict.value == "NOT-CHECKED" and "inflates past 1 MiB" in rep.unjudged


def test_a_damaged_gzip_stream_is_read_up_to_the_damage_and_reported(tmp_path):
    whole = gzip.compress(_jsonl(3000))
    p = tmp_path / "metrics.jsonl.gz"
    p.write_bytes(whole[: len(whole) * 2 // 3])  # cut short, as a killed writer leaves it
    run = read_run(p)
    assert 0 < len(run.series["loss"]) < 3000
    assert run.damage and "ends early" in run.damage[0].message
    data = bytearray(whole)
    data[len(data) // 2 : len(data) // 2 + 16] = b"\x00" * 16
    p.write_bytes(bytes(data))
    run = read_run(p)
    assert 0 < len(run.series["loss"]) < 3000 and "damaged" in run.damage[0].message


def test_a_gzipped_file_that_is_no_log_is_left_alone(tmp_path):
    p = tmp_path / "notes.txt.gz"
    p.write_bytes(gzip.compress(b"just some notes\n" * 10))
    assert sniff(p) is None


@pytest.mark.parametrize("n", [0, 1])
def test_gunzip_head_stops_early(tmp_path, n):
    p = tmp_path / "x.gz"
    p.write_bytes(gzip.compress(b"a" * (3 << 20)))
    assert safeio.gunzip(p, head=100 + n) == (b"a" * (100 + n), "")


def test_a_gzipped_console_txt_with_a_long_banner_is_sniffed_past_its_head(tmp_path):
    # the console sniffer reads past the head of a long .txt banner: inflated, for a .gz
    banner = [f"2024-05-01 12:00:00,000 - INFO - loading shard {i:05d} of the training set" for i in range(1200)]
    steps = [f"epoch=1 step={s} train_loss={2.0 - 0.01 * s:.4f}" for s in range(1, 31)]
    text = ("\n".join(banner + steps) + "\n").encode()
    assert len(text) > 65536
    (tmp_path / "train_log.txt").write_bytes(text)
    (tmp_path / "gz").mkdir()
    gz = tmp_path / "gz" / "train_log.txt.gz"
    gz.write_bytes(gzip.compress(text))
    for path in (tmp_path / "train_log.txt", gz):
        run = read_run(path)
        s = run.series["train_loss"]
        assert (len(s), s.values[0], s.values[-1]) == (30, 1.99, 1.7)
