"""doctor mlflow://... --write-back against a real `mlflow server` on localhost (artifact serving
on): every judged run is tagged with its verdict and codes and gets its JSON report as an
artifact; running it again leaves exactly the same state."""

from __future__ import annotations

import json
import urllib.request

import pytest
from _mlflow_server import _log_run, _rest, serve

from trainlint.report.mlflow_writeback import _proxied_path, server_run


def test_server_run_and_proxied_paths():
    assert server_run("mlflow://h:5000/exp/abc123") == ("http://h:5000", "abc123")
    assert server_run("mlflow://h:5000/exp") is None and server_run("runs/a/metrics.jsonl") is None
    assert _proxied_path("mlflow-artifacts:/1/abc/artifacts") == "1/abc/artifacts"
    assert _proxied_path("mlflow-artifacts://h:5000/1/abc/artifacts") == "1/abc/artifacts"
    assert _proxied_path("/srv/mlruns/1/abc/artifacts") is None


@pytest.fixture
def served(tmp_path):
    """A tracking server that proxies artifacts (runs stored at mlflow-artifacts:/...)."""
    yield from serve(
        tmp_path,
        ["--artifacts-destination", str(tmp_path / "artifacts"), "--serve-artifacts"],
    )


@pytest.fixture
def unproxied(tmp_path):
    """A tracking server that keeps artifacts in a local folder it does not proxy."""
    yield from serve(
        tmp_path,
        [
            "--default-artifact-root",
            str(tmp_path / "artifacts"),
            "--no-serve-artifacts",
        ],
    )


def _state(base: str, run_id: str) -> tuple[dict, list, bytes]:
    with urllib.request.urlopen(f"{base}/api/2.0/mlflow/runs/get?run_id={run_id}", timeout=30) as resp:
        run = json.loads(resp.read())["run"]
    tags = {t["key"]: t["value"] for t in run["data"].get("tags", []) if t["key"].startswith("trainlint.")}
    root = _proxied_path(run["info"]["artifact_uri"])
    listed = f"{base}/api/2.0/mlflow/artifacts/list?run_id={run_id}&path=trainlint"  # what the UI shows
    with urllib.request.urlopen(listed, timeout=30) as r:
        files = sorted(f["path"] for f in json.loads(r.read()).get("files", []))
    with urllib.request.urlopen(
        f"{base}/api/2.0/mlflow-artifacts/artifacts/{root}/trainlint/report.json",
        timeout=30,
    ) as r:
        body = r.read()
    return tags, files, body


@pytest.mark.slow
def test_write_back_tags_and_report_artifact_idempotent(served, cli):
    exp_id = _rest(served, "experiments/create", {"name": "fleet"})["experiment_id"]
    healthy = [3.0 - 0.2 * i for i in range(12)]
    diverged = [3.0 - 0.2 * i for i in range(6)] + [5.0, 9.0, 20.0, 40.0, 80.0, 160.0]
    runs = {
        "healthy": _log_run(served, exp_id, "healthy", healthy, "FINISHED", 1000),
        "hot": _log_run(served, exp_id, "hot", diverged, "FAILED", 2000),
        "also-healthy": _log_run(served, exp_id, "also-healthy", healthy[:10], "FINISHED", 3000),
    }
    uri = served.replace("http://", "mlflow://") + "/fleet"

    first = cli("doctor", uri, "--format", "json", "--write-back")
    assert first.code == 1, first.err
    reports = {r["source"].rsplit("/", 1)[1]: r for r in first.json()["reports"]}
    assert set(reports) == set(runs.values())
    assert first.err.count("tagged") == 3 and "report in trainlint/report.json" in first.err
    states = {}
    for rid in runs.values():
        tags, files, body = _state(served, rid)
        report = reports[rid]
        want = sorted({f["code"] for f in report["findings"] if f["severity"] in ("FAIL", "WARN")})
        assert tags["trainlint.verdict"] == report["verdict"]
        assert tags["trainlint.codes"] == ",".join(want)
        assert files == ["trainlint/report.json"]
        uploaded = json.loads(body)
        assert uploaded["reports"] == [report] and uploaded["verdict"] == report["verdict"]
        states[rid] = (tags, files, body)
    assert _state(served, runs["hot"])[0]["trainlint.verdict"] == "FAIL"
    assert "TL010" in _state(served, runs["hot"])[0]["trainlint.codes"].split(",")

    again = cli("doctor", uri, "--format", "json", "--write-back")
    assert again.code == 1 and again.out == first.out
    for rid in runs.values():
        assert _state(served, rid) == states[rid]  # the same tags, one artifact, the same bytes


@pytest.mark.slow
def test_write_back_without_artifact_proxy_still_tags(unproxied, cli):
    server = unproxied
    exp_id = _rest(server, "experiments/create", {"name": "plain"})["experiment_id"]
    rid = _log_run(server, exp_id, "healthy", [3.0 - 0.2 * i for i in range(12)], "FINISHED", 1000)
    r = cli("doctor", server.replace("http://", "mlflow://") + "/plain", "--write-back")
    assert r.code == 0 and "tagged PASS (no codes)" in r.err and "report not uploaded" in r.err
    with urllib.request.urlopen(f"{server}/api/2.0/mlflow/runs/get?run_id={rid}", timeout=30) as resp:
        tags = {t["key"]: t["value"] for t in json.loads(resp.read())["run"]["data"]["tags"]}
    assert tags["trainlint.verdict"] == "PASS" and tags["trainlint.codes"] == ""


def test_write_back_with_no_server_run_says_so(tmp_path, cli):
    (tmp_path / "m.jsonl").write_text("".join(f'{{"step": {i}, "loss": {3 - 0.1 * i}}}\n' for i in range(20)))
    r = cli("doctor", str(tmp_path), "--write-back")
    assert "no tracking-server run among the inputs" in r.err
