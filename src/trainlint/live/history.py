"""A run that grows one record at a time, and the running quantities the guard reads per record.

Appending is O(1) and cheap. A record's step and wall time go to one list per run; each value
goes to its metric's list, and nothing else while a metric is logged at every record since
its first (dense: its steps are the run's record steps from there, shared, not copied). A
metric missing from a record becomes sparse and keeps its own steps. :meth:`LiveRun.view`
moves what came since the last view into growable numpy arrays (:class:`~trainlint.running.Grow`:
a move costs O(its points), never a copy of the whole history) and returns a :class:`~trainlint.model.Run` whose series
are views of them, so judging reads the same arrays doctor would read from a finished log.

The tracked roles (loss, eval loss, grad norm, learning rate) also update a :class:`Running`
state per record in O(1): counts, the first non-finite step, best-so-far, the peak and the
points since it. The guard reads its alarms and the warm-up from these, never by rescanning.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..model import Damage, Run, Series
from ..readers.base import text_nonfinite
from ..roles import assign_roles
from ..running import Grow, Running


class _Column:
    """One metric: its values, and while sparse (missing from some record) its own steps and
    wall times; while dense, the run's records from ``start`` on are its steps."""

    __slots__ = ("start", "pending", "values", "steps", "wall", "new_steps", "new_wall")

    def __init__(self, start: int) -> None:
        self.start = start
        self.pending: list[float] = []
        self.values = Grow()
        self.steps: Grow | None = None  # None while dense
        self.wall: Grow | None = None
        self.new_steps: list[float] = []
        self.new_wall: list[float] = []

    def __len__(self) -> int:
        return self.values.n + len(self.pending)

    def flush(self) -> None:
        self.values.extend(self.pending)
        self.pending.clear()  # in place: LiveRun's map of the dense columns holds this list
        if self.steps is not None and self.wall is not None:
            self.steps.extend(self.new_steps)
            self.wall.extend(self.new_wall)
            self.new_steps.clear()
            self.new_wall.clear()


FEED = 4096  # records between two feedings of the rules' kept states (LiveRun.feed_states)...
FEED_SHARE = 64  # ...or this share of the history, when longer

# role -> (how a record of it is alarming, the alarm's name besides a non-finite value); the
# order is the alarms' priority
TRACKED = {
    "loss": ("jump", "loss jump"),
    "eval_loss": ("finite", ""),
    "grad_norm": ("finite", ""),
    "learning_rate": ("schedule", "learning rate zero"),
}


