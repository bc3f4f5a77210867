from __future__ import annotations

from pathlib import Path

import click

from .._common import build_options, judging_options


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--baseline", multiple=True, type=click.Path(path_type=Path),
              help="A known-good run (log or folder of seeds' logs); every log found is also compared with it.")
@judging_options
def command(paths, baseline, fmt, config, select, ignore, thresholds, role_map) -> None:
    """Find every training log (and other input) under PATHS and judge each (default: '.')."""
    from ...api import doctor
    from .compare import emit

    options = build_options(config, select, ignore, thresholds, role_map)
    options.baseline = tuple(baseline)
    emit(doctor(paths or (Path("."),), options), fmt)
