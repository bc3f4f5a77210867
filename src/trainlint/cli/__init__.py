"""The ``trainlint`` command: a thin click layer over :mod:`trainlint.api`.

Each sub-command lives in its own module under ``trainlint.cli.commands`` and is
imported only when it is used (start-up stays fast)."""

from __future__ import annotations

import importlib
import pkgutil

import click

from .. import __version__


class LazyGroup(click.Group):
    def _names(self) -> list[str]:
        from . import commands

        return sorted(m.name.replace("_", "-") for m in pkgutil.iter_modules(commands.__path__)
                      if not m.name.startswith("_"))

    def list_commands(self, ctx: click.Context) -> list[str]:
        return self._names()

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in self._names():
            return None
        mod = importlib.import_module(f"{__name__}.commands.{name.replace('-', '_')}")
        return mod.command

    def invoke(self, ctx: click.Context) -> object:
        """An internal error that escapes a command exits 2 (could not judge) with one line, never 1."""
        try:
            return super().invoke(ctx)
        except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort,
                SystemExit, KeyboardInterrupt):
            raise
        except Exception as exc:
            import os
            import sys

            if os.environ.get("TRAINLINT_DEBUG"):
                raise
            line = f"{type(exc).__name__}: {exc}".splitlines()[0][:300] if str(exc) else type(exc).__name__
            print(f"trainlint: internal error: {line}\n  (nothing was judged; this is a trainlint bug: please "
                  "report it with the command line; TRAINLINT_DEBUG=1 shows the traceback)", file=sys.stderr)
            sys.exit(2)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="trainlint")
def main() -> None:
    """A deterministic linter for machine-learning training runs.

    Exit codes: 0 PASS or WARN, 1 FAIL, 2 NOT-CHECKED (could not judge).
    """
