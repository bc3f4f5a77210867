"""Output at scale (issue 33): ``--format concise`` (one line per finding), ``--statistics``
(findings per rule), ``-q`` naming each failing input once, JUnit one test case per input and
SARIF carrying only the rules that have results; their sizes on the examples are stated here."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ("examples/keras-lr-zero", "examples/plain-diverged", "examples/lightning-nan", "examples/hf-healthy")
SCHEMAS = Path(__file__).parent.parent / "schemas"


def test_concise_is_one_line_per_finding(cli):
    r = cli("doctor", "examples", "--format", "concise", cwd=ROOT)
    assert r.code == 1
    assert r.out.splitlines() == [  # the cause first (issue 30 §4): the zero LR, then the chance-level loss
        "examples/keras-lr-zero/training.log:0: TL040 lr-zero learning rate is zero on 29 of 29 judged points"
        " (100%, threshold 95%); max LR 0",
        "examples/keras-lr-zero/training.log:29: TL033 loss-at-uniform loss 1.37 = ln 4 over the whole run: the"
        " model predicts no better than chance over 4 classes (no class count given: 4 inferred from the loss;"
        " tolerance 0.02; pass --num-classes 4 to confirm)",
        "examples/keras-lr-zero/training.log:29: TL031 dead-run no meaningful improvement: loss 1.37 at the start,"
        " 1.38 at the end (drop -0.01, needs more than 0.08582)",
        "examples/lightning-nan/metrics.csv:899: TL001 non-finite-loss loss is NaN at step 899 and stays"
        " non-finite to the end: 31 of 120 points non-finite",
        "examples/plain-diverged/metrics.jsonl:60: TL010 loss-diverged loss diverged: end level 5.07 is 4.602x"
        " its best 1.102 (step 60), 139 steps past the best (threshold 2x)",
        "FAIL: 3 FAIL, 1 PASS (exit 1)",
    ]


def test_concise_names_an_input_that_could_not_be_judged(cli, tmp_path):
    r = cli("doctor", str(tmp_path / "missing.json"), "--format", "concise")
    assert r.out.splitlines() == [
        f"{tmp_path / 'missing.json'}: NOT-CHECKED no such file or folder",
        "NOT-CHECKED: 1 NOT-CHECKED (exit 2)",
    ]


def test_statistics_counts_findings_per_rule_most_frequent_first(cli, tmp_path):
    import shutil

    for i in range(3):  # three diverged runs and one that never learns: TL010 first
        shutil.copytree(ROOT / "examples/plain-diverged", tmp_path / f"diverged-{i}")
    shutil.copytree(ROOT / "examples/keras-lr-zero", tmp_path / "keras")
    r = cli("doctor", ".", "--statistics", cwd=tmp_path)
    assert r.code == 1
    rows = [line.split() for line in r.out.splitlines()]
    assert rows[0] == ["3", "TL010", "loss-diverged", "FAIL", "3", "inputs"], r.out
    assert [row[1] for row in rows[1:4]] == ["TL031", "TL033", "TL040"]  # ties in code order
    assert rows[1] == ["1", "TL031", "dead-run", "WARN", "1", "input"]
    assert r.out.splitlines()[-1] == "FAIL: 4 FAIL (exit 1)" and len(rows) == 5


def test_statistics_as_json_is_the_envelope_with_the_counts(cli, tmp_path):
    import json

    import jsonschema

    for i in range(2):
        shutil.copytree(ROOT / "examples/plain-diverged", tmp_path / f"diverged-{i}")
    r = cli("doctor", ".", "--statistics", "--format", "json", cwd=tmp_path)
    doc = json.loads(r.out)
    schema = json.loads((ROOT / "src/trainlint/schema/report.schema.json").read_text())
    jsonschema.validate(doc, schema)
    assert r.code == 1 and doc["verdict"] == "FAIL" and len(doc["reports"]) == 2
    assert doc["statistics"][0] == {
        "code": "TL010",
        "name": "loss-diverged",
        "severity": "FAIL",
        "count": 2,
        "inputs": 2,
    }


def test_quiet_prints_each_failing_input_once(cli):
    r = cli("doctor", *EXAMPLES, "-q", cwd=ROOT)
    for name in ("keras-lr-zero/training.log", "plain-diverged/metrics.jsonl", "lightning-nan/metrics.csv"):
        assert r.out.count(name) == 1, r.out
    assert "hf-healthy" not in r.out and "short summary" not in r.out
    assert r.out.rstrip().endswith("FAIL: 3 FAIL, 1 PASS (exit 1)")


def test_junit_is_one_test_case_per_input(cli, tmp_path):
    xmlschema = pytest.importorskip("xmlschema")
    missing = tmp_path / "missing.json"
    r = cli("doctor", *EXAMPLES, str(missing), "--format", "junit", cwd=ROOT)
    xmlschema.XMLSchema(str(SCHEMAS / "junit.xsd")).validate(r.out)
    root = ET.fromstring(r.out)
    cases = root.findall("testsuite/testcase")
    assert len(cases) == 5 and root.get("tests") == "5" and root.get("skipped") == "0"
    assert (root.get("failures"), root.get("errors")) == ("3", "1")
    by_name = {c.get("name"): c for c in cases}
    keras = by_name["examples/keras-lr-zero/training.log"]
    assert keras.find("failure").get("type") == "TL040" and "TL033 loss-at-uniform" in keras.find("failure").text
    warns = [p for p in keras.findall("properties/property") if p.get("name").startswith("WARN")]
    assert [p.get("name") for p in warns] == ["WARN TL031 dead-run"]
    assert by_name[str(missing)].find("error").get("message") == "no such file or folder"
    assert len(by_name["examples/hf-healthy/trainer_state.json"]) == 1  # a pass: its properties only
    assert len(r.out.encode()) < 5_000  # was 15 KB: a test case per rule that ran or was skipped


def test_sarif_carries_only_the_rules_with_results(cli):
    r = cli("doctor", "examples", "--format", "sarif", cwd=ROOT)
    run = r.json()["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert [x["id"] for x in rules] == ["TL001", "TL010", "TL031", "TL033", "TL040"]
    assert {x["ruleId"] for x in run["results"]} == {x["id"] for x in rules}
    assert all(x["helpUri"].endswith(f"RULES.md#{x['id'].lower()}-{x['name']}") for x in rules)
    # each carried rule's explanation once (the output was 250 KB: every registered rule, its text three
    # times), bounded by the carried rules' own texts, so that a longer explanation is no failure
    texts = sum(len(json.dumps(x["fullDescription"]["text"])) for x in rules)
    strings = list(_strings(r.json()))
    assert all(sum(x["fullDescription"]["text"] in t for t in strings) == 1 for x in rules)
    assert len(json.dumps(rules)) < 2 * texts + 400 * len(rules)
    assert len(r.out.encode()) - len(json.dumps(rules).encode()) < 10_000  # the results and the envelope
    empty = cli("doctor", "examples/hf-healthy", "--format", "sarif", cwd=ROOT).json()
    assert empty["runs"][0]["tool"]["driver"]["rules"] == [] and json.dumps(empty).count("TL0") == 0


def test_short_reprs_for_a_repl():
    """Issue 33: repr(Result) dumped several KB; now the verdict, the counts, the first finding."""
    from trainlint import api
    from trainlint.verdict import Report, Result

    result = api.doctor([ROOT / "examples"])
    text = repr(result)
    assert text.startswith("<Result doctor FAIL (exit 1): 3 FAIL, 1 PASS; first: ") and len(text) < 250, text
    assert "keras-lr-zero/training.log: TL040 lr-zero: learning rate is zero" in text
    keras = next(r for r in result.reports if "keras" in r.source)
    assert repr(keras).startswith(f"<Report FAIL log {keras.source}: 2 FAIL, 1 WARN; first: TL040 lr-zero")
    assert repr(keras.findings[0]).startswith("<Finding FAIL TL040 lr-zero step 0: learning rate is zero")
    assert all(len(repr(x)) < 250 for x in (keras, *keras.findings))
    assert repr(Report("x.json", "log", unjudged="no such file or folder")) == (
        "<Report NOT-CHECKED log x.json: no such file or folder>"
    )
    assert repr(Result("doctor", empty_reason="no inputs")) == "<Result doctor NOT-CHECKED (exit 2): no inputs>"


def test_env_default_view_says_what_each_probe_found(cli):
    """Issue 33: `trainlint env` printed three bare 'PASS ... (vm)' lines; only -v said what it found."""
    import io

    from trainlint.report import View, render
    from trainlint.verdict import Report, Result

    found = "no nvidia-smi; torch 2.4.0+cpu (CPU build)"
    result = Result("env", [Report("accelerators (vm)", "environment", "accelerators", notes=[found])])
    for verbosity in (0, 1):
        out = io.StringIO()
        render(result, "text", out, View(verbosity=verbosity, color=False))
        lines = out.getvalue().splitlines()
        assert lines[1] == f"      {found}" and out.getvalue().count(found) == 1, lines
    shown = cli("env").out.splitlines()
    heads = [i for i, line in enumerate(shown) if line.startswith(("PASS ", "WARN ", "FAIL "))]
    assert len(heads) >= 3 and all(shown[i + 1].startswith("      ") for i in heads), shown
    assert any("torch" in line for line in shown), shown


def _strings(doc):
    """Every string in a parsed JSON document."""
    if isinstance(doc, str):
        yield doc
    elif isinstance(doc, dict):
        for v in doc.values():
            yield from _strings(v)
    elif isinstance(doc, list):
        for v in doc:
            yield from _strings(v)
