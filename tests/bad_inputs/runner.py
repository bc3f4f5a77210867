"""Run hostile-input cases through the CLI in one process (used by tests/test_bad_inputs.py).

stdin: JSON {"cases": [{"name", "path", "args"}], "memory_bytes": N}. The process limits its own
address space (RLIMIT_AS) first. stdout: one JSON line per case {"name", "exit", "verdict",
"codes", "reasons", "skipped", "seconds", "cpu_seconds", "error"}, then {"max_rss_bytes": N}.
``seconds`` is wall time; ``cpu_seconds`` the CPU time of this process and the processes it
waited for (doctor's isolated inputs): the work a case costs, whatever else the machine runs."""

from __future__ import annotations

import contextlib
import io
import json
import resource
import sys
import time


def _limit(memory: int) -> None:
    if memory > 0:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))


def _cpu() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _one(case: dict) -> dict:
    from trainlint.cli import main

    out, err = io.StringIO(), io.StringIO()
    start, cpu = time.perf_counter(), _cpu()
    code: object = None
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(
                ["doctor", case["path"], "--format", "json", *case.get("args", [])],
                standalone_mode=False,
            )
            code = 0
        except SystemExit as exc:
            code = exc.code
        except BaseException as exc:  # noqa: BLE001 - recorded, the test fails on it
            code = f"raised {type(exc).__name__}: {exc}"[:300]
    row = {
        "name": case["name"],
        "exit": code,
        "seconds": round(time.perf_counter() - start, 3),
        "cpu_seconds": round(_cpu() - cpu, 3),
    }
    try:
        doc = json.loads(out.getvalue())
    except ValueError:
        row["error"] = (err.getvalue() or out.getvalue())[-500:]
        return row
    reps = doc["reports"]
    row.update(
        verdict=doc["verdict"],
        codes=sorted({f["code"] for r in reps for f in r["findings"] if f["severity"] in ("FAIL", "WARN")}),
        reasons=[r["reason"] for r in reps if r["reason"]] + ([doc["reason"]] if doc["reason"] else []),
        skipped=sorted(doc.get("skipped") or {}),
        notes=[n for r in reps for n in r["notes"]],
    )
    return row


def main() -> int:
    job = json.load(sys.stdin)
    _limit(int(job.get("memory_bytes", 0)))
    for case in job["cases"]:
        print(json.dumps(_one(case)), flush=True)
    print(json.dumps({"max_rss_bytes": _peak_rss()}), flush=True)
    return 0


def _peak_rss() -> int:
    """This process's peak resident memory, in bytes. On Linux, VmHWM: ru_maxrss keeps the peak of
    the process image before exec, so a child of a 1 GB pytest process reports 1 GB however
    little it used (the memory tests failed that way once the suite had loaded torch and Ray)."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


if __name__ == "__main__":
    sys.exit(main())
