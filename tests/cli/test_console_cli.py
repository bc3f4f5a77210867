"""doctor on console logs: a folder of mixed logs, --pattern, and the crashed launch."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

DATA = Path(__file__).parent.parent / "data" / "console"
MIXED = [
    "keras_fit.txt",
    "keras_nan.txt",
    "lightning_tqdm.txt",
    "hf_trainer.txt",
    "pytorch_mnist.log",
    "detectron2.log",
    "yolo.log",
    "nanogpt.log",
    "fairseq_hydra.log",
    "cuda_oom.out",
    "not_training.log",
]


def _crash_rule_present() -> bool:
    from trainlint.registry import REGISTRY

    REGISTRY.load()
    return REGISTRY.get("TL081") is not None


@pytest.fixture
def mixed(tmp_path):
    for name in MIXED:
        shutil.copy(DATA / name, tmp_path / name)
    shutil.copy(DATA / "coqui" / "trainer_0_log.txt", tmp_path / "trainer_0_log.txt")
    (tmp_path / "notes.txt").write_text("buy milk\n")
    (tmp_path / "requirements.txt").write_text("torch==2.13.0\n")
    return tmp_path


def test_doctor_judges_each_console_log_or_says_why_not(cli, mixed):
    res = cli("doctor", mixed, "--format", "json")
    reports = {Path(r["source"]).name: r for r in res.json()["reports"]}
    # notes.txt, requirements.txt are not logs; not_training.log is named like one but holds no
    # training content: a folder scan skips and counts it (issue 15), naming it says why
    assert set(reports) == set(MIXED) - {"not_training.log"} | {"trainer_0_log.txt"}
    assert [Path(p).name for p in res.json()["not_recognised"]] == ["not_training.log"]
    named = cli("doctor", mixed / "not_training.log", "--format", "json").json()["reports"][0]
    assert named["verdict"] == "NOT-CHECKED" and named["reason"] == "no known training-progress lines found"
    assert reports["keras_nan.txt"]["verdict"] == "FAIL"
    assert "TL001" in {f["code"] for f in reports["keras_nan.txt"]["findings"]}
    formats = {name: r["format"] for name, r in reports.items()}
    assert formats["keras_fit.txt"] == "console/keras"
    assert formats["lightning_tqdm.txt"] == "console/lightning"
    assert formats["hf_trainer.txt"] == "console/hf-trainer"
    assert formats["pytorch_mnist.log"] == "console/pytorch-example"
    assert formats["detectron2.log"] == "console/detectron2"
    assert formats["yolo.log"] == "console/yolo"
    assert formats["trainer_0_log.txt"] == "coqui"
    for name in ("keras_fit.txt", "detectron2.log", "nanogpt.log", "fairseq_hydra.log", "trainer_0_log.txt"):
        assert reports[name]["reason"] is None, name
    assert res.code == 1  # keras_nan FAILs


def test_crash_log_is_never_a_plain_pass_once_the_crash_rule_exists(cli):
    if not _crash_rule_present():
        pytest.skip("the crash rule TL081 is not on this branch")
    res = cli("doctor", DATA / "cuda_oom.out", "--format", "json")
    (report,) = res.json()["reports"]
    assert report["verdict"] == "FAIL"
    assert "TL081" in {f["code"] for f in report["findings"]}


def test_fish_speech_crashed_launch_is_not_pass(cli, evidence):
    res = cli("doctor", evidence / "fish-speech-lightning" / "train.log", "--format", "json")
    (report,) = res.json()["reports"]
    assert report["verdict"] in ("FAIL", "NOT-CHECKED")
    assert report["format"] == "console"
    if _crash_rule_present():
        assert report["verdict"] == "FAIL"
        assert "TL081" in {f["code"] for f in report["findings"]}


def test_pattern_option_reads_a_custom_format(cli, tmp_path):
    log = tmp_path / "custom.log"
    # "energy": no name a loop gives its loss or objective (an "objective" is read without a pattern)
    log.write_text("".join(f"it={i * 10} | energy {3.0 - i * 0.1:.2f}\n" for i in range(12)))
    plain = cli("doctor", log, "--format", "json")
    assert plain.json()["reports"][0]["reason"] == "no known training-progress lines found"
    res = cli("doctor", log, "--format", "json", "--pattern", r"it=(?P<step>\d+) \| energy (?P<loss>[0-9.]+)")
    (report,) = res.json()["reports"]
    assert report["format"] == "console/user-pattern" and report["reason"] is None
    assert report["summary"]["loss_points"] == 12 and report["summary"]["last_step"] == 110


def test_bad_pattern_is_a_usage_error(cli, tmp_path):
    res = cli("doctor", tmp_path, "--pattern", r"step (?P<step>\d+)")
    assert res.code == 2 and "names no metric" in res.err
    res = cli("doctor", tmp_path, "--pattern", r"(unclosed")
    assert res.code == 2 and "not a valid regular expression" in res.err
