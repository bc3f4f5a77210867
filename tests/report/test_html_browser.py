"""The HTML report in a real headless Chromium (Playwright driving the system ``chromium``).

Skipped when Playwright or Chromium is absent; .ci/run installs Chromium where it can."""

from __future__ import annotations

import io
import struct
import zlib
from pathlib import Path

import pytest
from _browser import PageWatch, browser_session, chromium_path

from trainlint.api import Options, doctor
from trainlint.report import render

sync_api = pytest.importorskip("playwright.sync_api")
if chromium_path() is None:
    pytest.skip(
        "no chromium on this machine (apt-get install chromium)",
        allow_module_level=True,
    )

ROOT = Path(__file__).resolve().parents[2]


browser = pytest.fixture(scope="module", name="browser")(browser_session)


@pytest.fixture(scope="module")
def examples_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import os

    here = os.getcwd()
    os.chdir(ROOT)
    try:
        buf = io.StringIO()
        render(doctor([Path("examples")], Options()), "html", buf)
    finally:
        os.chdir(here)
    out = tmp_path_factory.mktemp("html") / "report.html"
    out.write_text(buf.getvalue(), encoding="utf-8")
    return out


@pytest.fixture
def watched(browser, examples_file: Path):
    w = PageWatch(browser)
    w.open(examples_file)
    yield w
    w.page.close()


def _rid(page, needle: str) -> str:
    return page.evaluate(f"trainlintReport.data.reports.find(r => r.source.includes({needle!r})).id")


def test_loads_without_errors_or_network(watched: PageWatch) -> None:
    page = watched.page
    page.evaluate("trainlintReport.data.reports.forEach(r => trainlintReport.ensure(r.id))")
    page.wait_for_timeout(200)
    assert watched.errors == []
    assert watched.requests == [watched.page.url]
    # the four runs are listed once: in the runs table of the overlay, not again in the index
    assert page.locator("[data-panel='runs'] tbody tr").count() == 4 and page.locator("#tl-index").count() == 0
    assert page.locator("[data-panel='runs'] tbody tr").first.locator("a").get_attribute("href").startswith("#r")


def test_plotted_points_match_the_data_block(watched: PageWatch) -> None:
    rows = watched.page.evaluate("""() => trainlintReport.data.reports.filter(r => r.panels.length).map(r => {
        const plots = trainlintReport.ensure(r.id);
        return r.panels.map((p, i) => {
          const run = p.series.find(s => s.kind === 'run');
          return [r.id, p.id, run.values.filter(v => v !== null).length,
                  plots[i].data[1].filter(v => v !== null && v !== undefined).length, plots[i].series.length];
        });
      }).flat()""")
    assert len(rows) == 12  # 3 + 3 + 2 + 4 panels over the four examples
    for rid, panel, expected, plotted, _n in rows:
        assert plotted == expected, (rid, panel)


