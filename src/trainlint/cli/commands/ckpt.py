"""`trainlint ckpt`: inspect checkpoints without executing them (two paths: their drift too)."""

from __future__ import annotations

from pathlib import Path

import click

from .._common import build_options, finish, judging_options


@click.command(name="ckpt")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--values/--no-values",
    default=None,
    help="Scan every tensor's values (NaN/Inf, all-zero, min/max/mean). Default: files up to 512 MB.",
)
@click.option("--crc/--no-crc", default=None, help="Verify zip CRC-32s. Default: files up to 512 MB.")
@click.option("--tensors", "show_tensors", is_flag=True, help="Include the tensor table in the report summary.")
@click.option(
    "--diff/--no-diff",
    default=True,
    show_default=True,
    help="With exactly two paths, also report drift (keys added/removed, shape/dtype changes).",
)
@judging_options(role_map=False)
def command(paths, values, crc, show_tensors, diff, fmt, config, select, ignore, thresholds, role_map) -> None:
    """Inspect checkpoints without executing them: integrity, tensor values, what loading would import.

    PATHS are checkpoint files (.pt .pth .ckpt .bin .safetensors, *.index.json) or folders
    (HF Trainer, torch.distributed.checkpoint, DeepSpeed, or any folder holding checkpoints).
    Two paths also give a drift report between them."""
    from ...api import inspect_checkpoint

    options = build_options(config, select, ignore, thresholds, role_map, ckpt_values=values, ckpt_crc=crc)
    finish(inspect_checkpoint(paths, options, show_tensors=show_tensors, diff=diff and len(paths) == 2), fmt)
