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
def command(path: str, role_map: tuple[str, ...], fmt: str) -> None:
    """Show what was read from a log and how each metric was mapped to a role."""
    from ...readers import ReadError
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
        else:
            click.echo(f"NOT-CHECKED  {path}: {exc}")
        sys.exit(result.exit_code)
    if fmt == "json":
        items = [_describe(run) for run in runs]
        extra = items[0] if len(items) == 1 else {"runs": items}
        json.dump(Result(command="series", extra=extra).to_dict(), sys.stdout, indent=2, default=str)
        sys.stdout.write("\n")
        return
    for run in runs:
        _print(run)


def _read(path: str, role_map: dict[str, str]) -> list[Any]:
    """The run(s) behind PATH: one for a file or folder, every run of a tracking-server address."""
    from ...api import read_run
    from ...inspectors.logs import is_uri
    from ...readers import ReadError

    if not is_uri(path):
        return [read_run(Path(path), role_map)]
    from ...readers.mlflow_store import server_runs
    from ...roles import apply_roles

    runs = server_runs(path)
    if not runs:
        raise ReadError("no runs in this experiment")
    for run in runs:
        apply_roles(run, role_map)
    return runs


def _rows(run: Any) -> list[dict[str, Any]]:
    import numpy as np

    by_name = {name: role for role, name in run.roles.items()}
    rows = []
    for name, s in run.series.items():
        fin = s.finite().values
        rows.append({"name": name, "role": by_name.get(name), "points": len(s),
                     "non_finite": int(len(s) - len(fin)),
                     "first_step": float(s.steps[0]) if len(s) else None,
                     "last_step": float(s.steps[-1]) if len(s) else None,
                     "min": float(np.min(fin)) if len(fin) else None,
                     "max": float(np.max(fin)) if len(fin) else None,
                     "has_wall_time": s.wall is not None})
    return rows


def _describe(run: Any) -> dict[str, Any]:
    return {"source": run.source, "format": run.format, "files": run.files, "notes": run.notes,
            "meta": run.meta, "series": _rows(run)}


def _print(run: Any) -> None:
    click.echo(f"{run.source}  ({run.format})")
    for r in _rows(run):
        role = r["role"] or "-"
        rng = f"{r['min']:.4g}..{r['max']:.4g}" if r["min"] is not None else "no finite values"
        click.echo(f"  {r['name']:<32} {role:<14} {r['points']:>7} pts  steps {r['first_step']:g}-{r['last_step']:g}"
                   f"  {rng}" + (f"  ({r['non_finite']} non-finite)" if r["non_finite"] else ""))
    missing = [role for role in ("loss", "eval_loss", "learning_rate", "grad_norm") if role not in run.roles]
    if missing:
        click.echo("  roles not found: " + ", ".join(missing))
    for note in run.notes:
        click.echo(f"  note: {note}")
