"""Fatal-error signatures in console output, recorded as ``crash`` events.

Each event is ``{"type": "crash", "signature": ..., "line": N, "text": ...}``
(plus ``count`` when the same error repeats, e.g. once per rank, ``resumed``
when the log goes on with more output after it, as when a job is relaunched
into the same file, and ``phase: "saving"`` for a traceback raised while the
model or a checkpoint was written). A Python traceback is one event whose text is
its final exception line; a more specific signature inside it (CUDA out of
memory, NCCL, DataLoader worker) names it. A traceback of KeyboardInterrupt alone is an
``interrupt`` event (type ``"interrupt"``, signature ``keyboard-interrupt``): the run was
stopped, by Ctrl-C or a scheduler's SIGINT; it did not crash.
"""

from __future__ import annotations

import re
from typing import Any

from .text import Line, Needles, lazy_regex

# Optional per-rank prefixes that launchers put in front of every line.
_PREFIX = r"^(?:\[(?:rank|default)\d*\]:\s?|\d+:\s)?"

# (signature, pattern) in order of specificity: the first that matches a line names it.
SIGNATURES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "cuda-out-of-memory",
        lazy_regex(
            r"CUDA out of memory|OutOfMemoryError|CUDA error: out of memory"
            r"|CUBLAS_STATUS_ALLOC_FAILED"
        ),
    ),
    (
        "nccl-timeout",
        lazy_regex(
            r"Watchdog caught collective operation timeout|NCCL.{0,80}[Tt]imed? ?out"
            r"|ProcessGroupNCCL.{0,80}[Tt]imeout"
        ),
    ),
    (
        "nccl-error",
        lazy_regex(
            r"NCCL error|ncclInternalError|ncclSystemError|ncclUnhandledCudaError"
            r"|NCCL communicator was aborted"
        ),
    ),
    (
        "dataloader-worker-killed",
        lazy_regex(
            r"DataLoader worker \(pid\(?s?\)? ?[\d, ]+\) "
            r"(?:is killed|exited unexpectedly)"
        ),
    ),
    ("slurm-time-limit", lazy_regex(r"CANCELLED AT \S+ DUE TO TIME LIMIT")),
    ("slurm-cancelled", lazy_regex(r"\*\*\* (?:JOB|STEP) \S+ ON \S+ CANCELLED AT")),
    ("oom-killed", lazy_regex(r"oom[-_]kill event|Out of memory: Killed process|OOM killer")),
    ("killed", lazy_regex(_PREFIX + r"(?:Killed\s*$|.*\bline \d+:\s+\d+ Killed\b|Killed: 9\s*$)")),
    ("segmentation-fault", lazy_regex(r"Segmentation fault|SIGSEGV")),
    ("fatal-signal", lazy_regex(r"Bus error \(core dumped\)|SIGBUS|Aborted \(core dumped\)|Fatal Python error: ")),
    ("cuda-error", lazy_regex(r"CUDA error: |CUDA_ERROR_|cudaErrorLaunchFailure|illegal memory access")),
    (
        "child-failed",
        lazy_regex(
            r"torch\.distributed\.elastic\.multiprocessing\.errors\.ChildFailedError"
            r"|elastic\.multiprocessing\.api:failed \(exitcode: -?\d+\)"
        ),
    ),
)
# A traceback of KeyboardInterrupt alone is an ``interrupt`` event, not a crash: someone (or a
# scheduler sending SIGINT) stopped the run.
INTERRUPT = "keyboard-interrupt"
_OUTSIDE_ONLY = {"killed", "slurm-time-limit", "slurm-cancelled", "oom-killed"}  # never an exception's text
# Windows PowerShell runs ``python train.py 2>&1 | tee log`` (or ``> log``) and prints python's first
# stderr line as an error record: ``python : Traceback (most recent call last):``, then the record's
# own lines (``At line:1 char:1``, in the console's language, ``+ python train.py ..``, ``    +
# CategoryInfo ..``, ``    + FullyQualifiedErrorId : NativeCommandError``), then the traceback's rest.
_POWERSHELL = r"(?:[\w.\-]+ : )?"
_TRACEBACK = lazy_regex(_PREFIX + _POWERSHELL + r"Traceback \(most recent call last\):")
_NATIVE_COMMAND_ERROR = "NativeCommandError"
_CHAIN = r"During handling of the above exception|The above exception was the direct|Original Traceback"
_CONTINUE = lazy_regex(_PREFIX + r"(?:%s|Traceback \(most recent call last\))" % _CHAIN)
_CHAINED = lazy_regex(_PREFIX + r"(?:%s)" % _CHAIN)  # after an exception line: the traceback goes on
# Ray names a remote failure by its cause: "ray.exceptions.RayTaskError(SafetensorError): ray::task()".
_EXCEPTION = lazy_regex(
    _PREFIX + r"([A-Za-z_][\w.]*(?:Error|Exception|Interrupt|Exit|Failure|Warning)?(?:\([\w.]+\))?)"
    r"(?::\s?(.*))?$"
)
# A remote task's traceback printed right under the exception that carried it (Ray's RayTaskError
# prints the worker's frames with no "Traceback" header): the traceback goes on to the real cause.
_REMOTE_FRAME = lazy_regex(_PREFIX + r'\s+File "[^"]*", line \d+')


