from __future__ import annotations

import json
import sys
from pathlib import Path

import click


@click.command()
@click.argument("path", type=click.Path(path_type=Path))
@click.option("--map", "role_map", multiple=True, metavar="ROLE=NAME", help="Use metric NAME for ROLE.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def command(path: Path, role_map: tuple[str, ...], fmt: str) -> None:
    """Show what was read from a log and how each metric was mapped to a role."""
    import numpy as np

    from ...api import read_run
    from ...readers import ReadError
    from ...roles import parse_map
    from ...verdict import Report, Result

    try:
        run = read_run(path, parse_map(role_map))
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    except ReadError as exc:
        result = Result(command="series", reports=[Report(str(path), "log", unjudged=str(exc))])
        if fmt == "json":
            json.dump(result.to_dict(), sys.stdout, indent=2)
        else:
            click.echo(f"NOT-CHECKED  {path}: {exc}")
        sys.exit(result.exit_code)
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
    if fmt == "json":
        out = Result(command="series", extra={"format": run.format, "files": run.files, "notes": run.notes,
                                              "meta": run.meta, "series": rows}).to_dict()
        json.dump(out, sys.stdout, indent=2, default=str)
        sys.stdout.write("\n")
        return
    click.echo(f"{path}  ({run.format})")
    for r in rows:
        role = r["role"] or "-"
        rng = f"{r['min']:.4g}..{r['max']:.4g}" if r["min"] is not None else "no finite values"
        click.echo(f"  {r['name']:<32} {role:<14} {r['points']:>7} pts  steps {r['first_step']:g}-{r['last_step']:g}"
                   f"  {rng}" + (f"  ({r['non_finite']} non-finite)" if r["non_finite"] else ""))
    missing = [role for role in ("loss", "eval_loss", "learning_rate", "grad_norm") if role not in run.roles]
    if missing:
        click.echo("  roles not found: " + ", ".join(missing))
    for note in run.notes:
        click.echo(f"  note: {note}")
