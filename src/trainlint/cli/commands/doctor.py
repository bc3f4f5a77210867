"""`trainlint doctor`: find every input under the paths and judge each."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from .._common import Row, build_options, judging_options, with_options

if TYPE_CHECKING:
    from ...verdict import Result

# doctor's own options, before the judging options in --help (then --pattern, after them)
OPTIONS: list[Row] = [
    (
        ("--baseline",),
        dict(
            multiple=True,
            type=click.Path(path_type=Path),
            help="A known-good run (log or folder of seeds' logs); every log found is also compared with it (one report per run).",
        ),
    ),
    (
        ("--dataset",),
        dict(
            type=click.Path(exists=True, path_type=Path),
            help="The run's training data: TL099 compares the final loss with its label/token entropy.",
        ),
    ),
    (
        ("--tokenizer",),
        dict(
            type=click.Path(exists=True, file_okay=False, path_type=Path),
            help="Tokenizer folder (tokenizer.json) for the dataset's token statistics.",
        ),
    ),
    (("--vocab-size",), dict(type=click.IntRange(min=2), help="Vocabulary size (TL033: loss stuck at ln V).")),
    (("--num-classes",), dict(type=click.IntRange(min=2), help="Class count (TL033: loss stuck at ln C).")),
    (
        ("--values/--no-values", "ckpt_values"),
        dict(default=None, help="Checkpoints: scan every tensor's values. Default: files up to 512 MB."),
    ),
    (
        ("--crc/--no-crc", "ckpt_crc"),
        dict(default=None, help="Checkpoints: verify zip CRC-32s. Default: files up to 512 MB."),
    ),
    (
        ("--no-data-crc",),
        dict(is_flag=True, help="TensorBoard event files: check only the length CRC of each record (faster)."),
    ),
    (
        ("--timeout-per-input",),
        dict(
            type=click.FloatRange(min=0),
            default=60.0,
            show_default=True,
            metavar="SECONDS",
            help="An input still being read after this long is NOT-CHECKED (0: no limit).",
        ),
    ),
    (
        ("--follow-links",),
        dict(is_flag=True, help="Follow symlinks that lead out of a scanned folder (loops are still detected)."),
    ),
    (
        ("--jobs", "-j"),
        dict(
            type=click.IntRange(min=1),
            default=None,
            help="Judge inputs in N processes (default: one per core when the scan is big "
            "enough to repay starting them; 1: serial).",
        ),
    ),
    (
        ("--ray", "ray_address"),
        dict(
            is_flag=False,
            flag_value="local",
            default=None,
            metavar="[ADDRESS]",
            help="Judge inputs as Ray tasks: a local Ray without ADDRESS, else the cluster at ADDRESS "
            "(give it as --ray=ADDRESS). Needs trainlint[ray].",
        ),
    ),
    (
        ("--write-back",),
        dict(
            is_flag=True,
            help="mlflow:// inputs: tag each judged run (trainlint.verdict, trainlint.codes) and log its "
            "JSON report as the artifact trainlint/report.json.",
        ),
    ),
]
PATTERN_OPTION: Row = (
    ("--pattern", "patterns"),
    dict(
        multiple=True,
        metavar="REGEX",
        help="Extra console-log recogniser: a regex with named groups, e.g. "
        "'step (?P<step>\\d+) .*loss (?P<loss>\\S+)'. Repeatable.",
    ),
)


@click.command()
@click.argument("paths", nargs=-1)  # paths, or mlflow://HOST:PORT/EXPERIMENT addresses
@with_options(OPTIONS)
@judging_options
@with_options([PATTERN_OPTION])
def command(paths, jobs, ray_address, write_back, fmt, config, select, ignore, thresholds, role_map, **given) -> None:
    """Find every training log (and other input) under PATHS and judge each (default: '.')."""
    from .._common import live_hooks
    from .compare import emit

    options = build_options(config, select, ignore, thresholds, role_map, **_fields(**given))
    hooks = live_hooks(fmt, stream_reports=not given["baseline"])  # with a baseline the table comes first
    result = _judge(paths or (Path("."),), options, jobs, ray_address, hooks)
    if write_back:
        from ...report.mlflow_writeback import write_back as send

        for line in send(result) or ["write-back: no tracking-server run among the inputs"]:
            click.echo(line, err=True)
    emit(result, fmt)


def _fields(
    baseline: tuple[Path, ...],
    dataset: Path | None,
    tokenizer: Path | None,
    vocab_size: int | None,
    num_classes: int | None,
    ckpt_values: bool | None,
    ckpt_crc: bool | None,
    no_data_crc: bool,
    timeout_per_input: float,
    follow_links: bool,
    patterns: tuple[str, ...],
) -> dict[str, Any]:
    """The Options fields of doctor's own options."""
    return dict(
        baseline=tuple(baseline),
        dataset=dataset,
        tokenizer=tokenizer,
        vocab_size=vocab_size,
        num_classes=num_classes,
        patterns=tuple(patterns),
        tfevents_data_crc=not no_data_crc,
        ckpt_values=ckpt_values,
        ckpt_crc=ckpt_crc,
        timeout_per_input=timeout_per_input or None,
        follow_links=follow_links,
    )


def _judge(
    paths: tuple[Any, ...], options: Any, jobs: int | None, ray_address: str | None, hooks: dict[str, Any]
) -> Result:
    """doctor's Result: in this process or a pool (``jobs``, 0: automatic), or as Ray tasks."""
    from ...api import default_jobs, doctor

    if ray_address is None:
        return doctor(paths, options, jobs=jobs or 0, **hooks)
    from ...integrations.ray_doctor import RayExecutor, RayUnavailable  # only with --ray

    try:
        return doctor(paths, options, jobs=jobs, executor=RayExecutor(ray_address, jobs or default_jobs()), **hooks)
    except RayUnavailable as exc:
        raise click.UsageError(str(exc)) from None
