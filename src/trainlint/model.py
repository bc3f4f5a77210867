"""The run model: named metric series as columns, plus provenance.

Readers turn files into a :class:`Run`; rules only read runs. A series holds
its steps and values as float64 numpy arrays (and, when the source records a
clock, the wall time of every point).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import msgspec
import numpy as np


class Series(msgspec.Struct):
    name: str
    steps: np.ndarray
    values: np.ndarray
    wall: np.ndarray | None = None

    def __post_init__(self) -> None:
        self.steps = np.asarray(self.steps, dtype=np.float64)
        self.values = np.asarray(self.values, dtype=np.float64)
        if self.wall is not None:
            self.wall = np.asarray(self.wall, dtype=np.float64)

    def __len__(self) -> int:
        return int(self.values.shape[0])

    def finite(self) -> Series:
        """The points whose value is finite."""
        keep = np.isfinite(self.values)
        if keep.all():
            return self
        wall = None if self.wall is None else self.wall[keep]
        return Series(self.name, self.steps[keep], self.values[keep], wall)


class Damage(msgspec.Struct):
    """What a reader found broken in its input, read as far as it was intact."""

    kind: str  # "truncated", "corrupt", "skipped-lines", ...
    message: str
    evidence: dict[str, Any] = msgspec.field(default_factory=dict)


class Run(msgspec.Struct):
    """One training run: metric series plus where they came from."""

    source: str
    format: str
    series: dict[str, Series] = msgspec.field(default_factory=dict)
    roles: dict[str, str] = msgspec.field(default_factory=dict)  # role -> series name
    files: list[str] = msgspec.field(default_factory=list)
    notes: list[str] = msgspec.field(default_factory=list)
    meta: dict[str, Any] = msgspec.field(default_factory=dict)
    damage: list[Damage] = msgspec.field(default_factory=list)
    events: list[dict[str, Any]] = msgspec.field(default_factory=list)  # e.g. crash signatures

    def get(self, role: str) -> Series | None:
        """The series playing ``role`` (canonical role name or raw metric name)."""
        name = self.roles.get(role, role)
        return self.series.get(name)

    def has(self, role: str) -> bool:
        s = self.get(role)
        return s is not None and len(s) > 0

    def add(self, name: str, steps: Any, values: Any, wall: Any = None) -> None:
        self.series[name] = Series(name, steps, values, wall)

    def summary(self) -> dict[str, Any]:
        loss = self.get("loss")
        out: dict[str, Any] = {"metrics": len(self.series), "roles": dict(self.roles)}
        if self.meta.get("role_reasons"):  # structural choices and summed components, with why
            out["role_reasons"] = dict(self.meta["role_reasons"])
        if loss is not None and len(loss):
            out["loss_points"] = len(loss)
            out["first_step"] = float(loss.steps[0])
            out["last_step"] = float(loss.steps[-1])
        title = run_title(self.meta)
        if title:
            out["title"] = title
        return out


class RunMeta(msgspec.Struct, frozen=True):
    """What the log rules read of a run's metadata, typed. None: the log does not say, or says it
    with a value of the wrong type (:func:`check_meta` notes and drops those before the rules
    run). Readers keep writing ``Run.meta`` (free-form provenance, the JSON contract's ``meta``);
    rules read ``RunMeta.of(run)``, built from it by :func:`read_meta`. A number keeps the type
    the log gave it (an int stays an int, so a finding's evidence reads as before)."""

    # The plan: finite numbers in [-1, 1e15).
    max_steps: int | float | None = None
    num_train_epochs: int | float | None = None  # with an ``epoch`` series
    planned_epochs: int | float | None = None  # with ``last_epoch``
    warmup_steps: int | float | None = None
    logging_steps: int | float | None = None  # slack for the last logged step
    max_epochs: int | float | None = None
    total_steps: int | float | None = None
    # Finite numbers.
    last_epoch: int | float | None = None
    learning_rate: int | float | None = None  # the configured peak
    vocab_size: int | float | None = None
    num_classes: int | float | None = None
    num_labels: int | float | None = None
    best_step: int | float | None = None
    best_global_step: int | float | None = None
    early_stopped_epoch: int | float | None = None  # the loop's early stopping ended the run
    patience_counter: int | float | None = None  # HF EarlyStoppingCallback's count at the save
    patience: int | float | None = None  # ... and the count that stops the run
    # Flags.
    completed: bool | None = None  # True: the log holds its completion record
    crash_scanned: bool | None = None  # True: the reader looked for crash signatures
    skips_scanned: bool | None = None  # True: the reader looked for the script's "skipped a NaN step" lines
    stop_requested: bool | None = None  # HF TrainerControl.should_training_stop when the state was saved
    loss_unnamed: bool | None = None  # True: the log prints its loss's value, not which loss function it is
    # Text.
    best_model_checkpoint: str | None = None  # ``.../checkpoint-N``
    clock: str | None = None  # "watcher": the times are a watcher's polls, not the log's own
    # Checkpoints: steps, or names ending in the step (entries of another type are left out).
    checkpoints: tuple[int | float | str, ...] | None = None

    @classmethod
    def of(cls, run: Run) -> RunMeta:
        """The typed record of ``run.meta`` (built anew: the meta of a live run grows)."""
        return read_meta(run.meta)[0]


PLAN_KEYS = (
    "max_steps",
    "num_train_epochs",
    "planned_epochs",
    "warmup_steps",
    "logging_steps",
    "max_epochs",
    "total_steps",
)
_NUMBER_KEYS = (
    *("last_epoch", "learning_rate", "vocab_size", "num_classes", "num_labels"),
    *("best_step", "best_global_step", "early_stopped_epoch", "patience_counter", "patience"),
)


def _number(value: Any) -> bool:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:  # an integer too large for a float
        return False


def _plan(value: Any) -> bool:
    return _number(value) and -1 <= float(value) < 1e15


# key -> (whether a value is of the right type, what it should have been)
_CHECKS: dict[str, tuple[Callable[[Any], bool], str]] = {
    **{k: (_plan, "a plan (not a finite number of steps)") for k in PLAN_KEYS},
    **{k: (_number, "a finite number") for k in _NUMBER_KEYS},
    "completed": (lambda v: isinstance(v, bool), "true or false"),
    "crash_scanned": (lambda v: isinstance(v, bool), "true or false"),
    "skips_scanned": (lambda v: isinstance(v, bool), "true or false"),
    "stop_requested": (lambda v: isinstance(v, bool), "true or false"),
    "loss_unnamed": (lambda v: isinstance(v, bool), "true or false"),
    "best_model_checkpoint": (lambda v: isinstance(v, str), "text"),
    "clock": (lambda v: isinstance(v, str), "text"),
    "checkpoints": (lambda v: isinstance(v, (list, tuple)), "a list of steps or checkpoint names"),
}


def read_meta(meta: Mapping[str, Any]) -> tuple[RunMeta, dict[str, str]]:
    """The typed record of ``meta``, and for each value of the wrong type (left out of the
    record) why it was left out. An absent key, or None, is unknown and no problem."""
    values: dict[str, Any] = {}
    dropped: dict[str, str] = {}
    for key, (ok, should_be) in _CHECKS.items():
        value = meta.get(key)
        if value is None:
            continue
        if not ok(value):
            dropped[key] = f"{key} = {_shown(value)} is not {should_be}; ignored"
        elif key == "checkpoints":
            values[key] = tuple(c for c in value if isinstance(c, str) or _number(c))
        else:
            values[key] = value
    return RunMeta(**values), dropped


def _shown(value: Any) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        return f"an integer of {len(str(abs(value)))} digits"
    return repr(value)[:60]


def check_meta(run: Run) -> RunMeta:
    """Before the rules run: each metadata value of the wrong type is noted on the run and
    dropped from its meta, so that no rule, renderer or plugin reads it; the typed record."""
    record, dropped = read_meta(run.meta)
    for key, why in dropped.items():
        run.notes.append(why)
        del run.meta[key]
    return record


def run_title(meta: dict[str, Any]) -> str | None:
    """``experiment/run name (short id)`` for tracker runs (MLflow, W&B), None for plain logs."""
    name, experiment, run_id = meta.get("run_name"), meta.get("experiment"), meta.get("run_id")
    if not (name or experiment):
        return None
    head = "/".join(str(x) for x in (experiment, name) if x)
    return f"{head} ({str(run_id)[:8]})" if run_id else head
