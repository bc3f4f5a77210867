"""The ``trainlint`` command: a thin click layer over :mod:`trainlint.api`.

Each sub-command lives in its own module under ``trainlint.cli.commands`` and is
imported only when it is used (start-up stays fast)."""

from __future__ import annotations

import importlib
import os
import pkgutil
from typing import Any

import click

from .. import __version__

# The order `trainlint --help` lists the commands in (most used first); others follow by name.
ORDER = ("doctor", "data", "ckpt", "tokenizer", "env", "compare", "watch", "series", "rules")


class LazyGroup(click.Group):
    def _names(self) -> list[str]:
        from . import commands

        names = sorted(
            m.name.replace("_", "-") for m in pkgutil.iter_modules(commands.__path__) if not m.name.startswith("_")
        )
        return [n for n in ORDER if n in names] + [n for n in names if n not in ORDER]

    def list_commands(self, ctx: click.Context) -> list[str]:
        return self._names()

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in self._names():
            return None
        mod = importlib.import_module(f"{__name__}.commands.{name.replace('-', '_')}")
        return mod.command

    def invoke(self, ctx: click.Context) -> object:
        """An internal error that escapes a command exits 2 (could not judge) with one line, never 1;
        SIGINT and SIGTERM that a command did not turn into a partial result exit 130 and 143."""
        stop_on_sigterm()
        try:
            return super().invoke(ctx)
        except (
            click.exceptions.ClickException,
            click.exceptions.Exit,
            click.exceptions.Abort,
            SystemExit,
        ):
            raise
        except KeyboardInterrupt as exc:
            import sys

            from ..verdict import signal_of

            print("\ntrainlint: interrupted: nothing was judged to the end", file=sys.stderr)
            sys.exit(128 + signal_of(exc))
        except BrokenPipeError:  # the reader closed the pipe (`trainlint rules | head`): not a bug
            closed_pipe()
        except Exception as exc:
            import sys

            if os.environ.get("TRAINLINT_DEBUG"):
                raise
            line = f"{type(exc).__name__}: {exc}".splitlines()[0][:300] if str(exc) else type(exc).__name__
            print(
                f"trainlint: internal error: {line}\n  (the command did not finish: any output above is incomplete; this is a trainlint bug: please "
                "report it with the command line; TRAINLINT_DEBUG=1 shows the traceback)",
                file=sys.stderr,
            )
            sys.exit(2)

    def resolve_command(self, ctx: click.Context, args: list[str]) -> Any:
        name = args[0] if args else ""
        if args and self.get_command(ctx, name) is None and not name.startswith("-"):
            import difflib

            close = difflib.get_close_matches(name, self._names(), n=2, cutoff=0.5)
            hint = f"; did you mean {' or '.join(map(repr, close))}?" if close else ""
            ctx.fail(f"no such command {name!r}{hint} (commands: {', '.join(self._names())})")
        return super().resolve_command(ctx, args)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """Every command with its whole one-line summary (click would cut it at 45 characters)."""
        rows = []
        for name in self.list_commands(ctx):
            cmd = self.get_command(ctx, name)
            if cmd is not None and not cmd.hidden:
                rows.append((name, cmd.get_short_help_str(limit=1000)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="trainlint")
def main() -> None:
    """A deterministic linter for machine-learning training runs.

    Exit codes: 0 PASS or WARN, 1 FAIL, 2 NOT-CHECKED (could not judge).
    """


GC_THRESHOLD = (100_000, 20, 20)  # the cyclic collector's, for the CLI's process (see run)


def run() -> None:
    """The ``trainlint`` script: :func:`main` in a process tuned for a short command.

    - OpenBLAS starts one thread. trainlint does no linear algebra worth a thread pool, and
      OpenBLAS starting one thread per core costs about 0.05 s of CPU at every start on 2 cores
      (more on big machines). A value the user set wins; worker processes inherit it.
    - The cyclic garbage collector runs every 100,000 allocations of container objects, not
      every 700: importing numpy and judging a 200,000-entry log made it run about 60 times,
      for 8-10 ms of CPU, to find almost nothing (a judgement's data are numpy arrays and
      msgspec records, which it does not track). It still runs, so a long scan or ``watch``
      frees what it must. The Python API leaves the interpreter's setting alone."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    import gc

    gc.set_threshold(*GC_THRESHOLD)
    try:
        main()
    except SystemExit as exc:
        if exc.code is None or type(exc.code) is int:
            leave(exc.code or 0)
        raise


def stop_on_sigterm() -> None:
    """SIGTERM (a cancelled CI job, ``kill``) stops a command the way Ctrl-C does: what was
    judged so far is printed, marked interrupted, and the process exits 143 (issue 33)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return

    def _stop(signum: int, frame: Any) -> None:
        from ..verdict import Interrupted

        raise Interrupted(signum)

    signal.signal(signal.SIGTERM, _stop)


def closed_pipe() -> None:
    """Exit quietly with 141 (128 + SIGPIPE, what a shell reports for any tool its reader
    stopped): the output was cut by the reader, nothing went wrong in trainlint."""
    import sys

    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # the buffered rest: nowhere
    except (OSError, ValueError):  # a stream without a file descriptor (an embedding caller's)
        pass
    sys.exit(141)


def leave(code: int) -> None:
    """End the process now with ``code`` when nothing is left to do at exit: the output is
    flushed, no exit handler is registered and no other thread runs. The interpreter's
    teardown (freeing every module and object one by one) costs 0.02-0.04 s of CPU on every
    command and does nothing the system does not do at exit. Returns when any of that does
    not hold; the caller then exits the usual way."""
    import atexit
    import sys

    if getattr(atexit, "_ncallbacks", lambda: 1)() or _other_threads():
        return
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):  # a closed pipe or stream: leave that to the usual exit
        return
    os._exit(code)


def _other_threads() -> bool:
    import sys

    threading = sys.modules.get("threading")
    return threading is not None and threading.active_count() > 1
