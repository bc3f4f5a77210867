"""bzip2- and xz-compressed logs (``train.log.bz2``, ``metrics.jsonl.xz``): read through the same
bounded inflate as gzip (``safeio.gunzip``)."""

from __future__ import annotations

import bz2
import json
import lzma
import random

from trainlint import safeio
from trainlint.api import doctor
from trainlint.readers import read_run, sniff


def _console(n: int) -> bytes:
    return "".join(f"epoch 1 step {10 * i} loss: {3.0 - i / 100:.4f}\n" for i in range(n)).encode()


def _jsonl(n: int) -> bytes:
    return "".join(json.dumps({"step": i, "loss": 2.0 / (i + 1) + 0.5}) + "\n" for i in range(n)).encode()


def test_a_bz2_console_log_is_read_under_its_own_name(tmp_path):
    p = tmp_path / "train.log.bz2"
    p.write_bytes(bz2.compress(_console(40)[:700]) + bz2.compress(_console(40)[700:]))  # two streams
    assert sniff(p).name == "console"
    run = read_run(p)
    s = run.series["loss"]
    assert (len(s), s.steps[0], s.steps[-1], s.values[0], s.values[-1]) == (40, 0, 390, 3.0, 2.61)
    assert run.source == str(p) and run.notes[0].startswith("read from bzip2")
    rep = doctor(tmp_path).reports[0]  # a folder scan finds it
    assert rep.source == str(p) and rep.verdict.value != "NOT-CHECKED"


def test_an_xz_jsonl_log_is_read(tmp_path):
    p = tmp_path / "metrics.jsonl.xz"
    p.write_bytes(lzma.compress(_jsonl(100)))
    assert sniff(p).name == "jsonl"
    run = read_run(p)
    s = run.series["loss"]
    assert (len(s), s.steps[0], s.steps[-1], s.values[0]) == (100, 0, 99, 2.5)
    assert run.notes[0].startswith("read from xz")


def test_a_bz2_bomb_is_not_checked_within_the_bound(tmp_path, monkeypatch):
    p = tmp_path / "train.log.bz2"
    p.write_bytes(bz2.compress(_console(30) + b" " * (16 << 20)))  # 16 MiB of padding from a few KB
    assert p.stat().st_size < 4096
    monkeypatch.setattr(safeio.gunzip, "__kwdefaults__", {"limit": 1 << 20, "head": None})
    rep = doctor(p).reports[0]
    assert rep.verdict.value == "NOT-CHECKED" and "inflates past 1 MiB" in rep.unjudged


def test_a_truncated_xz_is_read_as_far_as_intact_with_damage(tmp_path):
    whole = lzma.compress(_jsonl(5000))
    p = tmp_path / "metrics.jsonl.xz"
    p.write_bytes(whole[: len(whole) * 2 // 3])  # cut short, as a killed writer leaves it
    run = read_run(p)
    assert 0 < len(run.series["loss"]) < 5000
    assert run.damage and "the xz stream ends early" in run.damage[0].message
    rng = random.Random(1)
    text = "".join(f"step {i} loss: {3.0 - i / 1e5 + rng.random() / 100:.5f}\n" for i in range(60000))
    data = bytearray(lzma.compress(text.encode()))
    assert len(data) > 1 << 17  # more than two pieces of compressed input
    data[len(data) // 2 : len(data) // 2 + 16] = b"\x55" * 16  # damaged in the middle
    p = tmp_path / "train.log.xz"
    p.write_bytes(bytes(data))
    run = read_run(p)
    assert 10000 < len(run.series["loss"]) < 60000 and "xz stream is damaged" in run.damage[0].message


def test_bz2_magic_needs_the_block_magic_and_binary_stays_unrecognised(tmp_path):
    assert safeio.compression(b"BZh91AY&SY\x00") == ("bzip2", ".bz2")
    assert safeio.compression(b"BZh is not bzip2") is None
    p = tmp_path / "blob.bin.xz"
    p.write_bytes(lzma.compress(bytes(range(256)) * 64))
    assert sniff(p) is None
    rep = doctor(p).reports[0]
    assert rep.verdict.value == "NOT-CHECKED"
