"""Environment rules, group entrypoint: TL400-TL409: the user's entrypoint imported in a child process."""

from __future__ import annotations

from typing import Any

from ...registry import Context, rule
from ...verdict import Finding
from .common import BASE, _part, _where

E = dict(**BASE, group="entrypoint")


def _location(e: Any) -> dict[str, Any]:
    """Where the import failed (and the user's own frame that reached it), and how long it ran."""
    return {"file": e.file, "line": e.line, "user_file": e.user_file, "user_line": e.user_line, "seconds": e.seconds}


def _entry(ctx: Context, outcome: str) -> Any:
    e = _part(ctx, "entry", "no --entrypoint given")
    return e if e.outcome == outcome else None


# --- entrypoint -----------------------------------------------------------------------------


@rule(
    code="TL400",
    name="entrypoint-import-error",
    severity="FAIL",
    **E,
    summary="Importing the training entrypoint raises an exception.",
    explanation="""
trainlint imported your training module or script in a separate Python process (code under
`if __name__ == "__main__":` does not run) and the import raised. The same error will stop the
real run before the first step. The message names the raising file and line, and the line in
your own code that led there. Usual causes: a missing or mismatched package, a typo, a path
that only exists on another machine.""",
)
def entrypoint_import_error(ctx: Context) -> Finding | None:
    e = _entry(ctx, "exception")
    if e is None:
        return None
    via = ""
    if e.user_file and (e.user_file, e.user_line) != (e.file, e.line):
        via = f" (reached from {_where(e.user_file, e.user_line)})"
    return ctx.fire(
        f"importing {e.target} raised {e.exc_type}: {e.message} at {_where(e.file, e.line)}{via}",
        exc_type=e.exc_type,
        error=e.message,
        **_location(e),
    )


@rule(
    code="TL401",
    name="entrypoint-crashes",
    severity="FAIL",
    **E,
    summary="Importing the training entrypoint kills the Python process with a signal.",
    explanation="""
The import crashed the interpreter itself (a segmentation fault, an abort, an illegal
instruction): typically a compiled extension built for another CUDA, CPU or Python version.
The crash happened in a child process, so trainlint survived to report it; the file and line
come from Python's fault handler. Reinstall the named extension for this machine.""",
)
def entrypoint_crashes(ctx: Context) -> Finding | None:
    e = _entry(ctx, "signal")
    if e is None:
        return None
    via = f", from your {_where(e.user_file, e.user_line)}" if e.user_file and e.user_file != e.file else ""
    return ctx.fire(
        f"importing {e.target} killed Python with {e.signal} at {_where(e.file, e.line)}{via}",
        signal=e.signal,
        **_location(e),
    )


@rule(
    code="TL402",
    name="entrypoint-import-timeout",
    severity="WARN",
    **E,
    summary="Importing the training entrypoint did not finish within the timeout.",
    explanation="""
The import was still running when the timeout passed. Either the module starts work at import
time (training, downloads, waiting for other ranks) instead of under
`if __name__ == "__main__":`, or something hangs (a network mount, a lock). The location
shown is where it was when stopped. Raise --timeout if the import is merely slow.""",
)
def entrypoint_import_timeout(ctx: Context) -> Finding | None:
    e = _entry(ctx, "timeout")
    if e is None:
        return None
    return ctx.fire(
        f"importing {e.target} did not finish within {e.timeout_s:g} s; it was at "
        f"{_where(e.user_file or e.file, e.user_line or e.line)} when stopped",
        timeout_s=e.timeout_s,
        threshold=e.timeout_s,
        file=e.file,
        line=e.line,
        user_file=e.user_file,
        user_line=e.user_line,
    )


@rule(
    code="TL403",
    name="entrypoint-exits-at-import",
    severity="WARN",
    **E,
    summary="The training entrypoint calls sys.exit (or argparse exits) while being imported.",
    explanation="""
The module ended the process while it was being imported: a `sys.exit()`, or argparse parsing
the command line at module level and exiting on missing arguments. Nothing after that line
was checked. Move start-up work under `if __name__ == "__main__":` or into a main() function.""",
)
def entrypoint_exits_at_import(ctx: Context) -> Finding | None:
    e = _entry(ctx, "exit")
    if e is None:
        return None
    return ctx.fire(
        f"importing {e.target} exited with code {e.exit_code!r} at "
        f"{_where(e.user_file or e.file, e.user_line or e.line)}; the rest of it was not checked",
        exit_code=e.exit_code,
        file=e.file,
        line=e.line,
        detail=e.message,
    )


# --- resources ------------------------------------------------------------------------------
