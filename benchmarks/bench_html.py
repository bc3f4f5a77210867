"""HTML report size and speed: 100 runs of 100,000 logged steps each, or (--many) 1,000 runs of 10,000.

    python benchmarks/bench_html.py                  # 100 runs x 100k points, opened in Chromium
    python benchmarks/bench_html.py --many           # 1,000 runs x 10k points: the overlay page (issue 34)
    python benchmarks/bench_html.py --runs 10 --points 20000 --no-browser
    python benchmarks/bench_html.py --keep /tmp/bench.html

Builds synthetic runs (loss with noise, a few spikes and one NaN stretch in every tenth run,
learning rate, grad norm, step time, and an eval loss every 500 steps), judges each with
``judge_run`` (which downsamples the curves), then measures:
  judge    judging the 100 runs (rules + curve downsampling), once
  render   writing the page from the Result (best of --repeat)
  size     the page in bytes (target: under 5 MB)
  open     in headless Chromium: from navigation until the page script has built the page and
           drawn the panels in view (target: under 2 s; --many: under 3 s, the overlay of every
           run and the runs table drawn); and the time to draw every panel of every run (the page
           draws panels lazily as they scroll into view; not with --many). The browser's CPU
           seconds over the same span are printed beside it: on a loaded machine the wall time
           waits for a core, the CPU time does not.
  --many   page size target 10 MB; the page draws each run's curves with fewer points (min/max
           kept) so that a thousand runs fit
"""

from __future__ import annotations

import argparse
import io
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))


def make_run(i: int, n: int):
    import numpy as np

    from trainlint.model import Run, Series

    rng = np.random.default_rng(i)
    steps = np.arange(1, n + 1, dtype=np.float64)
    loss = 2.5 * np.exp(-steps / (n / 5)) + 0.6 + 0.05 * rng.standard_normal(n)
    loss[rng.integers(0, n, 5)] += 3.0
    if i % 10 == 0:
        loss[int(n * 0.8) :] = np.nan
    lr = np.minimum(steps / (n / 20), 1.0) * 3e-4 * (1 - steps / (n + 1))
    gn = 0.8 + 0.1 * rng.standard_normal(n)
    st = 0.2 + 0.01 * rng.standard_normal(n)
    ev = steps[::500]
    run = Run(source=f"runs/run{i:03d}/metrics.jsonl", format="jsonl")
    for name, x, v in (
        ("loss", steps, loss),
        ("learning_rate", steps, lr),
        ("grad_norm", steps, gn),
        ("step_time", steps, st),
        ("eval_loss", ev, loss[::500] + 0.1),
    ):
        run.series[name] = Series(name, x, v)
    run.meta["max_steps"] = n
    return run


def build(runs: int, points: int):
    from trainlint.engine import judge_run
    from trainlint.verdict import Result

    return Result(command="doctor", reports=[judge_run(make_run(i, points)) for i in range(runs)])


def _cpu() -> float:
    """CPU seconds used so far by this process's children (the Playwright driver and Chromium)."""
    import psutil

    total = 0.0
    for child in psutil.Process().children(recursive=True):
        try:
            t = child.cpu_times()
            total += t.user + t.system
        except psutil.Error:
            pass
    return total


def open_times(path: Path, every_panel: bool = True) -> tuple[float, float, float | None, dict]:
    """(wall seconds to open, CPU seconds of the browser meanwhile, seconds to draw every panel,
    the page's own timing marks)."""
    from _browser import launch
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = launch(p)
        page = browser.new_page(viewport={"width": 1200, "height": 900})
        cpu, start = _cpu(), time.perf_counter()
        page.goto(path.resolve().as_uri(), timeout=120_000)
        page.wait_for_function("window.trainlintReport && window.trainlintReport.ready", timeout=120_000)
        page.evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        opened, cpu = time.perf_counter() - start, _cpu() - cpu
        marks = page.evaluate("trainlintReport.timing")
        drawn = None
        if every_panel:
            start = time.perf_counter()
            page.evaluate("trainlintReport.data.reports.forEach(r => trainlintReport.ensure(r.id))")
            drawn = time.perf_counter() - start
        browser.close()
    return opened, cpu, drawn, marks


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--points", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-browser", action="store_true")
    ap.add_argument("--many", action="store_true", help="1,000 runs x 10,000 points (the overlay page)")
    ap.add_argument("--keep", type=Path, help="write the page here (default: a temporary file)")
    args = ap.parse_args()
    if args.many:
        args.runs, args.points = 1000, 10_000
    size_target, open_target = (10, 3) if args.many else (5, 2)

    from _timing import best_of

    from trainlint.report.html import render_html

    start = time.perf_counter()
    result = build(args.runs, args.points)
    judged = time.perf_counter() - start
    render_s = best_of(lambda: render_html(result, io.StringIO()), args.repeat)
    buf = io.StringIO()
    render_html(result, buf)
    page = buf.getvalue().encode("utf-8")
    print(f"{args.runs} runs x {args.points:,} points")
    print(f"judge   {judged:7.2f} s  (rules + downsampling, all runs)")
    print(f"render  {render_s:7.3f} s  (best of {args.repeat})")
    print(f"size    {len(page) / 1e6:7.2f} MB  (target < {size_target} MB)")
    if args.no_browser:
        return
    out = args.keep or Path(tempfile.mkdtemp()) / "bench.html"
    out.write_bytes(page)
    from _browser import chromium_path

    if chromium_path() is None:
        print("open    skipped: no chromium")
        return
    opened, cpu, drawn, marks = open_times(out, every_panel=not args.many)
    what = "the overlay and the runs table" if args.many else "first panels"
    print(f"open    {opened:7.2f} s  (navigation to {what} drawn; target < {open_target} s)")
    print(f"        {cpu:7.2f} s  CPU of the browser meanwhile (all its processes)")
    print("        page script: " + ", ".join(f"{k} {v / 1000:.2f} s" for k, v in marks.items()))
    if drawn is not None:
        print(f"all     {drawn:7.2f} s  (drawing every panel of every run)")


if __name__ == "__main__":
    main()
