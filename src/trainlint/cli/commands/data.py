"""`trainlint data`: preflight a training dataset (and its tokenizer)."""

from __future__ import annotations

from pathlib import Path

import click

from .._common import build_options, finish, judging_options


@click.command()
@click.argument("path", type=click.Path(path_type=Path))
@click.option(
    "--tokenizer",
    type=click.Path(path_type=Path),
    help="Tokenizer folder (tokenizer.json) for token statistics; its folder is checked too.",
)
@click.option(
    "--max-length",
    type=click.IntRange(min=1),
    help="Max sequence length (default: the tokenizer's model_max_length or the model config's).",
)
@click.option(
    "--data-format",
    "--rows",
    "data_format",
    type=click.Choice(["chat", "prompt-completion", "text", "classification"]),
    help="Row format (default: detected from the first row).",
)
@judging_options(role_map=False)
def command(path, tokenizer, max_length, data_format, fmt, config, select, ignore, thresholds, role_map) -> None:
    """Preflight a training dataset (JSONL, JSON, CSV, Parquet, save_to_disk folder)."""
    from ...api import check_dataset

    options = build_options(config, select, ignore, thresholds, role_map, tokenizer=tokenizer)
    finish(check_dataset(path, options, max_length=max_length, data_format=data_format), fmt)
