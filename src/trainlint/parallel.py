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
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import msgspec

from .verdict import Report

TASKS_PER_CHILD = 1000  # a fresh worker costs ~0.25 s CPU: at 200 that was 3% of a fleet scan
IN_FLIGHT_PER_WORKER = 2
OnReport = Callable[[Report], None]
# Runs the (index, task) pairs somewhere else (trainlint.integrations.ray_doctor.RayExecutor):
# called with them, the options, the TRAINLINT_* environment and run_task; yields
# (index, reports) as each task finishes.
Executor = Callable[..., Iterator[tuple[int, list[Report]]]]


class Task(msgspec.Struct, frozen=True):
    """One unit of work: what to judge and how; picklable and small."""

    kind: str  # "item" | "uri" | "missing" | "not-regular" | "unclaimed" | "baseline-log" | "group"
    target: str  # a path, or an mlflow:// address
    inspector: str | None = None  # "module.Class" of the inspector that recognised it
    part: str | None = None  # the run inside a file that holds several
    size: int = 0  # bytes on disk: the biggest inputs are started first
    match: str | None = None  # the reader discovery matched (by name), so workers do not sniff again
    steps: tuple[Task, ...] = ()  # "group": the items of one HF output folder, folded into one report

    @property
    def inputs(self) -> int:
        return len(self.steps) or 1


def inspector_key(ins: Any) -> str:
    owner = type(getattr(ins.sniff, "__self__", ins))
    return f"{owner.__module__}.{owner.__qualname__}"


def _match_name(ins: Any, part: str | None) -> str | None:
    """The name of the reader discovery bound to the inspector's judge (``match=``), if any."""
    import functools

    bound = ins.judge_part if part is not None else ins.judge
    match = bound.keywords.get("match") if isinstance(bound, functools.partial) else None
    name = getattr(match, "name", None)
    return name if isinstance(name, str) else None


def _size(path: Path) -> int:
    try:
        return path.stat().st_size if path.is_file() else 0
    except OSError:
        return 0


def _item_task(item: Any, baseline: bool) -> Task:
    if baseline and item.inspector.kind == "log":
        return Task("baseline-log", str(item.path), size=_size(item.path))
    key, match = inspector_key(item.inspector), _match_name(item.inspector, item.part)
    return Task("item", str(item.path), key, item.part, _size(item.path), match)


def plan(
    paths: Iterable[str | Path], options: Any, on_found: Callable[[int, str], None] | None = None, stats: Any = None
) -> list[Task]:
    """Every input under ``paths``, in the order the serial doctor judges them (the items of
    one HF output folder make one task). ``on_found(count, path)`` as inputs are found."""
    from .discover import walk
    from .inspectors import runfold
    from .inspectors.logs import is_uri
    from .safeio import file_kind

    baseline = bool(getattr(options, "baseline", ()))
    tasks: list[Task] = []
    found = 0
    for raw in paths:
        if is_uri(str(raw)):
            tasks.append(Task("uri", str(raw)))
            continue
        path = Path(raw)
        kind = file_kind(path)
        if kind == "missing":
            tasks.append(Task("missing", str(raw)))
            continue
        if kind not in ("file", "dir"):  # a FIFO, socket or device named explicitly: never opened
            tasks.append(Task("not-regular", str(raw)))
            continue
        items = []
        for item in walk(path, options=options, stats=stats):
            items.append(item)
            found += 1
            if on_found is not None:
                on_found(found, str(item.path))
        if not items and path.is_file():
            tasks.append(Task("unclaimed", str(path), size=_size(path)))
            continue
        for group in runfold.plan(items):
            steps = tuple(_item_task(item, baseline) for item in group)
            if len(steps) == 1:
                tasks.append(steps[0])
            else:
                tasks.append(Task("group", steps[0].target, size=sum(t.size for t in steps), steps=steps))
    return tasks


# -- the worker side -----------------------------------------------------------------------
_SESSION: tuple[Any, Any] | None = None


def _inspector(key: str) -> Any:
    from .discover import load_inspectors

    for ins in load_inspectors():
        if inspector_key(ins) == key:
            return ins
    raise LookupError(f"no inspector {key} in this worker (is it running the same trainlint?)")


