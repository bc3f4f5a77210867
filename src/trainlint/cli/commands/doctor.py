from __future__ import annotations

from pathlib import Path

import click

from .._common import build_options, finish, judging_options


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@judging_options
def command(paths, fmt, config, select, ignore, thresholds, role_map) -> None:
    """Find every training log (and other input) under PATHS and judge each (default: '.')."""
    from ...api import doctor

    options = build_options(config, select, ignore, thresholds, role_map)
    finish(doctor(paths or (Path("."),), options), fmt)
