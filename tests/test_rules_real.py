"""Calibration targets on real logs (../shared/evidence): the numbers the gallery verdicts rest on.
Their verdicts and codes are pinned with every other log in tests/golden/doctor.json (scripts/golden.py)."""

from __future__ import annotations

import json
from pathlib import Path

from trainlint.api import read_run
from trainlint.engine import judge_run

GOLDEN = Path(__file__).parent / "golden"
GALLERY = ("healthy", "lr_hot", "lr_zero", "fp16_nan", "bad_labels", "overfit")


def _judge(evidence: Path, rel: str):
    return judge_run(read_run(evidence / rel))


def test_gallery_calibration_targets(evidence):
    verdicts = {c: _judge(evidence, f"qwen-qlora-gallery/{c}/trainer_state.json") for c in GALLERY}
    for bad in ("lr_hot", "lr_zero", "fp16_nan"):
        assert verdicts[bad].verdict.value == "FAIL", bad
    healthy = verdicts["healthy"]
    assert healthy.verdict.value == "PASS"
    assert not [f for f in healthy.findings if f.severity.value in ("WARN", "FAIL")]
    over = verdicts["overfit"]
    assert over.verdict.value == "WARN"
    (f,) = [f for f in over.findings if f.code == "TL060"]
    assert f.step == 30 and f.evidence["best_step"] == 30 and "step 30" in f.message
    assert verdicts["bad_labels"].verdict.value in ("PASS", "WARN")


def test_lr_zero_and_diverged_numbers(evidence):
    rep = _judge(evidence, "qwen-qlora-gallery/lr_zero/trainer_state.json")
    (f,) = [f for f in rep.findings if f.code == "TL040"]
    assert f.evidence["fraction"] == 1.0 and f.evidence["max_lr"] == 0.0
    rep = _judge(evidence, "qwen-qlora-gallery/lr_hot/trainer_state.json")
    (f,) = [f for f in rep.findings if f.code == "TL010"]
    assert 7.0 < f.evidence["end_level"] < 8.0 and f.evidence["ratio"] > 4
    rep = _judge(evidence, "qwen-qlora-gallery/fp16_nan/trainer_state.json")
    (f,) = [f for f in rep.findings if f.code == "TL003"]
    assert f.severity.value == "WARN" and f.evidence["count"] == 2


def test_gallery_through_cli(cli, evidence):
    r = cli("doctor", evidence / "qwen-qlora-gallery", "--format", "json")
    got = {Path(rep["source"]).parent.name: rep["verdict"] for rep in r.json()["reports"]}
    golden = json.loads((GOLDEN / "doctor.json").read_text())
    for cond in GALLERY:
        assert got[cond] == golden[f"shared/qwen-qlora-gallery/{cond}/trainer_state.json"]["verdict"], cond
    assert r.code == 1
