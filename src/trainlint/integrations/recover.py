"""Recover instead of stop: on a fault the run can come back from (non-finite loss or
gradients, divergence, a loss spike with a gradient explosion) roll back to the last good
snapshot, skip the data window that led to the fault, optionally scale the LR, and go on.

A plain PyTorch loop::

    rec = recovering(model, optimizer, scheduler, log_path="out/trainlint-guard.jsonl")
    for step, batch in enumerate(loader, 1):
        loss = train_step(batch)
        rec.observe(step, loss=loss.item(), lr=scheduler.get_last_lr()[0])
        if rec.should_stop:
            break
    report = rec.close()

The framework callbacks (``integrations.hf``, ``integrations.lightning``) drive the same
:class:`Recoverer`. torch is imported only when a snapshot is taken (``_torchstate``)."""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Literal

import msgspec
import numpy as np

from ..live.guard import Guard, StopPolicy
from ..readers.stream import records
from ..registry import REGISTRY
from ..rules.recovery import batches
from ..verdict import Finding, Report, Severity
from . import _torchstate as ts

# The faults a rollback can cure, by rule: the run's numbers went non-finite or blew up.
RECOVERABLE = frozenset({"TL001", "TL002", "TL003", "TL010", "TL011"})
SPIKE, GRAD_SPIKES = "TL020", frozenset({"TL021", "TL050"})  # a loss spike counts with these
FAULT_CODES = sorted(RECOVERABLE | {SPIKE})  # a fault's code travels between ranks as its index
NOTE_CODE = "TL089"
REFERENCE, BAD_FACTOR, MAX_TAIL = 20, 2.0, 100_000  # a record is bad above 2x the median of the 20 before the snapshot
AUTO_MEMORY_BYTES = 2 << 30  # keep="auto": in memory up to 2 GiB of weights and optimizer state


