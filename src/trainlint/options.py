"""The typed options every judging entry point takes, frozen: what the user asked for reaches
each reader, inspector and rule as an argument (no environment variables, no context variables).

This module is vocabulary (floor 1): readers and inspectors take these objects, ``trainlint.api``
re-exports them."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import msgspec

from .config import Settings


class ReadOptions(msgspec.Struct, frozen=True):
    """What a reader may be told: extra console recognisers and how hard to check event files."""

    patterns: tuple[str, ...] = ()  # --pattern: regexes with named groups (step, epoch, loss, ...)
    tfevents_data_crc: bool = True  # False: TensorBoard records get only their length CRC checked


class Options(msgspec.Struct, frozen=True):
    """What every judging command takes: settings (rules, thresholds), role overrides and the
    per-input switches of ``doctor``/``ckpt``/``data``/``tokenizer``."""

    settings: Settings = msgspec.field(default_factory=Settings)
    role_map: Mapping[str, str] = msgspec.field(default_factory=dict)
    baseline: tuple[str | Path, ...] = ()  # known-good run(s): doctor also compares every log with them
    dataset: Path | None = None  # the training data: its label entropy is handed to TL099
    tokenizer: Path | None = None  # tokenizer folder for dataset token statistics
    vocab_size: int | None = None  # TL033: a loss stuck at ln(vocab_size) is a uniform guess
    num_classes: int | None = None
    # Extra console-log recognisers: regexes with named groups (step, epoch, loss, ...), as --pattern.
    patterns: tuple[str, ...] = ()
    tfevents_data_crc: bool = True  # --no-data-crc turns it off
    ckpt_values: bool | None = None  # scan tensor values (None: automatic by file size); --values/--no-values
    ckpt_crc: bool | None = None  # verify zip CRC-32s (None: automatic by file size); --crc/--no-crc
    timeout_per_input: float | None = 60.0  # doctor: seconds one input may take before it is NOT-CHECKED
    follow_links: bool = False  # doctor: follow symlinks that lead out of a scanned folder

    @property
    def read(self) -> ReadOptions:
        return ReadOptions(patterns=tuple(self.patterns), tfevents_data_crc=self.tfevents_data_crc)


class EnvOptions(msgspec.Struct, frozen=True):
    """What ``trainlint env`` probes besides the machine itself."""

    entrypoint: str | None = None
    output_dir: str | None = None
    checkpoint_gb: float | None = None
    keep: int | None = None
    training_args: str | None = None
    require_gpu: bool = False
    memory_gb: float | None = None
    workers: int | None = None
    timeout: float = 120.0
    python: str | None = None
