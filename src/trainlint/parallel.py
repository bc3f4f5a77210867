"""Judge many inputs at once: ``doctor --jobs N`` (a process pool) and ``doctor --ray``.

The parent walks the paths (discovery is cheap: it reads a few kilobytes per file) and
turns every input into a typed task in the order the serial ``doctor`` would judge it: a
``discover.Item`` (an input with its inspector and the reader its sniffer matched), an
:class:`Address`, an :class:`Unreadable` or :class:`Unclaimed` path, a :class:`BaselineLog`,
or a :class:`Group` (one run folder). Each judges itself, ``task.judge(options)``, wrapped by
``isolate.judge_isolated``. In this process the tasks are judged as they are; only at the
process-pool and Ray boundary is an Item sent by name (:class:`ItemRef`), its inspector and
reader looked up once in the worker. Workers run :func:`run_task` (read, judge, return the
Reports: never a Run, so only the small results cross the process boundary) and the parent
reassembles the reports in task order, so the Result does not depend on which worker
finished first. Each report is also handed to ``on_report`` as soon as it arrives, for
streaming.

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
from typing import TYPE_CHECKING, Any

import msgspec

from .discover import Item, ScanStats, inspector_named
from .isolate import judge_isolated
from .options import Options
from .verdict import Interrupted, Report, signal_of

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

    from .inspectors.comparison import BaselineSession

TASKS_PER_CHILD = 1000  # a fresh worker costs ~0.25 s CPU: at 200 that was 3% of a fleet scan
IN_FLIGHT_PER_WORKER = 2
OnReport = Callable[[Report], None]
# Runs the (index, sent task) pairs somewhere else (trainlint.integrations.ray_doctor.RayExecutor):
# called with them, the options, the TRAINLINT_* environment and run_task; yields
# (index, reports) as each task finishes.
Executor = Callable[..., Iterator[tuple[int, list[Report]]]]


# -- the tasks: each judges itself (``judge(options)``); a discovered input is a discover.Item --
class Address(msgspec.Struct, frozen=True):
    """An ``mlflow://`` address: every run behind it."""

    target: str
    size: int = 0
    inputs: int = 1

    def judge(self, options: Options) -> list[Report]:
        from .inspectors.logs import judge_uri

        return judge_uri(self.target, options)


class Unreadable(msgspec.Struct, frozen=True):
    """A path named explicitly that is not judged: missing, or not a regular file or folder (a
    FIFO, socket, device or pseudo-file is never opened)."""

    target: str
    reason: str
    size: int = 0
    inputs: int = 1

    def judge(self, options: Options) -> list[Report]:
        return [Report(source=self.target, kind="log", unjudged=self.reason)]


class Unclaimed(msgspec.Struct, frozen=True):
    """A file named explicitly that no inspector recognised: tried as a log anyway."""

    target: str
    size: int = 0
    inputs: int = 1

    def judge(self, options: Options) -> list[Report]:
        from .inspectors.logs import judge_log
        from .readers import ReadError, read_any

        try:
            run = read_any(Path(self.target), options.read)
        except ReadError:
            return [Report(source=self.target, kind="log", unjudged="not an input trainlint recognises")]
        return [judge_log(run, options)]


class BaselineLog(msgspec.Struct, frozen=True):
    """A log judged and compared with ``options.baseline`` (one baseline session per process)."""

    target: str
    size: int = 0
    inputs: int = 1

    def judge(self, options: Options) -> list[Report]:
        return list(baseline_session(options).doctor_log(Path(self.target)))


class Group(msgspec.Struct, frozen=True):
    """The inputs of one run folder (HF output, Lightning version), folded into one report."""

    steps: tuple[Any, ...]  # Item or BaselineLog (ItemRef while crossing a process boundary)
    size: int = 0

    @property
    def target(self) -> str:
        return str(self.steps[0].target)

    @property
    def inputs(self) -> int:
        return len(self.steps)

    def judge(self, options: Options) -> list[Report]:
        from .inspectors import runfold

        reports = [r for step in self.steps for r in step.judge(options)]
        return runfold.fold(reports, Path(self.target))


Task = Item | Address | Unreadable | Unclaimed | BaselineLog | Group


