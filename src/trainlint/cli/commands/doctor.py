from __future__ import annotations

from pathlib import Path

import click

from .._common import build_options, finish, judging_options


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--dataset", type=click.Path(exists=True, path_type=Path),
              help="The run's training data: TL099 compares the final loss with its label/token entropy.")
@click.option("--tokenizer", type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="Tokenizer folder (tokenizer.json) for the dataset's token statistics.")
@judging_options
def command(paths, dataset, tokenizer, fmt, config, select, ignore, thresholds, role_map) -> None:
    """Find every training log (and other input) under PATHS and judge each (default: '.')."""
    from ...api import doctor

    options = build_options(config, select, ignore, thresholds, role_map)
    options.dataset, options.tokenizer = dataset, tokenizer
    finish(doctor(paths or (Path("."),), options), fmt)
