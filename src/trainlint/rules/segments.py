"""Resumed and restarted runs: turn a Run whose step counter goes backwards into segments.

Two cases. A *resume* goes back to a checkpoint (the new first step is above the run's
first step): the restart replays some steps, and the model's real trajectory is the old
curve up to the checkpoint followed by the new one, so the pieces are stitched (the
replayed points come from the restart). A *reset* goes back to the start: a new run was
appended to the log, and each such segment is judged on its own. The rules that look at
the run as a whole (completion, crash, stalls, the resume itself, damage) see the
original once. This module only splits; ``engine.judge_run`` judges the segments.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from msgspec.structs import replace

from ..model import Run, Series


def resets(steps: np.ndarray) -> np.ndarray:
    """Indices i where steps[i] < steps[i-1] (the counter went backwards)."""
    return np.flatnonzero(np.diff(steps) < 0) + 1


def reference(run: Run) -> Series | None:
    """The series that defines the segments: the loss, else the longest series."""
    loss = run.get("loss")
    if loss is not None and len(loss):
        return loss
    return max(run.series.values(), key=len, default=None)


def _cut(s: Series, a: int, b: int, keep: np.ndarray | None = None) -> Series:
    idx = np.arange(a, b) if keep is None else keep
    return Series(s.name, s.steps[idx], s.values[idx], None if s.wall is None else s.wall[idx])


def segments_of(s: Series) -> list[Series]:
    """One stitched series per reset-to-start segment of ``s``."""
    cuts = resets(s.steps)
    if len(cuts) == 0:
        return [s]
    bounds = [0, *cuts.tolist(), len(s)]
    out: list[Series] = []
    group: list[np.ndarray] = []
    first = float(s.steps[0])
    for a, b in zip(bounds[:-1], bounds[1:]):
        idx = np.arange(a, b)
        if group and s.steps[a] <= first:  # back to the start: a new segment
            out.append(_cut(s, 0, 0, np.concatenate(group)))
            group, first = [], float(s.steps[a])
        if group:  # a resume: drop the points the restart replays
            group = [g[s.steps[g] < s.steps[a]] for g in group]
        group.append(idx)
    out.append(_cut(s, 0, 0, np.concatenate(group)))
    return out


MAX_WRITERS = 4


def writer_chains(steps: np.ndarray) -> list[np.ndarray] | None:
    """When two to four processes appended to one file (each with its own rising step count,
    the lines interleaved), the index of each one's points, largest first; else None. A few
    resumes are not interleaving: it takes many backward steps (10, and a tenth of the points)."""
    cuts = resets(steps)
    if len(cuts) < max(10, 0.1 * len(steps)):
        return None
    lasts: list[float] = []
    owner = np.empty(len(steps), dtype=int)
    for i, st in enumerate(steps.tolist()):
        # the chain whose last step is the highest still below this one (patience sorting)
        best = max((c for c, last in enumerate(lasts) if last < st), key=lambda c: lasts[c], default=None)
        if best is None:
            if len(lasts) == MAX_WRITERS:
                return None
            lasts.append(st)
            best = len(lasts) - 1
        lasts[best] = st
        owner[i] = best
    chains = sorted((np.flatnonzero(owner == c) for c in range(len(lasts))), key=len, reverse=True)
    if len(chains) < 2 or len(chains[1]) < 0.1 * len(steps):
        return None
    return chains


def _interleaved(run: Run, ref: Series, chains: list[np.ndarray]) -> list[Run]:
    """One segment per writer: the reference split by its chains; other series split the same
    way when they interleave alike, kept whole when they rise steadily, else left out."""
    segs = [replace(run, series={}, notes=[], damage=[], events=[], meta=dict(run.meta)) for _ in chains]
    for name, s in run.series.items():
        own = chains if s is ref else writer_chains(s.steps)
        if own is not None and len(own) == len(chains):
            for seg, idx in zip(segs, own):
                seg.series[name] = _cut(s, 0, 0, idx)
        elif len(resets(s.steps)) == 0:
            segs[0].series[name] = s
    for seg in segs:
        seg.roles = {r: n for r, n in run.roles.items() if n in seg.series}
    return segs


def split_segments(run: Run) -> list[Run]:
    """[run] when the step counter never goes back; else the stitched segments (see module doc),
    or one segment per writer when several processes appended to the file at once."""
    ref = reference(run)
    if ref is None or len(ref) < 2 or len(resets(ref.steps)) == 0:
        return [run]
    chains = writer_chains(ref.steps)
    if chains is not None:
        return _interleaved(run, ref, chains)
    ref_segs = segments_of(ref)
    segs = [replace(run, series={}, notes=[], damage=[], events=[], meta=dict(run.meta)) for _ in ref_segs]
    dropped = []
    for name, s in run.series.items():
        found = ref_segs if s is ref else segments_of(s)
        pieces: Sequence[Series | None] = found if len(found) == len(ref_segs) else _fallback(found, ref_segs)
        if all(p is None for p in pieces):
            dropped.append(name)
        for seg, piece in zip(segs, pieces):
            if piece is not None and len(piece):
                seg.series[name] = piece
    for seg in segs:
        seg.roles = {r: n for r, n in run.roles.items() if n in seg.series}
    if dropped:
        run.notes.append(
            "not judged after the restart (cannot tell which segment they belong to): " + ", ".join(sorted(dropped)[:8])
        )
    return segs


def _fallback(pieces: list[Series], ref_segs: list[Series]) -> list[Series | None]:
    """A series without the reference's resets: place it by its steps. Where its steps lie within
    a segment's, that segment's (the latest of several); else the last segment's where it starts at
    or after that one's start (logged on past its loss), or the first's where it ends by that one's
    end. A restart counts from 1 again: a series at steps 1..10 beside a loss at 1..10, then 1..2,
    is the first segment's, not the last's (anice1/Tensorflow-Revision's W&B capture: an LR sweep's
    learning rate had been judged with the third fit's two epochs)."""
    out: list[Series | None] = [None] * len(ref_segs)
    if len(pieces) == 1 and len(pieces[0]):
        s = pieces[0]
        inside = [k for k, r in enumerate(ref_segs) if r.steps[0] <= s.steps[0] and s.steps[-1] <= r.steps[-1]]
        if inside:
            out[inside[-1]] = s
        elif s.steps[0] >= ref_segs[-1].steps[0]:
            out[-1] = s
        elif s.steps[-1] <= ref_segs[0].steps[-1]:
            out[0] = s
    return out
