"""A Lightning version folder is one report: hparams.yaml and the checkpoints folded in."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parents[2]


def _version_folder(tmp_path: Path, nan_in: str | None = None) -> Path:
    version = tmp_path / "lightning_logs" / "version_0"
    shutil.copytree(ROOT / "evidence" / "lightning-healthy-s0", version)
    (version / "checkpoints").mkdir()
    for name in ("epoch=0-step=50.ckpt", "epoch=1-step=100.ckpt", "last.ckpt"):
        w = torch.ones(3)
        if name == nan_in:
            w[1] = float("nan")
        torch.save({"state_dict": {"w": w}, "global_step": 100, "epoch": 1}, version / "checkpoints" / name)
    return version


def test_version_folder_is_one_report(tmp_path, cli):
    version = _version_folder(tmp_path)
    r = cli("doctor", tmp_path, "--format", "json")
    reps = r.json()["reports"]
    assert [x["source"] for x in reps] == [str(version)], [x["source"] for x in reps]
    rep = reps[0]
    names = {Path(f).name for f in rep["files"]}
    assert {"metrics.csv", "hparams.yaml", "epoch=0-step=50.ckpt", "epoch=1-step=100.ckpt", "last.ckpt"} <= names
    assert rep["summary"]["checkpoints"] == {
        "steps": [50, 100],
        "with_findings": [],
        "values_scanned": True,
        "named": ["last.ckpt"],
    }
    assert {p["part"] for p in rep["summary"]["parts"]} == {
        "hparams.yaml",
        "checkpoints/epoch=0-step=50.ckpt",
        "checkpoints/epoch=1-step=100.ckpt",
        "checkpoints/last.ckpt",
    }
    text = cli("doctor", tmp_path).out
    assert "3 checkpoints (50, 100, last.ckpt): complete, tensors finite" in text
    assert text.count("PASS  ") == 1


def test_a_checkpoint_finding_joins_the_run_report(tmp_path, cli):
    version = _version_folder(tmp_path, nan_in="epoch=1-step=100.ckpt")
    r = cli("doctor", tmp_path, "--format", "json")
    (rep,) = r.json()["reports"]
    assert rep["source"] == str(version) and rep["verdict"] == "FAIL" and r.code == 1
    f = next(x for x in rep["findings"] if x["code"] == "TL310")
    assert f["evidence"]["part"] == "checkpoints/epoch=1-step=100.ckpt"
    assert rep["summary"]["checkpoints"]["with_findings"] == [100]
    assert "findings in checkpoint 100" in cli("doctor", tmp_path).out