class LiveRun:
    """Metric columns of a run in progress plus its metadata (and the damage and events, such as a
    crash's traceback, its reader found, which belong to the file rather than to any record)."""

    def __init__(
        self,
        source: str = "<live>",
        role_map: dict[str, str] | None = None,
        meta: dict[str, Any] | None = None,
        keep_wall: bool = True,
        format: str = "live",
    ) -> None:
        self.source, self.format = source, format  # the file's format, when a file is followed
        self.columns: dict[str, _Column] = {}
        self.role_map = dict(role_map or {})
        self.meta: dict[str, Any] = dict(meta or {})
        self.damage: list[Damage] = []
        self.events: list[dict[str, Any]] = []
        self.keep_wall = keep_wall
        self.records = 0
        self.running: dict[str, Running] = {}  # role -> its running quantities
        # what the rules keep across judgements (registry.Context.states): the series only grow
        self.states: dict[str, Any] = {}
        self._feed_at = FEED  # the record count at which feed_states next runs
        self._dense: dict[str, list[float]] = {}  # name -> pending values, for the dense columns
        self._steps: list[float] = []  # the records' steps and wall times not yet in numpy
        self._wall: list[float] = []
        self._rsteps, self._rwall = Grow(), Grow()
        self._roles: dict[str, str] | None = None
        self._by_name: dict[str, str] = {}
        self._tracked: list[tuple[str, Running]] = []  # (name, its state) for the tracked roles
        self._alarms: dict[str, tuple[str, str]] = {}  # name -> (its role, its alarm)

    def append(self, step: float, metrics: dict[str, Any], wall: float = math.nan) -> str | None:
        """Add one record (real numbers only are kept); returns the alarm of the first tracked
        metric whose value is alarming (non-finite first), if any."""
        dense = self._dense
        if len(metrics) == len(dense):  # the dense columns, when every name is one of them
            missing = None
            try:
                for name, value in metrics.items():
                    if type(value) is not float:
                        value = _scalar(value)
                        if value is None:
                            missing = [*(missing or ()), name]
                            continue
                    dense[name].append(value)
            except KeyError:  # a name that is no dense column: undo, then the general path
                self._undo(metrics, name, missing)
                self._append_other(step, metrics, wall)
            else:
                if missing:
                    self._without_numbers(step, metrics, wall, missing)
        else:
            self._append_other(step, metrics, wall)
        self._steps.append(step)
        self._wall.append(wall)
        self.records += 1
        if self.records >= self._feed_at:
            self.feed_states()
        if self._roles is None:
            self._track()
        alarm = non_finite = None
        for name, state in self._tracked:
            value = metrics.get(name)
            if value is None:
                continue
            if type(value) is float and state.lo <= value <= state.hi:
                state.points += 1  # nothing else changes (Running.lo, hi)
                continue
            if type(value) is not float:
                value = _scalar(value)
                if value is None:
                    continue
            if state.add(value, step):
                role, what = self._alarms[name]
                if value - value != 0.0:  # the first, and the second (a NaN that recurs FAILs)
                    again = " again" if state.non_finite > 1 else ""
                    non_finite = non_finite or f"non-finite {role}{again}"
                elif alarm is None:
                    alarm = what
        return non_finite or alarm

    def feed_states(self) -> None:
        """Bring the rules' kept states (Context.states) up to the records so far, between
        judgements: every FEED records, or every 1/FEED_SHARE of the history once longer. A
        judgement then adds to them only the records since (not the quarter of the history the
        guard's schedule lets pass between two), so how long it holds the training loop does not
        grow with that quarter; feeding costs O(1) per record amortised. A state feeds itself
        from the run when it knows where its series is (its ``feed``). When one fails, all are
        dropped (some derive from others; the next judgement builds them again, or its rule says
        why it cannot): feeding never raises into the training loop, nor warns (overflow on
        absurd values, as the engine)."""
        self._feed_at = self.records + max(FEED, self.records // FEED_SHARE)
        if not self.states:
            return
        run = self.view()
        memo: dict[str, Any] = {}  # what the states' sources share (the finite values of a series)
        try:
            with np.errstate(all="ignore"):
                for state in list(self.states.values()):  # in the order made: a derived one after its base
                    feed = getattr(state, "feed", None)
                    if feed is not None:
                        feed(run, memo)
        except Exception:  # noqa: BLE001 - a state's fault must not stop the run
            self.states.clear()

    def _without_numbers(self, step: float, metrics: dict[str, Any], wall: float, missing: list[str]) -> None:
        """A record of as many names as the dense columns, ``missing`` with no number: dense
        columns it lacks become sparse; when one of them is no dense column, the record lacks a
        dense column besides: the general path takes it."""
        if all(name in self._dense for name in missing):
            self._make_sparse(missing)
        else:
            self._undo(metrics, None, missing)
            self._append_other(step, metrics, wall)

    def _undo(self, metrics: dict[str, Any], stop: str | None, missing: list[str] | None) -> None:
        """Take back the values this record gave the dense columns before ``stop`` (all of
        them when ``stop`` is None)."""
        for name in metrics:
            if name == stop:
                return
            if not missing or name not in missing:
                self._dense[name].pop()

    def _append_other(self, step: float, metrics: dict[str, Any], wall: float) -> None:
        """A record whose metrics are not exactly the dense columns: new metrics, sparse ones,
        dense ones it lacks (they become sparse)."""
        got = set()
        for name, value in metrics.items():
            if type(value) is not float:
                value = _scalar(value)
                if value is None:
                    continue
            col = self.columns.get(name)
            if col is None:
                col = self.columns[name] = _Column(self.records)
                self._dense[name] = col.pending
                self._roles = None
            if col.steps is None:
                col.pending.append(value)
                got.add(name)
            else:
                col.pending.append(value)
                col.new_steps.append(step)
                col.new_wall.append(wall)
        lacking = [name for name in self._dense if name not in got]
        if lacking:
            self._make_sparse(lacking)

    def _make_sparse(self, names: list[str]) -> None:
        """Dense columns that the current record (not yet counted) lacks: from now on each
        keeps its own steps and wall times, starting with those of its records so far."""
        self._flush_records()
        for name in names:
            col = self.columns[name]
            del self._dense[name]
            col.flush()
            end = col.start + col.values.n
            col.steps, col.wall = (
                Grow(self._rsteps.view()[col.start : end]),
                Grow(self._rwall.view()[col.start : end]),
            )

    def _track(self) -> None:
        """Which metrics the running states follow, after the roles moved (a new metric)."""
        roles = self.roles
        tracked = []
        self._alarms = {}
        for role, (kind, what) in TRACKED.items():
            if role in roles:
                state = self.running.get(role)
                if state is None:
                    state = self.running[role] = Running(kind)
                tracked.append((roles[role], state))
                self._alarms[roles[role]] = (role, what)
        self._tracked = tracked

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

    def _flush_records(self) -> None:
        self._rsteps.extend(self._steps)
        self._rwall.extend(self._wall)
        self._steps, self._wall = [], []

    def view(self) -> Run:
        """The run so far, as a Run (no copies of the metric data already moved to numpy)."""
        run = Run(
            source=self.source,
            format=self.format,
            meta=dict(self.meta),
            damage=list(self.damage),
            events=list(self.events),
        )
        self._flush_records()
        rsteps, rwall = self._rsteps.view(), self._rwall.view()
        for name, col in self.columns.items():
            col.flush()
            n = col.values.n
            if col.steps is None or col.wall is None:  # dense: the records from its first on
                steps, wall = rsteps[col.start : col.start + n], rwall[col.start : col.start + n]
            else:
                steps, wall = col.steps.view(), col.wall.view()
            keep = self.keep_wall and n and not math.isnan(wall[0])
            run.series[name] = Series(name, steps, col.values.view(), wall if keep else None)
        run.roles = dict(self.roles)
        return run


def _scalar(value: Any) -> float | None:
    """A Python or numpy number, or a framework tensor, as a float; text spelling a non-finite
    number ("NaN") as that number, as the readers do; None for anything else (bools, text)."""
    kind = type(value)
    if kind is float:
        return value  # type: ignore[no-any-return]
    if kind is int:
        return _int(value)
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
    return _int(v) if type(v) is int else float(v) if type(v) is float else None


def _int(value: int) -> float:
    """An int as a float; one too large for a float (above about 1e308) as an infinity of its
    sign, which the rules judge as a non-finite value rather than the guard raising."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf
