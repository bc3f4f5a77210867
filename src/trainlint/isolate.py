"""One input's judgement, isolated: an exception or a time-out inside it becomes that input's
NOT-CHECKED report, so a folder scan survives its worst file.

:func:`judge_isolated` wraps one task's ``judge(options)`` (any object with a ``target`` and
that method: ``discover.Item`` and the tasks of ``trainlint.parallel``); it composes with any
way of running many inputs (in this process, or one task per call in a worker process) and
calls nothing but the task. The time limit is ``options.timeout_per_input``; it uses
``signal.setitimer`` and so applies only on the main thread of a process that has ``SIGALRM``;
elsewhere the call runs without one.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Protocol

from .options import Options
from .verdict import Report


class InputTimeout(BaseException):
    """Raised in the main thread when one input's judgement runs past its time limit.

    A BaseException, so that ``except Exception`` inside readers cannot swallow it."""


@contextmanager
def time_limit(seconds: float | None) -> Iterator[None]:
    """Raise InputTimeout in the body after ``seconds`` (no limit when None/0 or off the main thread)."""
    usable = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    if seconds is None or not seconds > 0 or not usable:
        yield
        return

    def _alarm(signum: int, frame: FrameType | None) -> None:
        raise InputTimeout(seconds)

    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, float(seconds))
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def internal_error_reason(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}".splitlines()[0][:300]
    return f"internal error while reading: {text} (please report this at the trainlint issue tracker)"


class Judgeable(Protocol):
    """One input's task: what it is about (``target``) and how it is judged."""

    @property
    def target(self) -> str: ...

    def judge(self, options: Options) -> list[Report]: ...


def judge_isolated(task: Judgeable, options: Options, kind: str = "log") -> list[Report]:
    """``task.judge(options)``, or one NOT-CHECKED report for ``task.target`` when it raises or
    runs past ``options.timeout_per_input``.

    With TRAINLINT_DEBUG set, exceptions other than the time-out propagate (tests see reader bugs)."""
    source, timeout = task.target, options.timeout_per_input
    try:
        with time_limit(timeout):
            out = task.judge(options)
    except InputTimeout:
        return [
            Report(
                source=source,
                kind=kind,
                files=[source],
                unjudged=f"timed out after {timeout or 0:g} s while reading (--timeout-per-input)",
            )
        ]
    except MemoryError:
        return [
            Report(
                source=source,
                kind=kind,
                files=[source],
                unjudged="ran out of memory while reading this input",
            )
        ]
    except RecursionError:
        return [
            Report(
                source=source,
                kind=kind,
                files=[source],
                unjudged="internal error while reading: RecursionError: structure nested too deeply",
            )
        ]
    except Exception as exc:
        if os.environ.get("TRAINLINT_DEBUG"):
            raise
        return [
            Report(
                source=source,
                kind=kind,
                files=[source],
                unjudged=internal_error_reason(exc),
            )
        ]
    return out
