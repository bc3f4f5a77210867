"""The verdict contract: exit codes, the JSON envelope and its schema, for every verdict kind."""

from __future__ import annotations

import json
from importlib import resources

import jsonschema
import numpy as np
import pytest

SCHEMA = json.loads(resources.files("trainlint").joinpath("schema/report.schema.json").read_text())


def write_hf(path, losses, lrs=None, truncate=False):
    lrs = lrs if lrs is not None else [1e-4] * len(losses)
    entries = [
        {"step": 10 * (i + 1), "loss": float(l), "learning_rate": float(lr), "grad_norm": 1.0}
        for i, (l, lr) in enumerate(zip(losses, lrs))
    ]
    text = json.dumps({"max_steps": 10 * len(losses), "log_history": entries}, indent=2)
    if truncate:
        text = text[: int(len(text) * 0.9)]
    path.write_text(text)
    return path


def healthy(n=40, seed=0):
    rng = np.random.default_rng(seed)
    return 0.8 + 2.0 * np.exp(-np.arange(n) / 8) + rng.normal(0, 0.02, n)


@pytest.fixture
def logs(tmp_path):
    d = tmp_path
    return {
        "PASS": write_hf(d / "pass.json", healthy()),
        "FAIL": write_hf(d / "fail.json", list(healthy(20)) + [float("nan")] * 20),
        "WARN": write_hf(d / "warn.json", healthy(), truncate=True),
        "NOT-CHECKED": d / "missing.json",
    }


@pytest.mark.parametrize("verdict,code", [("PASS", 0), ("WARN", 0), ("FAIL", 1), ("NOT-CHECKED", 2)])
def test_exit_code_and_schema_per_verdict(cli, logs, verdict, code):
    r = cli("doctor", logs[verdict], "--format", "json")
    assert r.code == code, r.out + r.err
    data = r.json()
    jsonschema.validate(data, SCHEMA)
    assert data["verdict"] == verdict and data["exit_code"] == code
    assert data["schema_version"].startswith("1.") and data["tool"]["name"] == "trainlint"
    rep = data["reports"][0]
    assert rep["verdict"] == verdict
    if verdict == "NOT-CHECKED":
        assert rep["reason"] == "no such file or folder"
    else:
        assert "TL001" in rep["checks"]["ran"]


def test_fail_beats_not_checked_beats_warn(cli, logs):
    r = cli("doctor", logs["WARN"], logs["NOT-CHECKED"], "--format", "json")
    assert (r.code, r.json()["verdict"]) == (2, "NOT-CHECKED")
    r = cli("doctor", logs["WARN"], logs["NOT-CHECKED"], logs["FAIL"], "--format", "json")
    assert (r.code, r.json()["verdict"]) == (1, "FAIL")
    assert len(r.json()["reports"]) == 3


def test_findings_carry_numbers(cli, logs):
    data = cli("doctor", logs["FAIL"], "--format", "json").json()
    f = next(f for f in data["reports"][0]["findings"] if f["code"] == "TL001")
    assert f["severity"] == "FAIL" and f["step"] == 210
    assert f["evidence"]["count"] == 20 and f["evidence"]["value"] == "NaN"
    assert "step 210" in f["message"]


def test_unreadable_file_exit_2_with_reason(cli, tmp_path):
    p = tmp_path / "trainer_state.json"
    p.write_bytes(b"\x00\xff garbage")
    r = cli("doctor", p)
    assert r.code == 2
    assert "NOT-CHECKED" in r.out and "not an input trainlint recognises" in r.out
    assert "Traceback" not in r.err


def test_empty_folder_is_not_checked(cli, tmp_path):
    r = cli("doctor", tmp_path, "--format", "json")
    assert r.code == 2 and r.json()["reason"].startswith("nothing to judge found")
    jsonschema.validate(r.json(), SCHEMA)