def baseline_session(options: Any) -> Any:
    """One baseline session per worker process (the baseline is read once per worker)."""
    global _SESSION
    from .inspectors.comparison import BaselineSession

    key = tuple(str(b) for b in options.baseline)
    if _SESSION is None or _SESSION[0] != key:
        _SESSION = (key, BaselineSession(tuple(options.baseline), options))
    return _SESSION[1]


def _judge_task(task: Task, options: Any) -> list[Report]:
    if task.kind == "uri":
        from .inspectors.logs import judge_uri

        return judge_uri(task.target, options)
    if task.kind == "missing":
        return [Report(source=task.target, kind="log", unjudged="no such file or folder")]
    if task.kind == "not-regular":
        from .safeio import file_kind, not_regular_reason

        return [Report(source=task.target, kind="log", unjudged=not_regular_reason(file_kind(task.target)))]
    if task.kind == "unclaimed":
        return [_judge_unclaimed(Path(task.target), options)]
    if task.kind == "baseline-log":
        return list(baseline_session(options).doctor_log(Path(task.target)))
    if task.kind == "group":
        from .inspectors import runfold

        reports = [r for step in task.steps for r in _judge_task(step, options)]
        return runfold.fold(reports, Path(task.steps[0].target))
    ins = _inspector(str(task.inspector))
    extra = {"match": _reader(task.match)} if task.match is not None and ins.takes_match else {}
    if task.part is not None and ins.judge_part is not None:
        return [ins.judge_part(Path(task.target), task.part, options, **extra)]
    return [ins.judge(Path(task.target), options, **extra)]


def _judge_unclaimed(path: Path, options: Any) -> Report:
    """A file named explicitly that no inspector recognised: tried as a log anyway (as the
    serial doctor does)."""
    from .inspectors.logs import judge_log
    from .readers import ReadError, read_any

    try:
        run = read_any(path, options.read)
    except ReadError:
        return Report(source=str(path), kind="log", unjudged="not an input trainlint recognises")
    return judge_log(run, options)


def _reader(name: str) -> Any:
    from .readers import reader_named

    found = reader_named(name)
    if found is None:
        raise LookupError(f"no reader {name} in this worker (is it running the same trainlint?)")
    return found


def run_task(task: Task, options: Any, env: dict[str, str] | None = None) -> list[Report]:
    """Judge one task; what a pool worker or a Ray task runs. ``env``: the parent's
    ``TRAINLINT_*`` variables such as ``TRAINLINT_DEBUG`` (a Ray worker on another machine does
    not inherit them); everything else the user asked for travels in ``options``."""
    if env:
        os.environ.update(env)
    from .isolate import judge_isolated

    # one input that raises or runs past --timeout-per-input becomes its own NOT-CHECKED report (issue 20)
    return judge_isolated(
        lambda: _judge_task(task, options), task.target, "log", getattr(options, "timeout_per_input", None)
    )


def _warm(gc_threshold: tuple[int, ...] | None = None) -> None:
    """Pool initializer: load every reader, inspector and rule once per worker, whose garbage
    collector runs as often as the parent's (a spawned process starts with the default)."""
    if gc_threshold is not None:
        import gc

        gc.set_threshold(*gc_threshold)
    from .discover import load_inspectors
    from .readers import load_readers
    from .registry import REGISTRY

    load_inspectors()
    load_readers()
    REGISTRY.load()


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k.startswith("TRAINLINT_")}


# -- the parent side -----------------------------------------------------------------------
def by_size(tasks: list[Task]) -> list[tuple[int, Task]]:
    """Biggest first (the long inputs do not end up last on one worker); ties in task order."""
    return sorted(enumerate(tasks), key=lambda it: (-it[1].size, it[0]))


def _inline(tasks: list[Task], options: Any) -> Iterator[tuple[int, list[Report]]]:
    env = _env()
    for i, task in enumerate(tasks):
        yield i, run_task(task, options, env)


_UNGUARDED = (
    "a worker process died: out of memory, or a script that calls doctor(jobs>1) "
    "without an `if __name__ == '__main__':` guard (worker processes are spawned)"
)


