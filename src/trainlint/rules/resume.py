"""Resumes: the step counter went backwards (a restart from a checkpoint, or a reset)."""

from __future__ import annotations

from ..registry import Context, NotChecked, Threshold, rule
from ..verdict import Finding
from .segments import reference, resets, segments_of, writer_chains
from .stats import fstep


@rule(
    code="TL095",
    whole_run=True,
    name="resumed",
    category="resume",
    severity="NOTE",
    summary="The step counter resets or goes backwards: the log holds a resumed (or restarted) run.",
    explanation="""
A step counter that goes back means the run was restarted, from a checkpoint (steps go
back a little and repeat) or from scratch (steps reset to the start), and the log was
appended to. This is reported so the curves are read right and never judged as one broken
curve: a resume from a checkpoint is stitched (the old curve up to the checkpoint, then
the restart, which is the model's real trajectory); a reset to the start begins a new
segment that is judged on its own, and each finding names its segment. If the
restart was not intended, look for the crash or preemption that preceded it; a reset
to 0 may also mean two different runs write to the same log file. Many backward steps
that form two to four rising step counts are processes writing to one file at once
(interleaved writers, a WARN): each writer is judged as its own segment.""",
    thresholds=[Threshold("min_points", 2, "points of the reference series needed to judge")],
)
def resumed(ctx: Context) -> Finding | None:
    ref = reference(ctx.subject)
    if ref is None or len(ref) < ctx.t("min_points"):
        raise NotChecked("no series long enough to follow the step counter")
    cuts = resets(ref.steps)
    if len(cuts) == 0:
        return None
    chains = writer_chains(ref.steps)
    if chains is not None:
        sizes = ", ".join(str(len(c)) for c in chains)
        return ctx.fire(
            f"{len(chains)} writers interleaved in one file: {ref.name} holds {len(chains)} rising step counts "
            f"({sizes} points) whose lines alternate ({len(cuts)} backward steps, not {len(cuts)} resumes); "
            "two processes (or two runs) append to the same log: each is judged as its own segment",
            step=float(ref.steps[cuts[0]]),
            severity="WARN",
            writers=len(chains),
            writer_points=[len(c) for c in chains],
            backward_steps=len(cuts),
        )
    pairs = [(float(ref.steps[i - 1]), float(ref.steps[i])) for i in cuts]
    shown = "; ".join(f"{fstep(a)} -> {fstep(b)}" for a, b in pairs[:5])
    segments = len(segments_of(ref))
    to_start = segments - 1
    resumes = len(cuts) - to_start
    parts = []
    if resumes:
        parts.append(f"{resumes} resume(s) from a checkpoint, stitched (replayed steps taken from the restart)")
    if to_start:
        parts.append(f"{to_start} reset(s) to the start, judged as {segments} separate segments")
    return ctx.fire(
        f"step counter went back {len(cuts)} time(s) in {ref.name} ({shown}): " + "; ".join(parts),
        step=pairs[0][1],
        resumes=resumes,
        resets_to_start=to_start,
        segments=segments,
        resume_points=[list(p) for p in pairs[:20]],
        steps_repeated=float(sum(a - b for a, b in pairs)),
    )
