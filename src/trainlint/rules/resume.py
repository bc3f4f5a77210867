"""Resumes: the step counter went backwards (a restart from a checkpoint, or a reset)."""

from __future__ import annotations

import numpy as np

from ..registry import NotChecked, Threshold, rule
from ._segments import reference, resets
from ._stats import fstep


@rule(code="TL095", name="resumed", category="resume", severity="NOTE",
      summary="The step counter resets or goes backwards: the log holds a resumed (or restarted) run.",
      explanation="""
A step counter that goes back means the run was restarted, from a checkpoint (steps go
back a little and repeat) or from scratch (steps reset to 0), and the log was appended
to. This is reported so the curves are read right: trainlint judges each segment on its
own rather than as one broken curve, and each finding names its segment. If the
restart was not intended, look for the crash or preemption that preceded it; a reset
to 0 may also mean two different runs write to the same log file.""",
      thresholds=[Threshold("min_points", 2, "points of the reference series needed to judge")])
def resumed(ctx):
    ref = reference(ctx.subject)
    if ref is None or len(ref) < ctx.t("min_points"):
        raise NotChecked("no series long enough to follow the step counter")
    cuts = resets(ref.steps)
    if len(cuts) == 0:
        return None
    pairs = [(float(ref.steps[i - 1]), float(ref.steps[i])) for i in cuts]
    shown = "; ".join(f"{fstep(a)} -> {fstep(b)}" for a, b in pairs[:5])
    to_zero = sum(1 for _, b in pairs if b <= float(np.min(ref.steps[: cuts[0]])))
    repeated = float(sum(a - b for a, b in pairs))
    return ctx.fire(
        f"step counter went back {len(cuts)} time(s) in {ref.name} ({shown}); judged as {len(cuts) + 1} "
        f"segments" + (f", {to_zero} reset(s) to the start" if to_zero else ""),
        step=pairs[0][1], resumes=len(cuts), segments=len(cuts) + 1,
        resume_points=[list(p) for p in pairs[:20]], resets_to_start=to_zero, steps_repeated=repeated)
