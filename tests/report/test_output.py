"""What a person reads and CI consumes: the default terminal view, -v/-q, the summary, the CI
formats (JUnit, GitHub, Markdown, SARIF, each validated where a schema exists), --output, and
the CLI's refusal of typos."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import jsonschema
import pytest
from _outputs import _hf_output, healthy, write_hf

from trainlint.verdict import Checks, Finding, Report, Result, Severity

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = Path(__file__).parent.parent / "schemas"
HEADER = re.compile(r"^(PASS|FAIL|WARN|NOT-CHECKED)(?: on \d+ points: trend rules need \d+)? +(\S.*?)  \(")


@pytest.fixture
def logs(tmp_path):
    return {
        "pass": write_hf(tmp_path / "pass.json", healthy()),
        "fail": write_hf(tmp_path / "fail.json", healthy(20) + [float("nan")] * 20),
        "warn": write_hf(tmp_path / "warn.json", healthy(20), max_steps=2000),
        "missing": tmp_path / "missing.json",
    }


@pytest.fixture
def bad_dataset(tmp_path):
    p = tmp_path / "train.jsonl"
    p.write_text("".join(json.dumps({"text": f"row {i}"}) + "\n" for i in range(30)) + "{broken\n")
    return p


def blocks(out: str) -> dict[str, list[str]]:
    """Each input's lines in the default view (header to the line before the next header)."""
    found: dict[str, list[str]] = {}
    current = None
    for line in out.splitlines():
        if line.startswith("short summary"):
            break
        m = HEADER.match(line)
        if m:
            current = m.group(2)
            found[current] = []
        if current is not None:
            found[current].append(line)
    return found


# --- the terminal view ------------------------------------------------------------------------


def test_examples_and_evidence_default_view_is_short(cli):
    r = cli("doctor", ROOT / "examples", ROOT / "evidence")
    assert r.code == 1
    b = blocks(r.out)
    data = cli("doctor", ROOT / "examples", ROOT / "evidence", "--format", "json").json()
    verdicts = {rep["source"]: rep["verdict"] for rep in data["reports"]}
    assert set(b) == set(verdicts)
    for src, lines in b.items():
        if verdicts[src] == "PASS":
            assert len([x for x in lines if x.strip()]) <= 3, lines
    summary = r.out[r.out.index("short summary") :]
    fails = [s for s, v in verdicts.items() if v == "FAIL"]
    assert fails and all(f"FAIL {s}: " in summary for s in fails)
    assert "checked (" not in r.out and "not checked:" not in r.out and "stood down" not in r.out
    assert list(b) == sorted(b)  # sorted by path


def test_loss_at_a_glance(cli, logs):
    r = cli("doctor", logs["pass"])
    line = next(x for x in r.out.splitlines() if x.strip().startswith("loss "))
    assert re.search(r"loss +[▁▂▃▄▅▆▇█]+ 2\.8\d* → 0\.8\d* \(−\d+ %\)", line), line
    fail = cli("doctor", logs["fail"])
    assert re.search(r"loss +[▁▂▃▄▅▆▇█]+!+ \S+ → NaN", fail.out), fail.out


def test_findings_have_numbers_and_help(cli, logs):
    r = cli("doctor", logs["fail"])
    assert "FAIL TL001 non-finite-loss step 210: loss is NaN at step 210" in r.out
    help_line = next(x for x in r.out.splitlines() if "help:" in x)
    assert "lower the learning rate" in help_line and "trainlint rules TL001" in help_line


def test_verbose_shows_bookkeeping_quiet_hides_passes(cli, logs):
    v = cli("doctor", logs["pass"], "-v")
    assert "checked (" in v.out and "not checked:" in v.out
    q = cli("doctor", logs["pass"], logs["fail"], logs["warn"], logs["missing"], "-q")
    heads = [m.group(1) for m in map(HEADER.match, q.out.splitlines()) if m]
    assert sorted(heads) == ["FAIL", "NOT-CHECKED"]
    assert "short summary" not in q.out and q.out.count(str(logs["missing"])) == 1  # each failing input once
    assert "could not judge: no such file or folder" in q.out
    assert q.out.rstrip().endswith("FAIL: 1 FAIL, 1 WARN, 1 NOT-CHECKED, 1 PASS (exit 1)")