# Every signature holds one of these words: a log holding none has no crash (a fast first test).
_KEYWORDS = (
    "Traceback",
    "memory",
    "Memory",
    "NCCL",
    "nccl",
    "DataLoader worker",
    "CANCELLED",
    "oom",
    "OOM",
    "Killed",
    "Segmentation",
    "SIGSEGV",
    "CUDA",
    "CUBLAS",
    "ChildFailedError",
    "illegal",
    "Watchdog",
    "cudaError",
    "Bus error",
    "SIGBUS",
    "Aborted",
    "Fatal Python",
    "exitcode",
)
_KEYWORD = lazy_regex("|".join(re.escape(k) for k in _KEYWORDS))  # any(k in line for k in _KEYWORDS), in one scan
_ANY = lazy_regex("|".join(f"(?:{p.pattern})" for _, p in SIGNATURES) + r"|Traceback \(most recent call last\)", re.M)


def find_crashes(
    lines: list[Line], last_progress_line: int = 0, text: str | Needles | None = None
) -> list[dict[str, Any]]:
    """Crash events in ``lines``; ``resumed`` says whether training output follows the crash.

    Only what stayed on screen is searched (the last redraw of each line): a log whose screen
    text holds none of the signatures' words returns at once. ``text``, the log the lines were
    split from (ANSI codes removed), makes that test cheaper: without backspaces, every redraw
    is a stretch of it.
    """
    screen = text if text is not None and "\b" not in text else "\n".join(line.final for line in lines)
    if not any(k in screen for k in _KEYWORDS):
        return []
    del screen
    events: list[dict[str, Any]] = []
    seen: dict[tuple[str, str], dict[str, Any]] = {}
    i = 0
    while i < len(lines):
        cur = lines[i].final
        if _KEYWORD.search(cur) is None or _ANY.search(cur) is None:
            i += 1
            continue
        if _TRACEBACK.match(cur):
            end, exc_text, sig = _traceback(lines, i)
            if i == 0 or "Exception ignored in" not in lines[i - 1].final:  # not an unraisable-hook report
                ev = _record(events, seen, sig, lines[i].no, exc_text)
                if ev is not None and _while_saving(lines, i, end):
                    ev["phase"] = "saving"
                if ev is not None and _in_multiprocessing(lines, i, end):
                    ev["helper"] = True
            i = end + 1
            continue
        if _NOTICE.match(cur) or _GPU_PROBE.search(cur):  # a retry or a probe TensorFlow carries on after
            i += 1
            continue
        for sig, pat in SIGNATURES:
            if pat.search(cur):
                _record(events, seen, sig, lines[i].no, cur.strip()[:300])
                break
        i += 1
    for ev in events:
        ev["resumed"] = last_progress_line > ev["line"]
    # A multiprocessing helper's traceback (a finaliser, the resource sharer's thread) with the
    # training going on after it: the helper failed, not the run.
    for ev in events:
        if ev["signature"] == INTERRUPT:
            ev["type"] = "interrupt"
    return [ev for ev in events if not (ev.pop("helper", False) and ev["resumed"])]


# A C++ logger's INFO or WARNING line (TensorFlow's "2021-05-09 18:30:53.337: I tensorflow/...", glog's
# "I0509 18:30:53.337 ..."): "failed to allocate ... CUDA_ERROR_OUT_OF_MEMORY" there is a retry.
_NOTICE = lazy_regex(r"^\s*(?:\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)?: [IW] |[IW]\d{4} \d\d:\d\d:\d\d)")
# TensorFlow probing for a GPU at start-up and finding none logs an error line and carries on on the
# CPU: "E tensorflow/stream_executor/cuda/cuda_driver.cc:509] failed call to cuInit: CUDA_ERROR_NO_DEVICE"
# (didadida-r/tf-cnn cnn.log, training after it for hundreds of steps); newer builds print the same
# behind a date or as "UNKNOWN ERROR (303)". Never a crash.
_GPU_PROBE = lazy_regex(r"failed call to cuInit\b")
_FILE_FRAME = lazy_regex(r'^\s*File "([^"]*)", line \d+')


