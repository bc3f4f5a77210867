from __future__ import annotations

from pathlib import Path

import click

from .._common import build_options, finish, judging_options


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@judging_options
@click.option("--pattern", "patterns", multiple=True, metavar="REGEX",
              help="Extra console-log recogniser: a regex with named groups, e.g. "
                   "'step (?P<step>\\d+) .*loss (?P<loss>\\S+)'. Repeatable.")
def command(paths, fmt, config, select, ignore, thresholds, role_map, patterns) -> None:
    """Find every training log (and other input) under PATHS and judge each (default: '.')."""
    from ...api import doctor

    options = build_options(config, select, ignore, thresholds, role_map)
    if patterns:
        from ...readers.console import compile_user_pattern

        try:
            for p in patterns:
                compile_user_pattern(p)
        except ValueError as exc:
            raise click.UsageError(str(exc)) from None
        options.patterns = tuple(patterns)
    finish(doctor(paths or (Path("."),), options), fmt)