# -- the process boundary: an Item travels by name, resolved once in the worker ------------
class ItemRef(msgspec.Struct, frozen=True):
    """A discover.Item as it crosses a process boundary: its inspector and reader by name."""

    target: str
    inspector: str  # Inspector.key
    reader: str | None = None  # the Reader discovery matched, so the worker does not sniff again
    part: str | None = None
    size: int = 0
    inputs: int = 1

    def resolve(self) -> Item:
        from .readers import reader_named

        match = None
        if self.reader is not None:
            match = reader_named(self.reader)
            if match is None:
                raise LookupError(f"no reader {self.reader} in this process (is it running the same trainlint?)")
        return Item(Path(self.target), inspector_named(self.inspector), match, self.part, size=self.size)


Sent = ItemRef | Address | Unreadable | Unclaimed | BaselineLog | Group  # a Task as it crosses a process boundary


def sent(task: Task) -> Sent:
    """``task`` as it is sent to another process: an Item by name, the rest as they are."""
    if isinstance(task, Item):
        reader = getattr(task.match, "name", None) if task.match is not None else None
        return ItemRef(
            task.target, task.inspector.key, reader if isinstance(reader, str) else None, task.part, task.size
        )
    if isinstance(task, Group):
        return Group(tuple(sent(step) for step in task.steps), task.size)
    return task


def received(task: Sent) -> Task:
    """A task sent by :func:`sent`, with its inspector and reader looked up in this process."""
    if isinstance(task, ItemRef):
        return task.resolve()
    if isinstance(task, Group):
        return Group(tuple(received(step) for step in task.steps), task.size)
    return task


def _size(path: Path) -> int:
    try:
        return path.stat().st_size if path.is_file() else 0
    except OSError:
        return 0


def _item_task(item: Item, baseline: bool) -> Item | BaselineLog:
    if baseline and item.inspector.kind == "log":
        return BaselineLog(str(item.path), _size(item.path))
    return msgspec.structs.replace(item, size=_size(item.path))


def plan(
    paths: Iterable[str | os.PathLike[str]],
    options: Options,
    on_found: Callable[[int, str], None] | None = None,
    stats: ScanStats | None = None,
) -> list[Task]:
    """Every input under ``paths``, in the order the serial doctor judges them (the items of
    one HF output folder make one task). ``on_found(count, path)`` as inputs are found."""
    from .inspectors.logs import is_uri

    found = [0]
    tasks: list[Task] = []
    for raw in paths:
        if is_uri(str(raw)):
            tasks.append(Address(str(raw)))
        else:
            tasks.extend(_plan_path(raw, options, found, on_found, stats))
    return tasks


def _plan_path(
    raw: str | os.PathLike[str],
    options: Options,
    found: list[int],
    on_found: Callable[[int, str], None] | None,
    stats: ScanStats | None,
) -> list[Task]:
    from .discover import walk
    from .inspectors import runfold
    from .safeio import file_kind, not_regular_reason

    path = Path(raw)
    kind = file_kind(path)
    if kind == "missing":
        return [Unreadable(str(raw), "no such file or folder")]
    if kind not in ("file", "dir"):  # a FIFO, socket, device or pseudo-file named explicitly: never opened
        return [Unreadable(str(raw), not_regular_reason(kind))]
    items = []
    for item in walk(path, options=options, stats=stats):
        items.append(item)
        found[0] += 1
        if on_found is not None:
            on_found(found[0], str(item.path))
    if not items and kind == "file":
        return [Unclaimed(str(path), _size(path))]
    tasks: list[Task] = []
    for group in runfold.plan(items):
        steps = tuple(_item_task(item, bool(options.baseline)) for item in group)
        tasks.append(steps[0] if len(steps) == 1 else Group(steps, sum(t.size for t in steps)))
    return tasks


# -- the worker side -----------------------------------------------------------------------
_SESSION: tuple[tuple[str, ...], BaselineSession] | None = None


def baseline_session(options: Options) -> BaselineSession:
    """One baseline session per worker process (the baseline is read once per worker)."""
    global _SESSION
    from .inspectors.comparison import BaselineSession

    key = tuple(str(b) for b in options.baseline)
    if _SESSION is None or _SESSION[0] != key:
        _SESSION = (key, BaselineSession(tuple(options.baseline), options))
    return _SESSION[1]


def run_task(task: Sent, options: Options, env: dict[str, str] | None = None) -> list[Report]:
    """Judge one task sent from another process (see :func:`sent`); what a pool worker or a Ray
    task runs. ``env``: the parent's ``TRAINLINT_*`` variables such as ``TRAINLINT_DEBUG`` (a Ray
    worker on another machine does not inherit them); everything else the user asked for
    travels in ``options``."""
    if env:
        os.environ.update(env)
    return judge_isolated(received(task), options)


