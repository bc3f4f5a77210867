"""How the ``trainlint`` process ends: at once when nothing is left to do at exit, the usual
way otherwise, and quietly when its reader closes the pipe."""

from __future__ import annotations

import atexit
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from trainlint import cli

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def exits(monkeypatch):
    codes: list[int] = []
    monkeypatch.setattr(os, "_exit", codes.append)
    return codes


def test_leave_ends_the_process_with_the_code_when_nothing_waits_for_exit(exits, monkeypatch):
    monkeypatch.setattr(atexit, "_ncallbacks", lambda: 0)  # pytest registers handlers of its own
    monkeypatch.setattr(cli, "_other_threads", lambda: False)  # and other tests may leave threads
    cli.leave(2)
    assert exits == [2]


def test_leave_returns_when_an_exit_handler_is_registered(exits):
    def handler() -> None:
        pass

    atexit.register(handler)
    try:
        cli.leave(0)
    finally:
        atexit.unregister(handler)
    assert exits == []


def test_leave_returns_while_another_thread_runs(exits):
    stop = threading.Event()
    t = threading.Thread(target=stop.wait)
    t.start()
    try:
        cli.leave(0)
    finally:
        stop.set()
        t.join()
    assert exits == []


def _trainlint(*args: str, **kw) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "NO_COLOR": "1"}
    env.pop("TRAINLINT_DEBUG", None)
    return subprocess.Popen([sys.executable, "-m", "trainlint", *args], env=env, cwd=ROOT, **kw)


def test_a_long_report_through_a_pipe_arrives_whole_with_its_exit_code():
    """The fast exit flushes first: a JSON report bigger than any pipe buffer parses whole."""
    proc = _trainlint("rules", "--format", "json", stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert len(out) > 1 << 16
    assert len(json.loads(out)["rules"]) > 100

    proc = _trainlint("doctor", "examples", "--format", "json", stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 1, err
    report = json.loads(out)
    assert report["exit_code"] == 1 and len(report["reports"]) == 4


def test_a_reader_closing_the_pipe_is_not_an_internal_error():
    """`trainlint rules | head -c 1`: exit 141 in silence, not 'internal error ... a trainlint bug'.
    The JSON table (over 100 KB) cannot fit in the pipe's buffer, so the write must meet the
    closed pipe."""
    proc = _trainlint("rules", "--format", "json", stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0)
    assert proc.stdout is not None
    first = proc.stdout.read(1)
    proc.stdout.close()
    _, err = proc.communicate(timeout=120)
    assert first == b"{"
    assert proc.returncode == 141, err
    assert err == b""