def test_steps_are_integers(cli, tmp_path):
    p = write_hf(tmp_path / "big.json", healthy(20) + [float("nan")] * 20, step=50308)
    r = cli("doctor", p)
    assert "e+0" not in r.out and "step none" not in r.out.lower()
    assert "steps 50308-2012320" in r.out and "step 1056468" in r.out


def test_repeated_notes_shown_once_with_count():
    from trainlint.report import View
    from trainlint.report.text import render_text

    note = Finding("TL160", "loss-far-below-baseline", "compare", Severity.NOTE, "same words")
    rep = Report(
        "a.json",
        "log",
        "jsonl",
        findings=[note, note, note],
        notes=["n1", "n1"],
        checks=Checks(ran=["TL160"]),
    )
    buf = io.StringIO()
    render_text(Result("doctor", [rep]), buf, View(verbosity=1))
    out = buf.getvalue()
    assert out.count("same words") == 1 and "same words (×3)" in out and "note: n1 (×2)" in out
    buf = io.StringIO()
    render_text(Result("doctor", [rep]), buf, View())
    assert "same words" not in buf.getvalue()


def test_wraps_at_width_with_hanging_indent():
    from trainlint.report import View
    from trainlint.report.text import render_text

    f = Finding("TL010", "loss-diverged", "divergence", Severity.FAIL, "word " * 40, step=12.0)
    buf = io.StringIO()
    render_text(
        Result("doctor", [Report("x.json", "log", "jsonl", findings=[f])]),
        buf,
        View(width=80),
    )
    lines = buf.getvalue().splitlines()
    assert all(len(x) <= 80 for x in lines), lines
    cont = [x for x in lines if x.startswith("        word")]
    assert cont, lines


# --- CLI hygiene --------------------------------------------------------------------------------


def test_select_typo_is_a_usage_error(cli, logs):
    r = cli("doctor", logs["fail"], "--select", "nann")
    assert r.code == 2 and "'nann'" in r.err and "did you mean 'nan'" in r.err
    r = cli("doctor", logs["fail"], "--ignore", "TL9")
    assert r.code == 2 and "'TL9'" in r.err


def test_select_comma_lists_and_repeats(cli, logs):
    a = cli("doctor", logs["fail"], "--select", "nan,lr", "--format", "json").json()
    b = cli("doctor", logs["fail"], "--select", "nan", "--select", "lr", "--format", "json").json()
    ran_a, ran_b = a["reports"][0]["checks"]["ran"], b["reports"][0]["checks"]["ran"]
    assert ran_a == ran_b and "TL001" in ran_a and "TL040" in ran_a and "TL010" not in ran_a
    c = cli("doctor", logs["fail"], "--ignore", "TL001,divergence", "--format", "json").json()
    assert "TL001" not in c["reports"][0]["checks"]["ran"] and "TL010" not in c["reports"][0]["checks"]["ran"]


def test_selection_leaving_no_rule_is_a_usage_error(cli, logs, bad_dataset):
    r = cli("doctor", logs["fail"], "--select", "nan", "--ignore", "nan")
    assert r.code == 2 and "leave no rule" in r.err
    r = cli("data", bad_dataset, "--select", "TL010")
    assert r.code == 2 and "leave no rule for `data`" in r.err


def test_unknown_config_key_is_an_error(cli, logs, tmp_path):
    (tmp_path / "trainlint.toml").write_text('selct = ["nan"]\n')
    r = cli("doctor", logs["pass"], cwd=tmp_path)
    assert r.code == 2 and "unknown key 'selct'" in r.err and "did you mean 'select'" in r.err
    assert "known keys: select, ignore" in r.err
    (tmp_path / "trainlint.toml").write_text('[[overrides]]\npaths = ["x"]\nignores = ["nan"]\n')
    r = cli("doctor", logs["pass"], cwd=tmp_path)
    assert r.code == 2 and "unknown key 'ignores'" in r.err