def test_no_loss_series_is_not_checked(cli, tmp_path):
    p = tmp_path / "m.jsonl"
    p.write_text('{"step": 1, "accuracy": 0.5, "loss_scale": 1024}\n{"step": 2, "accuracy": 0.6, "loss_scale": 1024}\n')
    data = cli("doctor", p, "--format", "json").json()
    assert data["exit_code"] == 2
    assert "no loss series found" in data["reports"][0]["reason"]
    # (a log with only an eval loss is judged on it: issue 15, see tests/test_roles_structure.py)


def test_map_overrides_role(cli, tmp_path):
    p = tmp_path / "m.jsonl"
    p.write_text(
        "".join(
            json.dumps({"step": i, "objective": 1.0 + (float("nan") if i > 5 else 0)}) + "\n" for i in range(12)
        ).replace("NaN", '"NaN"')
    )
    r = cli("doctor", p, "--map", "loss=objective", "--format", "json")
    assert r.code == 1 and r.json()["reports"][0]["findings"][0]["code"] == "TL001"
    bad = cli("doctor", p, "--map", "lossy")
    assert bad.code == 2 and "ROLE=NAME" in bad.err


def test_pass_lists_what_ran_and_what_did_not(cli, logs):
    r = cli("doctor", logs["PASS"], "-v")
    assert r.code == 0
    assert "checked (" in r.out
    assert "PASS: 1 PASS (exit 0)" in r.out


def test_text_output_is_plain_when_piped(cli, logs):
    r = cli("doctor", logs["FAIL"])
    assert "\x1b[" not in r.out


def test_rules_json_uses_envelope(cli):
    data = cli("rules", "--format", "json").json()
    jsonschema.validate(data, SCHEMA)
    assert {r["code"] for r in data["rules"]} >= {"TL001", "TL010", "TL030", "TL040"}


def test_sarif_output(cli, logs):
    r = cli("doctor", logs["FAIL"], logs["NOT-CHECKED"], "--format", "sarif")
    assert r.code == 1
    sarif = r.json()
    assert sarif["version"] == "2.1.0"
    run = sarif["runs"][0]
    rule_ids = [x["id"] for x in run["tool"]["driver"]["rules"]]
    assert rule_ids == sorted({x["ruleId"] for x in run["results"]})  # only the rules with results
    res = [x for x in run["results"] if x["ruleId"] == "TL001"]
    assert res and res[0]["level"] == "error" and res[0]["properties"]["step"] == 210
    assert res[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == str(logs["FAIL"])
    notes = run["invocations"][0]["toolExecutionNotifications"]
    assert "no such file or folder" in notes[0]["message"]["text"]
    assert run["invocations"][0]["exitCode"] == 1


def test_every_command_prints_the_same_envelope(cli, tmp_path):
    """The JSON contract holds for every command, not only doctor."""
    from pathlib import Path

    examples = Path(__file__).resolve().parents[2] / "examples"
    data = tmp_path / "train.jsonl"
    data.write_text('{"prompt": "2+2?", "completion": "4"}\n{"prompt": "3+3?", "completion": ""}\n')
    ckpt = tmp_path / "model.safetensors"
    try:
        import numpy as _np
        from safetensors.numpy import save_file

        save_file({"w": _np.ones((2, 2), dtype=_np.float32)}, str(ckpt))
    except ImportError:
        ckpt = None
    runs = {
        "doctor": ["doctor", examples],
        "compare": ["compare", examples / "hf-healthy", examples / "plain-diverged"],
        "data": ["data", data],
        "env": ["env"],
        "series": ["series", examples / "hf-healthy" / "trainer_state.json"],
        "rules": ["rules"],
    }
    if ckpt is not None:
        runs["ckpt"] = ["ckpt", ckpt]
    for name, args in runs.items():
        r = cli(*args, "--format", "json")
        data_out = r.json()
        jsonschema.validate(data_out, SCHEMA)
        assert data_out["command"] == name and data_out["exit_code"] == r.code, name
