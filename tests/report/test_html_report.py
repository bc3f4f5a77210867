"""The HTML report's data block and page, without a browser (see test_html_browser.py for that).

The golden file pins which series and which markers the page draws for the bundled examples;
rewrite it with ``TRAINLINT_UPDATE_GOLDEN=1 pytest tests/report/test_html_report.py`` after a deliberate change.
"""

from __future__ import annotations

import io
import json
import math
import os
import re
from pathlib import Path

import numpy as np
import pytest

from trainlint.api import Options, doctor
from trainlint.compare.align import align
from trainlint.compare.curves import comparison_curves
from trainlint.model import Run, Series
from trainlint.report import render
from trainlint.report.html import notebook_html, page
from trainlint.report.html_data import encode, finding_range, page_data
from trainlint.verdict import Finding, Report, Result, Severity

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden" / "html_examples.json"


def data_block(html: str) -> dict:
    m = re.search(r'<script type="application/json" id="tl-data">(.*?)</script>', html, re.DOTALL)
    assert m, "no data block"
    return json.loads(m.group(1))


def structure(data: dict) -> dict:
    """What the golden file pins: per report, its panels' series and the markers drawn."""
    out = {
        "verdict": data["verdict"],
        "exit_code": data["exit_code"],
        "counts": data["counts"],
        "reports": [],
    }
    for r in data["reports"]:
        out["reports"].append(
            {
                "source": r["source"],
                "verdict": r["verdict"],
                "kind": r["kind"],
                "format": r["format"],
                "points": r["points"],
                "sparkline": r["sparkline"],
                "panels": {
                    p["id"]: [
                        {
                            "role": s["role"],
                            "kind": s["kind"],
                            "name": s["name"],
                            "points": s["points"],
                            "drawn": len(s["values"]),
                            "nonfinite": len(s["nonfinite"]),
                        }
                        for s in p["series"]
                    ]
                    for p in r["panels"]
                },
                "markers": [
                    {
                        "code": f["code"],
                        "severity": f["severity"],
                        "step": f["step"],
                        "range": f["range"],
                    }
                    for f in r["findings"]
                ],
                "marks": r["marks"],
            }
        )
    return out


