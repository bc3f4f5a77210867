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


def _huge_training_args(folder):
    """A training_args.bin whose integers have 5,000 digits (issue 33)."""
    import sys

    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    args = transformers.TrainingArguments(output_dir=str(folder), use_cpu=True, report_to="none")
    limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        args.max_steps = int("7" * 5000)
        args.seed = -int("3" * 5000)
        torch.save(args, folder / "training_args.bin")
    finally:
        sys.set_int_max_str_digits(limit)


@pytest.mark.parametrize("fmt", ["json", "text", "sarif", "junit", "html"])
def test_a_5000_digit_integer_breaks_no_output(cli, tmp_path, fmt):
    """Issue 33: every input is reported, every format stays whole, no internal error; the wide
    integers are written as strings with a note."""
    cfg = tmp_path / "cfg"
    cfg.mkdir()
    _huge_training_args(cfg)
    write_hf(tmp_path / "pass.json", healthy())
    r = cli("doctor", tmp_path, "--format", fmt, "-v")
    assert "internal error" not in r.err and "Traceback" not in r.err, r.err
    if fmt != "json":
        assert r.code == 0 and r.out.strip(), r.err
        return
    doc = r.json()
    jsonschema.validate(doc, SCHEMA)
    assert r.code == doc["exit_code"] == 0
    sources = sorted({x["source"].rsplit("/", 1)[-1] for x in doc["reports"]})
    assert sources == ["pass.json", "training_args.bin"]
    env = next(x for x in doc["reports"] if x["kind"] == "environment")
    assert env["summary"]["max_steps"] == "7.777778e+4999 (an integer of 5000 digits)"
    assert any("written as strings: summary.max_steps" in n for n in env["notes"])


def test_a_report_that_cannot_be_written_is_its_own_not_checked():
    """Issue 33: an error while serialising or rendering one report makes that report
    NOT-CHECKED with a one-line reason; the others and the format are unaffected."""
    import io

    from trainlint.report import render
    from trainlint.verdict import Report, Result

    good = Report(source="a.jsonl", kind="log", format="jsonl")
    bad = Report(source="b.jsonl", kind="log", format="jsonl", summary={"odd": object()})
    for fmt in ("json", "text", "sarif", "junit", "markdown", "github"):
        out = io.StringIO()
        render(Result("doctor", [good, bad]), fmt, out)
        assert "b.jsonl" in out.getvalue() and "internal error while reporting: TypeError" in out.getvalue(), fmt
    out = io.StringIO()
    render(Result("doctor", [good, bad]), "json", out)
    doc = json.loads(out.getvalue())
    jsonschema.validate(doc, SCHEMA)
    assert [x["verdict"] for x in doc["reports"]] == ["PASS", "NOT-CHECKED"]
    assert doc["verdict"] == "NOT-CHECKED" and doc["exit_code"] == 2


def test_a_report_the_text_view_cannot_render_is_shown_and_counted_as_not_checked(monkeypatch):
    import io

    from trainlint.report import render, text
    from trainlint.verdict import Report, Result

    real = text.describe

    def describe(r):
        if r.source == "b.jsonl":
            raise OverflowError("int too large to convert to float")
        return real(r)

    monkeypatch.setattr(text, "describe", describe)
    out = io.StringIO()
    render(
        Result("doctor", [Report(source=s, kind="log", format="jsonl") for s in ("a.jsonl", "b.jsonl")]), "text", out
    )
    shown = out.getvalue()
    assert "b.jsonl" in shown and "internal error while reporting: OverflowError" in shown
    assert shown.rstrip().endswith("NOT-CHECKED: 1 NOT-CHECKED, 1 PASS (exit 2)"), shown


@pytest.mark.parametrize(
    "fmt, marker",
    [
        ("json", '"interrupted": true'),
        ("text", "INTERRUPTED  interrupted by SIGTERM"),
        ("sarif", '"executionSuccessful": false'),
        ("junit", 'type="INTERRUPTED"'),
        ("github", "::error title=INTERRUPTED::interrupted by SIGTERM"),
        ("markdown", "**INTERRUPTED**: interrupted by SIGTERM"),
    ],
)
def test_every_format_says_a_result_was_interrupted(fmt, marker):
    """Issue 33: what was judged before a signal, marked interrupted in every CI format."""
    import io

    from trainlint.report import render
    from trainlint.verdict import Report, Result

    result = Result("doctor", [Report(source="a.jsonl", kind="log", format="jsonl")], interrupted=15)
    out = io.StringIO()
    render(result, fmt, out)
    assert marker in out.getvalue(), out.getvalue()[-600:]
    out = io.StringIO()
    render(Result("doctor", [Report(source="a.jsonl", kind="log", format="jsonl")]), fmt, out)
    assert "INTERRUPTED" not in out.getvalue() and "interrupted by" not in out.getvalue()
    assert '"interrupted"' not in out.getvalue() and '"executionSuccessful": false' not in out.getvalue()


def test_a_log_too_short_for_the_trend_rules_says_so_on_its_verdict_line(cli, tmp_path):
    """Issue 30 §3: a 12-point log never looks like a clean PASS: its verdict line, its concise
    line and its JSON report (``scope``, since schema 1.2) say what the verdict rests on."""
    short = write_hf(tmp_path / "short.json", healthy(12))
    text = cli("doctor", short)
    assert text.code == 0 and text.out.startswith("PASS on 12 points: trend rules need 20  "), text.out
    concise = cli("doctor", short, "--format", "concise")
    assert f"{short}: PASS on 12 points: trend rules need 20" in concise.out.splitlines()
    data = cli("doctor", short, "--format", "json").json()
    jsonschema.validate(data, SCHEMA)
    assert data["schema_version"] == "1.2" and data["reports"][0]["scope"] == "on 12 points: trend rules need 20"
    full = cli("doctor", write_hf(tmp_path / "full.json", healthy()), "--format", "json").json()
    assert full["reports"][0]["scope"] is None
