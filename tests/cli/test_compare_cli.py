"""compare / doctor --baseline end to end: real gallery logs, generated JSONL files, exit codes,
bad and unreadable baselines, the table, and each file read once."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from trainlint import api

GALLERY = "qwen-qlora-gallery"


def write_run(
    path: Path, seed: int, *, floor: float = 1.0, start: float = 3.0, loss=None, n: int = 120, peak_lr: float = 3e-4
) -> Path:
    """A JSONL log of one recipe: noisy exponential decay, warm-up + cosine LR."""
    rng = np.random.default_rng(seed)
    steps = np.arange(1, n + 1) * 10
    frac = steps / steps[-1]
    values = (floor + (start - floor) * np.exp(-frac / 0.2)) * np.exp(rng.normal(0, 0.04, n))
    if loss is not None:
        values = np.asarray(loss, float)
    lr = peak_lr * np.minimum(1, frac / 0.05) * 0.5 * (1 + np.cos(np.pi * frac))
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as fh:
        for s, v, r in zip(steps, values, lr):
            fh.write(
                json.dumps(
                    {
                        "step": int(s),
                        "loss": float(v),
                        "learning_rate": float(r),
                        "grad_norm": float(0.5 + rng.random() * 0.1),
                    }
                )
                + "\n"
            )
    return path


@pytest.fixture
def seeds(tmp_path) -> Path:
    for s in (1, 2, 3):
        write_run(tmp_path / "seeds" / f"seed{s}" / "metrics.jsonl", s)
    return tmp_path / "seeds"


def by_run(env):
    return {Path(r["source"]).parent.name: r for r in env["reports"]}


# ---- real logs ---------------------------------------------------------------------------------


def test_gallery_against_healthy(cli, evidence):
    g = evidence / GALLERY
    r = cli(
        "compare",
        g / "healthy",
        g / "healthy",
        g / "bad_labels",
        g / "lr_hot",
        g / "lr_zero",
        g / "fp16_nan",
        "--format",
        "json",
    )
    env = r.json()
    reps = by_run(env)
    assert reps["healthy"]["verdict"] == "PASS"
    for bad in ("bad_labels", "lr_hot", "lr_zero", "fp16_nan"):
        assert reps[bad]["verdict"] == "FAIL", bad
        assert reps[bad]["kind"] == "comparison"
    floor = next(f for f in reps["bad_labels"]["findings"] if f["code"] == "TL150")
    assert 4.5 < floor["evidence"]["ratio"] < 7  # "its floor is about 6x the baseline's"
    assert floor["evidence"]["baseline"] == pytest.approx(1.08, abs=0.05)
    lr_zero = [(f["code"], f["origin"]) for f in reps["lr_zero"]["findings"] if f["severity"] == "FAIL"]
    assert lr_zero == [("TL040", "run"), ("TL152", "baseline")]  # the cause first, each with its origin
    assert reps["lr_zero"]["summary"]["judged_alone"] == "FAIL"
    assert r.code == 1 and env["exit_code"] == 1
    rows = {Path(row["source"]).parent.name: row for row in env["table"]["rows"]}
    assert rows["bad_labels"]["cells"]["loss_floor"]["ratio"] > 4.5
    assert env["table"]["baseline"][0].endswith("healthy/trainer_state.json")


def test_gallery_lr_schedule_against_healthy(cli, evidence):
    """TL157 on real logs: the x100 learning rate and the zero one, with the numbers it fired on."""
    g = evidence / GALLERY
    reps = by_run(cli("compare", g / "healthy", g / "lr_hot", g / "lr_zero", g / "overfit", "--format", "json").json())
    hot = next(f for f in reps["lr_hot"]["findings"] if f["code"] == "TL157")
    assert hot["severity"] == "WARN" and hot["evidence"]["ratio"] == pytest.approx(100.0, rel=1e-3)
    assert hot["evidence"]["threshold"] == 10.0 and "limit 10x" in hot["message"]
    zero = next(f for f in reps["lr_zero"]["findings"] if f["code"] == "TL157")
    assert zero["evidence"]["value"] == 0.0 and "zero throughout" in zero["message"]
    assert "TL157" not in {f["code"] for f in reps["overfit"]["findings"]}  # the same schedule


def test_gallery_bad_baseline_is_not_checked(cli, evidence):
    g = evidence / GALLERY
    r = cli("compare", g / "lr_hot", g / "healthy", "--format", "json")
    rep = r.json()["reports"][0]
    assert r.code == 2 and rep["verdict"] == "NOT-CHECKED"
    assert "bad baseline" in rep["reason"] and "TL010" in rep["reason"]


def test_gallery_doctor_with_baseline(cli, evidence):
    """One report per run (issue 30 §5), the same as `compare` gives, and counted once."""
    g = evidence / GALLERY
    r = cli("doctor", g, "--baseline", g / "healthy", "--format", "json")
    env = r.json()
    names = [Path(x["source"]).parent.name for x in env["reports"]]
    assert sorted(names) == ["bad_labels", "fp16_nan", "healthy", "lr_hot", "lr_zero", "overfit"]  # each once
    reps = by_run(env)
    assert reps["healthy"]["kind"] == "log" and reps["healthy"]["verdict"] == "PASS"  # not compared to itself
    assert reps["bad_labels"]["kind"] == "comparison" and reps["bad_labels"]["verdict"] == "FAIL"
    assert reps["bad_labels"]["summary"]["judged_alone"] == "PASS"  # only the comparison sees it
    assert reps["overfit"]["verdict"] == "WARN"  # TL060 of the run alone
    assert [row["verdict"] for row in env["table"]["rows"]] == [reps[n]["verdict"] for n in names if n != "healthy"]
    assert r.code == 1
    same = by_run(cli("compare", g / "healthy", *(g / n for n in names if n != "healthy"), "--format", "json").json())
    for name, rep in same.items():
        assert [(f["code"], f["origin"]) for f in rep["findings"]] == [
            (f["code"], f["origin"]) for f in reps[name]["findings"]
        ], name
    text = cli("doctor", g, "--baseline", g / "healthy")
    assert text.out.splitlines()[-1] == "FAIL: 4 FAIL, 1 WARN, 1 PASS (exit 1)"


def test_table_fits_100_columns(cli, evidence):
    """The runs x metrics table of doctor --baseline (and compare) fits 100 columns: the metric
    columns that do not fit continue in a second block, the run names repeated."""
    g = evidence / GALLERY
    lines = cli("doctor", g, "--baseline", g / "healthy").out.split("\n\nFAIL", 1)[0].splitlines()
    assert max(len(line) for line in lines) <= 100, max(lines, key=len)
    table = "\n".join(lines)
    for col in ("floor", "end", "improved", "curve", "eval", "gnorm", "speed", "peak LR"):
        assert col in table
    assert table.count("lr_zero/trainer_state.json") >= 2 and "1.423 (1.32x)" in table


def test_gallery_text_table(cli, evidence):
    g = evidence / GALLERY
    r = cli("compare", g / "healthy", g / "bad_labels")
    assert r.code == 1
    lines = r.out.splitlines()
    assert lines[0].startswith("comparison with 1 baseline run")
    assert "floor" in lines[1] and "end" in lines[1]
    assert lines[3].startswith("bad_labels/trainer_state.json  FAIL") and "5.678 (5.28x)" in lines[3]
    assert "TL150 loss-floor-above-baseline" in r.out


# ---- generated runs through the CLI ----------------------------------------------------------


def test_seed_folder_is_a_band_and_seeds_pass(cli, seeds, tmp_path):
    new = write_run(tmp_path / "new" / "metrics.jsonl", 77)
    r = cli("compare", seeds, new, seeds, "--format", "json")
    env = r.json()
    assert r.code == 0, r.out
    assert len(env["table"]["baseline"]) == 3
    assert [x["verdict"] for x in env["reports"]] == ["PASS"] * 4


def test_faulty_generated_runs_fail_against_seed_band(cli, seeds, tmp_path):
    high = write_run(tmp_path / "high" / "m.jsonl", 5, floor=3.0, start=6.0)
    div = write_run(tmp_path / "div" / "m.jsonl", 6, loss=np.r_[np.linspace(3, 1, 60), np.linspace(1, 1.6, 60)])
    flat = write_run(tmp_path / "flat" / "m.jsonl", 7, loss=np.full(120, 3.0) + np.linspace(0, 0.01, 120))
    r = cli("compare", seeds, high, div, flat, "--format", "json")
    reps = by_run(r.json())
    assert {k: v["verdict"] for k, v in reps.items()} == {"high": "FAIL", "div": "FAIL", "flat": "FAIL"}
    div_end = next(f for f in reps["div"]["findings"] if f["code"] == "TL151")
    assert "band of 3 baseline runs" in div_end["message"]
    assert r.code == 1


def test_a_run_that_fails_alone_fails_in_compare(cli, seeds, tmp_path):
    """Issue 30 §5: a run whose own judgement is FAIL is never better than FAIL in compare. Its
    loss is a seed's, so against the baseline only the zero LR (TL157, WARN) differs; alone its
    zero learning rate is TL040, a FAIL, and compare says so first, as doctor does."""
    zero = write_run(tmp_path / "zero" / "m.jsonl", 1, peak_lr=0.0)
    alone = cli("doctor", zero, "--format", "json").json()["reports"][0]
    assert alone["verdict"] == "FAIL" and alone["findings"][0]["code"] == "TL040"
    r = cli("compare", seeds, zero, "--format", "json")
    rep = r.json()["reports"][0]
    assert rep["summary"]["against_baseline"] == "WARN"  # the comparison alone: TL157
    assert rep["verdict"] == "FAIL" and r.code == 1
    assert (rep["findings"][0]["code"], rep["findings"][0]["origin"]) == ("TL040", "run")
    assert ("TL157", "baseline") in [(f["code"], f["origin"]) for f in rep["findings"]]
    assert r.json()["table"]["rows"][0]["verdict"] == "FAIL"


def test_findings_say_where_they_come_from_in_every_format(cli, seeds, tmp_path):
    """Each finding of a comparison report is attributed: the run alone or against the baseline,
    in the text, Markdown and SARIF views (JSON: ``origin``), the cause first."""
    zero = write_run(tmp_path / "zero" / "m.jsonl", 1, peak_lr=0.0)
    lines = [x for x in cli("compare", seeds, zero).out.splitlines() if x[2:6] in ("FAIL", "WARN")]
    assert lines[0].startswith("  FAIL TL040 lr-zero step 10 [alone]: learning rate is zero"), lines
    assert any(x.startswith("  WARN TL157 lr-schedule-differs [vs baseline]: ") for x in lines), lines
    md = cli("compare", seeds, zero, "--format", "markdown").out
    assert "**FAIL TL040** lr-zero (step 10) [alone]:" in md and "TL157** lr-schedule-differs [vs baseline]:" in md
    sarif = cli("compare", seeds, zero, "--format", "sarif").json()
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((Path(__file__).parent.parent / "schemas" / "sarif-schema-2.1.0.json").read_text())
    jsonschema.validate(sarif, schema)
    got = [(x["ruleId"], x["properties"]["origin"]) for x in sarif["runs"][0]["results"]]
    assert got[0] == ("TL040", "run") and ("TL157", "baseline") in got


def test_unreadable_or_missing_baseline_is_exit_2(cli, seeds, tmp_path):
    junk = tmp_path / "junk.jsonl"
    junk.write_text("{not json\n")
    run = seeds / "seed1" / "metrics.jsonl"
    for base in (junk, tmp_path / "nope", tmp_path / "empty"):
        (tmp_path / "empty").mkdir(exist_ok=True)
        r = cli("compare", base, run, "--format", "json")
        rep = r.json()["reports"][0]
        assert r.code == 2 and rep["verdict"] == "NOT-CHECKED" and rep["reason"], base
        assert "Traceback" not in r.err


def test_unreadable_run_is_not_checked_not_fail(cli, seeds, tmp_path):
    junk = tmp_path / "junk.jsonl"
    junk.write_text("{not json\n")
    r = cli("compare", seeds / "seed1", junk, "--format", "json")
    assert r.code == 2 and r.json()["reports"][0]["verdict"] == "NOT-CHECKED"


def test_extra_baseline_option_and_align_option(cli, seeds, tmp_path):
    long = tmp_path / "long" / "m.jsonl"
    write_run(long, 8, n=360)
    r = cli("compare", seeds / "seed1", long, "--baseline", seeds / "seed2", "--format", "json")
    rep = r.json()["reports"][0]
    assert rep["summary"]["alignment"]["mode"] == "fraction" and rep["verdict"] == "PASS"
    assert len(rep["summary"]["baseline"]) == 2
    r = cli("compare", seeds / "seed1", long, "--align", "step", "--format", "json")
    assert r.json()["reports"][0]["summary"]["alignment"]["mode"] == "step"


# ---- each file read once -------------------------------------------------------------------


@pytest.fixture
def reads(monkeypatch):
    import trainlint.inspectors.logs as logs

    count: Counter = Counter()
    real = logs.read_and_map

    def counting(path, options):
        count[Path(path).resolve()] += 1
        return real(path, options)

    monkeypatch.setattr(logs, "read_and_map", counting)
    return count


def test_each_file_read_once_in_compare_and_doctor(seeds, reads):
    res = api.compare(seeds, [seeds, seeds / "seed1"])
    assert len(res.reports) == 4 and set(reads.values()) == {1} and len(reads) == 3
    reads.clear()
    res = api.doctor([seeds], api.Options(baseline=(seeds / "seed1",)))
    assert set(reads.values()) == {1} and len(reads) == 3
    kinds = Counter(r.kind for r in res.reports)
    assert kinds == {"log": 1, "comparison": 2}  # one report per run: the baseline seed a log
    assert res.exit_code == 0


def test_gallery_overfit_floor_far_below_is_only_a_note(cli, evidence):
    """Against the baseline a floor far below is a NOTE; the run alone overfits (eval loss x3):
    compare runs the single-run rules too (issue 30 §5: this was a PASS)."""
    g = evidence / GALLERY
    rep = cli("compare", g / "healthy", g / "overfit", "--format", "json").json()["reports"][0]
    assert rep["verdict"] == "WARN"
    found = [(f["code"], f["severity"], f["origin"]) for f in rep["findings"]]
    assert found == [("TL060", "WARN", "run"), ("TL160", "NOTE", "baseline")]
    assert rep["summary"]["judged_alone"] == "WARN" and rep["summary"]["against_baseline"] == "PASS"


def test_thresholds_apply_to_compare_rules(cli, evidence):
    g = evidence / GALLERY
    r = cli(
        "compare",
        g / "healthy",
        g / "bad_labels",
        "--threshold",
        "TL150.fail_ratio=10",
        "--ignore",
        "TL151",
        "--ignore",
        "TL153",
        "--format",
        "json",
    )
    rep = r.json()["reports"][0]
    assert [(f["code"], f["severity"]) for f in rep["findings"]] == [("TL150", "WARN")]
    ev = rep["findings"][0]["evidence"]
    assert ev["fail_limit"] == pytest.approx(10 * ev["baseline"])
    assert r.code == 0
