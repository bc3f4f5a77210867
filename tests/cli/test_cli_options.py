"""Command-line options that reach the rules: --vocab-size/--num-classes, and --threshold
winning over a per-path override in the config file."""

from __future__ import annotations

import json
import math

import numpy as np


def write_jsonl(path, losses):
    path.write_text(
        "".join(json.dumps({"step": i + 1, "loss": float(v), "lr": 1e-4}) + "\n" for i, v in enumerate(losses))
    )
    return path


def test_vocab_size_lets_tl033_judge(cli, tmp_path):
    rng = np.random.default_rng(0)
    log = write_jsonl(tmp_path / "m.jsonl", math.log(100) + rng.normal(0, 0.01, 60))
    r = cli("doctor", log, "--format", "json")
    rep = r.json()["reports"][0]
    assert "TL033" in rep["checks"]["not_checked"]
    r = cli("doctor", log, "--vocab-size", "100", "--format", "json")
    (f,) = [f for f in r.json()["reports"][0]["findings"] if f["code"] == "TL033"]
    assert f["severity"] == "FAIL" and f["evidence"]["classes"] == 100
    assert abs(f["evidence"]["ln_v"] - math.log(100)) < 1e-9 and r.code == 1
    r = cli("doctor", log, "--num-classes", "1000", "--format", "json")  # ln 1000 is far above: no guess
    assert not [f for f in r.json()["reports"][0]["findings"] if f["code"] == "TL033"]


def test_command_line_threshold_beats_per_path_override(cli, tmp_path):
    losses = list(np.linspace(2.0, 1.0, 30)) + list(np.linspace(1.0, 2.6, 30))  # ends 2.6x... its best
    log = write_jsonl(tmp_path / "runs" / "m.jsonl", losses) if (tmp_path / "runs").mkdir() is None else None
    (tmp_path / "trainlint.toml").write_text(
        '[[overrides]]\npaths = ["runs/*"]\n[overrides.thresholds.TL010]\nmin_rise = 50\n'
    )
    codes = lambda r: {f["code"] for f in r.json()["reports"][0]["findings"]}  # noqa: E731
    assert "TL010" not in codes(cli("doctor", log, "--format", "json", cwd=tmp_path))
    r = cli("doctor", log, "--threshold", "TL010.min_rise=1.5", "--format", "json", cwd=tmp_path)
    assert "TL010" in codes(r)


def test_no_data_crc_skips_only_the_data_crc(cli, tmp_path):
    """A record whose data bytes were flipped is skipped (corrupt) with the data CRC checked,
    and read as it is with --no-data-crc; the length CRC is always checked."""
    import tfevents_writers as writers

    ev = writers.torch_simple(tmp_path)
    data = bytearray(ev.read_bytes())
    pos = 0
    for _ in range(5):  # skip to the sixth record (a scalar event)
        pos += 16 + int.from_bytes(data[pos : pos + 8], "little")
    n = int.from_bytes(data[pos : pos + 8], "little")
    data[pos + 12 + n - 1] ^= 0x01  # one bit in its data (the last byte: a float's top byte)
    ev.write_bytes(bytes(data))
    checked = cli("doctor", ev, "--format", "json").json()["reports"][0]
    unchecked = cli("doctor", ev, "--no-data-crc", "--format", "json").json()["reports"][0]
    assert "TL100" in {f["code"] for f in checked["findings"]}
    assert "TL100" not in {f["code"] for f in unchecked["findings"]}


def test_options_reach_runs_judged_from_an_event_folder(cli, tmp_path):
    """Every log inspector judges through one function, so --vocab-size reaches runs read from
    TensorBoard folders (resumed runs: two event files) as it reaches single files."""
    tb = __import__("pytest").importorskip("torch.utils.tensorboard")
    rng = np.random.default_rng(0)
    for part, steps in (("a", range(0, 30)), ("b", range(30, 60))):
        w = tb.SummaryWriter(str(tmp_path / "runs"), filename_suffix=part)
        for s in steps:
            w.add_scalar("train/loss", math.log(50) + rng.normal(0, 0.01), s)
        w.close()
    r = cli("doctor", tmp_path / "runs", "--vocab-size", "50", "--format", "json")
    (rep,) = r.json()["reports"]
    assert rep["format"] != "tfevents" or len(rep["files"]) == 2
    assert "TL033" in {f["code"] for f in rep["findings"]}, rep["checks"]["not_checked"].get("TL033")


def test_rules_lists_a_category(cli):
    """Issue 33: `trainlint rules nan` was an error although `--select nan` works."""
    r = cli("rules", "nan")
    assert r.code == 0, r.err
    rows = [line.split()[:3] for line in r.out.splitlines()]
    assert len(rows) >= 3 and all(cat == "nan" for _, _, cat in rows) and rows[0][:2] == ["TL001", "non-finite-loss"]
    assert cli("rules", "TL001").out.startswith("## TL001 non-finite-loss")  # one rule: explained in full
    typo = cli("rules", "TL01O")
    assert typo.code == 2 and "no rule or category 'TL01O'" in typo.err and "did you mean 'TL010'" in typo.err