def _png_distinct_pixels(png: bytes) -> int:
    """How many different RGB(A) pixels an 8-bit PNG holds (no image library needed)."""
    pos, idat, width, height, channels = 8, b"", 0, 0, 4
    while pos < len(png):
        length, kind = struct.unpack(">I4s", png[pos : pos + 8])
        body = png[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            width, height, _depth, colour = struct.unpack(">IIBB", body[:10])
            channels = {2: 3, 6: 4}[colour]
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw, stride, prev, seen = (
        zlib.decompress(idat),
        width * channels,
        bytearray(width * channels),
        set(),
    )
    for y in range(height):
        ftype, line = (
            raw[y * (stride + 1)],
            bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)]),
        )
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b, c = prev[i], prev[i - channels] if i >= channels else 0
            pred = [0, a, b, (a + b) // 2, _paeth(a, b, c)][ftype]
            line[i] = (line[i] + pred) & 0xFF
        seen.update(bytes(line[i : i + channels]) for i in range(0, stride, channels))
        prev = line
    return len(seen)


def _paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else b if pb <= pc else c


def test_panels_are_drawn_not_blank(watched: PageWatch) -> None:
    page = watched.page
    rid = _rid(page, "plain-diverged")
    page.evaluate(f"trainlintReport.ensure('{rid}')")
    panel = page.locator(f"#{rid}-panels .tl-panel").first
    panel.scroll_into_view_if_needed()
    assert _png_distinct_pixels(panel.screenshot()) > 20
    blank = PageWatch(page.context.browser)
    blank.page.set_content("<div style='width:300px;height:100px;background:#fff'></div>")
    assert _png_distinct_pixels(blank.page.locator("div").screenshot()) <= 2  # the measure can say "blank"
    blank.page.close()


def test_hovering_a_marker_shows_its_message(watched: PageWatch) -> None:
    page = watched.page
    rid = _rid(page, "plain-diverged")
    page.evaluate(f"trainlintReport.ensure('{rid}')")
    marker = page.locator(f"#{rid}-panels .tl-mark[data-finding='{rid}:0']").first
    marker.scroll_into_view_if_needed()
    tip = page.locator("#tl-tip")
    assert not tip.is_visible()
    marker.hover()
    assert tip.is_visible()
    message = page.evaluate(f"trainlintReport.data.reports.find(r => r.id === '{rid}').findings[0].message")
    assert message in tip.inner_text() and "best_step: 60" in tip.inner_text()


def test_clicking_a_finding_zooms_every_panel_to_its_range(watched: PageWatch) -> None:
    page = watched.page
    rid = _rid(page, "lightning-nan")
    page.evaluate(f"trainlintReport.ensure('{rid}')")
    full = page.evaluate(f"trainlintReport.plots['{rid}'].map(u => [u.scales.x.min, u.scales.x.max])")
    page.locator(f"li[data-finding='{rid}:0']").click()
    # uPlot applies a scale in a later task: wait for it (a fixed pause flaked under load), polling on a
    # timer rather than on animation frames (which a page the browser deems hidden may not get), and
    # failing after 30 s when no panel ever zooms
    page.wait_for_function(
        f"trainlintReport.plots['{rid}'].every(u => u.scales.x.min > {full[0][0]})", polling=50, timeout=30_000
    )
    zoomed = page.evaluate(f"trainlintReport.plots['{rid}'].map(u => [u.scales.x.min, u.scales.x.max])")
    lo, hi = 899, 1199  # TL001: NaN from step 899 to the end
    assert len(zoomed) == 3 and all(z == zoomed[0] for z in zoomed)  # one step axis
    zmin, zmax = zoomed[0]
    assert zmin <= lo < hi <= zmax and zmin > full[0][0] and (zmax - zmin) < (full[0][1] - full[0][0]) * 0.5
    box = page.locator(f"#{rid}-panels").bounding_box()
    assert box is not None and box["y"] < 900  # scrolled into view
    page.locator(f"#{rid} .tl-zoombar button").click()
    assert page.evaluate(f"trainlintReport.plots['{rid}'][0].scales.x.min") == full[0][0]


def test_dark_scheme_and_print_stylesheet(browser, examples_file: Path) -> None:
    w = PageWatch(browser, color_scheme="dark")
    page = w.open(examples_file)
    bg = page.evaluate("getComputedStyle(document.documentElement).backgroundColor")
    assert bg == "rgb(21, 24, 29)"
    page.emulate_media(media="print")
    assert page.locator(".tl-zoombar").first.is_hidden()
    assert w.errors == []
    w.page.close()


def test_severity_is_not_colour_alone(watched: PageWatch) -> None:
    texts = watched.page.locator(".tl-finding .tl-badge").all_inner_texts()
    assert texts and all(t.split()[0] in "▲◆●" and t.split()[1] in ("FAIL", "WARN", "NOTE") for t in texts)


def test_notebook_repr_renders_inside_its_iframe(browser, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    import trainlint  # the package facade's doctor loads the page renderer for Jupyter

    shown = trainlint.doctor([Path("examples/plain-diverged")], Options())._repr_html_()
    w = PageWatch(browser)
    w.page.set_content(f"<html><body><h1>notebook</h1>{shown}</body></html>")
    frame = w.page.frame_locator("iframe")
    frame.locator(".tl-finding").first.wait_for()
    assert "TL010" in frame.locator(".tl-finding").first.inner_text()
    assert frame.locator(".tl-panel canvas").count() >= 2
    assert w.errors == []
    w.page.close()


@pytest.fixture(scope="module")
def stopped_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A page of a doctor run stopped by SIGTERM: a short log, a run the guard rolled back, and a
    comparison report whose findings come from the run alone and from the baseline."""
    from test_html_report import _comparison, _jsonl, _recovered_run

    from trainlint.verdict import Result

    tmp = tmp_path_factory.mktemp("stopped")
    judged = doctor([_jsonl(tmp / "short" / "m.jsonl", 12), _recovered_run(tmp / "rolled")], Options())
    result = Result("doctor", [*judged.reports, _comparison()], interrupted=15)
    buf = io.StringIO()
    render(result, "html", buf)
    out = tmp / "report.html"
    out.write_text(buf.getvalue(), encoding="utf-8")
    return out


def test_scope_interruption_origin_and_recovery_are_shown(browser, stopped_page: Path) -> None:
    w = PageWatch(browser)
    page = w.open(stopped_page)
    # the interruption, at the top: in the page's header, ahead of every report
    banner = page.locator("#tl-interrupted")
    assert banner.is_visible() and banner.inner_text().startswith("\u26a0 interrupted by SIGTERM: only the 3 report(s)")
    assert page.evaluate("document.querySelector('#tl-interrupted').closest('header').parentNode.id") == "tl-root"
    assert page.evaluate(
        "document.querySelector('#tl-interrupted').compareDocumentPosition(document.querySelector('.tl-report')) & 4"
    )
    # the short log's verdict says what it rests on, in its section and in the runs table
    short = _rid(page, "short")
    scope = "on 12 points: trend rules need 20"
    assert page.locator(f"#{short} > header .tl-scope").inner_text().strip() == scope
    assert page.locator(f"[data-panel='runs'] tr[data-rid='{short}'] .tl-scope").inner_text().strip() == scope
    assert page.locator(f"#{_rid(page, 'rolled')} > header .tl-scope").count() == 0
    # a comparison finding says where it comes from
    cmp_id = page.evaluate("trainlintReport.data.reports.find(r => r.kind === 'comparison').id")
    assert page.locator(f"#{cmp_id} .tl-finding .tl-origin").all_inner_texts() == ["[alone] ", "[vs baseline] "]
    # the recovery NOTE: listed, and marked on the loss curve at the fault step
    rolled = _rid(page, "rolled")
    assert "TL089" in page.locator(f"#{rolled} .tl-finding.tl-NOTE").first.inner_text()
    at = page.evaluate(f"""() => {{
        const u = trainlintReport.ensure('{rolled}')[0], r = trainlintReport.data.reports.find(r => r.id === '{rolled}');
        const i = r.findings.findIndex(f => f.code === 'TL089');
        const m = u.over.querySelector('.tl-mark[data-finding="{rolled}:' + i + '"]');
        return [m.style.display, parseFloat(m.style.left), u.valToPos(60, 'x'), m.textContent];
    }}""")
    assert at[0] != "none" and abs(at[1] - at[2]) < 1 and at[3] == "\u25cf TL089"
    assert w.errors == []
    w.page.close()
