"""Import the user's training module or script in a child process, never in trainlint's own.

The child runs a short stand-alone program (it does not import trainlint): it turns on
faulthandler (so a crash by signal or a hang prints where it happened), imports the
target (a dotted module name, or a script path run with a name other than "__main__",
so code under ``if __name__ == "__main__":`` does not start training), and writes
one JSON line describing any exception to a result file the parent reads.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ..safeio import read_str
from .facts import EntryResult

CHILD = r"""
import faulthandler, json, os, sys, traceback
target, result_path, kind, hang_after = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
sys.argv = [target]  # the module sees a command line with no arguments
faulthandler.enable()
faulthandler.dump_traceback_later(hang_after, exit=True)
def frames(tb):
    out = []
    for fr in traceback.extract_tb(tb):
        if not fr.filename.startswith("<frozen") and fr.filename != "<string>":
            out.append([fr.filename, fr.lineno])
    return out
try:
    if kind == "script":
        import runpy
        sys.path.insert(0, os.path.dirname(os.path.abspath(target)))
        runpy.run_path(target, run_name="__trainlint_import__")
    else:
        sys.path.insert(0, os.getcwd())
        import importlib
        importlib.import_module(target)
    rec = {"outcome": "ok"}
except SystemExit as exc:
    rec = {"outcome": "exit", "code": exc.code if isinstance(exc.code, (int, type(None))) else str(exc.code),
           "frames": frames(exc.__traceback__)}
except BaseException as exc:
    rec = {"outcome": "exception", "type": type(exc).__module__ + "." + type(exc).__qualname__,
           "message": str(exc)[:2000], "frames": frames(exc.__traceback__),
           "name": getattr(exc, "name", None), "filename": getattr(exc, "filename", None),
           "lineno": getattr(exc, "lineno", None)}
faulthandler.cancel_dump_traceback_later()
with open(result_path, "w") as fh:
    json.dump(rec, fh)
sys.stdout.flush()
sys.stderr.flush()
os._exit(0)  # do not wait for threads or atexit hooks the module started
"""

HANG_EXIT_MARK = "Timeout ("


def classify(target: str) -> tuple[str, str | None]:
    """("script", None) for a .py path, ("module", None) for a dotted name, or ("error", why)."""
    if target.endswith(".py") or os.sep in target or "/" in target:
        if not Path(target).is_file():
            return "error", f"no such script: {target}"
        return "script", None
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*", target):
        return "module", None
    return "error", f"not a module name or a .py file: {target!r}"


def import_entrypoint(
    target: str, timeout: float = 120.0, python: str | None = None, cwd: str | None = None
) -> EntryResult:
    kind, why = classify(target)
    if kind == "error":
        return EntryResult(target, "error", message=why)
    fd, result_path = tempfile.mkstemp(prefix="trainlint-entry-", suffix=".json")
    os.close(fd)
    hang_after = max(timeout, 0.5)
    # -B: importing must not leave __pycache__ folders in the user's tree
    cmd = [python or sys.executable, "-B", "-c", CHILD, target, result_path, kind, str(hang_after)]
    start = time.monotonic()
    try:
        proc = subprocess.run(
            cmd,
            capture_output=True,
            text=True,
            errors="replace",
            cwd=cwd,
            timeout=hang_after + 15,
            stdin=subprocess.DEVNULL,
        )
        rc, stderr = proc.returncode, proc.stderr
    except subprocess.TimeoutExpired as exc:
        rc, stderr = None, _text(exc.stderr)
    except OSError as exc:
        _unlink(result_path)
        return EntryResult(target, "error", message=f"could not start {cmd[0]}: {exc}")
    seconds = time.monotonic() - start
    try:
        record = json.loads(read_str(result_path) or "null")  # the user's code could have replaced it
    except (OSError, ValueError):
        record = None
    finally:
        _unlink(result_path)
    res = _interpret(target, kind, rc, stderr, record, hang_after)
    res.seconds = round(seconds, 3)
    return res


def _text(raw: object) -> str:
    if isinstance(raw, bytes):
        return raw.decode("utf-8", "replace")
    return raw or ""  # type: ignore[return-value]


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


_FRAME = re.compile(r'File "([^"]+)", line (\d+)')


def _interpret(target: str, kind: str, rc: int | None, stderr: str, record: dict | None, timeout: float) -> EntryResult:
    res = EntryResult(target, "ok", timeout_s=timeout)
    if record is not None:
        _from_record(res, kind, record)
        return res
    where = _fault_frames(stderr)
    if where:
        res.file, res.line = where[0]
        res.user_file, res.user_line = _user_frame(where, kind, target, deepest_first=True)
    if rc is None or HANG_EXIT_MARK in stderr:
        res.outcome = "timeout"
    elif rc < 0:
        res.outcome = "signal"
        res.signal = _signal_name(-rc)
    else:
        res.outcome = "exit"
        res.exit_code = rc
        res.message = "the process ended during import without raising (os._exit or a C-level exit)"
    return res


def _from_record(res: EntryResult, kind: str, rec: dict) -> None:
    res.outcome = str(rec.get("outcome", "error"))
    frames = [(str(f), int(n)) for f, n in rec.get("frames") or [] if n is not None]
    if frames:
        res.file, res.line = frames[-1]
        res.user_file, res.user_line = _user_frame(frames, kind, res.target, deepest_first=False)
    if res.outcome == "exit":
        res.exit_code = rec.get("code")
    elif res.outcome == "exception":
        res.exc_type = str(rec.get("type", "Exception")).removeprefix("builtins.")
        res.message = rec.get("message")
        if rec.get("filename") and rec.get("lineno"):  # SyntaxError: the offending file itself
            res.file, res.line = str(rec["filename"]), int(rec["lineno"])
            if not _third_party(res.file):
                res.user_file, res.user_line = res.file, res.line


def _fault_frames(stderr: str) -> list[tuple[str, int]]:
    out = []
    for f, n in _FRAME.findall(stderr):
        if not f.startswith("<"):
            out.append((f, int(n)))
    return out


def _user_frame(
    frames: list[tuple[str, int]], kind: str, target: str, deepest_first: bool
) -> tuple[str | None, int | None]:
    ordered = frames if deepest_first else list(reversed(frames))
    if kind == "script":
        mine = os.path.abspath(target)
        for f, n in ordered:
            if os.path.abspath(f) == mine:
                return f, n
    for f, n in ordered:
        if not _third_party(f):
            return f, n
    return None, None


def _third_party(path: str) -> bool:
    p = path.replace("\\", "/")
    if "/site-packages/" in p or "/dist-packages/" in p:
        return True
    stdlib = os.path.dirname(os.__file__).replace("\\", "/")
    return p.startswith(stdlib + "/")


def _signal_name(num: int) -> str:
    try:
        return signal.Signals(num).name
    except ValueError:
        return f"signal {num}"
