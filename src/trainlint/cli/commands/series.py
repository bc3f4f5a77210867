from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click


@click.command()
@click.argument("path")  # a log, a run folder, or an mlflow://HOST:PORT/EXPERIMENT address
@click.option("--map", "role_map", multiple=True, metavar="ROLE=NAME", help="Use metric NAME for ROLE.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--values", "with_values", is_flag=True, help="JSON: include every step and value of each series.")
def command(path: str, role_map: tuple[str, ...], fmt: str, with_values: bool) -> None:
    """Show what was read from a log: each metric's role, range, start/end, min/max and shape."""
    from ...readers import ReadError
    from ...report.series import describe_run, render_series_text
    from ...roles import parse_map
    from ...verdict import Report, Result

    try:
        runs = _read(path, parse_map(role_map))
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    except ReadError as exc:
        result = Result(command="series", reports=[Report(str(path), "log", unjudged=str(exc))])
        if fmt == "json":
            json.dump(result.to_dict(), sys.stdout, indent=2)
            sys.stdout.write("\n")
        else:
            click.echo(f"NOT-CHECKED  {path}: {exc}")
        sys.exit(result.exit_code)
    if fmt == "json":
        items = [describe_run(run, with_values) for run in runs]
        extra = items[0] if len(items) == 1 else {"runs": items}
        json.dump(Result(command="series", extra=extra).to_dict(), sys.stdout, indent=2, default=str)
        sys.stdout.write("\n")
        return
    for run in runs:
        render_series_text(run, sys.stdout)


def _read(path: str, role_map: dict[str, str]) -> list[Any]:
    """The run(s) behind PATH: one for a file or folder, every run of a tracking-server address."""
    from ...api import read_run
    from ...inspectors.logs import is_uri
    from ...readers import ReadError

    if not is_uri(path):
        try:
            return [read_run(Path(path), role_map)]
        except ReadError:
            logs = _logs_under(Path(path))
            if len(logs) == 1:
                return [read_run(logs[0], role_map)]
            if len(logs) > 1:
                shown = ", ".join(str(p) for p in logs[:8]) + (f", +{len(logs) - 8} more" if len(logs) > 8 else "")
                raise ReadError(f"this folder holds {len(logs)} runs; name one: {shown}") from None
            raise
    from ...readers.mlflow_store import server_runs
    from ...roles import assign_roles

    runs = server_runs(path)
    if not runs:
        raise ReadError("no runs in this experiment")
    for run in runs:
        run.roles = assign_roles(run.series, role_map)
    return runs


def _logs_under(path: Path) -> list[Path]:
    from ...discover import walk

    if not path.is_dir():
        return []
    return list(dict.fromkeys(item.path for item in walk(path, kinds={"log"})))
