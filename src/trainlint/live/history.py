"""A run that grows one record at a time, stored in growable numpy columns.

Appending is amortised O(1) (capacity doubles); :meth:`LiveRun.view` returns a
:class:`~trainlint.model.Run` whose series are views of the filled part of the
buffers, so judging reads the same arrays doctor would read from a finished log.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..model import Run, Series
from ..readers.base import text_nonfinite
from ..roles import assign_roles


class _Column:
    __slots__ = ("steps", "values", "wall", "n")

    def __init__(self, capacity: int = 64) -> None:
        self.steps = np.empty(capacity)
        self.values = np.empty(capacity)
        self.wall = np.empty(capacity)
        self.n = 0

    def append(self, step: float, value: float, wall: float) -> None:
        if self.n == len(self.values):
            for name in ("steps", "values", "wall"):
                old = getattr(self, name)
                new = np.empty(2 * len(old))
                new[: self.n] = old
                setattr(self, name, new)
        self.steps[self.n] = step
        self.values[self.n] = value
        self.wall[self.n] = wall
        self.n += 1


class LiveRun:
    """Metric columns of a run in progress plus its metadata."""

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
        self.keep_wall = keep_wall
        self.records = 0
        self._roles: dict[str, str] | None = None
        self._by_name: dict[str, str] = {}

    def append(self, step: float, metrics: dict[str, Any], wall: float = math.nan) -> list[tuple[str, float]]:
        """Add one record; returns the (name, value) pairs that were kept (real numbers only)."""
        kept = []
        for name, value in metrics.items():
            if type(value) not in (int, float) and not isinstance(value, (np.floating, np.integer)):
                value = _scalar(value)
                if value is None:
                    continue
            col = self.columns.get(name)
            if col is None:
                col = self.columns[name] = _Column()
                self._roles = None
            v = float(value)
            col.append(float(step), v, wall)
            kept.append((name, v))
        self.records += 1
        return kept

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
        """The run so far, as a Run (no copies of the metric data)."""
        run = Run(source=self.source, format="live", meta=dict(self.meta))
        for name, col in self.columns.items():
            n = col.n
            wall = col.wall[:n] if self.keep_wall and n and not math.isnan(col.wall[0]) else None
            run.series[name] = Series(name, col.steps[:n], col.values[:n], wall)
        run.roles = dict(self.roles)
        return run


def _scalar(value: Any) -> float | None:
    """A framework tensor or numpy scalar as a float; text spelling a non-finite number
    ("NaN") as that number, as the readers do; None for anything else (bools, text)."""
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
