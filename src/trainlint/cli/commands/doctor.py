from __future__ import annotations

from pathlib import Path

import click

from .._common import build_options, judging_options


@click.command()
@click.argument("paths", nargs=-1)  # paths, or mlflow://HOST:PORT/EXPERIMENT addresses
@click.option("--baseline", multiple=True, type=click.Path(path_type=Path),
              help="A known-good run (log or folder of seeds' logs); every log found is also compared with it.")
@click.option("--dataset", type=click.Path(exists=True, path_type=Path),
              help="The run's training data: TL099 compares the final loss with its label/token entropy.")
@click.option("--tokenizer", type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="Tokenizer folder (tokenizer.json) for the dataset's token statistics.")
@click.option("--vocab-size", type=click.IntRange(min=2), help="Vocabulary size (TL033: loss stuck at ln V).")
@click.option("--num-classes", type=click.IntRange(min=2), help="Class count (TL033: loss stuck at ln C).")
@click.option("--no-data-crc", is_flag=True,
              help="TensorBoard event files: check only the length CRC of each record (faster).")
@click.option("--timeout-per-input", type=click.FloatRange(min=0), default=60.0, show_default=True,
              metavar="SECONDS", help="An input still being read after this long is NOT-CHECKED (0: no limit).")
@click.option("--follow-links", is_flag=True,
              help="Follow symlinks that lead out of a scanned folder (loops are still detected).")
@judging_options
@click.option("--pattern", "patterns", multiple=True, metavar="REGEX",
              help="Extra console-log recogniser: a regex with named groups, e.g. "
                   "'step (?P<step>\\d+) .*loss (?P<loss>\\S+)'. Repeatable.")
def command(paths, baseline, dataset, tokenizer, vocab_size, num_classes, no_data_crc, timeout_per_input, follow_links,
            fmt, config, select, ignore, thresholds, role_map, patterns) -> None:
    """Find every training log (and other input) under PATHS and judge each (default: '.')."""
    from ...api import doctor
    from .compare import emit

    if no_data_crc:
        import os

        os.environ["TRAINLINT_TFEVENTS_DATA_CRC"] = "0"  # read by the event-file reader
    options = build_options(config, select, ignore, thresholds, role_map)
    options.baseline = tuple(baseline)
    options.dataset, options.tokenizer = dataset, tokenizer
    options.vocab_size, options.num_classes = vocab_size, num_classes
    options.timeout_per_input, options.follow_links = timeout_per_input or None, follow_links
    if patterns:
        from ...readers.console import compile_user_pattern

        try:
            for p in patterns:
                compile_user_pattern(p)
        except ValueError as exc:
            raise click.UsageError(str(exc)) from None
        options.patterns = tuple(patterns)
    emit(doctor(paths or (Path("."),), options), fmt)