def _new_pool(workers: int) -> Any:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    if getattr(multiprocessing.current_process(), "_inheriting", False):
        # a spawned child still importing an unguarded __main__: fail before making a pool (its
        # semaphores would be reported leaked after the parent's one-line reason)
        raise RuntimeError(_UNGUARDED)
    import gc

    kwargs: dict[str, Any] = {
        "max_workers": workers,
        "initializer": _warm,
        "initargs": (gc.get_threshold(),),
        "mp_context": multiprocessing.get_context("spawn"),
    }
    if sys.version_info >= (3, 11):
        kwargs["max_tasks_per_child"] = TASKS_PER_CHILD
    return ProcessPoolExecutor(**kwargs)


@contextmanager
def started_pool(jobs: int) -> Iterator[Any]:
    """For an explicit ``jobs`` > 1, a process pool whose workers start now, so that they import
    numpy and the plugins while the parent is still walking the paths; None otherwise (one
    process, or ``jobs=0``, which decides after the walk)."""
    if jobs <= 1:
        yield None
        return
    pool = _new_pool(jobs)
    try:
        for _ in range(jobs):  # each submission starts one more worker, up to ``jobs``
            pool.submit(_noop)
        yield pool
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _noop() -> None:
    return None


def _pool(tasks: list[Task], options: Any, jobs: int, pool: Any = None) -> Iterator[tuple[int, list[Report]]]:
    from concurrent.futures import FIRST_COMPLETED, Future, wait
    from concurrent.futures.process import BrokenProcessPool

    workers = min(jobs, len(tasks))
    own = pool is None
    pool = _new_pool(workers) if own else pool
    env, queue = _env(), iter(by_size(tasks))
    pending: dict[Future[list[Report]], int] = {}
    try:
        while True:
            for i, task in queue:  # a pool already broken refuses here, a breaking one in result()
                pending[pool.submit(run_task, task, options, env)] = i
                if len(pending) >= workers * IN_FLIGHT_PER_WORKER:
                    break
            if not pending:
                return
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for fut in done:
                yield pending.pop(fut), list(fut.result())
    except BrokenProcessPool:
        raise RuntimeError(_UNGUARDED) from None
    finally:
        if own:
            pool.shutdown(wait=True, cancel_futures=True)


def execute(
    tasks: list[Task],
    options: Any,
    jobs: int = 1,
    on_report: OnReport | None = None,
    executor: Executor | None = None,
    on_done: Callable[[Task], None] | None = None,
    pool: Any = None,
) -> list[Report]:
    """Judge the tasks (inline, in a process pool, or with ``executor``, e.g. Ray's);
    reports in task order. ``on_report`` gets each report, ``on_done`` each task, as they finish.
    ``pool``: a pool from :func:`started_pool` to use (and leave running) instead of a new one."""
    if jobs == 0:  # automatic: a pool per core only when the scan repays starting one
        jobs = default_jobs() if worth_a_pool(tasks) else 1
    if executor is not None:
        stream = executor(by_size(tasks), options, _env(), run_task)
    elif jobs > 1 and len(tasks) > 1:
        stream = _pool(tasks, options, jobs, pool)
    else:
        stream = _inline(tasks, options)
    done: dict[int, list[Report]] = {}
    for i, reports in stream:
        done[i] = reports
        if on_done is not None:
            on_done(tasks[i])
        for report in reports:
            if on_report is not None:
                on_report(report)
    return [r for i in range(len(tasks)) for r in done[i]]


# Starting a worker costs about a third of a CPU-second (Python, numpy, the plugins): below
# these sizes the serial path finishes first.
POOL_MIN_INPUTS = 32
POOL_MIN_BYTES = 32 * 2**20


def worth_a_pool(tasks: list[Task]) -> bool:
    """Is the scan big enough (many inputs, or many bytes) to repay starting worker processes?"""
    if len(tasks) < 2:
        return False
    return sum(t.inputs for t in tasks) >= POOL_MIN_INPUTS or sum(t.size for t in tasks) >= POOL_MIN_BYTES


def default_jobs() -> int:
    """The number of cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)
