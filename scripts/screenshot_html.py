"""Screenshots of the HTML report for README (docs/img/html-report.png, docs/img/overlay.png),
made by the test tooling.

    python scripts/screenshot_html.py                       # examples/, the plain-diverged run
    python scripts/screenshot_html.py --example lightning-nan --out /tmp/shot.png
    python scripts/screenshot_html.py --overlay             # the twelve seed-0 HF runs of evidence/

With --overlay it renders ``trainlint doctor evidence/hf-*-s0`` (real Trainer runs, one knob
broken in each), switches the loss, eval loss and grad norm panels to a log scale, highlights
the run whose learning rate is too hot (as hovering its row in the table does), and saves the
overlay.

Renders ``trainlint doctor examples/`` as HTML, opens it in headless Chromium with the same
Playwright setup as tests/report/test_html_browser.py, hides the other runs' sections (the index
still lists every input), hovers the first finding's marker so its tooltip shows, and saves
a PNG of the page.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "tests"))


def _render(paths: list[Path]) -> str:
    """The HTML page of ``doctor`` on ``paths`` (relative to the checkout's root)."""
    from trainlint.api import Options, doctor
    from trainlint.report import render

    here = os.getcwd()
    os.chdir(ROOT)
    try:
        buf = io.StringIO()
        render(doctor(paths, Options()), "html", buf)
    finally:
        os.chdir(here)
    return buf.getvalue()


def render_examples() -> str:
    return _render([Path("examples")])


@contextlib.contextmanager
def opened(page_file: Path, width: int) -> Iterator[Any]:
    """The page in headless Chromium at ``width``; afterwards, a page that logged an error or
    made a request besides itself stops the script."""
    from _browser import PageWatch, launch
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = launch(p)
        w = PageWatch(browser, device_scale_factor=1)
        page = w.open(page_file)
        page.set_viewport_size({"width": width, "height": 900})
        yield page
        if w.errors or len(w.requests) != 1:
            raise SystemExit(f"page problems: errors={w.errors} requests={w.requests}")
        browser.close()


def shoot(page_file: Path, example: str, out: Path, width: int) -> None:
    with opened(page_file, width) as page:
        rid = page.evaluate(f"trainlintReport.data.reports.find(r => r.source.includes({example!r})).id")
        page.evaluate(
            f"""document.querySelectorAll('section.tl-report').forEach(s => {{
                  if (s.id !== '{rid}') s.style.display = 'none'; }});
                trainlintReport.ensure('{rid}');"""
        )
        marker = page.locator(f"#{rid}-panels .tl-mark[data-finding='{rid}:0']").first
        marker.hover()
        page.screenshot(path=str(out), full_page=True)


def render_evidence() -> str:
    runs = sorted((ROOT / "evidence").glob("hf-*-s0"))
    if not runs:
        raise SystemExit("no evidence/hf-*-s0 runs in this checkout")
    return _render([r.relative_to(ROOT) for r in runs])


def shoot_overlay(page_file: Path, out: Path, width: int, run: str) -> None:
    with opened(page_file, width) as page:
        page.evaluate("trainlintReport.overlay.resize()")
        for role in ("loss", "eval_loss", "grad_norm"):
            page.locator(f"[data-role='{role}'] .tl-ov-log").click()
        page.mouse.move(0, 0)
        page.locator("[data-panel='overlay']").scroll_into_view_if_needed()
        rid = page.locator(f"[data-panel='runs'] tbody tr:has-text({run!r})").first.get_attribute("data-rid")
        page.evaluate(f"trainlintReport.overlay.highlight('{rid}')")  # as hovering its row in the table does
        page.evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        page.locator("[data-panel='overlay']").screenshot(path=str(out))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--example", default="plain-diverged")
    ap.add_argument("--overlay", action="store_true", help="the overlay of many runs (docs/img/overlay.png)")
    ap.add_argument("--run", default="lr_hot", help="with --overlay: the run whose row is hovered")
    ap.add_argument("--out", type=Path)
    ap.add_argument("--width", type=int, default=1100)
    args = ap.parse_args()
    out = args.out or ROOT / "docs" / "img" / ("overlay.png" if args.overlay else "html-report.png")
    with tempfile.TemporaryDirectory() as tmp:
        page_file = Path(tmp) / "report.html"
        page_file.write_text(render_evidence() if args.overlay else render_examples(), encoding="utf-8")
        out.parent.mkdir(parents=True, exist_ok=True)
        if args.overlay:
            shoot_overlay(page_file, out, args.width, args.run)
        else:
            shoot(page_file, args.example, out, args.width)
    print(f"wrote {out} ({out.stat().st_size // 1024} KB)")


if __name__ == "__main__":
    main()
