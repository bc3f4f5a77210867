"""An MLflow tracking server, read over its REST API (no mlflow import in trainlint).

The test starts a real ``mlflow server`` on localhost (the ``mlflow`` executable on PATH,
TRAINLINT_TEST_MLFLOW=/path/to/mlflow, or mlflow importable here) and fills it over REST.
"""

from __future__ import annotations

import socket

import pytest
from _mlflow_server import _log_run, _rest, serve

from trainlint import api
from trainlint.inspectors.logs import is_uri, judge_uri
from trainlint.readers import ReadError
from trainlint.readers.mlflow_store import parse_uri


def test_uri_forms():
    assert parse_uri("mlflow://127.0.0.1:5000/tiny") == ("http://127.0.0.1:5000", "tiny", None)
    assert parse_uri("mlflow://h:1/my%20exp/abc") == ("http://h:1", "my exp", "abc")
    for bad in ("mlflow://h:1", "mlflow:///x", "mlflow://h/a/b/c"):
        with pytest.raises(ReadError, match="expected mlflow://HOST:PORT/EXPERIMENT"):
            parse_uri(bad)
    assert is_uri("mlflow://h:1/x") and not is_uri("mlruns/0")


def test_unreachable_server_is_not_checked_in_one_line():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nothing listens there
    reports = judge_uri(f"mlflow://127.0.0.1:{port}/tiny", api.Options())
    assert len(reports) == 1 and reports[0].verdict.value == "NOT-CHECKED"
    assert "unreachable" in reports[0].unjudged and "\n" not in reports[0].unjudged


@pytest.fixture
def server(tmp_path):
    yield from serve(
        tmp_path, ["--default-artifact-root", str(tmp_path / "artifacts")], env={"MLFLOW_ALLOW_FILE_STORE": "true"}
    )


@pytest.mark.slow
def test_tracking_server_runs_are_judged(server):
    exp_id = _rest(server, "experiments/create", {"name": "tiny"})["experiment_id"]
    healthy = [3.0 - 0.2 * i for i in range(12)]
    diverged = [3.0 - 0.2 * i for i in range(6)] + [5.0, 9.0, 20.0, 40.0, 80.0, 160.0]
    first = _log_run(server, exp_id, "healthy", healthy, "FINISHED", 1000)
    second = _log_run(server, exp_id, "hot", diverged, "FAILED", 2000)
    uri = server.replace("http://", "mlflow://") + "/tiny"
    reports = judge_uri(uri, api.Options())
    assert [r.source for r in reports] == [f"{uri}/{first}", f"{uri}/{second}"]
    assert [r.verdict.value for r in reports] == ["PASS", "FAIL"]
    assert "TL010" in {f.code for f in reports[1].findings}
    assert reports[0].summary["loss_points"] == 12 and reports[0].format == "mlflow-server"
    one = judge_uri(f"{uri}/{second}", api.Options())
    assert [r.source for r in one] == [f"{uri}/{second}"]
    missing = judge_uri(server.replace("http://", "mlflow://") + "/nope", api.Options())
    assert missing[0].verdict.value == "NOT-CHECKED" and "no experiment 'nope'" in missing[0].unjudged


@pytest.mark.slow
def test_tracking_server_through_the_cli(server, cli):
    """`doctor` and `series` take the mlflow:// address on the command line."""
    exp_id = _rest(server, "experiments/create", {"name": "cli"})["experiment_id"]
    run_id = _log_run(server, exp_id, "healthy", [3.0 - 0.2 * i for i in range(12)], "FINISHED", 1000)
    uri = server.replace("http://", "mlflow://") + "/cli"
    r = cli("doctor", uri, "--format", "json")
    assert r.code == 0 and [x["source"] for x in r.json()["reports"]] == [f"{uri}/{run_id}"]
    s = cli("series", uri, "--format", "json")
    loss = next(row for row in s.json()["series"] if row["role"] == "loss")
    assert s.code == 0 and loss["points"] == 12 and loss["min"] == pytest.approx(0.8)
