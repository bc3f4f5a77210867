"""What the benchmark scripts share (run them from the repository root or this folder)."""

from __future__ import annotations

import time
from collections.abc import Callable


def best_of(fn: Callable[[], object], repeat: int = 3) -> float:
    """The fastest of ``repeat`` wall-clock timings of ``fn()`` in seconds (the least disturbed
    by whatever else the machine was doing)."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


class Child:
    """One finished child process: CPU seconds (user + system), wall seconds, peak RSS in MB
    and exit code."""

    def __init__(self, cpu: float, wall: float, rss_mb: float, rc: int) -> None:
        self.cpu, self.wall, self.rss_mb, self.rc = cpu, wall, rss_mb, rc


_WRAP = (
    "import os, resource, subprocess, sys, time\n"
    "t = time.perf_counter()\n"
    "rc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode\n"
    "w = time.perf_counter() - t\n"
    "u = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
    "print(u.ru_utime + u.ru_stime, w, u.ru_maxrss / 1024, rc)\n"
)


def run_child(cmd: list[str], env: dict[str, str] | None = None) -> Child:
    """Run ``cmd`` (output discarded) and measure it alone. It is started from a small fresh
    interpreter, so its peak RSS is its own (a child forked from a big parent would inherit
    the parent's high-water mark)."""
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-c", _WRAP, *cmd], capture_output=True, text=True, env=env, check=False
    ).stdout
    cpu, wall, mb, rc = out.split()
    return Child(float(cpu), float(wall), float(mb), int(rc))


def best_children(
    cmds: dict[str, list[str]], repeat: int, env: dict[str, str] | None = None, once: frozenset[str] = frozenset()
) -> dict[str, Child]:
    """Each command ``repeat`` times, interleaved (one round runs every command once, so a
    burst of load from other jobs hits all of them alike); per command the least CPU time,
    the least wall time and the largest peak RSS. Commands in ``once`` run in the first round only."""
    best: dict[str, Child] = {}
    for r in range(repeat):
        for name, cmd in cmds.items():
            if r and name in once:
                continue
            c = run_child(cmd, env)
            b = best.get(name)
            best[name] = (
                c if b is None else Child(min(b.cpu, c.cpu), min(b.wall, c.wall), max(b.rss_mb, c.rss_mb), c.rc)
            )
    return best