def test_fail_on_warn_and_exit_zero(cli, logs):
    assert cli("doctor", logs["warn"]).code == 0
    r = cli("doctor", logs["warn"], "--fail-on", "warn")
    assert r.code == 1 and "(exit 1)" in r.out
    r = cli("doctor", logs["fail"], "--exit-zero")
    assert r.code == 0 and "(exit 0)" in r.out
    assert cli("doctor", logs["fail"], "--exit-zero", "--select", "nann").code == 2


def test_did_you_mean_commands_and_rules(cli):
    r = cli("doctr")
    assert r.code == 2 and "did you mean 'doctor'" in r.err
    r = cli("rules", "loss-diverge")
    assert r.code == 2 and "did you mean 'loss-diverged'" in r.err


def test_help_lists_doctor_first_untruncated(cli):
    out = cli("--help").out
    cmds = out[out.index("Commands:") :]
    names = [line.split()[0] for line in cmds.splitlines()[1:] if line.startswith("  ") and not line.startswith("   ")]
    assert names[0] == "doctor" and set(names) >= {"data", "ckpt", "series", "rules"}
    assert "..." not in cmds
    assert "--map" not in cli("ckpt", "--help").out and "--map" in cli("doctor", "--help").out
    assert "--map" not in cli("data", "--help").out


# --- CI formats ------------------------------------------------------------------------------


def test_junit_validates_against_xsd(cli, logs, bad_dataset, tmp_path):
    xmlschema = pytest.importorskip("xmlschema")
    r = cli(
        "doctor",
        logs["pass"],
        logs["fail"],
        logs["missing"],
        bad_dataset,
        "--format",
        "junit",
    )
    assert r.code == 1
    schema = xmlschema.XMLSchema(str(SCHEMAS / "junit.xsd"))
    schema.validate(r.out)
    import xml.etree.ElementTree as ET

    root = ET.fromstring(r.out)
    cases = {c.get("name"): c for c in root.findall("testsuite/testcase")}
    assert set(cases) == {
        str(logs["pass"]),
        str(logs["fail"]),
        str(logs["missing"]),
        str(bad_dataset),
    }
    fail = cases[str(logs["fail"])].find("failure")
    assert fail.get("type") == "TL001" and "step 210" in fail.get("message")
    assert root.get("failures") == "2" and root.get("errors") == "1" and root.get("tests") == "4"
    missing = cases[str(logs["missing"])]
    assert missing.find("error").get("message") == "no such file or folder"
    # not valid against the schema: the schema itself rejects a testcase without a name
    with pytest.raises(xmlschema.XMLSchemaValidationError):
        schema.validate(
            '<testsuites><testsuite name="a" tests="1" failures="0" errors="0">'
            '<testcase classname="x"/></testsuite></testsuites>'
        )


def test_github_annotations(cli, logs, bad_dataset):
    r = cli("doctor", logs["fail"], logs["missing"], bad_dataset, "--format", "github")
    lines = r.out.splitlines()
    assert f"::error file={logs['fail']},title=TL001 non-finite-loss::loss is NaN at step 210" in r.out
    data = next(x for x in lines if "TL200" in x)
    assert data.startswith(f"::error file={bad_dataset},line=31,title=TL200 ")
    assert any(x.startswith(f"::error file={logs['missing']},title=NOT-CHECKED::no such file") for x in lines)
    assert lines[-1].startswith("trainlint FAIL:")
    for x in lines[:-1]:
        assert re.match(r"^::(error|warning|notice) [^:]*(%3A[^:]*)*::", x), x


def test_github_escapes():
    from trainlint.report.github import command

    assert (
        command("error", "50% done\nnext", "a,b:c.json", 3, "T: x")
        == "::error file=a%2Cb%3Ac.json,line=3,title=T%3A x::50%25 done%0Anext"
    )


def test_markdown_summary(cli, logs):
    r = cli("doctor", logs["pass"], logs["fail"], "--format", "markdown")
    assert r.out.startswith("## trainlint doctor: FAIL")
    assert "| verdict | input | format | points | loss |" in r.out
    row = next(x for x in r.out.splitlines() if str(logs["fail"]) in x and x.startswith("|"))
    assert "FAIL" in row and "→ NaN" in row
    assert "### Findings" in r.out and "**FAIL TL001** non-finite-loss (step 210)" in r.out


