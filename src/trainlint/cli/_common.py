"""Options and output shared by the judging commands."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from ..verdict import Result


def judging_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """--format, --config, --select, --ignore, --threshold, --map."""
    opts = [
        click.option("--format", "fmt", type=click.Choice(["text", "json", "sarif", "html"]), default="text",
                     show_default=True,
                     help="Output format (sarif: SARIF 2.1.0 for code scanning; html: a self-contained page)."),
        click.option("--config", type=click.Path(dir_okay=False, path_type=Path),
                     help="Config file (default: nearest trainlint.toml or pyproject.toml)."),
        click.option("--select", multiple=True, help="Only these rule codes, prefixes or categories."),
        click.option("--ignore", multiple=True, help="Skip these rule codes, prefixes or categories."),
        click.option("--threshold", "thresholds", multiple=True, metavar="CODE.NAME=VALUE",
                     help="Override a rule threshold."),
        click.option("--map", "role_map", multiple=True, metavar="ROLE=NAME",
                     help="Use metric NAME for ROLE (e.g. loss=train/total)."),
    ]
    for opt in reversed(opts):
        fn = opt(fn)
    return fn


def build_options(config: Path | None, select: tuple[str, ...], ignore: tuple[str, ...],
                  thresholds: tuple[str, ...], role_map: tuple[str, ...], **fields: Any) -> Any:
    """The api's Options from the command line; a usage error (exit 2) on bad input."""
    from ..api import OptionsError
    from ..api import build_options as _build

    try:
        return _build(config, select, ignore, thresholds, role_map, **fields)
    except OptionsError as exc:
        raise click.UsageError(str(exc)) from None


def finish(result: Result, fmt: str) -> None:
    from ..report import render

    render(result, fmt)
    sys.exit(result.exit_code)
