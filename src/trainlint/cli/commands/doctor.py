"""`trainlint doctor`: find every input under the paths and judge each."""

from __future__ import annotations

from pathlib import Path

import click

from .._common import build_options, judging_options


@click.command()
@click.argument("paths", nargs=-1)  # paths, or mlflow://HOST:PORT/EXPERIMENT addresses
@click.option(
    "--baseline",
    multiple=True,
    type=click.Path(path_type=Path),
    help="A known-good run (log or folder of seeds' logs); every log found is also compared with it (one report per run).",
)
@click.option(
    "--dataset",
    type=click.Path(exists=True, path_type=Path),
    help="The run's training data: TL099 compares the final loss with its label/token entropy.",
)
@click.option(
    "--tokenizer",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="Tokenizer folder (tokenizer.json) for the dataset's token statistics.",
)
@click.option("--vocab-size", type=click.IntRange(min=2), help="Vocabulary size (TL033: loss stuck at ln V).")
@click.option("--num-classes", type=click.IntRange(min=2), help="Class count (TL033: loss stuck at ln C).")
@click.option(
    "--values/--no-values",
    "ckpt_values",
    default=None,
    help="Checkpoints: scan every tensor's values. Default: files up to 512 MB.",
)
@click.option(
    "--crc/--no-crc", "ckpt_crc", default=None, help="Checkpoints: verify zip CRC-32s. Default: files up to 512 MB."
)
@click.option(
    "--no-data-crc", is_flag=True, help="TensorBoard event files: check only the length CRC of each record (faster)."
)
@click.option(
    "--timeout-per-input",
    type=click.FloatRange(min=0),
    default=60.0,
    show_default=True,
    metavar="SECONDS",
    help="An input still being read after this long is NOT-CHECKED (0: no limit).",
)
@click.option(
    "--follow-links", is_flag=True, help="Follow symlinks that lead out of a scanned folder (loops are still detected)."
)
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1),
    default=None,
    help="Judge inputs in N processes (default: one per core when the scan is big "
    "enough to repay starting them; 1: serial).",
)
@click.option(
    "--ray",
    "ray_address",
    is_flag=False,
    flag_value="local",
    default=None,
    metavar="[ADDRESS]",
    help="Judge inputs as Ray tasks: a local Ray without ADDRESS, else the cluster at ADDRESS "
    "(give it as --ray=ADDRESS). Needs trainlint[ray].",
)
@click.option(
    "--write-back",
    is_flag=True,
    help="mlflow:// inputs: tag each judged run (trainlint.verdict, trainlint.codes) and log its "
    "JSON report as the artifact trainlint/report.json.",
)
@judging_options
@click.option(
    "--pattern",
    "patterns",
    multiple=True,
    metavar="REGEX",
    help="Extra console-log recogniser: a regex with named groups, e.g. "
    "'step (?P<step>\\d+) .*loss (?P<loss>\\S+)'. Repeatable.",
)
def command(
    paths,
    baseline,
    dataset,
    tokenizer,
    vocab_size,
    num_classes,
    ckpt_values,
    ckpt_crc,
    no_data_crc,
    timeout_per_input,
    follow_links,
    jobs,
    ray_address,
    write_back,
    fmt,
    config,
    select,
    ignore,
    thresholds,
    role_map,
    patterns,
) -> None:
    """Find every training log (and other input) under PATHS and judge each (default: '.')."""
    from ...api import default_jobs, doctor
    from .compare import emit

    options = build_options(
        config,
        select,
        ignore,
        thresholds,
        role_map,
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
    from .._common import live_hooks

    hooks = live_hooks(fmt, stream_reports=not baseline)  # with a baseline the table comes first
    if ray_address is None:
        result = doctor(paths or (Path("."),), options, jobs=jobs or 0, **hooks)  # 0: automatic
    else:
        from ...integrations.ray_doctor import RayExecutor, RayUnavailable  # only with --ray

        try:
            result = doctor(
                paths or (Path("."),),
                options,
                jobs=jobs,
                executor=RayExecutor(ray_address, jobs or default_jobs()),
                **hooks,
            )
        except RayUnavailable as exc:
            raise click.UsageError(str(exc)) from None
    if write_back:
        from ...report.mlflow_writeback import write_back as send

        for line in send(result) or ["write-back: no tracking-server run among the inputs"]:
            click.echo(line, err=True)
    emit(result, fmt)