def test_sarif_validates_with_regions(cli, logs, bad_dataset):
    schema = json.loads((SCHEMAS / "sarif-schema-2.1.0.json").read_text())
    crash = ROOT / "tests" / "data" / "console" / "cuda_oom.out"
    r = cli("doctor", logs["fail"], logs["missing"], bad_dataset, crash, "--format", "sarif")
    sarif = r.json()
    jsonschema.Draft7Validator(schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER).validate(sarif)
    run = sarif["runs"][0]
    rules = {x["id"]: x for x in run["tool"]["driver"]["rules"]}
    assert rules["TL001"]["helpUri"].endswith("#tl001-non-finite-loss")
    assert "lower the learning rate" in rules["TL001"]["help"]["text"]
    by_rule = {x["ruleId"]: x for x in run["results"]}
    assert by_rule["TL001"]["properties"]["step"] == 210 and isinstance(by_rule["TL001"]["properties"]["step"], int)
    assert "region" not in by_rule["TL001"]["locations"][0]["physicalLocation"]
    data = by_rule["TL200"]["locations"][0]["physicalLocation"]
    assert data == {
        "artifactLocation": {"uri": str(bad_dataset)},
        "region": {"startLine": 31},
    }
    crash_res = by_rule["TL081"]["locations"][0]["physicalLocation"]
    line = by_rule["TL081"]["properties"]["evidence"]["line"]
    assert crash_res["region"]["startLine"] == line
    text = crash.read_text().splitlines()[line - 1]
    assert "Traceback" in text or "Error" in text, text


