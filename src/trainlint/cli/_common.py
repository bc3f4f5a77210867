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
                  thresholds: tuple[str, ...], role_map: tuple[str, ...]) -> Any:
    """Settings from the config file plus command-line overrides; a usage error on bad input."""
    from ..api import Options
    from ..config import ConfigError, load_settings, parse_threshold_options
    from ..roles import parse_map

    try:
        settings = load_settings(config)
        if select:
            settings.select = list(select)
        settings.ignore += list(ignore)
        settings.pin_thresholds(parse_threshold_options(thresholds))  # beats per-path overrides
        return Options(settings=settings, role_map=parse_map(role_map))
    except (ConfigError, ValueError) as exc:
        raise click.UsageError(str(exc)) from None


def finish(result: Result, fmt: str) -> None:
    from ..report import render

    render(result, fmt)
    sys.exit(result.exit_code)
