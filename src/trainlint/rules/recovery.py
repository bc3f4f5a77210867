"""Recoveries: the guard rolled the run back to a good state and went on."""

from __future__ import annotations

from typing import Any

from ..registry import Context, NotChecked, rule
from ..verdict import Finding
from .stats import fstep


def _num(x: Any) -> float:
    return float(x) if isinstance(x, (int, float)) else float("nan")


def recovery_events(events: list[Any]) -> list[dict[str, Any]]:
    return [
        e
        for e in events
        if isinstance(e, dict) and e.get("type") == "recovery" and isinstance(e.get("skipped_steps"), list)
    ]


@rule(
    code="TL089",
    whole_run=True,
    name="recovered",
    category="resume",
    severity="NOTE",
    summary="The guard rolled the run back to its last good state, skipped the bad batches and went on.",
    explanation="""
A guard with a recovery policy (``GuardCallback(recover=True)``) met a fault it can cure (a
non-finite loss or gradient norm, a divergence, a loss spike with a gradient explosion): it
restored the last good snapshot (weights, optimizer, scheduler, scaler, RNG), skipped the
batches that led to the fault, optionally lowered the learning rate, and trained on with the
step counter going on. The guard log beside the run records each action; doctor reads it,
leaves the rolled-back steps out of the curves (their updates were discarded) and judges the
trajectory the model had. A recovery is evidence, not a failure; many of them in one run, or
the same fault again and again, point at the data or the learning rate.""",
)
def recovered(ctx: Context) -> list[Finding]:
    found = recovery_events(ctx.subject.events)
    if not found:
        if any(isinstance(e, dict) and e.get("type") == "guard-log" for e in ctx.subject.events):
            return []  # a guard watched the run and never rolled it back
        raise NotChecked("no guard log beside this run (trainlint-guard.jsonl), so no recovery records")
    out = []
    for e in found:
        skipped = [_num(s) for s in e.get("skipped_steps") or []] or [float("nan")]
        span = f"{fstep(skipped[0])}-{fstep(skipped[-1])}" if len(skipped) > 1 else fstep(skipped[0])
        lr = ""
        if e.get("lr_after") and e.get("lr_after") != e.get("lr_before"):
            lr = f"; LR {_lrs(e.get('lr_before'))} -> {_lrs(e.get('lr_after'))}"
        out.append(
            ctx.fire(
                f"{e.get('code')} at step {fstep(_num(e.get('fault_step')))}: rolled back to step "
                f"{fstep(_num(e.get('restored_step')))}, skipped {batches(len(e.get('skipped_steps') or []))} (steps {span}){lr}",
                step=_num(e.get("fault_step")),
                fault=e.get("code"),
                restored_step=e.get("restored_step"),
                skipped=len(e.get("skipped_steps") or []),
                attempt=e.get("attempt"),
            )
        )
    return out


def batches(n: int) -> str:
    """``1 batch``, ``n batches``: a recovery's skipped window, as TL089 and the guard's record say it."""
    return f"{n} batch" if n == 1 else f"{n} batches"


def _lrs(value: Any) -> str:
    """A recorded learning rate (one per parameter group) as text: ``0.1``, or ``0.1, 0.01``."""
    items = value if isinstance(value, list) else [value]
    return ", ".join(f"{x:g}" if isinstance(x, (int, float)) else str(x) for x in items)
