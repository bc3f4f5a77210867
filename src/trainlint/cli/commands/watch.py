"""`trainlint watch`: follow logs still being written and report findings as they appear."""

from __future__ import annotations

from pathlib import Path

import click

from .._common import _META, build_options, finish, judging_options


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
@click.option(
    "--reload",
    type=click.FloatRange(min=0, min_open=True),
    default=None,
    help="With --output PAGE.html: the live page reloads itself every this many seconds (off by default).",
)
@judging_options
def command(paths, until, interval, idle_exit, max_time, reload, fmt, config, select, ignore, thresholds, role_map):
    """Follow live training runs, judging them as they grow (reads only the new bytes).

    PATHS may be log files or folders; in a folder, runs and logs that appear later are followed
    too (start it before training writes anything). Prints each finding when it first appears;
    at the end (--idle-exit, --max-time or --until) prints the verdict of every run, as doctor
    would give it on the finished files, and exits with the usual code; stopped by Ctrl-C
    (SIGINT) or SIGTERM it prints the same, marked interrupted, and exits 130 or 143. With
    --output PAGE.html the page is rewritten (atomically) whenever a judgement or a finding is
    new, and --reload makes it reload itself.
    """
    from ...api import watch
    from ...report.progress import Heartbeat
    from ...report.watch import finding_line

    options = build_options(config, select, ignore, thresholds, role_map)
    pages = live_pages(paths)
    if reload is not None and not pages:
        raise click.UsageError("--reload needs --output PAGE.html (the page that reloads)")
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
        page=(lambda now: write_pages(now, pages, reload)) if pages else None,
    )
    beat.clear()
    write_pages(result, pages, None)  # the final page, without --reload: the watch is over
    finish(result, fmt)


def write_pages(result, pages: list[Path], reload: float | None) -> None:
    from ...report.html import write_page

    for p in pages:
        try:
            write_page(result, p, reload)
        except OSError as exc:  # a full disk or a folder gone: said in one line, the watch goes on
            click.echo(f"trainlint: --output {p}: {exc.strerror or exc}", err=True)


def live_pages(paths: tuple[Path, ...]) -> list[Path]:
    """The --output pages this watch keeps current (taken from --output, so the final write
    is this command's, atomic too); one inside a watched folder is refused."""
    from ...report import format_for

    meta = click.get_current_context().meta.get(_META, {})
    outputs = tuple(meta.get("outputs") or ())
    pages = [Path(p) for p in outputs if format_for(p) == "html"]
    for page in pages:
        where = page.resolve().parent
        if not where.is_dir() or page.is_dir():
            raise click.UsageError(f"--output {page}: no folder {where} to write the page in")
        if any(where == p.resolve() or p.resolve() in where.parents for p in paths if p.is_dir()):
            raise click.UsageError(f"--output {page}: inside a watched folder; write the page elsewhere")
    meta["outputs"] = tuple(p for p in outputs if format_for(p) != "html")
    return pages
