"""Verdicts on real logs (../shared/evidence), pinned in tests/golden/*.json.

Regenerate after a deliberate calibration change with TRAINLINT_UPDATE_GOLDEN=1 and review the diff."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from trainlint.api import read_run
from trainlint.engine import judge_run

GOLDEN = Path(__file__).parent / "golden"
GALLERY = ("healthy", "lr_hot", "lr_zero", "fp16_nan", "bad_labels", "overfit")


def snapshot(report) -> dict:
    return {"verdict": report.verdict.value,
            "codes": sorted(f"{f.code}:{f.severity.value}" for f in report.findings)}


def _judge(evidence: Path, rel: str):
    return judge_run(read_run(evidence / rel))


@pytest.mark.parametrize("cond", GALLERY)
def test_gallery_golden(evidence, cond):
    rel = f"qwen-qlora-gallery/{cond}/trainer_state.json"
    got = snapshot(_judge(evidence, rel))
    path = GOLDEN / f"qwen-qlora-gallery-{cond}.json"
    if os.environ.get("TRAINLINT_UPDATE_GOLDEN"):
        path.write_text(json.dumps({"source": rel, **got}, indent=2) + "\n")
    want = json.loads(path.read_text())
    assert got == {"verdict": want["verdict"], "codes": want["codes"]}


OTHER = ("fish-speech-lightning-events", "fish-speech-lightning-trainlog", "xtts-coqui-diverged")


@pytest.mark.parametrize("name", OTHER)
def test_other_real_logs_golden(evidence, name):
    """Logs whose readers live on other branches: judged once those readers are registered."""
    from trainlint.readers import load_readers

    want = json.loads((GOLDEN / f"{name}.json").read_text())
    if want["reader"] not in {r.name for r in load_readers()}:
        pytest.skip(f"the {want['reader']} reader is not in this build")
    got = snapshot(_judge(evidence, want["source"]))
    assert got == {"verdict": want["verdict"], "codes": want["codes"]}


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
    for cond in GALLERY:
        want = json.loads((GOLDEN / f"qwen-qlora-gallery-{cond}.json").read_text())
        assert got[cond] == want["verdict"], cond
    assert r.code == 1
