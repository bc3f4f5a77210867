"""`trainlint tokenizer`: preflight a tokenizer folder."""

from __future__ import annotations

from pathlib import Path

import click

from .._common import build_options, finish, judging_options


@click.command()
@click.argument("folder", type=click.Path(path_type=Path))
@click.option(
    "--dataset", type=click.Path(path_type=Path), help="The training data: chat rows need a chat template (TL243)."
)
@judging_options(role_map=False)
def command(folder, dataset, fmt, config, select, ignore, thresholds, role_map) -> None:
    """Preflight a tokenizer folder (tokenizer.json, tokenizer_config.json, special_tokens_map.json,
    config.json, generation_config.json): plain JSON, no transformers needed."""
    from ...api import check_tokenizer

    options = build_options(config, select, ignore, thresholds, role_map, dataset=dataset)
    finish(check_tokenizer(folder, options), fmt)
