"""doctor --jobs N: the same Result as the serial doctor, whatever finishes first; each report
streamed to on_report as it arrives."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from trainlint import api, parallel
from trainlint.cli import main

ROOT = Path(__file__).resolve().parents[2]
CORPUS = [ROOT / "examples", ROOT / "evidence"]


def _json(result) -> str:
    return json.dumps(result.to_dict(), indent=1, allow_nan=False)


def test_jobs_4_and_jobs_1_give_the_same_json_on_the_corpus():
    serial = api.doctor(CORPUS)
    seen = []
    pooled = api.doctor(CORPUS, jobs=4, on_report=seen.append)
    assert len(serial.reports) > 20
    assert _json(pooled) == _json(serial)
    # every report was streamed once; the pool hands them over in completion order
    assert sorted(r.source for r in seen) == sorted(r.source for r in serial.reports)
    # the curves the renderers draw survive the trip back from the workers
    # (compared as JSON: a NaN point is not == to itself)
    with_curves = [json.dumps(r.to_dict(curves=True)) for r in pooled.reports]
    assert with_curves == [json.dumps(r.to_dict(curves=True)) for r in serial.reports]
    assert sum('"curves"' in c for c in with_curves) > 10


def test_cli_jobs_json_identical(tmp_path):
    runner = CliRunner()
    args = ["doctor", *map(str, CORPUS), "--format", "json"]
    one = runner.invoke(main, [*args, "--jobs", "1"])
    four = runner.invoke(main, [*args, "--jobs", "4"])
    assert one.exit_code == four.exit_code == 1  # the evidence holds broken runs
    assert one.output == four.output


def test_mixed_inputs_keep_the_serial_order(tmp_path):
    """Missing paths, an unrecognised file named explicitly and a file holding several runs."""
    sys.path.insert(0, str(ROOT / "tests"))
    from _stores import _db

    db = _db(tmp_path / "mlflow.db")
    note = tmp_path / "notes.txt"
    note.write_text("nothing to see\n")
    paths = [tmp_path / "nope", db, ROOT / "examples", note, tmp_path]
    serial, pooled = api.doctor(paths), api.doctor(paths, jobs=2)
    assert _json(pooled) == _json(serial)
    sources = [r.source for r in pooled.reports]
    assert sources[0].endswith("nope") and f"{db}#aaa" in sources and f"{db}#bbb" in sources
    assert pooled.reports[0].unjudged == "no such file or folder"


def test_baseline_with_jobs_matches_serial():
    base = ROOT / "evidence" / "hf-healthy-s0"
    options = api.Options(baseline=(base,))
    serial = api.doctor([ROOT / "evidence"], options)
    pooled = api.doctor([ROOT / "evidence"], options, jobs=2)
    assert any(r.kind == "comparison" for r in serial.reports)
    assert _json(pooled) == _json(serial)


def test_inline_streaming_with_one_job_is_in_order():
    seen = []
    result = api.doctor([ROOT / "examples"], jobs=1, on_report=seen.append)
    assert [r.source for r in seen] == [r.source for r in result.reports]
    assert _json(result) == _json(api.doctor([ROOT / "examples"]))


def test_biggest_inputs_start_first_ties_in_order():
    tasks = [parallel.Unclaimed("a", size=1), parallel.Unclaimed("b", size=9), parallel.Unclaimed("c", size=1)]
    assert [i for i, _ in parallel.by_size(tasks)] == [1, 0, 2]


def test_nothing_found_is_not_checked_in_parallel(tmp_path):
    result = api.doctor([tmp_path], jobs=2)
    assert result.verdict.value == "NOT-CHECKED" and "nothing to judge" in result.empty_reason


def test_cli_help_lists_jobs_and_ray_without_loading_ray():
    code = (
        "import sys; from click.testing import CliRunner; from trainlint.cli import main; "
        "r = CliRunner().invoke(main, ['doctor', '--help']); "
        "assert '--jobs' in r.output and '--ray' in r.output, r.output; "
        "assert 'ray' not in sys.modules and 'concurrent.futures.process' not in sys.modules"
    )
    subprocess.run(
        [sys.executable, "-c", code],
        check=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"},
    )


def test_ray_flag_without_ray_installed_is_a_one_line_usage_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray now raises ImportError
    r = CliRunner().invoke(main, ["doctor", str(ROOT / "examples"), "--ray"])
    assert r.exit_code == 2 and "pip install 'trainlint[ray]'" in r.output
    assert "Traceback" not in r.output


def test_unguarded_script_gets_a_one_line_reason(tmp_path):
    script = tmp_path / "unguarded.py"
    script.write_text(f"from trainlint import api\napi.doctor([{str(ROOT / 'examples')!r}], jobs=2)\n")
    proc = subprocess.run(
        [sys.executable, str(script)],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"},
    )
    assert proc.returncode != 0 and "if __name__ == '__main__':" in proc.stderr.splitlines()[-1]


def test_user_patterns_and_environment_reach_the_workers(tmp_path, monkeypatch):
    """--pattern travels in the options, TRAINLINT_* settings in each task."""
    for name in ("a", "b", "c"):
        (tmp_path / name).mkdir()
        lines = "".join(f"it={i * 10} | objective {3.0 - i * 0.1:.2f}\n" for i in range(12))
        (tmp_path / name / "custom.log").write_text(lines)
    options = api.Options(patterns=(r"it=(?P<step>\d+) \| objective (?P<loss>[0-9.]+)",))
    pooled = api.doctor([tmp_path], options, jobs=2)
    assert [r.format for r in pooled.reports] == ["console/user-pattern"] * 3
    assert _json(pooled) == _json(api.doctor([tmp_path], options))
    monkeypatch.setenv("TRAINLINT_FLEET_TEST", "1")
    assert parallel._env()["TRAINLINT_FLEET_TEST"] == "1"


def test_hf_output_folder_folds_into_one_report_in_the_pool_too(tmp_path):
    """The items of a Trainer output folder travel as one task and are folded as serially."""
    from _outputs import _hf_output

    root = _hf_output(tmp_path / "out")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "metrics.jsonl").write_text(
        "".join(f'{{"step": {i}, "loss": {3 - 0.1 * i}}}\n' for i in range(20))
    )
    tasks = parallel.plan([tmp_path], api.Options())
    assert [type(t) for t in tasks].count(parallel.Group) == 1
    serial, pooled = api.doctor([tmp_path]), api.doctor([tmp_path], jobs=2)
    assert str(root) in [r.source for r in serial.reports]
    assert _json(pooled) == _json(serial)


def test_progress_is_reported_in_the_pool():
    ticks = []
    result = api.doctor(CORPUS, jobs=2, on_progress=lambda found, judged, current: ticks.append((found, judged)))
    found = max(f for f, _ in ticks)
    assert found >= len(result.reports) - 2 and ticks[-1] == (found, found)
    assert [j for _, j in ticks] == sorted(j for _, j in ticks)  # judged only grows


def test_explicit_jobs_start_the_pool_during_the_walk_and_only_for_a_folder(tmp_path, monkeypatch):
    """`--jobs N` on a folder starts its workers before the walk (they import numpy and the
    plugins meanwhile); on a named file there is one input, and no pool is started at all."""
    from trainlint import api, parallel

    started = []
    real = parallel.started_pool

    def spy(jobs):
        started.append(jobs)
        return real(jobs)

    monkeypatch.setattr(parallel, "started_pool", spy)
    for i in range(3):
        (tmp_path / f"r{i}").mkdir()
        (tmp_path / f"r{i}" / "metrics.jsonl").write_text(
            "".join(f'{{"step": {s}, "loss": {3 - s / 40:.3f}}}\n' for s in range(60))
        )
    serial = api.doctor([tmp_path], jobs=1)
    pooled = api.doctor([tmp_path], jobs=2)
    single = api.doctor([tmp_path / "r0" / "metrics.jsonl"], jobs=2)
    assert started == [1, 2, 1]
    assert [r.to_dict() for r in pooled.reports] == [r.to_dict() for r in serial.reports]
    assert len(single.reports) == 1


def test_the_cli_process_and_its_workers_collect_garbage_less_often(monkeypatch):
    """`trainlint` raises the cyclic collector's threshold for its own process (the API leaves
    the interpreter's alone), and the pool's spawned workers take the parent's."""
    import gc

    import trainlint.cli as cli

    before, seen = gc.get_threshold(), []
    monkeypatch.setattr(cli, "main", lambda: seen.append(gc.get_threshold()))
    try:
        cli.run()
        assert seen == [cli.GC_THRESHOLD]
        with parallel._new_pool(1) as pool:
            assert pool.submit(gc.get_threshold).result() == cli.GC_THRESHOLD
    finally:
        gc.set_threshold(*before)
    with parallel._new_pool(1) as pool:
        assert pool.submit(gc.get_threshold).result() == before
