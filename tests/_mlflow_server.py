"""Talking to a real MLflow tracking server in the tests: find the executable, call its REST API,
log a run. Shared by tests/readers/test_stores_mlflow_server.py and tests/report/test_writeback_mlflow.py."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request

import pytest


def _mlflow_cmd() -> list[str]:
    exe = os.environ.get("TRAINLINT_TEST_MLFLOW") or shutil.which("mlflow")
    if exe:
        return [exe]
    if importlib.util.find_spec("mlflow") is not None:
        return [sys.executable, "-m", "mlflow"]
    pytest.skip("no mlflow server available (install the mlflow extra, or set TRAINLINT_TEST_MLFLOW)")


def _rest(base: str, endpoint: str, body: dict) -> dict:
    req = urllib.request.Request(
        f"{base}/api/2.0/mlflow/{endpoint}",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(req, timeout=30) as resp:
        return json.loads(resp.read())


def _log_run(base: str, exp_id: str, name: str, losses: list[float], status: str, start: int) -> str:
    run = _rest(base, "runs/create", {"experiment_id": exp_id, "run_name": name, "start_time": start})
    rid = run["run"]["info"]["run_id"]
    metrics = [
        {"key": "train/loss", "value": v, "timestamp": 1000 + 500 * i, "step": 5 * (i + 1)}
        for i, v in enumerate(losses)
    ]
    metrics += [
        {"key": "lr", "value": 0.001, "timestamp": 1000 + 500 * i, "step": 5 * (i + 1)} for i in range(len(losses))
    ]
    _rest(base, "runs/log-batch", {"run_id": rid, "metrics": metrics, "params": [{"key": "lr", "value": "0.001"}]})
    _rest(base, "runs/update", {"run_id": rid, "status": status, "end_time": 9000})
    return rid


def serve(tmp_path, storage: list[str], env: dict[str, str] | None = None):
    """Start ``mlflow server`` on a free localhost port with a SQLite store and ``storage`` (the
    artifact options); yield its base URL; stop it. Use with ``yield from`` in a fixture."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cmd = _mlflow_cmd() + [
        "server",
        "--backend-store-uri",
        f"sqlite:///{tmp_path}/mlflow.db",
        *storage,
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--workers",
        "1",
    ]
    with open(tmp_path / "server.log", "w") as log:
        proc = subprocess.Popen(
            cmd,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            cwd=tmp_path,
            env={**os.environ, **(env or {})},
        )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 90
        while True:
            try:
                urllib.request.urlopen(f"{base}/health", timeout=2).read()
                break
            except OSError:
                if proc.poll() is not None or time.time() > deadline:
                    pytest.fail("mlflow server did not start:\n" + (tmp_path / "server.log").read_text()[-2000:])
                time.sleep(0.5)
        yield base
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)