def test_output_files_keep_the_terminal_view(cli, logs, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    r = cli(
        "doctor",
        logs["fail"],
        "--output",
        out / "r.sarif",
        "-o",
        out / "junit.xml",
        "--output",
        out / "r.json",
        "--output",
        out / "s.md",
    )
    assert r.code == 1 and r.out.startswith("FAIL ")
    assert json.loads((out / "r.sarif").read_text())["version"] == "2.1.0"
    assert (out / "junit.xml").read_text().startswith('<?xml version="1.0"')
    assert json.loads((out / "r.json").read_text())["verdict"] == "FAIL"
    assert (out / "s.md").read_text().startswith("## trainlint doctor: FAIL")
    bad = cli("doctor", logs["fail"], "--output", out / "r.unknown")
    assert bad.code == 2 and "suffix" in bad.err
    gone = cli("doctor", logs["fail"], "--output", out / "no-such-folder" / "r.json")
    assert gone.code == 2 and gone.err.startswith("trainlint: cannot write ") and "Traceback" not in gone.err


def test_html_output_dispatches_to_the_html_renderer(monkeypatch, tmp_path):
    """--output x.html imports trainlint.report.html and calls render_html(result, stream)."""
    import sys
    import types

    from trainlint.report import format_for, render

    calls = []
    mod = types.ModuleType("trainlint.report.html")
    mod.render_html = lambda result, stream: calls.append(result) or stream.write("<html></html>")
    monkeypatch.setitem(sys.modules, "trainlint.report.html", mod)
    assert format_for("r.HTML") == "html"
    buf = io.StringIO()
    res = Result("doctor")
    render(res, "html", buf)
    assert calls == [res] and buf.getvalue() == "<html></html>"


# --- series, ckpt --tensors, tracker titles ------------------------------------------------------


def test_series_text_shows_range_min_max_and_sparkline(cli, logs):
    r = cli("series", logs["fail"])
    assert r.code == 0
    lines = r.out.splitlines()
    i = next(i for i, x in enumerate(lines) if x.startswith("  loss [loss]"))
    assert "40 points, steps 10-400, 20 non-finite" in lines[i]
    assert re.search(r"[▁▂▃▄▅▆▇█]+!+ +2\.8\d* → NaN +min 1\.0\d* @200 +max 2\.8\d* @10", lines[i + 1]), lines[i + 1]


def test_series_json_values(cli, logs):
    plain = cli("series", logs["pass"], "--format", "json").json()
    loss = next(s for s in plain["series"] if s["role"] == "loss")
    assert "values" not in loss and loss["first_step"] == 10 and loss["last_step"] == 400
    full = cli("series", logs["pass"], "--format", "json", "--values").json()
    loss = next(s for s in full["series"] if s["role"] == "loss")
    steps, values = loss["steps"], loss["values"]
    assert steps[:3] == [10, 20, 30] and len(values) == 40
    assert values[0] == pytest.approx(loss["start"]) and values[-1] == pytest.approx(loss["end"])
    assert loss["min"] == min(values) and steps[values.index(min(values))] == loss["min_step"]
    assert loss["max"] == max(values) and steps[values.index(max(values))] == loss["max_step"]


def test_series_on_a_folder_of_runs_asks_to_name_one(cli, tmp_path):
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        write_hf(tmp_path / name / "trainer_state.json", healthy())
    r = cli("series", tmp_path)
    assert r.code == 2 and "holds 2 runs; name one:" in r.out
    assert str(tmp_path / "a") in r.out and str(tmp_path / "b") in r.out


def test_ckpt_tensors_text_table(cli, tmp_path):
    import numpy as np

    st = pytest.importorskip("safetensors.numpy")
    tensors = {f"layer{i:02d}.weight": np.ones((2, 3), dtype=np.float32) for i in range(25)}
    tensors["layer00.weight"][0, 0] = np.nan
    st.save_file(tensors, str(tmp_path / "m.safetensors"))
    r = cli("ckpt", tmp_path / "m.safetensors", "--tensors")
    rows = r.out.splitlines()
    head = next(i for i, x in enumerate(rows) if x.split()[:4] == ["name", "dtype", "shape", "bytes"])
    first = rows[head + 1].split()
    assert first[:6] == ["layer00.weight", "float32", "2x3", "24", "1", "0"]
    assert "+5 more" in r.out


def test_mlflow_report_titled_by_experiment_and_run(cli, tmp_path):
    from _stores import _mlruns

    _mlruns(tmp_path)
    r = cli("doctor", tmp_path / "mlruns")
    assert "tiny/bright-owl-42 (01234567)  (mlflow-run" in r.out
    assert "0123456789abcdef0123456789abcdef  (" not in r.out
    data = cli("doctor", tmp_path / "mlruns", "--format", "json").json()
    assert data["reports"][0]["summary"]["title"] == "tiny/bright-owl-42 (01234567)"


# --- one run, one report ------------------------------------------------------------------------


def test_hf_output_folder_is_one_report(cli, tmp_path):
    root = _hf_output(tmp_path / "out")
    data = cli("doctor", root, "--format", "json").json()
    assert [r["source"] for r in data["reports"]] == [str(root)], [r["source"] for r in data["reports"]]
    rep = data["reports"][0]
    assert rep["kind"] == "log" and rep["summary"]["checkpoints"]["steps"] == [
        40,
        80,
        120,
    ]
    parts = [p["part"] for p in rep["summary"]["parts"]]
    assert "checkpoint-40/optimizer.pt" in parts
    # the copies in checkpoint-N are not judged again (the top-level one: as config and as pickle)
    assert {p for p in parts if p.endswith("training_args.bin")} == {"training_args.bin"}
    r = cli("doctor", root)
    block = blocks(r.out)[str(root)]
    assert "3 checkpoints (40, 80, 120): complete, tensors finite" in r.out
    assert not any("optimizer.pt" in x for x in block)
    v = cli("doctor", root, "-v")
    assert "part checkpoint-80/optimizer.pt: PASS" in v.out


def test_a_finding_in_one_checkpoint_file_shows_with_its_file(cli, tmp_path):
    root = _hf_output(tmp_path / "out")
    bad = root / "checkpoint-80" / "optimizer.pt"
    bad.write_bytes(bad.read_bytes()[:-200])  # cut short
    data = cli("doctor", root, "--format", "json").json()
    assert len(data["reports"]) == 1
    found = [f for f in data["reports"][0]["findings"] if f["evidence"].get("part") == "checkpoint-80/optimizer.pt"]
    assert found and found[0]["severity"] == "FAIL"
    assert data["reports"][0]["summary"]["checkpoints"]["with_findings"] == [80]
    r = cli("doctor", root)
    assert r.code == 1 and "[checkpoint-80/optimizer.pt]" in r.out
    assert "findings in checkpoint-80" in r.out
    gh = cli("doctor", root, "--format", "github").out
    assert f"file={root}/checkpoint-80/optimizer.pt" in gh


def test_wandb_report_titled_by_project_and_run(cli, tmp_path):
    from _stores import _real_wandb_folder

    folder = _real_wandb_folder(tmp_path)
    data = cli("doctor", folder, "--format", "json").json()
    assert data["reports"][0]["summary"]["title"] == "tiny (lpc857b6)"
    assert cli("doctor", folder).out.split("  ")[1] == "tiny (lpc857b6)"


def test_nested_hf_runs_stay_two_reports(cli, tmp_path):
    import shutil

    outer = _hf_output(tmp_path / "a")
    shutil.copytree(outer, tmp_path / "inner")
    shutil.move(str(tmp_path / "inner"), str(outer / "b"))
    data = cli("doctor", outer, "--format", "json").json()
    runs = {r["source"]: r for r in data["reports"]}
    assert set(runs) == {str(outer), str(outer / "b")}
    for run in runs.values():
        parts = [p["part"] for p in run["summary"]["parts"]]
        assert run["summary"]["checkpoints"]["steps"] == [40, 80, 120]
        assert "training_args.bin" in parts and not any(p.startswith("b/") for p in parts)


def test_ascii_stream_gets_ascii_sparklines(logs):
    from trainlint.api import doctor
    from trainlint.report import View
    from trainlint.report.text import render_text

    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding="cp1252", errors="strict")
    render_text(doctor([logs["fail"]]), stream, View())
    stream.flush()
    out = raw.getvalue().decode("cp1252")
    assert "loss " in out and "> NaN" in out and "▁" not in out