def _in_multiprocessing(lines: list[Line], start: int, end: int) -> bool:
    """Whether the traceback at ``start`` (to ``end``) starts in multiprocessing's own code (its
    outermost frame: a finaliser or a helper thread, not the training script's call)."""
    first = next((m[1] for k in range(start + 1, end + 1) if (m := _FILE_FRAME.match(lines[k].final))), "")
    return "/multiprocessing/" in first.replace("\\", "/")


def _record(
    events: list[dict[str, Any]], seen: dict[tuple[str, str], dict[str, Any]], sig: str, line: int, text: str
) -> dict[str, Any] | None:
    """Record a crash event; None when it repeats one already recorded (counted there)."""
    key = (sig, re.sub(r"\d+", "N", re.sub(_PREFIX, "", text)))  # the same error from each rank is one event
    if key in seen:
        seen[key]["count"] += 1
        return None
    ev = {"type": "crash", "signature": sig, "line": line, "text": text, "count": 1}
    seen[key] = ev
    events.append(ev)
    return ev


# A traceback raised while the model or a checkpoint was being written: its frames, or the line
# before it (the Trainer's "Saving model checkpoint to ...").
_SAVING = lazy_regex(
    r"\b(?:save_model|_save_checkpoint|save_pretrained|save_state|save_checkpoint|_save)\b|torch\.save\("
    r"|Saving model checkpoint|Saving checkpoint|Model weights saved"
)


def _while_saving(lines: list[Line], start: int, end: int) -> bool:
    """Whether the traceback at ``start`` (to ``end``) was raised while saving."""
    first = max(0, start - 1)
    return any(_SAVING.search(lines[k].final) for k in range(first, end + 1))


def _wrapped(lines: list[Line], i: int, last: int) -> bool:
    """Whether line ``i`` goes on with the traceback's line before it, cut at the console's width:
    PowerShell's ``python train.py 2>&1 | tee training.log`` wraps at a blank, which stays at the
    line's end (``  File "C:\\...\\train.py", `` then ``line 60, in load_data``). Python prints no
    traceback line with a blank at its end."""
    return last == i - 1 > 0 and lines[i - 1].final.endswith(" ") and bool(lines[i].final.strip())


def _after_error_record(lines: list[Line], start: int) -> tuple[int, int]:
    """(the line PowerShell's error record ends on, its console's width) where the traceback at
    ``start`` opens with the command's name (``python : Traceback ..``) and the record's
    ``FullyQualifiedErrorId : NativeCommandError`` line follows; else (``start``, 0). The record's
    longest line is cut at the width, as the traceback's lines after it are, at a blank or not
    (``..\\encodings\\cp`` then ``1252.py", line 19, in encode``)."""
    if " : Traceback" not in lines[start].final:
        return start, 0
    near = range(start + 1, min(start + 12, len(lines)))
    end = next((k for k in near if _NATIVE_COMMAND_ERROR in lines[k].final), start)
    return end, max((len(lines[k].final) for k in range(start, end + 1)), default=0) if end > start else 0


def _cut(lines: list[Line], i: int, last: int, width: int) -> bool:
    """Whether line ``i`` goes on with the line before it, cut at the console's ``width`` (known
    from PowerShell's error record) inside a word: no exception line starts so."""
    before = lines[i - 1].final
    return width > 0 and last == i - 1 and len(before) >= width and not _EXCEPTION.match(lines[i].final)


def _traceback(lines: list[Line], start: int) -> tuple[int, str, str]:
    """(index of the last line, exception text, signature) of the traceback starting at ``start``."""
    exc_text, raised = "", []
    last, width = _after_error_record(lines, start)
    i = last + 1
    while i < len(lines):
        text = lines[i].final
        body = re.sub(_PREFIX, "", text, count=1)
        if (
            body.startswith((" ", "\t"))
            or _CONTINUE.match(text)
            or _wrapped(lines, i, last)
            or _cut(lines, i, last, width)
        ):
            last = i
        elif _EXCEPTION.match(text) and not body.startswith("["):
            exc_text, last = body.strip()[:300], i
            raised.append(exc_text)
            nxt = lines[i + 1].final if i + 1 < len(lines) else ""
            if not (_CHAINED.match(nxt) or _REMOTE_FRAME.match(nxt)):
                break
        else:
            break
        i += 1
    sig = next(
        (s for s, pat in SIGNATURES if s not in _OUTSIDE_ONLY and any(pat.search(t) for t in raised)),
        "python-traceback",
    )
    if sig == "python-traceback" and raised and all(t.startswith("KeyboardInterrupt") for t in raised):
        sig = INTERRUPT  # Ctrl-C (or a scheduler's SIGINT): the run was stopped, it did not crash
    return last, exc_text or "Traceback (exception line missing)", sig
