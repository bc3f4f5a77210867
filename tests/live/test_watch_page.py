"""`trainlint watch --output live.html`: the page kept current while the runs grow (issue 34 §4)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from trainlint.live.watch import watch


def _data(html: str) -> dict:
    return json.loads(re.search(r'id="tl-data">(.*?)</script>', html, re.DOTALL).group(1))


def test_the_page_is_rewritten_on_judgements_and_findings_not_on_polls(tmp_path: Path) -> None:
    p = tmp_path / "live.jsonl"
    p.write_text("")
    clock = {"t": 0.0, "polls": 0}
    pages: list[tuple[float, int, list[str]]] = []

    def sleep(dt: float) -> None:
        clock["t"] += dt
        clock["polls"] += 1
        k = int(clock["t"])
        if k <= 300:  # ten records a second for 300 s (NaN from step 2500), then silence
            with open(p, "a") as fh:
                for j in range(10):
                    s = 10 * k + j
                    loss = "NaN" if s >= 2500 else 1.0 / (s + 1) + 0.5
                    fh.write(json.dumps({"step": s, "loss": loss}) + "\n")

    def page(result) -> None:
        (rep,) = result.reports
        assert result.command == "watch" and rep.kind == "log" and rep.notes[0].startswith("live: ")
        pages.append((clock["t"], rep.curves["loss"]["points"] if rep.curves else 0, [f.code for f in rep.findings]))

    res = watch(p, interval=1.0, max_time=500, clock=lambda: clock["t"], sleep=sleep, page=page)
    assert res.reports[0].verdict.value == "FAIL"
    assert 3 <= len(pages) < clock["polls"] / 4  # on judgements, not on every poll
    first_nan = next(t for t, _n, codes in pages if "TL001" in codes)
    assert 250 <= first_nan <= 260  # the page shows the NaN soon after it is written
    assert [n for _t, n, _c in pages] == sorted(n for _t, n, _c in pages)  # the curves grow
    quiet = [t for t, _n, codes in pages if t > 310]
    assert all("TL450" in codes for t, _n, codes in pages if t > 310) and len(quiet) <= 2  # silence: only the stall


def test_watch_output_writes_the_final_page_atomically_and_not_in_the_runs(cli, tmp_path: Path) -> None:
    runs, out = tmp_path / "runs", tmp_path / "pages"
    runs.mkdir(), out.mkdir()
    (runs / "m.jsonl").write_text("".join(json.dumps({"step": i, "loss": 1.0 / (i + 1)}) + "\n" for i in range(200)))
    before = sorted(runs.rglob("*"))
    r = cli("watch", runs, "--interval", "0.05", "--idle-exit", "0.3", "--output", out / "live.html", "--reload", "5")
    assert r.code == 0, r.err
    assert sorted(runs.rglob("*")) == before  # nothing written under the watched folder
    assert [f.name for f in out.iterdir()] == ["live.html"]  # no temporary file left behind
    data = _data((out / "live.html").read_text())
    assert data["command"] == "watch" and data["reload"] is None  # the final page stops reloading
    assert data["reports"][0]["source"].endswith("m.jsonl") and data["reports"][0]["stats"]["steps"] == 199


def test_watch_output_inside_the_watched_folder_or_reload_alone_is_refused(cli, tmp_path: Path) -> None:
    (tmp_path / "m.jsonl").write_text(json.dumps({"step": 1, "loss": 1.0}) + "\n")
    r = cli("watch", tmp_path, "--idle-exit", "0.1", "--output", tmp_path / "live.html")
    assert r.code == 2 and "inside a watched folder" in r.err and not (tmp_path / "live.html").exists()
    r = cli("watch", tmp_path, "--idle-exit", "0.1", "--reload", "3")
    assert r.code == 2 and "--reload needs --output" in r.err