def test_an_output_format_is_one_row_of_the_table(monkeypatch, tmp_path):
    """A row added to report.OUTPUT_FORMATS (its module faked) shows up in the format list, the
    --output suffix map, render, and the --format choices and help of a judging command."""
    import importlib.machinery
    import sys
    import types

    import click
    from click.testing import CliRunner

    from trainlint import report
    from trainlint.cli import _common

    name = "trainlint.report.fake_tsv"
    mod = types.ModuleType(name)
    mod.__spec__ = importlib.machinery.ModuleSpec(name, None)
    mod.render_tsv = lambda result, stream: stream.write(f"verdict\t{result.verdict.value}\n")
    monkeypatch.setitem(sys.modules, name, mod)
    row = report.OutputFormat("tsv", "fake_tsv", "render_tsv", (".tsv",), "tsv (a tab-separated table)")
    monkeypatch.setattr(report, "OUTPUT_FORMATS", (*report.OUTPUT_FORMATS, row))

    assert report.FORMATS[-1] == "tsv" and report.format_names()[-1] == "tsv"
    assert report.SUFFIXES[".tsv"] == "tsv" and report.format_for("r.TSV") == "tsv"
    buf = io.StringIO()
    report.render(Result("doctor"), "tsv", buf)
    assert buf.getvalue() == "verdict\tPASS\n"

    @click.command()
    @_common.judging_options
    def judge(fmt, config, select, ignore, thresholds, role_map):
        _common.finish(Result("doctor"), fmt)

    run = CliRunner().invoke
    shown = " ".join(run(judge, ["--help"]).output.split())
    assert "[text|json|sarif|junit|github|markdown|html|concise|statistics|tsv]" in shown
    assert "(findings per rule), tsv (a tab-separated table)." in shown and ".htm=html .tsv)" in shown
    out = tmp_path / "r.tsv"
    got = run(judge, ["--format", "tsv", "--output", str(out)])
    assert got.exit_code == 0 and got.output == "verdict\tPASS\n" and out.read_text() == "verdict\tPASS\n"
    assert run(judge, ["--format", "csv"]).exit_code == 2  # not a row: not a choice
    monkeypatch.setattr(report, "OUTPUT_FORMATS", report.OUTPUT_FORMATS[:-1])
    assert run(judge, ["--output", str(out)]).exit_code == 2  # the row gone: its suffix unknown


