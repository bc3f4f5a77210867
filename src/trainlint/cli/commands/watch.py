"""`trainlint watch`: follow logs still being written and report findings as they appear."""

from __future__ import annotations

from pathlib import Path

import click

from .._common import build_options, finish, judging_options


@click.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option(
    "--until",
    type=click.Choice(["FAIL", "WARN"], case_sensitive=False),
    help="Exit as soon as a finding this severe appears (FAIL exits 1).",
)
@click.option("--interval", type=float, default=2.0, show_default=True, help="Seconds between polls.")
@click.option("--idle-exit", type=float, default=None, help="Stop after this many seconds with no new record.")
@click.option("--max-time", type=float, default=None, help="Stop after this many seconds in all.")
@judging_options
def command(paths, until, interval, idle_exit, max_time, fmt, config, select, ignore, thresholds, role_map):
    """Follow live training runs, judging them as they grow (reads only the new bytes).

    PATHS may be log files or folders; in a folder, runs and logs that appear later are followed
    too (start it before training writes anything). Prints each finding when it first appears;
    at the end (--idle-exit, --max-time or --until) prints the verdict of every run, as doctor
    would give it on the finished files, and exits with the usual code; stopped by Ctrl-C
    (SIGINT) or SIGTERM it prints the same, marked interrupted, and exits 130 or 143.
    """
    from ...api import watch
    from ...report.progress import Heartbeat
    from ...report.watch import finding_line

    options = build_options(config, select, ignore, thresholds, role_map)
    beat = Heartbeat()
    beat.start([str(p) for p in paths])

    def emit(path, f):
        beat.clear()
        if fmt == "text":
            click.echo(finding_line(path, f))

    result = watch(
        paths,
        options,
        until=until,
        interval=interval,
        idle_exit=idle_exit,
        max_time=max_time,
        emit=emit,
        heartbeat=beat.beat if beat.enabled else None,
    )
    beat.clear()
    finish(result, fmt)
