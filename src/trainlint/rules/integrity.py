"""Damaged inputs: what a reader had to skip or could not read."""

from __future__ import annotations

from ..registry import Context, rule
from ..verdict import Finding


@rule(
    code="TL100",
    whole_run=True,
    name="input-damaged",
    category="integrity",
    severity="WARN",
    summary="The log is damaged (truncated, corrupt or partly unreadable); judged on what was intact.",
    explanation="""
The reader recovered what it could: a file cut short by a killed run, a corrupt record,
lines that do not parse. Every other verdict in this report is computed on the recovered
part only. A truncated log usually means the process was killed while writing (OOM
killer, preemption, a full disk); check the job's exit status and the disk.""",
)
def input_damaged(ctx: Context) -> list[Finding]:
    return [ctx.fire(d.message, kind=d.kind, **d.evidence) for d in ctx.subject.damage]