@pytest.fixture
def examples_page(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.chdir(ROOT)
    buf = io.StringIO()
    render(doctor([Path("examples")], Options()), "html", buf)
    return buf.getvalue()


def test_golden_structure_of_examples(examples_page: str) -> None:
    got = structure(data_block(examples_page))
    if os.environ.get("TRAINLINT_UPDATE_GOLDEN"):
        GOLDEN.write_text(json.dumps(got, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    assert got == json.loads(GOLDEN.read_text(encoding="utf-8"))


def test_page_is_self_contained(examples_page: str) -> None:
    assert "<script src" not in examples_page and "<link" not in examples_page
    assert "@import" not in examples_page and not re.search(r"url\(\s*['\"]?(https?:)?//", examples_page)
    assert examples_page.count("<script") == 3  # data, uPlot, page script
    assert "uPlot" in examples_page and "trainlintReport" in examples_page


def test_index_order_counts_and_exit_code(examples_page: str) -> None:
    data = data_block(examples_page)
    order = {"FAIL": 0, "NOT-CHECKED": 1, "WARN": 2, "PASS": 3}
    verdicts = [r["verdict"] for r in data["reports"]]
    assert verdicts == sorted(verdicts, key=order.__getitem__)
    assert data["counts"] == {"FAIL": 3, "NOT-CHECKED": 0, "WARN": 0, "PASS": 1}
    assert data["exit_code"] == 1 and data["verdict"] == "FAIL"
    diverged = next(r for r in data["reports"] if "plain-diverged" in r["source"])
    assert diverged["first_finding"].startswith("TL010 ")
    assert "!" in next(r for r in data["reports"] if "lightning-nan" in r["source"])["sparkline"]


def _result(*reports: Report) -> Result:
    return Result(command="doctor", reports=list(reports))


def test_order_puts_not_checked_between_fail_and_warn() -> None:
    warn = Report("w", "log", findings=[Finding("TL031", "x", "c", Severity.WARN, "m")])
    fail = Report("f", "log", findings=[Finding("TL001", "x", "c", Severity.FAIL, "m")])
    data = page_data(_result(Report("p", "log"), warn, Report("n", "log", unjudged="why"), fail))
    assert [r["source"] for r in data["reports"]] == ["f", "n", "w", "p"]
    assert data["exit_code"] == 1


def test_hostile_source_cannot_close_the_data_script() -> None:
    evil = "</script><script>alert(1)</script>"
    html = page(_result(Report(evil, "log", unjudged="x")))
    assert html.count("<script") == 3
    assert data_block(html)["reports"][0]["source"] == evil


def _f(step: float | None = None, **ev: object) -> Finding:
    return Finding("TL000", "x", "c", Severity.WARN, "m", dict(ev), step)


def test_finding_range_from_evidence_keys() -> None:
    assert finding_range(_f(10, start_step=10, end_step=40)) == [10, 40]
    assert finding_range(_f(60, best_step=60, steps_past_best=139)) == [60, 199]
    assert finding_range(_f(5, best_step=5, last_step=50)) == [5, 50]
    assert finding_range(_f(90, tail_start_step=70)) == [70, 90]
    assert finding_range(_f(899, first_step=899, non_finite_to_end=True), last_step=1199) == [899, 1199]
    assert finding_range(_f(899, first_step=899)) is None  # a start alone is a marker, not a band
    assert finding_range(_f(3, start_step=float("nan"), end_step=9)) is None
    assert finding_range(_f(3)) is None


def test_encode_keeps_nonfinite_apart_and_deltas_decode() -> None:
    steps, values, bad = encode([10, 20, 35, 50], [1.0, float("nan"), "Infinity", 0.1234567891])
    assert values == [1.0, None, None, 0.123457]
    assert bad == [20, 35]
    assert list(np.cumsum(steps)) == [10, 20, 35, 50]


def _run(source: str, n: int, level: float, max_steps: int | None = None) -> Run:
    steps = np.arange(1, n + 1, dtype=np.float64)
    run = Run(
        source=source,
        format="jsonl",
        series={"loss": Series("loss", steps, level + 1.0 / steps)},
    )
    if max_steps:
        run.meta["max_steps"] = max_steps
    return run


def test_comparison_curves_one_baseline_on_fraction_axis() -> None:
    run, base = _run("run", 1000, 1.0, 1000), _run("base", 300, 1.0, 300)
    al = align(run, [base])
    assert al.mode == "fraction"
    curves = comparison_curves(run, [base], al)
    b = curves["baseline:loss"]
    assert b["runs"] == 1 and b["points"] == 300
    assert math.isclose(b["steps"][-1], 1000.0) and math.isclose(b["steps"][0], 1000 / 300)


def test_comparison_curves_band_of_several_baselines() -> None:
    run = _run("run", 200, 1.0)
    bases = [_run(f"b{i}", 200, 1.0 + 0.1 * i) for i in range(3)]
    b = comparison_curves(run, bases, align(run, bases))["baseline:loss"]
    assert b["runs"] == 3
    lo, mid, hi = (np.asarray(b[k]) for k in ("lo", "values", "hi"))
    assert np.all(lo <= mid) and np.all(mid <= hi) and np.allclose(hi - lo, 0.2)


def test_compare_page_carries_the_baseline(tmp_path: Path, cli) -> None:
    ev = ROOT / "evidence"
    out = cli(
        "compare",
        str(ev / "hf-healthy-s0"),
        str(ev / "hf-lr_hot-s0"),
        "--baseline",
        str(ev / "hf-healthy-s1"),
        "--format",
        "html",
    )
    assert out.code == 1
    data = data_block(out.out)
    rep = data["reports"][0]
    assert rep["kind"] == "comparison"
    loss = next(p for p in rep["panels"] if p["id"] == "loss")
    base = next(s for s in loss["series"] if s["kind"] == "baseline")
    assert base["runs"] == 2 and "lo" in base and "hi" in base
    assert data["table"]["rows"][0]["verdict"] == "FAIL"
    # each finding says whether the run alone or the run against the baseline raised it
    labels = {(f["origin"], f["origin_label"]) for f in rep["findings"]}
    assert labels == {("run", "alone"), ("baseline", "vs baseline")}


def test_doctor_cli_html(cli) -> None:
    out = cli("doctor", str(ROOT / "examples" / "plain-diverged"), "--format", "html")
    assert out.code == 1
    rep = data_block(out.out)["reports"][0]
    assert [f["range"] for f in rep["findings"]] == [[60, 199]]
    assert {p["id"] for p in rep["panels"]} == {"loss", "learning_rate"}


def test_notebook_repr_is_the_same_page_in_an_iframe(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(ROOT)
    import trainlint  # the package facade's doctor loads the page renderer for Jupyter

    result = trainlint.doctor([Path("examples/plain-diverged")], Options())
    shown = result._repr_html_()
    assert shown.startswith("<iframe srcdoc=") and 'sandbox="allow-scripts"' in shown
    srcdoc = re.search(r'srcdoc="(.*?)"', shown, re.DOTALL).group(1)
    import html as _html

    assert _html.unescape(srcdoc) == page(result)
    assert notebook_html(result) == shown


def test_vendored_assets_and_licence_ship() -> None:
    vendor = ROOT / "src" / "trainlint" / "report" / "vendor"
    assert "MIT License" in (vendor / "uPlot.LICENSE").read_text()
    for name in ("uPlot.iife.min.js", "uPlot.min.css"):
        assert "</script" not in (vendor / name).read_text().lower()
    assert "</script" not in (ROOT / "src" / "trainlint" / "report" / "page" / "page.js").read_text().lower()


def test_values_are_written_in_units_of_their_scale() -> None:
    from trainlint.report.html_data import series_data

    s = series_data(
        "learning_rate",
        "run",
        {"name": "lr", "steps": [1, 2, 3], "values": [3e-4, 1.23456e-5, "NaN"]},
    )
    assert s["exp"] == -4 and s["values"] == [3, 0.1235, None] and s["nonfinite"] == [3]
    loss = series_data("loss", "run", {"name": "loss", "steps": [1, 2], "values": [2.3456789, 0.5]})
    assert loss["exp"] == 0 and loss["values"] == [2.3457, 0.5]


def test_best_model_checkpoint_is_marked() -> None:
    from trainlint.engine import judge_run

    run = _run("r", 300, 1.0)
    run.meta["best_model_checkpoint"] = "out/checkpoint-120"
    rep = page_data(_result(judge_run(run)))["reports"][0]
    assert {
        "kind": "best_checkpoint",
        "step": 120,
        "label": "best-model checkpoint out/checkpoint-120",
    } in rep["marks"]
    run.meta["best_global_step"] = 150
    assert page_data(_result(judge_run(run)))["reports"][0]["marks"][0]["step"] == 150


def test_baseline_curve_named_after_the_baseline_that_has_the_role() -> None:
    run = _run("run", 200, 1.0)
    run.series["grad_norm"] = Series("grad_norm", np.arange(1, 201.0), np.ones(200))
    without, with_gn = _run("b0", 200, 1.0), _run("b1", 200, 1.0)
    with_gn.series["gn"] = Series("gn", np.arange(1, 201.0), np.ones(200))
    with_gn.roles["grad_norm"] = "gn"
    curves = comparison_curves(run, [without, with_gn], align(run, [without, with_gn]))
    assert curves["baseline:grad_norm"]["name"] == "baseline gn" and curves["baseline:loss"]["runs"] == 2


def test_runs_table_numbers_come_from_the_whole_curves() -> None:
    from trainlint.engine import judge_run

    run = _run("r", 3000, 1.0)
    run.series["eval_loss"] = Series("eval_loss", np.array([500.0, 1000, 1500]), np.array([2.0, 1.5, 1.7]))
    run.series["loss"].values[-1] = np.nan
    stats = page_data(_result(judge_run(run)))["reports"][0]["stats"]
    assert stats["final_loss"] is None and stats["final_finite"] is False  # ends in NaN
    assert stats["best_loss"] == pytest.approx(1.0 + 1 / 2999) and stats["steps"] == 3000
    assert stats["best_eval"] == 1.5 and stats["best_eval_step"] == 1000


def test_other_x_axes_travel_with_the_curves() -> None:
    from trainlint.engine import judge_run

    run = _run("r", 100, 1.0)
    run.series["epoch"] = Series("epoch", np.arange(1, 101.0), np.arange(1, 101.0) / 50)
    run.series["num_input_tokens_seen"] = Series(
        "num_input_tokens_seen", np.arange(1, 101.0), np.arange(1, 101.0) * 4096
    )
    rep = page_data(_result(judge_run(run)))["reports"][0]
    assert sorted(rep["axes"]) == ["epoch", "tokens"]
    tokens = rep["axes"]["tokens"]
    assert np.cumsum(tokens["dsteps"])[-1] == 100 and tokens["values"][-1] * 10 ** tokens["exp"] == 409600
    run.series["wall_time"] = Series("wall_time", np.arange(1, 101.0), 1.7e9 + np.arange(100.0))
    assert judge_run(run).curves["x:time"]["values"][:2] == [0.0, 1.0]  # seconds from the first record
    run.meta["clock"] = "watcher"  # a watcher's polls are not the run's clock
    assert "x:time" not in judge_run(run).curves


def test_a_page_of_many_runs_draws_fewer_points_per_series() -> None:
    from trainlint.engine import judge_run
    from trainlint.report.html_data import MIN_POINTS, points_cap

    reports = [judge_run(_run(f"r{i}", 2000, 1.0 + i)) for i in range(3)]
    assert points_cap(reports) is None  # a few runs keep the engine's curves
    assert points_cap(reports * 400) == 500 and points_cap(reports * 4000) == MIN_POINTS
    from trainlint.report.html_data import panels

    drawn = panels(reports[0].curves, MIN_POINTS)[0]["series"][0]
    assert len(drawn["values"]) <= MIN_POINTS and drawn["points"] == 2000
    full = panels(reports[0].curves)[0]["series"][0]
    assert min(full["values"]) == min(drawn["values"])  # the extremes survive the thinning


def test_write_page_replaces_the_page_whole_or_not_at_all(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from trainlint.report import html as html_mod

    out = tmp_path / "live.html"
    html_mod.write_page(_result(Report("a", "log")), out, reload=5)
    first = out.read_text()
    assert data_block(first)["reload"] == 5 and [p.name for p in tmp_path.iterdir()] == ["live.html"]

    def fail(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(html_mod.os, "replace", fail)
    with pytest.raises(OSError):
        html_mod.write_page(_result(Report("b", "log")), out)
    assert out.read_text() == first and [p.name for p in tmp_path.iterdir()] == ["live.html"]  # no temp left


def _jsonl(path: Path, n: int, skip: range = range(0)) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f'{{"step": {s}, "loss": {2.0 / s}}}\n' for s in range(1, n + 1) if s not in skip))
    return path


def _recovered_run(folder: Path) -> Path:
    """A 100-step log whose guard rolled it back at step 60 to step 50 (TL089's NOTE)."""
    log = _jsonl(folder / "metrics.jsonl", 100)
    record = {
        "trainlint_guard": 1,
        "time": 0,
        "type": "recovery",
        "outcome": "recovered",
        "code": "TL001",
        "fault_step": 60,
        "restored_step": 50,
        "skipped_steps": list(range(51, 61)),
        "attempt": 1,
    }
    start = {"trainlint_guard": 1, "type": "start", "time": 0}
    (folder / "trainlint-guard.jsonl").write_text(json.dumps(start) + "\n" + json.dumps(record) + "\n")
    return log


def _comparison() -> Report:
    """A comparison report with one finding of the run judged alone and one against the baseline."""

    def fnd(code: str, origin: str | None) -> Finding:
        return Finding(code, "n", "c", Severity.WARN, f"{code} says", step=5, origin=origin)

    return Report(
        source="run", kind="comparison", format="compare", findings=[fnd("TL010", "run"), fnd("TL200", "baseline")]
    )


def test_a_short_log_carries_its_scope(tmp_path: Path) -> None:
    """A log too short for the trend rules: its page report says what the verdict rests on."""
    short = _jsonl(tmp_path / "short" / "m.jsonl", 12)
    long = _jsonl(tmp_path / "long" / "m.jsonl", 80)
    data = page_data(doctor([short, long], Options()))
    scope = {Path(r["source"]).parent.name: r["scope"] for r in data["reports"]}
    assert scope == {"short": "on 12 points: trend rules need 20", "long": None}


def test_an_interrupted_run_says_so_on_the_page() -> None:
    reports = [Report(source="a.jsonl", kind="log", format="jsonl")]
    stopped = Result("doctor", reports, interrupted=15)
    data = page_data(stopped)
    assert data["interrupted"] == "interrupted by SIGTERM: only the 1 report(s) judged before the stop are shown"
    assert "<title>trainlint doctor: PASS (interrupted)</title>" in page(stopped)
    whole = Result("doctor", reports)
    assert page_data(whole)["interrupted"] is None and "(interrupted)" not in page(whole)


def test_comparison_findings_carry_their_origin() -> None:
    data = page_data(Result("compare", [_comparison()]))
    found = [(f["code"], f["origin"], f["origin_label"]) for f in data["reports"][0]["findings"]]
    assert found == [("TL010", "run", "alone"), ("TL200", "baseline", "vs baseline")]
    plain = Report(source="a", kind="log", findings=[Finding("TL010", "n", "c", Severity.WARN, "m")])
    assert "origin_label" not in page_data(Result("doctor", [plain]))["reports"][0]["findings"][0]


def test_a_recovery_note_is_a_finding_at_the_fault_step(tmp_path: Path) -> None:
    """TL089 (a run the guard rolled back): a finding like any other, at the fault step, its
    band the rolled-back window; the discarded steps are not drawn."""
    log = _recovered_run(tmp_path / "run")
    data = page_data(doctor([log], Options()))
    rep = next(r for r in data["reports"] if r["source"] == str(log))
    note = next(f for f in rep["findings"] if f["code"] == "TL089")
    assert (note["severity"], note["step"], note["range"]) == ("NOTE", 60, [50, 60])
    loss = next(s for p in rep["panels"] if p["id"] == "loss" for s in p["series"] if s["kind"] == "run")
    steps = np.cumsum(loss["dsteps"])
    assert 50 in steps and 61 in steps and not set(range(51, 61)) & set(steps.tolist())
