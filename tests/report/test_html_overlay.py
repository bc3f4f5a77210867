"""The page of many runs in a real headless Chromium: the overlay panels and the runs table
(issue 34). Skipped when Playwright or Chromium is absent, as test_html_browser.py is."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from _browser import PageWatch, browser_session, chromium_path
from _sweep import SWEEP, write_sweep

from trainlint.api import Options, doctor
from trainlint.report import render

sync_api = pytest.importorskip("playwright.sync_api")
if chromium_path() is None:
    pytest.skip("no chromium on this machine (apt-get install chromium)", allow_module_level=True)

RUNS = len(SWEEP)
NEXT_FRAME = "new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(1))))"


def _page(paths: list[Path], out: Path, command: str = "doctor") -> Path:
    buf = io.StringIO()
    render(doctor(paths, Options()), "html", buf)
    out.write_text(buf.getvalue(), encoding="utf-8")
    return out


browser = pytest.fixture(scope="module", name="browser")(browser_session)


@pytest.fixture(scope="module")
def sweep_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("sweep")
    write_sweep(root / "runs")
    return _page([root / "runs"], root / "report.html")


@pytest.fixture
def watched(browser, sweep_file: Path):
    w = PageWatch(browser)
    w.open(sweep_file)
    yield w
    assert w.errors == []  # no console errors in any test
    assert w.requests == [w.page.url]  # and no request but the page itself
    w.page.close()


def _plots(page, expr: str):
    return page.evaluate(
        f"(() => {{ const o = trainlintReport.overlay; return Object.keys(o.plots).map(k => [k, {expr}]); }})()"
    )


def test_overlay_and_runs_table_come_first_with_one_series_per_run(watched: PageWatch) -> None:
    page = watched.page
    order = page.evaluate(
        "[...document.querySelectorAll('[data-panel], #tl-index, section.tl-report')].map(n => n.dataset.panel || n.id)"
    )
    assert order[:2] == ["overlay", "runs"] and order[2].startswith("r")  # then each run's own section
    assert "tl-index" not in order  # every input is a run: the runs table lists them all, once
    assert page.evaluate("trainlintReport.overlay.plots.loss.series.slice(1).every(s => s.dash)")  # a few runs: dashed
    series = dict(_plots(page, "o.plots[k].series.filter(s => s.tlRid).map(s => s.tlRid)"))
    assert list(series) == ["loss", "eval_loss", "learning_rate", "grad_norm"]
    rids = page.evaluate("trainlintReport.data.reports.map(r => r.id)")
    for role, ids in series.items():
        assert sorted(ids) == sorted(rids), role  # every run once, on the same axes
    assert page.locator("[data-panel='runs'] tbody tr").count() == RUNS


def test_single_run_page_has_no_overlay(browser, tmp_path: Path) -> None:
    write_sweep(tmp_path / "runs", SWEEP[:1])
    w = PageWatch(browser)
    page = w.open(_page([tmp_path / "runs"], tmp_path / "one.html"))
    assert page.locator("[data-panel='overlay']").count() == 0 and page.locator("[data-panel='runs']").count() == 0
    assert page.evaluate("trainlintReport.overlay === undefined") and w.errors == []
    w.page.close()


def test_log_toggle_changes_the_tick_labels(watched: PageWatch) -> None:
    page = watched.page
    page.evaluate(NEXT_FRAME)
    linear = page.evaluate("trainlintReport.overlay.ticks('learning_rate')")
    button = page.locator("[data-role='learning_rate'] .tl-ov-log")
    button.click()
    page.evaluate(NEXT_FRAME)
    logged = page.evaluate("trainlintReport.overlay.ticks('learning_rate')")
    assert button.get_attribute("aria-pressed") == "true"
    assert logged != linear and any(t.startswith("1e-") for t in logged)  # powers of ten: 1e-4, 1e-3
    assert not any(t.startswith("1e-") for t in linear)
    assert page.evaluate("trainlintReport.overlay.plots.learning_rate.scales.y.distr") == 3
    assert page.evaluate("trainlintReport.overlay.plots.loss.scales.y.distr") == 1  # per panel
    button.click()
    page.evaluate(NEXT_FRAME)
    assert page.evaluate("trainlintReport.overlay.ticks('learning_rate')") == linear


def _column(page, key: str) -> list:
    return page.evaluate(
        f"[...document.querySelectorAll('[data-panel=runs] tbody tr')].map(tr => trainlintReport.data.reports.find(r => r.id === tr.dataset.rid).stats.{key})"
    )


def test_sorting_by_final_loss_orders_the_rows(watched: PageWatch) -> None:
    page = watched.page
    page.locator("[data-panel='runs'] th button[data-sort='final']").click()
    finals = _column(page, "final_loss")
    finite = [v for v in finals if v is not None]
    assert len(finite) == RUNS - 1 and finite == sorted(finite)
    assert finals[-1] is None  # the run that ends in NaN sorts as the worst
    page.locator("[data-panel='runs'] th button[data-sort='final']").click()
    finals = _column(page, "final_loss")
    assert finals[0] is None and [v for v in finals if v is not None] == sorted(finite, reverse=True)
    assert page.locator("[data-panel='runs'] th[aria-sort='descending'] button").inner_text().startswith("final loss")


def test_hovering_a_row_highlights_its_curve(watched: PageWatch) -> None:
    page = watched.page
    row = page.locator("[data-panel='runs'] tbody tr").nth(2)
    rid = row.get_attribute("data-rid")
    row.hover()
    lit = dict(_plots(page, "o.plots[k].series.filter(s => s.tlRid && s.alpha === 1).map(s => s.tlRid)"))
    assert all(ids == [rid] for ids in lit.values()), lit  # one curve per panel: the row's
    page.locator("h1").hover()
    lit = dict(_plots(page, "o.plots[k].series.filter(s => s.tlRid && s.alpha === 1).length"))
    assert all(n == RUNS for n in lit.values())


def test_clicking_a_row_opens_its_own_panels(watched: PageWatch) -> None:
    page = watched.page
    row = page.locator("[data-panel='runs'] tbody tr").first
    rid = row.get_attribute("data-rid")
    assert page.evaluate(f"trainlintReport.plots['{rid}'] === undefined")
    row.locator("td").nth(3).click()
    assert page.evaluate(f"trainlintReport.plots['{rid}'].length") >= 3
    box = page.locator(f"#{rid}").bounding_box()
    assert box is not None and -2 <= box["y"] < 900  # scrolled to


def test_filters_by_verdict_rule_code_and_name(watched: PageWatch) -> None:
    page = watched.page
    shown = "trainlintReport.overlay.visible()"
    page.locator(".tl-ov-code").fill("TL001")
    nan_run = page.evaluate("trainlintReport.data.reports.find(r => r.codes.includes('TL001')).id")
    assert page.evaluate(shown) == [nan_run]
    assert page.locator("[data-panel='runs'] tbody tr:visible").count() == 1
    assert page.evaluate("trainlintReport.overlay.plots.loss.series.filter(s => s.tlRid && s.show).length") == 1
    page.locator(".tl-ov-code").fill("")
    page.locator(".tl-chip[data-verdict='PASS']").click()
    assert len(page.evaluate(shown)) == 2  # the two FAIL runs
    page.locator(".tl-chip[data-verdict='PASS']").click()
    page.locator(".tl-ov-name").fill("lr1e-4")
    assert len(page.evaluate(shown)) == 2
    legend = page.locator(".tl-ov-legend li:visible").first
    legend.click()  # the legend hides one run
    assert len(page.evaluate(shown)) == 1


def test_hover_shows_run_step_and_value(watched: PageWatch) -> None:
    page = watched.page
    over = page.locator("[data-role='loss'] .u-over")
    over.scroll_into_view_if_needed()
    box = over.bounding_box()
    u = "trainlintReport.overlay.plots.loss"
    # the point of the diverged run at its last step: far from every other curve
    rid = page.evaluate("trainlintReport.data.reports.find(r => r.codes.includes('TL010')).id")
    x, y = page.evaluate(
        f"""(() => {{ const u = {u}, c = u.tl.runCol['{rid}'], col = u.data[c];
        let i = col.length - 1; while (col[i] == null) i--;
        return [u.valToPos(u.data[0][i], 'x'), u.valToPos(col[i], 'y')]; }})()"""
    )
    page.mouse.move(box["x"] + x - 2, box["y"] + y)
    tip = page.locator("#tl-tip")
    assert tip.is_visible()
    text = tip.inner_text()
    assert "lr3e-3-s0" in text and "step " in text and "loss " in text
    value = float(text.split("loss ")[1].split()[0])
    assert 5 < value < 7


def test_findings_are_marked_on_their_runs_curves(watched: PageWatch) -> None:
    page = watched.page
    marks = page.evaluate("trainlintReport.overlay.plots.loss.tl.marks.map(m => m.rid + ':' + m.i)")
    expected = page.evaluate(
        "trainlintReport.data.reports.flatMap(r => r.findings.map((f, i) => [f, r.id + ':' + i])).filter(p => p[0].step !== null).map(p => p[1])"
    )
    assert expected and sorted(marks) == sorted(expected)
    mark_y, curve_y = page.evaluate(
        """(() => { const u = trainlintReport.overlay.plots.loss, r = trainlintReport.data.reports.find(r => r.codes.includes('TL010'));
        const m = u.tl.marks.find(m => m.rid === r.id), f = r.findings[m.i], col = u.data[u.tl.runCol[r.id]];
        const i = u.data[0].indexOf(f.step);
        return [u.posToVal(m.y - u.bbox.top / devicePixelRatio, 'y'), col[i]]; })()"""
    )
    assert mark_y == pytest.approx(curve_y, rel=0.02)  # on its own curve, at its step


def test_x_axis_switches_to_epoch_and_says_so(watched: PageWatch) -> None:
    page = watched.page
    assert page.evaluate("trainlintReport.overlay.plots.loss.axes[0].label") == "step"
    steps_hi = page.evaluate("trainlintReport.overlay.plots.loss.data[0].at(-1)")
    page.locator(".tl-ov-axis").select_option("epoch")
    assert page.evaluate("trainlintReport.overlay.plots.loss.axes[0].label") == "epoch"
    epochs_hi = page.evaluate("trainlintReport.overlay.plots.loss.data[0].at(-1)")
    assert steps_hi == 400 and epochs_hi == pytest.approx(2.0)  # runs of 300 and 400 steps both end at epoch 2


def test_smoothing_changes_the_drawn_values(watched: PageWatch) -> None:
    page = watched.page
    raw = page.evaluate("trainlintReport.overlay.plots.loss.data[1].slice()")
    page.locator(".tl-ov-smooth").fill("0.9")
    smooth = page.evaluate("trainlintReport.overlay.plots.loss.data[1].slice()")
    assert len(raw) == len(smooth) and raw != smooth
    assert raw[0] == smooth[0]  # the debiased average starts at the first value


def test_compare_draws_the_baseline_band_under_the_runs(browser, tmp_path: Path) -> None:
    from trainlint.api import build_options, compare

    write_sweep(tmp_path / "runs")
    runs = [tmp_path / "runs" / n for n in ("lr3e-4-s0", "lr3e-3-s0", "lr1e-2-s0")]
    base = [tmp_path / "runs" / n for n in ("lr1e-4-s0", "lr1e-4-s1")]
    result = compare(base, runs, build_options())
    buf = io.StringIO()
    render(result, "html", buf)
    out = tmp_path / "cmp.html"
    out.write_text(buf.getvalue(), encoding="utf-8")
    w = PageWatch(browser)
    page = w.open(out)
    labels = page.evaluate("trainlintReport.overlay.plots.loss.series.map(s => s.label)")
    assert labels[1:3] == ["baseline max", "baseline min"] and labels[3].startswith("baseline band (2 runs)")
    assert page.evaluate("trainlintReport.overlay.plots.loss.bands.length") == 1
    assert len([s for s in labels[4:]]) == 3  # the runs, drawn after (above) the band
    assert w.errors == [] and w.requests == [w.page.url]
    w.page.close()


def test_a_page_of_many_runs_builds_what_is_seen(browser, tmp_path: Path) -> None:
    import numpy as np

    from trainlint.engine import judge_run
    from trainlint.model import Run, Series
    from trainlint.verdict import Result

    steps = np.arange(1, 61, dtype=np.float64)
    reports = []
    for i in range(250):
        run = Run(source=f"sweep/t{i:03d}/metrics.jsonl", format="jsonl")
        run.series["loss"] = Series("loss", steps, 1.0 + (1 + i / 250) / steps)
        reports.append(judge_run(run))
    buf = io.StringIO()
    render(Result(command="doctor", reports=reports), "html", buf)
    (tmp_path / "many.html").write_text(buf.getvalue(), encoding="utf-8")
    w = PageWatch(browser)
    page = w.open(tmp_path / "many.html")
    assert page.evaluate("trainlintReport.overlay.plots.loss.series.length") == 251
    # past 50 runs the curves are solid hairlines (dashes cost the canvas most) and each ends in its verdict's shape
    assert page.evaluate("trainlintReport.overlay.plots.loss.series.slice(1).every(s => !s.dash && s.width === 1)")
    assert "the shape at each curve’s end" in page.locator(".tl-ov-help").inner_text()
    rows = page.locator("[data-panel='runs'] tbody tr")
    assert rows.count() == 200  # the first 200 in the sorted order; the others made when asked for
    more = page.locator(".tl-ov-more")
    assert more.inner_text() == "show all 250 runs"
    shells = "document.querySelectorAll('section.tl-report.tl-shell').length"
    assert page.evaluate(shells) == 250  # the sections below the table: not built until near the view
    first = page.evaluate("trainlintReport.data.reports[0].id")
    page.locator(f"#{first}").scroll_into_view_if_needed()
    page.wait_for_function(f"trainlintReport.plots['{first}'] !== undefined")
    assert 0 < page.evaluate(shells) < 250
    last = page.evaluate("trainlintReport.data.reports.at(-1).id")
    assert page.evaluate(f"document.getElementById('{last}').classList.contains('tl-shell')")
    assert page.locator(".tl-ov-legend li").count() == 60 and "and 190 more" in page.locator(".tl-overlay").inner_text()
    more.click()
    assert rows.count() == 250 and not more.is_visible()
    page.locator(f"[data-panel='runs'] tbody tr[data-rid='{last}'] td").nth(2).click()  # opens its own panels
    assert not page.evaluate(f"document.getElementById('{last}').classList.contains('tl-shell')")
    assert page.evaluate(f"trainlintReport.plots['{last}'].length") == 1
    assert page.locator(f"#{last} .tl-checks-box").count() == 1
    assert w.errors == [] and w.requests == [w.page.url]
    w.page.close()


def test_live_page_keeps_the_view_across_its_reloads(browser, tmp_path: Path) -> None:
    """watch --output --reload: the filter, the log scale, the sort and a hidden panel a reader
    chose survive the page reloading itself (they used to reset on every reload)."""
    from trainlint.report.html import write_page

    write_sweep(tmp_path / "runs")
    out = tmp_path / "live.html"
    write_page(doctor([tmp_path / "runs"], Options()), out, reload=2)
    w = PageWatch(browser)
    page = w.open(out)
    page.locator(".tl-ov-code").fill("TL0")
    page.locator("[data-role='loss'] .tl-ov-log").click()
    page.evaluate("trainlintReport.overlay.sortBy('final', -1)")
    page.locator(".tl-ov-pick input[value='grad_norm']").uncheck()
    chosen = page.evaluate("trainlintReport.overlay.visible()")
    assert 0 < len(chosen) < RUNS
    with page.expect_event("load", timeout=10000):
        pass  # the page reloads itself
    page.wait_for_function("window.trainlintReport && window.trainlintReport.ready", timeout=20000)
    assert page.evaluate("trainlintReport.overlay.visible()") == chosen
    assert page.locator(".tl-ov-code").input_value() == "TL0"
    assert page.evaluate("trainlintReport.overlay.state.log.loss") is True
    assert page.evaluate("trainlintReport.overlay.plots.loss.scales.y.distr") == 3
    assert page.evaluate("trainlintReport.overlay.state.sort") == {"key": "final", "dir": -1}
    assert page.evaluate("trainlintReport.overlay.plots.grad_norm === undefined")
    assert w.errors == []
    page.close()
