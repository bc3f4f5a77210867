"""`trainlint env`: judge this machine, an entrypoint and a training configuration."""

from __future__ import annotations

from pathlib import Path

import click

from .._common import build_options, finish, judging_options


@click.command()
@click.option(
    "--entrypoint",
    metavar="MODULE_OR_SCRIPT",
    help="Import this training module (dotted name) or script (.py) in a child process.",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0.5),
    default=120.0,
    show_default=True,
    help="Seconds the entrypoint import may take.",
)
@click.option(
    "--python", "python_exe", metavar="PATH", help="Python interpreter for the entrypoint import (default: this one)."
)
@click.option(
    "--output-dir",
    type=click.Path(path_type=Path),
    help="Output folder: free disk is measured here and a temporary file is created and removed to test writing.",
)
@click.option(
    "--checkpoint-size",
    "checkpoint_gb",
    type=click.FloatRange(min=0),
    metavar="GB",
    help="Size of one checkpoint in GiB.",
)
@click.option("--keep", type=click.IntRange(min=1), metavar="N", help="Checkpoints kept at once.")
@click.option(
    "--training-args",
    type=click.Path(path_type=Path),
    metavar="PATH",
    help="training_args.bin/.json, Lightning hparams.yaml or a TRL/axolotl YAML.",
)
@click.option("--require-gpu", is_flag=True, help="FAIL when no usable NVIDIA GPU is found.")
@click.option("--memory", "memory_gb", type=click.FloatRange(min=0), metavar="GB", help="Memory the run needs, in GiB.")
@click.option("--workers", type=click.IntRange(min=0), metavar="N", help="DataLoader worker processes.")
@judging_options(role_map=False)
def command(
    entrypoint,
    timeout,
    python_exe,
    output_dir,
    checkpoint_gb,
    keep,
    training_args,
    require_gpu,
    memory_gb,
    workers,
    fmt,
    config,
    select,
    ignore,
    thresholds,
    role_map,
) -> None:
    """Judge this machine (and optionally an entrypoint and a training configuration) before training."""
    from ...api import EnvOptions, check_environment

    options = build_options(config, select, ignore, thresholds, role_map)
    opts = EnvOptions(
        entrypoint=entrypoint,
        output_dir=str(output_dir) if output_dir else None,
        checkpoint_gb=checkpoint_gb,
        keep=keep,
        training_args=str(training_args) if training_args else None,
        require_gpu=require_gpu,
        memory_gb=memory_gb,
        workers=workers,
        timeout=timeout,
        python=python_exe,
    )
    finish(check_environment(opts, options), fmt)