def test_the_real_commands_offer_every_output_format(cli):
    from trainlint.report import OUTPUT_FORMATS

    shown = cli("doctor", "--help").out
    assert "[" + "|".join(f.name for f in OUTPUT_FORMATS) + "]" in shown.replace("\n", "").replace(" ", "")


def test_the_cause_leads_in_text_summary_json_and_page():
    """Issue 30 §4: a WARN that explains a FAIL (non-finite grad norms, TL003, before the
    divergence, TL010) comes first in the text view, the summary line, the JSON order, the
    page's findings (the order its markers are drawn in) and its first finding."""
    import numpy as np
    from _rulekit import make_run

    from trainlint.engine import judge_run
    from trainlint.report.html_data import page_data
    from trainlint.report.text import render_text

    n, rng = 60, np.random.default_rng(0)
    loss = np.r_[1.4 * np.exp(-np.arange(4) / 10), np.linspace(1.3, 7.2, n - 4)] * np.exp(rng.normal(0, 0.02, n))
    grad = 0.5 + rng.random(n) * 0.1
    grad[4], grad[9] = np.inf, np.nan
    run = make_run(loss, steps=np.arange(1, n + 1) * 5.0, grad_norm=grad, lr=np.full(n, 1e-4))
    result = Result("doctor", reports=[judge_run(run), Report("other.jsonl", "log")])
    assert [(f.code, f.severity.value) for f in result.reports[0].findings][:2] == [
        ("TL003", "WARN"),
        ("TL010", "FAIL"),
    ]
    out = io.StringIO()
    render_text(result, out)
    lines = out.getvalue().splitlines()
    shown = [x.split()[1] for x in lines if x.startswith(("  FAIL ", "  WARN "))]
    assert shown == ["TL003", "TL010"]
    summary = lines[lines.index("short summary") + 1]
    assert summary.startswith("FAIL made-up.jsonl: TL003 non-finite-grad-norm"), summary
    assert [f["code"] for f in result.to_dict()["reports"][0]["findings"]][:2] == ["TL003", "TL010"]
    page = next(r for r in page_data(result)["reports"] if r["source"] == "made-up.jsonl")
    assert [f["code"] for f in page["findings"]][:2] == ["TL003", "TL010"]
    assert page["first_finding"].startswith("TL003 ")
    assert "; first: made-up.jsonl: TL003 non-finite-grad-norm" in repr(result)


def test_compare_table_fits_the_width_in_blocks():
    """Issue 30 §5: the runs x metrics table fits 100 columns (or the width given): long run
    names clipped from the left, the metric columns that do not fit in a second block below,
    every run named in each block; nothing lost."""
    from trainlint.compare import METRICS
    from trainlint.report.compare import render_table_text

    cell = {"run": 0.0001234567, "baseline": 1.076041316, "ratio": 0.0283}
    rows = [
        {"source": f"/data/experiments/{'very-long-sweep-name-' * 3}{i}/trainer_state.json", "verdict": v, "cells": {}}
        for i, v in enumerate(("FAIL", "WARN", "PASS"))
    ]
    for r in rows:
        r["cells"] = {k: dict(cell) for k in METRICS}
    table = {"baseline": ["b.json"], "columns": {k: label for k, (label, _a) in METRICS.items()}, "rows": rows}
    for width in (100, 80):
        out = io.StringIO()
        render_table_text(table, out, width=width)
        lines = out.getvalue().splitlines()
        assert max(len(x) for x in lines) <= width, (width, max(lines, key=len))
        blocks = [b.splitlines() for b in out.getvalue().split("\n\n") if b.strip()]
        assert len(blocks) >= 2 and all(
            sum(x.startswith("…") and "name-2/trainer_state.json  PASS" in x for x in b) == 1 for b in blocks
        )
        heads = " ".join(b[-len(rows) - 2] for b in blocks)
        assert all(h in heads for h in ("floor", "end", "improved", "curve", "eval", "gnorm", "speed", "peak LR"))
        assert out.getvalue().count("0.0001235 (0.0283x)") == 3 * len(METRICS) - 3  # improvement shows %
