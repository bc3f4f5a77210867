"""`trainlint compare`: judge runs against a known-good baseline (one run or several seeds)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from .._common import build_options, judging_options


@click.command()
@click.argument("baseline", type=click.Path(path_type=Path))
@click.argument("runs", nargs=-1, required=True, metavar="RUN...", type=click.Path(path_type=Path))
@click.option(
    "--baseline",
    "more_baseline",
    multiple=True,
    type=click.Path(path_type=Path),
    help="Another baseline run (a seed of the same recipe); repeatable.",
)
@click.option(
    "--align",
    type=click.Choice(["auto", "step", "fraction"]),
    default="auto",
    show_default=True,
    help="Align by step, by fraction of training, or by step only when planned lengths agree.",
)
@judging_options
def command(baseline, runs, more_baseline, align, fmt, config, select, ignore, thresholds, role_map) -> None:
    """Compare each RUN with a known-good BASELINE (a log, or a folder of several seeds' logs).

    Several baseline runs give a tolerance band from their own spread; one falls back to
    documented ratios. One report per run: the run judged alone, as doctor judges it, and
    against the baseline; exit 1 on FAIL, 2 when the baseline is unreadable or itself FAILs
    (and no run FAILs alone).
    """
    from ...api import compare

    options = build_options(config, select, ignore, thresholds, role_map, baseline=(baseline, *more_baseline))
    result = compare(options.baseline, runs, options, align)
    emit(result, fmt)


def emit(result, fmt: str) -> None:
    """Text: the runs x metrics table, then the reports. JSON: the envelope (table included)."""
    from .._common import finish

    def table() -> None:
        if "table" in result.extra:
            from ...report.compare import render_table_text

            render_table_text(result.extra["table"], sys.stdout)

    finish(result, fmt, before=table)
