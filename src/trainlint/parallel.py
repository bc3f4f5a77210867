"""Judge many inputs at once: ``doctor --jobs N`` (a process pool) and ``doctor --ray``.

The parent walks the paths (discovery is cheap: it reads a few kilobytes per file) and
turns every input into a :class:`Task` in the order the serial ``doctor`` would judge it.
Workers run :func:`run_task` (read, judge, return the Reports: never a Run, so only the
small results cross the process boundary) and the parent reassembles the reports in task
order, so the Result does not depend on which worker finished first. Each report is also
handed to ``on_report`` as soon as it arrives, for streaming.

Memory stays bounded by the largest single input: at most ``2 * workers`` tasks are in
flight, each worker holds one input at a time, and pool workers are recycled after
:data:`TASKS_PER_CHILD` tasks.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .verdict import Report

TASKS_PER_CHILD = 200
IN_FLIGHT_PER_WORKER = 2
OnReport = Callable[[Report], None]


@dataclass(frozen=True)
class Task:
    """One unit of work: what to judge and how; picklable and small."""

    kind: str  # "item" | "uri" | "missing" | "unclaimed" | "baseline-log"
    target: str  # a path, or an mlflow:// address
    inspector: str | None = None  # "module.Class" of the inspector that recognised it
    part: str | None = None  # the run inside a file that holds several
    size: int = 0  # bytes on disk: the biggest inputs are started first


def inspector_key(ins: Any) -> str:
    owner = type(getattr(ins.sniff, "__self__", ins))
    return f"{owner.__module__}.{owner.__qualname__}"


def _size(path: Path) -> int:
    try:
        return path.stat().st_size if path.is_file() else 0
    except OSError:
        return 0


def plan(paths: Iterable[str | Path], options: Any) -> list[Task]:
    """Every input under ``paths``, in the order the serial doctor judges them."""
    from .discover import walk
    from .inspectors.logs import is_uri

    baseline = bool(getattr(options, "baseline", ()))
    tasks: list[Task] = []
    for raw in paths:
        if is_uri(str(raw)):
            tasks.append(Task("uri", str(raw)))
            continue
        path = Path(raw)
        if not path.exists():
            tasks.append(Task("missing", str(raw)))
            continue
        items = list(walk(path))
        if not items and path.is_file():
            tasks.append(Task("unclaimed", str(path), size=_size(path)))
            continue
        for item in items:
            if baseline and item.inspector.kind == "log":
                tasks.append(
                    Task("baseline-log", str(item.path), size=_size(item.path))
                )
            else:
                tasks.append(
                    Task(
                        "item",
                        str(item.path),
                        inspector_key(item.inspector),
                        item.part,
                        _size(item.path),
                    )
                )
    return tasks


# -- the worker side -----------------------------------------------------------------------
_SESSION: tuple[Any, Any] | None = None


def _inspector(key: str) -> Any:
    from .discover import load_inspectors

    for ins in load_inspectors():
        if inspector_key(ins) == key:
            return ins
    raise LookupError(
        f"no inspector {key} in this worker (is it running the same trainlint?)"
    )


def _baseline_session(options: Any) -> Any:
    """One baseline session per worker process (the baseline is read once per worker)."""
    global _SESSION
    from . import compare

    key = tuple(str(b) for b in options.baseline)
    if _SESSION is None or _SESSION[0] != key:
        _SESSION = (key, compare.BaselineSession(tuple(options.baseline), options))
    return _SESSION[1]


def _judge_task(task: Task, options: Any) -> list[Report]:
    if task.kind == "uri":
        from .inspectors.logs import judge_uri

        return judge_uri(task.target, options)
    if task.kind == "missing":
        return [
            Report(source=task.target, kind="log", unjudged="no such file or folder")
        ]
    if task.kind == "unclaimed":
        from .api import _judge_unclaimed

        return [_judge_unclaimed(Path(task.target), options)]
    if task.kind == "baseline-log":
        return list(_baseline_session(options).doctor_log(Path(task.target)))
    ins = _inspector(str(task.inspector))
    if task.part is not None and ins.judge_part is not None:
        return [ins.judge_part(Path(task.target), task.part, options)]
    return [ins.judge(Path(task.target), options)]


def run_task(
    task: Task, options: Any, env: dict[str, str] | None = None
) -> list[Report]:
    """Judge one task; what a pool worker or a Ray task runs. ``env``: the parent's
    ``TRAINLINT_*`` variables (a Ray worker on another machine does not inherit them)."""
    from .readers.console import use_patterns

    if env:
        os.environ.update(env)
    with use_patterns(getattr(options, "patterns", ())):
        return _judge_task(task, options)


def _warm() -> None:
    """Pool initializer: load every reader, inspector and rule once per worker."""
    from .discover import load_inspectors
    from .readers import load_readers
    from .registry import REGISTRY

    load_inspectors()
    load_readers()
    REGISTRY.load()


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k.startswith("TRAINLINT_")}


# -- the parent side -----------------------------------------------------------------------
def _by_size(tasks: list[Task]) -> list[tuple[int, Task]]:
    """Biggest first (the long inputs do not end up last on one worker); ties in task order."""
    return sorted(enumerate(tasks), key=lambda it: (-it[1].size, it[0]))


def _inline(tasks: list[Task], options: Any) -> Iterator[tuple[int, list[Report]]]:
    env = _env()
    for i, task in enumerate(tasks):
        yield i, run_task(task, options, env)


def _pool(
    tasks: list[Task], options: Any, jobs: int
) -> Iterator[tuple[int, list[Report]]]:
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait

    workers = min(jobs, len(tasks))
    kwargs: dict[str, Any] = {
        "max_workers": workers,
        "initializer": _warm,
        "mp_context": multiprocessing.get_context("spawn"),
    }
    if sys.version_info >= (3, 11):
        kwargs["max_tasks_per_child"] = TASKS_PER_CHILD
    env, queue = _env(), iter(_by_size(tasks))
    pending: dict[Future[list[Report]], int] = {}
    pool = ProcessPoolExecutor(**kwargs)
    try:
        while True:
            for i, task in queue:
                pending[pool.submit(run_task, task, options, env)] = i
                if len(pending) >= workers * IN_FLIGHT_PER_WORKER:
                    break
            if not pending:
                return
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for fut in done:
                yield pending.pop(fut), _result(fut)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _result(fut: Any) -> list[Report]:
    from concurrent.futures.process import BrokenProcessPool

    try:
        return list(fut.result())
    except BrokenProcessPool:
        raise RuntimeError(
            "a worker process died: out of memory, or a script that calls doctor(jobs>1) "
            "without an `if __name__ == '__main__':` guard (worker processes are spawned)"
        ) from None


def execute(
    tasks: list[Task],
    options: Any,
    jobs: int = 1,
    on_report: OnReport | None = None,
    ray_address: str | None = None,
) -> list[Report]:
    """Judge the tasks (inline, in a process pool, or as Ray tasks); reports in task order."""
    if ray_address is not None:
        from .parallel_ray import ray_stream

        stream = ray_stream(tasks, options, ray_address, jobs, _env())
    elif jobs > 1 and len(tasks) > 1:
        stream = _pool(tasks, options, jobs)
    else:
        stream = _inline(tasks, options)
    done: dict[int, list[Report]] = {}
    for i, reports in stream:
        done[i] = reports
        for report in reports:
            if on_report is not None:
                on_report(report)
    return [r for i in range(len(tasks)) for r in done[i]]


def default_jobs() -> int:
    """The number of cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def doctor(
    paths: Iterable[str | Path],
    options: Any,
    jobs: int,
    on_report: OnReport | None = None,
    ray_address: str | None = None,
) -> Any:
    """``api.doctor`` with the judging spread over processes or Ray tasks; the same Result."""
    from . import api, compare
    from .readers.console import use_patterns
    from .verdict import Result

    paths = list(paths)
    with use_patterns(getattr(options, "patterns", ())):
        tasks = plan(paths, options)
    result = Result(command="doctor")
    result.reports = execute(tasks, options, jobs, on_report, ray_address)
    with use_patterns(getattr(options, "patterns", ())):
        explicit = api._explicit_inputs(paths, options)
    for report in explicit:
        result.reports.append(report)
        if on_report is not None:
            on_report(report)
    if not result.reports:
        result.empty_reason = "nothing to judge found under " + ", ".join(
            str(p) for p in paths
        )
    session = api._baseline_session(options)
    if session is not None:
        result.extra["table"] = compare.table(result.reports, session.baseline)
    return result
