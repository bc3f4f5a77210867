"""Options reach what they configure, as arguments: the checkpoint switches reach the checkpoint
inspector through ``doctor`` and through ``ckpt``, and discovery sniffs each file once."""

from __future__ import annotations

import json
import struct
from collections import Counter
from pathlib import Path

import msgspec
import numpy as np
import pytest

from trainlint import api
from trainlint.options import Options
from trainlint.readers import READERS, load_readers


def _safetensors_with_inf(path: Path) -> Path:
    values = np.arange(16, dtype="<f4")
    values[5] = np.inf
    header = {"w": {"dtype": "F32", "shape": [4, 4], "data_offsets": [0, values.nbytes]}}
    head = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(head)) + head + values.tobytes())
    return path


def _codes(result) -> set[str]:
    return {f.code for r in result.reports if r.kind == "checkpoint" for f in r.findings}


def _json_codes(out: str) -> set[str]:
    return {f["code"] for r in json.loads(out)["reports"] if r["kind"] == "checkpoint" for f in r["findings"]}


def test_options_are_frozen():
    with pytest.raises(AttributeError):  # frozen: assignment refused
        Options().ckpt_values = False  # type: ignore[misc]


def test_no_values_skips_the_value_scan_through_doctor_and_ckpt(tmp_path):
    ckpt = _safetensors_with_inf(tmp_path / "model.safetensors")
    assert "TL310" in _codes(api.doctor([ckpt], Options()))  # the scan finds the Inf by default
    assert "TL310" not in _codes(api.doctor([ckpt], Options(ckpt_values=False)))
    assert "TL310" in _codes(api.inspect_checkpoint([ckpt], Options()))
    assert "TL310" not in _codes(api.inspect_checkpoint([ckpt], Options(ckpt_values=False)))


def test_no_values_reaches_the_inspector_from_the_command_line(tmp_path, cli):
    ckpt = _safetensors_with_inf(tmp_path / "model.safetensors")
    for command in ("doctor", "ckpt"):
        scanned = cli(command, ckpt, "--format", "json")
        skipped = cli(command, ckpt, "--no-values", "--format", "json")
        assert "TL310" in _json_codes(scanned.out), (command, scanned.err)
        assert "TL310" not in _json_codes(skipped.out), (command, skipped.err)


def _jsonl_log(path: Path) -> Path:
    path.write_text("".join(json.dumps({"step": i, "loss": 2.0 / (i + 1)}) + "\n" for i in range(30)))
    return path


def test_doctor_sniffs_each_file_once(tmp_path):
    """Discovery's one sniffing pass chooses the reader; the read does not sniff again."""
    _jsonl_log(tmp_path / "metrics.jsonl")
    (tmp_path / "train.log").write_text("".join(f"step {i} | loss {3.0 / (i + 1):.4f}\n" for i in range(30)))
    calls: Counter[tuple[str, str]] = Counter()

    def counted(r):
        def counting(path, head, *options):
            calls[(r.name, Path(path).name)] += 1
            return r.sniff(path, head, *options)

        return r if r.folder else msgspec.structs.replace(r, sniff=counting)

    saved = list(load_readers())
    READERS[:] = [counted(r) for r in saved]
    try:
        result = api.doctor([tmp_path], Options())
    finally:
        READERS[:] = saved
    assert {r.kind for r in result.reports} == {"log"} and len(result.reports) == 2
    per_file = Counter(name for (_, name) in calls)
    assert set(per_file) == {"metrics.jsonl", "train.log"}
    assert max(calls.values()) == 1, calls  # no reader asked twice about one file
