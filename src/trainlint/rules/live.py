"""Rules about a run being watched right now (target "live": judged by `trainlint watch`
and the guard on the state of the feed, not on a finished log)."""

from __future__ import annotations

from ..registry import Context, NotChecked, Threshold, rule
from ..verdict import Finding
from .stats import fmt


@rule(
    code="TL450",
    name="live-stalled",
    category="stall",
    severity="WARN",
    target="live",
    summary="A live run has written no new record for far longer than its own cadence.",
    explanation="""
While watching a run, the time since its last record is compared with the run's own
median interval between records. A run that usually logs every 20 seconds and has been
silent for 15 minutes is hung (a deadlock in a collective, a stuck data loader, a
filesystem that stopped accepting writes) or dead without a trace. Check the process,
its GPU utilisation, and the last lines of its console output.""",
    thresholds=[
        Threshold("factor", 10, "silence / median record interval that counts as stalled"),
        Threshold("min_seconds", 60, "never fire on silences shorter than this"),
        Threshold("min_records", 5, "records needed to know the cadence"),
    ],
)
def live_stalled(ctx: Context) -> Finding | None:
    status = ctx.subject
    if status.records < ctx.t("min_records") or status.cadence is None:
        raise NotChecked("too few records to know the run's cadence")
    silence = status.now - status.last_record_time
    limit = max(ctx.t("factor") * status.cadence, ctx.t("min_seconds"))
    if silence < limit:
        return None
    return ctx.fire(
        f"no new record for {fmt(silence)} s, {fmt(silence / status.cadence)}x the run's median interval "
        f"of {fmt(status.cadence)} s (threshold {fmt(limit)} s); last step {fmt(status.last_step)}",
        step=status.last_step,
        silence_s=silence,
        cadence_s=status.cadence,
        threshold_s=limit,
        factor=ctx.t("factor"),
    )
