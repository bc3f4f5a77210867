"""The run model: named metric series as columns, plus provenance.

Readers turn files into a :class:`Run`; rules only read runs. A series holds
its steps and values as float64 numpy arrays (and, when the source records a
clock, the wall time of every point).
"""

from __future__ import annotations

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


def run_title(meta: dict[str, Any]) -> str | None:
    """``experiment/run name (short id)`` for tracker runs (MLflow, W&B), None for plain logs."""
    name, experiment, run_id = meta.get("run_name"), meta.get("experiment"), meta.get("run_id")
    if not (name or experiment):
        return None
    head = "/".join(str(x) for x in (experiment, name) if x)
    return f"{head} ({str(run_id)[:8]})" if run_id else head
