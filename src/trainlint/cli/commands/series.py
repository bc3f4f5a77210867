"""`trainlint series`: what was read from a log and which metric plays which role."""

from __future__ import annotations

import sys

import click


@click.command()
@click.argument("path")  # a log, a run folder, or an mlflow://HOST:PORT/EXPERIMENT address
@click.option("--map", "role_map", multiple=True, metavar="ROLE=NAME", help="Use metric NAME for ROLE.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--values", "with_values", is_flag=True, help="JSON: include every step and value of each series.")
def command(path: str, role_map: tuple[str, ...], fmt: str, with_values: bool) -> None:
    """Show what was read from a log: each metric's role, range, start/end, min/max and shape."""
    from ...api import Options, ReadError, read_runs
    from ...report.series import render_series, render_series_unread

    try:
        from ...api import parse_map

        runs = read_runs(path, Options(role_map=parse_map(role_map)))
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    except ReadError as exc:
        sys.exit(render_series_unread(path, str(exc), fmt))
    render_series(runs, fmt, values=with_values)
