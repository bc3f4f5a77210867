"""A run that grows one record at a time.

Appending is O(1) and cheap: each metric's new points go to Python lists (an append costs a
third of a numpy item store); :meth:`LiveRun.view` moves what came since the last view into
growable numpy columns (capacity doubles, so the moves are amortised O(1) per point) and
returns a :class:`~trainlint.model.Run` whose series are views of the filled part of those
columns, so judging reads the same arrays doctor would read from a finished log.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..model import Damage, Run, Series
from ..readers.base import text_nonfinite
from ..roles import assign_roles


class _Column:
    __slots__ = ("steps", "values", "wall", "n", "new_steps", "new_values", "new_wall")

    def __init__(self) -> None:
        self.steps = self.values = self.wall = np.empty(0)
        self.n = 0
        self.new_steps: list[float] = []
        self.new_values: list[float] = []
        self.new_wall: list[float] = []

    def flush(self) -> None:
        """Move the points appended since the last flush into the numpy columns."""
        k = len(self.new_values)
        if not k:
            return
        if self.n + k > len(self.values):
            size = max(64, 2 * len(self.values), self.n + k)
            for name in ("steps", "values", "wall"):
                new = np.empty(size)
                new[: self.n] = getattr(self, name)[: self.n]
                setattr(self, name, new)
        end = self.n + k
        self.steps[self.n : end] = self.new_steps
        self.values[self.n : end] = self.new_values
        self.wall[self.n : end] = self.new_wall
        self.n = end
        self.new_steps, self.new_values, self.new_wall = [], [], []

    def __len__(self) -> int:
        return self.n + len(self.new_values)


class LiveRun:
    """Metric columns of a run in progress plus its metadata (and, for a replayed log, the
    damage its reader found, which belongs to the file rather than to any record)."""

    def __init__(
        self,
        source: str = "<live>",
        role_map: dict[str, str] | None = None,
        meta: dict[str, Any] | None = None,
        keep_wall: bool = True,
    ) -> None:
        self.source = source
        self.columns: dict[str, _Column] = {}
        self.role_map = dict(role_map or {})
        self.meta: dict[str, Any] = dict(meta or {})
        self.damage: list[Damage] = []
        self.keep_wall = keep_wall
        self.records = 0
        self._roles: dict[str, str] | None = None
        self._by_name: dict[str, str] = {}

    def append(
        self, step: float, metrics: dict[str, Any], wall: float = math.nan, watch: dict[str, str] | None = None
    ) -> list[tuple[str, float]]:
        """Add one record (real numbers only are kept); returns the (watch[name], value) pairs
        of the names ``watch`` maps, for whoever follows some metrics record by record."""
        hits = []
        columns = self.columns
        for name, value in metrics.items():
            if type(value) is not float:
                value = _scalar(value)
                if value is None:
                    continue
            col = columns.get(name)
            if col is None:
                col = columns[name] = _Column()
                self._roles = None
            col.new_steps.append(step)
            col.new_values.append(value)
            col.new_wall.append(wall)
            if watch and name in watch:
                hits.append((watch[name], value))
        self.records += 1
        return hits

    @property
    def new_metric(self) -> bool:
        """A metric appeared since :attr:`roles` was last computed."""
        return self._roles is None

    @property
    def roles(self) -> dict[str, str]:
        """role -> metric name, recomputed only when a new metric appears."""
        if self._roles is None:
            self._roles = assign_roles(self.columns, self.role_map)
            self._by_name = {name: role for role, name in self._roles.items()}
        return self._roles

    @property
    def by_name(self) -> dict[str, str]:
        """metric name -> role (the inverse of :attr:`roles`)."""
        if self._roles is None:
            self.roles  # noqa: B018 - computes both maps
        return self._by_name

    def view(self) -> Run:
        """The run so far, as a Run (no copies of the metric data already moved to numpy)."""
        run = Run(source=self.source, format="live", meta=dict(self.meta), damage=list(self.damage))
        for name, col in self.columns.items():
            col.flush()
            n = col.n
            wall = col.wall[:n] if self.keep_wall and n and not math.isnan(col.wall[0]) else None
            run.series[name] = Series(name, col.steps[:n], col.values[:n], wall)
        run.roles = dict(self.roles)
        return run


def _scalar(value: Any) -> float | None:
    """A Python or numpy number, or a framework tensor, as a float; text spelling a non-finite
    number ("NaN") as that number, as the readers do; None for anything else (bools, text)."""
    kind = type(value)
    if kind is int or kind is float:
        return float(value)
    if isinstance(value, (np.floating, np.integer)):
        return float(value)
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        return text_nonfinite(value)
    item = getattr(value, "item", None)
    if item is None:
        return None
    try:
        v = item()
    except (TypeError, ValueError, RuntimeError):
        return None
    return float(v) if type(v) in (int, float) else None
