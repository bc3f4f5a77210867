"""Entrypoint import in a child process: real crashing, failing, slow and exiting modules."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from trainlint.environment.entrypoint import classify, import_entrypoint
from trainlint.environment.facts import Subject
from trainlint.inspectors.environment import group_report

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")


def write(folder: Path, name: str, body: str) -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(body))
    return path


def judged(entry):
    report = group_report("entrypoint", "x", Subject(entry=entry))
    return report, {f.code: f for f in report.findings}


def test_segfault_by_os_kill_is_named_with_line(tmp_path):
    p = write(
        tmp_path,
        "segv_train.py",
        """\
        import os, signal
        x = 1
        os.kill(os.getpid(), signal.SIGSEGV)
        """,
    )
    e = import_entrypoint(str(p), timeout=20)
    assert e.outcome == "signal" and e.signal == "SIGSEGV"
    assert (Path(e.file).name, e.line) == ("segv_train.py", 3)
    report, f = judged(e)
    assert report.verdict.value == "FAIL"
    assert "SIGSEGV" in f["TL401"].message and "segv_train.py:3" in f["TL401"].message


def test_ctypes_crash_points_at_user_line(tmp_path):
    p = write(
        tmp_path,
        "ct.py",
        """\
        import ctypes

        ctypes.string_at(0)
        """,
    )
    e = import_entrypoint(str(p), timeout=20)
    assert e.outcome == "signal" and e.signal == "SIGSEGV"
    assert (Path(e.user_file).name, e.user_line) == ("ct.py", 3)
    _r, f = judged(e)
    assert "ct.py:3" in f["TL401"].message


def test_import_error_gives_raising_file_and_line(tmp_path, monkeypatch):
    monkeypatch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)
    write(
        tmp_path,
        "helpers.py",
        """\
        import json
        from not_installed_pkg_xyz import thing
        """,
    )
    p = write(
        tmp_path,
        "train.py",
        """\
        import os
        import helpers
        if __name__ == "__main__":
            raise SystemExit("never runs under trainlint")
        """,
    )
    before = sorted(x.name for x in tmp_path.iterdir())
    e = import_entrypoint(str(p), timeout=20)
    assert sorted(x.name for x in tmp_path.iterdir()) == before  # no __pycache__ left behind
    assert e.outcome == "exception" and e.exc_type == "ModuleNotFoundError"
    assert (Path(e.file).name, e.line) == ("helpers.py", 2)
    report, f = judged(e)
    msg = f["TL400"].message
    assert "not_installed_pkg_xyz" in msg and "helpers.py:2" in msg
    assert f["TL400"].evidence["line"] == 2 and report.verdict.value == "FAIL"


def test_module_name_form_and_main_guard_not_run(tmp_path):
    write(
        tmp_path,
        "goodmod.py",
        """\
        import json
        VALUE = 3
        if __name__ == "__main__":
            raise SystemExit(9)
        """,
    )
    e = import_entrypoint("goodmod", timeout=20, cwd=str(tmp_path))
    assert e.outcome == "ok"
    report, f = judged(e)
    assert report.verdict.value == "PASS" and f == {}
    assert "goodmod" not in sys.modules  # never imported into trainlint's own process


def test_slow_import_times_out_with_location(tmp_path):
    p = write(
        tmp_path,
        "slow.py",
        """\
        import time
        time.sleep(60)
        """,
    )
    e = import_entrypoint(str(p), timeout=1.0)
    assert e.outcome == "timeout" and e.seconds < 20
    assert (Path(e.user_file).name, e.user_line) == ("slow.py", 2)
    report, f = judged(e)
    assert report.verdict.value == "WARN"
    assert "within 1 s" in f["TL402"].message and "slow.py:2" in f["TL402"].message


def test_system_exit_at_import(tmp_path):
    p = write(
        tmp_path,
        "argv_train.py",
        """\
        import sys
        if len(sys.argv) < 5:
            sys.exit(2)
        """,
    )
    e = import_entrypoint(str(p), timeout=20)
    assert e.outcome == "exit" and e.exit_code == 2
    _r, f = judged(e)
    assert "code 2" in f["TL403"].message and "argv_train.py:3" in f["TL403"].message
    assert f["TL403"].severity.value == "WARN"


def test_syntax_error_is_an_import_error(tmp_path):
    p = write(tmp_path, "syn.py", "def f(:\n    pass\n")
    e = import_entrypoint(str(p), timeout=20)
    _r, f = judged(e)
    assert f["TL400"].evidence["exc_type"] == "SyntaxError" and "syn.py:1" in f["TL400"].message


def test_missing_script_is_not_checked_not_fail(tmp_path, cli):
    assert classify(str(tmp_path / "nope.py"))[0] == "error"
    r = cli("env", "--entrypoint", tmp_path / "nope.py", "--format", "json")
    rep = r.json()["reports"][0]
    assert rep["verdict"] == "NOT-CHECKED" and "no such script" in rep["reason"]
    assert r.code == 2


def test_cli_entrypoint_failure_exit_code(tmp_path, cli):
    write(tmp_path, "boom.py", "raise RuntimeError('config path /data/x missing')\n")
    r = cli("env", "--entrypoint", "boom", "--format", "json", cwd=tmp_path)
    rep = r.json()["reports"][0]
    assert rep["source"] == "entrypoint boom" and rep["verdict"] == "FAIL"
    assert rep["findings"][0]["code"] == "TL400" and "boom.py:1" in rep["findings"][0]["message"]
    assert r.code == 1


def test_lingering_thread_does_not_hold_the_import(tmp_path):
    p = write(
        tmp_path,
        "threads.py",
        """\
        import threading, time
        threading.Thread(target=time.sleep, args=(60,)).start()
        """,
    )
    e = import_entrypoint(str(p), timeout=30)
    assert e.outcome == "ok" and e.seconds < 10


def test_python_option_and_unstartable_interpreter(tmp_path):
    p = write(tmp_path, "fine.py", "X = 1\n")
    assert import_entrypoint(str(p), timeout=20, python=sys.executable).outcome == "ok"
    e = import_entrypoint(str(p), timeout=20, python=str(tmp_path / "no-python"))
    assert e.outcome == "error" and "could not start" in e.message
    report = group_report("entrypoint", "x", Subject(entry=e), unjudged=e.message)
    assert report.verdict.value == "NOT-CHECKED"


def test_env_json_contract_all_groups(tmp_path, cli):
    write(tmp_path, "fine.py", "X = 1\n")
    r = cli("env", "--entrypoint", tmp_path / "fine.py", "--output-dir", tmp_path, "--format", "json")
    out = r.json()
    assert out["command"] == "env"
    assert [rep["format"] for rep in out["reports"]] == ["entrypoint", "resources", "accelerators", "versions"]
    assert all(rep["kind"] == "environment" for rep in out["reports"])
    assert out["reports"][0]["verdict"] == "PASS" and out["reports"][1]["summary"]["writable"] is True
    assert sorted(x.name for x in tmp_path.iterdir()) == ["fine.py"]  # write test left nothing
    assert r.code == {"PASS": 0, "WARN": 0, "NOT-CHECKED": 2, "FAIL": 1}[out["verdict"]]
