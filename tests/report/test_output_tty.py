"""The terminal view in a real pseudo-terminal (80 columns): colour, the progress line on
stderr, reports streamed as judged, wrapping at 80 columns; and nothing on stderr when piped."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def run_in_pty(args: list[str], cols: int = 80, env: dict[str, str] | None = None) -> tuple[int, str]:
    """Run ``python -m trainlint ARGS`` with stdout and stderr on one pty of ``cols`` columns."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, cols, 0, 0))
    full_env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "COLUMNS")}
    full_env.update({"PYTHONPATH": str(ROOT / "src"), "TERM": "xterm", **(env or {})})
    proc = subprocess.Popen(
        [sys.executable, "-m", "trainlint", *args],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=full_env,
        close_fds=True,
    )
    os.close(slave)
    chunks = []
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.5)
        if ready:
            try:
                data = os.read(master, 65536)
            except OSError:  # the child closed the pty
                break
            if not data:
                break
            chunks.append(data)
        elif proc.poll() is not None:
            break
    os.close(master)
    return proc.wait(timeout=30), b"".join(chunks).decode("utf-8", "replace")


@pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pty")
def test_colour_progress_streaming_and_width_in_a_terminal():
    code, raw = run_in_pty(
        ["doctor", str(ROOT / "examples"), str(ROOT / "evidence")],
        env={"TRAINLINT_PROGRESS_DELAY": "0"},
    )
    assert code == 1
    assert "\x1b[1;31mFAIL" in raw and "\x1b[32mPASS" in raw  # colour on a terminal
    assert "\r\x1b[K" in raw and re.search(r"trainlint: \d+ found, \d+ judged · ", raw)  # progress line
    # the progress line is cleared before each report block is printed
    assert raw.index("found, ") < raw.index("PASS  ")
    text = ANSI.sub("", raw).replace("\r\n", "\n")
    lines = [x.split("\r")[-1] for x in text.split("\n")]
    assert lines and all(len(x) <= 80 for x in lines), max(lines, key=len)
    # a finding message longer than the terminal continues on an indented line
    i = next(i for i, x in enumerate(lines) if x.startswith("  FAIL TL040 lr-zero"))
    assert lines[i + 1].startswith("        ") and not lines[i + 1].strip().startswith("help:")
    assert lines[-2].startswith("FAIL: ") or lines[-1].startswith("FAIL: ")


def test_nothing_on_stderr_when_piped():
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT / "src"),
        "TRAINLINT_PROGRESS_DELAY": "0",
    }
    proc = subprocess.run(
        [sys.executable, "-m", "trainlint", "doctor", str(ROOT / "examples")],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 1 and proc.stderr == ""
    assert "\x1b[" not in proc.stdout


def test_no_colour_with_no_color_in_a_terminal():
    code, raw = run_in_pty(["doctor", str(ROOT / "examples" / "hf-healthy")], env={"NO_COLOR": "1"})
    assert code == 0 and "PASS  " in raw and "\x1b[32m" not in raw


def test_watch_start_line_and_heartbeat_in_a_terminal(tmp_path):
    import json

    p = tmp_path / "m.jsonl"
    p.write_text("".join(json.dumps({"step": i, "loss": 1.0 / (i + 1)}) + "\n" for i in range(30)))
    code, raw = run_in_pty(["watch", str(p), "--interval", "0.05", "--idle-exit", "0.3"])
    assert code == 0
    assert "watching 1 log; Ctrl-C to stop" in raw
    assert "step 29 loss 0.03333" in raw  # the heartbeat: the latest step and loss
    assert ANSI.sub("", raw).rstrip().endswith("(exit 0)")


def test_watch_heartbeat_callback(tmp_path):
    import json

    from trainlint.live.watch import watch

    p = tmp_path / "m.jsonl"
    p.write_text("".join(json.dumps({"step": i, "loss": 2.0 - 0.01 * i}) + "\n" for i in range(10)))
    beats = []
    clock = {"t": 0.0}

    def sleep(s):
        clock["t"] += s

    watch(
        p,
        interval=1.0,
        max_time=3,
        clock=lambda: clock["t"],
        sleep=sleep,
        heartbeat=lambda path, step, metrics: beats.append((path, step, metrics.get("loss"))),
    )
    assert beats and beats[0][0] == p and beats[0][1] == 9 and abs(beats[0][2] - 1.91) < 1e-9
