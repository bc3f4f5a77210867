from __future__ import annotations

import sys

import click


@click.command()
@click.argument("path")  # a log, a run folder, or an mlflow://HOST:PORT/EXPERIMENT address
@click.option("--map", "role_map", multiple=True, metavar="ROLE=NAME", help="Use metric NAME for ROLE.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def command(path: str, role_map: tuple[str, ...], fmt: str) -> None:
    """Show what was read from a log and how each metric was mapped to a role."""
    from ...api import Options, ReadError, read_runs
    from ...report.series import render_series, render_series_unread

    try:
        from ...api import parse_map

        runs = read_runs(path, Options(role_map=parse_map(role_map)))
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    except ReadError as exc:
        sys.exit(render_series_unread(path, str(exc), fmt))
    render_series(runs, fmt)