class Recovery(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """What the guard does on a recoverable fault instead of stopping.

    - ``max_attempts``: rollbacks to one snapshot before the run is stopped.
    - ``skip``: ``"window"`` drops the batches since the snapshot restored (the loader has
      already yielded them; their updates are rolled back); an int ``n`` also drops the next
      ``n`` batches after the fault (trained on, then rolled back again).
    - ``lr_scale``: the LR is multiplied by this at each recovery (1.0 leaves it).
    - ``keep``: ``"memory"`` (a CPU copy), ``"disk"`` (``torch.save`` beside the guard log),
      ``"auto"`` (memory up to ``AUTO_MEMORY_BYTES``, else disk).
    - ``snapshot_every``: steps between snapshots, taken only while the guard has seen only
      good records and every weight is finite; ``snapshots`` are kept (the newest one taken
      before the fault's first bad record is restored).
    """

    max_attempts: int = 3
    skip: Literal["window"] | int = "window"
    lr_scale: float = 1.0
    keep: Literal["memory", "disk", "auto"] = "memory"
    snapshot_every: int = 10
    snapshots: int = 2

    def __post_init__(self) -> None:
        if self.max_attempts < 1 or self.snapshot_every < 1 or self.snapshots < 1:
            raise ValueError("Recovery: max_attempts, snapshot_every and snapshots must be at least 1")
        if self.skip != "window" and (
            isinstance(self.skip, (str, bool)) or not isinstance(self.skip, int) or self.skip < 0
        ):
            raise ValueError(f"Recovery: skip is 'window' or a count of batches >= 0, not {self.skip!r}")
        if self.keep not in ("memory", "disk", "auto"):
            raise ValueError(f"Recovery: keep is 'memory', 'disk' or 'auto', not {self.keep!r}")
        if not 0 < self.lr_scale <= 1e3:
            raise ValueError("Recovery: lr_scale must be in (0, 1000]")

    @classmethod
    def of(cls, recover: bool | Recovery | None) -> Recovery | None:
        if recover is None or recover is False:
            return None
        return cls() if recover is True else recover

    @property
    def extra(self) -> int:
        return 0 if isinstance(self.skip, str) else self.skip


class RecoveryRecord(msgspec.Struct):
    """One action: a recovery (``outcome="recovered"``) or the stop that ended the attempts."""

    fault_step: float
    code: str
    restored_step: float | None
    skipped_steps: list[float]
    lr_before: list[float]
    lr_after: list[float]
    attempt: int
    outcome: str  # "recovered" | "stopped"
    reason: str = ""

    def message(self) -> str:
        if self.outcome == "stopped":
            return f"{self.code} at step {_num(self.fault_step)}: not recovered, run stopped ({self.reason})"
        lr = "" if self.lr_after == self.lr_before else f"; LR {_lr(self.lr_before)} -> {_lr(self.lr_after)}"
        return (
            f"{self.code} at step {_num(self.fault_step)}: restored the state of step {_num(self.restored_step)}, "
            f"skipped {batches(len(self.skipped_steps))} (steps {_span(self.skipped_steps)}){lr}; "
            f"attempt {self.attempt}"
        )


def _num(x: float | None) -> str:
    return "?" if x is None else str(int(x)) if float(x).is_integer() else f"{x:g}"


def _lr(lrs: list[float]) -> str:
    return ",".join(f"{v:.3g}" for v in lrs) or "-"


def _span(steps: list[float]) -> str:
    return "-" if not steps else f"{_num(steps[0])}-{_num(steps[-1])}" if len(steps) > 1 else _num(steps[0])


def _spike_steps(f: Finding) -> set[float]:
    listed = f.evidence.get("spike_steps")
    return (
        {float(x) for x in listed} if isinstance(listed, list) else ({float(f.step)} if f.step is not None else set())
    )


def _same_step(spike: Finding, found: list[Finding]) -> bool:
    """Whether a grad-norm spike finding (any severity) names a step of the loss spike's."""
    steps = _spike_steps(spike)
    return any(f.code in GRAD_SPIKES and steps & _spike_steps(f) for f in found)


class Recoverer:
    """The recovery loop around a :class:`Guard`. Call :meth:`observe` with each logged
    record and :meth:`after_step` after every optimizer step (a plain loop that logs every
    step calls :meth:`observe` only: it does both). ``parts`` gives the live objects
    (model, optimizer, scheduler, scaler) when a snapshot is taken or restored.
    The guard itself must not stop (``stop_on=None``): ``stop_on`` here says which
    findings stop the run when no rollback cures them. ``unsupported`` (e.g. "FSDP") names a setting where no rollback is possible: a
    recoverable fault then stops the run, on every rank at the same step."""

    def __init__(
        self,
        policy: Recovery,
        guard: Guard,
        parts: Callable[[], ts.Parts],
        *,
        stop_on: str | Iterable[str] | None = "FAIL",
        unsupported: str | None = None,
        snapshot_dir: str | Path | None = None,
    ) -> None:
        self.policy, self.guard, self.parts, self.unsupported = policy, guard, parts, unsupported
        self.stop_policy = StopPolicy.of(stop_on, guard.warmup_steps)
        log = Path(guard.log_path) if guard.log_path is not None else None
        self.snapshot_dir = Path(snapshot_dir) if snapshot_dir else (log.parent if log else None)
        self.snaps: list[ts.Snapshot] = []
        self.attempts: dict[float, int] = {}
        self.actions: list[RecoveryRecord] = []
        self.should_stop = False
        self.stop_reason: RecoveryRecord | Finding | None = None
        self._last_snap = -float("inf")
        self._discard_until = -float("inf")
        self._discard_snap: ts.Snapshot | None = None
        self._skipped_until = -float("inf")
        self._stop_fault: Finding | None = None  # the fault no rollback cured
        self._first_after = False  # the next record is the first after a recovery
        self._keep: str | None = None if policy.keep == "auto" else policy.keep

    # -- the calls a training loop makes -----------------------------------------------
    def observe(self, step: float, *, snapshot: bool = True, **metrics: Any) -> list[Finding]:
        """Feed one record to the guard, then recover or stop when it calls for it; with
        ``snapshot`` (a loop that calls nothing else) also :meth:`after_step`."""
        if self.should_stop or step <= self._discard_until:
            if snapshot:
                self.after_step(step)
            return []
        new = self.guard.observe(step, **metrics)
        self._decide(step, self._loss_of(metrics))
        if snapshot and not self.should_stop:
            self.after_step(step)
        return new

    def after_step(self, step: float) -> None:
        """After an optimizer step: roll back a step of the skipped window (``skip=n``), or
        take a snapshot when one is due and the run is healthy (on every rank alike)."""
        if self.should_stop:
            return
        if step <= self._discard_until and self._discard_snap is not None:
            ts.restore(self.parts(), self._discard_snap, 1.0)
            return
        if step - self._last_snap < self.policy.snapshot_every:
            return
        healthy = self._fault() is None and self._stopper() is None and self._bad_since(step) > step
        if not ts.agree([0 if healthy else 1])[0]:
            self._snapshot(step)

    def close(self) -> Report:
        """The run ended: the guard's closing report, with one NOTE per recovery."""
        report = self.guard.close()
        report.findings += [note_finding(rec) for rec in self.actions]
        fault = self._stop_fault
        if fault is not None and not any(f.code == fault.code and f.severity is Severity.FAIL for f in report.findings):
            report.findings.insert(0, msgspec.structs.replace(fault, severity=Severity.FAIL))
        self._drop_files(self.snaps)
        return report

    # -- deciding ----------------------------------------------------------------------
    def _fault(self) -> Finding | None:
        """The current finding a rollback can cure, if any: a non-finite or blown-up number, or a
        loss spike with a grad-norm spike (one at WARN, or one at any severity logged at a step of
        the loss spike: a bad batch raises both at once, and TL021 counts a loss reaction only in
        the logs after its spike, so at that moment it says NOTE)."""
        found = self.guard.current
        current = {f.code: f for f in found if f.severity in (Severity.FAIL, Severity.WARN)}
        for code in sorted(RECOVERABLE & current.keys()):
            return current[code]
        if SPIKE in current and (GRAD_SPIKES & current.keys() or _same_step(current[SPIKE], found)):
            return current[SPIKE]
        return None

    def _decide(self, step: float, loss: float | None) -> None:
        fault = self._fault()
        came_back = self._first_after and fault is not None and not ts.finite(loss)
        self._first_after = False
        stop = fault is None and self._stopper() is not None
        first_bad = min(self._bad_since(step), step) if fault is not None else step
        which = FAULT_CODES.index(fault.code) + 1 if fault is not None else 0
        flags = ts.agree([which, stop, came_back, -int(first_bad) if fault else -(1 << 62)])
        if flags[0]:  # on every rank alike: the fault, its first bad step, what to do
            code = FAULT_CODES[flags[0] - 1]
            if self.unsupported:
                self._stop(step, code, f"no rollback under {self.unsupported}")
            elif flags[2]:
                self._stop(step, code, "the fault came back right after the recovery")
            else:
                self._recover(step, code, float(-flags[3]))
        elif flags[1]:
            why = self._stopper()
            self.should_stop, self.stop_reason = True, why
            if self.guard.log_path is not None and ts.rank() == 0:
                at = {"time": self.guard.clock(), "at_step": step}
                what = {"code": why.code, "severity": why.severity.value, "message": why.message} if why else {}
                _append(self.guard.log_path, {"type": "stop", **at, **what})

    def _stopper(self) -> Finding | None:
        """The current finding the stop policy stops on (no rollback cures it)."""
        warm = self.guard.warmup_over
        return next((f for f in self.guard.current if self.stop_policy.wants_stop(f, warm)), None)

    def _bad_since(self, step: float) -> float:
        """Where the run of bad records that ends at the last record began (inf when the last
        record is good). A record is bad when its loss is non-finite or above twice the median
        of the 20 records before the newest snapshot (the median plus its size, for a negative
        loss; the last 20 records, without a snapshot)."""
        loss = self.guard.history.view().get("loss")
        if loss is None or not len(loss):
            return math.inf
        steps, values = loss.steps, loss.values
        ref_end = np.searchsorted(steps, self.snaps[-1].step, side="right") if self.snaps else len(values)
        ref = values[max(0, ref_end - REFERENCE) : ref_end]
        ref = ref[np.isfinite(ref)]
        if not len(ref):
            return step
        med = float(np.median(ref))
        # only the records from the oldest snapshot on matter (a run of bad records that began
        # before it leaves no snapshot to restore either way): constant work per record
        start = max(0, int(np.searchsorted(steps, self.snaps[0].step, side="right")) - 1) if self.snaps else 0
        start = max(start, len(values) - MAX_TAIL)
        tail = values[start:]
        bad = ~np.isfinite(tail) | (tail > med + (BAD_FACTOR - 1) * abs(med))  # 2x a positive loss
        if not bad[-1]:
            return math.inf
        good = np.flatnonzero(~bad)
        return float(steps[start + good[-1] + 1]) if len(good) else float(steps[start])

    def _loss_of(self, metrics: dict[str, Any]) -> float | None:
        name = self.guard.history.roles.get("loss")
        return None if name is None or name not in metrics else _scalar_or_none(metrics[name])

    # -- acting ------------------------------------------------------------------------
    def _recover(self, step: float, code: str, first_bad: float) -> None:
        good = [s for s in self.snaps if s.step < first_bad]
        if not good:
            self._stop(step, code, f"no good snapshot before step {_num(first_bad)}")
            return
        snap = good[-1]
        attempt = self.attempts.get(snap.step, 0) + 1
        if attempt > self.policy.max_attempts:
            self._stop(step, code, f"{self.policy.max_attempts} recoveries to step {_num(snap.step)} did not hold")
            return
        self.attempts[snap.step] = attempt
        before, after = ts.restore(self.parts(), snap, self.policy.lr_scale)
        last = step + self.policy.extra
        first = max(snap.step, self._skipped_until)  # an earlier attempt skipped the steps before
        skipped = [float(s) for s in range(int(first) + 1, int(last) + 1)]
        self._skipped_until = last
        rec = RecoveryRecord(step, code, snap.step, skipped, before, after, attempt, "recovered")
        self._act(rec)
        self._drop_files([s for s in self.snaps if s.step > snap.step])
        self.snaps = [s for s in self.snaps if s.step <= snap.step]
        self._last_snap = step  # the next snapshot comes snapshot_every steps after the fault
        self._discard_until, self._discard_snap = last, snap
        self._first_after = True
        self._rebuild_guard(snap.step, last)

    def _stop(self, step: float, code: str, reason: str) -> None:
        """Stop the run, the state put back to the last good snapshot first (a checkpoint
        saved on the way out holds it)."""
        self._stop_fault = next((f for f in self.guard.current if f.code == code), None)
        restored = None
        if self.snaps and not self.unsupported:
            ts.restore(self.parts(), self.snaps[-1], 1.0)
            restored = self.snaps[-1].step
        lrs = ts._lrs(self.parts().optimizer)
        rec = RecoveryRecord(
            step, code, restored, [], lrs, lrs, self.attempts.get(restored or -1.0, 0), "stopped", reason
        )
        self._act(rec)
        self.should_stop, self.stop_reason = True, rec

    def _act(self, rec: RecoveryRecord) -> None:
        self.actions.append(rec)
        if self.guard.log_path is not None and ts.rank() == 0:
            _append(
                self.guard.log_path, {"type": "recovery", "time": self.guard.clock(), **msgspec.structs.asdict(rec)}
            )

    def _snapshot(self, step: float) -> None:
        parts = self.parts()
        if self._keep is None:
            self._keep = "memory" if ts.state_bytes(parts) <= AUTO_MEMORY_BYTES else "disk"
        path = None
        if self._keep == "disk":
            folder = self.snapshot_dir or Path(".")
            path = folder / f"trainlint-snapshot-r{ts.rank()}-{int(step)}.pt"
        full = len(self.snaps) >= self.policy.snapshots
        evicted = self.snaps[0] if full and path is None else None  # its memory is reused
        snap = ts.take(parts, step, path, evicted)
        if ts.agree([1 if snap is None else 0])[0]:  # not good on some rank: none is kept
            self._drop_files([snap] if snap is not None else [])
            if snap is not None and evicted is not None:
                self.snaps = self.snaps[1:]  # its tensors were overwritten
            return
        assert snap is not None
        if not self.snaps and self.guard.log_path is not None and ts.rank() == 0:
            cost = {"type": "snapshot", "time": self.guard.clock(), "at_step": step, "bytes": snap.nbytes}
            _append(self.guard.log_path, {**cost, "keep": self._keep, "every": self.policy.snapshot_every})
        self.snaps.append(snap)
        self._last_snap = step
        self._drop_files(self.snaps[: -self.policy.snapshots])
        self.snaps = self.snaps[-self.policy.snapshots :]

    def _drop_files(self, snaps: list[ts.Snapshot]) -> None:
        for s in snaps:
            if s.path is not None:
                s.path.unlink(missing_ok=True)

    def _rebuild_guard(self, lo: float, hi: float) -> None:
        """A new guard fed the history without the rolled-back records (steps in (lo, hi]):
        its findings are those of the trajectory the model now has."""
        old = self.guard
        run = old.history.view()
        # the same constructor arguments (every init field, so a field Guard gains later comes
        # along), silent (no log, no callback) while it catches up
        kept = {f.name: getattr(old, f.name) for f in dataclasses.fields(old) if f.init}
        new = Guard(**{**kept, "log_path": None, "on_finding": None})
        for step, wall, metrics in records(run):
            if not lo < step <= hi:
                new.observe(step, wall_time=wall, **metrics)
        new.log_path, new.on_finding = old.log_path, old.on_finding
        self.guard = new


def _scalar_or_none(value: Any) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _append(path: str | Path, record: dict[str, Any]) -> None:
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(json.dumps({"trainlint_guard": 1, **record}, allow_nan=False, default=str) + "\n")


def note_finding(rec: RecoveryRecord) -> Finding:
    """The NOTE a recovery (or the stop that ended the attempts) leaves in the report."""
    rule = REGISTRY.get(NOTE_CODE)
    name, category = (rule.name, rule.category) if rule is not None else ("recovered", "recovery")
    evidence = msgspec.structs.asdict(rec)
    return Finding(NOTE_CODE, name, category, Severity.NOTE, rec.message(), evidence, rec.fault_step)


def recovering(
    model: Any,
    optimizer: Any = None,
    scheduler: Any = None,
    scaler: Any = None,
    *,
    recover: Recovery | bool = True,
    stop_on: str | Iterable[str] | None = "FAIL",
    **guard_options: Any,
) -> Recoverer:
    """A :class:`Recoverer` for a plain PyTorch loop: its own guard (``guard_options`` are
    :class:`Guard`'s: ``log_path``, ``settings``, ...) and these objects to roll back."""
    policy = Recovery.of(recover) or Recovery()
    parts = ts.Parts(model, optimizer, scheduler, scaler)
    return Recoverer(policy, Guard(stop_on=None, **guard_options), lambda: parts, stop_on=stop_on)