def _warm(gc_threshold: tuple[int, ...] | None = None) -> None:
    """Pool initializer: load every reader, inspector and rule once per worker, whose garbage
    collector runs as often as the parent's (a spawned process starts with the default)."""
    if gc_threshold is not None:
        import gc

        gc.set_threshold(*gc_threshold)
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the parent, which stops the workers
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


def _inline(tasks: list[Task], options: Options) -> Iterator[tuple[int, list[Report]]]:
    """Each task as discovery made it, in this process; one that raises or runs past
    ``options.timeout_per_input`` becomes its NOT-CHECKED report (issue 20)."""
    for i, task in enumerate(tasks):
        yield i, judge_isolated(task, options)


_UNGUARDED = (
    "a worker process died: out of memory, or a script that calls doctor(jobs>1) "
    "without an `if __name__ == '__main__':` guard (worker processes are spawned)"
)


def _new_pool(workers: int) -> ProcessPoolExecutor:
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
def started_pool(jobs: int) -> Iterator[ProcessPoolExecutor | None]:
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
    except BaseException:  # an interrupt (or a crash): the workers stop now, mid-input
        stop_pool(pool)
        raise
    pool.shutdown(wait=True, cancel_futures=True)


def stop_pool(pool: Any) -> None:
    """End a process pool at once: queued tasks cancelled, running workers terminated (an
    interrupted scan must not wait up to --timeout-per-input for each)."""
    workers = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in workers:
        proc.terminate()
    for proc in workers:
        proc.join(5)


def _noop() -> None:
    return None


def _pool(
    tasks: list[Task], options: Options, jobs: int, pool: ProcessPoolExecutor | None = None
) -> Iterator[tuple[int, list[Report]]]:
    from concurrent.futures import FIRST_COMPLETED, Future, wait
    from concurrent.futures.process import BrokenProcessPool

    workers = min(jobs, len(tasks))
    own = pool is None
    pool = pool if pool is not None else _new_pool(workers)
    env, queue = _env(), iter(by_size(tasks))
    pending: dict[Future[list[Report]], int] = {}
    try:
        while True:
            for i, task in queue:  # a pool already broken refuses here, a breaking one in result()
                pending[pool.submit(run_task, sent(task), options, env)] = i
                if len(pending) >= workers * IN_FLIGHT_PER_WORKER:
                    break
            if not pending:
                break
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for fut in done:
                yield pending.pop(fut), list(fut.result())
    except BrokenProcessPool:
        if own:
            pool.shutdown(wait=True, cancel_futures=True)
        raise RuntimeError(_UNGUARDED) from None
    except BaseException:  # an interrupt, or the consumer closing this stream: stop now
        if own:
            stop_pool(pool)
        raise
    if own:
        pool.shutdown(wait=True, cancel_futures=True)


def execute(
    tasks: list[Task],
    options: Options,
    jobs: int = 1,
    on_report: OnReport | None = None,
    executor: Executor | None = None,
    on_done: Callable[[Task], None] | None = None,
    pool: ProcessPoolExecutor | None = None,
) -> list[Report]:
    """Judge the tasks (inline, in a process pool, or with ``executor``, e.g. Ray's);
    reports in task order. ``on_report`` gets each report, ``on_done`` each task, as they finish.
    ``pool``: a pool from :func:`started_pool` to use (and leave running) instead of a new one."""
    if jobs == 0:  # automatic: a pool per core only when the scan repays starting one
        jobs = default_jobs() if worth_a_pool(tasks) else 1
    if executor is not None:
        stream = executor([(i, sent(task)) for i, task in by_size(tasks)], options, _env(), run_task)
    elif jobs > 1 and len(tasks) > 1:
        stream = _pool(tasks, options, jobs, pool)
    else:
        stream = _inline(tasks, options)
    done: dict[int, list[Report]] = {}
    try:
        for i, reports in stream:
            done[i] = reports
            if on_done is not None:
                on_done(tasks[i])
            for report in reports:
                if on_report is not None:
                    on_report(report)
    except KeyboardInterrupt as exc:  # SIGINT, or SIGTERM through the CLI's handler
        close = getattr(stream, "close", None)
        if close is not None:
            close()  # a pool or an executor stops its workers and tasks
        raise ScanInterrupted([r for i in range(len(tasks)) if i in done for r in done[i]], signal_of(exc)) from None
    return [r for i in range(len(tasks)) for r in done[i]]


class ScanInterrupted(Interrupted):
    """A scan stopped by a signal, with the reports judged by then (in task order)."""

    def __init__(self, reports: list[Report], signum: int) -> None:
        super().__init__(signum)
        self.reports = reports


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
